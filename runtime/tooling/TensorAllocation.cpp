//===- TensorAllocation.cpp -----------------------------------------------===//

#include "runtime/tooling/TensorAllocation.h"

#include "runtime/module/Verifier.h"

#include <new>
#include <stdexcept>
#include <unistd.h>

namespace kiln::tooling {

namespace {

uint64_t physicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long pageSize = ::sysconf(_SC_PAGESIZE);
  // Unknown: leave the limit to the allocator.
  if (pages <= 0 || pageSize <= 0)
    return UINT64_MAX;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

} // namespace

StatusOr<uint64_t> tensorByteSize(const std::vector<int64_t> &shape,
                                  ElementType type) {
  if (shape.size() > module::kMaxTensorRank)
    return KILN_ERROR(InvalidArgument, "rank ", shape.size(),
                      " exceeds the maximum of ", module::kMaxTensorRank);
  uint64_t size = elementTypeSize(type);
  if (size == 0)
    return KILN_ERROR(InvalidArgument, "unknown element type ",
                      unsigned(static_cast<uint8_t>(type)));
  bool empty = false;
  for (int64_t dim : shape) {
    if (dim < 0)
      return KILN_ERROR(InvalidArgument, "dimension ", dim, " is negative");
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(size, static_cast<uint64_t>(dim), &size) ||
        size > kMaxHostTensorBytes)
      return KILN_ERROR(InvalidArgument, tensorTypeString(shape, type),
                        " is too large (more than ", kMaxHostTensorBytes,
                        " bytes)");
  }
  return empty ? 0 : size;
}

StatusOr<HostTensor> allocateHostTensor(ElementType type,
                                        std::vector<int64_t> shape) {
  KILN_ASSIGN_OR_RETURN(uint64_t size, tensorByteSize(shape, type));
  HostTensor tensor;
  tensor.Type = type;
  tensor.Shape = std::move(shape);
  // Zero-filling more than the machine's memory would end in the OOM
  // killer, not in bad_alloc, as Linux overcommits.
  uint64_t memory = physicalMemoryBytes();
  if (size > memory)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes for ", tensor.typeString(),
                      ": more than this machine's ", memory,
                      " bytes of memory");
  try {
    tensor.Data.resize(size);
  } catch (const std::bad_alloc &) {
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes for ", tensor.typeString());
  } catch (const std::length_error &) {
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes for ", tensor.typeString());
  }
  return tensor;
}

} // namespace kiln::tooling
