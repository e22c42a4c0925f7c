//===- OnnxTypes.h - ONNX element types and their MLIR forms ----*- C++ -*-===//
//
// ONNX names element types by TensorProto::DataType numbers. The importer
// keeps that number next to every value because MLIR's tensors carry
// signless integers: uint8 and int8 are both i8 there, and converters pick
// signed or unsigned arithmetic from the ONNX type.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_ONNXTYPES_H
#define KILN_COMPILER_ONNX_ONNXTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace kiln::onnx_import {

/// TensorProto::DataType values (including those newer than ONNX 1.12,
/// which files written by newer exporters carry).
enum DType : int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
};

/// The ONNX spelling ("float", "int64", ...), or "dtype N" for unknown N.
std::string dtypeName(int32_t dtype);

/// The MLIR element type of `dtype` (signless for integers, i1 for bool), or
/// a null type when Kiln has none (strings, complex, 8-bit floats).
mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t dtype);

/// Bytes per element in an initializer's raw data (bool: 1); 0 if unknown.
int64_t dtypeByteSize(int32_t dtype);

bool isFloatDType(int32_t dtype);
/// Integers of either signedness (not bool).
bool isIntegerDType(int32_t dtype);
bool isUnsignedDType(int32_t dtype);

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_ONNXTYPES_H
