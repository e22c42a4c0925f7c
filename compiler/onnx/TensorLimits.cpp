//===- TensorLimits.cpp - Checked shape and size arithmetic ---------------===//

#include "compiler/onnx/TensorLimits.h"

#include <algorithm>
#include <limits>
#include <string>

namespace kiln::onnx_import {

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

llvm::Expected<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                           int64_t elementBytes,
                                           const llvm::Twine &what,
                                           const TensorLimits &limits) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + " " + why);
  };
  if (static_cast<int64_t>(shape.size()) > limits.MaxRank)
    return fail("has rank " + llvm::Twine(shape.size()) +
                ", above the largest Kiln supports (" +
                llvm::Twine(limits.MaxRank) + ")");
  // The dims as a string, for the messages below.
  auto dims = [&] {
    std::string s;
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? "x" : "") + std::to_string(shape[i]);
    return s.empty() ? std::string("a scalar") : s;
  };
  int64_t elements = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0)
      return fail("has a negative dimension (" + dims() + ")");
    // Even an empty tensor's dimensions stay below the limit, so strides
    // and offsets computed from them cannot overflow.
    if (d > limits.MaxBytes)
      return fail("of shape " + dims() + " has a dimension above the limit " +
                  llvm::Twine(limits.MaxBytes) + " (--onnx-max-tensor-bytes)");
    // Keep multiplying past an overflow only to spot a zero dimension,
    // which makes the tensor empty and valid.
    std::optional<int64_t> next = checkedMul(elements, d);
    if (!next)
      overflow = true;
    else
      elements = *next;
  }
  if (llvm::is_contained(shape, 0))
    return 0;
  std::optional<int64_t> bytes =
      overflow ? std::nullopt
               : checkedMul(elements, std::max<int64_t>(1, elementBytes));
  if (!bytes || *bytes > limits.MaxBytes) {
    std::string size = bytes ? std::to_string(*bytes) + " bytes"
                             : std::string("its size overflows 64 bits");
    return fail("of shape " + dims() + " is too large (" + size +
                "; the limit is " + llvm::Twine(limits.MaxBytes) +
                " bytes, --onnx-max-tensor-bytes)");
  }
  return elements;
}

llvm::SmallVector<int64_t> staticPartOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> out(shape);
  for (int64_t &d : out)
    if (d == std::numeric_limits<int64_t>::min())
      d = 1;
  return out;
}

} // namespace kiln::onnx_import
