//===- DispatchRegions.h - What a dispatch is made of ---------------------===//
#ifndef KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H
#define KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"

namespace kiln {

/// Name of the unit attribute marking outlined dispatch functions.
inline constexpr llvm::StringLiteral kDispatchAttr = "kiln.dispatch";
/// The grid of a distributed dispatch, and of its CPU entry point:
/// `array<i64: x, y, z>`.
inline constexpr llvm::StringLiteral kWorkgroupCountAttr =
    "kiln.workgroup_count";
/// A grid computed per dispatch (dynamic shapes): the nodes of a shape
/// program (schema/ShapeProgram.h) flattened as `array<i64: op, a, b, ...>`,
/// its PushConstant leaves naming i64 arguments until the CPU lowering
/// numbers their words, and `array<i64: x, y, z>`, the nodes of the grid.
/// kWorkgroupCountAttr then holds 1x1x1.
inline constexpr llvm::StringLiteral kWorkgroupCountProgramAttr =
    "kiln.workgroup_count_program";
inline constexpr llvm::StringLiteral kWorkgroupCountNodesAttr =
    "kiln.workgroup_count_nodes";
/// The number of bindings of a lowered entry point (i32).
inline constexpr llvm::StringLiteral kBindingCountAttr = "kiln.binding_count";
/// The threads of one workgroup of a GPU entry point: `array<i64: x, y, z>`
/// (CPU entry points run a workgroup on one thread and record none).
inline constexpr llvm::StringLiteral kWorkgroupSizeAttr = "kiln.workgroup_size";
/// The dynamic shared memory a GPU entry point's launch provides, in bytes
/// (i64); static shared memory is part of the kernel image.
inline constexpr llvm::StringLiteral kSharedMemoryBytesAttr =
    "kiln.shared_memory_bytes";
/// The workgroups of a GPU entry point one processor must hold at once
/// (i64): its back end limits each thread's registers to that share
/// (NVVM: `.minnctapersm`).
inline constexpr llvm::StringLiteral kWorkgroupsPerProcessorAttr =
    "kiln.workgroups_per_processor";
/// A GPU entry point (unit attribute) whose kernel waits for the
/// dispatches it depends on before touching memory, so the device may
/// launch it while they finish (GpuTarget::EarlyLaunch; the back end
/// emits the wait).
inline constexpr llvm::StringLiteral kWaitsForPrerequisitesAttr =
    "kiln.waits_for_prerequisites";

/// Every buffer a dispatch binds starts at a multiple of this many bytes
/// (the host plan places values so; kernels' vector accesses rely on it).
inline constexpr uint64_t kBindingAlignment = 64;

/// Where in its operand's bytes an op that only reinterprets part of a
/// contiguous buffer finds its result: 0 for expand_shape and
/// collapse_shape; for a static extract_slice with unit strides whose
/// elements are contiguous in its source (unit sizes, then one partial
/// dimension, then whole ones: a head of a [3, heads, seq, dim] tensor), the
/// byte offset of its first element when that is a multiple of
/// kBindingAlignment. None for every other op.
std::optional<uint64_t> aliasByteOffset(mlir::Operation *op);

/// Bytes a buffer stores an element of `type` in (index: 8; i1: 1).
uint64_t elementByteSize(mlir::Type type);

/// Ops that only reinterpret (part of) a contiguous buffer
/// (aliasByteOffset); the host plan aliases their result with their
/// operand's bytes instead of running anything.
bool isAliasOp(mlir::Operation *op);

/// expand_shape and collapse_shape: aliases that keep every element.
bool isReshapeOp(mlir::Operation *op);

/// An all-parallel linalg.generic copying `value` (a ranked tensor) into a
/// new tensor, built where `b` inserts: what a dispatch computes where it
/// would otherwise only pass a value through.
mlir::Value elementwiseCopy(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value value);

/// Whether `op` is an all-parallel linalg.generic whose one input is
/// `value`, read through identity maps, and whose payload only converts it
/// (one truncf or extf): a rounding a kernel can store beside `value`.
bool isConversionOf(mlir::Operation *op, mlir::Value value);

/// The permutation through which `op` (an all-parallel linalg.generic or
/// linalg.transpose of one input and an init it never reads, its loops its
/// output's dimensions) reads its input, when that is a permutation other
/// than the identity that keeps the innermost dimension innermost and the
/// payload reads no loop index: a transpose a GEMM kernel can apply as its
/// last epilogue by storing through it (runs along the innermost dimension
/// stay runs). Null otherwise.
mlir::AffineMap permutedEpilogueRead(mlir::Operation *op);

/// Ops cheap enough to be recomputed inside every dispatch that uses them
/// (empty tensors, scalar constants, fills of such scalars).
bool isClonableProducer(mlir::Operation *op);

/// Returns true if `func` is an outlined dispatch.
bool isDispatchFunc(mlir::func::FuncOp func);

/// Whether a tensor of `func`'s signature or body has a dynamic dimension,
/// or its body a condition checked per call (cf.assert) (issue 19): a host
/// function planned per call, or a dispatch whose kernels read extents per
/// call.
bool hasDynamicShapes(mlir::func::FuncOp func);

/// A pad of static sizes by a constant: the form whose padding the GPU
/// kernels of a convolution or pooling read in place when it shares their
/// dispatch (kiln-form-dispatches' fuse-input-pads).
bool isStaticConstantPad(mlir::tensor::PadOp pad);
/// A pad by a constant of static widths that pads no dimension of a
/// per-call extent (a batch, issue 19): the form the window kernel reads
/// in place over a dynamic batch.
bool isConstantPadOfStaticWidths(mlir::tensor::PadOp pad);

/// A pad by zero of static widths of only the dimensions that `inputMap`
/// (the reader's indexing map) indexes through a window, not by a loop
/// alone (batch, channels): the padding an implicit GEMM's kernels read in
/// place. The dimensions it does not pad may be dynamic (a batch known per
/// call, issue 19).
bool isZeroWindowPad(mlir::tensor::PadOp pad, mlir::AffineMap inputMap);

/// What kiln-form-dispatches fuses beyond what every target takes.
struct FormDispatchOptions {
  /// A pad only a convolution's or pooling's input reads joins that op's
  /// dispatch.
  bool FuseInputPads = false;
  /// With FuseInputPads, also a convolution's zero window padding whose
  /// shapes are dynamic (a batch known per call): for targets whose GEMM
  /// kernels read it in place over dynamic rows
  /// (TargetBackend::fusesDynamicInputPads); elsewhere the generic kernel
  /// would take it, materializing windows in per-thread memory.
  bool FuseDynamicInputPads = false;
  /// A row program (RowPrograms.h) is one dispatch.
  bool FuseRows = false;
  /// An attention (Attention.h) is one dispatch.
  bool FuseAttention = false;
  /// A transpose (keeping the innermost dimension) ending a contraction's
  /// chain of consumers joins its dispatch.
  bool FusePermutedEpilogues = false;
};

/// Groups the ops of `func` into dispatches and outlines each one into a
/// private function inserted into `func`'s module, replacing the group by a
/// call (see kiln-form-dispatches).
mlir::LogicalResult formDispatches(mlir::func::FuncOp func,
                                   const FormDispatchOptions &options);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H
