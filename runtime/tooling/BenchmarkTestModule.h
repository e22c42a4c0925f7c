//===- BenchmarkTestModule.h - A small module for the benchmark tests -----===//
//
// Only copies and fills, so it runs on every device without executables:
//   @main(x: 3xi32, y: 2xf32) -> (3xi32, 4xi8, 2xf32)
//     out0 = x; out1 = fill 0x2a; out2 = y
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_BENCHMARKTESTMODULE_H
#define KILN_RUNTIME_TOOLING_BENCHMARKTESTMODULE_H

#include "runtime/base/ElementType.h"
#include "runtime/base/HostTensor.h"
#include "runtime/module/ModuleFile.h"
#include "runtime/module/TestModule.h"

#include <memory>
#include <vector>

namespace kiln::tooling::test {

inline StatusOr<std::shared_ptr<const module::ModuleFile>>
benchmarkTestModule() {
  namespace sc = kiln::schema;
  using module::test::range;
  using SK = sc::StorageKind;
  const uint8_t i32 = static_cast<uint8_t>(ElementType::I32);
  const uint8_t i8 = static_cast<uint8_t>(ElementType::I8);
  const uint8_t f32 = static_cast<uint8_t>(ElementType::F32);
  module::test::ModuleSpec spec;
  spec.Name = "bench";
  module::test::FunctionSpec main;
  main.Name = "main";
  main.Inputs = {{i32, {3}}, {f32, {2}}};
  main.Outputs = {{i32, {3}}, {i8, {4}}, {f32, {2}}};
  module::test::StepSpec copyX;
  copyX.Kind = sc::StepKind::CopyStep;
  copyX.Source = range(SK::Input, 0, 0, 12);
  copyX.Target = range(SK::Output, 0, 0, 12);
  module::test::StepSpec fill;
  fill.Kind = sc::StepKind::FillStep;
  fill.Target = range(SK::Output, 1, 0, 4);
  fill.Pattern = 0x2a;
  fill.PatternLength = 1;
  module::test::StepSpec copyY;
  copyY.Kind = sc::StepKind::CopyStep;
  copyY.Source = range(SK::Input, 1, 0, 8);
  copyY.Target = range(SK::Output, 2, 0, 8);
  main.Steps = {copyX, fill, copyY};
  spec.Functions.push_back(main);
  std::vector<uint8_t> bytes = module::test::buildModule(spec);
  return module::ModuleFile::fromBytes(bytes.data(), bytes.size());
}

inline HostTensor hostTensor(ElementType type, std::vector<int64_t> shape,
                             std::vector<uint8_t> data) {
  HostTensor tensor;
  tensor.Type = type;
  tensor.Shape = std::move(shape);
  tensor.Data = std::move(data);
  return tensor;
}

} // namespace kiln::tooling::test

#endif // KILN_RUNTIME_TOOLING_BENCHMARKTESTMODULE_H
