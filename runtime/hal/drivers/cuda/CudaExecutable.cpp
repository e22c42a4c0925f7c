//===- CudaExecutable.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaExecutable.h"

#include <charconv>
#include <cstdint>
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

// The largest dynamic shared memory a kernel may use without opting in.
constexpr int kDefaultDynamicSharedBytes = 48 * 1024;

} // namespace

StatusOr<CudaDeviceLimits> CudaDeviceLimits::query(const CudaSymbols &symbols,
                                                   CUdevice device) {
  CudaDeviceLimits limits;
  auto read = [&](CUdevice_attribute which, int &value) {
    return KILN_CUDA_CALL(symbols, cuDeviceGetAttribute, &value, which, device);
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
    KILN_RETURN_IF_ERROR(read(block[i], limits.MaxBlockDim[i]));
    KILN_RETURN_IF_ERROR(read(grid[i], limits.MaxGridDim[i]));
  }
  KILN_RETURN_IF_ERROR(
      read(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
           limits.MaxSharedMemoryOptIn));
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

StatusOr<std::shared_ptr<CudaExecutable>>
CudaExecutable::load(std::shared_ptr<CudaContext> context,
                     const CudaDeviceLimits &limits,
                     const ExecutableSpec &spec) {
  if (spec.Format == "cuda-ptx" && spec.Image.back() != 0)
    return KILN_ERROR(InvalidArgument, "executable '", spec.Name,
                      "': PTX image is not NUL-terminated");
  const CudaSymbols &symbols = context->symbols();
  CudaContext::Scope scope(*context);
  // The JIT's own message says what in the PTX it rejected.
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t{sizeof(log)})};
  CUmodule module = nullptr;
  Status loaded = KILN_CUDA_CALL(symbols, cuModuleLoadDataEx, &module,
                                 spec.Image.data(), 2, options, values);
  if (!loaded.ok())
    return loaded.annotate(strCat("loading ", spec.Format, " for ", spec.Target,
                                  log[0] ? ": " : "", log));
  std::shared_ptr<CudaExecutable> executable(
      new CudaExecutable(spec, std::move(context), module));
  for (const EntryPointSpec &entry : spec.EntryPoints) {
    CUfunction function = nullptr;
    Status found = KILN_CUDA_CALL(symbols, cuModuleGetFunction, &function,
                                  module, entry.Name.c_str());
    // CUDA's message does not say which entry point is missing.
    if (!found.ok())
      return found.annotate(
          strCat("entry point '", entry.Name, "' of ", spec.Name));
    auto attribute = [&](CUfunction_attribute which) -> StatusOr<int> {
      int value = 0;
      KILN_RETURN_IF_ERROR(
          KILN_CUDA_CALL(symbols, cuFuncGetAttribute, &value, which, function));
      return value;
    };
    // Registers can lower a kernel's limit below the device's.
    KILN_ASSIGN_OR_RETURN(int maxThreads,
                          attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i) {
      threads *= entry.WorkgroupSize[i];
      if (entry.WorkgroupSize[i] > static_cast<uint32_t>(limits.MaxBlockDim[i]))
        return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                          "': workgroup size ", entry.WorkgroupSize[i],
                          " in dimension ", i, " exceeds the device's ",
                          limits.MaxBlockDim[i]);
    }
    if (threads > static_cast<uint64_t>(maxThreads))
      return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                        "': ", threads,
                        " threads per workgroup, the kernel "
                        "allows ",
                        maxThreads);
    KILN_ASSIGN_OR_RETURN(int staticShared,
                          attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    uint64_t shared = uint64_t{entry.SharedMemoryBytes} + staticShared;
    if (shared > static_cast<uint64_t>(limits.MaxSharedMemoryOptIn))
      return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                        "': ", shared,
                        " bytes of shared memory, the device "
                        "allows ",
                        limits.MaxSharedMemoryOptIn);
    if (entry.SharedMemoryBytes > kDefaultDynamicSharedBytes)
      KILN_RETURN_IF_ERROR(
          KILN_CUDA_CALL(symbols, cuFuncSetAttribute, function,
                         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                         static_cast<int>(entry.SharedMemoryBytes)));
    executable->Functions.push_back(function);
  }
  return executable;
}

CudaExecutable::~CudaExecutable() {
  CudaContext::Scope scope(*Context);
  // Nothing to report to; unloading fails only for a bad module.
  Context->symbols().cuModuleUnload(Module);
}

} // namespace kiln::hal::cuda
