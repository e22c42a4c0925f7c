//===- VendorRuntime.h - A vendor library started once, where asked -------===//
//
// A GPU driver opens and initializes its vendor library the first time it
// is used and keeps the outcome (a missing library costs one search per
// process). Where to find the library is a driver option a tool flag sets
// (Driver::setOption) before that first use; setting it later is an error
// rather than a silent no-op.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORRUNTIME_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORRUNTIME_H

#include "runtime/base/Status.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace kiln::hal::gpu {

template <typename Symbols> class VendorRuntime {
public:
  using Started = StatusOr<std::shared_ptr<const Symbols>>;

  /// `driver` and `option` ("amdgpu", "libhsa_search_path") name the
  /// driver option for messages.
  VendorRuntime(std::string driver, std::string option)
      : Driver(std::move(driver)), Option(std::move(option)) {}

  /// Where the library is (a file or folder); FailedPrecondition once the
  /// runtime has started.
  Status setPath(std::string_view path) {
    std::lock_guard<std::mutex> lock(Mutex);
    if (HasStarted)
      return KILN_ERROR(FailedPrecondition, "the ", Driver, " driver's ",
                        Option, " is set after it started");
    Path = path;
    return Status();
  }

  /// Runs `start` (open and initialize, given the path set, or "") once;
  /// every call returns its outcome.
  Started get(const std::function<Started(const std::string &path)> &start) {
    std::call_once(Once, [&] {
      std::string path;
      {
        std::lock_guard<std::mutex> lock(Mutex);
        HasStarted = true;
        path = Path;
      }
      Result = start(path);
    });
    return Result;
  }

private:
  std::string Driver;
  std::string Option;
  std::mutex Mutex; // guards Path and HasStarted
  std::string Path;
  bool HasStarted = false;
  std::once_flag Once;
  Started Result = KILN_ERROR(Internal, "the vendor library is not started");
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_VENDORRUNTIME_H
