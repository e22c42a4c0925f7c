//===- HostTensor.cpp - A tensor value known at import time ---------------===//

#include "compiler/onnx/HostTensor.h"
#include "compiler/onnx/OnnxTypes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::onnx_import {

int64_t numElementsOf(llvm::ArrayRef<int64_t> shape) {
  // Saturating: shapes computed from a model's numbers may not fit int64,
  // and every size check compares this with a limit (setOutput refuses
  // such a shape with TensorLimits' message).
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

HostTensor::HostTensor(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                       std::shared_ptr<const void> owner, const char *data,
                       size_t size)
    : DType(dtype), Shape(shape), Owner(std::move(owner)), Data(data),
      Size(size) {
  assert(static_cast<int64_t>(size) ==
             numElementsOf(shape) * dtypeByteSize(dtype) &&
         "byte count does not match the shape");
}

HostTensor::HostTensor(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                       std::vector<char> bytes)
    : DType(dtype), Shape(shape) {
  auto owned = std::make_shared<std::vector<char>>(std::move(bytes));
  Data = owned->data();
  Size = owned->size();
  Owner = owned;
  assert(static_cast<int64_t>(Size) ==
             numElementsOf(shape) * dtypeByteSize(dtype) &&
         "byte count does not match the shape");
}

namespace {

template <typename T> T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T> void store(char *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

double halfToDouble(uint16_t bits, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(semantics, llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

uint16_t doubleToHalf(double v, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

// Float to integer as C++ would, but defined for NaN and out-of-range
// values (0 and saturation), which ONNX leaves undefined.
int64_t truncateToInt(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

void storeInt(int32_t dtype, char *p, int64_t v) {
  switch (dtype) {
  case Bool:
    store<uint8_t>(p, v != 0);
    return;
  case UInt8:
  case Int8:
    store<int8_t>(p, static_cast<int8_t>(v));
    return;
  case UInt16:
  case Int16:
    store<int16_t>(p, static_cast<int16_t>(v));
    return;
  case UInt32:
  case Int32:
    store<int32_t>(p, static_cast<int32_t>(v));
    return;
  case UInt64:
  case Int64:
    store<int64_t>(p, v);
    return;
  case Float:
    store<float>(p, static_cast<float>(v));
    return;
  case Double:
    store<double>(p, static_cast<double>(v));
    return;
  case Float16:
    store<uint16_t>(
        p, doubleToHalf(static_cast<double>(v), llvm::APFloat::IEEEhalf()));
    return;
  case BFloat16:
    store<uint16_t>(
        p, doubleToHalf(static_cast<double>(v), llvm::APFloat::BFloat()));
    return;
  }
  assert(false && "unsupported dtype");
}

void storeDouble(int32_t dtype, char *p, double v) {
  switch (dtype) {
  case Bool:
    store<uint8_t>(p, v != 0);
    return;
  case Float:
    store<float>(p, static_cast<float>(v));
    return;
  case Double:
    store<double>(p, v);
    return;
  case Float16:
    store<uint16_t>(p, doubleToHalf(v, llvm::APFloat::IEEEhalf()));
    return;
  case BFloat16:
    store<uint16_t>(p, doubleToHalf(v, llvm::APFloat::BFloat()));
    return;
  case UInt64:
    // Values past int64's range keep their bits.
    if (v >= 9.2233720368547758e18 && v < 1.8446744073709552e19) {
      store<uint64_t>(p, static_cast<uint64_t>(v));
      return;
    }
    break;
  }
  storeInt(dtype, p, truncateToInt(v));
}

} // namespace

HostTensor HostTensor::fromInt64s(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<int64_t> values) {
  int64_t size = dtypeByteSize(dtype);
  std::vector<char> bytes(values.size() * size);
  for (auto [i, v] : llvm::enumerate(values))
    storeInt(dtype, bytes.data() + i * size, v);
  return HostTensor(dtype, shape, std::move(bytes));
}

HostTensor HostTensor::fromDoubles(int32_t dtype, llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<double> values) {
  int64_t size = dtypeByteSize(dtype);
  std::vector<char> bytes(values.size() * size);
  for (auto [i, v] : llvm::enumerate(values))
    storeDouble(dtype, bytes.data() + i * size, v);
  return HostTensor(dtype, shape, std::move(bytes));
}

namespace {

int64_t loadInt(int32_t dtype, const char *p);

double loadDouble(int32_t dtype, const char *p) {
  switch (dtype) {
  case Float:
    return load<float>(p);
  case Double:
    return load<double>(p);
  case Float16:
    return halfToDouble(load<uint16_t>(p), llvm::APFloat::IEEEhalf());
  case BFloat16:
    return halfToDouble(load<uint16_t>(p), llvm::APFloat::BFloat());
  case UInt64:
    return static_cast<double>(load<uint64_t>(p));
  default:
    return static_cast<double>(loadInt(dtype, p));
  }
}

int64_t loadInt(int32_t dtype, const char *p) {
  switch (dtype) {
  case Bool:
    return load<uint8_t>(p) != 0;
  case UInt8:
    return load<uint8_t>(p);
  case Int8:
    return load<int8_t>(p);
  case UInt16:
    return load<uint16_t>(p);
  case Int16:
    return load<int16_t>(p);
  case UInt32:
    return load<uint32_t>(p);
  case Int32:
    return load<int32_t>(p);
  case UInt64:
  case Int64:
    return load<int64_t>(p);
  default:
    return truncateToInt(loadDouble(dtype, p));
  }
}

} // namespace

double roundedToDType(int32_t dtype, double v) {
  char bytes[8];
  storeDouble(dtype, bytes, v);
  return loadDouble(dtype, bytes);
}

int64_t wrappedToDType(int32_t dtype, int64_t v) {
  char bytes[8];
  storeInt(dtype, bytes, v);
  return loadInt(dtype, bytes);
}

int64_t HostTensor::intAt(int64_t i) const {
  return loadInt(DType, Data + i * dtypeByteSize(DType));
}

double HostTensor::doubleAt(int64_t i) const {
  return loadDouble(DType, Data + i * dtypeByteSize(DType));
}

llvm::SmallVector<int64_t> HostTensor::toInt64s() const {
  llvm::SmallVector<int64_t> out;
  out.reserve(numElements());
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    out.push_back(intAt(i));
  return out;
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> out;
  out.reserve(numElements());
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    out.push_back(doubleAt(i));
  return out;
}

HostTensor HostTensor::reshaped(llvm::ArrayRef<int64_t> shape) const {
  return HostTensor(DType, shape, Owner, Data, Size);
}

HostTensor HostTensor::castTo(int32_t dtype) const {
  if (dtype == DType)
    return *this;
  // Integers to integers keep their bits (as trunci, extsi and extui);
  // uint64 goes to floats through double, as its int64 form would be
  // negative past INT64_MAX.
  if (isFloatDType(DType) || (DType == UInt64 && isFloatDType(dtype)))
    return fromDoubles(dtype, Shape, toDoubles());
  return fromInt64s(dtype, Shape, toInt64s());
}

HostTensor HostTensor::gathered(llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> flatIndices) const {
  int64_t size = dtypeByteSize(DType);
  std::vector<char> bytes(flatIndices.size() * size);
  for (auto [i, index] : llvm::enumerate(flatIndices))
    std::memcpy(bytes.data() + i * size, Data + index * size, size);
  return HostTensor(DType, shape, std::move(bytes));
}

HostTensor HostTensor::transposed(llvm::ArrayRef<int64_t> perm) const {
  int64_t rank = Shape.size();
  llvm::SmallVector<int64_t> outShape(rank), inStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    inStrides[d] = inStrides[d + 1] * Shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    outShape[d] = Shape[perm[d]];
  int64_t n = numElements();
  llvm::SmallVector<int64_t> indices;
  indices.reserve(n);
  llvm::SmallVector<int64_t> position(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += position[d] * inStrides[perm[d]];
    indices.push_back(flat);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < outShape[d])
        break;
      position[d] = 0;
    }
  }
  return gathered(outShape, indices);
}

mlir::ElementsAttr HostTensor::toAttr(mlir::MLIRContext *context,
                                      llvm::StringRef nameHint) const {
  auto type = mlir::RankedTensorType::get(Shape, elementTypeOf(context, DType));
  int64_t n = numElements();
  if (DType == Bool) {
    llvm::SmallVector<bool> values;
    for (int64_t i = 0; i < n; ++i)
      values.push_back(Data[i] != 0);
    return mlir::DenseElementsAttr::get(type, values);
  }
  int64_t size = dtypeByteSize(DType);
  bool splat = n > 0;
  for (int64_t i = 1; i < n && splat; ++i)
    splat = std::memcmp(Data, Data + i * size, size) == 0;
  if (splat)
    return mlir::DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(Data, size));
  // Small constants stay readable and foldable; weights become blobs, which
  // kiln-compile copies into the module without a trip through text.
  if (n <= 64)
    return mlir::DenseElementsAttr::getFromRawBuffer(type, bytes());
  // Blob names are printed as bare keys in MLIR text.
  std::string key;
  for (char c : nameHint)
    key += llvm::isAlnum(c) ? c : '_';
  return mlir::DenseResourceElementsAttr::get(
      type, key.empty() ? "constant" : key,
      mlir::HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes(),
                                                          /*align=*/64));
}

} // namespace kiln::onnx_import
