//===- kiln-import-onnx.cpp - ONNX models to Kiln's input MLIR ------------===//

#include "compiler/onnx/Importer.h"
#include "tools/HelpFlags.h"
#include "tools/OnnxLimitFlags.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("kiln-import-onnx options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output MLIR file ('-': stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Pins the shape of a graph input, NAME:DxDx... (repeatable), "
             "e.g. --input-shape=input:1x3x224x224; a symbolic dimension "
             "given as MIN..MAX (input:1..64x3x224x224) stays dynamic within "
             "those bounds; dimensions the file leaves symbolic stay dynamic "
             "(`?`) without it"),
    cl::value_desc("NAME:DIMS"), cl::cat(category));
cl::opt<bool> listOps("list-ops",
                      cl::desc("Print the ONNX op types the importer "
                               "converts, one a line, and exit"),
                      cl::init(false), cl::cat(category));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  kiln::onnxMaxTensorBytesFlag(category);
  cl::HideUnrelatedOptions(category);
  if (!kiln::checkHelpLikeFlags(argc, argv))
    return 1;
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-import-onnx: converts an ONNX model (opsets 7 to 21, static "
      "shapes) into MLIR that kiln-compile accepts: one function named after "
      "the graph, taking its inputs and returning its outputs in order "
      "(each with its ONNX name as kiln.name); weights become dense_resource "
      "constants. Unsupported ops, attributes and element types are errors "
      "naming the node. kiln-compile also takes .onnx files directly.\n\n"
      "  kiln-import-onnx model.onnx -o model.mlir\n"
      "  kiln-import-onnx model.onnx --input-shape=input:1x3x224x224 -o "
      "model.mlir\n");

  if (listOps) {
    for (const std::string &op : kiln::supportedOnnxOpTypes())
      llvm::outs() << op << "\n";
    return 0;
  }
  if (inputFile.empty()) {
    llvm::errs() << "error: no input file (kiln-import-onnx model.onnx -o "
                    "model.mlir)\n";
    return 1;
  }
  kiln::OnnxImportOptions options;
  kiln::applyOnnxLimitFlags(category, options);
  for (const std::string &spec : inputShapes)
    if (llvm::Error e = kiln::parseOnnxInputShape(spec, options)) {
      llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }

  mlir::MLIRContext context;
  // One line per error: the importer's messages name the node and op type
  // (an ONNX file has no line numbers to point at).
  mlir::ScopedDiagnosticHandler handler(&context, [](mlir::Diagnostic &diag) {
    if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
      llvm::errs() << "error: " << diag.str() << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      kiln::importOnnxFile(context, inputFile, options);
  if (!module)
    return 1;

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
