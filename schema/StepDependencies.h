//===- StepDependencies.h - Which steps of a function must wait for which -===//
//
// A function's steps run as a graph, not a sequence: step j waits for the
// earlier steps listed in its `dependencies` (module.fbs) and for nothing
// else, so independent dispatches (branches of a block, heads of an
// attention layer) may run at once. Two steps must be ordered when they
// touch overlapping bytes of the same storage and at least one of them
// writes them: read-after-write, write-after-write and write-after-read,
// the last being what the arena's reuse of dead values' bytes needs.
//
// The compiler derives each step's dependencies here (the fewest direct
// ones whose transitive closure orders every conflicting earlier step), and
// the runtime's verifier checks a loaded module against the same rule, so a
// module whose steps could race is refused instead of run.
//
// Header-only and dependency-free: like module.fbs, it is part of the file
// format that the compiler writes and the runtime reads.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_STEPDEPENDENCIES_H
#define KILN_SCHEMA_STEPDEPENDENCIES_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace kiln::schema {

/// Bytes one step reads or writes. `Storage` and `Index` are the module's
/// StorageKind and index; for storage with a single buffer (the arena, the
/// constants) callers pass index 0.
struct StepAccess {
  uint8_t Storage = 0;
  uint32_t Index = 0;
  uint64_t Offset = 0;
  uint64_t Length = 0;
  bool Written = false;
};

/// Whether two accesses must be ordered: overlapping bytes of one buffer, at
/// least one a write. Empty ranges touch nothing.
inline bool conflicts(const StepAccess &a, const StepAccess &b) {
  if (!a.Written && !b.Written)
    return false;
  if (a.Storage != b.Storage || a.Index != b.Index || a.Length == 0 ||
      b.Length == 0)
    return false;
  return a.Offset < b.Offset + b.Length && b.Offset < a.Offset + a.Length;
}

/// The transitive closure of step dependencies: for each step, the set of
/// earlier steps it waits for directly or through others.
class StepOrder {
public:
  explicit StepOrder(size_t stepCount)
      : Words((stepCount + 63) / 64), Bits(stepCount * Words, 0) {}

  /// Step `step` waits for `dependencies` (each earlier than `step`); steps
  /// must be added in order.
  void add(size_t step, std::span<const uint32_t> dependencies) {
    for (uint32_t dependency : dependencies) {
      uint64_t *into = row(step);
      const uint64_t *from = row(dependency);
      for (size_t w = 0; w < Words; ++w)
        into[w] |= from[w];
      into[dependency / 64] |= uint64_t(1) << (dependency % 64);
    }
  }
  /// Step `step` waits for every earlier step (a module step that lists no
  /// dependencies, as modules before dependencies existed).
  void addAfterAll(size_t step) {
    for (size_t earlier = 0; earlier < step; ++earlier)
      row(step)[earlier / 64] |= uint64_t(1) << (earlier % 64);
  }
  /// Whether `later` waits, directly or not, for `earlier`.
  bool waitsFor(size_t later, size_t earlier) const {
    return (Bits[later * Words + earlier / 64] >> (earlier % 64)) & 1;
  }

private:
  uint64_t *row(size_t step) { return Bits.data() + step * Words; }

  size_t Words;
  std::vector<uint64_t> Bits;
};

/// Whether step `later` must wait for step `earlier`.
inline bool stepsConflict(std::span<const StepAccess> earlier,
                          std::span<const StepAccess> later) {
  for (const StepAccess &a : earlier)
    for (const StepAccess &b : later)
      if (conflicts(a, b))
        return true;
  return false;
}

/// Each step's direct dependencies, ascending: every conflicting earlier
/// step is ordered before it, and none of the listed ones is implied by
/// another (the transitive reduction), so a graph built from them has no
/// redundant edge.
inline std::vector<std::vector<uint32_t>>
deriveStepDependencies(std::span<const std::vector<StepAccess>> steps) {
  std::vector<std::vector<uint32_t>> dependencies(steps.size());
  StepOrder order(steps.size());
  for (size_t later = 0; later < steps.size(); ++later) {
    // Latest first: a conflicting step is needed directly only if no later
    // direct dependency already waits for it (an earlier step never waits
    // for a later one, so nothing chosen afterwards can imply it).
    std::vector<uint32_t> direct;
    for (size_t earlier = later; earlier-- > 0;) {
      if (!stepsConflict(steps[earlier], steps[later]))
        continue;
      bool implied = false;
      for (uint32_t chosen : direct)
        if (order.waitsFor(chosen, earlier)) {
          implied = true;
          break;
        }
      if (!implied)
        direct.push_back(static_cast<uint32_t>(earlier));
    }
    dependencies[later].assign(direct.rbegin(), direct.rend());
    order.add(later, dependencies[later]);
  }
  return dependencies;
}

/// The first pair (earlier, later) of conflicting steps that `order` leaves
/// unordered, if any.
inline std::optional<std::pair<uint32_t, uint32_t>>
findUnorderedConflict(std::span<const std::vector<StepAccess>> steps,
                      const StepOrder &order) {
  for (size_t later = 0; later < steps.size(); ++later)
    for (size_t earlier = 0; earlier < later; ++earlier)
      if (!order.waitsFor(later, earlier) &&
          stepsConflict(steps[earlier], steps[later]))
        return std::pair<uint32_t, uint32_t>(static_cast<uint32_t>(earlier),
                                             static_cast<uint32_t>(later));
  return std::nullopt;
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_STEPDEPENDENCIES_H
