//===- CommonFlags.cpp ----------------------------------------------------===//

#include "runtime/tooling/CommonFlags.h"

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
}

Status parseCommonFlags(FlagParser &parser, CommonFlags &flags, int argc,
                        const char *const *argv) {
  KILN_RETURN_IF_ERROR(parser.parse(argc, argv));
  flags.FunctionGiven = parser.isSet("function");
  return Status();
}

} // namespace kiln::tooling
