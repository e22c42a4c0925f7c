//===- Builders.h - IR building blocks shared by ONNX converters -*- C++
//-*-===//
//
// The forms converters emit: elementwise linalg.generics with numpy
// broadcasting (a size-1 dimension is read at index 0, as tosa's lowering
// does, so dispatch formation fuses them), reshapes as collapse/expand
// (aliases, no copy), transposes, reductions, pads and fills.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_BUILDERS_H
#define KILN_COMPILER_ONNX_BUILDERS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace kiln::onnx_import {

/// numpy's broadcast of `shapes`, or nullopt when they do not broadcast.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Dimension `dim` of `value`: its size when static, else tensor.dim.
mlir::OpFoldResult dimSize(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value, int64_t dim);

/// tensor.empty of `shape`; each dynamic dimension takes its size from
/// the first of `like` that has a dynamic dimension there (numpy-aligned,
/// from the innermost: the operands an elementwise result broadcasts).
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                        mlir::ValueRange like);

using ScalarBody = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// A linalg.generic over `shape` whose body computes one element from the
/// operands' elements; each operand broadcasts to `shape` numpy-style.
/// Dynamic dimensions of `shape` take their sizes from the operands, else
/// from `like` (emptyTensor).
mlir::Value buildElementwise(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::ValueRange operands,
                             llvm::ArrayRef<int64_t> shape,
                             mlir::Type elementType, ScalarBody body,
                             mlir::ValueRange like = {});

/// `value` under another static shape of as many elements (collapse to 1-D,
/// then expand; both alias the same buffer).
mlir::Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                      llvm::ArrayRef<int64_t> shape);
/// The same for a source or target with dynamic dimensions (issue 19):
/// `sizes` gives every target dimension, a dynamic one as an index value
/// computed on the host (tensor.dim and index arithmetic). A target
/// grouping the source's dimensions (a collapse or an expansion: a dynamic
/// batch kept as its own dimension) is one view, else it goes through
/// one dimension.
mlir::Value reshapeToSizes(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value,
                           llvm::ArrayRef<mlir::OpFoldResult> sizes);
/// x * y on the host: folded when both are constants or either is 1, else
/// an arith.muli of index values.
mlir::OpFoldResult multiplySizes(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::OpFoldResult x, mlir::OpFoldResult y);
/// The product of `value`'s dimensions [0, count) on the host.
mlir::OpFoldResult leadingProduct(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value value, int64_t count);
/// reshapeToSizes through one dimension always: every target dimension is
/// the size given (a collapse would take its source's), so the host plan's
/// per-call check that the view holds as many bytes as its source covers
/// sizes the import cannot relate to the source's (another tensor's
/// dimension).
mlir::Value reshapeThroughFlat(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value value,
                               llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// result[d...] = value[d[perm[0]], ...] (numpy's transpose).
mlir::Value transpose(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
                      llvm::ArrayRef<int64_t> perm);

/// `index` counted from the end of `extent` where it is negative (ONNX's
/// negative axes, starts and indices): index < 0 ? index + extent : index,
/// on index values.
mlir::Value countedFromEnd(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value index, mlir::Value extent);

/// An index read from integer element `v` of an index tensor (unsigned
/// when `isUnsigned`), negative ones counted from `extent`, clamped into
/// [0, extent - 1]: out of range is an error in ONNX and must not read
/// outside the tensor. An extent of 0 must be refused before (at import,
/// or per call where it is dynamic).
mlir::Value clampedIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Value extent, bool isUnsigned);

/// A scalar constant of `type` (float or integer).
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Type type, double value);
/// The attribute holding `value` as `type`.
mlir::TypedAttr scalarAttr(mlir::Type type, double value);

/// The element type a contraction (matmul, convolution) of `element`
/// operands accumulates in: f32 for f16 and bf16, as cuBLAS, cuDNN and ONNX
/// Runtime do (thousands of products summed in f16 keep few correct
/// digits: ResNet50 in f16 was off by 12% of its largest output), else
/// `element` itself.
mlir::Type accumulatorType(mlir::Type element);

/// `value` with its float elements converted to `element` of another
/// width (extf or truncf, elementwise); `value` itself when they already
/// are `element`.
mlir::Value convertFloatElements(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value value, mlir::Type element);

/// tensor.empty of `shape`, filled with `value`; dynamic dimensions sized
/// from `like` as emptyTensor does.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                         mlir::TypedAttr value, mlir::ValueRange like = {});

/// Pads `value` by low[i]/high[i] elements of `padValue` per dimension.
mlir::Value padConstant(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, llvm::ArrayRef<int64_t> low,
                        llvm::ArrayRef<int64_t> high, mlir::TypedAttr padValue);

/// Reduces the `axes` of `value` (sorted, distinct) with `combine` from
/// `init`: the result drops them, or keeps them as 1s with `keepDims`.
mlir::Value buildReduction(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value value,
    llvm::ArrayRef<int64_t> axes, bool keepDims, mlir::TypedAttr init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value element, mlir::Value acc)>
        combine);

/// log(softmax(x)) along `axis` as (x - max) - log(sum(exp(x - max))),
/// which stays finite where log(softmax) would underflow to -inf.
mlir::Value buildLogSoftmax(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, int64_t axis);

/// The index (i64) of the largest (`isMax`) or smallest element along
/// `axis`, the first one of equals unless `last`; the axis is dropped.
mlir::Value buildArgReduction(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value x, int64_t axis, bool isMax,
                              bool last, bool isUnsigned);

/// One element converted between ONNX element types, as Cast does
/// (float to integer truncates, to bool is `!= 0`, unsigned types widen
/// with zeros).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value value, int32_t from, int32_t to);

/// `shape` with the `axes` (sorted) removed / inserted as 1s.
llvm::SmallVector<int64_t> dropAxes(llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> axes);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_BUILDERS_H
