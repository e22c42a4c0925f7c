//===- KernargRing.h - Kernarg memory reused as dispatches complete -------===//
//
// Every dispatch needs its kernel arguments in kernarg memory until the
// GPU has read them, which is once its packet is done. A queue gets one
// block of kernarg memory and hands out pieces of it in ring order, each
// tagged with the index of the packet that reads it; a piece comes back
// when the queue's read index passes that packet. Pure bookkeeping over
// offsets, so it is tested without a GPU; the block itself comes from the
// agent's kernarg pool.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGRING_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGRING_H

#include <cstdint>
#include <deque>
#include <optional>

namespace kiln::hal::amdgpu {

class KernargRing {
public:
  /// A block of `capacity` bytes, aligned to at least the largest
  /// alignment asked for.
  explicit KernargRing(uint64_t capacity) : Capacity(capacity) {}

  /// `size` bytes aligned to `alignment` (a power of two) for the packet
  /// of index `packet` (not below earlier ones): their offset in the
  /// block, or nullopt while the ring is too full (retire, then ask
  /// again) or for a size the block can never hold.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t alignment,
                                   uint64_t packet);

  /// Everything given to packets below `readIndex` (the queue's read
  /// index: those packets are done) comes back.
  void retire(uint64_t readIndex);

  uint64_t bytesInUse() const { return InUse; }

private:
  struct Piece {
    uint64_t Packet;
    // What the piece took from the ring, padding and wasted tail included.
    uint64_t Bytes;
  };

  uint64_t Capacity;
  // Where free space starts, and the bytes from the oldest live piece's
  // start up to it (so the free space ahead of Head is Capacity - InUse).
  uint64_t Head = 0;
  uint64_t InUse = 0;
  std::deque<Piece> Pieces;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGRING_H
