//===- RowPrograms.h - Row reductions and the ops that read them ----------===//
//
// LayerNorm, RMSNorm and softmax, as frontends write them, are reductions
// along a tensor's innermost dimension and elementwise ops that read both
// the tensor and the reductions' results broadcast along that dimension.
// Such a graph is a *row program*: for each row of the stored result (the
// sink, an elementwise op; a row is every index but its innermost one) it
// computes the row's value of each reduction in turn, then the row's
// elements of the sink. On a GPU a group of threads runs a row from start to
// end, so none of the intermediate tensors is ever stored.
//
// Every tensor the program computes is followed through the indices it is
// read at, as affine expressions of
//   dims 0 .. n-1   the sink's loops (n - 1 runs along the row), and
//   dim n + k       the reduced loop of the k-th reduction reached.
// A reduction's result must be read at expressions of the row dims alone
// (0 .. n-2), the same ones at every read: one value per row. A short one
// (kMaxInlineExtent elements at most, reading no row reduction) may be read
// anywhere instead, an *inline* reduction computed for each element it
// gives by whoever needs that element: a split-K GEMM's sum of partial
// products, read by the LayerNorm after the residual add.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_ROWPROGRAMS_H
#define KILN_COMPILER_DISPATCH_ROWPROGRAMS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace kiln {

/// A reduction payload `combine(f(inputs), out)`: the combining op (add,
/// mul, min, max, and, or, xor), which of its operands is `out`, and its
/// neutral element.
struct CombiningPayload {
  mlir::Operation *Combiner;
  unsigned AccumulatorOperand;
  mlir::TypedAttr Neutral;
};

/// `op`'s payload as above, if it is one: `out` read by the combiner alone,
/// whose result is what the payload yields.
std::optional<CombiningPayload>
matchCombiningPayload(mlir::linalg::LinalgOp op);

/// The combiner of `payload` applied to `accumulator` and `value` (a clone
/// of it at `builder`).
mlir::Value applyCombiner(mlir::OpBuilder &builder,
                          const CombiningPayload &payload,
                          mlir::Value accumulator, mlir::Value value);

/// Whether `op`'s payload computes on scalars only (it reads no tensor from
/// outside), so it can be cloned with scalar arguments.
bool hasScalarPayload(mlir::linalg::LinalgOp op);

/// The tensors from outside that `op`'s payload reads elements of by
/// tensor.extract (a gather: an embedding's rows at token ids), each once;
/// failure when it reads or computes a tensor any other way. A payload
/// cloned at a kernel reads them as they are (from their bindings).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
gatheredTensors(mlir::linalg::LinalgOp op);

/// A reduction of a row program.
struct RowReduction {
  mlir::linalg::LinalgOp Op;
  CombiningPayload Payload;
  /// Where the program reads the result: expressions of the row dims.
  llvm::SmallVector<mlir::AffineExpr> ResultIndices;
  unsigned ReducedLoop; // the op's one reduction loop
  int64_t Extent;       // its trip count
  unsigned Dim;         // the expression dim that stands for it
};

/// The most elements an inline reduction combines (a split-K factor).
inline constexpr int64_t kMaxInlineExtent = 16;

struct RowProgram {
  mlir::linalg::LinalgOp Sink;
  llvm::SmallVector<int64_t> Loops; // the sink's loop ranges, all static
  /// Each after the reductions it reads.
  llvm::SmallVector<RowReduction> Reductions;
  /// Every op the program computes (reshapes included), in the order first
  /// reached from the sink; fills of scalars are read as their scalar.
  llvm::SetVector<mlir::Operation *> Ops;
  /// The ops of Ops that are inline reductions.
  llvm::SmallPtrSet<mlir::Operation *, 2> InlineReductions;

  unsigned numDims() const { return Loops.size() + Reductions.size(); }
  /// The number of rows and a row's length.
  int64_t rows() const;
  int64_t rowLength() const { return Loops.back(); }
};

/// Follows `sink`'s operands back through elementwise linalg ops, linalg
/// ops with one reduction loop and a combining payload, expand_shape and
/// collapse_shape, down to tensors `isLeaf` accepts (bindings in a dispatch,
/// values from outside a group while dispatches form), which are read as
/// they are. Fails when it reaches anything else, when a reduction's result
/// is read along the row or at two places, or when `sink` is not an
/// elementwise op in loop order over static shapes. The program may have no
/// reduction.
mlir::FailureOr<RowProgram>
analyzeRowProgram(mlir::linalg::LinalgOp sink,
                  llvm::function_ref<bool(mlir::Value)> isLeaf);

/// The indices of `source` that element `indices` of the reshape `op`
/// (expand_shape or collapse_shape, static) reads, over `numDims` dims.
llvm::SmallVector<mlir::AffineExpr>
reshapeSourceIndices(mlir::Operation *op,
                     llvm::ArrayRef<mlir::AffineExpr> indices,
                     unsigned numDims);

/// The expressions `map` gives when its dims are `indices`.
llvm::SmallVector<mlir::AffineExpr>
composeIndices(mlir::AffineMap map, llvm::ArrayRef<mlir::AffineExpr> indices,
               unsigned numDims);

/// The loop expressions of reduction `r` for its row: the result indices
/// for its parallel loops, dim `r.Dim` for its reduced loop.
llvm::SmallVector<mlir::AffineExpr> reductionLoops(const RowReduction &r);

/// The loop expressions of the inline reduction `op` for its element at
/// `indices`, with `reduced` for its reduced loop.
llvm::SmallVector<mlir::AffineExpr>
inlineReductionLoops(mlir::linalg::LinalgOp op,
                     llvm::ArrayRef<mlir::AffineExpr> indices,
                     mlir::AffineExpr reduced);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_ROWPROGRAMS_H
