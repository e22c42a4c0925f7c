//===- AmdCodeObjectFuzzer.cpp - Code objects through the AMD checks ------===//
//
// An input is a whole code object, as a module's amdgpu-hsaco variant
// carries it. It is read as the hip and amdgpu drivers read it before any
// vendor loader sees it (amd::readCodeObject against the target its own
// metadata names, so inputs get past the processor check), and each kernel
// is planned for an entry point taking the explicit arguments the metadata
// lists (planKernels) and its kernargs packed. Refusals must be one line;
// what is accepted must pack within the segment it declares.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzCheck.h"
#include "runtime/hal/drivers/amd/CodeObject.h"
#include "runtime/hal/drivers/amdgpu/KernelPlan.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace kiln;
using namespace kiln::hal;

void checkOneLine(const Status &status) {
  KILN_FUZZ_CHECK(!status.ok(), "a refusal is an error");
  KILN_FUZZ_CHECK(status.message().find('\n') == std::string::npos,
                  "errors are one line");
}

// An entry point per kernel, taking the explicit arguments the kernel's
// metadata lists: pointers while they last, then 32-bit values.
ExecutableSpec specFor(const amd::CodeObject &object,
                       std::span<const uint8_t> image) {
  ExecutableSpec spec;
  spec.Name = "fuzzed";
  spec.Format = "amdgpu-hsaco";
  spec.Image = image;
  for (const amd::KernelMetadata &kernel : object.Metadata.Kernels) {
    EntryPointSpec entry;
    entry.Name = kernel.Name;
    for (const amd::KernelArgument &argument : kernel.Arguments) {
      if (argument.ValueKind == "global_buffer" && entry.PushConstantCount == 0)
        ++entry.BindingCount;
      else if (argument.ValueKind == "by_value")
        ++entry.PushConstantCount;
    }
    spec.EntryPoints.push_back(std::move(entry));
  }
  return spec;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::span<const uint8_t> image(data, size);
  auto elf = amd::readAmdElf(image);
  if (!elf.ok()) {
    checkOneLine(elf.status());
    return 0;
  }
  auto metadata = amd::parseCodeObjectMetadata(elf->Metadata);
  if (!metadata.ok()) {
    checkOneLine(metadata.status());
    return 0;
  }
  std::string target(metadata->targetId());
  auto object = amd::readCodeObject(image, target);
  if (!object.ok()) {
    checkOneLine(object.status());
    return 0;
  }
  ExecutableSpec spec = specFor(*object, image);
  auto plans = amdgpu::planKernels(*object, spec, 65536);
  if (!plans.ok()) {
    checkOneLine(plans.status());
    return 0;
  }
  for (size_t i = 0; i < plans->size(); ++i) {
    const amdgpu::KernargLayout &layout = (*plans)[i].Kernargs;
    const EntryPointSpec &entry = spec.EntryPoints[i];
    std::vector<uint64_t> bindings(entry.BindingCount, 0x1000);
    std::vector<uint32_t> push(entry.PushConstantCount, 7);
    amdgpu::KernargValues values;
    values.Bindings = bindings;
    values.PushConstants = push;
    // Exactly the declared size: ASan sees any write past it.
    std::vector<uint8_t> segment(layout.size());
    KILN_FUZZ_CHECK(layout.pack(values, segment).ok(),
                    "a planned kernel's kernargs pack");
  }
  return 0;
}
