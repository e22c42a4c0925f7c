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

StatusOr<std::vector<uint64_t>>
gpuSlotAddresses(std::span<const std::shared_ptr<Buffer>> bindingTable,
                 std::string_view vendor) {
  std::vector<uint64_t> addresses;
  for (size_t slot = 0; slot < bindingTable.size(); ++slot) {
    uint64_t address = 0;
    if (bindingTable[slot]) {
      auto *buffer = dynamic_cast<GpuBuffer *>(bindingTable[slot].get());
      if (!buffer)
        return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                          " holds a buffer not allocated by a ", vendor,
                          " device");
      address = buffer->deviceAddress();
    }
    addresses.push_back(address);
  }
  return addresses;
}

} // namespace kiln::hal::gpu
