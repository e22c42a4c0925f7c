//===- Executable.h - Loaded device code and its entry points -------------===//
#ifndef KILN_RUNTIME_HAL_EXECUTABLE_H
#define KILN_RUNTIME_HAL_EXECUTABLE_H

#include "runtime/base/Status.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::hal {

struct EntryPointSpec {
  std::string Name;
  std::array<uint32_t, 3> WorkgroupSize = {1, 1, 1};
  // The grid the compiler chose; dispatches pass their own grid.
  std::array<uint32_t, 3> WorkgroupCount = {1, 1, 1};
  uint32_t BindingCount = 0;
  uint32_t PushConstantCount = 0;
  uint32_t SharedMemoryBytes = 0;
  // The kernel waits for the dispatches it depends on before touching
  // memory, so a device may launch it while they finish.
  bool WaitsForPrerequisites = false;
};

/// What a device needs to load an executable. `Image` is only read during
/// createExecutable.
struct ExecutableSpec {
  std::string Name; // for messages
  std::string Format;
  std::string Target;
  std::span<const uint8_t> Image;
  std::vector<EntryPointSpec> EntryPoints;
};

/// Limits every driver accepts; dispatch arguments beyond them would not fit
/// a CUDA kernel's parameter space.
inline constexpr uint32_t kMaxBindings = 256;
inline constexpr uint32_t kMaxPushConstants = 256;

/// Driver-independent checks: non-empty image and names, unique names,
/// counts within limits, non-zero workgroup sizes.
Status validateExecutableSpec(const ExecutableSpec &spec);

class Executable {
public:
  virtual ~Executable();
  Executable(const Executable &) = delete;
  Executable &operator=(const Executable &) = delete;

  const std::string &name() const { return Name; }
  const std::string &format() const { return Format; }
  const std::string &target() const { return Target; }
  const std::vector<EntryPointSpec> &entryPoints() const { return EntryPoints; }

protected:
  explicit Executable(const ExecutableSpec &spec)
      : Name(spec.Name), Format(spec.Format), Target(spec.Target),
        EntryPoints(spec.EntryPoints) {}

private:
  std::string Name;
  std::string Format;
  std::string Target;
  std::vector<EntryPointSpec> EntryPoints;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_EXECUTABLE_H
