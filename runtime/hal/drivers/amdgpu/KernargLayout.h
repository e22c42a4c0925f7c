//===- KernargLayout.h - A kernel's arguments, laid out from its metadata -===//
//
// Kiln's GPU entry ABI (GpuExecutable.h) passes one pointer per binding,
// then one 32-bit word per push constant. On AMD those are the kernel's
// explicit arguments (`global_buffer` of 8 bytes, then `by_value` of 4),
// and code object v5 adds hidden arguments after them that the runtime
// fills: workgroup counts, workgroup sizes, remainders, global offsets,
// grid dimensions and the dynamic LDS size. Where each goes comes from the
// code object's metadata (CodeObjectMetadata.h), never from assumptions;
// hidden arguments Kiln does not provide (hostcall buffer, heap, queue
// pointers) are zero, which the device libraries read as absent.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGLAYOUT_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGLAYOUT_H

#include "runtime/hal/drivers/amd/CodeObjectMetadata.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::hal::amdgpu {

/// The hidden arguments with a value; the rest are zero.
enum class HiddenArgument : uint8_t {
  BlockCountX,
  BlockCountY,
  BlockCountZ,
  GroupSizeX,
  GroupSizeY,
  GroupSizeZ,
  RemainderX,
  RemainderY,
  RemainderZ,
  GlobalOffsetX,
  GlobalOffsetY,
  GlobalOffsetZ,
  GridDims,
  DynamicLdsSize,
};

/// What one dispatch puts into the segment.
struct KernargValues {
  std::span<const uint64_t> Bindings;
  std::span<const uint32_t> PushConstants;
  std::array<uint32_t, 3> Workgroups = {1, 1, 1};
  std::array<uint32_t, 3> WorkgroupSize = {1, 1, 1};
  uint32_t DynamicLdsBytes = 0;
};

class KernargLayout {
public:
  /// Checks `kernel`'s explicit arguments against the entry point's
  /// `bindingCount` and `pushConstantCount` and places the hidden ones;
  /// InvalidArgument naming the kernel and the argument otherwise (an
  /// image, sampler or pipe argument, a size that is not the ABI's).
  static StatusOr<KernargLayout> create(const amd::KernelMetadata &kernel,
                                        uint32_t bindingCount,
                                        uint32_t pushConstantCount);

  uint32_t size() const { return Size; }
  uint32_t alignment() const { return Alignment; }

  /// Writes the segment into `segment` (at least size() bytes): zeros, the
  /// bindings and push constants the layout expects (counts checked), and
  /// the hidden arguments.
  Status pack(const KernargValues &values, std::span<uint8_t> segment) const;

private:
  struct Hidden {
    HiddenArgument Kind;
    uint32_t Offset;
    uint32_t Size;
  };

  uint32_t Size = 0;
  uint32_t Alignment = 1;
  std::vector<uint32_t> BindingOffsets;
  std::vector<uint32_t> PushConstantOffsets;
  std::vector<Hidden> HiddenArguments;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_KERNARGLAYOUT_H
