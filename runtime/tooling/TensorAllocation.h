//===- TensorAllocation.h - Size-checked host tensor creation -------------===//
//
// Shapes come from users and from files, so the byte size is computed with
// overflow checks and capped before anything is allocated.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TENSORALLOCATION_H
#define KILN_RUNTIME_TOOLING_TENSORALLOCATION_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"

#include <cstdint>
#include <vector>

namespace kiln::tooling {

/// Largest tensor the tools create on the host (64 GiB).
inline constexpr uint64_t kMaxHostTensorBytes = uint64_t(1) << 36;

/// Byte size of `shape` x `type`; an error when a dim is negative, the rank
/// exceeds 16 or the size exceeds kMaxHostTensorBytes.
StatusOr<uint64_t> tensorByteSize(const std::vector<int64_t> &shape,
                                  ElementType type);

/// A zero-filled tensor, or ResourceExhausted when memory runs out.
StatusOr<HostTensor> allocateHostTensor(ElementType type,
                                        std::vector<int64_t> shape);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TENSORALLOCATION_H
