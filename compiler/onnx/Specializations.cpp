//===- Specializations.cpp - Functions for fixed symbolic dimensions -----===//

#include "compiler/onnx/Specializations.h"
#include "compiler/onnx/OnnxFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

using namespace mlir;

namespace kiln {

llvm::Expected<llvm::StringMap<int64_t>>
parseSpecialization(llvm::StringRef spec) {
  llvm::StringMap<int64_t> values;
  auto malformed = [&](const llvm::Twine &why) {
    return llvm::createStringError("--specialize=" + spec + ": " + why +
                                   " (expected NAME=N[,NAME=N...], e.g. "
                                   "new=1)");
  };
  if (spec.trim().empty())
    return malformed("no dimension given");
  llvm::SmallVector<llvm::StringRef> parts;
  spec.split(parts, ',');
  for (llvm::StringRef part : parts) {
    auto [name, value] = part.split('=');
    name = name.trim();
    value = value.trim();
    int64_t n = 0;
    if (name.empty() || value.empty() || value.getAsInteger(10, n) || n < 0)
      return malformed("'" + part + "' is not NAME=N with N >= 0");
    if (!values.try_emplace(name, n).second)
      return malformed("'" + name + "' given twice");
  }
  return values;
}

LogicalResult addOnnxSpecializations(MLIRContext &context, llvm::StringRef path,
                                     const OnnxImportOptions &options,
                                     const std::vector<std::string> &specs,
                                     ModuleOp module) {
  if (specs.empty())
    return success();
  // The graph's function comes first; loop bodies and their declarations
  // (compiler/host/Phases.h) follow it.
  auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
  if (functions.empty() || functions.front()->hasAttr("kiln.phase_of"))
    return module.emitError("--specialize: the import has no graph function");
  func::FuncOp general = functions.front();
  for (auto [k, spec] : llvm::enumerate(specs)) {
    llvm::Expected<llvm::StringMap<int64_t>> values = parseSpecialization(spec);
    if (!values) {
      llvm::errs() << "error: " << llvm::toString(values.takeError()) << "\n";
      return failure();
    }
    OnnxImportOptions fixed = options;
    fixed.DimValues = std::move(*values);
    OwningOpRef<ModuleOp> imported = importOnnxFile(context, path, fixed);
    if (!imported)
      return failure();
    auto specialized = *imported->getOps<func::FuncOp>().begin();
    if (specialized.getFunctionType() == general.getFunctionType())
      return general.emitError("--specialize=")
             << spec << " fixes no dimension the general function leaves "
             << "dynamic";
    std::string suffix = "_specialized" + std::to_string(k + 1);
    // The specialization's loop bodies and declarations are its own: renamed
    // beside the general function's, each body a phase of the
    // specialization (Phases.h's kPhaseOfAttrName).
    std::string name = (general.getSymName() + suffix).str();
    for (auto other : llvm::to_vector(imported->getOps<func::FuncOp>())) {
      if (other == specialized)
        continue;
      auto renamed = StringAttr::get(&context, other.getSymName() + suffix);
      if (failed(SymbolTable::replaceAllSymbolUses(other, renamed, *imported)))
        return other.emitError("--specialize: cannot rename it");
      other.setSymName(renamed);
      if (other->hasAttr("kiln.phase_of"))
        other->setAttr("kiln.phase_of", StringAttr::get(&context, name));
    }
    specialized.setSymName(name);
    // HostPlan.h's kSpecializationOfAttrName.
    specialized->setAttr("kiln.specialization_of", general.getSymNameAttr());
    for (auto function : llvm::to_vector(imported->getOps<func::FuncOp>())) {
      function->remove();
      module.push_back(function);
    }
  }
  return success();
}

std::string batchDimension(func::FuncOp general, llvm::StringRef path) {
  // Which inputs have a dynamic dimension, and only the leading one.
  llvm::StringSet<> batched;
  for (unsigned i = 0; i < general.getNumArguments(); ++i) {
    auto type = dyn_cast<RankedTensorType>(general.getArgumentTypes()[i]);
    auto name = general.getArgAttrOfType<StringAttr>(i, "kiln.name");
    if (!type || !name)
      return "";
    if (type.getNumDynamicDims() == 0)
      continue;
    if (type.getNumDynamicDims() != 1 || !type.isDynamicDim(0))
      return "";
    // Bounds (--input-shape=NAME:MIN..MAX) that leave 1 out.
    if (auto low =
            general.getArgAttrOfType<DenseI64ArrayAttr>(i, "kiln.dim_min"))
      if (!low.empty() && low[0] > 1)
        return "";
    batched.insert(name.getValue());
  }
  if (batched.empty())
    return "";
  llvm::Expected<std::unique_ptr<onnx::ModelProto>> model =
      onnx_import::readOnnxModel(path);
  if (!model) {
    llvm::consumeError(model.takeError());
    return "";
  }
  std::string batch;
  for (const onnx::ValueInfoProto &input : (*model)->graph().input()) {
    if (!batched.contains(input.name()))
      continue;
    const auto &dims = input.type().tensor_type().shape().dim();
    if (dims.empty() || dims[0].has_dim_value() ||
        dims[0].dim_param().empty() ||
        (!batch.empty() && dims[0].dim_param() != batch))
      return "";
    batch = dims[0].dim_param();
  }
  return batch;
}

} // namespace kiln
