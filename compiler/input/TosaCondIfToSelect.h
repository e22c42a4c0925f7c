//===- TosaCondIfToSelect.h - tosa.cond_if as both branches -----*- C++ -*-===//
#ifndef KILN_COMPILER_INPUT_TOSACONDIFTOSELECT_H
#define KILN_COMPILER_INPUT_TOSACONDIFTOSELECT_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// Rewrites a tosa.cond_if whose branches have no side effects and whose
/// results have static shapes as both branches inlined and each result an
/// elementwise select by the condition (read as 0-d data).
void populateTosaCondIfToSelectPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_INPUT_TOSACONDIFTOSELECT_H
