//===- Specializations.h - Functions for fixed symbolic dimensions -------===//
//
// kiln-compile --specialize=NAME=N,...: the model imported again with
// those symbolic dimensions fixed (OnnxImportOptions::DimValues), its
// function added to the module beside the general one and marked as its
// specialization (`kiln.specialization_of`, read by the host plan); the
// runtime calls it on the calls whose input shapes it accepts. Static where
// the general function is dynamic, it gets the static kernels (a decoder's
// one-token step: matrix-vector products and row kernels instead of
// kernels over `?`).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_SPECIALIZATIONS_H
#define KILN_COMPILER_ONNX_SPECIALIZATIONS_H

#include "compiler/onnx/Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// Parses "NAME=N[,NAME=N...]" (N a non-negative integer, each NAME once).
llvm::Expected<llvm::StringMap<int64_t>>
parseSpecialization(llvm::StringRef spec);

/// For each of `specs`, imports the ONNX model at `path` with `options`
/// and those dimensions fixed, and adds its function to `module` (which
/// holds the general import) as the general function's specialization,
/// named `<general>_specialized<k>`. Errors are reported through the
/// context's diagnostics (or llvm::errs for a malformed spec).
mlir::LogicalResult
addOnnxSpecializations(mlir::MLIRContext &context, llvm::StringRef path,
                       const OnnxImportOptions &options,
                       const std::vector<std::string> &specs,
                       mlir::ModuleOp module);

/// The name of `general`'s batch (the function the ONNX model at `path`
/// imported to): the dim_param of the leading dimension of every graph
/// input that has a dynamic one, when the inputs have no other dynamic
/// dimension; empty for any other function (one of fixed shapes, a
/// decoder's sequence and cache lengths, an unnamed dimension, a batch
/// bounded above 1 by --input-shape).
/// kiln-compile --specialize-batch-one specializes it to 1.
std::string batchDimension(mlir::func::FuncOp general, llvm::StringRef path);

} // namespace kiln

#endif // KILN_COMPILER_ONNX_SPECIALIZATIONS_H
