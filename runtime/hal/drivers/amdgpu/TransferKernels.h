//===- TransferKernels.h - The fills and copies the amdgpu driver runs ----===//
//
// AQL has no fill or copy packet (HIP fills and copies with kernels of its
// own too), so the device runs the kernels of kernels/TransferKernels.mlir,
// built at build time for every processor of the compiler's AMD table and
// embedded here: the runtime links no compiler and reads no file for them.
// A build without the compiler (KILN_BUILD_COMPILER=OFF) embeds none, and
// devices then refuse to open, saying so.
//
// A fill or copy is one dispatch of 256-work-item workgroups, each
// work-item striding over the grid: 16-byte elements where the addresses
// and the length are multiples of 16, 32-bit words where they are
// multiples of 4, else bytes. Planning it is pure.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TRANSFERKERNELS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TRANSFERKERNELS_H

#include "runtime/base/Status.h"
#include "runtime/hal/Executable.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal::amdgpu {

/// The entry points, in transferKernelSpec's order.
enum class TransferKernel : uint32_t {
  FillX16,
  FillX4,
  FillX1,
  CopyX16,
  CopyX4,
  CopyX1
};

inline constexpr uint32_t kTransferWorkgroupSize = 256;
/// The most workgroups a transfer uses: enough to fill any GPU, few enough
/// that the grid's work-items fit 32 bits.
inline constexpr uint32_t kMaxTransferWorkgroups = 4096;

/// The processors with embedded kernels (none without the compiler).
std::vector<std::string> transferKernelProcessors();
/// The code object for `processor` ("gfx942"); NotFound naming those there
/// are.
StatusOr<std::span<const uint8_t>>
transferKernelImage(std::string_view processor);
/// The spec to load `image` with: its entry points' bindings, push
/// constants and workgroup size.
ExecutableSpec transferKernelSpec(std::string_view processor,
                                  std::span<const uint8_t> image);

/// One fill or copy as a dispatch.
struct TransferDispatch {
  TransferKernel Kernel;
  uint32_t Workgroups;
  /// Target (fill), or source and target (copy).
  std::vector<uint64_t> Bindings;
  /// Element count (low, high half), the grid's work-items, and for a fill
  /// the pattern repeated to 32 bits from the first byte.
  std::vector<uint32_t> PushConstants;
};

/// `length` bytes at `target` set to `pattern` (`patternLength` 1, 2 or 4
/// bytes, as CommandBuffer::fill checked).
TransferDispatch planFill(uint64_t target, uint64_t length, uint32_t pattern,
                          uint8_t patternLength);
/// `length` bytes from `source` to `target`.
TransferDispatch planCopy(uint64_t source, uint64_t target, uint64_t length);

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TRANSFERKERNELS_H
