//===- ToolSession.h - Devices and modules for the runtime tools ----------===//
//
// The part of kiln-run-module and kiln-benchmark-module that talks to the
// HAL: device queries (--list_drivers, --list_devices, --dump_devices) and
// loading a module function onto the --device.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TOOLSESSION_H
#define KILN_RUNTIME_TOOLING_TOOLSESSION_H

#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"
#include "runtime/module/ModuleInstance.h"
#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/InvocationIo.h"

#include <memory>
#include <optional>
#include <ostream>

namespace kiln::tooling {

/// Hands the driver options the flags carry (CommonFlags::DriverOptions) to
/// their drivers; prepareCall does so before anything opens a device.
Status applyDriverOptions(const CommonFlags &flags);

/// Answers --list_drivers, --list_devices and --dump_devices (in that
/// order); `handled` says whether any was asked for.
Status handleDeviceQueries(const CommonFlags &flags, std::ostream &out,
                           bool &handled);

struct LoadedFunction {
  std::unique_ptr<module::ModuleInstance> Instance;
  const module::FunctionSignature *Signature = nullptr;
};

/// --device with --cuda_use_streams applied: on the cuda driver, the
/// `command_buffers` URI parameter (runtime/hal/drivers/gpu/GpuDevice.h)
/// unless the URI sets it itself; InvalidArgument for a malformed URI.
StatusOr<std::string> deviceUriWithFlags(const CommonFlags &flags);

/// Opens --module, creates --device, instantiates the module on it and
/// resolves --function (or the module's only function).
StatusOr<LoadedFunction> loadFunction(const CommonFlags &flags);

/// One function call as the command line describes it.
struct PreparedCall {
  LoadedFunction Loaded;
  std::vector<HostTensor> Inputs;
  /// One entry per CommonFlags::InputSets value, when any was given (Inputs
  /// is then empty): a function with dynamic shapes called at several.
  std::vector<std::vector<HostTensor>> InputSets;
  std::vector<OutputTarget> Targets;
};

/// The steps kiln-run-module and kiln-benchmark-module share: parses the
/// flags registered on `parser`, answers --help and the device queries (and
/// then returns std::nullopt: nothing is left to do), loads the function,
/// and parses its inputs (each of CommonFlags::InputSets when there are
/// any, which --input may not join) and --output targets.
StatusOr<std::optional<PreparedCall>> prepareCall(FlagParser &parser,
                                                  CommonFlags &flags, int argc,
                                                  const char *const *argv);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TOOLSESSION_H
