//===- ContractionMatch.h - Dispatches the GEMM kernels take --------------===//
//
// The GEMM kernels (SIMT and tensor-core) compute C[batch, m, n] = sum over
// k of A[batch, m, k] * B[batch, k, n], where each of batch, m, n and k is a
// group of the root's loops, linearized. A contraction (matmul, batch
// matmul, a generic) has one loop per group; a convolution is an implicit
// GEMM: m = (N, OH, OW), n = F, k = (KH, KW, C), and A's elements are
// gathered from the input through its indexing map (strides, dilations), so
// the kernels address A and B only through the root's maps applied to the
// delinearized loops. This is that match, shared by both kernel builders.
//
// A convolution's input may be padded by zero in the dispatch itself
// (kiln-form-dispatches' fuse-input-pads): A is then the unpadded binding,
// and the kernels read zero wherever the window falls outside it
// (lhsAccess) instead of a padded copy made by a dispatch of its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H
#define KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H

#include "compiler/codegen/gpu/KernelDispatch.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace kiln {

/// A dispatch whose root is a contraction or convolution, as a GEMM.
struct Contraction : KernelDispatch {
  mlir::Value Lhs, Rhs; // A and B: the root's input bindings
  /// When the root reads A through a pad by zero: the padding before each
  /// dimension of Lhs (only window dimensions are padded); else empty.
  llvm::SmallVector<int64_t> LhsPadLow;
  /// The root's loops in each role, outermost first: batch loops appear in
  /// A, B and C; m loops in A and C; n loops in B and C; k loops (every
  /// reduction) in A and B. Batch, m and n follow C's layout, k B's.
  llvm::SmallVector<int64_t> BatchDims, MDims, NDims, KDims;
  int64_t Batch = 1, M = 1, N = 1, K = 1; // their trip counts' products
  /// True when A is read through a convolution's window (not a projected
  /// permutation).
  bool ImplicitGemm = false;
  /// Issue 19: the outermost m loop's extent is known per call (a batch of
  /// images, a prompt's tokens; no other loop may be dynamic). M is then an
  /// assumed count, for choosing tiles only; each value of that loop holds
  /// MPerOuter rows (the other m loops' product), and the kernel reads the
  /// call's rows with rowCount().
  bool DynamicM = false;
  int64_t MPerOuter = 1;

  /// The trip counts of `dims`, loops of the root.
  llvm::SmallVector<int64_t> sizes(llvm::ArrayRef<int64_t> dims) const;
};

/// Matches `func` as a KernelDispatch whose root is a contraction or a
/// convolution (isaContractionOpInterface / isaConvolutionOpInterface)
/// with every loop in one of the roles above, B and C read through
/// projected permutations, and A's indices sums of loops times positive
/// constants; fails, changing nothing, otherwise.
mlir::FailureOr<Contraction> matchContraction(mlir::func::FuncOp func,
                                              bool dynamicRows = false);

/// With c.DynamicM: the call's M, from Out's extent along the outermost m
/// loop (built at `builder`'s insertion point); else null.
mlir::Value rowCount(mlir::OpBuilder &builder, mlir::Location loc,
                     const Contraction &c);

/// The value of each of c's root loops at linear positions `batch`, `m`,
/// `n` and `k` of their groups (a null position leaves its loops at 0).
llvm::SmallVector<mlir::Value>
contractionLoops(mlir::OpBuilder &builder, mlir::Location loc,
                 const Contraction &c, mlir::Value batch, mlir::Value m,
                 mlir::Value n, mlir::Value k);

/// Where the root's A index `indices` (of the padded input, when A is
/// padded) is in Lhs, and whether it is inside it (null: always). Outside,
/// the indices are clamped to 0 along the padded dimensions, so an address
/// formed from them stays inside Lhs; the element there is zero.
struct LhsAccess {
  llvm::SmallVector<mlir::Value> Indices;
  mlir::Value InBounds;
};
LhsAccess lhsAccess(mlir::OpBuilder &builder, mlir::Location loc,
                    const Contraction &c, llvm::ArrayRef<mlir::Value> indices);
/// Whether the root reads dimension `dim` of Lhs through a pad (indices
/// there are shifted by LhsPadLow[dim] and checked against Lhs's size).
bool isLhsDimPadded(const Contraction &c, unsigned dim);

/// True when `operand`'s innermost index is the innermost loop of `dims`
/// itself, so consecutive positions of that group are consecutive in
/// memory (within runs of that loop's trip count).
bool isInnermostIn(const Contraction &c, mlir::OpOperand *operand,
                   llvm::ArrayRef<int64_t> dims);

/// The workgroup loop of a GEMM kernel: (batch, rows, columns) in steps of
/// (1, rows, columns) tiles, mapped to blocks.
mlir::scf::ForallOp createWorkgroupLoop(mlir::OpBuilder &builder,
                                        mlir::Location loc,
                                        const Contraction &c, int64_t rows,
                                        int64_t columns,
                                        mlir::Value rowCount = {});

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H
