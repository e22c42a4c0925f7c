//===- OnnxFile.h - Reading .onnx files and their tensors -------*- C++ -*-===//
//
// An ONNX file is a protobuf ModelProto; weights are inside it or, for
// models past protobuf's 2 GiB, in files next to it ("external data").
// Anything that is not a model, is cut short or points outside the model's
// folder is a one-line error here, before the importer sees it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_ONNXFILE_H
#define KILN_COMPILER_ONNX_ONNXFILE_H

#include "compiler/onnx/HostTensor.h"
#include "compiler/onnx/TensorLimits.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace onnx {
class ModelProto;
class TensorProto;
} // namespace onnx

namespace kiln::onnx_import {

/// The file at `path`, opened without blocking (a FIFO would wait for a
/// writer forever) and checked to be a regular, non-empty file of at most
/// `maxBytes` bytes through the descriptor that is then read (mapped;
/// `nullTerminated` for text parsers that stop at a NUL).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
openModelFile(llvm::StringRef path, uint64_t maxBytes,
              bool nullTerminated = false);

/// Parses `path` as an ONNX model.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
readOnnxModel(llvm::StringRef path);

/// Whether the file at `path` should be read as ONNX: its name ends in
/// .onnx, or its first bytes are what every ONNX writer puts first (field 1,
/// ir_version, as a varint), which MLIR text never starts with.
bool looksLikeOnnxFile(llvm::StringRef path);

/// The tensor's elements as host bytes: raw_data, the typed repeated
/// fields, or external data read from a file in `modelDir`
/// (readExternalData). Its shape is checked against `limits` before
/// anything is read or allocated, and exactly one field may hold the
/// values. `owner` keeps `tensor` alive when the result aliases its bytes.
llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      llvm::StringRef modelDir,
                                      std::shared_ptr<const void> owner,
                                      const TensorLimits &limits);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_ONNXFILE_H
