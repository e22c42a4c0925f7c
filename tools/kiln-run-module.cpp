//===- kiln-run-module.cpp - Call one function of a Kiln module -----------===//
//
//   kiln-run-module --device=local-task --module=add.kiln --function=add
//       --input="4xf32=[1 2 3 4]" --input="4xf32=[2 2 2 2]"
//   EXEC @add
//   4xf32=3 4 5 6
//
//===----------------------------------------------------------------------===//

#include "runtime/tooling/AllocatorStatisticsReport.h"
#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/InvocationIo.h"
#include "runtime/tooling/ToolMain.h"
#include "runtime/tooling/ToolSession.h"

#include <iostream>

using namespace kiln;
using namespace kiln::tooling;

int main(int argc, char **argv) {
  return runToolMain([&]() -> Status {
    CommonFlags flags;
    FlagParser parser(
        "kiln-run-module --module=<file.kiln> [--function=<name>] "
        "[--input=<tensor>]... [flags]",
        "Calls one function of a Kiln module on a device and prints\n"
        "`EXEC @<function>` followed by each result (4xf32=3 4 5 6).\n\n"
        "Example:\n"
        "  kiln-run-module --device=local-task --module=add.kiln "
        "--function=add \\\n"
        "      --input=\"4xf32=[1 2 3 4]\" --input=\"4xf32=[2 2 2 2]\" "
        "--output=@sum.npy");
    registerCommonFlags(parser, flags, /*unmatchedOutputsPrinted=*/true);
    KILN_ASSIGN_OR_RETURN(std::optional<PreparedCall> call,
                          prepareCall(parser, flags, argc, argv));
    if (!call)
      return Status();
    const std::string &name = call->Loaded.Signature->Name;
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> results,
                          call->Loaded.Instance->call(name, call->Inputs));
    std::cout << "EXEC @" << name << "\n";
    KILN_RETURN_IF_ERROR(emitOutputs(results, call->Targets, std::cout));
    if (flags.PrintStatistics) {
      hal::Device &device = *call->Loaded.Instance->device();
      printAllocatorStatistics(std::cerr, device.info().Uri,
                               device.allocator());
    }
    return Status();
  });
}
