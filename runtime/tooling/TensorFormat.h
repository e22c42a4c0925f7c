//===- TensorFormat.h - Tensors as one line of text -----------------------===//
//
// The result format users know from IREE: "4xf32=3 4 5 6", rank >= 2 with
// each innermost row in brackets and outer levels nested ("2x2xf32=[1 2][3
// 4]"), rank 0 as "f32=5". The parser reads this format back.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_TENSORFORMAT_H
#define KILN_RUNTIME_TOOLING_TENSORFORMAT_H

#include "runtime/base/HostTensor.h"

#include <cstdint>
#include <string>

namespace kiln::tooling {

/// One element: integers exactly, f32 with 7 significant digits, f16/bf16
/// with 5 and 4, f64 with 15; i1 as 0 or 1.
std::string formatElement(ElementType type, const uint8_t *data);

/// The whole tensor on one line.
std::string formatTensor(const HostTensor &tensor);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_TENSORFORMAT_H
