//===- ToolSession.cpp ----------------------------------------------------===//

#include "runtime/tooling/ToolSession.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/DriverRegistry.h"
#include "runtime/module/ModuleFile.h"

#include <iostream>

namespace kiln::tooling {

namespace {

std::string joined(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += strCat(i ? ", " : "", names[i]);
  return out;
}

// Calls `visit` for each device of each driver; a driver that cannot work
// here (its vendor library is missing) is reported as a comment line, so
// one absent driver does not hide the others.
template <typename Visit> void forEachDevice(std::ostream &out, Visit visit) {
  hal::DriverRegistry &registry = hal::DriverRegistry::global();
  for (const std::string &name : registry.driverNames()) {
    auto driver = registry.getDriver(name);
    if (!driver.ok()) {
      out << "# " << name << ": " << driver.status().toString() << "\n";
      continue;
    }
    auto devices = (*driver)->enumerateDevices();
    if (!devices.ok()) {
      out << "# " << name << ": unavailable: " << devices.status().toString()
          << "\n";
      continue;
    }
    for (const hal::DeviceInfo &info : *devices)
      visit(info);
  }
}

} // namespace

Status applyDriverOptions(const CommonFlags &flags) {
  for (const auto &[driverName, key, value] : flags.DriverOptions) {
    auto driver = hal::DriverRegistry::global().getDriver(driverName);
    // A driver not built here has nothing to configure.
    if (!driver.ok())
      continue;
    KILN_RETURN_IF_ERROR((*driver)->setOption(key, value));
  }
  return Status();
}

Status handleDeviceQueries(const CommonFlags &flags, std::ostream &out,
                           bool &handled) {
  handled = flags.ListDrivers || flags.ListDevices || flags.DumpDevices;
  // A driver that cannot work here says why on its line, after its name,
  // so scripts that take the first word still read the names.
  if (flags.ListDrivers)
    for (const std::string &name :
         hal::DriverRegistry::global().driverNames()) {
      auto driver = hal::DriverRegistry::global().getDriver(name);
      Status available =
          driver.ok() ? (*driver)->availability() : driver.status();
      out << name;
      if (!available.ok())
        out << " (unavailable: " << available.message() << ")";
      out << "\n";
    }
  if (flags.ListDevices)
    forEachDevice(
        out, [&](const hal::DeviceInfo &info) { out << info.Uri << "\n"; });
  if (flags.DumpDevices)
    forEachDevice(out, [&](const hal::DeviceInfo &info) {
      out << info.Uri << "\n  name: " << info.Name << "\n";
      for (const auto &[key, value] : info.Properties)
        out << "  " << key << ": " << value << "\n";
    });
  return Status();
}

StatusOr<std::string> deviceUriWithFlags(const CommonFlags &flags) {
  if (flags.CudaCommandBuffers.empty())
    return flags.Device;
  KILN_ASSIGN_OR_RETURN(hal::DeviceUri uri,
                        hal::DeviceUri::parse(flags.Device));
  // A URI that says which kind it wants keeps it.
  if (uri.driver() != "cuda" || uri.param("command_buffers"))
    return flags.Device;
  return strCat(flags.Device, uri.params().empty() ? "?" : "&",
                "command_buffers=", flags.CudaCommandBuffers);
}

StatusOr<LoadedFunction> loadFunction(const CommonFlags &flags) {
  if (flags.Module.empty())
    return KILN_ERROR(InvalidArgument,
                      "no module given; use --module=<file.kiln> (see --help)");
  if (flags.Device.empty())
    return KILN_ERROR(InvalidArgument,
                      "--device is empty; use a device URI such as "
                      "local-task (see --list_devices)");
  if (flags.FunctionGiven && flags.Function.empty())
    return KILN_ERROR(InvalidArgument,
                      "--function is empty; name the function to call");
  // The module is checked before a device is created, so a bad file is
  // reported the same way on every device.
  KILN_ASSIGN_OR_RETURN(auto file, module::ModuleFile::open(flags.Module));
  KILN_ASSIGN_OR_RETURN(std::string device, deviceUriWithFlags(flags));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Device> created,
                        hal::DriverRegistry::global().createDevice(device));
  LoadedFunction loaded;
  KILN_ASSIGN_OR_RETURN(loaded.Instance,
                        module::ModuleInstance::create(created, file));
  std::string function = flags.Function;
  if (!flags.FunctionGiven) {
    std::vector<std::string> names = loaded.Instance->functionNames();
    if (names.size() != 1)
      return KILN_ERROR(InvalidArgument, "module '", flags.Module, "' has ",
                        names.size(), " functions (", joined(names),
                        "); choose one with --function");
    function = names[0];
  }
  KILN_ASSIGN_OR_RETURN(loaded.Signature, loaded.Instance->lookup(function));
  return loaded;
}

StatusOr<std::optional<PreparedCall>> prepareCall(FlagParser &parser,
                                                  CommonFlags &flags, int argc,
                                                  const char *const *argv) {
  KILN_RETURN_IF_ERROR(parseCommonFlags(parser, flags, argc, argv));
  if (flags.Help) {
    std::cout << parser.helpText();
    return std::optional<PreparedCall>();
  }
  KILN_RETURN_IF_ERROR(applyDriverOptions(flags));
  bool handled = false;
  KILN_RETURN_IF_ERROR(handleDeviceQueries(flags, std::cout, handled));
  if (handled)
    return std::optional<PreparedCall>();

  PreparedCall call;
  KILN_ASSIGN_OR_RETURN(call.Loaded, loadFunction(flags));
  const module::FunctionSignature &signature = *call.Loaded.Signature;
  KILN_ASSIGN_OR_RETURN(call.Targets,
                        parseOutputTargets(flags.Outputs, signature));
  if (!flags.PrintUnmatchedOutputs)
    for (size_t i = flags.Outputs.size(); i < call.Targets.size(); ++i)
      call.Targets[i].TargetKind = OutputTarget::Kind::Ignore;
  if (flags.InputSets.empty()) {
    KILN_ASSIGN_OR_RETURN(call.Inputs, parseInputs(flags.Inputs, signature));
    return std::optional<PreparedCall>(std::move(call));
  }
  if (!flags.Inputs.empty())
    return KILN_ERROR(InvalidArgument,
                      "--input and --input_set cannot be mixed: give each "
                      "call's inputs as one --input_set");
  for (size_t i = 0; i < flags.InputSets.size(); ++i) {
    StatusOr<std::vector<std::string>> inputs =
        splitInputList(flags.InputSets[i]);
    StatusOr<std::vector<HostTensor>> set =
        inputs.ok() ? parseInputs(*inputs, signature)
                    : StatusOr<std::vector<HostTensor>>(inputs.status());
    if (!set.ok()) {
      Status status = set.status();
      return status.annotate(strCat("--input_set ", i + 1));
    }
    call.InputSets.push_back(std::move(*set));
  }
  return std::optional<PreparedCall>(std::move(call));
}

} // namespace kiln::tooling
