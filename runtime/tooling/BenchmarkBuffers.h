//===- BenchmarkBuffers.h - A benchmark's tensors, kept on the device -----===//
//
// kiln-benchmark-module moves inputs to the device once, before timing, and
// reads results back only when asked, so that the timed calls measure the
// function and not the PCIe bus (two 4096x4096 f32 inputs are 128 MiB per
// call, far longer than the matmul). The copies go through host-visible
// staging buffers and a command buffer, the one way every device supports.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_BENCHMARKBUFFERS_H
#define KILN_RUNTIME_TOOLING_BENCHMARKBUFFERS_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"
#include "runtime/module/ModuleInstance.h"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace kiln::tooling {

/// Bytes of a dense tensor of `spec`.
uint64_t tensorByteSize(const module::TensorSpec &spec);

/// Device-local buffers (Transfer and Dispatch usage) of the given sizes,
/// contents unspecified.
StatusOr<std::vector<std::shared_ptr<hal::Buffer>>>
allocateDeviceBuffers(hal::Device &device, const std::vector<uint64_t> &sizes);

/// Device-local buffers holding a copy of each tensor's data.
StatusOr<std::vector<std::shared_ptr<hal::Buffer>>>
uploadTensors(hal::Device &device, const std::vector<HostTensor> &tensors);

/// Reads `buffers[i]` back as a tensor of `specs[i]` (the buffer holds at
/// least its bytes).
StatusOr<std::vector<HostTensor>>
downloadTensors(hal::Device &device,
                std::span<const std::shared_ptr<hal::Buffer>> buffers,
                const std::vector<module::TensorSpec> &specs);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_BENCHMARKBUFFERS_H
