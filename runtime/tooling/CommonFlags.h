//===- CommonFlags.h - Flags shared by kiln-run-module and friends --------===//
//
// The spellings users know from IREE's tools: --device, --module,
// --function, --input, --output, --list_drivers, --list_devices,
// --dump_devices, --help, --cuda_use_streams, --print_statistics, the AMD
// drivers' library locations (--hip_dylib_path, --amdgpu_libhsa_search_path,
// carried to the drivers as driver options), and as
// aliases the older ones IREE's CUDA documentation still shows: -driver=
// (--device), -module_file= (--module), -entry_function= (--function) and
// --function_inputs= (several --input values in one flag).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_COMMONFLAGS_H
#define KILN_RUNTIME_TOOLING_COMMONFLAGS_H

#include "runtime/tooling/FlagParser.h"

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kiln::tooling {

struct CommonFlags {
  std::string Device = "local-task";
  std::string Module;
  std::string Function;
  // Set by registerCommonFlags' caller after parsing: whether --function
  // was given at all (an empty --function= is an error, an absent one picks
  // the module's only function).
  bool FunctionGiven = false;
  std::vector<std::string> Inputs;
  // Several calls' inputs, each value a list as --function_inputs takes
  // it; only tools that register a flag for it (kiln-benchmark-module's
  // --input_set) fill it, and prepareCall then parses these instead of
  // Inputs.
  std::vector<std::string> InputSets;
  std::vector<std::string> Outputs;
  bool ListDrivers = false;
  bool ListDevices = false;
  bool DumpDevices = false;
  bool Help = false;
  bool CudaUseStreams = false;
  bool PrintStatistics = false;
  // Set by parseCommonFlags: "stream" or "graph" when --cuda_use_streams
  // was given, else empty (the device URI decides; see deviceUriWithFlags).
  std::string CudaCommandBuffers;
  // Where the AMD drivers' libraries are (--amdgpu_libhsa_search_path,
  // --hip_dylib_path); empty: the environment and the loader's search.
  std::string AmdgpuLibhsaSearchPath;
  std::string HipDylibPath;
  // Set by parseCommonFlags: (driver, option, value) for each driver option
  // flag given (see Driver::setOption).
  std::vector<std::tuple<std::string, std::string, std::string>> DriverOptions;
  // Whether outputs without an --output are printed (kiln-run-module) or
  // not shown (kiln-benchmark-module); set by registerCommonFlags.
  bool PrintUnmatchedOutputs = true;
};

/// Registers the shared flags on `parser`, writing into `flags`.
/// `unmatchedOutputsPrinted` says (in the help) whether outputs without an
/// --output are printed or dropped.
void registerCommonFlags(FlagParser &parser, CommonFlags &flags,
                         bool unmatchedOutputsPrinted);

/// Parses argv with `parser` and fills in CommonFlags::FunctionGiven and
/// CommonFlags::CudaCommandBuffers.
Status parseCommonFlags(FlagParser &parser, CommonFlags &flags, int argc,
                        const char *const *argv);

/// Splits a --function_inputs value into inputs: at every comma outside
/// brackets, spaces around each trimmed ("4xf32=[1 2 3 4], 4xf32=[2 2 2 2]"
/// is two inputs). A blank value is no inputs; an empty input
/// between commas is an error naming its position.
StatusOr<std::vector<std::string>> splitInputList(std::string_view text);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_COMMONFLAGS_H
