//===- LowerInputOps.h - Accepted ops no back end lowers -------*- C++ -*-===//
#ifndef KILN_COMPILER_INPUT_LOWERINPUTOPS_H
#define KILN_COMPILER_INPUT_LOWERINPUTOPS_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// Rewrites ops that kiln-verify-input accepts but that no back end lowers
/// (math.acosh/asinh/atanh, tosa.apply_scale, linalg.pack/unpack) into ops
/// every back end handles. Target neutral.
void populateLowerInputOpsPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_INPUT_LOWERINPUTOPS_H
