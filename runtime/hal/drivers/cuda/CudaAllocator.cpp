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

CudaAllocator::CudaAllocator(std::shared_ptr<CudaContext> context,
                             std::shared_ptr<CUstream_st> stream,
                             uint64_t deviceBytes, CudaDeviceMemory memory)
    : Context(std::move(context)), Stream(std::move(stream)),
      DeviceBytes(deviceBytes) {
  if (memory == CudaDeviceMemory::PoolWhereSupported)
    PoolStatus = createPool();
}

Status CudaAllocator::createPool() {
  const CudaSymbols &symbols = Context->symbols();
  int supported = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
      symbols, cuDeviceGetAttribute, &supported,
      CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, Context->device()));
  if (!supported)
    return Status();
  // A pool of Kiln's own rather than the device's default one, whose
  // settings other libraries in the process share.
  CUmemPoolProps properties = {};
  properties.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = Context->device();
  CudaContext::Scope scope(*Context);
  CUmemoryPool raw = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols, cuMemPoolCreate, &raw, &properties));
  // Destroyed once its last allocation is freed, even if that is later.
  Pool.reset(raw, [context = Context](CUmemoryPool doomed) {
    CudaContext::Scope scope(*context);
    context->symbols().cuMemPoolDestroy(doomed);
  });
  // Freed memory stays in the pool for the next allocation. With the
  // default threshold (0) every stream synchronization, so every call,
  // returns it to the driver, and the next allocation maps memory anew.
  cuuint64_t threshold = UINT64_MAX;
  return KILN_CUDA_CALL(symbols, cuMemPoolSetAttribute, raw,
                        CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
}

bool CudaAllocator::supportsMemoryType(MemoryType type) const {
  return type == MemoryType::DeviceLocal || type == MemoryType::HostVisible;
}

StatusOr<std::shared_ptr<gpu::GpuBuffer>>
CudaAllocator::createDeviceLocal(uint64_t size, BufferUsage usage,
                                 bool readOnly) {
  if (!PoolStatus.ok()) {
    Status failed = PoolStatus;
    return failed.annotate("cannot create the GPU's memory pool");
  }
  const CudaSymbols &symbols = Context->symbols();
  CudaContext::Scope scope(*Context);
  // A zero-size buffer still gets a valid, unique address.
  size_t bytes = static_cast<size_t>(std::max<uint64_t>(size, 1));
  auto annotated = [size](Status status) {
    return status.annotate(
        strCat("cannot allocate ", size, " bytes of DeviceLocal memory"));
  };
  CUdeviceptr address = 0;
  if (!Pool) {
    Status status = KILN_CUDA_CALL(symbols, cuMemAlloc_v2, &address, bytes);
    if (!status.ok())
      return annotated(status);
    return std::make_shared<gpu::GpuBuffer>(
        size, MemoryType::DeviceLocal, usage, readOnly, address, nullptr,
        [context = Context, address] {
          CudaContext::Scope scope(*context);
          context->symbols().cuMemFree_v2(address);
        });
  }
  auto allocate = [&] {
    return KILN_CUDA_CALL(symbols, cuMemAllocFromPoolAsync, &address, bytes,
                          Pool.get(), Stream.get());
  };
  Status status = allocate();
  if (status.code() == StatusCode::ResourceExhausted) {
    // What the pool keeps unused is mapped in pieces the request may not
    // fit; once the frees queued in the stream are done it can go back to
    // the driver, and the request is tried once more.
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(symbols, cuStreamSynchronize, Stream.get()));
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(symbols, cuMemPoolTrimTo, Pool.get(), 0));
    status = allocate();
  }
  if (!status.ok())
    return annotated(status);
  // Submissions hold their buffers until they retired, and the free is
  // queued behind the work already in the stream: the memory is reused
  // only once idle.
  return std::make_shared<gpu::GpuBuffer>(
      size, MemoryType::DeviceLocal, usage, readOnly, address, nullptr,
      [context = Context, stream = Stream, address] {
        CudaContext::Scope scope(*context);
        context->symbols().cuMemFreeAsync(address, stream.get());
      });
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
  if (device) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gpu::GpuBuffer> buffer,
                          createDeviceLocal(size, usage, readOnly));
    if (!initial.empty()) {
      // In the stream the memory was handed out in, and waited for:
      // `initial` may be gone once this returns.
      CudaContext::Scope scope(*Context);
      KILN_RETURN_IF_ERROR(
          KILN_CUDA_CALL(symbols, cuMemcpyHtoDAsync_v2, buffer->deviceAddress(),
                         initial.data(), initial.size(), Stream.get()));
      KILN_RETURN_IF_ERROR(
          KILN_CUDA_CALL(symbols, cuStreamSynchronize, Stream.get()));
    }
    return buffer;
  }
  CudaContext::Scope scope(*Context);
  size_t bytes = static_cast<size_t>(std::max<uint64_t>(size, 1));
  void *host = nullptr;
  Status status =
      KILN_CUDA_CALL(symbols, cuMemHostAlloc, &host, bytes,
                     CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (!status.ok())
    return status.annotate(
        strCat("cannot allocate ", size, " bytes of HostVisible memory"));
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
