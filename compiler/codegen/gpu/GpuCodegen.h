//===- GpuCodegen.h - GPU code generation for dispatches
//-------------------===//
//
// A dispatch becomes a kernel in three steps: its root's parallel loops are
// tiled into workgroups (an scf.forall mapped to blocks) and each workgroup
// tile into one-element tiles (an scf.forall mapped to threads), fusing
// producers at both levels; after bufferization and workgroup distribution
// the thread loop becomes a loop strided by the workgroup's thread count; the
// function is then outlined into a gpu.func kernel of a gpu.module.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_GPUCODEGEN_H
#define KILN_COMPILER_CODEGEN_GPU_GPUCODEGEN_H

#include "compiler/codegen/gpu/GpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace kiln {

/// Threads of a workgroup, and the outputs each computes.
inline constexpr int64_t kGpuWorkgroupThreads = 256;
inline constexpr int64_t kGpuElementsPerThread = 4;
/// Steps of a per-thread reduction loop issued together where kiln-gpu-tile
/// asks (`unroll_reductions`, kiln-gpu-unroll-reductions).
inline constexpr int64_t kUnrollReductions = 8;
/// The gpu.module kiln-gpu-outline-kernels puts every kernel in.
inline constexpr llvm::StringLiteral kGpuKernelModule = "kiln_kernels";

/// Replaces static `pad` by a linalg.generic over the padded shape that
/// extracts the source element inside the source and computes the padding
/// value elsewhere: an elementwise op, so tiling it needs no temporary.
mlir::FailureOr<mlir::linalg::GenericOp>
rewritePadAsGather(mlir::RewriterBase &rewriter, mlir::tensor::PadOp pad);

/// Replaces a static `concat` by a linalg.generic over its result that
/// loads each element from the operand holding it: an elementwise op, so
/// tiling it needs no temporary of the whole result.
mlir::FailureOr<mlir::linalg::GenericOp>
rewriteConcatAsGather(mlir::RewriterBase &rewriter,
                      mlir::tensor::ConcatOp concat);

/// Replaces a static `slice` by a linalg.generic over its result that loads
/// each element from the source at offset + index * stride.
mlir::FailureOr<mlir::linalg::GenericOp>
rewriteExtractSliceAsGather(mlir::RewriterBase &rewriter,
                            mlir::tensor::ExtractSliceOp slice);

/// Replaces a static `insert` by a linalg.generic over the destination that
/// loads each element from the source where it lies on the slice and reads
/// the destination (an identity-mapped input) elsewhere.
mlir::FailureOr<mlir::linalg::GenericOp>
rewriteInsertSliceAsGather(mlir::RewriterBase &rewriter,
                           mlir::tensor::InsertSliceOp insert);

/// Rewrites every tensor.pad, tensor.concat, tensor.extract_slice and
/// tensor.insert_slice of `func` as above; fails, naming the op, on one
/// with dynamic offsets, sizes or strides, or with a dynamic dimension it
/// does not copy whole (a pad, concat or extract_slice may have ones it
/// does: issue 19).
mlir::LogicalResult rewriteTensorOpsAsGathers(mlir::func::FuncOp func);

/// Writes `func` (a dispatch in binding form) as a shared-memory tiled GEMM
/// kernel if its result is one contraction or convolution (an implicit
/// GEMM) with an optional elementwise epilogue (see
/// kiln-gpu-contraction-kernels); shared tiles are added to `symbols`.
/// Fails, changing nothing, if it is not such a dispatch.
mlir::LogicalResult buildContractionKernel(mlir::func::FuncOp func,
                                           mlir::SymbolTable &symbols,
                                           const GpuTarget &target);

/// Writes `func` as a matrix-vector kernel (MatvecKernel.cpp) if its result
/// is a contraction of at most 4 rows of A, not a convolution, whose payload
/// is `acc + a * b` accumulating in f32, with optional elementwise
/// epilogues: each thread streams a share of B and the shares' sums meet
/// by shuffles and shared memory. Fails, changing nothing, otherwise.
mlir::LogicalResult buildMatvecKernel(mlir::func::FuncOp func,
                                      mlir::SymbolTable &symbols,
                                      const GpuTarget &target);

/// Writes `func` as a tensor-core kernel (wgmma from swizzled dynamic
/// shared memory where `target` has it, else mma.sync; both filled by
/// cp.async, which `target` must have) if it is such a contraction or
/// convolution of f16 or bf16 operands (or, with `allowTf32`, f32 ones
/// rounded to tf32) accumulating in f32, with B N-innermost in 16-byte
/// runs; fails, changing nothing, otherwise. A wgmma kernel gets the
/// dynamic shared memory it takes as `kiln.shared_memory_bytes`.
mlir::LogicalResult buildMmaContractionKernel(mlir::func::FuncOp func,
                                              mlir::SymbolTable &symbols,
                                              const GpuTarget &target,
                                              bool allowTf32);

/// Writes `func` as a window kernel (shared input box, several outputs per
/// thread) if its root is a depthwise convolution or a pooling (see
/// kiln-gpu-window-kernels); the box is added to `symbols`. Fails, changing
/// nothing, otherwise.
mlir::LogicalResult buildWindowKernel(mlir::func::FuncOp func,
                                      mlir::SymbolTable &symbols,
                                      const GpuTarget &target);

/// Whether `target` has what the attention kernel runs on: cp.async and
/// mma.sync m16n8k16 on f16 with 32-thread subgroups.
bool hasAttentionKernel(const GpuTarget &target);

/// Writes `func` as one kernel streaming over the keys with an online
/// softmax if it holds an attention (Attention.h; see
/// kiln-gpu-attention-kernels); its shared tiles are added to `symbols`.
/// An f32 one multiplies as 3xTF32, or as tf32 with `allowTf32`. Fails,
/// changing nothing, otherwise.
mlir::LogicalResult buildAttentionKernel(mlir::func::FuncOp func,
                                         mlir::SymbolTable &symbols,
                                         const GpuTarget &target,
                                         bool allowTf32);

/// Writes `func` as a kernel in which a group of threads runs each row if its
/// result is the sink of a row program with reductions (see
/// kiln-gpu-row-kernels); shared buffers of partials are added to
/// `symbols`. Fails, changing nothing, otherwise.
mlir::LogicalResult buildRowKernel(mlir::func::FuncOp func,
                                   mlir::SymbolTable &symbols,
                                   const GpuTarget &target);

/// Writes `func` as a kernel in which several threads share each output if
/// its result is one reduction with a neutral-element combiner, optionally
/// followed by elementwise consumers (see kiln-gpu-reduction-kernels); a
/// shared buffer of partials, when needed, is added to `symbols`. Fails,
/// changing nothing, otherwise.
mlir::LogicalResult buildReductionKernel(mlir::func::FuncOp func,
                                         mlir::SymbolTable &symbols,
                                         const GpuTarget &target);

/// Workgroup tile sizes over a root's static loop `ranges`: filled from the
/// innermost loop outwards up to kGpuWorkgroupThreads * `elementsPerThread`
/// elements.
llvm::SmallVector<int64_t>
chooseGpuWorkgroupTile(llvm::ArrayRef<int64_t> ranges,
                       int64_t elementsPerThread = kGpuElementsPerThread);

/// Tiles `func`'s root to workgroups and then to one-element thread tiles,
/// fusing producers. A dispatch with several results, or whose root has no
/// loops or an empty loop, is left as is (it runs as one thread).
mlir::LogicalResult tileForGpu(mlir::func::FuncOp func,
                               const mlir::FrozenRewritePatternSet &dims);

/// Whether `loop` is a thread loop of kiln-gpu-tile (mapped to
/// #gpu.thread).
bool isGpuThreadLoop(mlir::scf::ForallOp loop);

/// Erases copies of memory onto itself (which bufferizing in-place tiles
/// leaves), then replaces each thread-mapped scf.forall of a distributed
/// dispatch by an
/// scf.for over its linearized iterations, starting at the thread id and
/// strided by the thread count, and records kiln.workgroup_size. When
/// something outside those loops writes a binding (which every thread would
/// repeat), or there is no thread loop, the workgroup is one thread.
mlir::LogicalResult distributeToThreads(mlir::func::FuncOp func);

/// Moves distributed dispatch `func` (bindings, then workgroup ids x, y, z)
/// into `kernels` as a gpu.func kernel taking the bindings, reading the ids
/// from gpu.block_id, with its launch metadata; erases `func`. With
/// `earlyLaunch` (GpuTarget::EarlyLaunch) the kernel is marked as waiting
/// for its prerequisites itself (kWaitsForPrerequisitesAttr).
mlir::FailureOr<mlir::gpu::GPUFuncOp>
outlineKernel(mlir::func::FuncOp func, mlir::gpu::GPUModuleOp kernels,
              bool earlyLaunch = false);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_GPUCODEGEN_H
