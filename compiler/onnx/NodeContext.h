//===- NodeContext.h - What an op converter sees of its node ----*- C++ -*-===//
//
// A converter turns one ONNX node into MLIR through a NodeContext: the
// builder, the node's inputs as typed values (or as host tensors when known
// at import time), its attributes with defaults, the opset of its domain,
// and errors that name the node. Converters compute their result types
// themselves (static shapes only): ONNX 1.12's shape inference does not know
// the newer opsets files arrive with.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_NODECONTEXT_H
#define KILN_COMPILER_ONNX_NODECONTEXT_H

#include "compiler/onnx/HostTensor.h"
#include "compiler/onnx/TensorLimits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <optional>
#include <string>

namespace onnx {
class NodeProto;
class GraphProto;
class AttributeProto;
} // namespace onnx

namespace kiln::onnx_import {

/// One ONNX value during import.
struct OnnxValue {
  mlir::RankedTensorType Type;        // static; integers signless
  int32_t DType = 0;                  // the ONNX element type (signedness)
  mlir::Value Value;                  // null until an op needs it as a tensor
  std::optional<HostTensor> Constant; // known at import time
  std::string Name;
};

/// The values defined so far, by ONNX name.
using ValueTable = llvm::StringMap<OnnxValue>;

/// Shape values (issue 19): 1-D or scalar int64 values computed at import
/// from dynamic dimensions (Shape of a tensor with a `?`, and what Gather,
/// Unsqueeze, Squeeze, Concat and Cast make of it), by ONNX name: each
/// element a constant or a host `index` value (tensor.dim), so Reshape can
/// take the shape exporters compute (Shape -> Gather -> Unsqueeze -> Concat
/// -> Reshape). Such a value has neither an MLIR value nor a constant;
/// ops other than those listed refuse it.
using ShapeValueTable = llvm::StringMap<llvm::SmallVector<mlir::OpFoldResult>>;

/// What every node of one import shares besides the values.
struct ImportScope {
  /// The folder external data is read from ("" for the working directory).
  std::string ModelDir;
  /// Keeps the model, whose tensors' bytes host tensors may alias, alive.
  std::shared_ptr<const void> Model;
  TensorLimits Limits;
  /// The shapes the graph declares for its values (outputs, value_info),
  /// where every dimension is a number: what a converter needing an input
  /// given at call time (axes) may take as the node's contract.
  llvm::StringMap<llvm::SmallVector<int64_t>> DeclaredShapes;
  /// The node that produced each value so far (the last one, for a name a
  /// body defines per step): what NodeContext::realAtCallTime follows.
  llvm::StringMap<const onnx::NodeProto *> Producers;
  /// Imports a subgraph (If's branches, Scan's body) at the builder's
  /// insertion point, its inputs bound to `inputs` and the enclosing
  /// graphs' values visible to it; its outputs, or failure after an error.
  /// Its names are forgotten afterwards, so a body imported once per step
  /// (Scan, unrolled) defines them afresh each time. Set by the importer.
  std::function<mlir::FailureOr<llvm::SmallVector<OnnxValue>>(
      const onnx::GraphProto &body, llvm::ArrayRef<OnnxValue> inputs,
      llvm::StringRef owner)>
      ImportBody;
  /// A subgraph imported as a function of the module of its own (a loop
  /// run per call, compiler/host/Phases.h), after the functions there:
  /// its inputs bound to arguments of `inputs`' types, then one argument
  /// per value of the enclosing graphs it reads that is not a constant
  /// (Captures: those values). The caller makes its return from Outputs.
  struct BodyFunction {
    mlir::func::FuncOp Func;
    llvm::SmallVector<OnnxValue> Captures;
    llvm::SmallVector<OnnxValue> Outputs;
  };
  std::function<mlir::FailureOr<BodyFunction>(const onnx::GraphProto &body,
                                              llvm::ArrayRef<OnnxValue> inputs,
                                              llvm::StringRef owner)>
      ImportBodyFunction;
};

/// Materializes `value`'s constant as an arith.constant at `builder`'s
/// insertion point if it has no MLIR value yet.
mlir::Value materialize(mlir::OpBuilder &builder, OnnxValue &value);

/// Gives a shape value (`elements`) a tensor as well: a kernel writing its
/// elements' host values into an int64 tensor of `value`'s type, for an op
/// that computes on it or a graph output. Fails, building nothing, when an
/// element is not a value of the function being built (a shape made in
/// an enclosing graph).
mlir::LogicalResult
materializeShapeValue(mlir::OpBuilder &builder, mlir::Location loc,
                      OnnxValue &value,
                      llvm::ArrayRef<mlir::OpFoldResult> elements);

class NodeContext {
public:
  /// `displayName` names the node in errors and locations (its name, or
  /// something the importer made up for an unnamed node).
  NodeContext(const onnx::NodeProto &node, int64_t opset,
              mlir::OpBuilder &builder, ValueTable &values,
              ShapeValueTable &shapeValues, llvm::StringRef displayName,
              const ImportScope &scope);

  const onnx::NodeProto &node() const { return Node; }
  llvm::StringRef opType() const;
  /// The node's name, or "" when it has none.
  llvm::StringRef name() const;
  /// "node 'NAME' (OP_TYPE)", as errors name the node (a made-up name for
  /// an unnamed one): for messages checked at call time.
  std::string describe() const;
  /// The node's name in errors: its own, or the one the importer made up.
  llvm::StringRef displayName() const { return DisplayName; }
  /// The opset version of the node's domain.
  int64_t opset() const { return Opset; }
  mlir::Location loc() const { return Loc; }
  mlir::OpBuilder &builder() { return Builder; }
  mlir::MLIRContext *context() { return Builder.getContext(); }

  // Inputs. An input is absent when the node lists fewer or names it "".
  size_t numInputs() const;
  bool hasInput(size_t i) const;
  const OnnxValue &inputInfo(size_t i) const;
  mlir::RankedTensorType inputType(size_t i) const;
  llvm::ArrayRef<int64_t> inputShape(size_t i) const;
  int64_t inputRank(size_t i) const { return inputShape(i).size(); }
  int32_t inputDType(size_t i) const;
  /// The input as a tensor (a constant is materialized on first use).
  mlir::Value input(size_t i);
  /// The input's value when known at import time, else null.
  const HostTensor *constantInput(size_t i) const;
  /// The input's elements when it is a shape value (ShapeValueTable), else
  /// null.
  const llvm::SmallVector<mlir::OpFoldResult> *shapeValueInput(size_t i) const;
  /// Makes shape-value input `i` a tensor as well (its elements' host
  /// values gathered into an int64 tensor at the node), for an op that
  /// computes on it (a detector's Equal of a box count with 0 deciding an
  /// If); fails, building nothing, when an element is not a value of the
  /// function being built.
  mlir::LogicalResult materializeShapeValue(size_t i);
  /// The integers of a graph input read on the host at each call, as index
  /// values (tensor.extract and index_cast, which the host plan turns into
  /// shape nodes): for an int32 or int64 graph input of at most one
  /// dimension and at most MaxRank elements that is neither a constant nor
  /// a shape value, or one integer computed from such inputs and constants
  /// by views, Cast to int64 and int64 Add, Sub and Mul (mirrored on the
  /// host: a loop body's Slice at its iteration); nullopt for any other
  /// input. A shape, pads or starts given at call time (issue 19 item 3).
  /// With `truncateFloats`, an f32 or f64 input is read too, truncated
  /// toward zero (as OneHot casts its depth; the runtime refuses one that is
  /// not finite).
  std::optional<llvm::SmallVector<mlir::Value>>
  intsReadAtCallTime(size_t i, bool truncateFloats = false);
  /// The one element of input `i` as an f64 on the host when it is known
  /// per call: a graph input's (int32, int64, float, double), a constant,
  /// or computed from those by Identity, Cast to float or double, Add, Sub,
  /// Mul or Div of floats, mirrored exactly (an f32 result rounded to f32
  /// after each operation); nullopt otherwise, building nothing.
  std::optional<mlir::Value> realAtCallTime(size_t i);
  /// Whether input `i` is a graph input: the function's argument, whose
  /// data the runtime has on the host before the call.
  bool isGraphInput(size_t i) const;
  /// Whether intsReadAtCallTime(i) would read input `i` (building nothing).
  bool readableAtCallTime(size_t i, bool truncateFloats = false) const;
  /// The integers of input `i` known per call only: a shape value's
  /// elements (computed from dynamic dimensions) or intsReadAtCallTime's;
  /// nullopt otherwise (a constant among them).
  std::optional<llvm::SmallVector<mlir::OpFoldResult>>
  intsKnownPerCall(size_t i);
  /// Axes given at call time (a graph input read per call: ONNX's backend
  /// tests give Squeeze's, Unsqueeze's and ReduceSum's so) that the
  /// converter needs at import: `deduce` reads them off the node's declared
  /// output shape (sets, each sorted and distinct, that all give the same
  /// result, as Unsqueeze's ones inserted beside another one do; none
  /// where the shape does not determine them), and each call checks that
  /// the axes it is given (negative ones counted from `rank`) are one of
  /// those sets, in any order, or `harmless` ones (a dimension of 1
  /// reduced); a one-line error names them otherwise. Returns the first
  /// set; nullopt when input `i` is no such input or output 0 declares no
  /// shape.
  std::optional<llvm::SmallVector<int64_t>> axesAtCallTime(
      size_t i, int64_t rank,
      llvm::function_ref<llvm::SmallVector<llvm::SmallVector<int64_t>>(
          llvm::ArrayRef<int64_t>)>
          deduce,
      llvm::ArrayRef<int64_t> harmless = {});
  /// The input's value when known at import time; else null after an
  /// "unsupported" error naming `what` and saying "input K 'NAME' is computed
  /// at run time" (the node-test runner pins such inputs and retries).
  const HostTensor *requireConstant(size_t i, llvm::Twine what);
  /// The integers of a constant input; an "unsupported" error naming
  /// `what` when the input is not known at import time.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(size_t i, llvm::StringRef what);
  /// An attribute before opset `inputSince`, input `inputIndex` from it on
  /// (Squeeze/Unsqueeze axes, Reduce* axes, Split sizes, ...): nullopt when
  /// neither is given.
  mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  intsFromAttrOrInput(llvm::StringRef attrName, size_t inputIndex,
                      int64_t inputSince);

  // Attributes. A getter meeting an attribute of another type reports an
  // error, which fails the node, and returns the default.
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t attrInt(llvm::StringRef name, int64_t def);
  float attrFloat(llvm::StringRef name, float def);
  std::string attrString(llvm::StringRef name, llvm::StringRef def);
  llvm::SmallVector<int64_t> attrInts(llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> def = {});
  llvm::SmallVector<float> attrFloats(llvm::StringRef name,
                                      llvm::ArrayRef<float> def = {});
  llvm::SmallVector<std::string> attrStrings(llvm::StringRef name);
  /// A tensor attribute's value (its external data read from the model's
  /// folder), nullopt when the node has no such attribute, failure after
  /// an error.
  mlir::FailureOr<std::optional<HostTensor>> attrTensor(llvm::StringRef name);

  /// Elements of a tensor of `shape` and `dtype` the node is about to
  /// make, or failure after an error naming `what` when a dimension is
  /// negative or the size overflows or is past the import's limits
  /// (TensorLimits). Converters and folders check every shape they compute
  /// from the model's numbers with this before building anything of it.
  mlir::FailureOr<int64_t> checkShape(llvm::ArrayRef<int64_t> shape,
                                      int32_t dtype, const llvm::Twine &what);
  const TensorLimits &limits() const { return Scope.Limits; }
  const ImportScope &scope() const { return Scope; }

  // Outputs. An output is absent when the node lists fewer or names it "".
  // Setting an absent output does nothing. An output whose shape is past
  // the import's limits is an error (failedAttributes() then holds).
  size_t numOutputs() const;
  bool hasOutput(size_t i) const;
  /// `value` must be a statically shaped tensor of `dtype`'s element type.
  void setOutput(size_t i, mlir::Value value, int32_t dtype);
  void setOutput(size_t i, HostTensor value);
  /// Sets output `i` to a shape value of these int64 elements, 1-D or a
  /// scalar (one element); a host tensor when every element is a constant.
  void setShapeValueOutput(size_t i,
                           llvm::ArrayRef<mlir::OpFoldResult> elements,
                           bool scalar);

  /// An error prefixed "node 'NAME' (OP_TYPE): ".
  mlir::InFlightDiagnostic emitError();
  /// emitError() << "unsupported " << why; the node-test runner counts
  /// errors with "unsupported" as missing features, not wrong results.
  mlir::LogicalResult unsupported(const llvm::Twine &why);
  /// `axis` in [-rank, rank) made non-negative, or an error naming `what`.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                         llvm::StringRef what = "axis");
  /// Fails with an "unsupported" error unless input `i`'s element type is
  /// one of `dtypes`.
  mlir::LogicalResult requireDType(size_t i, llvm::ArrayRef<int32_t> dtypes);
  /// Whether an attribute getter or setOutput reported an error.
  bool failedAttributes() const { return AttributeError; }

private:
  const onnx::NodeProto &Node;
  int64_t Opset;
  mlir::OpBuilder &Builder;
  ValueTable &Values;
  ShapeValueTable &ShapeValues;
  std::string DisplayName;
  const ImportScope &Scope;
  mlir::Location Loc;
  bool AttributeError = false;
};

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_NODECONTEXT_H
