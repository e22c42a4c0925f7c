//===- CheckModuleCodeObjects.cpp - Compiled hsaco, read as drivers do -----===//
//
// check-module-code-objects MODULE.kiln...: every amdgpu-hsaco variant of
// every module, read as the AMD drivers read it before a vendor loader sees
// it (amd::readCodeObject against its own target), each entry point's
// kernel found by name with its `.kd` descriptor, its kernarg segment laid
// out for the entry point's bindings and push constants as the amdgpu
// driver would (KernargLayout), and its workgroup within the kernel's
// limit. Prints one line per problem and a count; exits 1 on any. So the
// compiler's output and the runtime's reading of it are checked against
// each other without an AMD GPU.
//
//===----------------------------------------------------------------------===//

#include "runtime/hal/drivers/amd/AmdTarget.h"
#include "runtime/hal/drivers/amd/CodeObject.h"
#include "runtime/hal/drivers/amdgpu/KernargLayout.h"
#include "runtime/module/ModuleFile.h"
#include "schema/module_generated.h"

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
      std::string where = executable->name()->str();
      auto object = hal::amd::readCodeObject(
          std::span(variant->image()->data(), variant->image()->size()),
          variant->target()->str());
      if (!object.ok()) {
        report(where, object.status());
        continue;
      }
      for (const auto *entry : *variant->entry_points()) {
        ++entryPoints;
        std::string name = strCat(where, "/", entry->name()->str());
        auto kernel = hal::amd::findKernel(*object, entry->name()->str());
        if (!kernel.ok()) {
          report(name, kernel.status());
          continue;
        }
        auto layout = hal::amdgpu::KernargLayout::create(
            **kernel, entry->binding_count(), entry->push_constant_count());
        if (!layout.ok())
          report(name, layout.status());
        uint64_t threads = 1;
        for (uint32_t size : *entry->workgroup_size())
          threads *= size;
        if (threads > (*kernel)->MaxFlatWorkgroupSize)
          report(name, KILN_ERROR(ResourceExhausted, "workgroup of ", threads,
                                  " work-items, the kernel allows ",
                                  (*kernel)->MaxFlatWorkgroupSize));
      }
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
