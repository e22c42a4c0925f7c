//===- StepAccesses.h - The bytes a module step touches ---------*- C++ -*-===//
//
// The verifier checks a static function's step dependencies against the
// ranges in the file once, at load; a function with dynamic shapes has its
// ranges per call (CallShapes.h) and is checked against the same rule
// (schema/StepDependencies.h) each time its shapes change. Both read a
// step's accesses here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_STEPACCESSES_H
#define KILN_RUNTIME_MODULE_STEPACCESSES_H

#include "schema/StepDependencies.h"
#include "schema/module_generated.h"

#include <span>
#include <vector>

namespace kiln::module {

/// A range's offset and length in bytes as one call places it.
struct ResolvedRange {
  uint64_t Offset = 0;
  uint64_t Length = 0;
};

/// The bytes a checked step reads and writes: its ranges in the file, or
/// `resolved` (one per range, in the order the step lists them: a dispatch's
/// bindings, a copy's source and target, a fill's target) when not empty. A
/// dispatch without binding access (minor version 0) may read and write
/// every binding.
std::vector<schema::StepAccess>
stepAccesses(const schema::Step &step,
             std::span<const ResolvedRange> resolved = {});

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_STEPACCESSES_H
