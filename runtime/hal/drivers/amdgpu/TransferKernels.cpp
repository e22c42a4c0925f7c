//===- TransferKernels.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/TransferKernels.h"

#include "runtime/hal/drivers/amd/AmdTarget.h"

#include <algorithm>

namespace kiln::hal::amdgpu {

namespace {

struct EmbeddedImage {
  std::string_view Processor;
  std::vector<uint8_t> Image;
};

const std::vector<EmbeddedImage> &embeddedImages() {
  static const std::vector<EmbeddedImage> images = {
#ifdef KILN_AMDGPU_TRANSFER_KERNELS_INC
#include KILN_AMDGPU_TRANSFER_KERNELS_INC
#endif
  };
  return images;
}

// The grid for `count` elements: a work-item each, up to the cap.
uint32_t workgroupsFor(uint64_t count) {
  uint64_t groups =
      (count + kTransferWorkgroupSize - 1) / kTransferWorkgroupSize;
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(groups, 1, kMaxTransferWorkgroups));
}

TransferDispatch plan(TransferKernel kernel, std::vector<uint64_t> bindings,
                      uint64_t count) {
  uint32_t workgroups = workgroupsFor(count);
  return {kernel,
          workgroups,
          std::move(bindings),
          {static_cast<uint32_t>(count), static_cast<uint32_t>(count >> 32),
           workgroups * kTransferWorkgroupSize}};
}

bool wordAligned(uint64_t value) { return value % 4 == 0; }

} // namespace

std::vector<std::string> transferKernelProcessors() {
  std::vector<std::string> names;
  for (const EmbeddedImage &image : embeddedImages())
    names.emplace_back(image.Processor);
  return names;
}

StatusOr<std::span<const uint8_t>>
transferKernelImage(std::string_view processor) {
  for (const EmbeddedImage &image : embeddedImages())
    if (image.Processor == processor)
      return std::span<const uint8_t>(image.Image);
  std::string known;
  for (const std::string &name : transferKernelProcessors())
    known += (known.empty() ? "" : ", ") + name;
  if (known.empty())
    return KILN_ERROR(NotFound,
                      "this build of Kiln has no amdgpu fill and "
                      "copy kernels, for ",
                      processor,
                      " or any GPU (it was built without the compiler, "
                      "which makes them)");
  return KILN_ERROR(NotFound,
                    "the amdgpu driver has no fill and copy kernels "
                    "for ",
                    processor, " (it has them for ", known, ")");
}

ExecutableSpec transferKernelSpec(std::string_view processor,
                                  std::span<const uint8_t> image) {
  auto entry = [](const char *name, uint32_t bindings, uint32_t pushConstants) {
    EntryPointSpec spec;
    spec.Name = name;
    spec.WorkgroupSize = {kTransferWorkgroupSize, 1, 1};
    spec.BindingCount = bindings;
    spec.PushConstantCount = pushConstants;
    return spec;
  };
  ExecutableSpec spec;
  spec.Name = "amdgpu_transfer_kernels";
  spec.Format = std::string(amd::kHsacoFormat);
  spec.Target = std::string(processor);
  spec.Image = image;
  // TransferKernel's order.
  spec.EntryPoints = {entry("fill_x4", 1, 4), entry("fill_x1", 1, 4),
                      entry("copy_x4", 2, 3), entry("copy_x1", 2, 3)};
  return spec;
}

TransferDispatch planFill(uint64_t target, uint64_t length, uint32_t pattern,
                          uint8_t patternLength) {
  // The pattern from the fill's first byte on, as a 32-bit word.
  uint32_t word = pattern;
  if (patternLength == 1)
    word = (pattern & 0xff) * 0x01010101u;
  else if (patternLength == 2)
    word = (pattern & 0xffff) * 0x00010001u;
  bool words = wordAligned(target) && wordAligned(length);
  TransferDispatch dispatch =
      plan(words ? TransferKernel::FillX4 : TransferKernel::FillX1, {target},
           words ? length / 4 : length);
  dispatch.PushConstants.push_back(word);
  return dispatch;
}

TransferDispatch planCopy(uint64_t source, uint64_t target, uint64_t length) {
  bool words =
      wordAligned(source) && wordAligned(target) && wordAligned(length);
  return plan(words ? TransferKernel::CopyX4 : TransferKernel::CopyX1,
              {source, target}, words ? length / 4 : length);
}

} // namespace kiln::hal::amdgpu
