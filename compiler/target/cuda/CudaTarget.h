//===- CudaTarget.h - --cuda-target names, and PTX to cubin ---------------===//
#ifndef KILN_COMPILER_TARGET_CUDA_CUDATARGET_H
#define KILN_COMPILER_TARGET_CUDA_CUDATARGET_H

#include "compiler/codegen/gpu/GpuTarget.h"

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// One NVIDIA chip the CUDA back end generates code for, with the facts
/// code generation reads (see gpuTarget()).
struct CudaTarget {
  /// The `.target` of the PTX and ptxas's -arch ("sm_90a").
  llvm::StringRef Chip;
  /// The PTX ISA version the code is emitted for (80 is `.version 8.0`): the
  /// oldest that knows the chip, so the oldest drivers can load it.
  unsigned PtxVersion;
  /// Resident threads per multiprocessor.
  int64_t MaxThreadsPerMultiprocessor;
  /// Shared memory a block may use once its kernel opts in...
  int64_t MaxSharedMemoryBytes;
  /// ...and a multiprocessor has for all its blocks.
  int64_t MultiprocessorSharedMemoryBytes;
  /// Multiprocessors: the named product's, or for a chip or code name the
  /// usual data-center part's (sm_90a: an H100 SXM's 132).
  int64_t Multiprocessors;

  /// The compute capability x 10 the chip name gives (sm_90a: 90).
  unsigned computeCapability() const;
  /// Whether the chip name has the arch-specific suffix ("sm_90a"), which
  /// instructions of that chip alone (wgmma) need.
  bool isArchSpecific() const;
  /// The description every GPU code generation pass reads.
  GpuTarget gpuTarget() const;
};

/// Resolves a --cuda-target value: a chip (sm_60 ... sm_120a), a code name
/// (hopper) or a product (h100). Code and product names select the
/// arch-specific chip where there is one (hopper, h100 -> sm_90a), which
/// Hopper-only instructions need; a product also gives its multiprocessor
/// count.
std::optional<CudaTarget> resolveCudaTarget(llvm::StringRef name);

/// Every accepted --cuda-target name, chips first.
std::vector<std::string> knownCudaTargetNames();

/// "hopper, h100, h200 -> sm_90a; ..." for --help.
std::string describeCudaTargetAliases();

/// Where ptxas is: PATH, then /usr/local/cuda/bin; nullopt if neither.
std::optional<std::string> findPtxas();

/// Upstream's NVPTX serialization links libdevice (which convert-gpu-to-nvvm
/// calls for math.fma, math.floor and others) only from a toolkit named by
/// CUDA_ROOT, CUDA_HOME or CUDA_PATH. When none is set, names the toolkit
/// findPtxas() found if it has libdevice, for this process.
void nameCudaToolkitForLibdevice();

/// What running ptxas gave: the cubin, or why there is none.
struct PtxasResult {
  std::vector<uint8_t> Cubin;
  /// Empty on success, else what failed and what ptxas printed.
  std::string Error;
  /// This ptxas does not know the chip (a toolkit too new or too old for it).
  bool UnsupportedChip = false;
};

/// Assembles `ptx` for `chip` with the ptxas at `ptxas` (a subprocess).
PtxasResult assembleCubin(llvm::StringRef ptxas, llvm::StringRef ptx,
                          llvm::StringRef chip);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_CUDA_CUDATARGET_H
