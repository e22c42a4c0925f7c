//===- HipTarget.h - AMD GPU names and the facts of each chip -------------===//
//
// The AMD chip table: LLVM architectures (gfx942), code names (cdna3) and
// products (mi300x), each giving the GpuTarget that GPU code generation
// reads: what --hip-target names for --target-device=hip, and what kiln-opt's
// kiln-gpu-set-target can name. Data only: nothing here loads HIP or ROCm.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_ROCM_HIPTARGET_H
#define KILN_COMPILER_TARGET_ROCM_HIPTARGET_H

#include "compiler/codegen/gpu/GpuTarget.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The architecture --hip-target means when it is not given: CDNA1 (MI100),
/// the oldest chip with matrix instructions.
inline constexpr llvm::StringLiteral kDefaultHipTarget = "gfx908";

/// Where --hip-bc-dir points when it is not given: Debian's
/// rocm-device-libs (ocml.bc, ockl.bc), which scripts/install-deps.sh
/// installs.
inline constexpr llvm::StringLiteral kDefaultHipBitcodeDir =
    "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

/// One AMD chip, with the facts code generation reads (see gpuTarget()).
struct HipTarget {
  /// The LLVM AMDGPU processor ("gfx942").
  llvm::StringRef Chip;
  /// Lanes of the wavefront code is generated for: 64 on GCN/CDNA, 32 on
  /// RDNA (which can also run wave64, but wave32 is its native width).
  int64_t WavefrontSize;
  /// LDS one workgroup may allocate...
  int64_t WorkgroupLdsBytes;
  /// ...and one compute unit has for all its resident workgroups.
  int64_t ComputeUnitLdsBytes;
  /// Resident threads per compute unit (SIMDs x waves per SIMD x width).
  int64_t MaxThreadsPerComputeUnit;
  /// Compute units: the named product's, or for an architecture or code
  /// name its usual part's (gfx942: an MI300X's 304).
  int64_t ComputeUnits;
  /// Matrix instructions, spelled as GpuMatrixInstruction::parse() reads
  /// them; the first of an element type is the one codegen picks.
  llvm::ArrayRef<llvm::StringLiteral> MatrixInstructions;

  /// The description every GPU code generation pass reads.
  GpuTarget gpuTarget() const;
};

/// Resolves an AMD chip name: an architecture (gfx900 ... gfx1201), a code
/// name (cdna1 ... cdna4, rdna2 ... rdna4) or a product (mi300x, w7900).
/// Code and product names give their architecture's facts; a product also
/// gives its compute-unit count.
std::optional<HipTarget> resolveHipTarget(llvm::StringRef name);

/// Every accepted name, architectures first.
std::vector<std::string> knownHipTargetNames();

/// "cdna1, mi100 -> gfx908; ..." for --help.
std::string describeHipTargetAliases();

} // namespace kiln

#endif // KILN_COMPILER_TARGET_ROCM_HIPTARGET_H
