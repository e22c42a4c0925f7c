//===- kiln-opt.cpp - Runs Kiln and upstream passes, for lit tests --------===//

#include "compiler/Passes.h"
#include "compiler/Pipeline.h"
#include "compiler/target/TargetBackend.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  kiln::registerKilnPasses();
  kiln::registerGpuTargetTables();
  mlir::DialectRegistry registry;
  kiln::registerCompilerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
