//===- ExternalData.h - Reading a tensor's bytes from beside the model -*-===//
//
// An ONNX tensor may keep its bytes in another file ("external data"),
// named by a location relative to the model. Models are downloaded from
// strangers, so that location is hostile: it may climb out of the folder,
// name a link to a file elsewhere (a symbolic link, or a hard link made
// where the downloader could write), a FIFO that blocks the reader, or an
// offset and length that overflow. Every external tensor of a model, be it
// an initializer, a Constant's value or any node's tensor attribute, is
// read through readExternalData, which opens the file itself relative to
// the model folder's descriptor without following links and checks the
// descriptor it then reads from, so no name is looked up twice.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_EXTERNALDATA_H
#define KILN_COMPILER_ONNX_EXTERNALDATA_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace kiln::onnx_import {

/// Where a tensor's external bytes are, as its external_data entries say.
struct ExternalLocation {
  std::string Location;
  uint64_t Offset = 0;
  std::optional<uint64_t> Length;
};

/// `bytes` bytes of the file `where.Location` names inside `modelDir` ("" is
/// the working directory), from `where.Offset`. The location must be a
/// relative path of plain names (no "..", no symbolic link anywhere along
/// it) naming a regular file with one link whose size covers the range;
/// `where.Length`, when given, must equal `bytes`. Errors are one line
/// without the tensor's name (the caller prefixes it).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readExternalData(llvm::StringRef modelDir, const ExternalLocation &where,
                 uint64_t bytes);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_EXTERNALDATA_H
