//===- Executable.cpp -----------------------------------------------------===//

#include "runtime/hal/Executable.h"

#include <set>
#include <string_view>

namespace kiln::hal {

Executable::~Executable() = default;

Status validateExecutableSpec(const ExecutableSpec &spec) {
  auto error = [&](auto &&...args) {
    return KILN_ERROR(InvalidArgument, "executable '", spec.Name, "' (",
                      spec.Format, "/", spec.Target, "): ", args...);
  };
  if (spec.Format.empty() || spec.Target.empty())
    return error("format and target must be set");
  if (spec.Image.empty())
    return error("empty image");
  if (spec.EntryPoints.empty())
    return error("no entry points");
  std::set<std::string_view> names;
  for (const EntryPointSpec &entry : spec.EntryPoints) {
    if (entry.Name.empty())
      return error("an entry point has an empty name");
    if (!names.insert(entry.Name).second)
      return error("entry point '", entry.Name, "' appears twice");
    if (entry.BindingCount > kMaxBindings)
      return error("entry point '", entry.Name, "' has ", entry.BindingCount,
                   " bindings; the limit is ", kMaxBindings);
    if (entry.PushConstantCount > kMaxPushConstants)
      return error("entry point '", entry.Name, "' has ",
                   entry.PushConstantCount, " push constants; the limit is ",
                   kMaxPushConstants);
    for (uint32_t size : entry.WorkgroupSize)
      if (size == 0)
        return error("entry point '", entry.Name,
                     "' has a zero workgroup size");
  }
  return Status();
}

} // namespace kiln::hal
