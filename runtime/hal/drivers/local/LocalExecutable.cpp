//===- LocalExecutable.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalExecutable.h"

namespace kiln::hal::local {

StatusOr<std::shared_ptr<LocalExecutable>>
LocalExecutable::load(const ExecutableSpec &spec) {
  std::string debugName =
      strCat("kiln-", spec.Name.empty() ? "executable" : spec.Name);
  auto library = DynamicLibrary::openFromMemory(spec.Image, debugName);
  if (!library.ok())
    return Status(library.status())
        .annotate(strCat("executable '", spec.Name, "' (", spec.Target, ")"));
  std::vector<KilnCpuEntryPoint> functions;
  for (const EntryPointSpec &entry : spec.EntryPoints) {
    StatusOr<void *> address = (*library)->symbol(entry.Name);
    if (!address.ok())
      return KILN_ERROR(NotFound, "executable '", spec.Name,
                        "' has no entry point '", entry.Name,
                        "': ", address.status().message());
    if (!*address)
      return KILN_ERROR(NotFound, "executable '", spec.Name, "': entry point '",
                        entry.Name, "' is null");
    functions.push_back(reinterpret_cast<KilnCpuEntryPoint>(*address));
  }
  return std::shared_ptr<LocalExecutable>(new LocalExecutable(
      spec, std::move(library).value(), std::move(functions)));
}

} // namespace kiln::hal::local
