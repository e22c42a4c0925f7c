//===- Npy.cpp ------------------------------------------------------------===//

#include "runtime/tooling/Npy.h"

#include "runtime/base/File.h"
#include "runtime/module/Verifier.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

namespace kiln::tooling {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy headers are a few hundred bytes; anything far larger is hostile.
constexpr size_t kMaxHeaderSize = 1 << 20;

struct Dtype {
  ElementType Type;
  std::string_view Code; // kind + size, e.g. "f4"
};

constexpr Dtype kDtypes[] = {
    {ElementType::F32, "f4"}, {ElementType::F16, "f2"},
    {ElementType::F64, "f8"}, {ElementType::I1, "b1"},
    {ElementType::I8, "i1"},  {ElementType::I16, "i2"},
    {ElementType::I32, "i4"}, {ElementType::I64, "i8"},
    {ElementType::U8, "u1"},  {ElementType::U16, "u2"},
    {ElementType::U32, "u4"}, {ElementType::U64, "u8"},
};

std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 64)) {
    auto u = static_cast<unsigned char>(c);
    out += (u >= 0x20 && u < 0x7f) ? std::string(1, c)
                                   : strCat("\\x", "0123456789abcdef"[u >> 4],
                                            "0123456789abcdef"[u & 0xf]);
  }
  if (text.size() > 64)
    out += "...";
  return out;
}

StatusOr<ElementType> parseDescr(std::string_view descr) {
  if (descr.size() < 3)
    return KILN_ERROR(InvalidArgument, "unsupported npy dtype '",
                      printable(descr), "'");
  char order = descr[0];
  std::string_view code = descr.substr(1);
  for (const Dtype &dtype : kDtypes) {
    if (dtype.Code != code)
      continue;
    bool singleByte = elementTypeSize(dtype.Type) == 1;
    if (order == '>' && !singleByte)
      return KILN_ERROR(InvalidArgument, "npy dtype '", printable(descr),
                        "' is big-endian; only little-endian is supported");
    if (order == '<' || order == '=' || (order == '|' && singleByte) ||
        (order == '>' && singleByte))
      return dtype.Type;
    break;
  }
  return KILN_ERROR(InvalidArgument, "unsupported npy dtype '",
                    printable(descr),
                    "' (supported: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 "
                    "<u4 <u8)");
}

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : Text(text) {}

  Status parse(std::string &descr, bool &fortranOrder,
               std::vector<int64_t> &shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    KILN_RETURN_IF_ERROR(expect('{'));
    while (true) {
      skipSpace();
      if (peek() == '}')
        break;
      std::string key;
      KILN_RETURN_IF_ERROR(parseString(key));
      skipSpace();
      KILN_RETURN_IF_ERROR(expect(':'));
      skipSpace();
      if (key == "descr" && !haveDescr) {
        if (peek() != '\'' && peek() != '"')
          return error("'descr' is not a string (structured dtypes are not "
                       "supported)");
        KILN_RETURN_IF_ERROR(parseString(descr));
        haveDescr = true;
      } else if (key == "fortran_order" && !haveOrder) {
        KILN_RETURN_IF_ERROR(parseBool(fortranOrder));
        haveOrder = true;
      } else if (key == "shape" && !haveShape) {
        KILN_RETURN_IF_ERROR(parseShape(shape));
        haveShape = true;
      } else {
        return error(
            strCat("unexpected or repeated key '", printable(key), "'"));
      }
      skipSpace();
      if (peek() == ',') {
        ++Pos;
        continue;
      }
      if (peek() != '}')
        return error("expected ',' or '}'");
    }
    if (!haveDescr || !haveOrder || !haveShape)
      return error("missing 'descr', 'fortran_order' or 'shape'");
    return Status();
  }

private:
  char peek() const { return Pos < Text.size() ? Text[Pos] : '\0'; }

  void skipSpace() {
    while (Pos < Text.size() && (Text[Pos] == ' ' || Text[Pos] == '\t' ||
                                 Text[Pos] == '\n' || Text[Pos] == '\r'))
      ++Pos;
  }

  Status error(std::string_view what) const {
    return KILN_ERROR(InvalidArgument, "bad npy header (", what, " at offset ",
                      Pos, "): '", printable(Text), "'");
  }

  Status expect(char c) {
    if (peek() != c)
      return error(strCat("expected '", c, "'"));
    ++Pos;
    return Status();
  }

  Status parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return error("expected a quoted string");
    size_t end = Text.find(quote, Pos + 1);
    if (end == std::string_view::npos)
      return error("unterminated string");
    out = std::string(Text.substr(Pos + 1, end - Pos - 1));
    Pos = end + 1;
    return Status();
  }

  Status parseBool(bool &out) {
    if (Text.substr(Pos, 4) == "True") {
      out = true;
      Pos += 4;
      return Status();
    }
    if (Text.substr(Pos, 5) == "False") {
      out = false;
      Pos += 5;
      return Status();
    }
    return error("expected True or False");
  }

  Status parseShape(std::vector<int64_t> &shape) {
    KILN_RETURN_IF_ERROR(expect('('));
    while (true) {
      skipSpace();
      if (peek() == ')') {
        ++Pos;
        return Status();
      }
      int64_t dim = 0;
      const char *begin = Text.data() + Pos;
      auto [end, ec] = std::from_chars(begin, Text.data() + Text.size(), dim);
      if (ec != std::errc() || dim < 0)
        return error("expected a non-negative dimension");
      Pos += static_cast<size_t>(end - begin);
      // Python 2 wrote longs as "3L".
      if (peek() == 'L')
        ++Pos;
      shape.push_back(dim);
      if (shape.size() > module::kMaxTensorRank)
        return error(
            strCat("rank exceeds the maximum of ", module::kMaxTensorRank));
      skipSpace();
      if (peek() == ',') {
        ++Pos;
        continue;
      }
      if (peek() != ')')
        return error("expected ',' or ')' in shape");
    }
  }

  std::string_view Text;
  size_t Pos = 0;
};

uint32_t readLittleEndian(const uint8_t *data, size_t bytes) {
  uint32_t value = 0;
  for (size_t i = 0; i < bytes; ++i)
    value |= static_cast<uint32_t>(data[i]) << (8 * i);
  return value;
}

// The fixed part of a file before its header text: magic, version and the
// header's length (2 bytes in version 1, 4 in versions 2 and 3).
constexpr size_t kMaxPreambleSize = kMagicSize + 2 + 4;

struct Preamble {
  size_t HeaderStart;
  size_t HeaderLength;
};

// Decodes the preamble of a `size`-byte file from `prefix`, its first
// min(size, kMaxPreambleSize) bytes, and checks that the header fits.
StatusOr<Preamble> decodePreamble(const uint8_t *prefix, uint64_t size) {
  if (size < kMagicSize + 4 || std::memcmp(prefix, kMagic, kMagicSize) != 0)
    return KILN_ERROR(InvalidArgument, "not an npy file (no \\x93NUMPY magic; ",
                      size, " bytes)");
  uint8_t major = prefix[6], minor = prefix[7];
  size_t lengthBytes;
  if (major == 1)
    lengthBytes = 2;
  else if (major == 2 || major == 3)
    lengthBytes = 4;
  else
    return KILN_ERROR(InvalidArgument, "unsupported npy format version ",
                      unsigned(major), ".", unsigned(minor));
  Preamble preamble{8 + lengthBytes, 0};
  if (size < preamble.HeaderStart)
    return KILN_ERROR(InvalidArgument, "truncated (", size,
                      " bytes) inside the header length");
  preamble.HeaderLength = readLittleEndian(prefix + 8, lengthBytes);
  if (preamble.HeaderLength > kMaxHeaderSize)
    return KILN_ERROR(InvalidArgument, "npy header length ",
                      preamble.HeaderLength, " is implausibly large");
  if (size - preamble.HeaderStart < preamble.HeaderLength)
    return KILN_ERROR(InvalidArgument, "truncated (", size,
                      " bytes) inside its ", preamble.HeaderLength,
                      "-byte header");
  return preamble;
}

// Parses the header text into the tensor's type.
StatusOr<ParsedTensorType> decodeHeader(std::string_view header) {
  std::string descr;
  bool fortranOrder = false;
  ParsedTensorType type;
  KILN_RETURN_IF_ERROR(
      HeaderParser(header).parse(descr, fortranOrder, type.Shape));
  KILN_ASSIGN_OR_RETURN(type.Type, parseDescr(descr));
  if (fortranOrder)
    return KILN_ERROR(InvalidArgument,
                      "Fortran-order data is not supported; save it in C "
                      "order (np.ascontiguousarray)");
  return type;
}

// Checks the data size the header implies against the `available` bytes
// after it, then allocates the tensor the data will be copied into.
StatusOr<HostTensor> allocateForData(const ParsedTensorType &type,
                                     uint64_t available) {
  KILN_ASSIGN_OR_RETURN(uint64_t byteSize,
                        tensorByteSize(type.Shape, type.Type));
  if (available != byteSize)
    return KILN_ERROR(InvalidArgument, "npy header says ",
                      tensorTypeString(type.Shape, type.Type), " (", byteSize,
                      " bytes) but the file holds ", available,
                      " bytes of data");
  return allocateHostTensor(type.Type, type.Shape);
}

// The runtime's i1 is 0 or 1; numpy agrees, a crafted file might not.
void normalizeBooleans(HostTensor &tensor) {
  if (tensor.Type == ElementType::I1)
    for (uint8_t &b : tensor.Data)
      b = b ? 1 : 0;
}

} // namespace

StatusOr<HostTensor> decodeNpy(const uint8_t *data, size_t size,
                               const TensorTypeCheck &check) {
  KILN_ASSIGN_OR_RETURN(Preamble preamble, decodePreamble(data, size));
  KILN_ASSIGN_OR_RETURN(
      ParsedTensorType type,
      decodeHeader(std::string_view(
          reinterpret_cast<const char *>(data + preamble.HeaderStart),
          preamble.HeaderLength)));
  if (check)
    KILN_RETURN_IF_ERROR(check(type));
  size_t dataStart = preamble.HeaderStart + preamble.HeaderLength;
  KILN_ASSIGN_OR_RETURN(HostTensor tensor,
                        allocateForData(type, size - dataStart));
  if (!tensor.Data.empty())
    std::memcpy(tensor.Data.data(), data + dataStart, tensor.Data.size());
  normalizeBooleans(tensor);
  return tensor;
}

StatusOr<HostTensor> readNpy(const std::string &path,
                             const TensorTypeCheck &check) {
  KILN_ASSIGN_OR_RETURN(InputFile file, InputFile::open(path, "npy"));
  // What is wrong with the contents names the file; I/O errors already do,
  // and `check`'s verdict is the caller's own.
  auto inFile = [&](const Status &status) {
    return Status(status).annotate(strCat("npy file '", path, "'"));
  };
  // Only the preamble and header are read before `check` has seen the type
  // and the data size is known to match it.
  uint64_t size = file.size();
  uint8_t prefix[kMaxPreambleSize] = {};
  KILN_RETURN_IF_ERROR(file.readAt(
      0, prefix,
      static_cast<size_t>(std::min<uint64_t>(size, sizeof(prefix)))));
  auto preamble = decodePreamble(prefix, size);
  if (!preamble.ok())
    return inFile(preamble.status());
  std::string header(preamble->HeaderLength, '\0');
  KILN_RETURN_IF_ERROR(
      file.readAt(preamble->HeaderStart, header.data(), header.size()));
  auto type = decodeHeader(header);
  if (!type.ok())
    return inFile(type.status());
  if (check)
    KILN_RETURN_IF_ERROR(check(*type));
  uint64_t dataStart = preamble->HeaderStart + preamble->HeaderLength;
  auto tensor = allocateForData(*type, size - dataStart);
  if (!tensor.ok())
    return inFile(tensor.status());
  KILN_RETURN_IF_ERROR(
      file.readAt(dataStart, tensor->Data.data(), tensor->Data.size()));
  normalizeBooleans(*tensor);
  return tensor;
}

StatusOr<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor) {
  std::optional<std::string_view> code;
  for (const Dtype &dtype : kDtypes)
    if (dtype.Type == tensor.Type)
      code = dtype.Code;
  if (!code)
    return KILN_ERROR(Unimplemented, tensor.typeString(),
                      " cannot be written as npy: ",
                      elementTypeName(tensor.Type), " has no npy dtype");
  KILN_ASSIGN_OR_RETURN(uint64_t byteSize,
                        tensorByteSize(tensor.Shape, tensor.Type));
  if (tensor.Data.size() != byteSize)
    return KILN_ERROR(InvalidArgument, "tensor ", tensor.typeString(),
                      " holds ", tensor.Data.size(), " bytes, expected ",
                      byteSize);
  char order = elementTypeSize(tensor.Type) == 1 ? '|' : '<';
  std::string shape = "(";
  for (size_t i = 0; i < tensor.Shape.size(); ++i)
    shape += strCat(i ? ", " : "", tensor.Shape[i]);
  // A one-element tuple needs its trailing comma.
  shape += tensor.Shape.size() == 1 ? ",)" : ")";
  std::string header =
      strCat("{'descr': '", order, *code,
             "', 'fortran_order': False, 'shape': ", shape, ", }");
  // numpy pads with spaces so the data starts 64-byte aligned, ending the
  // header with a newline.
  size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> bytes(kMagic, kMagic + kMagicSize);
  bytes.push_back(1);
  bytes.push_back(0);
  bytes.push_back(static_cast<uint8_t>(header.size() & 0xff));
  bytes.push_back(static_cast<uint8_t>(header.size() >> 8));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), tensor.Data.begin(), tensor.Data.end());
  return bytes;
}

Status writeNpy(const std::string &path, const HostTensor &tensor) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, encodeNpy(tensor));
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return fileError(errno, "npy", path, "create");
  size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  int writeError = std::ferror(file) ? errno : 0;
  if (std::fclose(file) != 0 && writeError == 0)
    writeError = errno;
  if (written != bytes.size() || writeError != 0)
    return KILN_ERROR(Unavailable, "cannot write npy file '", path,
                      "': ", strerror(writeError ? writeError : EIO));
  return Status();
}

} // namespace kiln::tooling
