//===- KernelDispatch.h - Dispatches written whole as one kernel ----------===//
//
// Some GPU kernels are written out whole for a dispatch instead of going
// through per-output tiling: contractions and convolutions as (implicit)
// GEMMs, depthwise convolutions and poolings as window kernels. Each takes a
// dispatch in binding form whose result is one linalg op, the root, reading
// bindings and accumulating into a fill, a copy of a binding or an
// elementwise op of bindings (a broadcast bias), optionally followed by a
// chain of elementwise epilogues, each reading the value before it and
// other bindings (a rounding to f16, a residual add, a ReLU). This is that
// match, and what the kernel builders share to emit such a kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_KERNELDISPATCH_H
#define KILN_COMPILER_CODEGEN_GPU_KERNELDISPATCH_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {

/// What a matched dispatch computes, in terms of its bindings.
struct KernelDispatch {
  mlir::linalg::LinalgOp Op; // the root: two inputs, one init
  /// What the accumulator starts as: a linalg.fill of a scalar into
  /// tensor.empty, a linalg.copy of a binding, or an all-parallel
  /// linalg.generic of bindings (its loops the output's dimensions).
  mlir::Operation *Init;
  /// Elementwise ops applied to the root's result in turn, innermost
  /// first; may be empty.
  llvm::SmallVector<mlir::linalg::GenericOp> Epilogues;
  mlir::Value Out;        // the output binding
  mlir::Operation *Store; // the store of the result to Out
  /// Where Out holds the element the root computes at its output indices
  /// `j`: Out[OutPermutation(j)], when the last epilogue reads the value
  /// before it through a permutation (a transpose after a GEMM that moves
  /// heads apart: kiln-form-dispatches' fuse-permuted-epilogues); null
  /// when Out is indexed as the root's output is. Such a dispatch matches
  /// only where the caller of matchKernelDispatch stores through it.
  mlir::AffineMap OutPermutation;
  /// The root's loop ranges: static, but where matchKernelDispatch was
  /// asked to take dynamic ones (ShapedType::kDynamic).
  llvm::SmallVector<int64_t> Ranges;
};

/// `func`'s one store of a result into an output binding (a
/// materialize_in_destination into a block argument), or null when it has
/// none or several.
mlir::bufferization::MaterializeInDestinationOp
singleBindingStore(mlir::func::FuncOp func);

/// `func`'s stores into output bindings: Main, of the value nothing else in
/// the dispatch reads (but a conversion of it that is stored too); Side, a
/// conversion of Main's value (isConversionOf: a rounding to f16 another
/// dispatch reads), which a kernel stores beside it, or null; Others, the
/// rest (values the dispatch also reads, as a row program's residual
/// stream). None when a store is not into a binding or no one store, or
/// several, can be Main.
struct ResultStores {
  mlir::bufferization::MaterializeInDestinationOp Main, Side;
  llvm::SmallVector<mlir::bufferization::MaterializeInDestinationOp> Others;
};
std::optional<ResultStores> resultStores(mlir::func::FuncOp func);

/// Matches `func`'s single result store against the shape above; fails
/// (changing nothing) otherwise, or when a loop of the root is empty, or
/// dynamic (unless `dynamicRanges`: the caller handles such extents). With
/// `permutedStore`, the last epilogue may read the value before it through a
/// permutation that keeps the innermost dimension innermost (see
/// OutPermutation); without, such a dispatch does not match.
mlir::FailureOr<KernelDispatch> matchKernelDispatch(mlir::func::FuncOp func,
                                                    bool permutedStore = false,
                                                    bool dynamicRanges = false);

/// The extent a batch known per call only is taken to have where a kernel
/// chooses its tiles (the GEMM kernels' rows, the window kernel's vector
/// width), unless a variant says otherwise (kiln.assumed_outer_rows).
inline constexpr int64_t kAssumedOuterRows = 32;

/// Whether `type` is dense row-major with at most its outermost extent
/// known per call (a batch's binding, issue 19): its strides, and runs
/// along its rows, are then static as for a static shape.
bool isRowMajorPastOutermost(mlir::MemRefType type);

/// Out's indices for the root's output indices `outIndices`: themselves,
/// or permuted by d.OutPermutation.
llvm::SmallVector<mlir::Value>
storeIndices(const KernelDispatch &d, llvm::ArrayRef<mlir::Value> outIndices);

/// Appends the loops of `e` if it is a sum of loops times positive
/// constants, as a convolution window's index (oh * stride + kh *
/// dilation) or a plain loop is; false for anything else.
bool collectWindowLoops(mlir::AffineExpr e,
                        llvm::SmallVectorImpl<unsigned> &loops);

/// Whether `buffer` is a binding: a function argument, or its view with
/// dynamic extents (issue 19).
bool isBindingBuffer(mlir::Value buffer);

/// The memref binding `tensor` reads (a to_tensor of a function argument,
/// or of its view with dynamic extents), or null.
mlir::Value bindingOf(mlir::Value tensor);

/// The indices `map` gives for the value of every loop: its results
/// expanded into index arithmetic.
llvm::SmallVector<mlir::Value> applyToLoops(mlir::OpBuilder &builder,
                                            mlir::Location loc,
                                            mlir::AffineMap map,
                                            llvm::ArrayRef<mlir::Value> loops);

/// The position of `linear` in a row-major box of `sizes`, outermost first
/// (`linear` itself for one dimension).
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &builder,
                                           mlir::Location loc,
                                           mlir::Value linear,
                                           llvm::ArrayRef<int64_t> sizes);

/// A 16-byte aligned shared-memory buffer of `shape` for kernel `func`: a
/// workgroup-space memref.global named after it (added to `symbols`) and
/// its memref.get_global at `builder`'s insertion point.
mlir::Value createSharedBuffer(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::func::FuncOp func,
                               mlir::SymbolTable &symbols,
                               llvm::StringRef suffix,
                               llvm::ArrayRef<int64_t> shape,
                               mlir::Type element);

/// A workgroup loop: an scf.forall from 0 to `upper` in `steps`, its
/// dimensions mapped to blocks (linear_dim_0, 1, ...).
mlir::scf::ForallOp createBlockLoop(mlir::OpBuilder &builder,
                                    mlir::Location loc,
                                    llvm::ArrayRef<int64_t> upper,
                                    llvm::ArrayRef<int64_t> steps);
/// The same with upper bounds known per call (issue 19) among them.
mlir::scf::ForallOp createBlockLoop(mlir::OpBuilder &builder,
                                    mlir::Location loc,
                                    llvm::ArrayRef<mlir::OpFoldResult> upper,
                                    llvm::ArrayRef<int64_t> steps);

/// The scalar every accumulator starts from when d's init is a fill, else
/// null (each output then has its own, see initialValue).
mlir::Value uniformInit(const KernelDispatch &d);

/// The accumulator's starting value for output `outIndices`: the fill
/// value, the copied binding's element, or the init generic applied to its
/// bindings' elements.
mlir::Value initialValue(mlir::OpBuilder &builder, mlir::Location loc,
                         const KernelDispatch &d,
                         llvm::ArrayRef<mlir::Value> outIndices);

/// Clones the root's payload for one update: its block arguments become
/// `args` (unused ones may be null); multiply and add may contract into an
/// FMA. Returns the value it yields.
mlir::Value applyRootPayload(mlir::OpBuilder &builder, const KernelDispatch &d,
                             llvm::ArrayRef<mlir::Value> args);

/// Whether the root's payload is elementwise ops (and constants) on
/// scalars, which applyRootPayloadToVectors can apply lane by lane.
bool isVectorizablePayload(const KernelDispatch &d);

/// applyRootPayload on vectors of `lanes` elements (`args` such vectors):
/// each op on vectors, its constants and values from outside the payload
/// the same in every lane.
mlir::Value applyRootPayloadToVectors(mlir::OpBuilder &builder,
                                      mlir::Location loc,
                                      const KernelDispatch &d,
                                      llvm::ArrayRef<mlir::Value> args,
                                      int64_t lanes);

/// The value stored for output `outIndices` whose root result is `result`:
/// `result` with d's epilogues applied in turn (other inputs loaded from
/// their bindings).
mlir::Value applyEpilogue(mlir::OpBuilder &builder, mlir::Location loc,
                          const KernelDispatch &d, mlir::Value result,
                          llvm::ArrayRef<mlir::Value> outIndices);

/// initialValue and applyEpilogue for a run of `length` outputs consecutive
/// along the output's innermost index, the first at `first` (whose
/// innermost index is a multiple of `length`), each lane in turn from lane
/// 0. An operand read along that index too (its map's last result is the
/// innermost loop, which no other result reads; an identity-layout binding
/// whose innermost extent `length` divides) is loaded once, as a vector
/// of the run's elements, by lane 0: one wide load instead of `length`
/// narrow ones (a residual beside a GEMM's output: 16 bytes, not 2, a
/// load). Other operands are loaded an element at a time.
class OutputRun {
public:
  OutputRun(mlir::OpBuilder &builder, mlir::Location loc,
            const KernelDispatch &d, llvm::ArrayRef<mlir::Value> first,
            int64_t length);
  mlir::Value initialValue(int64_t lane);
  mlir::Value applyEpilogue(mlir::Value result, int64_t lane);
  /// The output's indices at `lane`.
  llvm::SmallVector<mlir::Value> indicesOf(int64_t lane);

private:
  bool readsAlongRun(mlir::Value binding, mlir::AffineMap map) const;
  mlir::Value load(mlir::Value binding, mlir::AffineMap map, int64_t lane);

  mlir::OpBuilder &Builder;
  mlir::Location Loc;
  const KernelDispatch &D;
  llvm::SmallVector<mlir::Value> First;
  int64_t Length;
  llvm::DenseMap<std::pair<mlir::Value, mlir::AffineMap>, mlir::Value> Vectors;
};

/// `compute()` where `inBounds` holds and `otherwise` elsewhere, built as an
/// scf.if so nothing outside the bounds is loaded; `compute()` alone when
/// `inBounds` is null (known in bounds).
mlir::Value valueUnless(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value inBounds, mlir::Value otherwise,
                        llvm::function_ref<mlir::Value()> compute);

/// valueUnless with zero of `type` elsewhere.
mlir::Value zeroUnless(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value inBounds, mlir::Type type,
                       llvm::function_ref<mlir::Value()> compute);

/// `value` of the lane of a subgroup of `width` lanes whose id differs from
/// this one's in `mask` (gpu.shuffle xor, which moves 32 or 64 bits:
/// narrower values travel zero-extended).
mlir::Value shuffleXor(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value value, int64_t mask, int64_t width);

/// The type a partial of `type` is kept as in shared memory, which holds
/// whole bytes: i8 for i1.
mlir::Type sharedStorageType(mlir::Type type);

/// Erases `func`'s result store and everything dead after it, once a kernel
/// builder has written the kernel before the store.
void eraseTensorProgram(mlir::func::FuncOp func);

/// Calls `build` on every dispatch function of `module` with static shapes,
/// with a symbol table of the module for the shared buffers it adds. A
/// dispatch `build` fails on is left as it was for a later kernel pass or
/// the generic tiling, and so is every dispatch with dynamic shapes unless
/// `dynamicToo`: the kernels written whole size their tiles, shared
/// buffers and grids from static extents, while the generic tiling takes
/// extents per call; a builder that reads a dynamic extent per call itself
/// (the reduction kernel's reduced loop) matches dynamic dispatches too.
void buildKernelsOfDispatches(mlir::ModuleOp module,
                              llvm::function_ref<mlir::LogicalResult(
                                  mlir::func::FuncOp, mlir::SymbolTable &)>
                                  build,
                              bool dynamicToo = false);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_KERNELDISPATCH_H
