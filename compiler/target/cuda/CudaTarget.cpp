//===- CudaTarget.cpp -----------------------------------------------------===//

#include "compiler/target/cuda/CudaTarget.h"
#include "compiler/target/ChipTable.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;

namespace kiln {
namespace {

using CudaTargetRow = ChipRow<CudaTarget>;

constexpr int64_t KiB = 1024;

// The one table of --cuda-target names and chip facts. PTX versions are the
// first PTX ISA release supporting each chip (PTX ISA manual, "Release
// notes"); threads per multiprocessor, shared memory per block and per
// multiprocessor from the CUDA C++ Programming Guide's "Technical
// Specifications per Compute Capability"; multiprocessor counts from each
// product's data sheet.
const CudaTargetRow kCudaTargets[] = {
    {{"sm_60", 50, 2048, 48 * KiB, 64 * KiB, 56},
     {{"pascal", 0}, {"p100", 56}}},
    {{"sm_61", 50, 2048, 48 * KiB, 96 * KiB, 30}, {}},
    {{"sm_62", 50, 2048, 48 * KiB, 64 * KiB, 2}, {}},
    {{"sm_70", 60, 2048, 96 * KiB, 96 * KiB, 80}, {{"volta", 0}, {"v100", 80}}},
    {{"sm_72", 61, 2048, 96 * KiB, 96 * KiB, 8}, {}},
    {{"sm_75", 63, 1024, 64 * KiB, 64 * KiB, 40}, {{"turing", 0}, {"t4", 40}}},
    {{"sm_80", 70, 2048, 163 * KiB, 164 * KiB, 108},
     {{"ampere", 0}, {"a100", 108}}},
    {{"sm_86", 71, 1536, 99 * KiB, 100 * KiB, 84},
     {{"a10", 72}, {"rtx3090", 82}}},
    {{"sm_87", 74, 1536, 163 * KiB, 164 * KiB, 16}, {}},
    {{"sm_89", 78, 1536, 99 * KiB, 100 * KiB, 142},
     {{"ada", 0}, {"l4", 58}, {"l40s", 142}, {"rtx4090", 128}}},
    {{"sm_90", 78, 2048, 227 * KiB, 228 * KiB, 132}, {}},
    {{"sm_90a", 80, 2048, 227 * KiB, 228 * KiB, 132},
     {{"hopper", 0}, {"h100", 132}, {"h200", 132}}},
    {{"sm_100", 86, 2048, 227 * KiB, 228 * KiB, 148}, {}},
    {{"sm_100a", 86, 2048, 227 * KiB, 228 * KiB, 148},
     {{"blackwell", 0}, {"b200", 148}}},
    {{"sm_120", 87, 1536, 99 * KiB, 100 * KiB, 170}, {}},
    {{"sm_120a", 87, 1536, 99 * KiB, 100 * KiB, 170}, {}},
};

// Matrix instructions by the compute capability that brought them (PTX ISA
// manual, "Warp-level matrix multiply-accumulate instructions" and
// "Asynchronous warpgroup level matrix multiply-accumulate"); `ArchOnly`
// ones need exactly that chip with its arch-specific suffix.
struct CudaMatrixRow {
  llvm::StringLiteral Name;
  unsigned Since;
  bool ArchOnly;
};

const CudaMatrixRow kCudaMatrixInstructions[] = {
    {"mma_sync.m16n8k16.f16.f32", 80, false},
    {"mma_sync.m16n8k16.bf16.f32", 80, false},
    {"mma_sync.m16n8k8.tf32.f32", 80, false},
    {"wgmma.m64n0k16.f16.f32", 90, true},
    {"wgmma.m64n0k16.bf16.f32", 90, true},
    {"wgmma.m64n0k8.tf32.f32", 90, true},
};

} // namespace

unsigned CudaTarget::computeCapability() const {
  unsigned value = 0;
  // "sm_" then digits, then an optional feature suffix ("a", "f").
  for (char ch : Chip.drop_front(3)) {
    if (ch < '0' || ch > '9')
      break;
    value = value * 10 + static_cast<unsigned>(ch - '0');
  }
  return value;
}

bool CudaTarget::isArchSpecific() const { return Chip.ends_with("a"); }

GpuTarget CudaTarget::gpuTarget() const {
  GpuTarget target;
  target.Vendor = "nvidia";
  target.Arch = Chip.str();
  target.SubgroupSize = 32;
  target.ProcessorCount = Multiprocessors;
  target.MaxWorkgroupThreads = 1024;
  target.MaxThreadsPerProcessor = MaxThreadsPerMultiprocessor;
  // Beyond 48 KiB a kernel must use dynamic shared memory and opt in.
  target.SharedMemoryBytes = 48 * KiB;
  target.MaxSharedMemoryBytes = MaxSharedMemoryBytes;
  target.ProcessorSharedMemoryBytes = MultiprocessorSharedMemoryBytes;
  unsigned cc = computeCapability();
  // Since CUDA 11, 1 KiB of a multiprocessor's shared memory per resident
  // block on sm_80 and later (the Programming Guide's "Shared Memory" for
  // compute capability 8.x and 9.0).
  target.ReservedSharedMemoryBytes = cc >= 80 ? KiB : 0;
  target.AsyncCopy = cc >= 80;
  target.Tma = cc >= 90;
  // griddepcontrol (PTX 7.8, sm_90).
  target.EarlyLaunch = cc >= 90;
  for (const CudaMatrixRow &row : kCudaMatrixInstructions) {
    bool available =
        row.ArchOnly ? cc == row.Since && isArchSpecific() : cc >= row.Since;
    if (available)
      target.MatrixInstructions.push_back(
          *GpuMatrixInstruction::parse(row.Name));
  }
  return target;
}

std::optional<CudaTarget> resolveCudaTarget(StringRef name) {
  return resolveChip<CudaTarget>(kCudaTargets, name,
                                 &CudaTarget::Multiprocessors);
}

std::vector<std::string> knownCudaTargetNames() {
  return chipNames<CudaTarget>(kCudaTargets);
}

std::string describeCudaTargetAliases() {
  return describeChipAliases<CudaTarget>(kCudaTargets);
}

void nameCudaToolkitForLibdevice() {
  for (const char *name : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (std::getenv(name))
      return;
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas)
    return;
  // <toolkit>/bin/ptxas, and libdevice in <toolkit>/nvvm/libdevice.
  llvm::SmallString<256> toolkit(*ptxas);
  llvm::sys::path::remove_filename(toolkit);
  llvm::sys::path::remove_filename(toolkit);
  llvm::SmallString<256> libdevice(toolkit);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice");
  if (llvm::sys::fs::is_directory(libdevice))
    ::setenv("CUDA_HOME", toolkit.c_str(), /*overwrite=*/0);
}

std::optional<std::string> findPtxas() {
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::ErrorOr<std::string> path =
          llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}))
    return *path;
  return std::nullopt;
}

PtxasResult assembleCubin(StringRef ptxas, StringRef ptx, StringRef chip) {
  PtxasResult result;
  SmallString<128> ptxPath, cubinPath, logPath;
  int ptxFd = -1;
  if (llvm::sys::fs::createTemporaryFile("kiln", "ptx", ptxFd, ptxPath) ||
      llvm::sys::fs::createTemporaryFile("kiln", "cubin", cubinPath) ||
      llvm::sys::fs::createTemporaryFile("kiln", "log", logPath)) {
    result.Error = "cannot create temporary files for ptxas";
    return result;
  }
  llvm::FileRemover removePtx(ptxPath), removeCubin(cubinPath),
      removeLog(logPath);
  {
    llvm::raw_fd_ostream out(ptxFd, /*shouldClose=*/true);
    out << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, ptxPath, "-o", cubinPath};
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                     redirects, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &error);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
      log = StringRef((*buffer)->getBuffer()).trim().str();
    result.UnsupportedChip =
        StringRef(log).contains("is not defined for option 'gpu-name'");
    result.Error =
        (ptxas + " " + arch + " failed" + (error.empty() ? "" : ": " + error) +
         (log.empty() ? "" : ": " + log))
            .str();
    return result;
  }
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath);
  if (!cubin) {
    result.Error = "cannot read the cubin ptxas wrote";
    return result;
  }
  StringRef bytes = (*cubin)->getBuffer();
  result.Cubin.assign(bytes.begin(), bytes.end());
  return result;
}

} // namespace kiln
