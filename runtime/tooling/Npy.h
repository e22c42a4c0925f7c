//===- Npy.h - NumPy .npy files -------------------------------------------===//
//
// Reads format versions 1.0, 2.0 and 3.0 (little-endian, C order) and writes
// 1.0. Dtypes: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8. bf16 has no
// npy dtype. Files are untrusted: a lying header is an error, never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_NPY_H
#define KILN_RUNTIME_TOOLING_NPY_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/tooling/TensorAllocation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tooling {

/// Decodes an in-memory .npy file. `check`, when given, sees the header's
/// type before the tensor is allocated.
StatusOr<HostTensor> decodeNpy(const uint8_t *data, size_t size,
                               const TensorTypeCheck &check = {});

/// Reads and decodes the .npy file at `path`; errors name the path. Only
/// the header is read before `check` (when given) has seen its type and the
/// file's size is known to match it.
StatusOr<HostTensor> readNpy(const std::string &path,
                             const TensorTypeCheck &check = {});

/// Encodes `tensor` as a version 1.0 .npy file.
StatusOr<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor);

/// Writes `tensor` to `path`, replacing any existing file.
Status writeNpy(const std::string &path, const HostTensor &tensor);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_NPY_H
