//===- ModuleDumpTest.cpp -------------------------------------------------===//

#include "runtime/tooling/ModuleDump.h"

#include "runtime/module/TestModule.h"

#include <gtest/gtest.h>

namespace kiln::tooling {
namespace {

std::shared_ptr<const module::ModuleFile>
load(const module::test::ModuleSpec &spec) {
  std::vector<uint8_t> bytes = module::test::buildModule(spec);
  auto file = module::ModuleFile::fromBytes(bytes.data(), bytes.size());
  EXPECT_TRUE(file.ok()) << file.status().toString();
  return file.ok() ? *file : nullptr;
}

TEST(ModuleDumpTest, ShowsDependenciesAndBindingAccess) {
  using Access = schema::BindingAccess;
  module::test::ModuleSpec spec = module::test::validModuleSpec();
  std::vector<module::test::StepSpec> &steps = spec.Functions[0].Steps;
  for (module::test::StepSpec &step : steps)
    step.Dependencies = std::vector<uint32_t>{};
  steps[2].Dependencies = std::vector<uint32_t>{0, 1};
  steps[2].Access = {Access::Read, Access::Read, Access::Write};
  steps[3].Access = {Access::Read, Access::ReadWrite};
  auto file = load(spec);
  ASSERT_TRUE(file);
  std::string dump = dumpModule(*file);
  for (const char *line :
       {"  step 1: copy input0[0, 16) -> arena[16, 32) (16 bytes)\n",
        "bindings [arena[16, 32) read, input1[0, 16) read, output0[0, 16) "
        "write] push constants [4]; after steps 0, 1\n",
        "bindings [constants[240, 256) read, arena[32, 64) read-write]\n"})
    EXPECT_NE(dump.find(line), std::string::npos) << line << "\n" << dump;
}

TEST(ModuleDumpTest, DescribesEverything) {
  auto file = load(module::test::validModuleSpec());
  ASSERT_TRUE(file);
  std::string dump = dumpModule(*file);
  for (const char *line : {
           "module 'test': version 1.0, ",
           "constants: 256 bytes in a segment at offset 4096 (4096-byte "
           "aligned)\n",
           "functions: 2\n",
           "function 'main' (4xf32, 4xf32) -> (4xf32)\n",
           "  arena: 64 bytes\n",
           "  step 0: fill arena[0, 16) with 0x3f800000 (4-byte pattern)\n",
           "  step 1: copy input0[0, 16) -> arena[16, 32) (16 bytes); after "
           "every earlier step\n",
           "  step 2: dispatch executable 0 'exe0' entry point 0 'add' "
           "bindings [arena[16, 32), input1[0, 16), output0[0, 16)] push "
           "constants [4]; after every earlier step\n",
           "  step 3: dispatch executable 0 'exe0' entry point 1 'scale' "
           "bindings [constants[240, 256), arena[32, 64)]; after every "
           "earlier step\n",
           "function 'second' (2x3xi32) -> (i8)\n",
           "  step 0: fill output0[0, 1) with 0x2a (1-byte pattern)\n",
           "executables: 1\n",
           "executable 0 'exe0'\n",
           "  variant 0: format 'cpu-elf-x86_64', target 'x86-64-v3', image "
           "100 bytes\n",
           "    entry point 0 'add': workgroup size 64x1x1, workgroup count "
           "1x1x1, 3 bindings, 1 push constants, 0 bytes shared memory\n",
           "    entry point 1 'scale': workgroup size 32x2x1, workgroup count "
           "2x1x1, 2 bindings, 0 push constants, 1024 bytes shared memory\n",
           "  variant 1: format 'cuda-ptx', target 'sm_90', image 37 bytes\n",
           "    entry point 0 'add': workgroup size 128x1x1",
       })
    EXPECT_NE(dump.find(line), std::string::npos)
        << "missing: " << line << "\nin:\n"
        << dump;
}

TEST(ModuleDumpTest, ConstantsOfOlderModules) {
  module::test::ModuleSpec spec = module::test::validModuleSpec();
  spec.VersionMinor = 1;
  spec.Layout = module::test::ConstantsLayout::Vector;
  auto file = load(spec);
  ASSERT_TRUE(file);
  std::string dump = dumpModule(*file);
  EXPECT_NE(dump.find("constants: 256 bytes in the flatbuffer\n"),
            std::string::npos)
      << dump;
}

TEST(ModuleDumpTest, EscapesHostileNames) {
  module::test::ModuleSpec spec = module::test::validModuleSpec();
  spec.Functions[1].Name = "a\nb";
  auto file = load(spec);
  ASSERT_TRUE(file);
  std::string dump = dumpModule(*file);
  EXPECT_NE(dump.find("function 'a\\x0ab' (2x3xi32) -> (i8)\n"),
            std::string::npos)
      << dump;
}

TEST(ModuleDumpTest, EmptyModule) {
  module::test::ModuleSpec spec;
  spec.Layout = module::test::ConstantsLayout::None;
  spec.Name = "";
  auto file = load(spec);
  ASSERT_TRUE(file);
  std::string dump = dumpModule(*file);
  EXPECT_EQ(dump.find("module: version 1.0"), 0u) << dump;
  EXPECT_NE(dump.find("constants: 0 bytes\n"), std::string::npos);
  EXPECT_NE(dump.find("functions: 0"), std::string::npos);
}

} // namespace
} // namespace kiln::tooling
