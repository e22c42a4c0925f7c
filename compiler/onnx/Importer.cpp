//===- Importer.cpp - ONNX models to Kiln's input MLIR --------------------===//

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/GraphChecks.h"
#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/OnnxTypes.h"
#include "compiler/onnx/OpRegistry.h"
#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Verifier.h"
#include "onnx/onnx_pb.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace mlir;

namespace kiln {

using namespace onnx_import;

llvm::Error parseOnnxInputShape(llvm::StringRef spec,
                                OnnxImportOptions &options) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--input-shape '" + spec + "': " + why);
  };
  size_t colon = spec.rfind(':');
  if (colon == llvm::StringRef::npos || colon == 0)
    return fail("want NAME:DIMS, e.g. input:1x3x224x224");
  llvm::StringRef name = spec.take_front(colon);
  llvm::StringRef dims = spec.drop_front(colon + 1);
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<std::pair<int64_t, int64_t>> bounds;
  bool ranged = false;
  if (!dims.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    auto parse = [&](llvm::StringRef text, int64_t &out) {
      uint64_t d;
      if (text.getAsInteger(10, d) || d > (uint64_t(1) << 40))
        return false;
      out = static_cast<int64_t>(d);
      return true;
    };
    for (llvm::StringRef part : parts) {
      // MIN..MAX: a dynamic dimension every call must keep within.
      auto [low, high] = part.split("..");
      int64_t lo, hi;
      if (part.contains("..")) {
        if (!parse(low, lo) || !parse(high, hi) || lo > hi)
          return fail("'" + part + "' is not a range MIN..MAX of sizes");
        shape.push_back(ShapedType::kDynamic);
        bounds.push_back({lo, hi});
        ranged = true;
        continue;
      }
      if (!parse(part, lo))
        return fail("'" + part + "' is not a dimension");
      shape.push_back(lo);
      bounds.push_back({lo, lo});
    }
  }
  if (!options.InputShapes.try_emplace(name, shape).second)
    return fail("input '" + name + "' is pinned twice");
  if (ranged)
    options.InputBounds[name] = std::move(bounds);
  return llvm::Error::success();
}

void registerOnnxImportDialects(DialectRegistry &registry) {
  registry
      .insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
              math::MathDialect, tensor::TensorDialect, tosa::TosaDialect>();
}

bool isOnnxFile(llvm::StringRef path) { return looksLikeOnnxFile(path); }

std::vector<std::string> supportedOnnxOpTypes() {
  return OpRegistry::get().opTypes();
}

namespace {

std::string sanitizeSymbol(llvm::StringRef name, llvm::StringRef fallback) {
  std::string out;
  for (char c : name)
    out += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (out.empty())
    return fallback.str();
  if (llvm::isDigit(out[0]))
    out = "_" + out;
  return out;
}

class Importer {
public:
  Importer(MLIRContext &context, llvm::StringRef path,
           const OnnxImportOptions &options)
      : Context(context), Path(path.str()), Options(options),
        Builder(&context) {}

  OwningOpRef<ModuleOp> run();

private:
  InFlightDiagnostic error() { return emitError(UnknownLoc::get(&Context)); }
  LogicalResult readOpsets();
  LogicalResult addInitializers(const onnx::GraphProto &graph);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &input,
                                        int32_t &dtype);
  FailureOr<RankedTensorType> checkedType(llvm::StringRef name,
                                          llvm::ArrayRef<int64_t> shape,
                                          Type element, int32_t dtype);
  LogicalResult convertNode(const onnx::NodeProto &node, size_t index);
  LogicalResult checkOutput(const onnx::ValueInfoProto &output,
                            const OnnxValue &value);
  FailureOr<llvm::SmallVector<OnnxValue>>
  importBody(const onnx::GraphProto &body, llvm::ArrayRef<OnnxValue> inputs,
             llvm::StringRef owner);
  FailureOr<ImportScope::BodyFunction>
  importBodyFunction(const onnx::GraphProto &body,
                     llvm::ArrayRef<OnnxValue> inputs, llvm::StringRef owner);

  MLIRContext &Context;
  std::string Path;
  const OnnxImportOptions &Options;
  // The names of Options.DimValues some input dimension carries.
  llvm::StringSet<> UsedDimValues;
  OpBuilder Builder;
  std::shared_ptr<onnx::ModelProto> Model;
  ImportScope Scope;
  llvm::StringMap<int64_t> Opsets;
  ValueTable Values;
  ShapeValueTable ShapeValues;
  // Subgraphs being imported (If inside Scan inside If ...), the owning
  // nodes' names joined, which prefix their nodes' names in errors, and
  // the nodes converted so far, bodies' repetitions included.
  int64_t BodyDepth = 0;
  std::string BodyPrefix;
  int64_t NodesConverted = 0;
  // Subgraphs imported as functions so far (their names' numbers).
  int64_t BodyFunctions = 0;
};

/// Every name `graph` and the subgraphs in its nodes read, and every name
/// they define: what they read and do not define comes from outside.
void collectNames(const onnx::GraphProto &graph, llvm::StringSet<> &defined,
                  std::vector<std::string> &read) {
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &tensor : graph.initializer())
    defined.insert(tensor.name());
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      if (!input.empty())
        read.push_back(input);
    for (const std::string &output : node.output())
      defined.insert(output);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectNames(attr.g(), defined, read);
      for (const onnx::GraphProto &g : attr.graphs())
        collectNames(g, defined, read);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    read.push_back(output.name());
}

// Bounds on subgraphs, so a file cannot make the import run away: nesting,
// and the nodes converted in all (a body unrolled per step counts each
// time).
constexpr int64_t kMaxBodyDepth = 8;
constexpr int64_t kMaxNodesConverted = int64_t(1) << 20;

LogicalResult Importer::readOpsets() {
  llvm::Expected<llvm::StringMap<int64_t>> opsets = readOpsetImports(*Model);
  if (!opsets)
    return error() << llvm::toString(opsets.takeError());
  Opsets = std::move(*opsets);
  if (llvm::Error e = checkGraphNames(Model->graph()))
    return error() << llvm::toString(std::move(e));
  return success();
}

LogicalResult Importer::addInitializers(const onnx::GraphProto &graph) {
  if (graph.sparse_initializer_size() > 0)
    return error() << "unsupported sparse initializer '"
                   << graph.sparse_initializer(0).values().name() << "'";
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    llvm::Expected<HostTensor> value =
        readTensor(tensor, Scope.ModelDir, Scope.Model, Scope.Limits);
    if (!value)
      return error() << "initializer " << llvm::toString(value.takeError());
    Type element = elementTypeOf(&Context, value->dtype());
    auto type = RankedTensorType::get(value->shape(), element);
    int32_t dtype = value->dtype();
    Values[tensor.name()] =
        OnnxValue{type, dtype, Value(), std::move(*value), tensor.name()};
  }
  return success();
}

FailureOr<RankedTensorType>
Importer::inputType(const onnx::ValueInfoProto &input, int32_t &dtype) {
  const std::string &name = input.name();
  if (!input.type().has_tensor_type())
    return error() << "graph input '" << name
                   << "': unsupported type (not a tensor: sequences, maps "
                      "and optionals are not imported)";
  const onnx::TypeProto_Tensor &tensorType = input.type().tensor_type();
  dtype = tensorType.elem_type();
  Type element = elementTypeOf(&Context, dtype);
  if (!element)
    return error() << "graph input '" << name << "': unsupported element type "
                   << dtypeName(dtype);
  auto pinned = Options.InputShapes.find(name);
  if (!tensorType.has_shape()) {
    if (pinned == Options.InputShapes.end())
      return error() << "graph input '" << name
                     << "' has no shape; pin it with --input-shape=" << name
                     << ":DIMS";
    return checkedType(name, pinned->second, element, dtype);
  }
  const onnx::TensorShapeProto &shape = tensorType.shape();
  llvm::SmallVector<int64_t> dims;
  for (const onnx::TensorShapeProto_Dimension &dim : shape.dim()) {
    if (dim.has_dim_value() && dim.dim_value() < 0)
      return error() << "graph input '" << name << "' has a negative dimension";
    dims.push_back(dim.has_dim_value() ? dim.dim_value()
                                       : ShapedType::kDynamic);
  }
  // Symbolic dimensions fixed by name (--specialize): static from here on,
  // in the file's shape and in a pinned one alike.
  auto fixedValue = [&](size_t d) -> std::optional<int64_t> {
    if (d >= static_cast<size_t>(shape.dim_size()) ||
        shape.dim(static_cast<int>(d)).has_dim_value())
      return std::nullopt;
    auto it =
        Options.DimValues.find(shape.dim(static_cast<int>(d)).dim_param());
    if (it == Options.DimValues.end())
      return std::nullopt;
    UsedDimValues.insert(it->getKey());
    return it->second;
  };
  llvm::SmallVector<std::optional<int64_t>> fixed;
  for (size_t d = 0; d < dims.size(); ++d) {
    fixed.push_back(fixedValue(d));
    if (fixed.back())
      dims[d] = *fixed.back();
  }
  if (pinned != Options.InputShapes.end()) {
    llvm::SmallVector<int64_t> want(pinned->second);
    // A dimension left dynamic by the pin (a range) and fixed by name
    // takes the value, inside the range.
    for (size_t d = 0; d < want.size() && d < fixed.size(); ++d) {
      if (!ShapedType::isDynamic(want[d]) || !fixed[d])
        continue;
      if (auto b = Options.InputBounds.find(name);
          b != Options.InputBounds.end() && d < b->second.size() &&
          (dims[d] < b->second[d].first || dims[d] > b->second[d].second))
        return error() << "graph input '" << name << "' dimension " << d
                       << " is fixed to " << dims[d] << ", outside its bounds "
                       << b->second[d].first << ".." << b->second[d].second;
      want[d] = dims[d];
    }
    bool agrees = want.size() == dims.size();
    // A range fits a symbolic dimension only.
    for (size_t i = 0; agrees && i < dims.size(); ++i)
      agrees = ShapedType::isDynamic(dims[i]) ||
               (!ShapedType::isDynamic(want[i]) && dims[i] == want[i]);
    if (!agrees) {
      std::string declared;
      for (auto [i, dim] : llvm::enumerate(shape.dim()))
        declared +=
            (i ? "x" : "") +
            (dim.has_dim_value() ? std::to_string(dim.dim_value())
                                 : (dim.dim_param().empty() ? std::string("?")
                                                            : dim.dim_param()));
      std::string given = shapeString(want), note;
      if (auto b = Options.InputBounds.find(name);
          b != Options.InputBounds.end()) {
        note = " (a range MIN..MAX is for a symbolic dimension)";
        given.clear();
        for (auto [i, range] : llvm::enumerate(b->second))
          given += (i ? "x" : "") + (range.first == range.second
                                         ? std::to_string(range.first)
                                         : std::to_string(range.first) + ".." +
                                               std::to_string(range.second));
      }
      return error() << "--input-shape " << name << ":" << given
                     << " does not fit the model's shape "
                     << (declared.empty() ? "(a scalar)" : declared) << note;
    }
    return checkedType(name, want, element, dtype);
  }
  // A symbolic dimension (dim_param, or none given) stays dynamic: one
  // module serves every size (issue 19); the converters that take `?`
  // say so (OpRegistry::acceptsDynamicShapes), the others refuse it.
  return checkedType(name, dims, element, dtype);
}

FailureOr<RankedTensorType> Importer::checkedType(llvm::StringRef name,
                                                  llvm::ArrayRef<int64_t> shape,
                                                  Type element, int32_t dtype) {
  llvm::Expected<int64_t> elements =
      checkedNumElements(staticPartOf(shape), dtypeByteSize(dtype),
                         "graph input '" + name + "'", Scope.Limits);
  if (!elements)
    return error() << llvm::toString(elements.takeError());
  return RankedTensorType::get(shape, element);
}

LogicalResult Importer::convertNode(const onnx::NodeProto &node, size_t index) {
  std::string displayName =
      BodyPrefix + (node.name().empty()
                        ? node.op_type() + "#" + std::to_string(index)
                        : node.name());
  if (++NodesConverted > kMaxNodesConverted)
    return error() << "node '" << displayName << "' (" << node.op_type()
                   << "): the model converts more than " << kMaxNodesConverted
                   << " nodes (subgraphs counted per step they are unrolled)";
  llvm::StringRef domain = node.domain();
  if (domain == "ai.onnx")
    domain = "";
  auto opset = Opsets.find(domain);
  if (opset == Opsets.end())
    return error() << "node '" << displayName << "' (" << node.op_type()
                   << "): unsupported domain '" << domain
                   << "' (the model imports no opset for it)";
  for (const std::string &input : node.input())
    if (!input.empty() && !Values.count(input))
      return error() << "node '" << displayName << "' (" << node.op_type()
                     << "): input '" << input
                     << "' is defined by no earlier node, initializer or "
                        "graph input";
  if (domain.empty())
    if (llvm::Error e = checkNodeSchema(node, opset->second))
      return error() << "node '" << displayName << "' (" << node.op_type()
                     << "): " << llvm::toString(std::move(e));

  NodeContext ctx(node, opset->second, Builder, Values, ShapeValues,
                  displayName, Scope);
  const OpRegistry &registry = OpRegistry::get();
  if (const Folder *shapeFolder =
          registry.shapeValueFolder(domain, node.op_type())) {
    FailureOr<bool> folded = (*shapeFolder)(ctx);
    if (failed(folded) || ctx.failedAttributes())
      return failure();
    if (*folded)
      return success();
  }
  // A shape value is host values: the shapes of Reshape and Expand, Tile's
  // repeats and TopK's k take one as such (NodeContext::intsKnownPerCall).
  auto takesShapeValue = [&](size_t i) {
    return domain.empty() && i == 1 &&
           llvm::is_contained({"Reshape", "Expand", "Tile", "TopK"},
                              node.op_type());
  };
  // Other ops compute on it as a tensor made of its elements.
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (ctx.shapeValueInput(i) && !takesShapeValue(i) &&
        failed(ctx.materializeShapeValue(i)))
      return ctx.unsupported(
          "input " + std::to_string(i) + " '" + node.input(i) +
          "', computed from dynamic dimensions (a shape) in an enclosing "
          "graph (pin the graph's inputs with --input-shape=NAME:DIMS)");
  // Converters written for static shapes never see a dynamic dimension:
  // their shape arithmetic would meet ShapedType::kDynamic as a number.
  if (!registry.acceptsDynamicShapes(domain, node.op_type()))
    for (size_t i = 0; i < ctx.numInputs(); ++i)
      if (ctx.hasInput(i) && !ctx.inputType(i).hasStaticShape())
        return ctx.unsupported(
            "dynamic dimension: input " + std::to_string(i) + " '" +
            node.input(i) + "' is " + shapeString(ctx.inputShape(i)) +
            ", and op " + node.op_type() +
            " takes static shapes only so far (pin the graph's inputs with "
            "--input-shape=NAME:DIMS)");
  const Folder *folder = registry.folder(domain, node.op_type());
  const Converter *converter = registry.converter(domain, node.op_type());
  bool folded = false;
  if (folder) {
    FailureOr<bool> result = (*folder)(ctx);
    if (failed(result) || ctx.failedAttributes())
      return failure();
    folded = *result;
  }
  if (!folded) {
    if (!converter) {
      if (folder) {
        // Name the first input that is not a constant, so the user knows
        // what to pin (and the node-test runner which input to make one).
        size_t i = 0;
        while (i < ctx.numInputs() &&
               (!ctx.hasInput(i) || ctx.constantInput(i)))
          ++i;
        return ctx.unsupported(
            "op " + node.op_type() + " on input " + std::to_string(i) + " '" +
            (i < ctx.numInputs() ? node.input(i) : "") +
            "', which is computed at run time (only its constant form is "
            "supported)");
      }
      return ctx.unsupported("op type " + node.op_type() +
                             (domain.empty()
                                  ? std::string()
                                  : " of domain '" + domain.str() + "'") +
                             " (opset " + std::to_string(opset->second) + ")");
    }
    if (failed((*converter)(ctx)) || ctx.failedAttributes())
      return failure();
  }
  for (const std::string &output : node.output()) {
    if (output.empty())
      continue;
    if (!Values.count(output))
      return ctx.emitError()
             << "the converter produced no value for output '" << output << "'";
    Scope.Producers[output] = &node;
  }
  return success();
}

FailureOr<llvm::SmallVector<OnnxValue>>
Importer::importBody(const onnx::GraphProto &body,
                     llvm::ArrayRef<OnnxValue> inputs, llvm::StringRef owner) {
  if (BodyDepth >= kMaxBodyDepth)
    return error() << "node '" << owner << "': subgraphs nest deeper than "
                   << kMaxBodyDepth;
  if (llvm::Error e = checkGraphNames(body))
    return error() << "node '" << owner
                   << "' subgraph: " << llvm::toString(std::move(e));
  if (body.input_size() != static_cast<int>(inputs.size()))
    return error() << "node '" << owner << "': its subgraph takes "
                   << body.input_size() << " input(s), given " << inputs.size();
  // The names the body defines shadow the enclosing graphs' for its time;
  // afterwards those come back and the body's own are forgotten.
  llvm::StringSet<> defined;
  for (const onnx::ValueInfoProto &input : body.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &tensor : body.initializer())
    defined.insert(tensor.name());
  for (const onnx::NodeProto &node : body.node())
    for (const std::string &output : node.output())
      if (!output.empty())
        defined.insert(output);
  llvm::SmallVector<std::pair<std::string, OnnxValue>> shadowed;
  llvm::SmallVector<std::pair<std::string, llvm::SmallVector<OpFoldResult>>>
      shadowedShapes;
  for (const auto &name : defined) {
    if (auto it = Values.find(name.getKey()); it != Values.end()) {
      shadowed.emplace_back(name.getKey().str(), std::move(it->second));
      Values.erase(it);
    }
    if (auto it = ShapeValues.find(name.getKey()); it != ShapeValues.end()) {
      shadowedShapes.emplace_back(name.getKey().str(), std::move(it->second));
      ShapeValues.erase(it);
    }
  }
  std::string outerPrefix = BodyPrefix;
  // The owner's name already holds the enclosing bodies' prefix.
  BodyPrefix = owner.str() + "/";
  ++BodyDepth;
  auto run = [&]() -> FailureOr<llvm::SmallVector<OnnxValue>> {
    for (auto [input, value] : llvm::zip(body.input(), inputs)) {
      OnnxValue bound = value;
      bound.Name = input.name();
      Values[input.name()] = std::move(bound);
    }
    if (failed(addInitializers(body)))
      return failure();
    for (auto [index, node] : llvm::enumerate(body.node()))
      if (failed(convertNode(node, index)))
        return failure();
    llvm::SmallVector<OnnxValue> outputs;
    for (const onnx::ValueInfoProto &output : body.output()) {
      auto it = Values.find(output.name());
      if (it == Values.end())
        return error() << "node '" << owner << "': subgraph output '"
                       << output.name()
                       << "' is produced by no node, initializer or input";
      if (ShapeValues.count(output.name()))
        return error() << "node '" << owner << "': subgraph output '"
                       << output.name()
                       << "' is unsupported: a shape computed from dynamic "
                          "dimensions";
      outputs.push_back(it->second);
    }
    return outputs;
  };
  FailureOr<llvm::SmallVector<OnnxValue>> outputs = run();
  --BodyDepth;
  BodyPrefix = outerPrefix;
  for (const auto &name : defined) {
    Values.erase(name.getKey());
    ShapeValues.erase(name.getKey());
  }
  for (auto &[name, value] : shadowed)
    Values[name] = std::move(value);
  for (auto &[name, shape] : shadowedShapes)
    ShapeValues[name] = std::move(shape);
  return outputs;
}

FailureOr<ImportScope::BodyFunction>
Importer::importBodyFunction(const onnx::GraphProto &body,
                             llvm::ArrayRef<OnnxValue> inputs,
                             llvm::StringRef owner) {
  // Nodes (a body imported inline too) are built in a function's block.
  auto enclosing =
      cast<func::FuncOp>(Builder.getInsertionBlock()->getParentOp());
  auto outer = enclosing->getParentOfType<ModuleOp>();
  OpBuilder::InsertionGuard guard(Builder);
  Builder.setInsertionPointToEnd(outer.getBody());
  ImportScope::BodyFunction result;
  result.Func = func::FuncOp::create(
      Builder, NameLoc::get(Builder.getStringAttr(BodyPrefix + owner.str())),
      (enclosing.getSymName() + "_loop" + llvm::Twine(BodyFunctions++)).str(),
      Builder.getFunctionType({}, {}));
  Block *entry = result.Func.addEntryBlock();
  llvm::SmallVector<OnnxValue> bound;
  for (const OnnxValue &input : inputs) {
    OnnxValue arg = input;
    arg.Value = entry->addArgument(input.Type, result.Func.getLoc());
    arg.Constant = std::nullopt;
    bound.push_back(std::move(arg));
  }
  // The enclosing graphs' values the body reads: arguments after its own
  // inputs (constants are made again inside), rebound for its import.
  llvm::StringSet<> defined, seen;
  std::vector<std::string> read;
  collectNames(body, defined, read);
  llvm::SmallVector<std::pair<std::string, OnnxValue>> rebound;
  auto restore = [&] {
    for (auto &[name, value] : rebound)
      Values[name] = std::move(value);
  };
  for (const std::string &name : read) {
    if (defined.contains(name) || !seen.insert(name).second)
      continue;
    if (ShapeValues.count(name)) {
      restore();
      result.Func.erase();
      return error() << "node '" << BodyPrefix << owner
                     << "' is unsupported: its loop, run per call, reads '"
                     << name
                     << "', a shape computed from dynamic dimensions outside "
                        "it";
    }
    auto it = Values.find(name);
    if (it == Values.end())
      continue; // the body's import names it
    OnnxValue inside = it->second;
    if (!inside.Constant) {
      result.Captures.push_back(it->second);
      inside.Value = entry->addArgument(inside.Type, result.Func.getLoc());
    } else {
      inside.Value = Value();
    }
    rebound.emplace_back(name, std::move(it->second));
    it->second = std::move(inside);
  }
  Builder.setInsertionPointToEnd(entry);
  FailureOr<llvm::SmallVector<OnnxValue>> outputs =
      importBody(body, bound, owner);
  restore();
  if (failed(outputs)) {
    result.Func.erase();
    return failure();
  }
  result.Outputs = std::move(*outputs);
  return result;
}

LogicalResult Importer::checkOutput(const onnx::ValueInfoProto &output,
                                    const OnnxValue &value) {
  if (!output.type().has_tensor_type())
    return error() << "graph output '" << output.name()
                   << "': unsupported type (not a tensor)";
  const onnx::TypeProto_Tensor &declared = output.type().tensor_type();
  if (declared.elem_type() != 0 && declared.elem_type() != value.DType)
    return error() << "graph output '" << output.name() << "' is declared "
                   << dtypeName(declared.elem_type()) << " but computes "
                   << dtypeName(value.DType);
  if (!declared.has_shape())
    return success();
  llvm::ArrayRef<int64_t> shape = value.Type.getShape();
  bool agrees = declared.shape().dim_size() == static_cast<int>(shape.size());
  for (int i = 0; agrees && i < declared.shape().dim_size(); ++i) {
    const onnx::TensorShapeProto_Dimension &dim = declared.shape().dim(i);
    agrees = !dim.has_dim_value() || dim.dim_value() == shape[i] ||
             ShapedType::isDynamic(shape[i]);
  }
  if (!agrees) {
    std::string want;
    for (auto [i, dim] : llvm::enumerate(declared.shape().dim()))
      want += (i ? "x" : "") + (dim.has_dim_value()
                                    ? std::to_string(dim.dim_value())
                                    : std::string("?"));
    return error() << "graph output '" << output.name() << "' is declared "
                   << (want.empty() ? "a scalar" : want)
                   << " but the importer computed " << shapeString(shape);
  }
  return success();
}

OwningOpRef<ModuleOp> Importer::run() {
  llvm::Expected<std::unique_ptr<onnx::ModelProto>> model = readOnnxModel(Path);
  if (!model) {
    error() << llvm::toString(model.takeError());
    return nullptr;
  }
  Model = std::shared_ptr<onnx::ModelProto>(std::move(*model));
  Scope.ModelDir = llvm::sys::path::parent_path(Path).str();
  Scope.Model = Model;
  Scope.Limits = Options.Limits;
  Scope.ImportBody =
      [this](const onnx::GraphProto &body, llvm::ArrayRef<OnnxValue> inputs,
             llvm::StringRef owner) { return importBody(body, inputs, owner); };
  Scope.ImportBodyFunction = [this](const onnx::GraphProto &body,
                                    llvm::ArrayRef<OnnxValue> inputs,
                                    llvm::StringRef owner) {
    return importBodyFunction(body, inputs, owner);
  };
  const onnx::GraphProto &graph = Model->graph();
  auto declare = [&](const onnx::ValueInfoProto &info) {
    if (!info.type().has_tensor_type() ||
        !info.type().tensor_type().has_shape())
      return;
    llvm::SmallVector<int64_t> shape;
    for (const auto &dim : info.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0)
        return;
      shape.push_back(dim.dim_value());
    }
    Scope.DeclaredShapes[info.name()] = shape;
  };
  for (const onnx::ValueInfoProto &info : graph.output())
    declare(info);
  for (const onnx::ValueInfoProto &info : graph.value_info())
    declare(info);
  if (failed(readOpsets()) || failed(addInitializers(graph)))
    return nullptr;

  // Inputs listed with an initializer of the same name (what older
  // exporters write) are constants: the file holds their values.
  llvm::SmallVector<const onnx::ValueInfoProto *> inputs;
  for (const onnx::ValueInfoProto &input : graph.input())
    if (!Values.count(input.name()))
      inputs.push_back(&input);
  for (const auto &pinned : Options.InputShapes)
    if (llvm::none_of(inputs, [&](const onnx::ValueInfoProto *input) {
          return input->name() == pinned.getKey();
        })) {
      std::string names;
      for (auto [i, input] : llvm::enumerate(inputs))
        names += (i ? ", " : "") + input->name();
      error() << "--input-shape names '" << pinned.getKey()
              << "', which is not an input of the graph (inputs: "
              << (names.empty() ? "none" : names) << ")";
      return nullptr;
    }

  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<int32_t> argDTypes;
  for (const onnx::ValueInfoProto *input : inputs) {
    int32_t dtype = 0;
    FailureOr<RankedTensorType> type = inputType(*input, dtype);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    argDTypes.push_back(dtype);
  }
  for (const auto &fixed : Options.DimValues)
    if (!UsedDimValues.contains(fixed.getKey())) {
      std::set<std::string> symbolic;
      for (const onnx::ValueInfoProto *input : inputs)
        if (input->type().has_tensor_type() &&
            input->type().tensor_type().has_shape())
          for (const auto &dim : input->type().tensor_type().shape().dim())
            if (!dim.has_dim_value() && !dim.dim_param().empty())
              symbolic.insert(dim.dim_param());
      std::string names;
      for (const std::string &n : symbolic)
        names += (names.empty() ? "" : ", ") + n;
      error() << "no graph input has a symbolic dimension named '"
              << fixed.getKey() << "' (the inputs' symbolic dimensions: "
              << (names.empty() ? "none" : names) << ")";
      return nullptr;
    }

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&Context));
  Builder.setInsertionPointToEnd(module->getBody());
  std::string name = sanitizeSymbol(graph.name(), "main_graph");
  auto func =
      func::FuncOp::create(Builder, NameLoc::get(Builder.getStringAttr(Path)),
                           name, Builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, input] : llvm::enumerate(inputs)) {
    func.setArgAttr(i, "kiln.name", Builder.getStringAttr(input->name()));
    // Ranges given by --input-shape=NAME:MIN..MAX: carried to the module
    // (ModuleWriter), where each call is checked against them.
    if (auto b = Options.InputBounds.find(input->name());
        b != Options.InputBounds.end()) {
      llvm::SmallVector<int64_t> low, high;
      auto type = cast<RankedTensorType>(argTypes[i]);
      for (auto [d, range] : llvm::enumerate(b->second)) {
        // A dimension fixed by --specialize is static: its bounds are its
        // size.
        bool fixed =
            d < static_cast<size_t>(type.getRank()) && !type.isDynamicDim(d);
        low.push_back(fixed ? type.getDimSize(d) : range.first);
        high.push_back(fixed ? type.getDimSize(d) : range.second);
      }
      func.setArgAttr(i, "kiln.dim_min", Builder.getDenseI64ArrayAttr(low));
      func.setArgAttr(i, "kiln.dim_max", Builder.getDenseI64ArrayAttr(high));
    }
    // MLIR's integers are signless: the module declares these unsigned.
    if (isUnsignedDType(argDTypes[i]))
      func.setArgAttr(i, "kiln.unsigned", Builder.getUnitAttr());
    Values[input->name()] =
        OnnxValue{cast<RankedTensorType>(argTypes[i]), argDTypes[i],
                  entry->getArgument(i), std::nullopt, input->name()};
    // A graph input without elements has no values to wait for: converters
    // take it as the empty constant it is (ReduceSum's empty axes, Resize's
    // empty roi given as inputs).
    if (auto type = cast<RankedTensorType>(argTypes[i]);
        type.hasStaticShape() && type.getNumElements() == 0)
      Values[input->name()].Constant =
          HostTensor(argDTypes[i], llvm::to_vector(type.getShape()), {});
  }
  Builder.setInsertionPointToEnd(entry);

  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(convertNode(node, index)))
      return nullptr;

  llvm::SmallVector<Value> results;
  llvm::SmallVector<bool> unsignedResults;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    auto it = Values.find(output.name());
    if (it == Values.end()) {
      error() << "graph output '" << output.name()
              << "' is produced by no node, initializer or input";
      return nullptr;
    }
    if (failed(checkOutput(output, it->second)))
      return nullptr;
    // A shape computed from dynamic dimensions is returned as the tensor
    // of its host values.
    if (auto shape = ShapeValues.find(output.name());
        shape != ShapeValues.end() &&
        failed(materializeShapeValue(
            Builder, NameLoc::get(Builder.getStringAttr(output.name())),
            it->second, shape->second))) {
      error() << "graph output '" << output.name()
              << "' is unsupported: a shape computed from dynamic dimensions "
                 "in another graph";
      return nullptr;
    }
    results.push_back(materialize(Builder, it->second));
    unsignedResults.push_back(isUnsignedDType(it->second.DType));
  }
  func::ReturnOp::create(Builder, func.getLoc(), results);
  func.setFunctionType(
      Builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output())) {
    func.setResultAttr(i, "kiln.name", Builder.getStringAttr(output.name()));
    if (unsignedResults[i])
      func.setResultAttr(i, "kiln.unsigned", Builder.getUnitAttr());
  }
  return module;
}

} // namespace

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, llvm::StringRef path,
                                     const OnnxImportOptions &options) {
  DialectRegistry registry;
  registerOnnxImportDialects(registry);
  context.appendDialectRegistry(registry);
  context
      .loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                   func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
                   tensor::TensorDialect, tosa::TosaDialect>();
  OwningOpRef<ModuleOp> module = Importer(context, path, options).run();
  // What the importer built must verify: a model that makes it build
  // invalid IR is refused here, not by a pass that trusts its input.
  if (module && failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace kiln
