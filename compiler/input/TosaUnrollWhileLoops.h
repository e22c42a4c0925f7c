//===- TosaUnrollWhileLoops.h - Counted tosa.while_loop unrolled -*- C++
//-*-===//
#ifndef KILN_COMPILER_INPUT_TOSAUNROLLWHILELOOPS_H
#define KILN_COMPILER_INPUT_TOSAUNROLLWHILELOOPS_H

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace kiln {

/// The most steps kiln-tosa-unroll-while-loops writes out for one loop.
inline constexpr int64_t kMaxUnrolledWhileSteps = 1024;

/// How many times `loop`'s body runs, when its condition folds to a
/// constant at every step from constant initial values (a counter against
/// a limit): the loop-carried values the condition reads, and those they
/// are computed from, evaluated by the ops' folders; nullopt when some
/// value it needs is not a constant or the count passes `maxSteps`.
std::optional<int64_t> countWhileLoopSteps(mlir::tosa::WhileOp loop,
                                           int64_t maxSteps);

/// Rewrites each tosa.while_loop whose count countWhileLoopSteps gives as
/// that many copies of its body.
void populateTosaUnrollWhileLoopsPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_INPUT_TOSAUNROLLWHILELOOPS_H
