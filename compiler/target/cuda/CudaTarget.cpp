//===- CudaTarget.cpp -----------------------------------------------------===//

#include "compiler/target/cuda/CudaTarget.h"
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

struct CudaTargetRow {
  CudaTarget Target;
  /// Code and product names that mean this chip.
  std::initializer_list<llvm::StringLiteral> Aliases;
};

// The one table of --cuda-target names. PTX versions are the first PTX ISA
// release supporting each chip (PTX ISA manual, "Release notes").
const CudaTargetRow kCudaTargets[] = {
    {{"sm_60", 50}, {"pascal", "p100"}},
    {{"sm_61", 50}, {}},
    {{"sm_62", 50}, {}},
    {{"sm_70", 60}, {"volta", "v100"}},
    {{"sm_72", 61}, {}},
    {{"sm_75", 63}, {"turing", "t4"}},
    {{"sm_80", 70}, {"ampere", "a100"}},
    {{"sm_86", 71}, {"a10", "rtx3090"}},
    {{"sm_87", 74}, {}},
    {{"sm_89", 78}, {"ada", "l4", "l40s", "rtx4090"}},
    {{"sm_90", 78}, {}},
    {{"sm_90a", 80}, {"hopper", "h100", "h200"}},
    {{"sm_100", 86}, {}},
    {{"sm_100a", 86}, {"blackwell", "b200"}},
    {{"sm_120", 87}, {}},
    {{"sm_120a", 87}, {}},
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

std::optional<CudaTarget> resolveCudaTarget(StringRef name) {
  for (const CudaTargetRow &row : kCudaTargets)
    if (row.Target.Chip == name || llvm::is_contained(row.Aliases, name))
      return row.Target;
  return std::nullopt;
}

std::vector<std::string> knownCudaTargetNames() {
  std::vector<std::string> names;
  for (const CudaTargetRow &row : kCudaTargets)
    names.push_back(row.Target.Chip.str());
  for (const CudaTargetRow &row : kCudaTargets)
    for (StringRef alias : row.Aliases)
      names.push_back(alias.str());
  return names;
}

std::string describeCudaTargetAliases() {
  std::string text;
  for (const CudaTargetRow &row : kCudaTargets) {
    if (row.Aliases.size() == 0)
      continue;
    if (!text.empty())
      text += "; ";
    text += llvm::join(row.Aliases, ", ") + " -> " + row.Target.Chip.str();
  }
  return text;
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
