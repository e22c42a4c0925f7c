//===- CodeObjectMetadata.cpp ---------------------------------------------===//

#include "runtime/hal/drivers/amd/CodeObjectMetadata.h"

// Header-only, without Boost (its optional adaptors are not used).
#define MSGPACK_NO_BOOST
#include <msgpack.hpp>

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <unordered_set>

namespace kiln::hal::amd {

namespace {

// Far above what any compiler writes, far below what would hurt.
constexpr size_t kMostArrayItems = 1 << 16;
constexpr size_t kMostMapPairs = 1024;
constexpr size_t kMostStringBytes = 1 << 16;
constexpr size_t kMostDepth = 16;
constexpr size_t kMostNameBytes = 1024;
// Each msgpack value decodes to an object of about 24 bytes, so the note's
// size bounds the decoded tree (~100 MiB at most); real notes are a few KiB
// per kernel.
constexpr size_t kMostNoteBytes = 4 << 20;
// The kernarg segment of one dispatch; HSA's own limit is far lower in
// practice (a few KiB), this only keeps sizes meaningful.
constexpr uint64_t kMostKernargBytes = 1 << 20;

Status bad(std::string_view where, std::string_view why) {
  return KILN_ERROR(InvalidArgument, "bad AMD code object metadata: ", where,
                    ": ", why);
}

std::string_view asString(const msgpack::object &value) {
  return std::string_view(value.via.str.ptr, value.via.str.size);
}

// The value of `key` in a map, or null.
const msgpack::object *lookup(const msgpack::object &map,
                              std::string_view key) {
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv &pair = map.via.map.ptr[i];
    if (pair.key.type == msgpack::type::STR && asString(pair.key) == key)
      return &pair.val;
  }
  return nullptr;
}

// Reads fields of one map, naming the map (`where`) in errors.
class Fields {
public:
  Fields(const msgpack::object &map, std::string where)
      : Map(map), Where(std::move(where)) {}

  const std::string &where() const { return Where; }

  StatusOr<uint32_t> number(std::string_view key, bool required,
                            uint64_t most = UINT32_MAX) const {
    const msgpack::object *value = lookup(Map, key);
    if (!value) {
      if (required)
        return bad(Where, strCat("no ", key));
      return 0u;
    }
    if (value->type != msgpack::type::POSITIVE_INTEGER || value->via.u64 > most)
      return bad(Where, strCat(key, " is not an integer in [0, ", most, "]"));
    return static_cast<uint32_t>(value->via.u64);
  }

  StatusOr<std::string> string(std::string_view key, bool required) const {
    const msgpack::object *value = lookup(Map, key);
    if (!value) {
      if (required)
        return bad(Where, strCat("no ", key));
      return std::string();
    }
    if (value->type != msgpack::type::STR)
      return bad(Where, strCat(key, " is not a string"));
    // Names, kinds and targets end up in one-line messages; real ones are
    // short printable ASCII (identifiers, mangled or not).
    std::string_view text = asString(*value);
    if (text.size() > kMostNameBytes)
      return bad(Where,
                 strCat(key, " is longer than ", kMostNameBytes, " bytes"));
    for (char c : text)
      if (c < 0x20 || c > 0x7e)
        return bad(Where, strCat(key, " has a byte that is not printable"));
    return std::string(text);
  }

  StatusOr<bool> flag(std::string_view key) const {
    const msgpack::object *value = lookup(Map, key);
    if (!value)
      return false;
    if (value->type != msgpack::type::BOOLEAN)
      return bad(Where, strCat(key, " is not a boolean"));
    return value->via.boolean;
  }

  StatusOr<const msgpack::object *> array(std::string_view key,
                                          bool required) const {
    const msgpack::object *value = lookup(Map, key);
    if (!value && !required)
      return static_cast<const msgpack::object *>(nullptr);
    if (!value || value->type != msgpack::type::ARRAY)
      return bad(Where, strCat(key, " is not an array"));
    return value;
  }

private:
  const msgpack::object &Map;
  std::string Where;
};

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

StatusOr<KernelArgument> parseArgument(const msgpack::object &value,
                                       const std::string &where) {
  if (value.type != msgpack::type::MAP)
    return bad(where, "an argument is not a map");
  Fields fields(value, where);
  KernelArgument argument;
  KILN_ASSIGN_OR_RETURN(argument.ValueKind, fields.string(".value_kind", true));
  KILN_ASSIGN_OR_RETURN(argument.Offset,
                        fields.number(".offset", true, kMostKernargBytes));
  KILN_ASSIGN_OR_RETURN(argument.Size,
                        fields.number(".size", true, kMostKernargBytes));
  return argument;
}

StatusOr<KernelMetadata> parseKernel(const msgpack::object &value,
                                     size_t index) {
  if (value.type != msgpack::type::MAP)
    return bad(strCat("kernel ", index), "not a map");
  KernelMetadata kernel;
  KILN_ASSIGN_OR_RETURN(
      kernel.Name,
      Fields(value, strCat("kernel ", index)).string(".name", true));
  Fields fields(value, strCat("kernel '", kernel.Name, "'"));
  KILN_ASSIGN_OR_RETURN(kernel.Symbol, fields.string(".symbol", true));
  if (kernel.Symbol != kernel.Name + ".kd")
    return bad(fields.where(),
               strCat("its descriptor symbol is '", kernel.Symbol, "', not '",
                      kernel.Name, ".kd'"));
  KILN_ASSIGN_OR_RETURN(
      kernel.KernargSegmentSize,
      fields.number(".kernarg_segment_size", true, kMostKernargBytes));
  KILN_ASSIGN_OR_RETURN(kernel.KernargSegmentAlign,
                        fields.number(".kernarg_segment_align", true, 256));
  if (!isPowerOfTwo(kernel.KernargSegmentAlign))
    return bad(fields.where(), ".kernarg_segment_align is not a power of 2");
  KILN_ASSIGN_OR_RETURN(kernel.GroupSegmentFixedSize,
                        fields.number(".group_segment_fixed_size", true));
  KILN_ASSIGN_OR_RETURN(kernel.PrivateSegmentFixedSize,
                        fields.number(".private_segment_fixed_size", true));
  KILN_ASSIGN_OR_RETURN(kernel.WavefrontSize,
                        fields.number(".wavefront_size", true, 64));
  if (kernel.WavefrontSize != 32 && kernel.WavefrontSize != 64)
    return bad(fields.where(), ".wavefront_size is not 32 or 64");
  KILN_ASSIGN_OR_RETURN(kernel.SgprCount, fields.number(".sgpr_count", true));
  KILN_ASSIGN_OR_RETURN(kernel.VgprCount, fields.number(".vgpr_count", true));
  KILN_ASSIGN_OR_RETURN(kernel.MaxFlatWorkgroupSize,
                        fields.number(".max_flat_workgroup_size", true, 1024));
  KILN_ASSIGN_OR_RETURN(kernel.UsesDynamicStack,
                        fields.flag(".uses_dynamic_stack"));
  KILN_ASSIGN_OR_RETURN(const msgpack::object *arguments,
                        fields.array(".args", false));
  if (arguments)
    for (uint32_t i = 0; i < arguments->via.array.size; ++i) {
      KILN_ASSIGN_OR_RETURN(
          KernelArgument argument,
          parseArgument(arguments->via.array.ptr[i], fields.where()));
      if (uint64_t{argument.Offset} + argument.Size > kernel.KernargSegmentSize)
        return bad(fields.where(),
                   strCat("argument ", i, " (", argument.ValueKind,
                          ") lies past the kernarg segment's ",
                          kernel.KernargSegmentSize, " bytes"));
      kernel.Arguments.push_back(std::move(argument));
    }
  std::stable_sort(kernel.Arguments.begin(), kernel.Arguments.end(),
                   [](const KernelArgument &a, const KernelArgument &b) {
                     return a.Offset < b.Offset;
                   });
  for (size_t i = 1; i < kernel.Arguments.size(); ++i)
    if (kernel.Arguments[i - 1].Offset + kernel.Arguments[i - 1].Size >
        kernel.Arguments[i].Offset)
      return bad(fields.where(),
                 strCat("arguments at offsets ", kernel.Arguments[i - 1].Offset,
                        " and ", kernel.Arguments[i].Offset, " overlap"));
  return kernel;
}

StatusOr<CodeObjectMetadata> parseRoot(const msgpack::object &root) {
  if (root.type != msgpack::type::MAP)
    return bad("the note", "not a map");
  Fields fields(root, "the note");
  CodeObjectMetadata metadata;
  KILN_ASSIGN_OR_RETURN(const msgpack::object *version,
                        fields.array("amdhsa.version", true));
  if (version->via.array.size != 2 ||
      version->via.array.ptr[0].type != msgpack::type::POSITIVE_INTEGER ||
      version->via.array.ptr[1].type != msgpack::type::POSITIVE_INTEGER)
    return bad("the note", "amdhsa.version is not [major, minor]");
  uint64_t major = version->via.array.ptr[0].via.u64;
  uint64_t minor = version->via.array.ptr[1].via.u64;
  // 1.2 is code object v5, 1.3 v6; earlier versions lay out hidden
  // arguments differently.
  if (major != 1 || minor < 2 || minor > 255)
    return bad("the note", strCat("amdhsa.version ", major, ".", minor,
                                  " is not code object v5 or v6 (1.2, 1.3)"));
  metadata.VersionMajor = static_cast<uint32_t>(major);
  metadata.VersionMinor = static_cast<uint32_t>(minor);
  KILN_ASSIGN_OR_RETURN(metadata.Target, fields.string("amdhsa.target", true));
  if (!metadata.Target.starts_with("amdgcn-amd-amdhsa--gfx"))
    return bad("the note", strCat("amdhsa.target '", metadata.Target,
                                  "' is not amdgcn-amd-amdhsa--gfx..."));
  KILN_ASSIGN_OR_RETURN(const msgpack::object *kernels,
                        fields.array("amdhsa.kernels", true));
  std::unordered_set<std::string> names;
  for (uint32_t i = 0; i < kernels->via.array.size; ++i) {
    KILN_ASSIGN_OR_RETURN(KernelMetadata kernel,
                          parseKernel(kernels->via.array.ptr[i], i));
    if (!names.insert(kernel.Name).second)
      return bad("the note", strCat("kernel '", kernel.Name, "' twice"));
    metadata.Kernels.push_back(std::move(kernel));
  }
  return metadata;
}

} // namespace

std::string_view CodeObjectMetadata::targetId() const {
  std::string_view target = Target;
  size_t dashes = target.find("--");
  return dashes == std::string_view::npos ? target : target.substr(dashes + 2);
}

const KernelMetadata *CodeObjectMetadata::kernel(std::string_view name) const {
  for (const KernelMetadata &kernel : Kernels)
    if (kernel.Name == name)
      return &kernel;
  return nullptr;
}

StatusOr<CodeObjectMetadata>
parseCodeObjectMetadata(std::span<const uint8_t> note) {
  if (note.empty() || note.size() > kMostNoteBytes)
    return bad("the note", strCat(note.size(), " bytes"));
  msgpack::unpack_limit limits(kMostArrayItems, kMostMapPairs, kMostStringBytes,
                               kMostStringBytes,
                               /*ext=*/0, kMostDepth);
  msgpack::object_handle handle;
  try {
    size_t offset = 0;
    handle = msgpack::unpack(reinterpret_cast<const char *>(note.data()),
                             note.size(), offset, nullptr, nullptr, limits);
    if (offset != note.size())
      return bad("the note", "bytes follow the msgpack value");
  } catch (const std::exception &error) {
    return bad("the note",
               strCat("not msgpack within limits (", error.what(), ")"));
  }
  return parseRoot(handle.get());
}

} // namespace kiln::hal::amd
