//===- Verifier.h - Structural and semantic checks of a module file -------===//
//
// Everything downstream of loading (instantiation, step recording, dispatch)
// trusts a verified module without re-checking it, so this is the one place
// where a truncated, corrupt or hostile file must be turned into an error.
//
// Guarantees after verifyModule() returns OK (the buffer must not change):
//  - the file ends with a matching checksum footer (ModuleChecksum.h), so
//    truncation and accidental corruption anywhere are caught;
//  - the flatbuffer (at the start of the file, at most 2 GiB) is well
//    formed, carries the "KILN" identifier and version 1.x; every vector of
//    8-byte elements (shapes, bindings) is 8-byte aligned relative to the
//    buffer start, images 16-byte and a constants vector (1.0/1.1) 64-byte;
//  - a constants segment (1.2) has a power-of-two alignment from 64 to
//    65536 that its offset is a multiple of, ends before the footer
//    (overflow-checked) and starts after every byte of the flatbuffer (the
//    flatbuffer verifies within the bytes before it); a module has either
//    the vector or the segment, not both;
//  - function names are non-empty and unique; every TensorType has a known
//    element type, rank <= 16, dims >= 0 and a byte size <= 2^48;
//  - arena_size <= 2^48; every step has a kind (dispatch, copy or fill);
//  - every executable has >= 1 variant; the variants agree on entry point
//    count, names, binding counts and push constant counts; every entry point
//    has 3 workgroup_size and 3 workgroup_count values, each >= 1, and each of
//    the two products is <= 2^32;
//  - a dispatch names an existing executable and entry point, with exactly
//    binding_count bindings and push_constant_count push constants;
//  - every BufferRange has a valid storage kind and index, and
//    offset + length fits in the tensor, the constants or the arena;
//  - fills have a 1, 2 or 4 byte pattern dividing the target length; copies
//    have equal lengths and do not overlap; copies and fills never write to
//    constants;
//  - a function with a shape program (1.3, dynamic shapes) has a
//    well-formed one (schema/ShapeProgram.h: known opcodes, constants >= 0,
//    operands naming earlier nodes, leaves naming existing input
//    dimensions) and every node reference (checks, arena, output dimension,
//    binding and push constant nodes) names one of its nodes; grid programs
//    read existing push constant words; -1 dimensions appear only with a
//    program. Such a function's ranges and step dependencies depend on the
//    call's shapes and are checked per call (CallShapes.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_VERIFIER_H
#define KILN_RUNTIME_MODULE_VERIFIER_H

#include "runtime/base/Status.h"
#include "schema/ModuleChecksum.h"
#include "schema/module_generated.h"

#include <cstddef>
#include <cstdint>

namespace kiln::module {

/// The module major version this runtime reads; any minor version is accepted
/// because minor versions only add fields an older reader may ignore.
inline constexpr uint16_t kModuleVersionMajor = 1;

/// Upper bound on any byte size a module may describe (tensors, arena,
/// constants) and on a module file's size.
inline constexpr uint64_t kMaxModuleByteSize = uint64_t(1) << 48;

/// Largest tensor rank a module may declare.
inline constexpr size_t kMaxTensorRank = 16;

/// The alignment of a constants vector (1.0/1.1) in the file, and the least
/// alignment of a constants segment: constants are usable in place when the
/// module buffer is this aligned.
inline constexpr size_t kConstantsAlignment = 64;

/// The largest alignment a constants segment may declare.
inline constexpr size_t kMaxConstantsAlignment = 65536;

/// The bytes at the start of a module that checkModuleEnvelope reads: the
/// flatbuffer's root offset and its "KILN" file identifier.
inline constexpr size_t kModuleHeadSize = 8;

/// The smallest size a module file can have: its head and checksum footer.
inline constexpr size_t kMinModuleSize =
    kModuleHeadSize + schema::kChecksumFooterSize;

/// Checks what the first and last bytes of a `size`-byte file say: that it
/// is not empty, too small or larger than 2^48 bytes, carries the "KILN"
/// identifier and ends with a checksum footer. `head` is the first
/// kModuleHeadSize bytes and `footer` the last kChecksumFooterSize bytes;
/// neither is read when `size` is below kMinModuleSize. A loader calls this
/// on a small read, so a file that is not a Kiln module is refused before it
/// is read whole; verifyModule calls it first too.
Status checkModuleEnvelope(const uint8_t *head, const uint8_t *footer,
                           uint64_t size);

/// Verifies `size` bytes at `data` (8-byte aligned) as a Kiln module; see the
/// file comment for what an OK result guarantees.
Status verifyModule(const uint8_t *data, size_t size);

/// Byte size of a tensor type of a verified module.
uint64_t tensorTypeByteSize(const kiln::schema::TensorType &type);

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_VERIFIER_H
