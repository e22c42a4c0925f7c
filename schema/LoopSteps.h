//===- LoopSteps.h - How many steps a loop phase runs per call -----------===//
//
// A loop phase (module.fbs PhaseLoop) takes its trip count and condition
// from data: a model's or a call's. The runtime stops a call whose loop is
// still running after this many steps (one line, not a call that never
// returns), and the compiler refuses a loop whose trip count is a constant
// above it. Shared, header-only, by both.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_LOOPSTEPS_H
#define KILN_SCHEMA_LOOPSTEPS_H

#include <cstdint>

namespace kiln::schema {

inline constexpr int64_t kMaxLoopSteps = int64_t(1) << 20;

} // namespace kiln::schema

#endif // KILN_SCHEMA_LOOPSTEPS_H
