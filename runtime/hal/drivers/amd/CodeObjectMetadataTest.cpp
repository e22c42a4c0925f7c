//===- CodeObjectMetadataTest.cpp - Hostile metadata notes ----------------===//

#include "runtime/hal/drivers/amd/CodeObjectMetadata.h"

#define MSGPACK_NO_BOOST
#include <msgpack.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace kiln::hal::amd {
namespace {

// A kernel's fields as a test writes them; a value of another type than
// the real one is how a test breaks one.
using Value = std::variant<uint64_t, std::string, bool>;
using Kernel = std::map<std::string, Value>;

Kernel goodKernel(const std::string &name) {
  return {{".name", name},
          {".symbol", name + ".kd"},
          {".kernarg_segment_size", uint64_t{16}},
          {".kernarg_segment_align", uint64_t{8}},
          {".group_segment_fixed_size", uint64_t{0}},
          {".private_segment_fixed_size", uint64_t{0}},
          {".wavefront_size", uint64_t{64}},
          {".sgpr_count", uint64_t{8}},
          {".vgpr_count", uint64_t{4}},
          {".max_flat_workgroup_size", uint64_t{256}}};
}

struct Argument {
  std::string Kind;
  uint64_t Offset;
  uint64_t Size;
};

std::vector<uint8_t> note(const std::vector<Kernel> &kernels,
                          const std::vector<Argument> &arguments = {},
                          uint64_t versionMinor = 2) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> out(buffer);
  out.pack_map(3);
  out.pack(std::string("amdhsa.version"));
  out.pack_array(2);
  out.pack(uint64_t{1});
  out.pack(versionMinor);
  out.pack(std::string("amdhsa.target"));
  out.pack(std::string("amdgcn-amd-amdhsa--gfx942:xnack-"));
  out.pack(std::string("amdhsa.kernels"));
  out.pack_array(static_cast<uint32_t>(kernels.size()));
  for (const Kernel &kernel : kernels) {
    out.pack_map(static_cast<uint32_t>(kernel.size() + 1));
    for (const auto &[key, value] : kernel) {
      out.pack(key);
      std::visit([&](const auto &v) { out.pack(v); }, value);
    }
    out.pack(std::string(".args"));
    out.pack_array(static_cast<uint32_t>(arguments.size()));
    for (const Argument &argument : arguments) {
      out.pack_map(3);
      out.pack(std::string(".value_kind"));
      out.pack(argument.Kind);
      out.pack(std::string(".offset"));
      out.pack(argument.Offset);
      out.pack(std::string(".size"));
      out.pack(argument.Size);
    }
  }
  const auto *data = reinterpret_cast<const uint8_t *>(buffer.data());
  return std::vector<uint8_t>(data, data + buffer.size());
}

// The error for `bytes`, which must fail with one line containing `what`.
void expectError(const std::vector<uint8_t> &bytes, const std::string &what) {
  auto parsed = parseCodeObjectMetadata(bytes);
  ASSERT_FALSE(parsed.ok()) << what;
  EXPECT_EQ(parsed.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(parsed.status().message().find(what), std::string::npos)
      << parsed.status().toString();
  EXPECT_EQ(parsed.status().message().find('\n'), std::string::npos);
}

TEST(CodeObjectMetadataTest, GoodNoteParses) {
  auto parsed = parseCodeObjectMetadata(
      note({goodKernel("k")}, {{"by_value", 8, 4}, {"global_buffer", 0, 8}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().toString();
  EXPECT_EQ(parsed->targetId(), "gfx942:xnack-");
  ASSERT_NE(parsed->kernel("k"), nullptr);
  // Sorted by offset, whatever the note's order.
  EXPECT_EQ(parsed->kernel("k")->Arguments[0].ValueKind, "global_buffer");
  EXPECT_EQ(parsed->kernel("k")->Arguments[1].ValueKind, "by_value");
  EXPECT_EQ(parsed->kernel("absent"), nullptr);
}

TEST(CodeObjectMetadataTest, MissingAndMistypedFieldsAreNamed) {
  Kernel noSize = goodKernel("k");
  noSize.erase(".kernarg_segment_size");
  expectError(note({noSize}), "kernel 'k': no .kernarg_segment_size");
  Kernel textWave = goodKernel("k");
  textWave[".wavefront_size"] = std::string("64");
  expectError(note({textWave}), ".wavefront_size is not an integer");
  Kernel oddWave = goodKernel("k");
  oddWave[".wavefront_size"] = uint64_t{48};
  expectError(note({oddWave}), ".wavefront_size is not 32 or 64");
  Kernel badAlign = goodKernel("k");
  badAlign[".kernarg_segment_align"] = uint64_t{12};
  expectError(note({badAlign}), "not a power of 2");
  Kernel wrongSymbol = goodKernel("k");
  wrongSymbol[".symbol"] = std::string("other.kd");
  expectError(note({wrongSymbol}), "descriptor symbol is 'other.kd'");
  // Names reach one-line messages: a newline or an overlong one is refused
  // where it is read (the amd_code_object fuzz target found the first).
  expectError(note({goodKernel("k\nnext")}), ".name has a byte that is not "
                                             "printable");
  expectError(note({goodKernel(std::string(2000, 'k'))}),
              ".name is longer than 1024 bytes");
  Kernel huge = goodKernel("k");
  huge[".kernarg_segment_size"] = uint64_t{1} << 40;
  expectError(note({huge}), ".kernarg_segment_size is not an integer in");
}

TEST(CodeObjectMetadataTest, ArgumentsMustFitAndNotOverlap) {
  expectError(note({goodKernel("k")}, {{"global_buffer", 12, 8}}),
              "lies past the kernarg segment's 16 bytes");
  expectError(
      note({goodKernel("k")}, {{"global_buffer", 0, 8}, {"by_value", 4, 4}}),
      "overlap");
  // An offset near 2^32 plus a size must not wrap around.
  expectError(note({goodKernel("k")}, {{"by_value", 0xffffffff, 4}}),
              ".offset is not an integer in");
}

TEST(CodeObjectMetadataTest, VersionsBeforeV5AndDuplicatesAreRefused) {
  expectError(note({goodKernel("k")}, {}, 1), "is not code object v5 or v6");
  expectError(note({goodKernel("k"), goodKernel("k")}), "kernel 'k' twice");
}

TEST(CodeObjectMetadataTest, NotMsgpackOrTrailingBytes) {
  expectError({}, "0 bytes");
  expectError({0xc1}, "not msgpack");
  std::vector<uint8_t> bytes = note({goodKernel("k")});
  bytes.push_back(0);
  expectError(bytes, "bytes follow the msgpack value");
  // An array claiming 2^32-1 items in a few bytes: refused by the limits
  // (or the input's end), never allocated.
  expectError({0xdd, 0xff, 0xff, 0xff, 0xff}, "not msgpack");
  // Deep nesting is refused by the depth limit.
  expectError(std::vector<uint8_t>(1000, 0x91), "not msgpack");
}

TEST(CodeObjectMetadataTest, EveryTruncationIsAnError) {
  std::vector<uint8_t> bytes =
      note({goodKernel("k")}, {{"global_buffer", 0, 8}});
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + size);
    EXPECT_FALSE(parseCodeObjectMetadata(cut).ok()) << size;
  }
}

} // namespace
} // namespace kiln::hal::amd
