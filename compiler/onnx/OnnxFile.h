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

#include "llvm/Support/Error.h"

#include <memory>

namespace onnx {
class ModelProto;
class TensorProto;
} // namespace onnx

namespace kiln::onnx_import {

/// Parses `path` as an ONNX model.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
readOnnxModel(llvm::StringRef path);

/// Whether the file at `path` should be read as ONNX: its name ends in
/// .onnx, or its first bytes are what every ONNX writer puts first (field 1,
/// ir_version, as a varint), which MLIR text never starts with.
bool looksLikeOnnxFile(llvm::StringRef path);

/// The tensor's elements as host bytes: raw_data, the typed repeated
/// fields, or external data read from a file in `modelDir` (the location
/// must be relative and stay inside it). `owner` keeps `tensor` alive when
/// the result aliases its bytes.
llvm::Expected<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                      llvm::StringRef modelDir,
                                      std::shared_ptr<const void> owner);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_ONNXFILE_H
