//===- CudaAllocator.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaAllocator.h"

#include <algorithm>
#include <cstring>
#include <sys/sysinfo.h>

namespace kiln::hal::cuda {

namespace {

uint64_t hostMemoryBytes() {
  struct sysinfo info;
  if (::sysinfo(&info) != 0)
    return UINT64_MAX;
  return uint64_t(info.totalram) * (info.mem_unit ? info.mem_unit : 1);
}

} // namespace

bool CudaAllocator::supportsMemoryType(MemoryType type) const {
  return type == MemoryType::DeviceLocal || type == MemoryType::HostVisible;
}

StatusOr<std::shared_ptr<gpu::GpuBuffer>>
CudaAllocator::create(uint64_t size, MemoryType type, BufferUsage usage,
                      bool readOnly, std::span<const uint8_t> initial) {
  bool device = type == MemoryType::DeviceLocal;
  // Refused here rather than by the driver, which may try (and take long)
  // to pin or reserve absurd sizes before it says no.
  uint64_t limit = device ? DeviceBytes : hostMemoryBytes();
  if (size > limit)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size, " bytes of ",
                      memoryTypeString(type), " memory: the ",
                      device ? "GPU" : "host", " has ", limit, " bytes");
  const CudaSymbols &symbols = Context->symbols();
  CudaContext::Scope scope(*Context);
  // A zero-size buffer still gets a valid, unique address.
  size_t bytes = static_cast<size_t>(std::max<uint64_t>(size, 1));
  if (device) {
    CUdeviceptr address = 0;
    Status status = KILN_CUDA_CALL(symbols, cuMemAlloc_v2, &address, bytes);
    if (!status.ok())
      return status.annotate(
          strCat("cannot allocate ", size, " bytes of DeviceLocal memory: "));
    auto buffer = std::make_shared<gpu::GpuBuffer>(
        size, type, usage, readOnly, address, nullptr,
        [context = Context, address] {
          CudaContext::Scope scope(*context);
          context->symbols().cuMemFree_v2(address);
        });
    if (!initial.empty())
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols, cuMemcpyHtoD_v2, address,
                                          initial.data(), initial.size()));
    return buffer;
  }
  void *host = nullptr;
  Status status =
      KILN_CUDA_CALL(symbols, cuMemHostAlloc, &host, bytes,
                     CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (!status.ok())
    return status.annotate(
        strCat("cannot allocate ", size, " bytes of HostVisible memory: "));
  CUdeviceptr address = 0;
  status =
      KILN_CUDA_CALL(symbols, cuMemHostGetDevicePointer_v2, &address, host, 0);
  if (!status.ok()) {
    symbols.cuMemFreeHost(host);
    return status;
  }
  if (!initial.empty())
    std::memcpy(host, initial.data(), initial.size());
  return std::make_shared<gpu::GpuBuffer>(
      size, type, usage, readOnly, address, static_cast<uint8_t *>(host),
      [context = Context, host] {
        CudaContext::Scope scope(*context);
        context->symbols().cuMemFreeHost(host);
      });
}

StatusOr<std::shared_ptr<Buffer>>
CudaAllocator::allocateImpl(uint64_t size, MemoryType type, BufferUsage usage) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<gpu::GpuBuffer> buffer,
                        create(size, type, usage, false, {}));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::shared_ptr<Buffer>>
CudaAllocator::importHostMemoryImpl(std::span<const uint8_t> data,
                                    BufferUsage usage,
                                    std::shared_ptr<const void> /*keepAlive*/) {
  // The host may read it back only if it asked for Mapping.
  MemoryType type = hasAll(usage, BufferUsage::Mapping)
                        ? MemoryType::HostVisible
                        : MemoryType::DeviceLocal;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<gpu::GpuBuffer> buffer,
                        create(data.size(), type, usage, true, data));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

} // namespace kiln::hal::cuda
