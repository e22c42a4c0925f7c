//===- NodeContext.cpp - What an op converter sees of its node ------------===//

#include "compiler/onnx/NodeContext.h"
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/OnnxFile.h"
#include "compiler/onnx/OnnxTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

mlir::Value materialize(mlir::OpBuilder &builder, OnnxValue &value) {
  if (value.Value)
    return value.Value;
  assert(value.Constant && "a value without IR must be a constant");
  mlir::ElementsAttr attr =
      value.Constant->toAttr(builder.getContext(), value.Name);
  value.Value = mlir::arith::ConstantOp::create(
      builder, mlir::NameLoc::get(builder.getStringAttr(value.Name)),
      cast<mlir::TypedAttr>(attr));
  return value.Value;
}

NodeContext::NodeContext(const onnx::NodeProto &node, int64_t opset,
                         mlir::OpBuilder &builder, ValueTable &values,
                         ShapeValueTable &shapeValues,
                         llvm::StringRef displayName, const ImportScope &scope)
    : Node(node), Opset(opset), Builder(builder), Values(values),
      ShapeValues(shapeValues), DisplayName(displayName.str()), Scope(scope),
      Loc(mlir::NameLoc::get(builder.getStringAttr(displayName))) {}

llvm::StringRef NodeContext::opType() const { return Node.op_type(); }
llvm::StringRef NodeContext::name() const { return Node.name(); }

size_t NodeContext::numInputs() const { return Node.input_size(); }

bool NodeContext::hasInput(size_t i) const {
  return i < numInputs() && !Node.input(i).empty();
}

const OnnxValue &NodeContext::inputInfo(size_t i) const {
  assert(hasInput(i) && "absent input");
  // The importer checked every input is defined before running the node.
  return Values.find(Node.input(i))->second;
}

mlir::RankedTensorType NodeContext::inputType(size_t i) const {
  return inputInfo(i).Type;
}

llvm::ArrayRef<int64_t> NodeContext::inputShape(size_t i) const {
  return inputInfo(i).Type.getShape();
}

int32_t NodeContext::inputDType(size_t i) const { return inputInfo(i).DType; }

mlir::Value NodeContext::input(size_t i) {
  assert(hasInput(i) && "absent input");
  return materialize(Builder, Values.find(Node.input(i))->second);
}

const HostTensor *NodeContext::constantInput(size_t i) const {
  if (!hasInput(i))
    return nullptr;
  const OnnxValue &value = inputInfo(i);
  return value.Constant ? &*value.Constant : nullptr;
}

const llvm::SmallVector<mlir::OpFoldResult> *
NodeContext::shapeValueInput(size_t i) const {
  if (!hasInput(i))
    return nullptr;
  auto it = ShapeValues.find(Node.input(i));
  return it == ShapeValues.end() ? nullptr : &it->second;
}

mlir::LogicalResult
materializeShapeValue(mlir::OpBuilder &builder, mlir::Location loc,
                      OnnxValue &value,
                      llvm::ArrayRef<mlir::OpFoldResult> elements) {
  if (value.Value)
    return mlir::success();
  mlir::Region *here = builder.getInsertionBlock()->getParent();
  for (mlir::OpFoldResult e : elements)
    if (auto v = mlir::dyn_cast<mlir::Value>(e);
        v && !v.getParentRegion()->isAncestor(here))
      return mlir::failure();
  // A kernel writes it: element k is the k-th host value, each a scalar
  // the kernel takes (tensor.from_elements of host scalars has no
  // dispatch to live in). The unsigned cast keeps the index's 64 bits and
  // is not folded into the host read's signed one, which would leave the
  // kernel an i64 read of a tensor element instead of an extent.
  llvm::SmallVector<mlir::Value> items;
  for (mlir::OpFoldResult e : elements)
    items.push_back(mlir::getValueOrCreateConstantIndexOp(builder, loc, e));
  int64_t rank = value.Type.getRank();
  mlir::Type i64 = builder.getI64Type();
  mlir::Value init =
      mlir::tensor::EmptyOp::create(builder, loc, value.Type.getShape(), i64);
  value.Value =
      mlir::linalg::GenericOp::create(
          builder, loc, mlir::TypeRange{value.Type}, mlir::ValueRange{},
          mlir::ValueRange{init},
          llvm::ArrayRef<mlir::AffineMap>{builder.getMultiDimIdentityMap(rank)},
          llvm::SmallVector<mlir::utils::IteratorType>(
              rank, mlir::utils::IteratorType::parallel),
          [&](mlir::OpBuilder &b, mlir::Location l, mlir::ValueRange) {
            mlir::Value picked = items.back();
            if (rank == 1) {
              mlir::Value k = mlir::linalg::IndexOp::create(b, l, 0);
              for (size_t j = items.size() - 1; j-- > 0;)
                picked = mlir::arith::SelectOp::create(
                    b, l,
                    mlir::arith::CmpIOp::create(
                        b, l, mlir::arith::CmpIPredicate::eq, k,
                        mlir::arith::ConstantIndexOp::create(b, l, j)),
                    items[j], picked);
            }
            mlir::linalg::YieldOp::create(
                b, l,
                mlir::Value(
                    mlir::arith::IndexCastUIOp::create(b, l, i64, picked)));
          })
          .getResult(0);
  return mlir::success();
}

mlir::LogicalResult NodeContext::materializeShapeValue(size_t i) {
  const llvm::SmallVector<mlir::OpFoldResult> *elements = shapeValueInput(i);
  if (!elements)
    return mlir::failure();
  return kiln::onnx_import::materializeShapeValue(
      Builder, Loc, Values.find(Node.input(i))->second, *elements);
}

namespace {

// How realAtCallTime mirrors a value: its steps, checked before anything is
// built.
struct RealMirror {
  const ValueTable &Values;
  const llvm::StringMap<const onnx::NodeProto *> &Producers;

  // The graph input `name` is (a function argument of one element).
  static bool isReadableArgument(const OnnxValue &v) {
    auto arg = mlir::dyn_cast_or_null<mlir::BlockArgument>(v.Value);
    return arg &&
           mlir::isa<mlir::func::FuncOp>(arg.getOwner()->getParentOp()) &&
           !v.Constant && v.Type.hasStaticShape() &&
           v.Type.getNumElements() == 1 &&
           (v.DType == Int32 || v.DType == Int64 || v.DType == Float ||
            v.DType == Double);
  }

  bool mirrorable(llvm::StringRef name, int depth) const {
    auto it = Values.find(name);
    if (it == Values.end() || depth > 16)
      return false;
    const OnnxValue &v = it->second;
    if (v.Constant)
      return v.Constant->numElements() == 1 &&
             (isFloatDType(v.DType) || isIntegerDType(v.DType));
    if (isReadableArgument(v))
      return true;
    auto producer = Producers.find(name);
    if (producer == Producers.end() || !v.Type.hasStaticShape() ||
        v.Type.getNumElements() != 1)
      return false;
    const onnx::NodeProto &node = *producer->second;
    llvm::StringRef op = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return false;
    bool arithmetic = op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
    if (op == "Identity" || op == "Cast")
      return node.input_size() == 1 &&
             (op == "Identity" || v.DType == Float || v.DType == Double) &&
             mirrorable(node.input(0), depth + 1);
    return arithmetic && node.input_size() == 2 &&
           (v.DType == Float || v.DType == Double) &&
           mirrorable(node.input(0), depth + 1) &&
           mirrorable(node.input(1), depth + 1);
  }

  mlir::Value build(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef name) const {
    const OnnxValue &v = Values.find(name)->second;
    mlir::Type f64 = b.getF64Type();
    // An f32 value's f64 mirror rounded to f32, which is exact for one
    // f32 operation on f32 operands done in double.
    auto rounded = [&](mlir::Value x) -> mlir::Value {
      if (v.DType != Float)
        return x;
      mlir::Value narrow =
          mlir::arith::TruncFOp::create(b, loc, b.getF32Type(), x);
      return mlir::arith::ExtFOp::create(b, loc, f64, narrow);
    };
    if (v.Constant)
      return mlir::arith::ConstantOp::create(
          b, loc, b.getF64FloatAttr(v.Constant->doubleAt(0)));
    if (isReadableArgument(v)) {
      llvm::SmallVector<mlir::Value> index(
          v.Type.getRank(),
          mlir::arith::ConstantIndexOp::create(b, loc, 0).getResult());
      mlir::Value e = mlir::tensor::ExtractOp::create(b, loc, v.Value, index);
      if (e.getType().isF64())
        return e;
      if (mlir::isa<mlir::FloatType>(e.getType()))
        return mlir::arith::ExtFOp::create(b, loc, f64, e);
      return mlir::arith::SIToFPOp::create(b, loc, f64, e);
    }
    const onnx::NodeProto &node = *Producers.find(name)->second;
    llvm::StringRef op = node.op_type();
    if (op == "Identity")
      return build(b, loc, node.input(0));
    if (op == "Cast")
      return rounded(build(b, loc, node.input(0)));
    mlir::Value x = build(b, loc, node.input(0));
    mlir::Value y = build(b, loc, node.input(1));
    mlir::Value r;
    if (op == "Add")
      r = mlir::arith::AddFOp::create(b, loc, x, y);
    else if (op == "Sub")
      r = mlir::arith::SubFOp::create(b, loc, x, y);
    else if (op == "Mul")
      r = mlir::arith::MulFOp::create(b, loc, x, y);
    else
      r = mlir::arith::DivFOp::create(b, loc, x, y);
    return rounded(r);
  }
};

// An integer of one element known per call, mirrored on the host as an
// index (what the host plan evaluates): a graph input's, a constant, or
// made from those by views (Identity, Unsqueeze, Squeeze, Reshape,
// Flatten), Cast to int64, and int64 Add, Sub and Mul (wrapping in 64 bits
// as the model's). A loop body's slice at its iteration (Slice from
// Unsqueeze(iteration) to Unsqueeze(iteration + 1)) reads its starts so.
struct IntMirror {
  const ValueTable &Values;
  const llvm::StringMap<const onnx::NodeProto *> &Producers;

  bool mirrorable(llvm::StringRef name, int depth) const {
    auto it = Values.find(name);
    if (it == Values.end() || depth > 16)
      return false;
    const OnnxValue &v = it->second;
    if (v.DType != Int32 && v.DType != Int64)
      return false;
    if (v.Constant)
      return v.Constant->numElements() == 1;
    if (!v.Type.hasStaticShape() || v.Type.getNumElements() != 1)
      return false;
    auto arg = mlir::dyn_cast_or_null<mlir::BlockArgument>(v.Value);
    if (arg && mlir::isa<mlir::func::FuncOp>(arg.getOwner()->getParentOp()))
      return true;
    auto producer = Producers.find(name);
    if (producer == Producers.end())
      return false;
    const onnx::NodeProto &node = *producer->second;
    llvm::StringRef op = node.op_type();
    if ((!node.domain().empty() && node.domain() != "ai.onnx") ||
        node.input_size() < 1)
      return false;
    if (op == "Identity" || op == "Unsqueeze" || op == "Squeeze" ||
        op == "Reshape" || op == "Flatten" ||
        (op == "Cast" && v.DType == Int64))
      return mirrorable(node.input(0), depth + 1);
    return (op == "Add" || op == "Sub" || op == "Mul") && v.DType == Int64 &&
           node.input_size() == 2 && mirrorable(node.input(0), depth + 1) &&
           mirrorable(node.input(1), depth + 1);
  }

  mlir::Value build(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::StringRef name) const {
    const OnnxValue &v = Values.find(name)->second;
    if (v.Constant)
      return mlir::arith::ConstantIndexOp::create(b, loc, v.Constant->intAt(0));
    if (auto arg = mlir::dyn_cast_or_null<mlir::BlockArgument>(v.Value);
        arg && mlir::isa<mlir::func::FuncOp>(arg.getOwner()->getParentOp())) {
      llvm::SmallVector<mlir::Value> index(
          v.Type.getRank(),
          mlir::arith::ConstantIndexOp::create(b, loc, 0).getResult());
      mlir::Value e = mlir::tensor::ExtractOp::create(b, loc, v.Value, index);
      return mlir::arith::IndexCastOp::create(b, loc, b.getIndexType(), e);
    }
    const onnx::NodeProto &node = *Producers.find(name)->second;
    llvm::StringRef op = node.op_type();
    mlir::Value x = build(b, loc, node.input(0));
    if (op != "Add" && op != "Sub" && op != "Mul")
      return x;
    mlir::Value y = build(b, loc, node.input(1));
    if (op == "Add")
      return mlir::arith::AddIOp::create(b, loc, x, y);
    if (op == "Sub")
      return mlir::arith::SubIOp::create(b, loc, x, y);
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
};

} // namespace

bool NodeContext::readableAtCallTime(size_t i, bool truncateFloats) const {
  if (!hasInput(i) || constantInput(i) || shapeValueInput(i))
    return false;
  int32_t dtype = inputDType(i);
  mlir::RankedTensorType type = inputType(i);
  bool integer = dtype == Int64 || dtype == Int32;
  bool floating = truncateFloats && (dtype == Float || dtype == Double);
  if (!(integer || floating) || !type.hasStaticShape() || type.getRank() > 1 ||
      type.getNumElements() > limits().MaxRank)
    return false;
  return isGraphInput(i) ||
         (integer &&
          IntMirror{Values, Scope.Producers}.mirrorable(Node.input(i), 0));
}

bool NodeContext::isGraphInput(size_t i) const {
  if (!hasInput(i) || constantInput(i))
    return false;
  auto arg = mlir::dyn_cast_or_null<mlir::BlockArgument>(inputInfo(i).Value);
  return arg && mlir::isa<mlir::func::FuncOp>(arg.getOwner()->getParentOp());
}

std::optional<llvm::SmallVector<mlir::Value>>
NodeContext::intsReadAtCallTime(size_t i, bool truncateFloats) {
  if (!readableAtCallTime(i, truncateFloats))
    return std::nullopt;
  if (!isGraphInput(i)) {
    // One integer computed from graph inputs and constants (IntMirror).
    return llvm::SmallVector<mlir::Value>{
        IntMirror{Values, Scope.Producers}.build(Builder, Loc, Node.input(i))};
  }
  mlir::Value value = input(i);
  mlir::RankedTensorType type = inputType(i);
  llvm::SmallVector<mlir::Value> elements;
  for (int64_t k = 0; k < type.getNumElements(); ++k) {
    llvm::SmallVector<mlir::Value> index;
    if (type.getRank() == 1)
      index.push_back(mlir::arith::ConstantIndexOp::create(Builder, Loc, k));
    mlir::Value element =
        mlir::tensor::ExtractOp::create(Builder, Loc, value, index);
    if (mlir::isa<mlir::FloatType>(element.getType()))
      element = mlir::arith::FPToSIOp::create(Builder, Loc,
                                              Builder.getI64Type(), element);
    elements.push_back(mlir::arith::IndexCastOp::create(
        Builder, Loc, Builder.getIndexType(), element));
  }
  return elements;
}

std::optional<mlir::Value> NodeContext::realAtCallTime(size_t i) {
  if (!hasInput(i))
    return std::nullopt;
  RealMirror mirror{Values, Scope.Producers};
  if (!mirror.mirrorable(Node.input(i), 0))
    return std::nullopt;
  return mirror.build(Builder, Loc, Node.input(i));
}

std::string NodeContext::describe() const {
  return "node '" + DisplayName + "' (" + Node.op_type() + ")";
}

std::optional<llvm::SmallVector<mlir::OpFoldResult>>
NodeContext::intsKnownPerCall(size_t i) {
  if (const llvm::SmallVector<mlir::OpFoldResult> *shape = shapeValueInput(i))
    return *shape;
  if (std::optional<llvm::SmallVector<mlir::Value>> read =
          intsReadAtCallTime(i))
    return llvm::SmallVector<mlir::OpFoldResult>(read->begin(), read->end());
  return std::nullopt;
}

std::optional<llvm::SmallVector<int64_t>> NodeContext::axesAtCallTime(
    size_t i, int64_t rank,
    llvm::function_ref<
        llvm::SmallVector<llvm::SmallVector<int64_t>>(llvm::ArrayRef<int64_t>)>
        deduce,
    llvm::ArrayRef<int64_t> harmless) {
  if (!hasOutput(0))
    return std::nullopt;
  auto declared = Scope.DeclaredShapes.find(Node.output(0));
  if (declared == Scope.DeclaredShapes.end())
    return std::nullopt;
  std::optional<llvm::SmallVector<mlir::Value>> given = intsReadAtCallTime(i);
  if (!given)
    return std::nullopt;
  llvm::SmallVector<llvm::SmallVector<int64_t>> sets = deduce(declared->second);
  if (sets.empty())
    return std::nullopt;
  // Every axis given is one of those or harmless, and each of those is
  // given: with as many given as needed, the same set.
  mlir::OpBuilder &b = Builder;
  auto index = [&](int64_t v) -> mlir::Value {
    return mlir::arith::ConstantIndexOp::create(b, Loc, v);
  };
  auto equals = [&](mlir::Value x, int64_t c) -> mlir::Value {
    return mlir::arith::CmpIOp::create(b, Loc, mlir::arith::CmpIPredicate::eq,
                                       x, index(c));
  };
  llvm::SmallVector<mlir::Value> normalized;
  for (mlir::Value v : *given)
    normalized.push_back(countedFromEnd(b, Loc, v, index(rank)));
  // Whether any of `values` equals any of `constants` (false for none).
  auto anyEqual = [&](llvm::ArrayRef<mlir::Value> values,
                      llvm::ArrayRef<int64_t> constants) -> mlir::Value {
    mlir::Value any;
    for (mlir::Value v : values)
      for (int64_t c : constants) {
        mlir::Value eq = equals(v, c);
        any =
            any ? mlir::arith::OrIOp::create(b, Loc, any, eq).getResult() : eq;
      }
    return any ? any : mlir::arith::ConstantIntOp::create(b, Loc, 0, 1);
  };
  // Given, the axes must be one of the sets (any order), or harmless.
  mlir::Value holds;
  for (const llvm::SmallVector<int64_t> &axes : sets) {
    llvm::SmallVector<int64_t> allowed(axes);
    llvm::append_range(allowed, harmless);
    mlir::Value all;
    auto both = [&](mlir::Value c) {
      all = all ? mlir::arith::AndIOp::create(b, Loc, all, c).getResult() : c;
    };
    for (mlir::Value v : normalized)
      both(anyEqual(v, allowed));
    for (int64_t a : axes)
      both(anyEqual(normalized, a));
    if (!all) // no axes given and none needed
      return sets.front();
    holds = holds ? mlir::arith::OrIOp::create(b, Loc, holds, all).getResult()
                  : all;
  }
  std::string list;
  for (auto [n, axes] : llvm::enumerate(sets)) {
    list += n ? " or [" : "[";
    for (auto [k, a] : llvm::enumerate(axes))
      list += (k ? ", " : "") + std::to_string(a);
    list += "]";
  }
  mlir::cf::AssertOp::create(b, Loc, holds,
                             describe() + ": input " + std::to_string(i) +
                                 " '" + Node.input(i) + "' must be the axes " +
                                 list + " its declared output shape implies");
  return sets.front();
}

const HostTensor *NodeContext::requireConstant(size_t i, llvm::Twine what) {
  if (const HostTensor *constant = constantInput(i))
    return constant;
  (void)unsupported("non-constant " + what + " (input " + llvm::Twine(i) +
                    " '" + (hasInput(i) ? Node.input(i) : "") +
                    "' is computed at run time)");
  return nullptr;
}

mlir::FailureOr<llvm::SmallVector<int64_t>>
NodeContext::constantInts(size_t i, llvm::StringRef what) {
  const HostTensor *constant = requireConstant(i, what);
  if (!constant)
    return mlir::failure();
  if (!isIntegerDType(constant->dtype())) {
    (void)unsupported(what + " of element type " +
                      dtypeName(constant->dtype()) + "; want integers");
    return mlir::failure();
  }
  return constant->toInt64s();
}

mlir::FailureOr<std::optional<llvm::SmallVector<int64_t>>>
NodeContext::intsFromAttrOrInput(llvm::StringRef attrName, size_t inputIndex,
                                 int64_t inputSince) {
  if (Opset < inputSince) {
    if (!hasAttr(attrName))
      return std::optional<llvm::SmallVector<int64_t>>();
    return std::optional<llvm::SmallVector<int64_t>>(attrInts(attrName));
  }
  if (hasAttr(attrName)) {
    (void)unsupported("attribute '" + attrName + "' at opset " +
                      llvm::Twine(Opset) + " (an input since opset " +
                      llvm::Twine(inputSince) + ")");
    return mlir::failure();
  }
  if (!hasInput(inputIndex))
    return std::optional<llvm::SmallVector<int64_t>>();
  mlir::FailureOr<llvm::SmallVector<int64_t>> values =
      constantInts(inputIndex, attrName);
  if (failed(values))
    return mlir::failure();
  return std::optional<llvm::SmallVector<int64_t>>(std::move(*values));
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &a : Node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

namespace {

// Files from before IR version 2 may leave an attribute's type unset.
bool hasType(const onnx::AttributeProto &a,
             onnx::AttributeProto_AttributeType type) {
  if (a.type() == type)
    return true;
  if (a.type() != onnx::AttributeProto_AttributeType_UNDEFINED)
    return false;
  switch (type) {
  case onnx::AttributeProto_AttributeType_INT:
    return a.has_i();
  case onnx::AttributeProto_AttributeType_FLOAT:
    return a.has_f();
  case onnx::AttributeProto_AttributeType_STRING:
    return a.has_s();
  case onnx::AttributeProto_AttributeType_INTS:
    return a.ints_size() > 0;
  case onnx::AttributeProto_AttributeType_FLOATS:
    return a.floats_size() > 0;
  case onnx::AttributeProto_AttributeType_STRINGS:
    return a.strings_size() > 0;
  default:
    return false;
  }
}

const char *typeName(onnx::AttributeProto_AttributeType type) {
  switch (type) {
  case onnx::AttributeProto_AttributeType_INT:
    return "an int";
  case onnx::AttributeProto_AttributeType_FLOAT:
    return "a float";
  case onnx::AttributeProto_AttributeType_STRING:
    return "a string";
  case onnx::AttributeProto_AttributeType_INTS:
    return "a list of ints";
  case onnx::AttributeProto_AttributeType_FLOATS:
    return "a list of floats";
  case onnx::AttributeProto_AttributeType_STRINGS:
    return "a list of strings";
  case onnx::AttributeProto_AttributeType_TENSOR:
    return "a tensor";
  case onnx::AttributeProto_AttributeType_GRAPH:
    return "a graph";
  default:
    return "of another kind";
  }
}

} // namespace

#define KILN_ATTR_CHECK(TYPE)                                                  \
  const onnx::AttributeProto *a = attr(name);                                  \
  if (!a)                                                                      \
    return def;                                                                \
  if (!hasType(*a, onnx::AttributeProto_AttributeType_##TYPE)) {               \
    emitError() << "attribute '" << name << "' is " << typeName(a->type())     \
                << ", want "                                                   \
                << typeName(onnx::AttributeProto_AttributeType_##TYPE);        \
    AttributeError = true;                                                     \
    return def;                                                                \
  }

int64_t NodeContext::attrInt(llvm::StringRef name, int64_t def) {
  KILN_ATTR_CHECK(INT)
  return a->i();
}

float NodeContext::attrFloat(llvm::StringRef name, float def) {
  KILN_ATTR_CHECK(FLOAT)
  return a->f();
}

std::string NodeContext::attrString(llvm::StringRef name,
                                    llvm::StringRef defRef) {
  std::string def = defRef.str();
  KILN_ATTR_CHECK(STRING)
  return a->s();
}

llvm::SmallVector<int64_t>
NodeContext::attrInts(llvm::StringRef name, llvm::ArrayRef<int64_t> defRef) {
  llvm::SmallVector<int64_t> def(defRef);
  KILN_ATTR_CHECK(INTS)
  return llvm::SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

llvm::SmallVector<float> NodeContext::attrFloats(llvm::StringRef name,
                                                 llvm::ArrayRef<float> defRef) {
  llvm::SmallVector<float> def(defRef);
  KILN_ATTR_CHECK(FLOATS)
  return llvm::SmallVector<float>(a->floats().begin(), a->floats().end());
}

llvm::SmallVector<std::string> NodeContext::attrStrings(llvm::StringRef name) {
  llvm::SmallVector<std::string> def;
  KILN_ATTR_CHECK(STRINGS)
  return llvm::SmallVector<std::string>(a->strings().begin(),
                                        a->strings().end());
}

#undef KILN_ATTR_CHECK

mlir::FailureOr<std::optional<HostTensor>>
NodeContext::attrTensor(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::optional<HostTensor>();
  if (!hasType(*a, onnx::AttributeProto_AttributeType_TENSOR) || !a->has_t()) {
    emitError() << "attribute '" << name << "' is " << typeName(a->type())
                << ", want "
                << typeName(onnx::AttributeProto_AttributeType_TENSOR);
    return mlir::failure();
  }
  llvm::Expected<HostTensor> tensor =
      readTensor(a->t(), Scope.ModelDir, Scope.Model, Scope.Limits);
  if (!tensor) {
    emitError() << "attribute '" << name
                << "': " << llvm::toString(tensor.takeError());
    return mlir::failure();
  }
  return std::optional<HostTensor>(std::move(*tensor));
}

mlir::FailureOr<int64_t> NodeContext::checkShape(llvm::ArrayRef<int64_t> shape,
                                                 int32_t dtype,
                                                 const llvm::Twine &what) {
  llvm::Expected<int64_t> elements =
      checkedNumElements(shape, dtypeByteSize(dtype), what, Scope.Limits);
  if (!elements) {
    emitError() << llvm::toString(elements.takeError());
    return mlir::failure();
  }
  return *elements;
}

size_t NodeContext::numOutputs() const { return Node.output_size(); }

bool NodeContext::hasOutput(size_t i) const {
  return i < numOutputs() && !Node.output(i).empty();
}

void NodeContext::setOutput(size_t i, mlir::Value value, int32_t dtype) {
  if (!hasOutput(i))
    return;
  auto type = cast<mlir::RankedTensorType>(value.getType());
  if (failed(checkShape(staticPartOf(type.getShape()), dtype,
                        "output '" + Node.output(i) + "'"))) {
    AttributeError = true;
    return;
  }
  assert(type.getElementType() == elementTypeOf(context(), dtype) &&
         "dtype does not match the element type");
  OnnxValue &out = Values[Node.output(i)];
  out = OnnxValue{type, dtype, value, std::nullopt, Node.output(i)};
}

void NodeContext::setOutput(size_t i, HostTensor value) {
  if (!hasOutput(i))
    return;
  auto type = mlir::RankedTensorType::get(
      value.shape(), elementTypeOf(context(), value.dtype()));
  OnnxValue &out = Values[Node.output(i)];
  int32_t dtype = value.dtype();
  out = OnnxValue{type, dtype, mlir::Value(), std::move(value), Node.output(i)};
}

void NodeContext::setShapeValueOutput(
    size_t i, llvm::ArrayRef<mlir::OpFoldResult> elements, bool scalar) {
  if (!hasOutput(i))
    return;
  assert((!scalar || elements.size() == 1) && "a scalar has one element");
  llvm::SmallVector<int64_t> shape;
  if (!scalar)
    shape.push_back(static_cast<int64_t>(elements.size()));
  llvm::SmallVector<int64_t> constants;
  for (mlir::OpFoldResult e : elements)
    if (std::optional<int64_t> c = mlir::getConstantIntValue(e))
      constants.push_back(*c);
  if (constants.size() == elements.size()) {
    setOutput(i, HostTensor::fromInt64s(Int64, shape, constants));
    return;
  }
  auto type = mlir::RankedTensorType::get(shape, Builder.getI64Type());
  Values[Node.output(i)] =
      OnnxValue{type, Int64, mlir::Value(), std::nullopt, Node.output(i)};
  ShapeValues[Node.output(i)].assign(elements.begin(), elements.end());
}

mlir::InFlightDiagnostic NodeContext::emitError() {
  mlir::InFlightDiagnostic diag = mlir::emitError(Loc);
  diag << "node '" << DisplayName << "' (" << opType() << "): ";
  return diag;
}

mlir::LogicalResult NodeContext::unsupported(const llvm::Twine &why) {
  emitError() << "unsupported " << why;
  return mlir::failure();
}

mlir::FailureOr<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank,
                                                    llvm::StringRef what) {
  if (axis < -rank || axis >= rank) {
    emitError() << what << " " << axis << " is out of range for rank " << rank;
    return mlir::failure();
  }
  return axis < 0 ? axis + rank : axis;
}

mlir::LogicalResult NodeContext::requireDType(size_t i,
                                              llvm::ArrayRef<int32_t> dtypes) {
  if (llvm::is_contained(dtypes, inputDType(i)))
    return mlir::success();
  return unsupported("element type " + dtypeName(inputDType(i)) + " of input " +
                     llvm::Twine(i));
}

} // namespace kiln::onnx_import
