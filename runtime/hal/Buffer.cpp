//===- Buffer.cpp ---------------------------------------------------------===//

#include "runtime/hal/Buffer.h"

namespace kiln::hal {

Buffer::~Buffer() = default;

Status Buffer::checkMappable() const {
  if (!hasAll(Type, MemoryType::HostVisible))
    return KILN_ERROR(FailedPrecondition, "cannot map a ",
                      memoryTypeString(Type),
                      " buffer; the host can map only HostVisible memory");
  if (!hasAll(Usage, BufferUsage::Mapping))
    return KILN_ERROR(FailedPrecondition,
                      "cannot map a buffer allocated without "
                      "BufferUsage::Mapping (usage ",
                      bufferUsageString(Usage), ")");
  return Status();
}

StatusOr<std::span<uint8_t>> Buffer::map() {
  KILN_RETURN_IF_ERROR(checkMappable());
  if (ReadOnly)
    return KILN_ERROR(PermissionDenied,
                      "cannot map a read-only buffer for writing");
  KILN_ASSIGN_OR_RETURN(uint8_t * data, mapImpl());
  return std::span<uint8_t>(data, static_cast<size_t>(Size));
}

StatusOr<std::span<const uint8_t>> Buffer::mapRead() {
  KILN_RETURN_IF_ERROR(checkMappable());
  KILN_ASSIGN_OR_RETURN(uint8_t * data, mapImpl());
  return std::span<const uint8_t>(data, static_cast<size_t>(Size));
}

} // namespace kiln::hal
