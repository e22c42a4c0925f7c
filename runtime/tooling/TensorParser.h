//===- TensorParser.h - Tensors from command-line strings -----------------===//
//
// The --input syntax users know from IREE:
//   4xf32=[1 2 3 4]        2x2xi32=[[1 2][3 4]]     2x2xi32=[1 2][3 4]
//   1x224x224x3xf32=0      (one value fills the tensor)
//   f32=5                  (rank 0)
//   2xi1=[true false]      2xf32=1,2              4xf32 (zero-filled)
//   @file.npy              (shape and type from the file)
// Values may be separated by whitespace or commas. Brackets are optional, but
// when present they must match the shape. f16/bf16 values are parsed as
// numbers and rounded to nearest even.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TENSORPARSER_H
#define KILN_RUNTIME_TOOLING_TENSORPARSER_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/tooling/TensorAllocation.h"

#include <cstdint>
#include <string_view>

namespace kiln::tooling {

/// Parses a tensor string; every malformed string is InvalidArgument quoting
/// the string and saying what is wrong. `check`, when given, sees the type
/// (from the text before '=' or the .npy header) before anything is
/// allocated, so a wrong type costs nothing however large it is.
StatusOr<HostTensor> parseTensor(std::string_view text,
                                 const TensorTypeCheck &check = {});

/// Parses "2x3xf32" or "f32".
StatusOr<ParsedTensorType> parseTensorType(std::string_view text);

/// Parses one value of `type` into elementTypeSize(type) bytes at `out`.
Status parseElement(std::string_view token, ElementType type, uint8_t *out);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TENSORPARSER_H
