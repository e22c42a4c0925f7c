//===- GpuAllocator.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuAllocator.h"

#include <algorithm>
#include <cstring>
#include <sys/sysinfo.h>

namespace kiln::hal::gpu {

namespace {

uint64_t hostMemoryBytes() {
  struct sysinfo info;
  if (::sysinfo(&info) != 0)
    return UINT64_MAX;
  return uint64_t(info.totalram) * (info.mem_unit ? info.mem_unit : 1);
}

} // namespace

GpuAllocator::GpuAllocator(std::shared_ptr<GpuApi> api,
                           std::shared_ptr<GpuStreamObject> stream,
                           uint64_t deviceBytes, GpuDeviceMemory memory)
    : Api(std::move(api)), Stream(std::move(stream)), DeviceBytes(deviceBytes) {
  if (memory == GpuDeviceMemory::PoolWhereSupported)
    PoolStatus = createPool();
}

Status GpuAllocator::createPool() {
  GpuApi::Scope scope(*Api);
  KILN_ASSIGN_OR_RETURN(Pool, Api->createPool());
  return Status();
}

bool GpuAllocator::supportsMemoryType(MemoryType type) const {
  return type == MemoryType::DeviceLocal || type == MemoryType::HostVisible;
}

StatusOr<std::shared_ptr<GpuBuffer>>
GpuAllocator::createDeviceLocal(uint64_t size, BufferUsage usage,
                                bool readOnly) {
  if (!PoolStatus.ok()) {
    Status failed = PoolStatus;
    return failed.annotate("cannot create the GPU's memory pool");
  }
  GpuApi::Scope scope(*Api);
  // A zero-size buffer still gets a valid, unique address.
  uint64_t bytes = std::max<uint64_t>(size, 1);
  auto annotated = [size](Status status) {
    return status.annotate(
        strCat("cannot allocate ", size, " bytes of DeviceLocal memory"));
  };
  if (!Pool) {
    StatusOr<uint64_t> address = Api->allocateDevice(bytes);
    if (!address.ok())
      return annotated(address.status());
    return std::make_shared<GpuBuffer>(size, MemoryType::DeviceLocal, usage,
                                       readOnly, *address, nullptr,
                                       [api = Api, address = *address] {
                                         GpuApi::Scope scope(*api);
                                         api->freeDevice(address);
                                       });
  }
  StatusOr<uint64_t> address =
      Api->allocateFromPool(Pool.get(), bytes, Stream.get());
  if (address.status().code() == StatusCode::ResourceExhausted) {
    // What the pool keeps unused is mapped in pieces the request may not
    // fit; once the frees queued in the stream are done it can go back to
    // the driver, and the request is tried once more.
    KILN_RETURN_IF_ERROR(Api->synchronize(Stream.get()));
    KILN_RETURN_IF_ERROR(Api->trimPool(Pool.get()));
    address = Api->allocateFromPool(Pool.get(), bytes, Stream.get());
  }
  if (!address.ok())
    return annotated(address.status());
  // Submissions hold their buffers until they retired, and the free is
  // queued behind the work already in the stream: the memory is reused
  // only once idle.
  return std::make_shared<GpuBuffer>(
      size, MemoryType::DeviceLocal, usage, readOnly, *address, nullptr,
      [api = Api, stream = Stream, address = *address] {
        GpuApi::Scope scope(*api);
        api->freeToPool(address, stream.get());
      });
}

StatusOr<std::shared_ptr<GpuBuffer>>
GpuAllocator::create(uint64_t size, MemoryType type, BufferUsage usage,
                     bool readOnly, std::span<const uint8_t> initial) {
  bool device = type == MemoryType::DeviceLocal;
  // Refused here rather than by the driver, which may try (and take long)
  // to pin or reserve absurd sizes before it says no.
  uint64_t limit = device ? DeviceBytes : hostMemoryBytes();
  if (size > limit)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size, " bytes of ",
                      memoryTypeString(type), " memory: the ",
                      device ? "GPU" : "host", " has ", limit, " bytes");
  if (device) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> buffer,
                          createDeviceLocal(size, usage, readOnly));
    if (!initial.empty()) {
      // In the stream the memory was handed out in, and waited for:
      // `initial` may be gone once this returns.
      GpuApi::Scope scope(*Api);
      KILN_RETURN_IF_ERROR(Api->copyFromHost(Stream.get(),
                                             buffer->deviceAddress(),
                                             initial.data(), initial.size()));
      KILN_RETURN_IF_ERROR(Api->synchronize(Stream.get()));
    }
    return buffer;
  }
  GpuApi::Scope scope(*Api);
  StatusOr<GpuMappedHostMemory> memory =
      Api->allocateMappedHost(std::max<uint64_t>(size, 1));
  if (!memory.ok()) {
    Status status = memory.status();
    return status.annotate(
        strCat("cannot allocate ", size, " bytes of HostVisible memory"));
  }
  if (!initial.empty())
    std::memcpy(memory->Host, initial.data(), initial.size());
  return std::make_shared<GpuBuffer>(size, type, usage, readOnly,
                                     memory->Device, memory->Host,
                                     [api = Api, host = memory->Host] {
                                       GpuApi::Scope scope(*api);
                                       api->freeMappedHost(host);
                                     });
}

StatusOr<std::shared_ptr<Buffer>>
GpuAllocator::allocateImpl(uint64_t size, MemoryType type, BufferUsage usage) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> buffer,
                        create(size, type, usage, false, {}));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::shared_ptr<Buffer>>
GpuAllocator::importHostMemoryImpl(std::span<const uint8_t> data,
                                   BufferUsage usage,
                                   std::shared_ptr<const void> /*keepAlive*/) {
  // The host may read it back only if it asked for Mapping.
  MemoryType type = hasAll(usage, BufferUsage::Mapping)
                        ? MemoryType::HostVisible
                        : MemoryType::DeviceLocal;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<GpuBuffer> buffer,
                        create(data.size(), type, usage, true, data));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

} // namespace kiln::hal::gpu
