//===- TransferKernels.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/TransferKernels.h"

#include "runtime/hal/drivers/amd/AmdTarget.h"

#include <algorithm>
#include <initializer_list>

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

// The widest element (16, 4 or 1 bytes) every value is a multiple of.
uint64_t elementBytes(std::initializer_list<uint64_t> values) {
  uint64_t all = 0;
  for (uint64_t value : values)
    all |= value;
  return all % 16 == 0 ? 16 : all % 4 == 0 ? 4 : 1;
}

// The kernel of `widest`'s family (x16, x4, x1 in that order) for
// elements of `bytes`.
TransferKernel kernelFor(TransferKernel widest, uint64_t bytes) {
  uint32_t narrower = bytes == 16 ? 0 : bytes == 4 ? 1 : 2;
  return static_cast<TransferKernel>(static_cast<uint32_t>(widest) + narrower);
}

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
  spec.EntryPoints = {entry("fill_x16", 1, 4), entry("fill_x4", 1, 4),
                      entry("fill_x1", 1, 4),  entry("copy_x16", 2, 3),
                      entry("copy_x4", 2, 3),  entry("copy_x1", 2, 3)};
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
  uint64_t bytes = elementBytes({target, length});
  TransferDispatch dispatch =
      plan(kernelFor(TransferKernel::FillX16, bytes), {target}, length / bytes);
  dispatch.PushConstants.push_back(word);
  return dispatch;
}

TransferDispatch planCopy(uint64_t source, uint64_t target, uint64_t length) {
  uint64_t bytes = elementBytes({source, target, length});
  return plan(kernelFor(TransferKernel::CopyX16, bytes), {source, target},
              length / bytes);
}

} // namespace kiln::hal::amdgpu
