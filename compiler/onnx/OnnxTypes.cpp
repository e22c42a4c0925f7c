//===- OnnxTypes.cpp - ONNX element types and their MLIR forms ------------===//

#include "compiler/onnx/OnnxTypes.h"

#include "mlir/IR/MLIRContext.h"

#include <string>

namespace kiln::onnx_import {

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case Float:
    return "float";
  case UInt8:
    return "uint8";
  case Int8:
    return "int8";
  case UInt16:
    return "uint16";
  case Int16:
    return "int16";
  case Int32:
    return "int32";
  case Int64:
    return "int64";
  case String:
    return "string";
  case Bool:
    return "bool";
  case Float16:
    return "float16";
  case Double:
    return "double";
  case UInt32:
    return "uint32";
  case UInt64:
    return "uint64";
  case Complex64:
    return "complex64";
  case Complex128:
    return "complex128";
  case BFloat16:
    return "bfloat16";
  case 17:
    return "float8e4m3fn";
  case 18:
    return "float8e4m3fnuz";
  case 19:
    return "float8e5m2";
  case 20:
    return "float8e5m2fnuz";
  case 21:
    return "uint4";
  case 22:
    return "int4";
  default:
    return "dtype " + std::to_string(dtype);
  }
}

mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t dtype) {
  switch (dtype) {
  case Float:
    return mlir::Float32Type::get(context);
  case Double:
    return mlir::Float64Type::get(context);
  case Float16:
    return mlir::Float16Type::get(context);
  case BFloat16:
    return mlir::BFloat16Type::get(context);
  case Bool:
    return mlir::IntegerType::get(context, 1);
  case UInt8:
  case Int8:
    return mlir::IntegerType::get(context, 8);
  case UInt16:
  case Int16:
    return mlir::IntegerType::get(context, 16);
  case UInt32:
  case Int32:
    return mlir::IntegerType::get(context, 32);
  case UInt64:
  case Int64:
    return mlir::IntegerType::get(context, 64);
  default:
    return {};
  }
}

int64_t dtypeByteSize(int32_t dtype) {
  switch (dtype) {
  case Bool:
  case UInt8:
  case Int8:
    return 1;
  case UInt16:
  case Int16:
  case Float16:
  case BFloat16:
    return 2;
  case Float:
  case UInt32:
  case Int32:
    return 4;
  case Double:
  case UInt64:
  case Int64:
    return 8;
  default:
    return 0;
  }
}

bool isFloatDType(int32_t dtype) {
  return dtype == Float || dtype == Double || dtype == Float16 ||
         dtype == BFloat16;
}

bool isIntegerDType(int32_t dtype) {
  switch (dtype) {
  case UInt8:
  case Int8:
  case UInt16:
  case Int16:
  case UInt32:
  case Int32:
  case UInt64:
  case Int64:
    return true;
  default:
    return false;
  }
}

bool isUnsignedDType(int32_t dtype) {
  return dtype == UInt8 || dtype == UInt16 || dtype == UInt32 ||
         dtype == UInt64;
}

} // namespace kiln::onnx_import
