//===- FuseElementwise.h - Bounded elementwise fusion patterns --*- C++ -*-===//
#ifndef KILN_COMPILER_GLOBALOPT_FUSEELEMENTWISE_H
#define KILN_COMPILER_GLOBALOPT_FUSEELEMENTWISE_H

#include "mlir/IR/PatternMatch.h"

#include <cstdint>

namespace kiln {

/// How large a generic elementwise fusion may make.
struct FusionBounds {
  int64_t MaxBodyOps = 64;
  int64_t MaxOperands = 32;
};

/// Upstream's elementwise fusion patterns (linalg-fuse-elementwise-ops'
/// set) with a control function that also refuses fusions whose result
/// would pass `bounds`.
void populateBoundedElementwiseFusionPatterns(mlir::RewritePatternSet &patterns,
                                              FusionBounds bounds);

} // namespace kiln

#endif // KILN_COMPILER_GLOBALOPT_FUSEELEMENTWISE_H
