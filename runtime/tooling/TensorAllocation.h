//===- TensorAllocation.h - Size-checked host tensor creation -------------===//
//
// Shapes come from users and from files, so the byte size is computed with
// overflow checks and capped before anything is allocated, and a caller can
// check a tensor's type before its data is allocated, parsed or read.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TENSORALLOCATION_H
#define KILN_RUNTIME_TOOLING_TENSORALLOCATION_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace kiln::tooling {

/// Largest tensor the tools create on the host (64 GiB).
inline constexpr uint64_t kMaxHostTensorBytes = uint64_t(1) << 36;

/// A tensor's shape and element type, known before its data.
struct ParsedTensorType {
  std::vector<int64_t> Shape;
  ElementType Type = ElementType::F32;
};

/// Called with a tensor's type once it is known and before its data is
/// allocated, parsed or read, so a caller can refuse a tensor it cannot use
/// (a splat or a file far larger than the input it is meant for) cheaply.
using TensorTypeCheck = std::function<Status(const ParsedTensorType &)>;

/// Byte size of `shape` x `type`; an error when a dim is negative, the rank
/// exceeds 16 or the size exceeds kMaxHostTensorBytes.
StatusOr<uint64_t> tensorByteSize(const std::vector<int64_t> &shape,
                                  ElementType type);

/// A zero-filled tensor, or ResourceExhausted when it is larger than this
/// machine's memory or memory runs out.
StatusOr<HostTensor> allocateHostTensor(ElementType type,
                                        std::vector<int64_t> shape);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TENSORALLOCATION_H
