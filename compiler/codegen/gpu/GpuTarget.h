//===- GpuTarget.h - The facts of a GPU that code generation reads --------===//
//
// Every `codegen/gpu` decision that depends on the chip (the subgroup width
// a reduction shuffles over, how many workgroups fill the processors, how
// much shared memory a tile may take, which matrix instruction a GEMM uses)
// reads it from a GpuTarget. A backend fills one from its chip table and the
// GPU pipeline records it on the module being compiled as the dictionary
// attribute `kiln.gpu_target`, where each pass finds it; lit tests write the
// attribute by hand. No kernel builder names a vendor or a chip.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_GPUTARGET_H
#define KILN_COMPILER_CODEGEN_GPU_GPUTARGET_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The module attribute holding the target (a DictionaryAttr).
inline constexpr llvm::StringLiteral kGpuTargetAttr = "kiln.gpu_target";

/// One matrix multiply-accumulate instruction of a chip: D[M x N] += A[M x
/// K] * B[K x N] with A and B of `Operand`, C and D of `Accumulator`
/// ("f16", "bf16", "tf32", "f32"). Spelled `<kind>.m<M>n<N>k<K>.<A>.<C>`,
/// e.g. "mma_sync.m16n8k16.f16.f32"; a kind whose N varies by multiples of
/// 8 (wgmma) is spelled with N = 0 ("wgmma.m64n0k16.f16.f32").
struct GpuMatrixInstruction {
  enum class Kind {
    /// A warp's synchronous mma (sm_80 and later).
    MmaSync,
    /// A warpgroup's asynchronous mma reading shared memory (sm_90a).
    Wgmma,
    /// AMD CDNA's wave matrix instructions.
    Mfma,
    /// AMD RDNA3's wave matrix instructions (wave32; both half-waves hold
    /// all of K of an operand's row or column).
    Wmma,
    /// AMD RDNA4's: the same shapes, each half-wave holding half of K.
    WmmaR4,
  };
  Kind InstructionKind;
  int64_t M, N, K;
  std::string Operand, Accumulator;

  static std::optional<GpuMatrixInstruction> parse(llvm::StringRef text);
  std::string str() const;
  bool operator==(const GpuMatrixInstruction &other) const = default;
};

struct GpuTarget {
  /// "nvidia" or "amd": which final lowering the backend adds.
  std::string Vendor;
  /// The chip the code is generated for ("sm_90a", "gfx942").
  std::string Arch;
  /// Threads of a subgroup (warp or wavefront): the width of shuffles.
  int64_t SubgroupSize = 32;
  /// Streaming multiprocessors or compute units: how many workgroups it
  /// takes to occupy the chip.
  int64_t ProcessorCount = 0;
  int64_t MaxWorkgroupThreads = 1024;
  /// Threads resident on one processor at a time.
  int64_t MaxThreadsPerProcessor = 2048;
  /// Shared memory a workgroup may declare statically.
  int64_t SharedMemoryBytes = 48 * 1024;
  /// Shared memory a workgroup may use when the kernel opts in (dynamic).
  int64_t MaxSharedMemoryBytes = 48 * 1024;
  /// Shared memory of one processor, which its resident workgroups share...
  int64_t ProcessorSharedMemoryBytes = 48 * 1024;
  /// ...each taking this much more than it uses (the system's share).
  int64_t ReservedSharedMemoryBytes = 0;
  /// Asynchronous global-to-shared copies (cp.async).
  bool AsyncCopy = false;
  /// Tensor memory accelerator copies (cp.async.bulk.tensor).
  bool Tma = false;
  /// A kernel may be launched while the kernels it depends on finish and
  /// wait for them itself (CUDA's programmatic dependent launch, sm_90 on):
  /// its blocks are scheduled during their predecessors' last moments
  /// instead of after them.
  bool EarlyLaunch = false;
  llvm::SmallVector<GpuMatrixInstruction> MatrixInstructions;

  /// Threads that keep every processor fully occupied.
  int64_t residentThreads() const {
    return ProcessorCount * MaxThreadsPerProcessor;
  }
  /// Workgroups using `sharedBytes` each that fit one processor's shared
  /// memory.
  int64_t workgroupsBySharedMemory(int64_t sharedBytes) const {
    return ProcessorSharedMemoryBytes /
           std::max<int64_t>(1, sharedBytes + ReservedSharedMemoryBytes);
  }
  /// The first instruction of `kind` multiplying `operand` into
  /// `accumulator`, if the chip has one.
  const GpuMatrixInstruction *
  findMatrixInstruction(GpuMatrixInstruction::Kind kind,
                        llvm::StringRef operand,
                        llvm::StringRef accumulator) const;

  mlir::DictionaryAttr toAttr(mlir::MLIRContext *context) const;
  /// Reads a `kiln.gpu_target` dictionary; on a missing or ill-typed entry
  /// reports it on `diagnosticOp` and fails.
  static mlir::FailureOr<GpuTarget> fromAttr(mlir::DictionaryAttr attr,
                                             mlir::Operation *diagnosticOp);
};

/// Looks a chip or product name up in one vendor's table.
using GpuTargetResolver = std::optional<GpuTarget> (*)(llvm::StringRef name);
/// Every name one vendor's table knows.
using GpuTargetNames = std::vector<std::string> (*)();
/// Adds a vendor's table to those resolveGpuTarget() asks (a backend does
/// this once, so tools such as kiln-opt can name chips); `names` lists what
/// it knows for the error on an unknown name.
void registerGpuTargetResolver(GpuTargetResolver resolver,
                               GpuTargetNames names);
/// The target a registered table knows by `name`, if any.
std::optional<GpuTarget> resolveGpuTarget(llvm::StringRef name);
/// The names of every registered table, in registration order.
std::vector<std::string> knownGpuTargetNames();

/// The target recorded on `op`'s module (or `op` itself, when a module);
/// an error on `op` naming the attribute when there is none.
mlir::FailureOr<GpuTarget> getGpuTarget(mlir::Operation *op);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_GPUTARGET_H
