//===- AmdElf.h - The ELF container of an AMD code object -----------------===//
//
// An hsaco is a little-endian ELF64 shared object for EM_AMDGPU with the
// HSA OS ABI. The runtime needs three things from it before any vendor
// loader sees the bytes: that it is one (for code object v5 or v6), its
// metadata note (NT_AMDGPU_METADATA, msgpack; CodeObjectMetadata.h) and
// the names of its dynamic symbols (each kernel has a `<name>.kd`
// descriptor). Module files are untrusted, so every offset, size and count
// is checked against the image before it is read, and nothing is allocated
// from a size the file gives without that check.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_AMDELF_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_AMDELF_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::hal::amd {

/// e_ident[EI_ABIVERSION] of the code object versions Kiln loads: v5
/// (what the compiler writes; its hidden kernel arguments are the ones
/// KernargLayout fills) and v6 (v5's ABI, plus generic processors).
inline constexpr uint8_t kCodeObjectV5 = 3;
inline constexpr uint8_t kCodeObjectV6 = 4;

struct AmdElf {
  uint8_t AbiVersion = 0;
  /// e_flags: the processor (EF_AMDGPU_MACH, low byte) and feature bits.
  uint32_t Flags = 0;
  /// The NT_AMDGPU_METADATA note's payload, inside the image.
  std::span<const uint8_t> Metadata;
  /// Names of the dynamic symbols (.dynsym), as the loader sees them.
  std::vector<std::string> DynamicSymbols;
};

/// Reads `image`; InvalidArgument on one line for anything that is not a
/// well-formed AMD code object v5/v6 with exactly one metadata note.
StatusOr<AmdElf> readAmdElf(std::span<const uint8_t> image);

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_AMDELF_H
