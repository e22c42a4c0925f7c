//===- Selection.h - Elements chosen by a condition known per call -*- C++
//-*-===//
//
// What the selecting ops share (Selection.cpp: NonZero, Compress, Unique;
// NonMaxSuppression.cpp): small generic builders, and a condition's true
// elements counted and picked by kernels (Selection.cpp's header comment
// says how).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_OPS_SELECTION_H
#define KILN_COMPILER_ONNX_OPS_SELECTION_H

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace kiln::onnx_import::selection {

inline constexpr mlir::utils::IteratorType kParallel =
    mlir::utils::IteratorType::parallel;
inline constexpr mlir::utils::IteratorType kReduction =
    mlir::utils::IteratorType::reduction;

/// The most condition elements the host counts per call (a graph input's:
/// two shape nodes each), and Unique's slices (each compared with every
/// other).
inline constexpr int64_t kMaxConditionElements = 4096;
/// The most condition elements a kernel counts (a condition computed in
/// the model, or of a shape known per call): each element's prefix count
/// reads the whole condition, a workgroup per element on GPUs, so their
/// square is the work (a Faster R-CNN's 150 proposals by 90 classes are
/// 13,500).
inline constexpr int64_t kMaxCountedConditionElements = int64_t(1) << 16;

mlir::Value i64Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);

/// The first index in [lo, hi) where `past` (monotone: false, then true;
/// built with the builder it is given) holds, by `steps` halvings (enough
/// for hi - lo < 2^(steps - 1)) in a kernel's body; hi - 1 where it holds
/// nowhere. Never reads outside [0, hi): once the range closes it asks
/// about index 0, and ignores it.
mlir::Value
firstPast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo,
          mlir::Value hi, int64_t steps,
          llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                         mlir::Value)>
              past);

/// A tensor of `shape` and `element` filled with `value`; each `?` of
/// `shape` takes the next of `sizes` (index values).
mlir::Value filled(mlir::OpBuilder &b, mlir::Location loc,
                   llvm::ArrayRef<int64_t> shape, mlir::Type element,
                   mlir::Value value, mlir::ValueRange sizes = {});

/// A generic over `iterators.size()` loops writing `init` (its map `outMap`)
/// from `inputs` (their maps `inMaps`), the body given.
mlir::Value
generic(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
        llvm::ArrayRef<mlir::AffineMap> inMaps, mlir::Value init,
        mlir::AffineMap outMap,
        llvm::ArrayRef<mlir::utils::IteratorType> iterators,
        llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                       mlir::ValueRange)>
            body);

/// A bool condition flattened, with its true elements counted per call on
/// the host (a graph input) or by a kernel whose count the host reads (a
/// computed condition).
struct Condition {
  mlir::Value Flat;  // tensor<n x i1>, or of i8 flags (asBool)
  mlir::Value Count; // index, on the host
  int64_t Length = 0;
};

/// A flag as a bool: an i1, or an i8 of 0 or 1 (NonMaxSuppression keeps
/// its flags in bytes, as buffers hold booleans anyway: no conversion
/// around each of its steps' kernels).
mlir::Value asBool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flag);

/// How many elements of `flat` (bool [n]) are true, counted by a kernel and
/// read on the host as an index.
mlir::Value countOnDevice(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value flat);

/// A generic over `outShape` (dimension `pickDim` the chosen ones', of
/// extent the count) and a reduction over the condition's elements: each
/// output element takes `value(i)` of the element i whose position
/// (`prefix`, i64 [n]) is its index along `pickDim` (an OR of integers, a
/// select of others). Another dynamic dimension's extent is given in
/// `sizes` (by dimension).
mlir::Value
pick(mlir::OpBuilder &b, mlir::Location loc, const Condition &c,
     mlir::Value prefix, llvm::ArrayRef<int64_t> outShape, int64_t pickDim,
     mlir::Type element,
     llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                    mlir::Value, llvm::ArrayRef<mlir::Value>)>
         value,
     llvm::ArrayRef<mlir::Value> sizes = {});

/// pick() where the true elements' positions are in their order (`prefix`
/// the true ones before each: NonZero, Compress): each output element
/// finds its element by bisection over the prefix count, a few reads
/// instead of the whole condition.
mlir::Value pickInOrder(
    mlir::OpBuilder &b, mlir::Location loc, const Condition &c,
    mlir::Value prefix, llvm::ArrayRef<int64_t> outShape, int64_t pickDim,
    mlir::Type element,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value, llvm::ArrayRef<mlir::Value>)>
        value,
    llvm::ArrayRef<mlir::Value> sizes = {});

} // namespace kiln::onnx_import::selection

#endif // KILN_COMPILER_ONNX_OPS_SELECTION_H
