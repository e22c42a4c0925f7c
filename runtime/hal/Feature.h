//===- Feature.h - Optional device behaviours the HAL contract names ------===//
//
// A device lists the features it lacks with a reason
// (Device::unsupportedFeatures); callers that need one, the conformance
// suite first among them, check it instead of assuming.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_FEATURE_H
#define KILN_RUNTIME_HAL_FEATURE_H

#include <string_view>

namespace kiln::hal::feature {

/// queueExecute returns before its wait list is satisfied; the work runs
/// once another party (even the submitting thread) signals.
inline constexpr std::string_view kDeferredSubmission = "deferred-submission";

/// Workgroups of one dispatch may run at the same time, so a kernel that
/// waits for a sibling workgroup makes progress.
inline constexpr std::string_view kConcurrentWorkgroups =
    "concurrent-workgroups";

/// Commands of one command buffer that nothing (barrier, event, dependOn)
/// orders and that become ready together (recorded with nothing ordering
/// either in between, or both waiting only for the same commands) run at
/// the same time: two dispatches that each wait for the other both make
/// progress. So a missing ordering shows as a wrong result instead of being
/// hidden by in-order execution. (local-task schedules dependOn by levels,
/// so commands that become ready at different times may still not overlap.)
inline constexpr std::string_view kConcurrentCommands = "concurrent-commands";

/// The device has at least two queues, and submissions to different queues
/// that no semaphore orders run at the same time: a dispatch that waits for
/// one submitted to another queue makes progress. So a missing semaphore
/// wait between queues shows as a wrong result.
inline constexpr std::string_view kConcurrentQueues = "concurrent-queues";

/// Memory can be DeviceLocal and HostVisible at once (CPU devices,
/// integrated GPUs): a module's inputs and outputs need no staging copies.
inline constexpr std::string_view kHostVisibleDeviceLocal =
    "host-visible-device-local";

/// An allocation larger than the device's memory fails at once with
/// ResourceExhausted, and the device keeps working afterwards (a GPU's own
/// memory; host memory is overcommitted, so a CPU device may hand out more
/// than it has and fail only when the pages are touched).
inline constexpr std::string_view kBoundedDeviceMemory =
    "bounded-device-memory";

} // namespace kiln::hal::feature

#endif // KILN_RUNTIME_HAL_FEATURE_H
