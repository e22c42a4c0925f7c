//===- HostTensor.h - A tensor value known at import time -------*- C++ -*-===//
//
// Initializers, Constant nodes and what import-time folding computes are
// kept as host bytes, so shape arithmetic (Shape -> Gather -> Concat ->
// Reshape) is evaluated while importing and converters receive their shape,
// axes and pads operands as numbers. Only values an op needs as a tensor
// are materialized as MLIR constants (toAttr).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_HOSTTENSOR_H
#define KILN_COMPILER_ONNX_HOSTTENSOR_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace kiln::onnx_import {

/// Elements of `shape` (1 for a scalar), INT64_MAX when that overflows.
int64_t numElementsOf(llvm::ArrayRef<int64_t> shape);

/// `v` as an element of `dtype` holds it, as storing and loading it would:
/// floats rounded to nearest (even), integers from a float truncated.
double roundedToDType(int32_t dtype, double v);
/// `v` as an integer element of `dtype` holds it (two's complement wrap).
int64_t wrappedToDType(int32_t dtype, int64_t v);

/// Row-major little-endian bytes of one ONNX element type (one byte per
/// bool), shared between copies.
class HostTensor {
public:
  HostTensor() = default;
  /// Shares `size` bytes at `data`, kept alive by `owner`; `size` must be
  /// numElementsOf(shape) * dtypeByteSize(dtype).
  HostTensor(int32_t dtype, llvm::ArrayRef<int64_t> shape,
             std::shared_ptr<const void> owner, const char *data, size_t size);
  /// Takes `bytes`.
  HostTensor(int32_t dtype, llvm::ArrayRef<int64_t> shape,
             std::vector<char> bytes);

  /// Values converted to `dtype` (floats to integers truncate toward zero,
  /// anything to bool is `!= 0`).
  static HostTensor fromInt64s(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> values);
  static HostTensor fromDoubles(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<double> values);

  int32_t dtype() const { return DType; }
  llvm::ArrayRef<int64_t> shape() const { return Shape; }
  int64_t rank() const { return Shape.size(); }
  int64_t numElements() const { return numElementsOf(Shape); }
  llvm::ArrayRef<char> bytes() const { return {Data, Size}; }

  /// Element `i` (flat index) as an integer (floats truncate) or a double.
  int64_t intAt(int64_t i) const;
  double doubleAt(int64_t i) const;
  llvm::SmallVector<int64_t> toInt64s() const;
  std::vector<double> toDoubles() const;

  /// The same bytes under another shape of as many elements.
  HostTensor reshaped(llvm::ArrayRef<int64_t> shape) const;
  HostTensor castTo(int32_t dtype) const;
  /// result[d0, ..] = this[d[perm[0]], ...] (numpy's transpose).
  HostTensor transposed(llvm::ArrayRef<int64_t> perm) const;
  /// A tensor of `shape` whose element i is this tensor's element
  /// flatIndices[i].
  HostTensor gathered(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> flatIndices) const;

  /// The MLIR constant: a DenseElementsAttr when small, a splat or bool,
  /// else a DenseResourceElementsAttr whose blob (named after `nameHint`)
  /// copies the bytes once.
  mlir::ElementsAttr toAttr(mlir::MLIRContext *context,
                            llvm::StringRef nameHint) const;

private:
  int32_t DType = 0;
  llvm::SmallVector<int64_t> Shape;
  std::shared_ptr<const void> Owner;
  const char *Data = nullptr;
  size_t Size = 0;
};

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_HOSTTENSOR_H
