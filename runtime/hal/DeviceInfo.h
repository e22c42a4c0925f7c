//===- DeviceInfo.h - What a driver reports about one device --------------===//
#ifndef KILN_RUNTIME_HAL_DEVICEINFO_H
#define KILN_RUNTIME_HAL_DEVICEINFO_H

#include <string>
#include <utility>
#include <vector>

namespace kiln::hal {

struct DeviceInfo {
  // A URI that selects exactly this device, e.g. "local-task://".
  std::string Uri;
  // Human-readable, e.g. "NVIDIA H100 80GB HBM3" or "CPU (8 threads)".
  std::string Name;
  // What `--dump_devices` prints, in order: thread counts, CPU features,
  // compute capability, memory, the value for --cuda-target, ...
  std::vector<std::pair<std::string, std::string>> Properties;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DEVICEINFO_H
