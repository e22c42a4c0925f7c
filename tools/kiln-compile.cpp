//===- kiln-compile.cpp - MLIR to a Kiln module ---------------------------===//

#include "compiler/Passes.h"
#include "compiler/Pipeline.h"
#include "compiler/onnx/Importer.h"
#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/Specializations.h"
#include "compiler/target/TargetBackend.h"
#include "compiler/target/cpu/CpuTarget.h"
#include "compiler/target/cuda/CudaTarget.h"
#include "compiler/target/rocm/HipTarget.h"
#include "tools/AliasedFlag.h"
#include "tools/HelpFlags.h"
#include "tools/OnnxLimitFlags.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("kiln-compile options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<input.mlir or model.onnx>"),
                               cl::Required, cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output module file (.kiln)"),
                                cl::value_desc("file"), cl::Required,
                                cl::cat(category));
cl::list<std::string> targetDevice(
    "target-device",
    cl::desc("Devices to compile for, comma separated or repeated: cpu "
             "(default), cuda, hip (also rocm, amdgpu); one module holds code "
             "for each, e.g. cuda,hip,cpu"),
    cl::CommaSeparated, cl::cat(category));
cl::alias ireeTargetDevice("iree-hal-target-device",
                           cl::desc("Alias for --target-device"),
                           cl::aliasopt(targetDevice));
cl::list<std::string> ireeTargetBackends(
    "iree-hal-target-backends",
    cl::desc("Alias for --target-device (llvm-cpu means cpu, rocm hip)"),
    cl::CommaSeparated, cl::cat(category));
cl::opt<std::string> cpuTarget(
    "cpu-target",
    cl::desc("x86-64 level for CPU code: x86-64, x86-64-v2, x86-64-v3, "
             "x86-64-v4 or host"),
    cl::init("x86-64-v3"), cl::cat(category));
// The chips' descriptions list their tables' aliases; set in main.
kiln::AliasedFlag cudaTarget("cuda-target", "sm_60",
                             {"iree-cuda-target",
                              "iree-hal-cuda-llvm-target-arch"},
                             category);
kiln::AliasedFlag hipTarget("hip-target", kiln::kDefaultHipTarget,
                            {"iree-hip-target", "iree-rocm-target-chip"},
                            category);
kiln::AliasedFlag
    hipBitcodeDir("hip-bc-dir", kiln::kDefaultHipBitcodeDir,
                  {"iree-hip-bc-dir", "iree-rocm-bc-dir"}, category,
                  "Directory of ROCm's device bitcode (ocml.bc, ockl.bc), "
                  "linked into AMD code that calls it");
cl::opt<bool> cudaUsePtxas(
    "cuda-use-ptxas",
    cl::desc("Fail unless ptxas (PATH or /usr/local/cuda/bin) assembles a "
             "cubin; without it a cubin is embedded whenever ptxas is found "
             "and knows the chip. PTX is always embedded"),
    cl::init(false), cl::cat(category));
kiln::AliasedFlag dumpBinaries(
    "dump-executable-binaries-to", "", {"iree-hal-dump-executable-binaries-to"},
    category,
    "Also write each executable's image (shared object, cubin, PTX, AMDGPU "
    "code object) into this existing directory as "
    "<device>_<target>.<format>");
cl::list<std::string> onnxInputShapes(
    "input-shape",
    cl::desc("For an ONNX input: pins the shape of a graph input, "
             "NAME:DxDx... (repeatable); a symbolic dimension given as "
             "MIN..MAX stays dynamic within those bounds, checked on every "
             "call; dimensions the file leaves symbolic stay dynamic "
             "without it (CPU targets)"),
    cl::value_desc("NAME:DIMS"), cl::cat(category));
cl::list<std::string> specializations(
    "specialize",
    cl::desc("For an ONNX input: also compiles the model with these "
             "symbolic dimensions fixed, NAME=N[,NAME=N...] (repeatable, "
             "e.g. new=1 for a decoder's one-token step); the module's "
             "function runs that code on every call whose input shapes it "
             "accepts (static kernels where the general code is dynamic), "
             "and the general code on the others"),
    cl::value_desc("NAME=N,..."), cl::cat(category));
cl::opt<bool> specializeBatchOne(
    "specialize-batch-one",
    cl::desc("For an ONNX input compiled for GPUs only, whose one symbolic "
             "dimension is its batch (the leading dimension of its inputs): "
             "also compiles it at batch 1, as --specialize=NAME=1 would, so "
             "a call of one item runs static kernels (default true; not "
             "with --specialize)"),
    cl::init(true), cl::cat(category));
cl::opt<kiln::CompileOptions::ConvLayout> convLayout(
    "conv-layout",
    cl::desc("Layout of chains of 2-D convolutions (ONNX's are NCHW)"),
    cl::values(clEnumValN(kiln::CompileOptions::ConvLayout::Auto, "auto",
                          "NHWC when every target device is a GPU (default)"),
               clEnumValN(kiln::CompileOptions::ConvLayout::AsWritten, "nchw",
                          "as the input writes them"),
               clEnumValN(kiln::CompileOptions::ConvLayout::ChannelsLast,
                          "nhwc", "channels-last for every target")),
    cl::init(kiln::CompileOptions::ConvLayout::Auto), cl::cat(category));
cl::opt<kiln::CompileOptions::PrecisionMode> precision(
    "precision",
    cl::desc("The type f32 matmuls and convolutions multiply in; softmax, "
             "normalizations, reductions, the inputs and the results keep "
             "the model's types"),
    cl::values(clEnumValN(kiln::CompileOptions::PrecisionMode::F32, "f32",
                          "IEEE f32, as written (default)"),
               clEnumValN(kiln::CompileOptions::PrecisionMode::TF32, "tf32",
                          "GPU tensor cores may round f32 operands to tf32 "
                          "(10 fraction bits), f32 accumulation; CPU "
                          "targets compute in f32"),
               clEnumValN(kiln::CompileOptions::PrecisionMode::F16, "f16",
                          "operands rounded to f16, f32 accumulation"),
               clEnumValN(kiln::CompileOptions::PrecisionMode::BF16, "bf16",
                          "operands rounded to bf16, f32 accumulation")),
    cl::init(kiln::CompileOptions::PrecisionMode::F32), cl::cat(category));
cl::opt<bool> progress("progress",
                       cl::desc("Print each phase (default when stderr is a "
                                "terminal)"),
                       cl::init(false), cl::cat(category));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerPassManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  std::string cudaHelp =
      "NVIDIA chip for CUDA code: sm_60 ... sm_120a, or a code or product "
      "name (" +
      kiln::describeCudaTargetAliases() + ")";
  cudaTarget.setHelp(cudaHelp);
  hipTarget.setHelp("AMD chip for HIP code: gfx900 ... gfx1201 (default " +
                    kiln::kDefaultHipTarget.str() +
                    "), or a code or product name (" +
                    kiln::describeHipTargetAliases() + ")");
  kiln::onnxMaxTensorBytesFlag(category);
  // Only Kiln's own flags show in --help; the MLIR debugging flags
  // (--mlir-print-ir-after-all, ...) still work.
  cl::HideUnrelatedOptions(category);
  if (!kiln::checkHelpLikeFlags(argc, argv))
    return 1;
  cl::ParseCommandLineOptions(
      argc, argv,
      "kiln-compile: compiles MLIR (func, linalg, tensor, arith, math, tosa "
      "on static shapes) or an ONNX model (imported in-process, as "
      "kiln-import-onnx does) into a Kiln module.\n\n"
      "  kiln-compile model.mlir --target-device=cpu -o model.kiln\n"
      "  kiln-compile model.onnx --input-shape=input:1x3x224x224 -o "
      "model.kiln\n"
      "  kiln-compile model.mlir --target-device=cuda --cuda-target=h100 "
      "-o model.kiln\n"
      "  kiln-compile model.mlir --target-device=hip --hip-target=mi300x "
      "-o model.kiln\n");

  // lld, run in-process, resets every cl::opt: keep the values first.
  const std::string outputPath = outputFile;
  std::vector<std::string> devices;
  std::vector<std::string> names(targetDevice.begin(), targetDevice.end());
  for (const std::string &backend : ireeTargetBackends)
    names.push_back(backend == "llvm-cpu" ? "cpu" : backend);
  if (names.empty())
    names.push_back("cpu");
  for (llvm::StringRef name : names) {
    name = name.trim();
    if (name.empty())
      continue;
    const kiln::TargetBackendInfo *info = kiln::findTargetBackend(name);
    if (!info) {
      llvm::errs() << "error: unknown --target-device '" << name
                   << "'; supported: "
                   << llvm::join(kiln::supportedTargetDevices(), ", ") << "\n";
      return 1;
    }
    // An alias and its backend's name are one device: its code once.
    if (!llvm::is_contained(devices, info->Name))
      devices.push_back(info->Name.str());
  }
  if (devices.empty()) {
    llvm::errs() << "error: --target-device names no device\n";
    return 1;
  }
  if (!llvm::is_contained(kiln::knownCpuTargets(), cpuTarget)) {
    llvm::errs() << "error: unknown --cpu-target '" << cpuTarget
                 << "'; known: " << llvm::join(kiln::knownCpuTargets(), ", ")
                 << "\n";
    return 1;
  }
  if (!kiln::checkChipFlag(
          cudaTarget, kiln::resolveCudaTarget(cudaTarget.value()).has_value(),
          kiln::knownCudaTargetNames()) ||
      !kiln::checkChipFlag(
          hipTarget, kiln::resolveHipTarget(hipTarget.value()).has_value(),
          kiln::knownHipTargetNames()))
    return 1;
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  kiln::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module;
  // ONNX errors are one line each: an ONNX file has no line to point at,
  // so messages name the node (its location) instead.
  std::optional<mlir::ScopedDiagnosticHandler> onnxDiagnostics;
  if (kiln::isOnnxFile(inputFile)) {
    kiln::OnnxImportOptions onnxOptions;
    kiln::applyOnnxLimitFlags(category, onnxOptions);
    for (const std::string &spec : onnxInputShapes)
      if (llvm::Error e = kiln::parseOnnxInputShape(spec, onnxOptions)) {
        llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
        return 1;
      }
    onnxDiagnostics.emplace(&context, [](mlir::Diagnostic &diag) {
      if (diag.getSeverity() != mlir::DiagnosticSeverity::Error)
        return mlir::success();
      llvm::errs() << "error: ";
      auto name = dyn_cast<mlir::NameLoc>(diag.getLocation());
      std::string message = diag.str();
      if (name && !llvm::StringRef(message).starts_with("node '"))
        llvm::errs() << "node '" << name.getName().getValue() << "': ";
      llvm::errs() << message << "\n";
      return mlir::success();
    });
    module = kiln::importOnnxFile(context, inputFile, onnxOptions);
    std::vector<std::string> specs(specializations.begin(),
                                   specializations.end());
    // A dynamic batch's kernels choose their tiles per call, but split no
    // reduction: one image (the common call) runs better on the static
    // kernels, which do (ResNet50 on an H200 at batch 1: 0.97 ms over a
    // dynamic batch, 0.63 static), so GPU targets also compile it, as
    // torch.compile specializes sizes 0 and 1.
    bool gpusOnly = llvm::all_of(devices, [](const std::string &d) {
      return kiln::findTargetBackend(d)->IsGpu;
    });
    if (module && specs.empty() && specializeBatchOne && gpusOnly) {
      auto general = *module->getOps<mlir::func::FuncOp>().begin();
      std::string batch = kiln::batchDimension(general, inputFile);
      // An optimization the user did not ask for: where the model does not
      // import at batch 1, the module goes without it, silently.
      if (!batch.empty()) {
        mlir::ScopedDiagnosticHandler quiet(
            &context, [](mlir::Diagnostic &) { return mlir::success(); });
        (void)kiln::addOnnxSpecializations(context, inputFile, onnxOptions,
                                           {batch + "=1"}, *module);
      }
    }
    if (module && failed(kiln::addOnnxSpecializations(
                      context, inputFile, onnxOptions, specs, *module)))
      return 1;
  } else {
    if (!onnxInputShapes.empty() || !specializations.empty()) {
      llvm::errs() << "error: "
                   << (onnxInputShapes.empty() ? "--specialize"
                                               : "--input-shape")
                   << " applies to ONNX inputs only\n";
      return 1;
    }
    // A named file is opened as models are: a FIFO or device is an error,
    // never waited on; "-" is stdin.
    std::unique_ptr<llvm::MemoryBuffer> input;
    std::string error;
    if (inputFile == "-") {
      input = mlir::openInputFile(inputFile, &error);
    } else if (llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> file =
                   kiln::onnx_import::openModelFile(inputFile, UINT64_MAX,
                                                    /*nullTerminated=*/true)) {
      input = std::move(*file);
    } else {
      error = llvm::toString(file.takeError());
    }
    if (!input) {
      llvm::errs() << "error: " << error << "\n";
      return 1;
    }
    sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;

  kiln::CompileOptions options;
  options.TargetDevices = devices;
  options.CpuTarget = cpuTarget;
  options.CudaTarget = cudaTarget.value();
  options.RequirePtxas = cudaUsePtxas;
  options.HipTarget = hipTarget.value();
  options.HipBitcodeDir = hipBitcodeDir.value();
  options.DumpBinariesDir = dumpBinaries.value();
  options.Convolutions = convLayout;
  options.Precision = precision;
  auto start = std::chrono::steady_clock::now();
  if (progress || llvm::sys::Process::StandardErrIsDisplayed()) {
    options.Progress = [start](llvm::StringRef phase) {
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      llvm::errs() << llvm::format("[%6.2fs] ", seconds) << phase << "\n";
    };
  }
  mlir::FailureOr<std::vector<uint8_t>> bytes =
      kiln::compileToModuleFile(*module, options);
  if (failed(bytes))
    return 1;

  // Written to a temporary file renamed over the output at the end: the
  // runtime maps module files, so a process running the old module keeps
  // its pages instead of seeing the file rewritten under it.
  if (llvm::Error written =
          llvm::writeToOutput(outputPath, [&](llvm::raw_ostream &os) {
            os.write(reinterpret_cast<const char *>(bytes->data()),
                     bytes->size());
            return llvm::Error::success();
          })) {
    llvm::errs() << "error: " << llvm::toString(std::move(written)) << "\n";
    return 1;
  }
  return 0;
}
