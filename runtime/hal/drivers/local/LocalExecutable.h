//===- LocalExecutable.h - A CPU shared object and its entry points -------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEXECUTABLE_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEXECUTABLE_H

#include "runtime/base/DynamicLibrary.h"
#include "runtime/hal/Executable.h"
#include "runtime/hal/drivers/local/CpuAbi.h"

#include <memory>
#include <vector>

namespace kiln::hal::local {

class LocalExecutable final : public Executable {
public:
  /// Loads `spec.Image` (format cpu-elf-x86_64) and resolves every entry
  /// point; a missing symbol is NotFound naming it.
  static StatusOr<std::shared_ptr<LocalExecutable>>
  load(const ExecutableSpec &spec);

  KilnCpuEntryPoint function(uint32_t entryPoint) const {
    return Functions[entryPoint];
  }

private:
  LocalExecutable(const ExecutableSpec &spec,
                  std::unique_ptr<DynamicLibrary> library,
                  std::vector<KilnCpuEntryPoint> functions)
      : Executable(spec), Library(std::move(library)),
        Functions(std::move(functions)) {}

  std::unique_ptr<DynamicLibrary> Library;
  std::vector<KilnCpuEntryPoint> Functions;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALEXECUTABLE_H
