//===- KernargRing.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/KernargRing.h"

namespace kiln::hal::amdgpu {

std::optional<uint64_t> KernargRing::allocate(uint64_t size, uint64_t alignment,
                                              uint64_t packet) {
  if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) ||
      size > Capacity || alignment > Capacity)
    return std::nullopt;
  uint64_t start = (Head + alignment - 1) & ~(alignment - 1);
  uint64_t taken = start - Head;
  // A piece never wraps: past the end, the rest of the block is skipped
  // (and counted as the piece's, so it comes back with it).
  if (start > Capacity || Capacity - start < size) {
    taken = Capacity - Head;
    start = 0;
  }
  taken += size;
  if (InUse + taken > Capacity)
    return std::nullopt;
  InUse += taken;
  Head = start + size;
  Pieces.push_back({packet, taken});
  return start;
}

void KernargRing::retire(uint64_t readIndex) {
  while (!Pieces.empty() && Pieces.front().Packet < readIndex) {
    InUse -= Pieces.front().Bytes;
    Pieces.pop_front();
  }
}

} // namespace kiln::hal::amdgpu
