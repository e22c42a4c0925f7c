//===- GpuBuffer.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuBuffer.h"

namespace kiln::hal::gpu {

GpuBuffer::~GpuBuffer() {
  if (Release)
    Release();
}

StatusOr<uint8_t *> GpuBuffer::mapImpl() {
  // Buffer::map checked HostVisible, so a host address exists.
  return HostAddress;
}

} // namespace kiln::hal::gpu
