//===- ModuleChecksum.h - Integrity footer of a module file ---------------===//
//
// Structural and semantic verification cannot notice a flipped bit inside an
// executable image, the constants or a name, nor a truncation that leaves a
// well-formed prefix, so a module file ends with a 16-byte footer: the 8
// bytes "KILNCSUM" and the little-endian moduleChecksum() of every byte
// before the footer. The flatbuffer itself is unchanged and starts at offset
// 0. Writers append the footer with appendModuleChecksum() after
// FinishModuleBuffer(); the verifier rejects a file without it.
//
// The checksum is for detecting accidental corruption, not tampering. It
// guarantees that any change confined to one aligned 8-byte word (so any
// single flipped byte) changes the result: every step of each lane is a
// bijection of the lane state.
//
// Header-only and dependency-free: like module.fbs, it is part of the file
// format that the compiler writes and the runtime reads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_MODULECHECKSUM_H
#define KILN_SCHEMA_MODULECHECKSUM_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace kiln::schema {

inline constexpr char kChecksumMagic[8] = {'K', 'I', 'L', 'N',
                                           'C', 'S', 'U', 'M'};
inline constexpr size_t kChecksumFooterSize = 16;

namespace detail {
inline uint64_t loadLittleEndian64(const uint8_t *data, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size && i < 8; ++i)
    value |= static_cast<uint64_t>(data[i]) << (8 * i);
  return value;
}
} // namespace detail

/// A 64-bit checksum of `size` bytes: FNV-1a over 8-byte little-endian
/// words in four interleaved lanes (so it runs at memory speed), folded
/// together with the length.
inline uint64_t moduleChecksum(const uint8_t *data, size_t size) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t lanes[4] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull,
                       0x9ce484222325cbf2ull, 0x2325cbf29ce48422ull};
  size_t offset = 0;
  for (; offset + 32 <= size; offset += 32) {
    for (int lane = 0; lane < 4; ++lane) {
      uint64_t word;
      std::memcpy(&word, data + offset + 8 * lane, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      word = __builtin_bswap64(word);
#endif
      lanes[lane] = (lanes[lane] ^ word) * kPrime;
    }
  }
  for (int lane = 0; offset < size; ++lane, offset += 8)
    lanes[lane] = (lanes[lane] ^
                   detail::loadLittleEndian64(data + offset, size - offset)) *
                  kPrime;
  uint64_t hash =
      (0xcbf29ce484222325ull ^ static_cast<uint64_t>(size)) * kPrime;
  for (uint64_t lane : lanes)
    hash = (hash ^ lane) * kPrime;
  return hash;
}

/// The footer of a module whose bytes before it have `checksum`.
inline std::array<uint8_t, kChecksumFooterSize>
moduleChecksumFooter(uint64_t checksum) {
  std::array<uint8_t, kChecksumFooterSize> footer;
  std::memcpy(footer.data(), kChecksumMagic, 8);
  for (int i = 0; i < 8; ++i)
    footer[8 + i] = static_cast<uint8_t>(checksum >> (8 * i));
  return footer;
}

/// Appends the checksum footer to a finished module buffer.
inline void appendModuleChecksum(std::vector<uint8_t> &bytes) {
  auto footer =
      moduleChecksumFooter(moduleChecksum(bytes.data(), bytes.size()));
  bytes.insert(bytes.end(), footer.begin(), footer.end());
}

/// The stored checksum when `size` bytes end with a footer.
inline std::optional<uint64_t> storedModuleChecksum(const uint8_t *data,
                                                    size_t size) {
  if (size < kChecksumFooterSize ||
      std::memcmp(data + size - kChecksumFooterSize, kChecksumMagic, 8) != 0)
    return std::nullopt;
  return detail::loadLittleEndian64(data + size - 8, 8);
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_MODULECHECKSUM_H
