//===- Npy.cpp ------------------------------------------------------------===//

#include "runtime/tooling/Npy.h"

#include "runtime/module/Verifier.h"
#include "runtime/tooling/TensorAllocation.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <optional>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

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

Status errnoError(int error, const std::string &path, std::string_view what) {
  if ((error == ENOENT || error == ENOTDIR) && what == "open")
    return KILN_ERROR(NotFound, "npy file '", path, "' not found");
  if (error == ENOENT || error == ENOTDIR)
    return KILN_ERROR(NotFound, "cannot ", what, " npy file '", path,
                      "': ", strerror(error));
  if (error == EACCES || error == EPERM)
    return KILN_ERROR(PermissionDenied, "cannot ", what, " npy file '", path,
                      "': ", strerror(error));
  return KILN_ERROR(Unavailable, "cannot ", what, " npy file '", path,
                    "': ", strerror(error));
}

StatusOr<std::vector<uint8_t>> readFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errnoError(errno, path, "open");
  struct Closer {
    int Fd;
    ~Closer() { ::close(Fd); }
  } closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return errnoError(errno, path, "stat");
  if (!S_ISREG(info.st_mode))
    return KILN_ERROR(InvalidArgument, "npy path '", path,
                      "' is not a regular file");
  auto size = static_cast<uint64_t>(info.st_size);
  if (size > kMaxHostTensorBytes + kMaxHeaderSize)
    return KILN_ERROR(InvalidArgument, "npy file '", path, "' is too large (",
                      size, " bytes)");
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc &) {
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes to read npy file '", path, "'");
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errnoError(errno, path, "read");
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

} // namespace

StatusOr<HostTensor> decodeNpy(const uint8_t *data, size_t size) {
  if (size < kMagicSize + 4 || std::memcmp(data, kMagic, kMagicSize) != 0)
    return KILN_ERROR(InvalidArgument, "not an npy file (no \\x93NUMPY magic; ",
                      size, " bytes)");
  uint8_t major = data[6], minor = data[7];
  size_t lengthBytes;
  if (major == 1)
    lengthBytes = 2;
  else if (major == 2 || major == 3)
    lengthBytes = 4;
  else
    return KILN_ERROR(InvalidArgument, "unsupported npy format version ",
                      unsigned(major), ".", unsigned(minor));
  size_t headerStart = 8 + lengthBytes;
  if (size < headerStart)
    return KILN_ERROR(InvalidArgument, "truncated (", size,
                      " bytes) inside the header length");
  size_t headerLength = readLittleEndian(data + 8, lengthBytes);
  if (headerLength > kMaxHeaderSize)
    return KILN_ERROR(InvalidArgument, "npy header length ", headerLength,
                      " is implausibly large");
  if (size - headerStart < headerLength)
    return KILN_ERROR(InvalidArgument, "truncated (", size,
                      " bytes) inside its ", headerLength, "-byte header");
  std::string_view header(reinterpret_cast<const char *>(data + headerStart),
                          headerLength);

  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  KILN_RETURN_IF_ERROR(HeaderParser(header).parse(descr, fortranOrder, shape));
  KILN_ASSIGN_OR_RETURN(ElementType type, parseDescr(descr));
  if (fortranOrder)
    return KILN_ERROR(InvalidArgument,
                      "Fortran-order data is not supported; save it in C "
                      "order (np.ascontiguousarray)");
  KILN_ASSIGN_OR_RETURN(uint64_t byteSize, tensorByteSize(shape, type));
  size_t dataStart = headerStart + headerLength;
  size_t available = size - dataStart;
  if (available != byteSize)
    return KILN_ERROR(InvalidArgument, "npy header says ",
                      tensorTypeString(shape, type), " (", byteSize,
                      " bytes) but the file holds ", available,
                      " bytes of data");
  KILN_ASSIGN_OR_RETURN(HostTensor tensor,
                        allocateHostTensor(type, std::move(shape)));
  if (byteSize > 0)
    std::memcpy(tensor.Data.data(), data + dataStart, byteSize);
  // The runtime's i1 is 0 or 1; numpy agrees, a crafted file might not.
  if (type == ElementType::I1)
    for (uint8_t &b : tensor.Data)
      b = b ? 1 : 0;
  return tensor;
}

StatusOr<HostTensor> readNpy(const std::string &path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, readFile(path));
  auto tensor = decodeNpy(bytes.data(), bytes.size());
  if (!tensor.ok())
    return Status(tensor.status()).annotate(strCat("npy file '", path, "'"));
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
    return errnoError(errno, path, "create");
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
