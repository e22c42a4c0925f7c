//===- Attention.cpp - Scaled dot-product attention as frontends write it -===//

#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {

Type multiplyAccumulateType(linalg::LinalgOp op) {
  if (op->getNumRegions() != 1 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return nullptr;
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != 3)
    return nullptr;
  Type operand = body.getArgument(0).getType();
  if (!(operand.isF16() || operand.isBF16() || operand.isF32()) ||
      body.getArgument(1).getType() != operand ||
      !body.getArgument(2).getType().isF32())
    return nullptr;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return nullptr;
  Value product = add.getLhs() == body.getArgument(2)   ? add.getRhs()
                  : add.getRhs() == body.getArgument(2) ? add.getLhs()
                                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return nullptr;
  // f32 operands are multiplied as they are; half ones extended first.
  auto extended = [&](Value v, BlockArgument arg) {
    if (operand.isF32())
      return v == arg;
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == arg;
  };
  BlockArgument a = body.getArgument(0), b = body.getArgument(1);
  if ((extended(mul.getLhs(), a) && extended(mul.getRhs(), b)) ||
      (extended(mul.getLhs(), b) && extended(mul.getRhs(), a)))
    return operand;
  return nullptr;
}

Type halfMultiplyAccumulateType(linalg::LinalgOp op) {
  Type operand = multiplyAccumulateType(op);
  return operand && !operand.isF32() ? operand : nullptr;
}

Type attentionOperandType(linalg::LinalgOp op) {
  Type operand = multiplyAccumulateType(op);
  return operand && (operand.isF16() || operand.isF32()) ? operand : nullptr;
}

namespace {

// A contraction's parallel loops by role (batch: in both inputs and the
// output; m: the first input and the output; n: the second and the output)
// and its reductions (k: both inputs); batch in the output's order.
struct Roles {
  SmallVector<unsigned> Batch, M, N, K;
};

std::optional<Roles> contractionRoles(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || !op.hasPureTensorSemantics() ||
      op.hasDynamicShape() || op.hasIndexSemantics() ||
      !attentionOperandType(op) ||
      !op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  AffineMap a = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap b = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap c = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!a.isProjectedPermutation() || !b.isProjectedPermutation() ||
      !c.isProjectedPermutation())
    return std::nullopt;
  Roles roles;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    bool inA = a.isFunctionOfDim(d), inB = b.isFunctionOfDim(d),
         inC = c.isFunctionOfDim(d);
    if (iterators[d] == utils::IteratorType::reduction) {
      if (!inA || !inB || inC)
        return std::nullopt;
      roles.K.push_back(d);
    } else if (!inC || (!inA && !inB)) {
      return std::nullopt;
    }
  }
  for (AffineExpr e : c.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    bool inA = a.isFunctionOfDim(d), inB = b.isFunctionOfDim(d);
    (inA && inB ? roles.Batch : inA ? roles.M : roles.N).push_back(d);
  }
  if (roles.M.size() != 1 || roles.N.size() != 1 || roles.K.size() != 1)
    return std::nullopt;
  return roles;
}

unsigned innermostLoop(linalg::LinalgOp op, OpOperand *operand) {
  return cast<AffineDimExpr>(
             op.getMatchingIndexingMap(operand).getResults().back())
      .getPosition();
}

// What a scalar of the softmax program is, followed through the elementwise
// ops and reshapes that compute the tensors it reads: an op of a payload
// (at the loops that payload runs at), an element of a tensor read as it is
// (a leaf or the scores), a reduction's row value, or a value from outside
// the payloads (a captured constant, a fill's scalar).
struct Node {
  enum Kind { Invalid, PayloadOp, Element, Reduction, Scalar } K = Invalid;
  Operation *Op = nullptr;       // PayloadOp: the op; Reduction: the linalg op
  linalg::LinalgOp Owner;        // PayloadOp: the linalg op it belongs to
  SmallVector<AffineExpr> Loops; // PayloadOp: Owner's loops
  Value V;                       // Element: the tensor; Scalar: the value
  SmallVector<AffineExpr> Indices; // Element
};

// Compares the scalars of a softmax program with every reduction's dim
// read as the row's key (dim n - 1): the max's, the sum's and the sink's
// x must be one expression of the same elements.
class Comparer {
public:
  Comparer(const RowProgram &p, Value scores) : P(p), Scores(scores) {
    MLIRContext *ctx = p.Sink->getContext();
    unsigned n = p.Loops.size();
    for (unsigned d = 0; d < p.numDims(); ++d)
      KeyAsRow.push_back(getAffineDimExpr(d < n ? d : n - 1, ctx));
  }

  // `value` of `op`'s payload running at `loops` (program dims).
  Node resolve(Value value, linalg::LinalgOp op, ArrayRef<AffineExpr> loops);
  bool same(const Node &a, const Node &b);
  bool isReduction(const Node &node, Operation *reduction) {
    return node.K == Node::Reduction && node.Op == reduction;
  }
  SmallVector<AffineExpr> atKey(ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> result;
    for (AffineExpr e : exprs)
      result.push_back(simplifyAffineExpr(e.replaceDimsAndSymbols(KeyAsRow, {}),
                                          P.numDims(), 0));
    return result;
  }

  // The indices each read of the scores is at.
  SmallVector<SmallVector<AffineExpr>> ScoreReads;

private:
  Node resolveTensor(Value tensor, ArrayRef<AffineExpr> indices);

  const RowProgram &P;
  Value Scores;
  SmallVector<AffineExpr> KeyAsRow;
  int64_t Visits = 0;
};

Node Comparer::resolveTensor(Value tensor, ArrayRef<AffineExpr> indices) {
  Node node;
  Operation *def = tensor.getDefiningOp();
  if (auto fill = dyn_cast_if_present<linalg::FillOp>(def)) {
    node.K = Node::Scalar;
    node.V = fill.getInputs()[0];
    return node;
  }
  if (def && P.Ops.contains(def)) {
    if (isReshapeOp(def))
      return resolveTensor(def->getOperand(0), atKey(reshapeSourceIndices(
                                                   def, indices, P.numDims())));
    auto op = cast<linalg::LinalgOp>(def);
    if (op.getNumReductionLoops() != 0) {
      node.K = Node::Reduction;
      node.Op = def;
      return node;
    }
    return resolve(op->getRegion(0).front().getTerminator()->getOperand(0), op,
                   indices);
  }
  node.K = Node::Element;
  node.V = tensor;
  node.Indices.assign(indices.begin(), indices.end());
  if (tensor == Scores)
    ScoreReads.push_back(node.Indices);
  return node;
}

Node Comparer::resolve(Value value, linalg::LinalgOp op,
                       ArrayRef<AffineExpr> loops) {
  Node node;
  if (++Visits > 4096)
    return node;
  Region &payload = op->getRegion(0);
  if (auto arg = dyn_cast<BlockArgument>(value);
      arg && arg.getOwner()->getParent() == &payload) {
    OpOperand &operand = op->getOpOperand(arg.getArgNumber());
    if (op.isDpsInit(&operand))
      return node; // an accumulator: never part of x
    if (!isa<ShapedType>(operand.get().getType())) {
      node.K = Node::Scalar;
      node.V = operand.get();
      return node;
    }
    return resolveTensor(
        operand.get(), atKey(composeIndices(op.getMatchingIndexingMap(&operand),
                                            loops, P.numDims())));
  }
  if (value.getParentRegion() == &payload) {
    node.K = Node::PayloadOp;
    node.Op = value.getDefiningOp();
    node.Owner = op;
    node.Loops.assign(loops.begin(), loops.end());
    return node;
  }
  node.K = Node::Scalar;
  node.V = value;
  return node;
}

bool Comparer::same(const Node &a, const Node &b) {
  if (a.K != b.K || a.K == Node::Invalid)
    return false;
  switch (a.K) {
  case Node::Invalid:
    return false;
  case Node::Scalar: {
    if (a.V == b.V)
      return true;
    Attribute x, y;
    return matchPattern(a.V, m_Constant(&x)) &&
           matchPattern(b.V, m_Constant(&y)) && x == y;
  }
  case Node::Element:
    return a.V == b.V && a.Indices == b.Indices;
  case Node::Reduction:
    return a.Op == b.Op;
  case Node::PayloadOp: {
    Operation *x = a.Op, *y = b.Op;
    if (x->getName() != y->getName() ||
        x->getRawDictionaryAttrs() != y->getRawDictionaryAttrs() ||
        x->getPropertiesAsAttribute() != y->getPropertiesAsAttribute() ||
        x->getResultTypes() != y->getResultTypes() ||
        x->getNumOperands() != y->getNumOperands() || x->getNumRegions() != 0 ||
        y->getNumRegions() != 0 || x->getNumResults() != 1)
      return false;
    if (auto index = dyn_cast<linalg::IndexOp>(x))
      return a.Loops[index.getDim()] ==
             b.Loops[cast<linalg::IndexOp>(y).getDim()];
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
      if (!same(resolve(u, a.Owner, a.Loops), resolve(v, b.Owner, b.Loops)))
        return false;
    return true;
  }
  }
  return false;
}

// The value a reduction combines into its accumulator, as a node.
Node reducedValue(Comparer &cmp, const RowReduction &r) {
  Operation *combiner = r.Payload.Combiner;
  return cmp.resolve(combiner->getOperand(1 - r.Payload.AccumulatorOperand),
                     r.Op, cmp.atKey(reductionLoops(r)));
}

// `node` is `Op(operands...)` of payload op type OpTy: its operands' nodes.
template <typename OpTy>
std::optional<SmallVector<Node>> operandsOf(Comparer &cmp, const Node &node) {
  if (node.K != Node::PayloadOp || !isa<OpTy>(node.Op))
    return std::nullopt;
  SmallVector<Node> operands;
  for (Value v : node.Op->getOperands())
    operands.push_back(cmp.resolve(v, node.Owner, node.Loops));
  return operands;
}

bool isOne(const Node &node) {
  FloatAttr one;
  return node.K == Node::Scalar && matchPattern(node.V, m_Constant(&one)) &&
         one.getValue().isExactlyValue(1.0);
}

// The softmax's three parts: the max of x, the sum of exp(x - max), and the
// sink exp(x - max) / sum (or times its reciprocal), perhaps rounded. On
// success `scoreReads` holds the indices of every read of the scores.
bool isSoftmax(const RowProgram &p, Value scores,
               SmallVectorImpl<SmallVector<AffineExpr>> &scoreReads) {
  if (p.Reductions.size() != 2)
    return false;
  const RowReduction &max = p.Reductions[0], &sum = p.Reductions[1];
  if (!isa<arith::MaxNumFOp, arith::MaximumFOp>(max.Payload.Combiner) ||
      !isa<arith::AddFOp>(sum.Payload.Combiner) ||
      max.Extent != p.rowLength() || sum.Extent != p.rowLength())
    return false;
  Comparer cmp(p, scores);
  Node x = reducedValue(cmp, max);
  // exp(x - max), as the sum reduces it.
  auto isShiftedExp = [&](const Node &node) {
    std::optional<SmallVector<Node>> exp = operandsOf<math::ExpOp>(cmp, node);
    if (!exp)
      return false;
    std::optional<SmallVector<Node>> sub =
        operandsOf<arith::SubFOp>(cmp, exp->front());
    return sub && cmp.same((*sub)[0], x) && cmp.isReduction((*sub)[1], max.Op);
  };
  Node e = reducedValue(cmp, sum);
  if (!isShiftedExp(e))
    return false;
  linalg::LinalgOp sink = p.Sink;
  SmallVector<AffineExpr> loops;
  for (unsigned d = 0; d < p.Loops.size(); ++d)
    loops.push_back(getAffineDimExpr(d, sink->getContext()));
  Node result = cmp.resolve(
      sink->getRegion(0).front().getTerminator()->getOperand(0), sink, loops);
  if (std::optional<SmallVector<Node>> rounded =
          operandsOf<arith::TruncFOp>(cmp, result))
    result = rounded->front();
  bool normalized = false;
  if (std::optional<SmallVector<Node>> div =
          operandsOf<arith::DivFOp>(cmp, result)) {
    normalized = cmp.same((*div)[0], e) && cmp.isReduction((*div)[1], sum.Op);
  } else if (std::optional<SmallVector<Node>> mul =
                 operandsOf<arith::MulFOp>(cmp, result)) {
    for (int i = 0; i < 2 && !normalized; ++i) {
      std::optional<SmallVector<Node>> inverse =
          operandsOf<arith::DivFOp>(cmp, (*mul)[1 - i]);
      normalized = inverse && isOne((*inverse)[0]) &&
                   cmp.isReduction((*inverse)[1], sum.Op) &&
                   cmp.same((*mul)[i], e);
    }
  }
  if (!normalized)
    return false;
  scoreReads.assign(cmp.ScoreReads.begin(), cmp.ScoreReads.end());
  return true;
}

} // namespace

FailureOr<Attention> analyzeAttention(linalg::LinalgOp output,
                                      function_ref<bool(Value)> isLeaf) {
  Attention a;
  a.Output = output;
  std::optional<Roles> outRoles = contractionRoles(output);
  if (!outRoles)
    return failure();
  AttentionLoops &out = a.OutputLoops;
  out.Batch = outRoles->Batch;
  out.Query = outRoles->M.front();
  out.Inner = outRoles->N.front();
  out.Key = outRoles->K.front();
  OpOperand *pOperand = output.getDpsInputOperand(0);
  OpOperand *vOperand = output.getDpsInputOperand(1);
  OpOperand *oOperand = output.getDpsInitOperand(0);
  if (innermostLoop(output, pOperand) != out.Key ||
      innermostLoop(output, vOperand) != out.Inner ||
      innermostLoop(output, oOperand) != out.Inner)
    return failure();
  for (AffineExpr e : output.getMatchingIndexingMap(pOperand).getResults())
    a.SinkLoops.push_back(cast<AffineDimExpr>(e).getPosition());

  Value p = pOperand->get();
  auto sink = p.getDefiningOp<linalg::LinalgOp>();
  if (!sink || !p.hasOneUse())
    return failure();
  auto isScores = [](Value v) {
    auto op = v.getDefiningOp<linalg::LinalgOp>();
    return op && linalg::isaContractionOpInterface(op);
  };
  FailureOr<RowProgram> softmax = analyzeRowProgram(
      sink, [&](Value v) { return isLeaf(v) || isScores(v); });
  if (failed(softmax))
    return failure();
  a.Softmax = std::move(*softmax);
  // The one contraction the softmax reads, and only the softmax.
  for (Operation *op : a.Softmax.Ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || a.Softmax.Ops.contains(def) || !isScores(operand))
        continue;
      if (a.Scores && a.Scores != def)
        return failure();
      a.Scores = cast<linalg::LinalgOp>(def);
    }
  if (!a.Scores || llvm::any_of(a.Scores->getUsers(), [&](Operation *user) {
        return !a.Softmax.Ops.contains(user);
      }))
    return failure();
  std::optional<Roles> scoreRoles = contractionRoles(a.Scores);
  if (!scoreRoles || scoreRoles->Batch.size() != out.Batch.size())
    return failure();
  AttentionLoops &score = a.ScoreLoops;
  score.Batch = scoreRoles->Batch;
  score.Query = scoreRoles->M.front();
  score.Key = scoreRoles->N.front();
  score.Inner = scoreRoles->K.front();
  if (innermostLoop(a.Scores, a.Scores.getDpsInputOperand(0)) != score.Inner ||
      innermostLoop(a.Scores, a.Scores.getDpsInputOperand(1)) != score.Inner)
    return failure();
  SmallVector<SmallVector<AffineExpr>> scoreReads;
  if (!isSoftmax(a.Softmax, a.Scores->getResult(0), scoreReads))
    return failure();

  // The scores' loops in each role match the output's, by extent and, at
  // every read of the scores, by the sink dim they are read at.
  SmallVector<int64_t> outRanges = output.getStaticLoopRanges();
  SmallVector<int64_t> scoreRanges = a.Scores.getStaticLoopRanges();
  // The Output loop standing for each Scores loop (none for the head).
  SmallVector<int> counterpart(scoreRanges.size(), -1);
  for (auto [s, o] : llvm::zip(score.Batch, out.Batch))
    counterpart[s] = o;
  counterpart[score.Query] = out.Query;
  counterpart[score.Key] = out.Key;
  for (auto [s, o] : llvm::enumerate(counterpart))
    if (o >= 0 && scoreRanges[s] != outRanges[o])
      return failure();
  AffineMap scoreMap =
      a.Scores.getMatchingIndexingMap(a.Scores.getDpsInitOperand(0));
  unsigned sinkDims = a.Softmax.Loops.size();
  for (ArrayRef<AffineExpr> indices : scoreReads)
    for (auto [j, e] : llvm::enumerate(indices)) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || dim.getPosition() >= sinkDims)
        return failure();
      unsigned sinkDim = dim.getPosition();
      unsigned scoreLoop =
          cast<AffineDimExpr>(scoreMap.getResult(j)).getPosition();
      if (counterpart[scoreLoop] != static_cast<int>(a.SinkLoops[sinkDim]))
        return failure();
    }

  a.Queries = outRanges[out.Query];
  a.Keys = outRanges[out.Key];
  a.ValueDim = outRanges[out.Inner];
  a.HeadDim = scoreRanges[score.Inner];
  a.Operand = attentionOperandType(a.Scores);
  if (attentionOperandType(output) != a.Operand)
    return failure();
  for (unsigned d : out.Batch)
    a.Batch *= outRanges[d];
  if (a.HeadDim % 16 != 0 || a.HeadDim > 128 || a.ValueDim % 8 != 0 ||
      a.ValueDim > 128)
    return failure();
  return a;
}

} // namespace kiln
