//===- CheckModuleCodeObjects.cpp - Compiled hsaco, read as drivers do
//-----===//
//
// check-module-code-objects MODULE.kiln...: every amdgpu-hsaco variant of
// every module, read as the AMD drivers read it before a vendor loader sees
// it (amd::readCodeObject against its own target) and planned as the
// amdgpu driver plans its dispatches (planKernels: each entry point's
// kernel found with its `.kd` descriptor, its kernargs laid out for the
// entry point's bindings and push constants, its workgroup and LDS within
// the limits). Prints one line per problem and a count; exits 1 on any. So the
// compiler's output and the runtime's reading of it are checked against
// each other without an AMD GPU.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amd/AmdTarget.h"
#include "runtime/hal/drivers/amd/CodeObject.h"
#include "runtime/hal/drivers/amdgpu/KernelPlan.h"
#include "runtime/module/ModuleFile.h"
#include "runtime/module/VariantSpec.h"

#include <cstdio>

using namespace kiln;

namespace {

// Problems in the hsaco variants of one module; counts its entry points.
int checkModule(const char *path, int &entryPoints) {
  auto file = module::ModuleFile::open(path);
  if (!file.ok()) {
    std::printf("%s: %s\n", path, file.status().toString().c_str());
    return 1;
  }
  int problems = 0;
  auto report = [&](const std::string &what, const Status &status) {
    std::printf("%s: %s: %s\n", path, what.c_str(), status.toString().c_str());
    ++problems;
  };
  for (const auto *executable : *(*file)->root().executables())
    for (const auto *variant : *executable->variants()) {
      if (variant->format()->str() != hal::amd::kHsacoFormat)
        continue;
      // As the module loader hands it to a device.
      hal::ExecutableSpec spec = module::variantSpec(*executable, *variant);
      entryPoints += static_cast<int>(spec.EntryPoints.size());
      auto object = hal::amd::readCodeObject(spec.Image, spec.Target);
      if (!object.ok()) {
        report(spec.Name, object.status());
        continue;
      }
      // 64 KiB: the LDS of every AMD GPU the compiler targets.
      auto plans = hal::amdgpu::planKernels(*object, spec, 65536);
      if (!plans.ok())
        report(spec.Name, plans.status());
    }
  return problems;
}

} // namespace

int main(int argc, char **argv) {
  int problems = 0, entryPoints = 0;
  for (int i = 1; i < argc; ++i)
    problems += checkModule(argv[i], entryPoints);
  std::printf("%d modules, %d hsaco entry points, %d problems\n", argc - 1,
              entryPoints, problems);
  return problems == 0 && entryPoints > 0 ? 0 : 1;
}
