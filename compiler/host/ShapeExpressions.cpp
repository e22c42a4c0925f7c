//===- ShapeExpressions.cpp - Host values' extents as shape nodes ---------===//

#include "compiler/host/ShapeExpressions.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>

using namespace mlir;

namespace kiln {

namespace {

// The dispatch function `call` calls.
func::FuncOp calleeOf(func::CallOp call) {
  return SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
}

} // namespace

Value ShapeExpressions::hostOperand(func::CallOp call, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!call || !arg)
    return nullptr;
  func::FuncOp callee = calleeOf(call);
  if (!callee || arg.getOwner() != &callee.getBody().front())
    return nullptr;
  return call.getOperand(arg.getArgNumber());
}

FailureOr<uint32_t> ShapeExpressions::dim(Value value, unsigned d) {
  return dimIn(nullptr, value, d);
}

FailureOr<SmallVector<uint32_t>> ShapeExpressions::dims(Value value) {
  SmallVector<uint32_t> nodes;
  auto type = cast<RankedTensorType>(value.getType());
  for (unsigned d = 0; d < type.getRank(); ++d) {
    FailureOr<uint32_t> node = dim(value, d);
    if (failed(node))
      return failure();
    nodes.push_back(*node);
  }
  return nodes;
}

FailureOr<uint32_t> ShapeExpressions::scalar(Value value) {
  return scalarIn(nullptr, value);
}

FailureOr<uint32_t> ShapeExpressions::condition(Value value) {
  return conditionIn(nullptr, value);
}

FailureOr<uint32_t> ShapeExpressions::byteSize(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  uint32_t bytes = Program.constant(elementByteSize(type.getElementType()));
  for (unsigned d = 0; d < type.getRank(); ++d) {
    FailureOr<uint32_t> extent = dim(value, d);
    if (failed(extent))
      return failure();
    bytes = Program.mul(bytes, *extent);
  }
  return bytes;
}

FailureOr<uint32_t> ShapeExpressions::dimIn(func::CallOp call, Value value,
                                            unsigned d) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(d))
    return Program.constant(type.getDimSize(d));
  if (Value operand = hostOperand(call, value))
    return dimIn(nullptr, operand, d);
  bool onHost = !call;
  if (onHost) {
    auto it = HostDims.find({value, d});
    if (it != HostDims.end())
      return it->second;
  }
  FailureOr<uint32_t> node = failure();
  Operation *def = value.getDefiningOp();
  if (auto arg = dyn_cast<BlockArgument>(value);
      arg && onHost && arg.getOwner() == &Host.getBody().front()) {
    node = Program.inputDim(arg.getArgNumber(), d);
  } else if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def)) {
    node = scalarIn(call, empty.getDynamicSize(d));
  } else if (auto inner = dyn_cast_or_null<func::CallOp>(def);
             inner && onHost) {
    // A dispatch's result: what its body returns, in the body.
    func::FuncOp callee = calleeOf(inner);
    if (callee && isDispatchFunc(callee)) {
      Operation *ret = callee.getBody().front().getTerminator();
      node = dimIn(inner,
                   ret->getOperand(cast<OpResult>(value).getResultNumber()), d);
    }
  } else if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
    // A linalg op's result has the shape of its init.
    node = dimIn(call, dps.getTiedOpOperand(cast<OpResult>(value))->get(), d);
  } else if (auto cast = dyn_cast_or_null<tensor::CastOp>(def)) {
    node = dimIn(call, cast.getSource(), d);
  } else if (auto pad = dyn_cast_or_null<tensor::PadOp>(def)) {
    // The source's extent and both paddings.
    FailureOr<uint32_t> source = dimIn(call, pad.getSource(), d);
    FailureOr<uint32_t> low = extentIn(call, pad.getMixedLowPad()[d]);
    FailureOr<uint32_t> high = extentIn(call, pad.getMixedHighPad()[d]);
    if (succeeded(source) && succeeded(low) && succeeded(high))
      node = Program.add(Program.add(*source, *low), *high);
  } else if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    // The product of the source dimensions the result's dimension groups.
    std::optional<uint32_t> product;
    // A copy: the groups are returned by value, and a range-for over an
    // element of a temporary would read freed memory.
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t s : groups[d]) {
      FailureOr<uint32_t> extent = dimIn(call, collapse.getSrc(), s);
      if (failed(extent))
        return failure();
      product = product ? Program.mul(*product, *extent) : *extent;
    }
    node = product ? *product : Program.constant(1);
  } else if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
    node = extentIn(call, expand.getMixedOutputShape()[d]);
  } else if (auto concat = dyn_cast_or_null<tensor::ConcatOp>(def)) {
    // Along the axis the operands' extents added, elsewhere the first's
    // (appendLoopChecks makes the others equal it).
    if (d != concat.getDim()) {
      node = dimIn(call, concat.getInputs().front(), d);
    } else {
      std::optional<uint32_t> sum;
      for (Value input : concat.getInputs()) {
        FailureOr<uint32_t> extent = dimIn(call, input, d);
        if (failed(extent))
          return failure();
        sum = sum ? Program.add(*sum, *extent) : *extent;
      }
      node = *sum;
    }
  } else if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def)) {
    // The sizes the slice keeps, in order (rank-reduced ones dropped).
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    unsigned kept = 0;
    for (unsigned i = 0; i < sizes.size(); ++i) {
      if (dropped.test(i))
        continue;
      if (kept++ == d) {
        node = extentIn(call, sizes[i]);
        break;
      }
    }
  }
  if (failed(node)) {
    if (def)
      return def->emitError()
             << "cannot follow dimension " << d << " of this result "
             << value.getType()
             << " back to the inputs' shapes (dynamic shapes reach linalg "
                "ops, tensor.empty, tensor.dim, pads, reshapes and slices "
                "so far)";
    return Host.emitError() << "cannot follow dimension " << d << " of "
                            << value.getType() << " to the inputs' shapes";
  }
  if (onHost)
    HostDims[{value, d}] = *node;
  return node;
}

FailureOr<uint32_t> ShapeExpressions::extentIn(func::CallOp call,
                                               OpFoldResult extent) {
  if (auto value = dyn_cast<Value>(extent))
    return scalarIn(call, value);
  std::optional<int64_t> constant = getConstantIntValue(extent);
  if (!constant || *constant < 0)
    return Host.emitError("an extent that is not a non-negative constant");
  return Program.constant(*constant);
}

FailureOr<uint32_t> ShapeExpressions::scalarIn(func::CallOp call, Value value) {
  FailureOr<Signed> v = signedIn(call, value);
  if (failed(v))
    return failure();
  std::optional<int64_t> pos = Program.constantValue(v->Pos),
                         neg = Program.constantValue(v->Neg);
  if (pos && neg && *neg > *pos) {
    if (Operation *def = value.getDefiningOp())
      return def->emitError() << "negative extent " << *pos - *neg;
    return Host.emitError() << "negative extent " << *pos - *neg;
  }
  return nonNegative(*v);
}

uint32_t ShapeExpressions::nonNegative(Signed value) {
  return Program.sub(value.Pos, value.Neg);
}

uint32_t ShapeExpressions::less(uint32_t a, uint32_t b) {
  using Opcode = ShapeProgramBuilder::Opcode;
  // max(a, b) - a is b - a where b > a, else 0; at most 1 of it.
  return Program.binary(Opcode::Min,
                        Program.sub(Program.binary(Opcode::Max, a, b), a),
                        Program.constant(1));
}

namespace {

// The host function's argument and the flat element `extract` reads:
// `tensor.extract %arg[constant indices]` of a tensor of static shape.
std::optional<std::pair<unsigned, int64_t>>
inputElementOf(tensor::ExtractOp extract, func::FuncOp host) {
  if (!extract)
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(extract.getTensor());
  auto type = cast_if_present<RankedTensorType>(extract.getTensor().getType());
  if (!arg || arg.getOwner() != &host.getBody().front() || !type ||
      !type.hasStaticShape())
    return std::nullopt;
  int64_t flat = 0;
  for (auto [d, index] : llvm::enumerate(extract.getIndices())) {
    std::optional<int64_t> i = getConstantIntValue(index);
    if (!i || *i < 0 || *i >= type.getDimSize(d))
      return std::nullopt;
    flat = flat * type.getDimSize(d) + *i;
  }
  return std::make_pair(arg.getArgNumber(), flat);
}

// The same for `value` = `arith.index_cast (tensor.extract ...)` of an
// integer tensor, as the ONNX importer reads a shape given at call time.
std::optional<std::pair<unsigned, int64_t>>
inputElementRead(Value value, func::FuncOp host) {
  // A bool read as 0 or 1.
  if (auto cast = value.getDefiningOp<arith::IndexCastUIOp>())
    return cast.getIn().getType().isInteger(1)
               ? inputElementOf(cast.getIn().getDefiningOp<tensor::ExtractOp>(),
                                host)
               : std::nullopt;
  auto cast = value.getDefiningOp<arith::IndexCastOp>();
  if (!cast)
    return std::nullopt;
  // A float input's element truncated first: the runtime truncates it.
  Value in = cast.getIn();
  if (auto truncate = in.getDefiningOp<arith::FPToSIOp>())
    in = truncate.getIn();
  return inputElementOf(in.getDefiningOp<tensor::ExtractOp>(), host);
}

} // namespace

FailureOr<ShapeExpressions::Signed>
ShapeExpressions::signedIn(func::CallOp call, Value value) {
  if (Value operand = hostOperand(call, value))
    return signedIn(nullptr, operand);
  uint32_t zero = Program.constant(0);
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    int64_t c = constant.getSExtValue();
    if (c == INT64_MIN)
      return Host.emitError() << "an extent of " << c;
    return c >= 0 ? Signed{Program.constant(c), zero}
                  : Signed{zero, Program.constant(-c)};
  }
  Operation *def = value.getDefiningOp();
  if (auto dimOp = dyn_cast_or_null<tensor::DimOp>(def)) {
    std::optional<int64_t> index = dimOp.getConstantIndex();
    if (!index)
      return dimOp.emitError("a dimension index known at compile time is "
                             "needed");
    FailureOr<uint32_t> node = dimIn(call, dimOp.getSource(), *index);
    if (failed(node))
      return failure();
    return Signed{*node, zero};
  }
  if (!call)
    if (std::optional<std::pair<unsigned, int64_t>> read =
            inputElementRead(value, Host))
      return Signed{Program.inputElement(read->first, read->second, false),
                    Program.inputElement(read->first, read->second, true)};
  // An integer computed in floating point, truncated toward zero: its
  // positive part trunc(max(r, 0)) and negative part trunc(max(-r, 0)).
  if (auto cast = dyn_cast_or_null<arith::IndexCastOp>(def))
    if (auto truncate = cast.getIn().getDefiningOp<arith::FPToSIOp>();
        truncate && !call) {
      FailureOr<uint32_t> real = realIn(truncate.getIn());
      if (failed(real))
        return failure();
      using Opcode = ShapeProgramBuilder::Opcode;
      uint32_t zeroReal = Program.realConstant(0.0);
      auto part = [&](uint32_t r) {
        return Program.unary(Opcode::RealToInt,
                             Program.binary(Opcode::RealMax, r, zeroReal));
      };
      return Signed{part(*real),
                    part(Program.binary(Opcode::RealSub, zeroReal, *real))};
    }
  if (auto select = dyn_cast_or_null<arith::SelectOp>(def)) {
    // b + c (a - b) for the condition c in {0, 1}.
    FailureOr<uint32_t> c = conditionIn(call, select.getCondition());
    FailureOr<Signed> a = signedIn(call, select.getTrueValue());
    FailureOr<Signed> b = signedIn(call, select.getFalseValue());
    if (failed(c) || failed(a) || failed(b))
      return failure();
    if (std::optional<int64_t> k = Program.constantValue(*c))
      return *k ? *a : *b;
    return Signed{
        Program.add(b->Pos, Program.mul(*c, Program.add(a->Pos, b->Neg))),
        Program.add(b->Neg, Program.mul(*c, Program.add(a->Neg, b->Pos)))};
  }
  using Opcode = ShapeProgramBuilder::Opcode;
  std::optional<Opcode> op;
  // Unsigned forms agree with the signed ones on values >= 0, the only
  // ones they take here (an operand below zero fails the call).
  bool nonNegativeOperands = false;
  if (isa_and_nonnull<arith::AddIOp>(def)) {
    op = Opcode::Add;
  } else if (isa_and_nonnull<arith::SubIOp>(def)) {
    op = Opcode::Sub;
  } else if (isa_and_nonnull<arith::MulIOp>(def)) {
    op = Opcode::Mul;
  } else if (isa_and_nonnull<arith::DivUIOp, arith::DivSIOp,
                             arith::FloorDivSIOp>(def)) {
    op = Opcode::FloorDiv;
    nonNegativeOperands = true;
  } else if (isa_and_nonnull<arith::CeilDivUIOp, arith::CeilDivSIOp>(def)) {
    op = Opcode::CeilDiv;
    nonNegativeOperands = true;
  } else if (isa_and_nonnull<arith::MaxSIOp>(def)) {
    op = Opcode::Max;
  } else if (isa_and_nonnull<arith::MinSIOp>(def)) {
    op = Opcode::Min;
  } else if (isa_and_nonnull<arith::MaxUIOp>(def)) {
    op = Opcode::Max;
    nonNegativeOperands = true;
  } else if (isa_and_nonnull<arith::MinUIOp>(def)) {
    op = Opcode::Min;
    nonNegativeOperands = true;
  }
  if (op && def->getNumOperands() == 2) {
    FailureOr<Signed> a = signedIn(call, def->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<Signed> b = signedIn(call, def->getOperand(1));
    if (failed(b))
      return failure();
    // Constants fold exactly, signed: a difference below zero in a branch a
    // select does not take must not fail the call.
    std::optional<int64_t> aPos = Program.constantValue(a->Pos),
                           aNeg = Program.constantValue(a->Neg),
                           bPos = Program.constantValue(b->Pos),
                           bNeg = Program.constantValue(b->Neg);
    if (aPos && aNeg && bPos && bNeg && !nonNegativeOperands) {
      int64_t x = *aPos - *aNeg, y = *bPos - *bNeg, r = 0;
      bool overflow = false;
      switch (*op) {
      case Opcode::Add:
        overflow = __builtin_add_overflow(x, y, &r);
        break;
      case Opcode::Sub:
        overflow = __builtin_sub_overflow(x, y, &r);
        break;
      case Opcode::Mul:
        overflow = __builtin_mul_overflow(x, y, &r);
        break;
      case Opcode::Max:
        r = std::max(x, y);
        break;
      case Opcode::Min:
        r = std::min(x, y);
        break;
      default:
        overflow = true;
        break;
      }
      if (!overflow && r != INT64_MIN)
        return r >= 0 ? Signed{Program.constant(r), zero}
                      : Signed{zero, Program.constant(-r)};
    }
    // Extents never negative: the arithmetic of nodes, as before values
    // could be (a difference below zero fails the call).
    if ((a->Neg == zero && b->Neg == zero) || nonNegativeOperands)
      return Signed{Program.binary(*op, nonNegative(*a), nonNegative(*b)),
                    zero};
    // a - b = x - y.
    uint32_t x = Program.add(a->Pos, b->Neg), y = Program.add(a->Neg, b->Pos);
    switch (*op) {
    case Opcode::Add:
      return Signed{Program.add(a->Pos, b->Pos), Program.add(a->Neg, b->Neg)};
    case Opcode::Sub:
      return Signed{x, y};
    case Opcode::Mul:
      return Signed{
          Program.add(Program.mul(a->Pos, b->Pos), Program.mul(a->Neg, b->Neg)),
          Program.add(Program.mul(a->Pos, b->Neg),
                      Program.mul(a->Neg, b->Pos))};
    case Opcode::Max: {
      // b + max(a - b, 0).
      uint32_t excess = Program.sub(Program.binary(Opcode::Max, x, y), y);
      return Signed{Program.add(b->Pos, excess), b->Neg};
    }
    case Opcode::Min: {
      // a - max(a - b, 0).
      uint32_t excess = Program.sub(Program.binary(Opcode::Max, x, y), y);
      return Signed{a->Pos, Program.add(a->Neg, excess)};
    }
    default:
      break;
    }
  }
  if (def)
    return def->emitError() << "cannot compute this extent on the host; "
                               "extents are constants, tensor.dim, elements "
                               "of integer inputs and index arithmetic (add, "
                               "sub, mul, div, ceildiv, max, min, cmpi, "
                               "select)";
  return Host.emitError("cannot compute an extent on the host");
}

FailureOr<uint32_t> ShapeExpressions::realIn(Value value) {
  using Opcode = ShapeProgramBuilder::Opcode;
  Operation *def = value.getDefiningOp();
  FloatAttr constant;
  if (matchPattern(value, m_Constant(&constant))) {
    double c = constant.getValueAsDouble();
    if (!std::isfinite(c))
      return def->emitError("a real extent from a constant that is not "
                            "finite");
    return Program.realConstant(c);
  }
  // An element of an input (an integer or a float: exact as a double).
  if (std::optional<std::pair<unsigned, int64_t>> read =
          inputElementOf(dyn_cast_or_null<tensor::ExtractOp>(def), Host))
    return Program.inputElementReal(read->first, read->second);
  if (auto extend = dyn_cast_or_null<arith::ExtFOp>(def)) {
    // f32 arithmetic mirrored in f64, each result rounded to f32
    // (extf (truncf x)): exactly the f32 result.
    if (auto round = extend.getIn().getDefiningOp<arith::TruncFOp>();
        round && round.getType().isF32() && round.getIn().getType().isF64()) {
      FailureOr<uint32_t> a = realIn(round.getIn());
      if (failed(a))
        return failure();
      return Program.unary(Opcode::RealRoundF32, *a);
    }
    return realIn(extend.getIn());
  }
  if (auto convert = dyn_cast_or_null<arith::SIToFPOp>(def)) {
    Value in = convert.getIn();
    // An integer made an f32 rounds to it.
    auto rounded = [&](uint32_t node) {
      return convert.getType().isF32()
                 ? Program.unary(Opcode::RealRoundF32, node)
                 : node;
    };
    if (std::optional<std::pair<unsigned, int64_t>> read =
            inputElementOf(in.getDefiningOp<tensor::ExtractOp>(), Host))
      return rounded(Program.inputElementReal(read->first, read->second));
    // An extent (an index made an integer first).
    auto cast = in.getDefiningOp<arith::IndexCastOp>();
    if (!cast || !cast.getIn().getType().isIndex())
      return convert.emitError("a real extent from an integer that is "
                               "neither an extent nor an input's element");
    FailureOr<Signed> v = signedIn(nullptr, cast.getIn());
    if (failed(v))
      return failure();
    return rounded(Program.binary(Opcode::RealSub,
                                  Program.unary(Opcode::RealFromInt, v->Pos),
                                  Program.unary(Opcode::RealFromInt, v->Neg)));
  }
  std::optional<Opcode> op;
  if (isa_and_nonnull<math::FloorOp>(def))
    op = Opcode::RealFloor;
  else if (isa_and_nonnull<math::CeilOp>(def))
    op = Opcode::RealCeil;
  else if (isa_and_nonnull<arith::AddFOp>(def))
    op = Opcode::RealAdd;
  else if (isa_and_nonnull<arith::SubFOp>(def))
    op = Opcode::RealSub;
  else if (isa_and_nonnull<arith::MulFOp>(def))
    op = Opcode::RealMul;
  else if (isa_and_nonnull<arith::DivFOp>(def))
    op = Opcode::RealDiv;
  else if (isa_and_nonnull<arith::MaximumFOp>(def))
    op = Opcode::RealMax;
  else if (isa_and_nonnull<arith::MinimumFOp>(def))
    op = Opcode::RealMin;
  // Rounded to f32, the host's double would differ.
  if (op && !value.getType().isF64())
    return def->emitError("real extent arithmetic must be in f64");
  if (op && def->getNumOperands() == 1) {
    FailureOr<uint32_t> a = realIn(def->getOperand(0));
    if (failed(a))
      return failure();
    return Program.unary(*op, *a);
  }
  if (op && def->getNumOperands() == 2) {
    FailureOr<uint32_t> a = realIn(def->getOperand(0));
    if (failed(a))
      return failure();
    FailureOr<uint32_t> b = realIn(def->getOperand(1));
    if (failed(b))
      return failure();
    return Program.binary(*op, *a, *b);
  }
  if (def)
    return def->emitError() << "cannot compute this real extent on the host; "
                               "real extents are f64 constants, input "
                               "elements, extents and their addf, subf, "
                               "mulf, divf, maximumf, minimumf, floor, ceil";
  return Host.emitError("cannot compute a real extent on the host");
}

FailureOr<uint32_t> ShapeExpressions::conditionIn(func::CallOp call,
                                                  Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return Program.constant(constant.isZero() ? 0 : 1);
  Operation *def = value.getDefiningOp();
  if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def)) {
    FailureOr<Signed> a = signedIn(call, cmp.getLhs());
    FailureOr<Signed> b = signedIn(call, cmp.getRhs());
    if (failed(a) || failed(b))
      return failure();
    // a < b exactly when x < y.
    uint32_t x = Program.add(a->Pos, b->Neg), y = Program.add(a->Neg, b->Pos);
    uint32_t one = Program.constant(1);
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::slt:
      return less(x, y);
    case arith::CmpIPredicate::sle:
      return Program.sub(one, less(y, x));
    case arith::CmpIPredicate::sgt:
      return less(y, x);
    case arith::CmpIPredicate::sge:
      return Program.sub(one, less(x, y));
    case arith::CmpIPredicate::eq:
      return Program.sub(one, Program.add(less(x, y), less(y, x)));
    case arith::CmpIPredicate::ne:
      return Program.add(less(x, y), less(y, x));
    default:
      break;
    }
  }
  if (isa_and_nonnull<arith::AndIOp, arith::OrIOp>(def)) {
    FailureOr<uint32_t> a = conditionIn(call, def->getOperand(0));
    FailureOr<uint32_t> b = conditionIn(call, def->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    return isa<arith::AndIOp>(def)
               ? Program.mul(*a, *b)
               : Program.binary(ShapeProgramBuilder::Opcode::Max, *a, *b);
  }
  if (def)
    return def->emitError() << "cannot compute this condition on the host; "
                               "conditions are signed comparisons (and, or) "
                               "of extents";
  return Host.emitError("cannot compute a condition on the host");
}

LogicalResult ShapeExpressions::appendLoopChecks(
    func::CallOp call, std::vector<std::pair<uint32_t, uint32_t>> &out) {
  func::FuncOp callee = calleeOf(call);
  if (!callee)
    return call.emitError("dispatch function not found");
  // A concat's operands agree off its axis: each one is copied whole into
  // the result, whose extent there is the first operand's.
  WalkResult concats = callee.walk([&](tensor::ConcatOp op) {
    auto type = cast<RankedTensorType>(op.getType());
    for (unsigned d = 0; d < type.getRank(); ++d) {
      if (d == op.getDim())
        continue;
      FailureOr<uint32_t> first = dimIn(call, op.getInputs().front(), d);
      if (failed(first))
        return WalkResult::interrupt();
      for (Value input : op.getInputs().drop_front()) {
        FailureOr<uint32_t> node = dimIn(call, input, d);
        if (failed(node))
          return WalkResult::interrupt();
        if (*node == *first)
          continue;
        std::optional<int64_t> a = Program.constantValue(*first),
                               b = Program.constantValue(*node);
        if (a && b) {
          op.emitError() << "operands differ in dimension " << d << ": " << *a
                         << " and " << *b;
          return WalkResult::interrupt();
        }
        out.push_back({*first, *node});
      }
    }
    return WalkResult::advance();
  });
  if (concats.wasInterrupted())
    return failure();
  WalkResult result = callee.walk([&](linalg::LinalgOp op) {
    // For each loop, the first operand extent it indexes alone.
    SmallVector<std::optional<uint32_t>> loopExtent(op.getNumLoops());
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type)
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(expr);
        if (!loop)
          continue;
        FailureOr<uint32_t> node = dimIn(call, operand.get(), d);
        if (failed(node))
          return WalkResult::interrupt();
        std::optional<uint32_t> &first = loopExtent[loop.getPosition()];
        if (!first) {
          first = *node;
          continue;
        }
        if (*first == *node)
          continue;
        std::optional<int64_t> a = Program.constantValue(*first),
                               b = Program.constantValue(*node);
        if (a && b) {
          op.emitError() << "loop " << loop.getPosition()
                         << " runs over extents " << *a << " and " << *b;
          return WalkResult::interrupt();
        }
        out.push_back({*first, *node});
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

} // namespace kiln
