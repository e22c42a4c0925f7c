//===- ControlVariables.cpp -----------------------------------------------===//

#include "compiler/target/rocm/ControlVariables.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/TargetParser/TargetParser.h"

using namespace mlir;

namespace kiln {

LogicalResult defineControlVariables(Location loc, llvm::Module &module,
                                     StringRef chip, int64_t wavefrontSize) {
  // As the device libraries' oclc_isa_version_<NNN>.bc files number chips:
  // gfx90a is 9.0.10, 9010; gfx1100 11000.
  llvm::AMDGPU::IsaVersion isa = llvm::AMDGPU::getIsaVersion(chip);
  int64_t isaVersion = isa.Major * 1000 + isa.Minor * 100 + isa.Stepping;
  struct Variable {
    StringLiteral Name;
    int64_t Value;
  };
  // The math flags keep what the input asks for, as the CUDA path's
  // libdevice does by default: infinities and NaNs (no finite_only), no
  // approximations beyond the math polynomials Kiln chose itself (no
  // unsafe_math), f32 denormals kept (no daz), sqrt correctly rounded.
  const Variable variables[] = {
      {"__oclc_ISA_version", isaVersion},
      {"__oclc_ABI_version", kAmdgpuCodeObjectVersion},
      {"__oclc_wavefrontsize64", wavefrontSize == 64},
      {"__oclc_finite_only_opt", 0},
      {"__oclc_unsafe_math_opt", 0},
      {"__oclc_daz_opt", 0},
      {"__oclc_correctly_rounded_sqrt32", 1},
  };
  for (llvm::GlobalVariable &global : module.globals()) {
    if (!global.isDeclaration() || !global.getName().starts_with("__oclc_"))
      continue;
    const Variable *variable =
        llvm::find_if(variables, [&](const Variable &candidate) {
          return candidate.Name == global.getName();
        });
    if (variable == std::end(variables))
      return emitError(loc) << "the device libraries read " << global.getName()
                            << ", which Kiln does not define";
    auto *type = dyn_cast<llvm::IntegerType>(global.getValueType());
    if (!type)
      return emitError(loc) << global.getName() << " is not an integer";
    global.setInitializer(llvm::ConstantInt::get(type, variable->Value));
    global.setConstant(true);
    global.setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  return success();
}

} // namespace kiln
