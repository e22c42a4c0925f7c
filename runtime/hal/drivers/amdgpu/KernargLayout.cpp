//===- KernargLayout.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/KernargLayout.h"

#include <cstring>
#include <optional>
#include <string_view>

namespace kiln::hal::amdgpu {

namespace {

struct HiddenKind {
  std::string_view ValueKind;
  HiddenArgument Kind;
  uint32_t Size;
};

// The hidden arguments of code object v5 that carry a value, with the size
// the ABI gives each.
constexpr HiddenKind kHiddenKinds[] = {
    {"hidden_block_count_x", HiddenArgument::BlockCountX, 4},
    {"hidden_block_count_y", HiddenArgument::BlockCountY, 4},
    {"hidden_block_count_z", HiddenArgument::BlockCountZ, 4},
    {"hidden_group_size_x", HiddenArgument::GroupSizeX, 2},
    {"hidden_group_size_y", HiddenArgument::GroupSizeY, 2},
    {"hidden_group_size_z", HiddenArgument::GroupSizeZ, 2},
    {"hidden_remainder_x", HiddenArgument::RemainderX, 2},
    {"hidden_remainder_y", HiddenArgument::RemainderY, 2},
    {"hidden_remainder_z", HiddenArgument::RemainderZ, 2},
    {"hidden_global_offset_x", HiddenArgument::GlobalOffsetX, 8},
    {"hidden_global_offset_y", HiddenArgument::GlobalOffsetY, 8},
    {"hidden_global_offset_z", HiddenArgument::GlobalOffsetZ, 8},
    {"hidden_grid_dims", HiddenArgument::GridDims, 2},
    {"hidden_dynamic_lds_size", HiddenArgument::DynamicLdsSize, 4},
};

std::optional<HiddenKind> hiddenKind(std::string_view valueKind) {
  for (const HiddenKind &kind : kHiddenKinds)
    if (kind.ValueKind == valueKind)
      return kind;
  return std::nullopt;
}

// The value a hidden argument gets for one dispatch. Kiln's grids are whole
// workgroups, so nothing remains and the offsets are 0.
uint64_t hiddenValue(HiddenArgument kind, const KernargValues &values) {
  switch (kind) {
  case HiddenArgument::BlockCountX:
  case HiddenArgument::BlockCountY:
  case HiddenArgument::BlockCountZ:
    return values.Workgroups[static_cast<int>(kind) -
                             static_cast<int>(HiddenArgument::BlockCountX)];
  case HiddenArgument::GroupSizeX:
  case HiddenArgument::GroupSizeY:
  case HiddenArgument::GroupSizeZ:
    return values.WorkgroupSize[static_cast<int>(kind) -
                                static_cast<int>(HiddenArgument::GroupSizeX)];
  case HiddenArgument::GridDims: {
    uint64_t dims = 1;
    for (int i = 0; i < 3; ++i)
      if (values.Workgroups[i] > 1 || values.WorkgroupSize[i] > 1)
        dims = i + 1;
    return dims;
  }
  case HiddenArgument::DynamicLdsSize:
    return values.DynamicLdsBytes;
  default:
    return 0;
  }
}

// Little-endian, `size` bytes of `value`, as the GPU reads them.
void store(std::span<uint8_t> segment, uint32_t offset, uint32_t size,
           uint64_t value) {
  for (uint32_t i = 0; i < size; ++i)
    segment[offset + i] = static_cast<uint8_t>(value >> (8 * i));
}

} // namespace

StatusOr<KernargLayout> KernargLayout::create(const amd::KernelMetadata &kernel,
                                              uint32_t bindingCount,
                                              uint32_t pushConstantCount) {
  auto bad = [&](auto... why) {
    return KILN_ERROR(InvalidArgument, "kernel '", kernel.Name, "': ", why...);
  };
  KernargLayout layout;
  layout.Size = kernel.KernargSegmentSize;
  layout.Alignment = kernel.KernargSegmentAlign;
  uint32_t explicitSeen = 0;
  // Arguments are in offset order (CodeObjectMetadata sorts them).
  for (const amd::KernelArgument &argument : kernel.Arguments) {
    const std::string &kind = argument.ValueKind;
    if (kind == "global_buffer" || kind == "by_value") {
      bool binding = explicitSeen < bindingCount;
      if (explicitSeen >= bindingCount + pushConstantCount)
        return bad("more explicit arguments than the entry point's ",
                   bindingCount, " bindings and ", pushConstantCount,
                   " push constants");
      if (binding && (kind != "global_buffer" || argument.Size != 8))
        return bad("argument ", explicitSeen, " is ", kind, " of ",
                   argument.Size, " bytes, not a binding's 8-byte pointer");
      if (!binding && (kind != "by_value" || argument.Size != 4))
        return bad("argument ", explicitSeen, " is ", kind, " of ",
                   argument.Size, " bytes, not a 4-byte push constant");
      (binding ? layout.BindingOffsets : layout.PushConstantOffsets)
          .push_back(argument.Offset);
      ++explicitSeen;
      continue;
    }
    if (!kind.starts_with("hidden_"))
      return bad("argument kind '", kind, "' is not supported");
    if (std::optional<HiddenKind> hidden = hiddenKind(kind)) {
      if (argument.Size != hidden->Size)
        return bad(kind, " has ", argument.Size, " bytes, not ", hidden->Size);
      layout.HiddenArguments.push_back(
          {hidden->Kind, argument.Offset, argument.Size});
    }
    // Other hidden arguments stay zero.
  }
  if (explicitSeen != bindingCount + pushConstantCount)
    return bad(explicitSeen, " explicit arguments, the entry point has ",
               bindingCount, " bindings and ", pushConstantCount,
               " push constants");
  return layout;
}

Status KernargLayout::pack(const KernargValues &values,
                           std::span<uint8_t> segment) const {
  if (segment.size() < Size)
    return KILN_ERROR(InvalidArgument, "kernarg segment of ", segment.size(),
                      " bytes, the kernel needs ", Size);
  if (values.Bindings.size() != BindingOffsets.size() ||
      values.PushConstants.size() != PushConstantOffsets.size())
    return KILN_ERROR(InvalidArgument, values.Bindings.size(), " bindings and ",
                      values.PushConstants.size(),
                      " push constants for a kernel of ", BindingOffsets.size(),
                      " and ", PushConstantOffsets.size());
  std::memset(segment.data(), 0, Size);
  for (size_t i = 0; i < BindingOffsets.size(); ++i)
    store(segment, BindingOffsets[i], 8, values.Bindings[i]);
  for (size_t i = 0; i < PushConstantOffsets.size(); ++i)
    store(segment, PushConstantOffsets[i], 4, values.PushConstants[i]);
  for (const Hidden &hidden : HiddenArguments)
    store(segment, hidden.Offset, hidden.Size,
          hiddenValue(hidden.Kind, values));
  return Status();
}

} // namespace kiln::hal::amdgpu
