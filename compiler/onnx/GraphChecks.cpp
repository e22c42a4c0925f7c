//===- GraphChecks.cpp - A model's structure checked before conversion ----===//

#include "compiler/onnx/GraphChecks.h"

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

#include <exception>

namespace kiln::onnx_import {

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// The newest opset of the default domain libonnx has schemas for.
int64_t newestKnownOpset() {
  static const int64_t newest = [] {
    const auto &ranges =
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = ranges.find(onnx::ONNX_DOMAIN);
    return it == ranges.end() ? int64_t(0) : int64_t(it->second.second);
  }();
  return newest;
}

// The opset whose semantics Kiln's converters follow at least: an op whose
// version at an older opset differs from its version at this one (Add-1's
// legacy broadcasting, consumed_inputs) is refused.
constexpr int64_t kConvertersSinceOpset = 7;

// An op and an input count from an opset on, for what libonnx's schemas
// do not say.
struct InputsSince {
  llvm::StringRef OpType;
  int64_t SinceOpset;
  int Inputs;
};

// The ops Kiln converts that are newer than libonnx's schemas, each with
// its inputs (all required) and one output, as the ONNX operator pages
// define them.
constexpr InputsSince kNewOps[] = {
    {"Mish", 18, 1},
    {"GroupNormalization", 18, 3},
    {"Gelu", 20, 1},
};

// The most inputs of ops of libonnx's opsets that gained optional inputs
// later: the Reduce ops' axes and Pad's axes at 18, DFT's axis at 20.
constexpr InputsSince kNewerInputs[] = {
    {"ReduceL1", 18, 2},
    {"ReduceL2", 18, 2},
    {"ReduceLogSum", 18, 2},
    {"ReduceLogSumExp", 18, 2},
    {"ReduceMax", 18, 2},
    {"ReduceMean", 18, 2},
    {"ReduceMin", 18, 2},
    {"ReduceProd", 18, 2},
    {"ReduceSumSquare", 18, 2},
    {"Pad", 18, 4},
    {"DFT", 20, 3},
};

// The most inputs `node` may have at `opset`, past libonnx's opsets.
int newerMaxInputs(const onnx::OpSchema &schema, const onnx::NodeProto &node,
                   int64_t opset) {
  int most = schema.max_input();
  for (const InputsSince &newer : kNewerInputs)
    if (newer.OpType == node.op_type() && opset >= newer.SinceOpset)
      most = std::max(most, newer.Inputs);
  return most;
}

// A node name for messages: its name, or its op type when unnamed.
std::string describe(const onnx::NodeProto &node) {
  return "node '" + (node.name().empty() ? node.op_type() : node.name()) + "'";
}

} // namespace

llvm::Expected<llvm::StringMap<int64_t>>
readOpsetImports(const onnx::ModelProto &model) {
  llvm::StringMap<int64_t> opsets;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import()) {
    llvm::StringRef domain = opset.domain();
    if (domain == "ai.onnx")
      domain = "";
    if (!opsets.try_emplace(domain, opset.version()).second)
      return error("the model imports opset domain '" + domain + "' twice");
    if (domain.empty() &&
        (opset.version() < kOldestOpset || opset.version() > kNewestOpset))
      return error("the model imports default-domain opset " +
                   llvm::Twine(opset.version()) + "; Kiln reads opsets " +
                   llvm::Twine(kOldestOpset) + " to " +
                   llvm::Twine(kNewestOpset));
  }
  // IR versions 1 and 2 predate opset_import and mean opset 1.
  if (model.opset_import_size() == 0) {
    if (model.ir_version() >= 3)
      return error("the model imports no opset (IR version " +
                   llvm::Twine(model.ir_version()) +
                   " files must list opset_import)");
    opsets[""] = 1;
  }
  return opsets;
}

llvm::Error checkNodeSchema(const onnx::NodeProto &node, int64_t opset) {
  int64_t known = std::min(opset, newestKnownOpset());
  const onnx::OpSchema *schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), static_cast<int>(known));
  if (!schema) {
    if (opset <= newestKnownOpset())
      return error("op type " + node.op_type() + " does not exist at opset " +
                   llvm::Twine(opset));
    // An op newer than libonnx: its arity from the table, else no
    // converter exists for it and the importer says so.
    const InputsSince *arity =
        llvm::find_if(kNewOps, [&](const InputsSince &a) {
          return a.OpType == node.op_type();
        });
    if (arity == std::end(kNewOps))
      return llvm::Error::success();
    if (opset < arity->SinceOpset)
      return error("op type " + node.op_type() + " does not exist at opset " +
                   llvm::Twine(opset) + " (it was added at opset " +
                   llvm::Twine(arity->SinceOpset) + ")");
    if (node.input_size() < arity->Inputs || node.input_size() > arity->Inputs)
      return error("has " + llvm::Twine(node.input_size()) +
                   " inputs; the op has " + llvm::Twine(arity->Inputs));
    for (int i = 0; i < node.input_size(); ++i)
      if (node.input(i).empty())
        return error("required input " + llvm::Twine(i) + " is empty");
    if (node.output_size() != 1 || node.output(0).empty())
      return error("has " + llvm::Twine(node.output_size()) +
                   " outputs; the op has 1");
    return llvm::Error::success();
  }
  if (opset < kConvertersSinceOpset) {
    const onnx::OpSchema *current = onnx::OpSchemaRegistry::Schema(
        node.op_type(), static_cast<int>(kConvertersSinceOpset));
    if (current && current->since_version() != schema->since_version())
      return error(node.op_type() + " at opset " + llvm::Twine(opset) +
                   " is its version " + llvm::Twine(schema->since_version()) +
                   ", which Kiln does not read (it reads the versions of "
                   "opset " +
                   llvm::Twine(kConvertersSinceOpset) + " and later)");
  }
  if (opset <= newestKnownOpset()) {
    // Verify reports through exceptions; its messages are one line.
    try {
      schema->Verify(node);
    } catch (const std::exception &e) {
      return error("does not fit the ONNX schema of " + node.op_type() + "-" +
                   llvm::Twine(schema->since_version()) + ": " + e.what());
    }
  } else if (node.input_size() < schema->min_input()) {
    return error("has " + llvm::Twine(node.input_size()) +
                 " inputs; the op has at least " +
                 llvm::Twine(schema->min_input()));
  } else if (node.output_size() < schema->min_output() ||
             node.output_size() > schema->max_output()) {
    return error("has " + llvm::Twine(node.output_size()) +
                 " outputs; the op has " + llvm::Twine(schema->min_output()) +
                 " to " + llvm::Twine(schema->max_output()));
  } else if (node.input_size() > newerMaxInputs(*schema, node, opset)) {
    return error("has " + llvm::Twine(node.input_size()) +
                 " inputs; the op has at most " +
                 llvm::Twine(newerMaxInputs(*schema, node, opset)) +
                 " at opset " + llvm::Twine(opset));
  }
  // Only optional inputs may be absent (an empty name). Verify lets the
  // inputs of a variadic parameter (Max, Concat, Sum) be empty, and past
  // libonnx's opsets it is not run: newer opsets added optional inputs
  // but kept which inputs are required.
  using Option = onnx::OpSchema::FormalParameterOption;
  const auto &formals = schema->inputs();
  for (size_t i = 0; i < formals.size(); ++i)
    if (formals[i].GetOption() == Option::Single &&
        static_cast<int>(i) >= node.input_size())
      return error("required input " + llvm::Twine(i) + " ('" +
                   formals[i].GetName() + "') is missing");
  for (int i = 0; i < node.input_size() && !formals.empty(); ++i) {
    // Inputs past the last formal belong to it when it is variadic; past a
    // newer opset's formals they are its new optional inputs.
    const auto &formal = formals[std::min<size_t>(i, formals.size() - 1)];
    if (static_cast<size_t>(i) >= formals.size() &&
        formal.GetOption() != Option::Variadic)
      break;
    if (formal.GetOption() != Option::Optional && node.input(i).empty())
      return error("required input " + llvm::Twine(i) + " ('" +
                   formal.GetName() + "') is empty");
  }
  return llvm::Error::success();
}

llvm::Error checkGraphNames(const onnx::GraphProto &graph) {
  // Where each name comes from, for the message about its second producer.
  llvm::StringMap<std::string> producers;
  auto add = [&](const std::string &name,
                 const llvm::Twine &producer) -> llvm::Error {
    if (name.empty())
      return llvm::Error::success();
    auto [it, inserted] = producers.try_emplace(name, producer.str());
    if (inserted)
      return llvm::Error::success();
    return error("value '" + name + "' is produced twice: by " + it->second +
                 " and by " + producer);
  };
  llvm::StringMap<const onnx::TensorProto *> initializers;
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    if (tensor.name().empty())
      return error("an initializer has no name");
    if (llvm::Error e = add(tensor.name(), "an initializer"))
      return e;
    initializers[tensor.name()] = &tensor;
  }
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (input.name().empty())
      return error("a graph input has no name");
    if (!inputs.insert(input.name()).second)
      return error("graph input '" + input.name() + "' is listed twice");
    auto init = initializers.find(input.name());
    if (init == initializers.end()) {
      if (llvm::Error e = add(input.name(), "a graph input"))
        return e;
      continue;
    }
    // Older exporters list every initializer as an input too: one value,
    // whose declared type must be the initializer's.
    const onnx::TensorProto &tensor = *init->second;
    if (!input.type().has_tensor_type())
      return error("graph input '" + input.name() +
                   "' has an initializer but is not declared a tensor");
    const onnx::TypeProto_Tensor &declared = input.type().tensor_type();
    bool agrees =
        declared.elem_type() == 0 || declared.elem_type() == tensor.data_type();
    if (agrees && declared.has_shape()) {
      agrees = declared.shape().dim_size() == tensor.dims_size();
      for (int i = 0; agrees && i < tensor.dims_size(); ++i) {
        const onnx::TensorShapeProto_Dimension &dim = declared.shape().dim(i);
        agrees = !dim.has_dim_value() || dim.dim_value() == tensor.dims(i);
      }
    }
    if (!agrees)
      return error("graph input '" + input.name() +
                   "' is declared with another type or shape than its "
                   "initializer");
  }
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &node = graph.node(n);
    for (const std::string &output : node.output())
      if (llvm::Error e = add(output, describe(node) + " (" + node.op_type() +
                                          ", node " + llvm::Twine(n) + ")"))
        return e;
  }
  return llvm::Error::success();
}

} // namespace kiln::onnx_import
