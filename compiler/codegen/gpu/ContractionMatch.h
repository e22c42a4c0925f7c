//===- ContractionMatch.h - Dispatches the contraction kernels take -------===//
//
// The contraction kernels (SIMT and tensor-core) are written whole for a
// dispatch in binding form whose result is one contraction on bindings,
// accumulating into a fill or a copy of a binding, optionally followed by
// one elementwise epilogue that reads other bindings. This is that match,
// shared by both kernel builders.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H
#define KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {

/// What a matched dispatch computes, in terms of its bindings.
struct Contraction {
  mlir::linalg::LinalgOp Op;
  mlir::Value Lhs, Rhs; // input bindings
  /// The accumulator starts as InitValue (a fill) or as InitBinding.
  mlir::Value InitValue, InitBinding;
  mlir::linalg::GenericOp Epilogue; // may be null
  mlir::Value Out;                  // the output binding
  mlir::Operation *Store;           // the store of the result to Out
  /// Loop positions in Op (BatchDim is -1 without a batch loop).
  int64_t BatchDim = -1, MDim, NDim, KDim;
  int64_t Batch = 1, M, N, K;
};

/// Matches `func`'s single result store against the shape above; fails
/// (changing nothing) otherwise, or when a loop is dynamic or empty.
mlir::FailureOr<Contraction> matchContraction(mlir::func::FuncOp func);

/// The memref binding `tensor` reads (a to_tensor of a function argument),
/// or null.
mlir::Value bindingOf(mlir::Value tensor);

/// The indices of projected permutation `map`'s results, given the value of
/// every loop.
llvm::SmallVector<mlir::Value> applyToLoops(mlir::AffineMap map,
                                            llvm::ArrayRef<mlir::Value> loops);

/// A 16-byte aligned shared-memory buffer of `shape` for kernel `func`: a
/// workgroup-space memref.global named after it (added to `symbols`) and
/// its memref.get_global at `builder`'s insertion point.
mlir::Value createSharedBuffer(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::func::FuncOp func,
                               mlir::SymbolTable &symbols,
                               llvm::StringRef suffix,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type element);

/// The workgroup loop of a contraction kernel: (batch, rows, columns) in
/// steps of (1, rows, columns) tiles, mapped to blocks.
mlir::scf::ForallOp createWorkgroupLoop(mlir::OpBuilder &builder,
                                        mlir::Location loc,
                                        const Contraction &c, int64_t rows,
                                        int64_t columns);

/// The value stored for output `outIndices` whose contraction result is
/// `result`: `result` itself, or c's epilogue applied to it (other inputs
/// loaded from their bindings).
mlir::Value applyEpilogue(mlir::OpBuilder &builder, mlir::Location loc,
                          const Contraction &c, mlir::Value result,
                          llvm::ArrayRef<mlir::Value> outIndices);

/// Erases `func`'s result store and everything dead after it, once a kernel
/// builder has written the kernel before the store.
void eraseTensorProgram(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_CONTRACTIONMATCH_H
