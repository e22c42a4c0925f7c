//===- CommonFlags.cpp ----------------------------------------------------===//

#include "runtime/tooling/CommonFlags.h"

#include <algorithm>

namespace kiln::tooling {

void registerCommonFlags(FlagParser &parser, CommonFlags &flags,
                         bool unmatchedOutputsPrinted) {
  flags.PrintUnmatchedOutputs = unmatchedOutputsPrinted;
  parser.addString("device", &flags.Device,
                   "Device URI to run on: local-sync, local-task, "
                   "local-task://?workers=N, cuda, cuda:N (see "
                   "--list_devices).",
                   "local-task://?workers=4");
  parser.addString("module", &flags.Module, "The .kiln module file to load.",
                   "model.kiln");
  parser.addString("function", &flags.Function,
                   "Function to call; may be left out when the module has "
                   "only one.",
                   "main");
  parser.addList("input", &flags.Inputs,
                 "One function input, in order: a tensor string "
                 "(4xf32=[1 2 3 4], 2x2xi32=[[1 2][3 4]], a single value "
                 "fills the tensor: 1x224x224x3xf32=0, rank 0: f32=5) or "
                 "@file.npy.",
                 "4xf32=[1 2 3 4]");
  parser.addList("output", &flags.Outputs,
                 "What to do with the output at the same position: '-' "
                 "prints it, '@file.npy' writes it, empty ignores it. " +
                     std::string(unmatchedOutputsPrinted
                                     ? "Outputs without an --output are "
                                       "printed."
                                     : "Outputs without an --output are not "
                                       "shown."),
                 "@out.npy");
  parser.addBool("list_drivers", &flags.ListDrivers,
                 "Lists the available drivers and exits.");
  parser.addBool("list_devices", &flags.ListDevices,
                 "Lists the URIs of the devices present and exits.");
  parser.addBool("dump_devices", &flags.DumpDevices,
                 "Describes every device present and exits.");
  parser.addBool("help", &flags.Help, "Prints this help and exits.");
  parser.addBool("cuda_use_streams", &flags.CudaUseStreams,
                 "On cuda devices, issue each command into a stream at "
                 "every call instead of replaying a CUDA graph (the "
                 "default). The same as the device URI parameter "
                 "command_buffers=stream|graph, which wins when given.");
  parser.addString("amdgpu_libhsa_search_path", &flags.AmdgpuLibhsaSearchPath,
                   "The amdgpu driver's libhsa-runtime64.so: the file or the "
                   "folder holding it. Unset: $KILN_AMDGPU_LIBHSA_PATH, "
                   "then the dynamic loader's search.",
                   "/opt/rocm/lib");
  parser.addString("hip_dylib_path", &flags.HipDylibPath,
                   "The hip driver's libamdhip64.so: the file or the folder "
                   "holding it. Unset: $KILN_HIP_DYLIB_PATH, then the "
                   "dynamic loader's search.",
                   "/opt/rocm/lib");
  parser.addBool("print_statistics", &flags.PrintStatistics,
                 "Prints the device allocator's statistics to stderr at "
                 "exit: per memory type the bytes held now and at most, "
                 "buffers allocated and freed, and allocations refused for "
                 "lack of memory.");
  // The spellings of IREE's CUDA design note, pasted as they are.
  parser.addAlias("driver", "device");
  parser.addAlias("module_file", "module");
  parser.addAlias("entry_function", "function");
  parser.addSplittingAlias("function_inputs", "input", splitInputList,
                           "several inputs in one flag, separated by commas "
                           "outside brackets.",
                           "4xf32=[1 2 3 4], 4xf32=2");
}

Status parseCommonFlags(FlagParser &parser, CommonFlags &flags, int argc,
                        const char *const *argv) {
  KILN_RETURN_IF_ERROR(parser.parse(argc, argv));
  flags.FunctionGiven = parser.isSet("function");
  flags.CudaCommandBuffers.clear();
  flags.DriverOptions.clear();
  if (parser.isSet("amdgpu_libhsa_search_path"))
    flags.DriverOptions.emplace_back("amdgpu", "libhsa_search_path",
                                     flags.AmdgpuLibhsaSearchPath);
  if (parser.isSet("hip_dylib_path"))
    flags.DriverOptions.emplace_back("hip", "dylib_path", flags.HipDylibPath);
  if (parser.isSet("cuda_use_streams"))
    flags.CudaCommandBuffers = flags.CudaUseStreams ? "stream" : "graph";
  return Status();
}

StatusOr<std::vector<std::string>> splitInputList(std::string_view text) {
  auto isSpace = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  std::vector<std::string> inputs;
  // No inputs at all, for a function that takes none.
  if (std::all_of(text.begin(), text.end(), isSpace))
    return inputs;
  auto take = [&](std::string_view piece) -> Status {
    while (!piece.empty() && isSpace(piece.front()))
      piece.remove_prefix(1);
    while (!piece.empty() && isSpace(piece.back()))
      piece.remove_suffix(1);
    if (piece.empty())
      return KILN_ERROR(InvalidArgument, "input ", inputs.size(),
                        " of the list is empty (inputs are separated by "
                        "commas outside brackets)");
    inputs.emplace_back(piece);
    return Status();
  };
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') {
      ++depth;
    } else if (text[i] == ']') {
      // A stray ']' stays in its input, whose parser reports it.
      if (depth > 0)
        --depth;
    } else if (text[i] == ',' && depth == 0) {
      KILN_RETURN_IF_ERROR(take(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  KILN_RETURN_IF_ERROR(take(text.substr(start)));
  return inputs;
}

} // namespace kiln::tooling
