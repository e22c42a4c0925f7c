//===- VariantSpec.cpp ----------------------------------------------------===//

#include "runtime/module/VariantSpec.h"

namespace kiln::module {

hal::ExecutableSpec variantSpec(const schema::Executable &executable,
                                const schema::ExecutableVariant &variant) {
  hal::ExecutableSpec spec;
  spec.Name = executable.name()->str();
  spec.Format = variant.format()->str();
  spec.Target = variant.target()->str();
  spec.Image = std::span<const uint8_t>(variant.image()->data(),
                                        variant.image()->size());
  for (const schema::EntryPoint *entry : *variant.entry_points()) {
    hal::EntryPointSpec entrySpec;
    entrySpec.Name = entry->name()->str();
    for (int i = 0; i < 3; ++i) {
      entrySpec.WorkgroupSize[i] = entry->workgroup_size()->Get(i);
      entrySpec.WorkgroupCount[i] = entry->workgroup_count()->Get(i);
    }
    entrySpec.BindingCount = entry->binding_count();
    entrySpec.PushConstantCount = entry->push_constant_count();
    entrySpec.SharedMemoryBytes = entry->shared_memory_bytes();
    entrySpec.WaitsForPrerequisites = entry->waits_for_prerequisites();
    spec.EntryPoints.push_back(std::move(entrySpec));
  }
  return spec;
}

} // namespace kiln::module
