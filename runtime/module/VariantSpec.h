//===- VariantSpec.h - An executable variant as a device loads it ---------===//
#ifndef KILN_RUNTIME_MODULE_VARIANTSPEC_H
#define KILN_RUNTIME_MODULE_VARIANTSPEC_H

#include "runtime/hal/Executable.h"
#include "schema/module_generated.h"

namespace kiln::module {

/// `variant` of `executable` (of a verified module) as the spec
/// Device::createExecutable takes; its image stays the module's bytes.
hal::ExecutableSpec variantSpec(const schema::Executable &executable,
                                const schema::ExecutableVariant &variant);

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_VARIANTSPEC_H
