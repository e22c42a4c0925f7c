//===- Pipeline.h - kiln-compile's phases ---------------------------------===//
#ifndef KILN_COMPILER_PIPELINE_H
#define KILN_COMPILER_PIPELINE_H

#include "compiler/target/rocm/HipTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <string>
#include <vector>

namespace kiln {

struct CompileOptions {
  /// supportedTargetDevices() names; each adds its executable variants, in
  /// this order (the runtime runs the first one its device accepts).
  std::vector<std::string> TargetDevices = {"cpu"};
  /// x86-64 micro-architecture level of the generated CPU code.
  std::string CpuTarget = "x86-64-v3";
  /// A knownCudaTargetNames() name.
  std::string CudaTarget = "sm_60";
  /// Fail unless ptxas is found and assembles a cubin (otherwise a cubin is
  /// embedded when ptxas is found and knows the chip).
  bool RequirePtxas = false;
  /// A knownHipTargetNames() name.
  std::string HipTarget = kDefaultHipTarget.str();
  /// Where ROCm's device bitcode (ocml.bc, ockl.bc) is.
  std::string HipBitcodeDir = kDefaultHipBitcodeDir.str();
  /// The layout 2-D convolution chains run in (kiln-convert-to-channels-last):
  /// Auto is channels-last when every target is a GPU, as written otherwise.
  enum class ConvLayout { Auto, AsWritten, ChannelsLast };
  ConvLayout Convolutions = ConvLayout::Auto;
  /// The type f32 contractions and convolutions multiply in: F32 leaves them
  /// as written; TF32 lets GPU backends round their operands to tf32 in
  /// the tensor-core kernels (their IR stays f32); F16 and BF16 round them
  /// in the IR (kiln-demote-contractions), for every target.
  enum class PrecisionMode { F32, TF32, F16, BF16 };
  PrecisionMode Precision = PrecisionMode::F32;
  /// When set, each executable variant's image is also written into this
  /// directory as `<backend>_<target>.<format>` (to read a code object
  /// with llvm-readelf or llvm-objdump).
  std::string DumpBinariesDir;
  /// Called at the start of each phase with a short description.
  std::function<void(llvm::StringRef)> Progress;
};

/// Every dialect and extension the compiler's input and passes use.
void registerCompilerDialects(mlir::DialectRegistry &registry);

/// input: verify, inline, tosa -> linalg, decompose aggregates.
void buildInputPipeline(mlir::OpPassManager &pm);
/// What globalopt does beyond what every target wants; the dispatches are
/// shared by every target of a module, so these hold only when all targets
/// want them.
struct GlobalOptOptions {
  /// kiln-convert-to-channels-last (GPU targets).
  bool ChannelsLast = false;
  /// kiln-split-reduction (GPU targets).
  bool SplitReductions = false;
  /// kiln-demote-contractions' type ("f16", "bf16"); empty: not run.
  std::string DemoteTo;
  /// kiln-pad-conv-channels (GPU targets).
  bool PadConvChannels = false;
};

/// globalopt: layouts, elementwise fusion, reductions split.
void buildGlobalOptPipeline(mlir::OpPassManager &pm,
                            const GlobalOptOptions &options);
/// What dispatch formation does beyond what every target wants (held only
/// when all targets want it, as GlobalOptOptions).
struct DispatchOptions {
  /// kiln-form-dispatches' fuse-input-pads (GPU targets).
  bool FuseInputPads = false;
  /// kiln-form-dispatches' fuse-dynamic-input-pads (targets whose GEMM
  /// kernels read such a pad: TargetBackend::fusesDynamicInputPads).
  bool FuseDynamicInputPads = false;
  /// kiln-form-dispatches' fuse-rows (GPU targets).
  bool FuseRows = false;
  /// kiln-form-dispatches' fuse-attention (targets with an attention
  /// kernel: TargetBackend::fusesAttention).
  bool FuseAttention = false;
  /// kiln-form-dispatches' fuse-permuted-epilogues (GPU targets).
  bool FusePermutedEpilogues = false;
  /// kiln-row-variants (GPU targets).
  bool RowVariants = false;
};

/// dispatch formation.
void buildDispatchPipeline(mlir::OpPassManager &pm,
                           const DispatchOptions &options);

/// The --target-device values this build compiles for: each backend's name,
/// then its aliases.
llvm::ArrayRef<llvm::StringRef> supportedTargetDevices();

/// Compiles `module` (consumed) into module-file bytes.
mlir::FailureOr<std::vector<uint8_t>>
compileToModuleFile(mlir::ModuleOp module, const CompileOptions &options);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINE_H
