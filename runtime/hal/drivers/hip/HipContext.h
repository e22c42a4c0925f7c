//===- HipContext.h - One AMD GPU as HIP's current device -----------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_HIP_HIPCONTEXT_H
#define KILN_RUNTIME_HAL_DRIVERS_HIP_HIPCONTEXT_H

#include "runtime/hal/drivers/hip/HipStatus.h"

#include <memory>

namespace kiln::hal::hip {

/// HIP has no contexts to retain: each thread has a current device, and
/// every stream, allocation and module belongs to the device current when
/// it was made. This names one device and makes it current. The driver
/// keeps one per GPU, so devices opened twice on one GPU share it (and so
/// GpuApi::contextId, which says their streams share an address space).
class HipContext {
public:
  HipContext(std::shared_ptr<const HipSymbols> symbols, int ordinal)
      : Symbols(std::move(symbols)), Ordinal(ordinal) {}
  HipContext(const HipContext &) = delete;
  HipContext &operator=(const HipContext &) = delete;

  const HipSymbols &symbols() const { return *Symbols; }
  int ordinal() const { return Ordinal; }

  /// Makes the device current on this thread, remembering the one before.
  void push() const;
  /// Restores the device push found.
  void pop() const;
  /// Makes the device current for good on a thread of the caller's own.
  void bind() const;

  /// push() for the scope's lifetime: HAL calls arrive on any thread.
  class Scope {
  public:
    explicit Scope(const HipContext &context) : Context(context) {
      Context.push();
    }
    ~Scope() { Context.pop(); }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    const HipContext &Context;
  };

private:
  std::shared_ptr<const HipSymbols> Symbols;
  int Ordinal;
};

} // namespace kiln::hal::hip

#endif // KILN_RUNTIME_HAL_DRIVERS_HIP_HIPCONTEXT_H
