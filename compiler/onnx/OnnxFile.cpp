//===- OnnxFile.cpp - Reading .onnx files and their tensors ---------------===//

#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/OnnxTypes.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"
#include "onnx/onnx_pb.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <cstring>

namespace kiln::onnx_import {

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
readOnnxModel(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return error("cannot open '" + path + "': " + ec.message());
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return error("'" + path + "' is a directory, not an ONNX model");
  if (status.getSize() == 0)
    return error("'" + path + "' is empty, not an ONNX model");
  // protobuf parses messages of at most 2 GiB; larger models keep their
  // weights in external data files.
  if (status.getSize() > static_cast<uint64_t>(INT_MAX))
    return error("'" + path + "' is " + llvm::Twine(status.getSize()) +
                 " bytes; protobuf reads at most 2 GiB (store the weights as "
                 "external data)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return error("cannot read '" + path + "': " + buffer.getError().message());

  // protobuf would print its own complaints on stderr; the error below says
  // what went wrong in one line.
  static const bool silenced = [] {
    google::protobuf::SetLogHandler(nullptr);
    return true;
  }();
  (void)silenced;
  auto model = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
      static_cast<int>((*buffer)->getBufferSize()));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return error("'" + path +
                 "' is not an ONNX model, or is truncated (protobuf parsing "
                 "failed)");
  if (model->ir_version() <= 0 || !model->has_graph())
    return error("'" + path + "' is not an ONNX model (no " +
                 (model->ir_version() <= 0 ? "ir_version" : "graph") + ")");
  return model;
}

bool looksLikeOnnxFile(llvm::StringRef path) {
  if (path.ends_with_insensitive(".onnx"))
    return true;
  char first = 0;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileSlice(path, 1, 0);
  if (buffer && (*buffer)->getBufferSize() == 1)
    first = (*buffer)->getBufferStart()[0];
  // 0x08: field 1 (ir_version), varint.
  return first == 0x08;
}

namespace {

// Elements and bytes of `tensor`, with overflow and sign checks.
llvm::Expected<int64_t> tensorBytes(const onnx::TensorProto &tensor,
                                    int64_t elementSize) {
  int64_t elements = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return error("tensor '" + tensor.name() + "' has a negative dimension");
    if (d != 0 && elements > (int64_t(1) << 50) / d)
      return error("tensor '" + tensor.name() + "' is too large");
    elements *= d;
  }
  return elements * elementSize;
}

llvm::Expected<HostTensor> readExternal(const onnx::TensorProto &tensor,
                                        llvm::StringRef modelDir,
                                        int64_t expectedBytes) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (llvm::StringRef(entry.value()).getAsInteger(10, value))
        return error("tensor '" + tensor.name() + "': external data " +
                     entry.key() + " '" + entry.value() + "' is not a number");
      if (entry.key() == "offset")
        offset = value;
      else
        length = value;
    }
  }
  if (location.empty())
    return error("tensor '" + tensor.name() +
                 "': external data without a location");
  // The location is relative to the model and may not leave its folder.
  llvm::StringRef loc(location);
  if (llvm::sys::path::is_absolute(loc) ||
      llvm::any_of(llvm::make_range(llvm::sys::path::begin(loc),
                                    llvm::sys::path::end(loc)),
                   [](llvm::StringRef part) { return part == ".."; }))
    return error("tensor '" + tensor.name() + "': external data location '" +
                 location +
                 "' must be a relative path inside the model's "
                 "folder");
  llvm::SmallString<256> file(modelDir);
  llvm::sys::path::append(file, loc);
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(file, status))
    return error("tensor '" + tensor.name() + "': external data file '" + file +
                 "': " + ec.message());
  if (status.type() != llvm::sys::fs::file_type::regular_file)
    return error("tensor '" + tensor.name() + "': external data file '" + file +
                 "' is not a regular file");
  llvm::SmallString<256> realDir, realFile;
  if (!llvm::sys::fs::real_path(modelDir.empty() ? "." : modelDir, realDir) &&
      !llvm::sys::fs::real_path(file, realFile) &&
      !llvm::StringRef(realFile).starts_with((realDir + "/").str()))
    return error("tensor '" + tensor.name() + "': external data file '" + file +
                 "' resolves outside the model's folder");
  if (length && *length != static_cast<uint64_t>(expectedBytes))
    return error("tensor '" + tensor.name() + "': external data length " +
                 llvm::Twine(*length) + " does not match its type's " +
                 llvm::Twine(expectedBytes) + " bytes");
  if (offset > status.getSize() ||
      status.getSize() - offset < static_cast<uint64_t>(expectedBytes))
    return error("tensor '" + tensor.name() + "': external data file '" + file +
                 "' holds " + llvm::Twine(status.getSize()) +
                 " bytes, too few for " + llvm::Twine(expectedBytes) +
                 " bytes at offset " + llvm::Twine(offset));
  if (expectedBytes == 0)
    return HostTensor(
        tensor.data_type(),
        llvm::SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
        std::vector<char>());
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> slice =
      llvm::MemoryBuffer::getFileSlice(file, expectedBytes, offset);
  if (!slice)
    return error("tensor '" + tensor.name() + "': cannot read '" + file +
                 "': " + slice.getError().message());
  std::shared_ptr<const llvm::MemoryBuffer> owner = std::move(*slice);
  const char *data = owner->getBufferStart();
  return HostTensor(
      tensor.data_type(),
      llvm::SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
      owner, data, expectedBytes);
}

} // namespace

llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      llvm::StringRef modelDir,
                                      std::shared_ptr<const void> owner) {
  int32_t dtype = tensor.data_type();
  int64_t elementSize = dtypeByteSize(dtype);
  if (elementSize == 0)
    return error("tensor '" + tensor.name() + "': unsupported element type " +
                 dtypeName(dtype));
  llvm::Expected<int64_t> bytes = tensorBytes(tensor, elementSize);
  if (!bytes)
    return bytes.takeError();
  llvm::SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    return readExternal(tensor, modelDir, *bytes);
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != *bytes)
      return error("tensor '" + tensor.name() + "': raw data holds " +
                   llvm::Twine(tensor.raw_data().size()) + " bytes, its type " +
                   llvm::Twine(*bytes));
    return HostTensor(dtype, shape, std::move(owner), tensor.raw_data().data(),
                      *bytes);
  }
  int64_t elements = *bytes / elementSize;
  auto count = [&](int64_t have) -> llvm::Error {
    if (have == elements)
      return llvm::Error::success();
    return error("tensor '" + tensor.name() + "' holds " + llvm::Twine(have) +
                 " values, its shape " + llvm::Twine(elements));
  };
  std::vector<char> out(*bytes);
  switch (dtype) {
  case Float:
    if (llvm::Error e = count(tensor.float_data_size()))
      return e;
    std::memcpy(out.data(), tensor.float_data().data(), *bytes);
    break;
  case Double:
    if (llvm::Error e = count(tensor.double_data_size()))
      return e;
    std::memcpy(out.data(), tensor.double_data().data(), *bytes);
    break;
  case Int64:
    if (llvm::Error e = count(tensor.int64_data_size()))
      return e;
    std::memcpy(out.data(), tensor.int64_data().data(), *bytes);
    break;
  case UInt32:
  case UInt64:
    if (llvm::Error e = count(tensor.uint64_data_size()))
      return e;
    for (int64_t i = 0; i < elements; ++i) {
      uint64_t v = tensor.uint64_data(i);
      std::memcpy(out.data() + i * elementSize, &v, elementSize);
    }
    break;
  default:
    // int32_data holds every type of 32 bits or less (halfs as their bits).
    if (llvm::Error e = count(tensor.int32_data_size()))
      return e;
    for (int64_t i = 0; i < elements; ++i) {
      int32_t v = tensor.int32_data(i);
      std::memcpy(out.data() + i * elementSize, &v, elementSize);
    }
    break;
  }
  return HostTensor(dtype, shape, std::move(out));
}

} // namespace kiln::onnx_import
