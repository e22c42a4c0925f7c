//===- FunctionTimes.h - Where a call's host time goes, per function ------===//
//
// A function run in phases waits for each phase on the host: reading back
// the values that decide the next phase's shapes, resolving those shapes,
// allocating its outputs, recording its steps where the shapes changed,
// and submitting and waiting for them. The device clock cannot time such a
// call as one, so ModuleInstance can sum these parts per function by the
// host's clock (ModuleInstance::setFunctionTiming) for a user to see which
// part of which phase or loop the time is in (kiln-benchmark-module
// --function_times).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_FUNCTIONTIMES_H
#define KILN_RUNTIME_MODULE_FUNCTIONTIMES_H

#include <chrono>
#include <cstdint>
#include <string>

namespace kiln::module {

/// Host seconds spent in one function, summed over the calls made while
/// timing was on.
struct FunctionTime {
  std::string Name;
  /// Times it ran: a phase once per call of its function, a loop's body
  /// once per step.
  uint64_t Runs = 0;
  /// Everything from entering it to leaving it; for a function that runs
  /// phases or loops, theirs included.
  double TotalSeconds = 0;
  /// Values read back from the device because they decide shapes.
  double ReadSeconds = 0;
  /// Shapes resolved from its inputs' shapes and those values.
  double ShapeSeconds = 0;
  /// Buffers allocated for its outputs and its arena.
  double AllocateSeconds = 0;
  /// Its steps recorded into a command buffer (first call, or new shapes).
  double RecordSeconds = 0;
  /// Its steps submitted and waited for.
  double RunSeconds = 0;
};

/// Adds the seconds from its construction to its destruction to `*sum`,
/// where `sum` is not null (timing off).
class ScopedSeconds {
public:
  explicit ScopedSeconds(double *sum)
      : Sum(sum), Start(Sum ? Clock::now() : Clock::time_point()) {}
  ~ScopedSeconds() {
    if (Sum)
      *Sum += std::chrono::duration<double>(Clock::now() - Start).count();
  }
  ScopedSeconds(const ScopedSeconds &) = delete;
  ScopedSeconds &operator=(const ScopedSeconds &) = delete;

private:
  using Clock = std::chrono::steady_clock;
  double *Sum;
  Clock::time_point Start;
};

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_FUNCTIONTIMES_H
