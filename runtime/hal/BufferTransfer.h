//===- BufferTransfer.h - Copies between host memory and device buffers ---===//
//
// Device-local memory is reached from the host only through a device's
// queue: the bytes go through a host-visible staging buffer and a copy
// command, the one way every device supports. A buffer the host may map
// (unified memory) is written and read in place instead. Every function
// here waits for its copies, so the caller may reuse or read the host
// memory as soon as it returns.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_BUFFERTRANSFER_H
#define KILN_RUNTIME_HAL_BUFFERTRANSFER_H

#include "runtime/base/Status.h"
#include "runtime/hal/Device.h"

#include <cstdint>
#include <memory>
#include <span>

namespace kiln::hal {

/// `Bytes` bytes from `Source` at `SourceOffset` to `Target` at
/// `TargetOffset`.
struct BufferCopy {
  std::shared_ptr<Buffer> Source;
  std::shared_ptr<Buffer> Target;
  uint64_t Bytes = 0;
  uint64_t SourceOffset = 0;
  uint64_t TargetOffset = 0;
};

/// Records every copy into one command buffer, submits it to `device` and
/// waits for it. Copies of 0 bytes are skipped.
Status copyAndWait(Device &device, std::span<const BufferCopy> copies);

/// A host-visible buffer of `bytes` the host fills or reads through map()
/// and the device copies from or to.
StatusOr<std::shared_ptr<Buffer>> allocateStaging(Device &device,
                                                  uint64_t bytes);

/// Writes `data` into `target` (a buffer of `device`, with Transfer usage or
/// mappable) at `offset`. Work the device has queued that uses `target`
/// must be done.
Status writeBuffer(Device &device, const std::shared_ptr<Buffer> &target,
                   uint64_t offset, std::span<const uint8_t> data);

/// Reads `out.size()` bytes of `source` at `offset` into `out`; the same
/// conditions as writeBuffer.
Status readBuffer(Device &device, const std::shared_ptr<Buffer> &source,
                  uint64_t offset, std::span<uint8_t> out);

/// `Out.size()` bytes of `Source` at `Offset`, to read into `Out`.
struct BufferRead {
  std::shared_ptr<Buffer> Source;
  uint64_t Offset = 0;
  std::span<uint8_t> Out;
};

/// Reads every range of `reads` (each as readBuffer checks it), those the
/// host cannot map with one submission through `staging`: a host-visible
/// buffer the caller keeps, so that reads repeated every call allocate
/// nothing (null or too small: replaced by one large enough).
Status readBuffers(Device &device, std::span<const BufferRead> reads,
                   std::shared_ptr<Buffer> &staging);

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_BUFFERTRANSFER_H
