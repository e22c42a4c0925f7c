//===- FormDispatches.cpp - Group ops into outlined dispatches ------------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/RowPrograms.h"
#include "compiler/dispatch/ShapeScalars.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace kiln {
#define GEN_PASS_DEF_FORMDISPATCHES
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

bool isConversionOf(Operation *op, Value value) {
  auto generic = dyn_cast_if_present<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() != generic.getNumParallelLoops() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getDpsInputOperand(0)->get() != value ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  Block &body = *generic.getBody();
  if (body.getOperations().size() != 2)
    return false;
  Operation &cast = body.front();
  return isa<arith::TruncFOp, arith::ExtFOp>(cast) &&
         cast.getOperand(0) == body.getArgument(0) &&
         body.getTerminator()->getOperand(0) == cast.getResult(0);
}

AffineMap permutedEpilogueRead(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<linalg::GenericOp, linalg::TransposeOp>(op) ||
      linalgOp.getNumDpsInputs() != 1 || linalgOp.getNumDpsInits() != 1 ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
      linalgOp.hasIndexSemantics() ||
      linalgOp.payloadUsesValueFromOperand(linalgOp.getDpsInitOperand(0)) ||
      !linalgOp.getIndexingMapsArray().back().isIdentity())
    return AffineMap();
  AffineMap map =
      linalgOp.getMatchingIndexingMap(linalgOp.getDpsInputOperand(0));
  unsigned last = map.getNumDims() - 1;
  if (!map.isPermutation() || map.isIdentity() ||
      map.getResult(last) != getAffineDimExpr(last, map.getContext()))
    return AffineMap();
  return map;
}

bool isReshapeOp(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

Value elementwiseCopy(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, value), type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  auto copy = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{value}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [](OpBuilder &nested, Location l, ValueRange args) {
        linalg::YieldOp::create(nested, l, args[0]);
      });
  return copy.getResult(0);
}

std::optional<uint64_t> aliasByteOffset(Operation *op) {
  if (isReshapeOp(op))
    return 0;
  // A static tensor viewed with dynamic sizes (a reshape to a target given
  // at call time): the same bytes.
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    if (auto source = dyn_cast<RankedTensorType>(cast.getSource().getType());
        source && source.hasStaticShape() &&
        isa<RankedTensorType>(cast.getType()))
      return 0;
  auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
  if (!slice || !slice.hasUnitStride() ||
      !slice.getSourceType().hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> shape = slice.getSourceType().getShape();
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  if (ShapedType::isDynamicShape(offsets) || ShapedType::isDynamicShape(sizes))
    return std::nullopt;
  // Unit sizes before the last partial dimension, whole ones after it.
  int64_t partial = -1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (sizes[d] != shape[d])
      partial = d;
  for (int64_t d = 0; d < partial; ++d)
    if (sizes[d] != 1)
      return std::nullopt;
  Type element = slice.getSourceType().getElementType();
  if (!element.isIntOrIndexOrFloat())
    return std::nullopt;
  uint64_t bytes = elementByteSize(element);
  uint64_t linear = 0;
  for (auto [offset, extent] : llvm::zip_equal(offsets, shape))
    linear = linear * extent + offset;
  uint64_t offset = linear * bytes;
  if (offset % kBindingAlignment != 0)
    return std::nullopt;
  return offset;
}

bool isAliasOp(Operation *op) { return aliasByteOffset(op).has_value(); }

uint64_t elementByteSize(Type element) {
  return element.isIndex()
             ? 8
             : llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

bool isClonableProducer(Operation *op) {
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (isAliasOp(op)) {
    Operation *def = op->getOperand(0).getDefiningOp();
    return def && isClonableProducer(def);
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return !isa<ShapedType>(constant.getType());
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    return llvm::all_of(fill->getOperands(), [](Value v) {
      Operation *def = v.getDefiningOp();
      return def && isClonableProducer(def);
    });
  }
  return false;
}

bool isDispatchFunc(func::FuncOp func) { return func->hasAttr(kDispatchAttr); }

bool hasDynamicShapes(func::FuncOp func) {
  auto dynamic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && !shaped.hasStaticShape();
  };
  if (llvm::any_of(func.getFunctionType().getInputs(), dynamic) ||
      llvm::any_of(func.getFunctionType().getResults(), dynamic))
    return true;
  // A condition checked per call (cf.assert: axes given at call time) needs
  // the shape program even where every shape is static.
  WalkResult result = func.walk([&](Operation *op) {
    return isa<cf::AssertOp>(op) || llvm::any_of(op->getResultTypes(), dynamic)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool isStaticConstantPad(tensor::PadOp pad) {
  return pad.getConstantPaddingValue() && pad.getLow().empty() &&
         pad.getHigh().empty() && pad.getResultType().hasStaticShape() &&
         pad.getSourceType().hasStaticShape();
}

bool isConstantPadOfStaticWidths(tensor::PadOp pad) {
  if (!pad.getConstantPaddingValue() || !pad.getLow().empty() ||
      !pad.getHigh().empty())
    return false;
  for (int64_t d = 0; d < pad.getSourceType().getRank(); ++d)
    if (pad.getSourceType().isDynamicDim(d) &&
        (pad.getStaticLow()[d] != 0 || pad.getStaticHigh()[d] != 0))
      return false;
  return true;
}

bool isZeroWindowPad(tensor::PadOp pad, AffineMap inputMap) {
  if (!isConstantPadOfStaticWidths(pad))
    return false;
  Value value = pad.getConstantPaddingValue();
  if (!matchPattern(value, m_AnyZeroFloat()) && !matchPattern(value, m_Zero()))
    return false;
  RankedTensorType source = pad.getSourceType();
  for (auto [i, e] : llvm::enumerate(inputMap.getResults())) {
    bool padded = pad.getStaticLow()[i] != 0 || pad.getStaticHigh()[i] != 0;
    // A loop's own index is not padded; a window's extent is static.
    if ((isa<AffineDimExpr>(e) && padded) ||
        (!isa<AffineDimExpr>(e) && source.isDynamicDim(i)))
      return false;
  }
  return true;
}

namespace {

// Broadcasts read operands through projected permutations; tosa's implicit
// broadcasting also reads unit dimensions at constant index 0.
bool isBroadcastMap(AffineMap map) {
  llvm::SmallBitVector seen(map.getNumDims());
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (seen.test(dim.getPosition()))
        return false;
      seen.set(dim.getPosition());
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  return true;
}

bool isElementwiseOp(linalg::LinalgOp op) {
  return op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(), isBroadcastMap) &&
         op.getNumDpsInits() == 1;
}

// A consumer joins its producer's dispatch when tiling the consumer and
// fusing the producer into it computes each producer element exactly once:
// elementwise, reading the producer through an identity map, or through a
// permutation (a transpose) when `permuted` allows it.
bool canFuseConsumer(Operation *producer, Operation *consumer,
                     bool permuted = false) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(consumer);
  if (!linalgOp || !isElementwiseOp(linalgOp) || consumer->getNumResults() != 1)
    return false;
  if (!isa<linalg::LinalgOp>(producer) || producer->getNumResults() != 1)
    return false;
  for (OpOperand &operand : consumer->getOpOperands()) {
    if (operand.get().getDefiningOp() != producer)
      continue;
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    if (!map.isIdentity() && !(permuted && map.isPermutation()))
      return false;
  }
  return linalgOp.getIndexingMapMatchingResult(consumer->getResult(0))
      .isIdentity();
}

// A transpose of `producer`'s result alone that the GEMM kernels take as
// their last epilogue (permutedEpilogueRead: q, k and v moved apart after
// their projection).
bool isPermutedEpilogue(Operation *producer, Operation *consumer) {
  return permutedEpilogueRead(consumer) &&
         consumer->getOperand(0).getDefiningOp() == producer;
}

// A broadcast or elementwise op that only initializes a root's accumulator
// (a bias broadcast before a convolution) is computed in the root's dispatch.
bool isInitProducerOf(Operation *producer, Operation *root) {
  auto producerOp = dyn_cast<linalg::GenericOp>(producer);
  auto rootOp = dyn_cast<linalg::LinalgOp>(root);
  if (!producerOp || !rootOp || !isElementwiseOp(producerOp) ||
      !producer->hasOneUse() || isa<linalg::FillOp>(root))
    return false;
  OpOperand &use = *producer->getUses().begin();
  return use.getOwner() == root && rootOp.isDpsInit(&use);
}

// A window op: a convolution every reduction loop of which indexes its
// input only through a window (oh * s + kh): a depthwise convolution or a
// pooling, not a convolution that also reduces over input channels.
bool isWindowOp(linalg::LinalgOp op) {
  if (!linalg::isaConvolutionOpInterface(op) || op.getNumDpsInputs() == 0)
    return false;
  AffineMap input = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < iterators.size(); ++d) {
    if (iterators[d] != utils::IteratorType::reduction)
      continue;
    bool windowed = false;
    for (AffineExpr e : input.getResults()) {
      if (!e.isFunctionOfDim(d))
        continue;
      if (isa<AffineDimExpr>(e))
        return false;
      windowed = true;
    }
    if (!windowed)
      return false;
  }
  return true;
}

// A pad by a constant that only a convolution's or pooling's input
// reads, computed in that op's dispatch (fuse-input-pads): by any constant
// for a window op, by zero along window dimensions for a convolution that
// also reduces over channels (an implicit GEMM), over a batch known per
// call too where `dynamicToo`.
bool isInputPadOf(Operation *producer, Operation *root, bool dynamicToo) {
  auto pad = dyn_cast<tensor::PadOp>(producer);
  auto rootOp = dyn_cast<linalg::LinalgOp>(root);
  if (!pad || !rootOp || !pad->hasOneUse() ||
      !linalg::isaConvolutionOpInterface(rootOp) ||
      rootOp.getDpsInputOperand(0)->get() != pad.getResult())
    return false;
  if (isWindowOp(rootOp))
    return dynamicToo ? isConstantPadOfStaticWidths(pad)
                      : isStaticConstantPad(pad);
  if (!dynamicToo && !isStaticConstantPad(pad))
    return false;
  return isZeroWindowPad(
      pad, rootOp.getMatchingIndexingMap(rootOp.getDpsInputOperand(0)));
}

// A static slice that is not a view (strided, or across rows: torch.roll's
// halves along a width) read only by one concatenation, computed in the
// concatenation's dispatch: it reads the slice's source in place, instead of
// a dispatch copying the slice out first.
bool isSliceOfConcat(Operation *producer, Operation *root) {
  auto slice = dyn_cast<tensor::ExtractSliceOp>(producer);
  return slice && isa<tensor::ConcatOp>(root) && !isAliasOp(slice) &&
         slice->hasOneUse() && *slice->getUsers().begin() == root &&
         slice.getSourceType().hasStaticShape() &&
         slice.getResultType().hasStaticShape() &&
         !ShapedType::isDynamicShape(slice.getStaticOffsets()) &&
         !ShapedType::isDynamicShape(slice.getStaticStrides());
}

bool isComputeOp(Operation *op) {
  if (isClonableProducer(op) || isAliasOp(op) ||
      isa<arith::ConstantOp, func::ReturnOp>(op))
    return false;
  return llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

// Most operations (nested ones counted) one dispatch's ops may hold.
constexpr int64_t kMaxDispatchOps = 512;

int64_t countOps(Operation *op) {
  int64_t n = 0;
  op->walk([&](Operation *) { ++n; });
  return n;
}

struct Group {
  llvm::SetVector<Operation *> Ops; // in program order
};

// An op a row program may compute: a reshape, an elementwise op or one with
// a single reduction loop (analyzeRowProgram checks the rest).
bool mayJoinRowProgram(Operation *op) {
  if (isReshapeOp(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && !isa<linalg::FillOp>(op) && op->getNumResults() == 1 &&
         linalgOp.getNumDpsInits() == 1 &&
         linalgOp.getNumReductionLoops() <= 1 &&
         !linalg::isaContractionOpInterface(linalgOp) &&
         !linalg::isaConvolutionOpInterface(linalgOp);
}

// Whether the chains below would take `op` as the elementwise consumer of
// the root it reads (a contraction's rounding to f16), a root not in
// `group`: it stays there.
bool chainsIntoRoot(Operation *op,
                    const llvm::SetVector<Operation *> &group = {}) {
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    Operation *def = operand.getDefiningOp();
    return def && !group.contains(def) && isComputeOp(def) &&
           def->hasOneUse() && canFuseConsumer(def, op);
  });
}

// Whether a row program's op that others read too may stay in it, its
// result stored beside the sink's: an elementwise op over the sink's shape
// (the residual stream a LayerNorm reads, which the next residual add reads
// again), every other reader after the sink (where the dispatch's call
// goes).
bool mayStoreBesideSink(Operation *op, Operation *sinkOp,
                        const llvm::SetVector<Operation *> &members) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && op != sinkOp && isElementwiseOp(linalgOp) &&
         op->getNumResults() == 1 &&
         op->getResult(0).getType() == sinkOp->getResult(0).getType() &&
         llvm::all_of(op->getUsers(), [&](Operation *u) {
           return members.contains(u) || (u->getBlock() == sinkOp->getBlock() &&
                                          sinkOp->isBeforeInBlock(u));
         });
}

// Ops in one row group at most, the sink's producers considered included: a
// normalization or softmax takes a few dozen.
constexpr size_t kMaxRowGroupOps = 64;

// The candidates for the row program whose sink is `sinkOp`: its producers
// (none of them in `taken`) a row program may compute, less whatever
// another op reads (it must be stored) and in turn its producers that it
// alone read. With `intoRoots` false, an op that would join the dispatch
// of the contraction or other root it reads (chainsIntoRoot) stays there.
// With `stored`, an op others read may stay, stored beside the sink
// (mayStoreBesideSink). Empty when none of them reduces.
llvm::SetVector<Operation *>
rowCandidatesOf(Operation *sinkOp, const llvm::DenseSet<Operation *> &taken,
                bool intoRoots, bool stored = false) {
  auto sink = dyn_cast<linalg::LinalgOp>(sinkOp);
  if (!sink || !isElementwiseOp(sink) || sinkOp->getNumResults() != 1)
    return {};
  Block *block = sinkOp->getBlock();
  llvm::SetVector<Operation *> members;
  members.insert(sinkOp);
  bool reduces = false;
  for (size_t i = 0; i < members.size() && members.size() < kMaxRowGroupOps;
       ++i)
    for (Value operand : members[i]->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == block && !taken.contains(def) &&
          mayJoinRowProgram(def)) {
        members.insert(def);
        if (auto l = dyn_cast<linalg::LinalgOp>(def))
          reduces |= l.getNumReductionLoops() == 1;
      }
  if (!reduces)
    return {};
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *op : members) {
      if (op == sinkOp)
        continue;
      // Outside an attention, an op read elsewhere may be stored beside the
      // sink, and one may chain into a root the program computes (an
      // inline reduction: a split-K sum).
      bool keep =
          (llvm::all_of(op->getUsers(),
                        [&](Operation *u) { return members.contains(u); }) ||
           (stored && mayStoreBesideSink(op, sinkOp, members))) &&
          (intoRoots || !chainsIntoRoot(op, members));
      if (isReshapeOp(op))
        keep &= members.contains(op->getOperand(0).getDefiningOp());
      if (!keep) {
        members.remove(op);
        changed = true;
        break;
      }
    }
  }
  return members;
}

// Whether each op of `program` but its sink is read by the program alone
// (or, with `stored`, may be stored beside the sink), and all of them
// together are few enough for one dispatch.
bool isSelfContained(const RowProgram &program, bool stored = false) {
  int64_t ops = 0;
  for (Operation *op : program.Ops) {
    ops += countOps(op);
    if (op != program.Sink &&
        llvm::any_of(op->getUsers(),
                     [&](Operation *u) { return !program.Ops.contains(u); }) &&
        !(stored && mayStoreBesideSink(op, program.Sink, program.Ops)))
      return false;
  }
  return ops <= kMaxDispatchOps;
}

SmallVector<Operation *> inProgramOrder(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> sorted(ops.begin(), ops.end());
  llvm::sort(sorted,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return sorted;
}

// The ops of the row program whose sink is `sinkOp`, in program order: its
// producers (none of them in `taken`) that only the program reads. Empty
// when there is no such program with a reduction.
SmallVector<Operation *> rowGroupOf(Operation *sinkOp,
                                    const llvm::DenseSet<Operation *> &taken) {
  // With ops stored beside the sink where the program can compute them,
  // else without.
  FailureOr<RowProgram> program = failure();
  for (bool stored : {true, false}) {
    llvm::SetVector<Operation *> members =
        rowCandidatesOf(sinkOp, taken, /*intoRoots=*/false, stored);
    if (members.empty())
      return {};
    program = analyzeRowProgram(cast<linalg::LinalgOp>(sinkOp), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !def || !members.contains(def);
    });
    if (succeeded(program) && !program->Reductions.empty() &&
        isSelfContained(*program, stored))
      break;
    program = failure();
  }
  if (failed(program))
    return {};
  SmallVector<Operation *> ops(program->Ops.begin(), program->Ops.end());
  // A rounding of the sink read elsewhere (a LayerNorm's output that a
  // residual add reads in f32 and a matmul in f16, --precision=f16) is
  // stored by the same kernel, a second result.
  for (Operation *user : sinkOp->getUsers())
    if (!taken.contains(user) && user->getBlock() == sinkOp->getBlock() &&
        isConversionOf(user, sinkOp->getResult(0))) {
      ops.push_back(user);
      break;
    }
  return inProgramOrder(ops);
}

// The ops of the attention (Attention.h) whose output contraction is `op`:
// the scores' contraction, the softmax and `op`, in program order; none of
// them in `taken`. Empty when `op` ends no attention.
SmallVector<Operation *>
attentionGroupOf(Operation *op, const llvm::DenseSet<Operation *> &taken) {
  auto output = dyn_cast<linalg::LinalgOp>(op);
  if (!output || !linalg::isaContractionOpInterface(output) ||
      output.getNumDpsInputs() != 2)
    return {};
  Operation *sinkOp = output.getDpsInputOperand(0)->get().getDefiningOp();
  if (!sinkOp || sinkOp->getBlock() != op->getBlock() || taken.contains(sinkOp))
    return {};
  llvm::SetVector<Operation *> members =
      rowCandidatesOf(sinkOp, taken, /*intoRoots=*/true);
  if (members.empty())
    return {};
  FailureOr<Attention> attention = analyzeAttention(output, [&](Value v) {
    Operation *def = v.getDefiningOp();
    return !def || !members.contains(def);
  });
  if (failed(attention) || taken.contains(attention->Scores) ||
      attention->Scores->getBlock() != op->getBlock() ||
      !isSelfContained(attention->Softmax))
    return {};
  SmallVector<Operation *> ops(attention->Softmax.Ops.begin(),
                               attention->Softmax.Ops.end());
  ops.push_back(attention->Scores);
  ops.push_back(op);
  return inProgramOrder(ops);
}

// Dispatches are placed after `insertAfter` (the previous one), so the module
// lists them, and the executable numbers its entry points, in program order.
LogicalResult outlineGroup(func::FuncOp parent, Group &group, unsigned index,
                           Operation *&insertAfter) {
  OpBuilder builder(parent);
  llvm::SetVector<Operation *> &ops = group.Ops;
  Operation *last = ops.back();

  // Values flowing in, and producers recomputed inside.
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clones;
  Block &hostBlock = parent.getBody().front();
  std::function<void(Value)> visit = [&](Value v) {
    // Values defined inside a group op's regions stay where they are.
    Operation *scope = v.getDefiningOp();
    if (auto arg = dyn_cast<BlockArgument>(v))
      scope = arg.getOwner()->getParentOp();
    if (Operation *top =
            scope ? hostBlock.findAncestorOpInBlock(*scope) : nullptr;
        top && ops.contains(top))
      return;
    Operation *def = v.getDefiningOp();
    if (def && isClonableProducer(def)) {
      for (Value operand : def->getOperands())
        visit(operand);
      clones.insert(def);
      return;
    }
    inputs.insert(v);
  };
  for (Operation *op : ops)
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        visit(operand);
    });

  SmallVector<Value> outputs;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !ops.contains(hostBlock.findAncestorOpInBlock(*user));
          }))
        outputs.push_back(result);
  if (outputs.empty())
    return success(); // dead group; canonicalization removes it

  // Tensors, then the extents computed on the host (ShapeScalars.h): the
  // order kiln-bind-dispatch expects of a dispatch's operands.
  SmallVector<Value> ordered(inputs.begin(), inputs.end());
  std::stable_partition(ordered.begin(), ordered.end(), [](Value v) {
    return isa<RankedTensorType>(v.getType());
  });
  inputs = llvm::SetVector<Value>(ordered.begin(), ordered.end());

  SmallVector<Type> inputTypes, outputTypes;
  for (Value v : inputs)
    inputTypes.push_back(v.getType());
  for (Value v : outputs)
    outputTypes.push_back(v.getType());

  std::string name = (parent.getSymName() + "_dispatch_" + Twine(index)).str();
  builder.setInsertionPointAfter(insertAfter);
  auto dispatch =
      func::FuncOp::create(builder, last->getLoc(), name,
                           builder.getFunctionType(inputTypes, outputTypes));
  dispatch.setPrivate();
  insertAfter = dispatch;
  dispatch->setAttr(kDispatchAttr, builder.getUnitAttr());
  Block *body = dispatch.addEntryBlock();
  IRMapping mapping;
  for (auto [value, arg] : llvm::zip(inputs, body->getArguments()))
    mapping.map(value, arg);
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  for (Operation *op : clones)
    bodyBuilder.clone(*op, mapping);
  for (Operation *op : ops)
    bodyBuilder.clone(*op, mapping);
  SmallVector<Value> results;
  for (Value v : outputs)
    results.push_back(mapping.lookup(v));
  func::ReturnOp::create(bodyBuilder, last->getLoc(), results);

  builder.setInsertionPoint(last);
  auto call = func::CallOp::create(builder, last->getLoc(), dispatch,
                                   inputs.getArrayRef());
  for (auto [value, result] : llvm::zip(outputs, call.getResults()))
    value.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return success();
}

} // namespace

LogicalResult formDispatches(func::FuncOp func,
                             const FormDispatchOptions &options) {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("only single-block functions are supported");
  Block &block = func.getBody().front();

  // A read the host makes that CSE merged with the same read inside a
  // kernel's body (a constant index in both: a selection's first halving)
  // is made again inside the body, so the host read keeps only host users.
  for (auto read :
       llvm::make_early_inc_range(block.getOps<tensor::ExtractOp>()))
    for (OpOperand &use : llvm::make_early_inc_range(read->getUses())) {
      Operation *user = use.getOwner();
      if (user->getBlock() == &block)
        continue;
      OpBuilder b(user);
      use.set(b.clone(*read)->getResult(0));
    }

  // The plan of a function with dynamic shapes has no fill or copy steps
  // (their lengths would be computed per call): a result no dispatch
  // computes is computed by one of its own, a fill as a generic (ONNX
  // ConstantOfShape of a shape given at call time), an input, a constant
  // or a view of one copied by a generic (a Reshape to a target given at
  // call time returned as it is).
  if (hasDynamicShapes(func)) {
    // An extent of a pad that it does not pad (a batch known per call) is
    // its source's: read there, so the op that may take the pad into its
    // dispatch (fuse-input-pads) is the pad's only reader.
    func.walk([](tensor::DimOp dim) {
      auto pad = dim.getSource().getDefiningOp<tensor::PadOp>();
      std::optional<int64_t> index = dim.getConstantIndex();
      if (!pad || !index || !pad.getLow().empty() || !pad.getHigh().empty() ||
          pad.getStaticLow()[*index] != 0 || pad.getStaticHigh()[*index] != 0)
        return;
      dim.getSourceMutable().assign(pad.getSource());
    });
    Operation *ret = block.getTerminator();
    for (OpOperand &result : ret->getOpOperands()) {
      Value root = result.get();
      while (Operation *def = root.getDefiningOp()) {
        if (!isAliasOp(def))
          break;
        root = def->getOperand(0);
      }
      Operation *def = root.getDefiningOp();
      if (auto fill = dyn_cast_or_null<linalg::FillOp>(def);
          fill && root == result.get() && isClonableProducer(fill)) {
        IRRewriter rewriter(fill);
        if (failed(linalg::generalizeNamedOp(rewriter, fill)))
          return fill.emitError("cannot compute this fill in a dispatch");
        continue;
      }
      if (def && !isClonableProducer(def) && !isa<arith::ConstantOp>(def))
        continue;
      OpBuilder b(ret);
      result.set(elementwiseCopy(b, ret->getLoc(), result.get()));
    }
  }

  // Producers absorbed into the dispatch of a later root.
  llvm::DenseMap<Operation *, Operation *> absorbedInto;
  llvm::DenseMap<Operation *, SmallVector<Operation *, 1>> absorbedBy;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      if (Operation *def = operand.getDefiningOp();
          def &&
          (isInitProducerOf(def, &op) || isSliceOfConcat(def, &op) ||
           (options.FuseInputPads &&
            isInputPadOf(def, &op, options.FuseDynamicInputPads))) &&
          absorbedInto.try_emplace(def, &op).second)
        absorbedBy[&op].push_back(def);

  llvm::DenseSet<Operation *> grouped;
  // Attention first (its softmax is a row program too), from the last up;
  // each becomes the start of its output contraction's group, which goes on
  // to take that contraction's consumers as any root's does.
  llvm::DenseMap<Operation *, Operation *> attentionOf;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> attentionAt;
  if (options.FuseAttention) {
    llvm::DenseSet<Operation *> taken;
    for (auto [op, root] : absorbedInto)
      taken.insert(op);
    for (Operation &op : llvm::reverse(block)) {
      if (taken.contains(&op))
        continue;
      SmallVector<Operation *> ops = attentionGroupOf(&op, taken);
      for (Operation *member : ops) {
        taken.insert(member);
        attentionOf[member] = &op;
      }
      if (!ops.empty())
        attentionAt[&op] = std::move(ops);
    }
  }
  // Row programs next, from the last sink up, so each takes all of its
  // producers before an earlier sink could; each becomes a group where its
  // first op is.
  llvm::DenseMap<Operation *, Group> rowGroupAt;
  if (options.FuseRows) {
    // A reduction with an elementwise accumulator producer (a split-K sum
    // starting from the bias) may join a row program as an inline
    // reduction, its producer with it; other roots keep theirs.
    llvm::DenseSet<Operation *> taken;
    auto inlineable = [](Operation *root) {
      auto op = dyn_cast<linalg::LinalgOp>(root);
      return op && op.getNumReductionLoops() == 1 &&
             !linalg::isaContractionOpInterface(op) &&
             !linalg::isaConvolutionOpInterface(op);
    };
    for (auto [op, root] : absorbedInto)
      if (!inlineable(root)) {
        taken.insert(op);
        taken.insert(root);
      }
    for (auto [op, root] : attentionOf)
      taken.insert(op);
    for (Operation &op : llvm::reverse(block)) {
      if (taken.contains(&op))
        continue;
      SmallVector<Operation *> ops = rowGroupOf(&op, taken);
      // A root and the producers it absorbs are in one group or neither.
      llvm::SmallPtrSet<Operation *, 8> inGroup(ops.begin(), ops.end());
      if (llvm::any_of(ops, [&](Operation *member) {
            auto it = absorbedInto.find(member);
            return (it != absorbedInto.end() &&
                    !inGroup.contains(it->second)) ||
                   llvm::any_of(absorbedBy.lookup(member), [&](Operation *p) {
                     return !inGroup.contains(p);
                   });
          }))
        ops.clear();
      if (ops.empty())
        continue;
      Group group;
      for (Operation *member : ops) {
        taken.insert(member);
        grouped.insert(member);
        group.Ops.insert(member);
      }
      rowGroupAt[ops.front()] = std::move(group);
    }
  }

  SmallVector<Group> groups;
  for (Operation &op : block) {
    if (auto it = rowGroupAt.find(&op); it != rowGroupAt.end()) {
      groups.push_back(std::move(it->second));
      continue;
    }
    if (grouped.contains(&op) || absorbedInto.contains(&op) ||
        !isComputeOp(&op))
      continue;
    if (auto it = attentionOf.find(&op);
        it != attentionOf.end() && it->second != &op)
      continue;
    llvm::DenseSet<Operation *> members = {&op};
    if (auto it = attentionAt.find(&op); it != attentionAt.end())
      members.insert(it->second.begin(), it->second.end());
    Operation *current = &op;
    int64_t groupOps = 0;
    for (Operation *member : members)
      groupOps += countOps(member);
    // A chain of elementwise ops may end in a transpose (a bias added to
    // q, k and v before their heads are moved apart): the whole dispatch is
    // still elementwise. After a contraction or reduction, whose kernels
    // take epilogues at the output's own indices, it may not.
    auto rootOp = dyn_cast<linalg::LinalgOp>(&op);
    bool elementwiseRoot = rootOp && isElementwiseOp(rootOp);
    // With fuse-permuted-epilogues, a contraction's chain may end in a
    // transpose, which its kernels store through (not an attention's: its
    // kernel stores at the output's own indices).
    bool permutedEnd = options.FusePermutedEpilogues && rootOp &&
                       linalg::isaContractionOpInterface(rootOp) &&
                       !attentionAt.contains(&op);
    while (current->hasOneUse()) {
      Operation *user = *current->getUsers().begin();
      // Each op is computed, and outlined, exactly once: a consumer of two
      // roots (exp(a) * -b) joins the first one's dispatch only, and one
      // that initializes a later root's accumulator stays with that root.
      if (user->getBlock() != &block || grouped.contains(user) ||
          absorbedInto.contains(user))
        break;
      if (!canFuseConsumer(current, user, /*permuted=*/elementwiseRoot)) {
        if (permutedEnd && isPermutedEpilogue(current, user)) {
          // As a generic, the epilogue form the kernels read.
          if (auto transpose = dyn_cast<linalg::TransposeOp>(user)) {
            IRRewriter rewriter(transpose);
            FailureOr<linalg::GenericOp> generic =
                linalg::generalizeNamedOp(rewriter, transpose);
            if (failed(generic))
              break;
            user = *generic;
          }
          members.insert(user);
        }
        break;
      }
      // A dispatch's code is one loop nest whose body holds every member's:
      // bounded, so a long elementwise chain becomes several dispatches
      // instead of one body the back ends' schedulers take quadratic time
      // over.
      groupOps += countOps(user);
      if (groupOps > kMaxDispatchOps)
        break;
      members.insert(user);
      current = user;
    }
    // Accumulator producers of the root and of its fused consumers, then
    // everything in program order (isBeforeInBlock numbers the block once).
    SmallVector<Operation *> candidates(members.begin(), members.end());
    for (Operation *member : members)
      llvm::append_range(candidates, absorbedBy.lookup(member));
    llvm::sort(candidates, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    Group group;
    for (Operation *candidate : candidates) {
      // Outlining erases each group's ops: one op in two groups would be
      // erased twice.
      if (!grouped.insert(candidate).second)
        return candidate->emitError()
               << "internal error: '" << candidate->getName()
               << "' was placed in two dispatches";
      group.Ops.insert(candidate);
    }
    groups.push_back(std::move(group));
  }

  for (Operation &op : block) {
    if (grouped.contains(&op) || isComputeOp(&op) || isAliasOp(&op) ||
        isClonableProducer(&op) || isShapeScalarOp(&op) ||
        isa<arith::ConstantOp, func::ReturnOp, linalg::FillOp>(op))
      continue;
    return op.emitError() << "'" << op.getName()
                          << "' computes on scalars outside any tensor op; "
                             "Kiln cannot place it in a dispatch";
  }

  unsigned index = 0;
  Operation *insertAfter = func;
  for (Group &group : groups)
    if (failed(outlineGroup(func, group, index++, insertAfter)))
      return failure();

  // Producers left without users in the host function.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if ((isClonableProducer(&op) || isa<arith::ConstantOp>(op)) &&
        op.use_empty())
      op.erase();
  return success();
}

namespace {
struct FormDispatchesPass : impl::FormDispatchesBase<FormDispatchesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!isDispatchFunc(func))
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(formDispatches(func,
                                {fuseInputPads, fuseDynamicInputPads, fuseRows,
                                 fuseAttention, fusePermutedEpilogues})))
        return signalPassFailure();
  }
};
} // namespace

} // namespace kiln
