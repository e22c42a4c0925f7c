//===- HipTarget.cpp ------------------------------------------------------===//

#include "compiler/target/rocm/HipTarget.h"
#include "compiler/target/ChipTable.h"

using llvm::StringRef;

namespace kiln {
namespace {

using HipTargetRow = ChipRow<HipTarget>;

constexpr int64_t KiB = 1024;

// Matrix instructions by architecture, f16 and bf16 operands into f32, one
// block (the shapes upstream's amdgpu.mfma/amdgpu.wmma lower to a single
// ROCDL intrinsic for; ROCDLOps.td and AMDGPU.td of MLIR 22). The 16x16
// shape comes first: a quarter of the 32x32 accumulator per lane, which
// suits the small GEMMs of the models Kiln compiles.
//
// CDNA1 (gfx908): v_mfma_f32_{16x16x16,32x32x8}f16 and the first bf16 ones,
// which take two bf16 a lane (16x16x8, 32x32x4).
const llvm::StringLiteral kCdna1Matrix[] = {
    "mfma.m16n16k16.f16.f32",
    "mfma.m32n32k8.f16.f32",
    "mfma.m16n16k8.bf16.f32",
    "mfma.m32n32k4.bf16.f32",
};
// CDNA2 and CDNA3 (gfx90a, gfx942): the `_1k` bf16 instructions take four
// bf16 a lane, the f16 shapes (gfx942 drops the two-a-lane bf16 ones).
const llvm::StringLiteral kCdna2Matrix[] = {
    "mfma.m16n16k16.f16.f32",
    "mfma.m32n32k8.f16.f32",
    "mfma.m16n16k16.bf16.f32",
    "mfma.m32n32k8.bf16.f32",
};
// CDNA4 (gfx950) doubles K (16x16x32, 32x32x16) and keeps CDNA3's shapes.
const llvm::StringLiteral kCdna4Matrix[] = {
    "mfma.m16n16k32.f16.f32",  "mfma.m32n32k16.f16.f32",
    "mfma.m16n16k32.bf16.f32", "mfma.m32n32k16.bf16.f32",
    "mfma.m16n16k16.f16.f32",  "mfma.m32n32k8.f16.f32",
    "mfma.m16n16k16.bf16.f32", "mfma.m32n32k8.bf16.f32",
};
// RDNA3 (gfx11): v_wmma_f32_16x16x16_{f16,bf16} in wave32.
const llvm::StringLiteral kRdna3Matrix[] = {
    "wmma.m16n16k16.f16.f32",
    "wmma.m16n16k16.bf16.f32",
};
// RDNA4 (gfx12): the same instructions, whose operands a lane holds half
// of (8 of K, not RDNA3's 16 repeated in both half-waves).
const llvm::StringLiteral kRdna4Matrix[] = {
    "wmma_r4.m16n16k16.f16.f32",
    "wmma_r4.m16n16k16.bf16.f32",
};

// Facts shared by the architectures of a family.
//
// Resident threads per compute unit are SIMDs x waves per SIMD x wavefront
// size, from LLVM's AMDGPUBaseInfo (getEUsPerCU, getMaxWavesPerEU): GCN and
// gfx908 have 4 SIMDs of 10 waves; gfx90a and later CDNA 4 SIMDs of 8; RDNA
// (gfx10.3 and later) a compute unit of 2 SIMD32s of 16 waves.
//
// LDS: 64 KiB a compute unit on GCN and CDNA, 160 KiB on gfx950 (the ROCm
// page's LDS column); a workgroup may address all of it (LLVM's AMDGPU.td,
// FeatureAddressableLocalMemorySize: 65536, gfx950 163840). An RDNA
// workgroup processor pairs two compute units around 128 KiB (the ROCm
// page's RDNA LDS column is per workgroup processor) of which a workgroup
// addresses 64 KiB; counting compute units, as the product figures below
// do, that is 64 KiB each.
constexpr int64_t kGcnThreads = 4 * 10 * 64;
constexpr int64_t kCdna2Threads = 4 * 8 * 64;
constexpr int64_t kRdnaThreads = 2 * 16 * 32;

// The one table of AMD chip names. Architectures and their code names from
// LLVM's AMDGPUUsage "Processors" table; products, their architecture and
// compute units from AMD's ROCm "GPU hardware specifications" page
// (reference/gpu-specs) and IREE's known HIP targets (KnownTargets.cpp),
// which also has the MI308X (80 compute units) the ROCm page lacks. An
// architecture's own count is a common product's (gfx900: MI25, gfx906:
// MI50, gfx1030: Radeon PRO W6800, gfx1102: RX 7600).
//
// An MI250 is two gfx90a dies of 104 compute units each, which the runtime
// shows as two devices; a dispatch runs on one, so mi250 gives 104 (the
// product's 208 would size grids for a device that does not exist).
const HipTargetRow kHipTargets[] = {
    {{"gfx900", 64, 64 * KiB, 64 * KiB, kGcnThreads, 64, {}}, {}},
    {{"gfx906", 64, 64 * KiB, 64 * KiB, kGcnThreads, 60, {}}, {}},
    {{"gfx908", 64, 64 * KiB, 64 * KiB, kGcnThreads, 120, kCdna1Matrix},
     {{"cdna1", 0}, {"mi100", 120}}},
    {{"gfx90a", 64, 64 * KiB, 64 * KiB, kCdna2Threads, 104, kCdna2Matrix},
     {{"cdna2", 0}, {"mi210", 104}, {"mi250", 104}}},
    {{"gfx942", 64, 64 * KiB, 64 * KiB, kCdna2Threads, 304, kCdna2Matrix},
     {{"cdna3", 0},
      {"mi300a", 228},
      {"mi300x", 304},
      {"mi308x", 80},
      {"mi325x", 304}}},
    {{"gfx950", 64, 160 * KiB, 160 * KiB, kCdna2Threads, 256, kCdna4Matrix},
     {{"cdna4", 0}, {"mi350x", 256}, {"mi355x", 256}}},
    {{"gfx1030", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 60, {}}, {{"rdna2", 0}}},
    {{"gfx1100", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 96, kRdna3Matrix},
     {{"rdna3", 0},
      {"w7800", 70},
      {"w7900", 96},
      {"rx7900xt", 84},
      {"rx7900xtx", 96}}},
    {{"gfx1101", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 60, kRdna3Matrix},
     {{"v710", 54}, {"w7700", 48}, {"rx7700xt", 54}, {"rx7800xt", 60}}},
    {{"gfx1102", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 32, kRdna3Matrix}, {}},
    {{"gfx1200", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 32, kRdna4Matrix},
     {{"rx9060xt", 32}}},
    {{"gfx1201", 32, 64 * KiB, 64 * KiB, kRdnaThreads, 64, kRdna4Matrix},
     {{"rdna4", 0}, {"r9700", 64}, {"rx9070", 56}, {"rx9070xt", 64}}},
};

} // namespace

GpuTarget HipTarget::gpuTarget() const {
  GpuTarget target;
  target.Vendor = "amd";
  target.Arch = Chip.str();
  target.SubgroupSize = WavefrontSize;
  target.ProcessorCount = ComputeUnits;
  target.MaxWorkgroupThreads = 1024;
  target.MaxThreadsPerProcessor = MaxThreadsPerComputeUnit;
  // No opt-in: a kernel may allocate all of a workgroup's LDS statically.
  target.SharedMemoryBytes = WorkgroupLdsBytes;
  target.MaxSharedMemoryBytes = WorkgroupLdsBytes;
  target.ProcessorSharedMemoryBytes = ComputeUnitLdsBytes;
  target.ReservedSharedMemoryBytes = 0;
  // Global-to-LDS loads exist (buffer_load ... lds) but not as cp.async's
  // asynchronous copy groups, and there is no tensor memory accelerator.
  target.AsyncCopy = false;
  target.Tma = false;
  for (llvm::StringLiteral name : MatrixInstructions)
    target.MatrixInstructions.push_back(*GpuMatrixInstruction::parse(name));
  return target;
}

std::optional<HipTarget> resolveHipTarget(StringRef name) {
  return resolveChip<HipTarget>(kHipTargets, name, &HipTarget::ComputeUnits);
}

std::vector<std::string> knownHipTargetNames() {
  return chipNames<HipTarget>(kHipTargets);
}

std::string describeHipTargetAliases() {
  return describeChipAliases<HipTarget>(kHipTargets);
}

} // namespace kiln
