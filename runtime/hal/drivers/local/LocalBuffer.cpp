//===- LocalBuffer.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalBuffer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

namespace kiln::hal::local {

namespace {

// Large buffers come straight from mmap: a failed request is a clean error
// (the heap, and sanitizer heaps in particular, may abort instead), and
// untouched pages cost nothing.
constexpr uint64_t kMmapThreshold = 256 * 1024;

uint64_t hostMemoryBytes() {
  struct sysinfo info;
  if (::sysinfo(&info) != 0)
    return UINT64_MAX;
  uint64_t unit = info.mem_unit ? info.mem_unit : 1;
  return (uint64_t(info.totalram) + uint64_t(info.totalswap)) * unit;
}

} // namespace

StatusOr<std::shared_ptr<LocalBuffer>>
LocalBuffer::allocate(uint64_t size, MemoryType type, BufferUsage usage) {
  // Refuse what the host cannot hold instead of trusting overcommit to say
  // no: with overcommit on, a huge mmap succeeds and the process dies later.
  uint64_t available = hostMemoryBytes();
  if (size > available)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes: the host has ", available,
                      " bytes of memory and swap");
  if (size >= kMmapThreshold) {
    uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    size_t bytes = static_cast<size_t>((size + page - 1) / page * page);
    void *memory = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
      return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                        " bytes: ", std::strerror(errno));
    return std::shared_ptr<LocalBuffer>(
        new LocalBuffer(static_cast<uint8_t *>(memory), size, type, usage,
                        false, Storage::Mapped, bytes, nullptr));
  }
  // Round up so aligned_alloc's size rule holds; a zero-size buffer still
  // gets a unique, valid address.
  size_t bytes =
      static_cast<size_t>((size + kAlignment - 1) / kAlignment * kAlignment);
  if (bytes == 0)
    bytes = kAlignment;
  void *memory = std::aligned_alloc(kAlignment, bytes);
  if (!memory)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size, " bytes");
  return std::shared_ptr<LocalBuffer>(
      new LocalBuffer(static_cast<uint8_t *>(memory), size, type, usage, false,
                      Storage::Heap, 0, nullptr));
}

std::shared_ptr<LocalBuffer>
LocalBuffer::wrap(const uint8_t *data, uint64_t size, MemoryType type,
                  BufferUsage usage, std::shared_ptr<const void> keepAlive) {
  // Read-only is enforced by Buffer and CommandBuffer checks; the pointer is
  // non-const only because kernels receive `void *` bindings.
  return std::shared_ptr<LocalBuffer>(
      new LocalBuffer(const_cast<uint8_t *>(data), size, type, usage, true,
                      Storage::Wrapped, 0, std::move(keepAlive)));
}

LocalBuffer::~LocalBuffer() {
  switch (Kind) {
  case Storage::Heap:
    std::free(Data);
    break;
  case Storage::Mapped:
    ::munmap(Data, MappedBytes);
    break;
  case Storage::Wrapped:
    break;
  }
}

} // namespace kiln::hal::local
