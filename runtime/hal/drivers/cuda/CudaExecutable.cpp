//===- CudaExecutable.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaExecutable.h"

#include "runtime/hal/drivers/cuda/CudaStatus.h"

#include <charconv>
#include <optional>

namespace kiln::hal::cuda {
namespace {

struct Chip {
  int Major;
  int Minor;
  bool ArchSpecific; // sm_90a: features only this chip has
};

// "sm_90" -> 9.0, "sm_120a" -> 12.0 arch-specific; nullopt otherwise.
std::optional<Chip> parseChip(std::string_view target) {
  if (!target.starts_with("sm_"))
    return std::nullopt;
  target.remove_prefix(3);
  bool archSpecific = target.ends_with('a');
  if (archSpecific)
    target.remove_suffix(1);
  int number = 0;
  auto [end, error] =
      std::from_chars(target.data(), target.data() + target.size(), number);
  if (error != std::errc() || end != target.data() + target.size() ||
      target.size() < 2)
    return std::nullopt;
  return Chip{number / 10, number % 10, archSpecific};
}

} // namespace

StatusOr<CudaDeviceLimits> CudaDeviceLimits::query(const CudaSymbols &symbols,
                                                   CUdevice device) {
  CudaDeviceLimits limits;
  auto read = [&](CUdevice_attribute which, auto &value) {
    int raw = 0;
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(symbols, cuDeviceGetAttribute, &raw, which, device));
    value = raw;
    return Status();
  };
  KILN_RETURN_IF_ERROR(
      read(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, limits.ComputeMajor));
  KILN_RETURN_IF_ERROR(
      read(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, limits.ComputeMinor));
  const CUdevice_attribute block[] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  const CUdevice_attribute grid[] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                     CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int i = 0; i < 3; ++i) {
    KILN_RETURN_IF_ERROR(read(block[i], limits.Kernel.MaxBlockDim[i]));
    KILN_RETURN_IF_ERROR(read(grid[i], limits.Kernel.MaxGridDim[i]));
  }
  KILN_RETURN_IF_ERROR(
      read(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
           limits.Kernel.MaxSharedMemory));
  return limits;
}

bool cudaSupportsExecutable(std::string_view format, std::string_view target,
                            int computeMajor, int computeMinor) {
  std::optional<Chip> chip = parseChip(target);
  if (!chip)
    return false;
  bool exact = chip->Major == computeMajor && chip->Minor == computeMinor;
  if (format == "cuda-cubin")
    return exact;
  if (format == "cuda-ptx")
    return chip->ArchSpecific ? exact
                              : chip->Major * 10 + chip->Minor <=
                                    computeMajor * 10 + computeMinor;
  return false;
}

} // namespace kiln::hal::cuda
