//===- CodeObjectMetadata.h - What an AMD code object says of its kernels -===//
//
// Code object v5/v6 metadata (the NT_AMDGPU_METADATA note, a msgpack map
// with `amdhsa.version`, `amdhsa.target` and `amdhsa.kernels`), reduced to
// what the drivers use: each kernel's descriptor symbol, kernarg segment
// (size, alignment, every argument's kind, offset and size), LDS and
// scratch sizes, wavefront size, register counts and workgroup limit. The
// msgpack is decoded by msgpack-c (libmsgpack-cxx-dev) under limits on
// counts, string lengths and nesting, so a hostile note cannot make it
// allocate without bound; every number is range-checked as it is read.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECTMETADATA_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECTMETADATA_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::hal::amd {

/// One kernel argument: `.value_kind` ("global_buffer", "by_value",
/// "hidden_block_count_x", ...), where it lies in the kernarg segment.
struct KernelArgument {
  std::string ValueKind;
  uint32_t Offset = 0;
  uint32_t Size = 0;
};

struct KernelMetadata {
  std::string Name;
  /// The kernel descriptor's symbol, "<name>.kd".
  std::string Symbol;
  uint32_t KernargSegmentSize = 0;
  uint32_t KernargSegmentAlign = 0;
  /// Static LDS bytes.
  uint32_t GroupSegmentFixedSize = 0;
  /// Scratch bytes per work-item.
  uint32_t PrivateSegmentFixedSize = 0;
  uint32_t WavefrontSize = 0;
  uint32_t SgprCount = 0;
  uint32_t VgprCount = 0;
  uint32_t MaxFlatWorkgroupSize = 0;
  bool UsesDynamicStack = false;
  /// In offset order, each inside the segment.
  std::vector<KernelArgument> Arguments;
};

struct CodeObjectMetadata {
  uint32_t VersionMajor = 0;
  uint32_t VersionMinor = 0;
  /// "amdgcn-amd-amdhsa--gfx942" (features may follow: ":xnack-").
  std::string Target;
  std::vector<KernelMetadata> Kernels;

  /// The target id after the triple: "gfx942", "gfx90a:xnack-".
  std::string_view targetId() const;
  /// Null when there is no kernel of that name.
  const KernelMetadata *kernel(std::string_view name) const;
};

/// Decodes the note's payload; InvalidArgument on one line naming what is
/// wrong (and the kernel) for anything malformed, missing or out of range.
StatusOr<CodeObjectMetadata>
parseCodeObjectMetadata(std::span<const uint8_t> note);

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECTMETADATA_H
