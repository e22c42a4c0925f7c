//===- TensorLimits.h - Checked shape and size arithmetic -------*- C++ -*-===//
//
// Every shape the importer makes comes from a file someone else wrote:
// declared dims, Reshape targets, pads, scales, repeat counts. One set of
// checked helpers turns them into element and byte counts, so a dimension
// below zero, a product that overflows int64 or a tensor no device could
// hold is an error naming the tensor, and no converter, folder or MLIR
// builder ever sees such a shape. The limits are the module format's (rank
// 16) and a per-tensor byte count no real model reaches, which
// `--onnx-max-tensor-bytes` raises or lowers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_TENSORLIMITS_H
#define KILN_COMPILER_ONNX_TENSORLIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>

namespace kiln::onnx_import {

struct TensorLimits {
  /// The module format's largest rank (runtime/module/Verifier.h).
  static constexpr int64_t kDefaultMaxRank = 16;
  /// 1 TiB: past any device's memory, far below int64's range, so element
  /// and byte counts of checked tensors multiply by small factors safely.
  static constexpr int64_t kDefaultMaxBytes = int64_t(1) << 40;

  int64_t MaxRank = kDefaultMaxRank;
  int64_t MaxBytes = kDefaultMaxBytes;
};

/// a * b, a + b and a - b, or nullopt when int64 overflows.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedSub(int64_t a, int64_t b);

/// The elements of a tensor of `shape` whose elements take `elementBytes`
/// bytes each: an error naming `what` ("tensor 'w'", "output 'y'") when the
/// rank is above the limit, a dimension is negative, or the byte count
/// overflows or is above the limit.
llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                           int64_t elementBytes,
                                           const llvm::Twine &what,
                                           const TensorLimits &limits);

/// `shape` with each dynamic dimension (MLIR's ShapedType::kDynamic,
/// int64's least value) as 1: the part of a tensor with symbolic dimensions
/// (issue 19) the import can bound; the runtime bounds each call's sizes
/// (2^48 bytes a buffer).
llvm::SmallVector<int64_t> staticPartOf(llvm::ArrayRef<int64_t> shape);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_TENSORLIMITS_H
