//===- ConstantBytes.h - The bytes of a tensor constant --------*- C++ -*-===//
//
// Folding a layout change or a type change into a model's weights reads
// their bytes, which come as dense elements or as dense_resource blobs
// (what the ONNX importer writes for large tensors; upstream's constant
// folding does not read those).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_GLOBALOPT_CONSTANTBYTES_H
#define KILN_COMPILER_GLOBALOPT_CONSTANTBYTES_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <optional>

namespace kiln {

/// The bytes of `attr`'s elements, `elementBytes` each, row-major: a
/// non-splat dense elements attribute's raw data or a dense_resource
/// blob's (of exactly that size); none for anything else (splats too).
std::optional<llvm::ArrayRef<char>> constantBytes(mlir::ElementsAttr attr,
                                                  int64_t elementBytes);

} // namespace kiln

#endif // KILN_COMPILER_GLOBALOPT_CONSTANTBYTES_H
