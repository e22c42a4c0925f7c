//===- OnnxFile.cpp - Reading .onnx files and their tensors ---------------===//

#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/ExternalData.h"
#include "compiler/onnx/OnnxTypes.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"
#include "onnx/onnx_pb.h"
#include "llvm/Support/MemoryBuffer.h"

#include "llvm/ADT/ScopeExit.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::onnx_import {

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openModelFile(llvm::StringRef path, uint64_t maxBytes, bool nullTerminated) {
  std::string name = path.str();
  int fd;
  do
    fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return error("cannot open '" + path + "': " + std::strerror(errno));
  llvm::scope_exit closeFd([fd] { ::close(fd); });
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return error("cannot read '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    return error("'" + path + "' is a directory, not an ONNX model");
  if (!S_ISREG(info.st_mode))
    return error("'" + path +
                 "' is not a regular file (a FIFO, socket or "
                 "device)");
  uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size == 0)
    return error("'" + path + "' is empty");
  if (size > maxBytes)
    return error("'" + path + "' is " + llvm::Twine(size) +
                 " bytes; protobuf reads at most 2 GiB (store the weights as "
                 "external data)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getOpenFile(fd, path, size, nullTerminated);
  if (!buffer)
    return error("cannot read '" + path + "': " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
readOnnxModel(llvm::StringRef path) {
  // protobuf parses messages of at most 2 GiB; larger models keep their
  // weights in external data files.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      openModelFile(path, static_cast<uint64_t>(INT_MAX));
  if (!buffer)
    return buffer.takeError();

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
  // Opened as a model is, so a FIFO is not waited on.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      openModelFile(path, UINT64_MAX);
  if (!buffer) {
    llvm::consumeError(buffer.takeError());
    return false;
  }
  // 0x08: field 1 (ir_version), varint.
  return (*buffer)->getBufferStart()[0] == 0x08;
}

namespace {

llvm::Expected<HostTensor> readExternal(const onnx::TensorProto &tensor,
                                        llvm::StringRef modelDir,
                                        int64_t expectedBytes) {
  auto fail = [&](const llvm::Twine &why) {
    return error("tensor '" + tensor.name() + "': " + why);
  };
  ExternalLocation where;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      where.Location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (llvm::StringRef(entry.value()).getAsInteger(10, value))
        return fail("external data " + entry.key() + " '" + entry.value() +
                    "' is not a number");
      if (entry.key() == "offset")
        where.Offset = value;
      else
        where.Length = value;
    }
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> data =
      readExternalData(modelDir, where, expectedBytes);
  if (!data)
    return fail(llvm::toString(data.takeError()));
  std::shared_ptr<const llvm::MemoryBuffer> owner = std::move(*data);
  const char *bytes = owner->getBufferStart();
  return HostTensor(
      tensor.data_type(),
      llvm::SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
      owner, bytes, expectedBytes);
}

} // namespace

llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      llvm::StringRef modelDir,
                                      std::shared_ptr<const void> owner,
                                      const TensorLimits &limits) {
  int32_t dtype = tensor.data_type();
  int64_t elementSize = dtypeByteSize(dtype);
  if (elementSize == 0)
    return error("tensor '" + tensor.name() + "': unsupported element type " +
                 dtypeName(dtype));
  llvm::SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  llvm::Expected<int64_t> counted = checkedNumElements(
      shape, elementSize, "tensor '" + tensor.name() + "'", limits);
  if (!counted)
    return counted.takeError();
  int64_t elements = *counted;
  int64_t bytes = elements * elementSize;
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    return readExternal(tensor, modelDir, bytes);
  // Which of the fields that may hold the values are set: exactly one may
  // be (an empty tensor may have none).
  int fields =
      tensor.has_raw_data() + (tensor.float_data_size() > 0) +
      (tensor.double_data_size() > 0) + (tensor.int32_data_size() > 0) +
      (tensor.int64_data_size() > 0) + (tensor.uint64_data_size() > 0) +
      (tensor.string_data_size() > 0) + (tensor.external_data_size() > 0);
  if (fields > 1)
    return error("tensor '" + tensor.name() +
                 "' holds its values in more than one field (raw_data, "
                 "float_data, int32_data, ... or external_data)");
  if (tensor.has_raw_data()) {
    if (static_cast<int64_t>(tensor.raw_data().size()) != bytes)
      return error("tensor '" + tensor.name() + "': raw data holds " +
                   llvm::Twine(tensor.raw_data().size()) + " bytes, its type " +
                   llvm::Twine(bytes));
    return HostTensor(dtype, shape, std::move(owner), tensor.raw_data().data(),
                      bytes);
  }
  // The typed field for the element type, checked against the shape before
  // anything is allocated for it.
  int64_t have;
  switch (dtype) {
  case Float:
    have = tensor.float_data_size();
    break;
  case Double:
    have = tensor.double_data_size();
    break;
  case Int64:
    have = tensor.int64_data_size();
    break;
  case UInt32:
  case UInt64:
    have = tensor.uint64_data_size();
    break;
  default:
    // int32_data holds every type of 32 bits or less (halfs as their bits).
    have = tensor.int32_data_size();
    break;
  }
  if (have != elements)
    return error("tensor '" + tensor.name() + "' holds " + llvm::Twine(have) +
                 " values, its shape " + llvm::Twine(elements));
  std::vector<char> out(bytes);
  if (elements == 0)
    return HostTensor(dtype, shape, std::move(out));
  switch (dtype) {
  case Float:
    std::memcpy(out.data(), tensor.float_data().data(), bytes);
    break;
  case Double:
    std::memcpy(out.data(), tensor.double_data().data(), bytes);
    break;
  case Int64:
    std::memcpy(out.data(), tensor.int64_data().data(), bytes);
    break;
  case UInt32:
  case UInt64:
    for (int64_t i = 0; i < elements; ++i) {
      uint64_t v = tensor.uint64_data(i);
      std::memcpy(out.data() + i * elementSize, &v, elementSize);
    }
    break;
  default:
    for (int64_t i = 0; i < elements; ++i) {
      int32_t v = tensor.int32_data(i);
      std::memcpy(out.data() + i * elementSize, &v, elementSize);
    }
    break;
  }
  return HostTensor(dtype, shape, std::move(out));
}

} // namespace kiln::onnx_import
