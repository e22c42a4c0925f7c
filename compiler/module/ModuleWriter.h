//===- ModuleWriter.h - Serialize a compiled program ----------------------===//
#ifndef KILN_COMPILER_MODULE_MODULEWRITER_H
#define KILN_COMPILER_MODULE_MODULEWRITER_H

#include "compiler/host/HostPlan.h"

#include <array>

namespace kiln {

struct EntryPointInfo {
  std::string Name;
  uint32_t BindingCount = 0;
  /// 32-bit words each dispatch step of this entry point passes
  /// (compiler/dispatch/PushConstants.h).
  uint32_t PushConstantCount = 0;
  std::array<uint32_t, 3> WorkgroupSize = {1, 1, 1};
  std::array<uint32_t, 3> WorkgroupCount = {1, 1, 1};
  uint32_t SharedMemoryBytes = 0;
  /// The kernel waits for its prerequisites itself
  /// (kWaitsForPrerequisitesAttr).
  bool WaitsForPrerequisites = false;
  /// A grid computed per dispatch from the push constants (dynamic shapes;
  /// empty when WorkgroupCount holds): the program and its x, y, z nodes.
  std::vector<schema::ShapeNodeData> WorkgroupCountProgram;
  std::array<uint32_t, 3> WorkgroupCountNodes = {0, 0, 0};
};

struct ExecutableVariantInfo {
  std::string Format; // "cpu-elf-x86_64"
  std::string Target; // "x86-64-v3"
  std::vector<uint8_t> Image;
  std::vector<EntryPointInfo> EntryPoints;
};

/// Writes the module: one executable holding every dispatch, with one
/// variant per target (every variant must list the same entry points), and
/// `constants` in the segment after the flatbuffer (module version 1.2;
/// 1.3 when a function or entry point has a shape program).
mlir::FailureOr<std::vector<uint8_t>>
writeModule(mlir::Location loc, llvm::ArrayRef<HostPlan> functions,
            llvm::ArrayRef<ExecutableVariantInfo> variants,
            const std::vector<uint8_t> &constants);

} // namespace kiln

#endif // KILN_COMPILER_MODULE_MODULEWRITER_H
