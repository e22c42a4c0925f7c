//===- OnnxLimitFlags.h - The ONNX importer's limit flag --------*- C++ -*-===//
//
// --onnx-max-tensor-bytes, shared by kiln-compile and kiln-import-onnx so
// both read a model under the same limits.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_ONNXLIMITFLAGS_H
#define KILN_TOOLS_ONNXLIMITFLAGS_H

#include "compiler/onnx/Importer.h"

#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <cstdint>

namespace kiln {

/// The flag, in `category` (the tool's, so --help lists it).
inline llvm::cl::opt<uint64_t> &
onnxMaxTensorBytesFlag(llvm::cl::OptionCategory &category) {
  static llvm::cl::opt<uint64_t> flag(
      "onnx-max-tensor-bytes",
      llvm::cl::desc("For an ONNX input: the largest tensor, in bytes, a "
                     "model may declare or compute (default 2^40)"),
      llvm::cl::init(onnx_import::TensorLimits::kDefaultMaxBytes),
      llvm::cl::cat(category));
  return flag;
}

/// Sets `options`' limits from the flag.
inline void applyOnnxLimitFlags(llvm::cl::OptionCategory &category,
                                OnnxImportOptions &options) {
  options.Limits.MaxBytes = static_cast<int64_t>(
      std::min<uint64_t>(onnxMaxTensorBytesFlag(category), INT64_MAX));
}

} // namespace kiln

#endif // KILN_TOOLS_ONNXLIMITFLAGS_H
