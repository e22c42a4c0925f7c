//===- BenchmarkBuffers.cpp -----------------------------------------------===//

#include "runtime/tooling/BenchmarkBuffers.h"

#include "runtime/hal/BufferTransfer.h"

#include <cstring>

namespace kiln::tooling {

using hal::BufferUsage;
using hal::MemoryType;

namespace {

constexpr BufferUsage kDeviceUsage =
    BufferUsage::Transfer | BufferUsage::Dispatch;

} // namespace

uint64_t tensorByteSize(const module::TensorSpec &spec) {
  uint64_t elements = 1;
  for (int64_t dimension : spec.Shape)
    elements *= static_cast<uint64_t>(dimension);
  return elements * elementTypeSize(spec.Type);
}

StatusOr<std::vector<std::shared_ptr<hal::Buffer>>>
allocateDeviceBuffers(hal::Device &device, const std::vector<uint64_t> &sizes) {
  std::vector<std::shared_ptr<hal::Buffer>> buffers;
  buffers.reserve(sizes.size());
  for (uint64_t size : sizes) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> buffer,
                          device.allocator().allocate(
                              size, MemoryType::DeviceLocal, kDeviceUsage));
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

StatusOr<std::vector<std::shared_ptr<hal::Buffer>>>
uploadTensors(hal::Device &device, const std::vector<HostTensor> &tensors) {
  std::vector<uint64_t> sizes;
  for (const HostTensor &tensor : tensors)
    sizes.push_back(tensor.Data.size());
  KILN_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<hal::Buffer>> buffers,
                        allocateDeviceBuffers(device, sizes));
  std::vector<hal::BufferCopy> copies;
  for (size_t i = 0; i < tensors.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> staging,
                          hal::allocateStaging(device, sizes[i]));
    KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, staging->map());
    if (sizes[i] > 0)
      std::memcpy(mapped.data(), tensors[i].Data.data(), sizes[i]);
    copies.push_back({std::move(staging), buffers[i], sizes[i]});
  }
  KILN_RETURN_IF_ERROR(hal::copyAndWait(device, copies));
  return buffers;
}

StatusOr<std::vector<HostTensor>>
downloadTensors(hal::Device &device,
                std::span<const std::shared_ptr<hal::Buffer>> buffers,
                const std::vector<module::TensorSpec> &specs) {
  if (buffers.size() != specs.size())
    return KILN_ERROR(InvalidArgument, "downloadTensors: ", buffers.size(),
                      " buffer(s) for ", specs.size(), " tensor(s)");
  std::vector<hal::BufferCopy> copies;
  for (size_t i = 0; i < specs.size(); ++i) {
    uint64_t bytes = tensorByteSize(specs[i]);
    if (!buffers[i] || buffers[i]->size() < bytes)
      return KILN_ERROR(InvalidArgument, "downloadTensors: buffer ", i,
                        " cannot hold a ",
                        tensorTypeString(specs[i].Shape, specs[i].Type));
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> staging,
                          hal::allocateStaging(device, bytes));
    copies.push_back({buffers[i], std::move(staging), bytes});
  }
  KILN_RETURN_IF_ERROR(hal::copyAndWait(device, copies));
  std::vector<HostTensor> tensors;
  tensors.reserve(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped,
                          copies[i].Target->mapRead());
    HostTensor tensor;
    tensor.Type = specs[i].Type;
    tensor.Shape = specs[i].Shape;
    tensor.Data.assign(mapped.begin(), mapped.begin() + copies[i].Bytes);
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

} // namespace kiln::tooling
