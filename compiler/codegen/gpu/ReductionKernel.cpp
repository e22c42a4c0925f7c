//===- ReductionKernel.cpp - Reductions split across a workgroup ----------===//
//
// A dispatch whose result is one reduction (a linalg op with reduction loops
// whose payload is `combine(f(inputs), out)` for a combining op with a
// neutral element: add, mul, min, max, and, or, xor), optionally followed by
// elementwise consumers, is written out as a kernel in which G threads share
// each output:
//
//   each thread  partial = neutral; for r = s, s + G, ... < reduced:
//                  partial = payload(inputs at r, partial)
//   each warp    butterfly shuffles (shfl.sync.bfly) combine the partials of
//                the lanes that share an output
//   workgroup    one partial per warp and output goes to shared memory; after
//                a barrier the output's first thread combines them, then
//                combines that with the accumulator's initial value, applies
//                the consumers and stores the result
//
// The layout follows the first input's innermost dimension:
//   rows     the reduction is innermost in memory: G consecutive threads
//            share an output (a whole workgroup of 256 for long rows, a warp
//            or less for short ones), so a warp reads consecutive elements.
//   columns  the reduction runs over outer dimensions: consecutive threads
//            take consecutive outputs (up to 32 per workgroup) and G groups of
//            them split the reduced dimension, so reads stay coalesced across
//            outputs.
//
// Extents known per call (issue 19): the reduced loops' are read per call
// and linearized as the static ones are; one result dimension may be
// dynamic where the reduced extent is too (a rank among a count known per
// call), its workgroups then counted per call (the grid program).
//
// Combining partials in another order changes floating-point sums within
// rounding; min, max, integer and logical combinations are exact. Other
// reductions (several results, such as argmax; combiners without a neutral
// element; contractions and convolutions, but for a contraction over a
// dynamic extent; reductions of at most 4 elements per output; dynamic
// results over a static reduction) keep kiln-gpu-tile's thread per output.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/ElementEvaluator.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/IndexArithmetic.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/RowPrograms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUREDUCTIONKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Each thread reduces at least this many elements before combining.
constexpr int64_t kMinElementsPerThread = 4;
// Elements per output from which a columns reduction trades outputs per
// workgroup for workgroups (chooseConfig); shorter ones (split-K sums of a
// few parts, a 7 x 7 average) keep 32 outputs a workgroup.
constexpr int64_t kLongColumnReduction = 1024;
// A reduced extent known only per call (issue 19: attention over a
// decoder's cache) is split as one this long would be.
constexpr int64_t kAssumedDynamicExtent = 1024;

// What a matched dispatch computes.
struct Reduction {
  linalg::LinalgOp Op;
  CombiningPayload Payload;
  Value Stored;     // the tensor stored: the reduction or its consumers
  Value Out;        // the output binding
  Operation *Store; // the store of Stored to Out
  SmallVector<int64_t> OutShape;
  SmallVector<unsigned> OutputLoops;  // the loop of each result dimension
  SmallVector<unsigned> ReducedLoops; // in loop order
  SmallVector<int64_t> ReducedExtents;
  int64_t Outputs = 1, Reduced = 1;
  bool Rows = true;
  // A reduced loop's extent is dynamic (Reduced is then
  // kAssumedDynamicExtent, for the configuration only): the kernel reads
  // the extents per call.
  bool DynamicReduced = false;
  // One result dimension's extent is dynamic too (OutShape has it as
  // kDynamic and Outputs is kAssumedDynamicExtent, for the configuration
  // only): the grid is computed per call.
  bool DynamicOutputs = false;
};

FailureOr<Reduction> matchReductionDispatch(func::FuncOp func) {
  bufferization::MaterializeInDestinationOp store = singleBindingStore(func);
  SmallVector<linalg::LinalgOp> reductions;
  func.walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() != 0)
      reductions.push_back(op);
  });
  if (!store || reductions.size() != 1)
    return failure();
  linalg::LinalgOp op = reductions.front();
  // A contraction is the GEMM kernels' unless its reduced extent is
  // dynamic (a decoder step's attention weights times the cached values):
  // they need static extents, and this kernel splits that loop.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  Reduction r;
  r.DynamicReduced = llvm::any_of(llvm::zip(ranges, iterators), [](auto loop) {
    return ShapedType::isDynamic(std::get<0>(loop)) &&
           std::get<1>(loop) == utils::IteratorType::reduction;
  });
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 ||
      (linalg::isaContractionOpInterface(op) && !r.DynamicReduced) ||
      linalg::isaConvolutionOpInterface(op) || !hasScalarPayload(op) ||
      llvm::is_contained(ranges, 0))
    return failure();

  r.Op = op;
  r.Store = store;
  r.Out = store.getDest();
  r.Stored = store.getSource();
  // Every parallel loop is a result dimension, once.
  SmallVector<bool> isOutput(ranges.size(), false);
  for (AffineExpr e :
       op.getMatchingIndexingMap(op.getDpsInitOperand(0)).getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || iterators[dim.getPosition()] != utils::IteratorType::parallel ||
        isOutput[dim.getPosition()])
      return failure();
    isOutput[dim.getPosition()] = true;
    r.OutputLoops.push_back(dim.getPosition());
    r.OutShape.push_back(ranges[dim.getPosition()]);
    if (ShapedType::isDynamic(ranges[dim.getPosition()])) {
      // One such dimension (its grid is an affine function of the
      // extent), and only over a reduction whose extent is known per call
      // too: a rank among a count known per call (a detector's candidates)
      // is thousands of elements per output, where a thread each was
      // 2 ms. Other reductions over outputs known per call stay a thread
      // per output, as tuned for decoders.
      if (r.DynamicOutputs || !r.DynamicReduced)
        return failure();
      r.DynamicOutputs = true;
      continue;
    }
    r.Outputs *= ranges[dim.getPosition()];
  }
  if (r.DynamicOutputs)
    r.Outputs = kAssumedDynamicExtent;
  for (auto [i, iterator] : llvm::enumerate(iterators)) {
    if (iterator == utils::IteratorType::parallel) {
      if (!isOutput[i])
        return failure();
      continue;
    }
    r.ReducedLoops.push_back(i);
    r.ReducedExtents.push_back(ranges[i]);
    if (!ShapedType::isDynamic(ranges[i]))
      r.Reduced *= ranges[i];
  }
  // The reduced loops' extents multiply per call (a detector's largest
  // coordinate over ? x 4 boxes, a count over 1 x 1 x ? flags).
  if (r.DynamicReduced)
    r.Reduced = kAssumedDynamicExtent;

  // The payload is combine(f(inputs), out).
  std::optional<CombiningPayload> payload = matchCombiningPayload(op);
  if (!payload)
    return failure();
  // Partials travel through 32-bit shuffles (64-bit ones in two halves).
  Type type = payload->Combiner->getResult(0).getType();
  if (!type.isIntOrFloat() ||
      (type.getIntOrFloatBitWidth() > 32 && type.getIntOrFloatBitWidth() != 64))
    return failure();
  r.Payload = *payload;

  // Inputs and the initial value come from bindings, element by element;
  // the consumers read the reduction at their own indices.
  ElementEvaluator sources;
  bool layoutKnown = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (!isa<ShapedType>(operand->get().getType()) ||
        !op.payloadUsesValueFromOperand(operand))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true) ||
        !sources.canEvaluate(operand->get()))
      return failure();
    if (layoutKnown || map.getNumResults() == 0)
      continue;
    layoutKnown = true;
    auto innermost = dyn_cast<AffineDimExpr>(map.getResults().back());
    r.Rows = !innermost || iterators[innermost.getPosition()] !=
                               utils::IteratorType::parallel;
  }
  if (!sources.canEvaluate(op.getDpsInitOperand(0)->get()) ||
      !ElementEvaluator(op->getResult(0)).canEvaluate(r.Stored))
    return failure();
  return r;
}

// How the threads of a workgroup share the outputs.
struct Config {
  int64_t Threads;  // G, per output
  int64_t Outputs;  // per workgroup
  int64_t Subgroup; // threads of the target's subgroup (the shuffles' width)
};

std::optional<Config> chooseConfig(const Reduction &r,
                                   const GpuTarget &target) {
  const int64_t subgroup = target.SubgroupSize;
  // Enough threads to fill the chip: with this many outputs, a subgroup
  // (rows) or a thread (columns) per output is parallel enough, and
  // splitting further only adds combining.
  const int64_t enoughThreads = target.residentThreads();
  auto powerOfTwoAtLeast = [](int64_t n) {
    return static_cast<int64_t>(llvm::PowerOf2Ceil(n));
  };
  int64_t split =
      powerOfTwoAtLeast(llvm::divideCeil(r.Reduced, kMinElementsPerThread));
  int64_t enough = static_cast<int64_t>(
      llvm::bit_floor(std::max<uint64_t>(1, enoughThreads / r.Outputs)));
  Config c;
  c.Subgroup = subgroup;
  if (r.Rows) {
    c.Threads =
        std::min({split, kGpuWorkgroupThreads, std::max(subgroup, enough)});
    c.Outputs = std::min(kGpuWorkgroupThreads / c.Threads,
                         powerOfTwoAtLeast(r.Outputs));
  } else {
    c.Outputs = std::min(subgroup, powerOfTwoAtLeast(r.Outputs));
    // A long reduction over few outputs (a squeeze-and-excitation's
    // average over a large image: 32 x 32 outputs of 12544 elements ran on
    // 32 workgroups at a fifteenth of the memory's bandwidth) takes fewer
    // outputs a workgroup, down to 8 (32-byte reads of f32, whole memory
    // sectors), so that its workgroups cover the processors and each output
    // gets more of the threads.
    while (r.Reduced >= kLongColumnReduction && c.Outputs > 8 &&
           static_cast<int64_t>(llvm::divideCeil(r.Outputs, c.Outputs)) <
               target.ProcessorCount)
      c.Outputs /= 2;
    c.Threads = std::min({split, kGpuWorkgroupThreads / c.Outputs, enough});
  }
  if (c.Threads < 2)
    return std::nullopt;
  // Whole subgroups: the shuffles name all their lanes.
  if (c.Threads * c.Outputs < subgroup)
    c.Threads = subgroup / c.Outputs;
  return c;
}

class KernelBuilder : IndexArithmetic {
public:
  KernelBuilder(func::FuncOp func, Reduction r, Config c, SymbolTable &symbols)
      : IndexArithmetic(func.getContext(), r.Op.getLoc()), Func(func), R(r),
        C(c), Symbols(symbols) {}

  void build();

private:
  Value compare(arith::CmpIPredicate predicate, Value a, int64_t b) {
    return arith::CmpIOp::create(B, Loc, predicate, a, idx(b));
  }
  // The indices of linear index `linear` in row-major `shape`.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> shape);
  // The combining op applied to a partial `accumulator` and `value`.
  Value combine(Value accumulator, Value value);
  // One step of the reduction: the payload at reduced index `linear`.
  Value update(Value linear, Value partial, ArrayRef<Value> loops);
  // With R.DynamicReduced: the reduced loops' extents as this call has
  // them (ReducedBasis) and their product (ReducedValue).
  void readReducedExtents();
  // The partial of the elements s, s + G, ... this thread reduces.
  Value reduceOwnElements(Value s, ArrayRef<Value> loops);

  func::FuncOp Func;
  Reduction R;
  Config C;
  SymbolTable &Symbols;
  // With R.DynamicReduced: the reduced loops' extents and their product.
  SmallVector<OpFoldResult> ReducedBasis;
  Value ReducedValue;
};

void KernelBuilder::readReducedExtents() {
  // Read from the loops' extents in the inputs, before the workgroup loop.
  SmallVector<Range> ranges = R.Op.createLoopRanges(B, Loc);
  for (unsigned loop : R.ReducedLoops) {
    ReducedBasis.push_back(ranges[loop].size);
    Value extent = getValueOrCreateConstantIndexOp(B, Loc, ranges[loop].size);
    ReducedValue = ReducedValue
                       ? arith::MulIOp::create(B, Loc, ReducedValue, extent)
                       : extent;
  }
}

SmallVector<Value> KernelBuilder::delinearize(Value linear,
                                              ArrayRef<int64_t> shape) {
  if (shape.size() <= 1)
    return SmallVector<Value>(shape.size(), linear);
  auto op = affine::AffineDelinearizeIndexOp::create(B, Loc, linear, shape,
                                                     /*hasOuterBound=*/true);
  return SmallVector<Value>(op.getResults());
}

Value KernelBuilder::combine(Value accumulator, Value value) {
  return applyCombiner(B, R.Payload, accumulator, value);
}

Value KernelBuilder::update(Value linear, Value partial,
                            ArrayRef<Value> loops) {
  SmallVector<Value> all(loops);
  SmallVector<Value> reduced;
  if (ReducedBasis.size() > 1)
    reduced =
        affine::AffineDelinearizeIndexOp::create(B, Loc, linear, ReducedBasis,
                                                 /*hasOuterBound=*/true)
            .getResults();
  else if (ReducedValue)
    reduced = {linear};
  else
    reduced = delinearize(linear, R.ReducedExtents);
  for (auto [loop, index] : llvm::zip_equal(R.ReducedLoops, reduced))
    all[loop] = index;
  linalg::LinalgOp op = R.Op;
  ElementEvaluator sources;
  SmallVector<Value> args;
  for (OpOperand *operand : op.getOpOperandsMatchingBBargs()) {
    Value value = operand->get();
    if (op.isDpsInit(operand))
      args.push_back(partial);
    else if (!isa<ShapedType>(value.getType()))
      args.push_back(value);
    else if (!op.payloadUsesValueFromOperand(operand))
      args.push_back(nullptr);
    else
      args.push_back(sources.evaluate(
          B, Loc, value,
          indicesOf(B, Loc, op.getMatchingIndexingMap(operand), all)));
  }
  return clonePayload(B, op, args, all);
}

Value KernelBuilder::reduceOwnElements(Value s, ArrayRef<Value> loops) {
  Value partial = arith::ConstantOp::create(B, Loc, R.Payload.Neutral);
  if (ReducedValue) {
    // A dynamic extent: elements s, s + G, ... below it, four a step so
    // their loads issue together, then the rest one by one.
    Value four = mul(div(ReducedValue, 4 * C.Threads), 4 * C.Threads);
    auto unrolled = scf::ForOp::create(B, Loc, s, four, idx(4 * C.Threads),
                                       ValueRange{partial});
    {
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPointToStart(unrolled.getBody());
      Value at = unrolled.getInductionVar();
      Value p = unrolled.getRegionIterArgs().front();
      for (int64_t u = 0; u < 4; ++u)
        p = update(u ? add(at, idx(u * C.Threads)) : at, p, loops);
      scf::YieldOp::create(B, Loc, p);
    }
    auto rest =
        scf::ForOp::create(B, Loc, add(four, s), ReducedValue, idx(C.Threads),
                           ValueRange{unrolled.getResult(0)});
    {
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPointToStart(rest.getBody());
      scf::YieldOp::create(B, Loc,
                           update(rest.getInductionVar(),
                                  rest.getRegionIterArgs().front(), loops));
    }
    return rest.getResult(0);
  }
  // A loop of a constant trip count (LLVM unrolls it and issues the loads
  // together), then the one element some threads have left.
  int64_t trips = R.Reduced / C.Threads;
  if (trips > 0) {
    auto loop = scf::ForOp::create(B, Loc, idx(0), idx(trips), idx(1),
                                   ValueRange{partial});
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(loop.getBody());
    Value linear = add(s, mul(loop.getInductionVar(), C.Threads));
    scf::YieldOp::create(
        B, Loc, update(linear, loop.getRegionIterArgs().front(), loops));
    partial = loop.getResult(0);
  }
  if (R.Reduced % C.Threads == 0)
    return partial;
  Value linear = add(s, idx(trips * C.Threads));
  return scf::IfOp::create(
             B, Loc, compare(arith::CmpIPredicate::ult, linear, R.Reduced),
             [&](OpBuilder &, Location) {
               scf::YieldOp::create(B, Loc, update(linear, partial, loops));
             },
             [&](OpBuilder &, Location) {
               scf::YieldOp::create(B, Loc, partial);
             })
      .getResult(0);
}

void KernelBuilder::build() {
  // Before the store: everything the payloads capture is defined by then.
  B.setInsertionPoint(R.Store);
  setLoweringConfig(
      Func, "reduction",
      {B.getNamedAttr("layout", B.getStringAttr(R.Rows ? "rows" : "columns")),
       B.getNamedAttr("threads_per_output", B.getI64IntegerAttr(C.Threads)),
       B.getNamedAttr("outputs_per_workgroup",
                      B.getI64IntegerAttr(C.Outputs))});
  // Lanes of one warp that share an output, and the partials per output
  // left once they have combined theirs (one per warp, or per group of
  // lanes).
  int64_t lanes = R.Rows ? std::min(C.Threads, C.Subgroup)
                         : std::max<int64_t>(1, C.Subgroup / C.Outputs);
  int64_t partialsPerOutput = C.Threads / lanes;
  Type type = R.Payload.Combiner->getResult(0).getType();
  Value partials;
  if (partialsPerOutput > 1)
    partials = createSharedBuffer(B, Loc, Func, Symbols, "_partials",
                                  {partialsPerOutput, C.Outputs},
                                  sharedStorageType(type));
  if (R.DynamicReduced)
    readReducedExtents();

  MLIRContext *ctx = B.getContext();
  // With a result dimension known per call: the outputs' extents as this
  // call has them, how many there are, and the workgroups they take.
  SmallVector<OpFoldResult> outBasis;
  OpFoldResult outputCount = B.getIndexAttr(R.Outputs);
  OpFoldResult workgroups =
      B.getIndexAttr((R.Outputs + C.Outputs - 1) / C.Outputs);
  if (R.DynamicOutputs) {
    // Read off the output binding (the init may be an input's copy, which
    // would then stay).
    int64_t staticOutputs = 1;
    Value extent;
    for (auto [i, size] : llvm::enumerate(R.OutShape)) {
      if (!ShapedType::isDynamic(size)) {
        outBasis.push_back(B.getIndexAttr(size));
        staticOutputs *= size;
        continue;
      }
      extent = memref::DimOp::create(B, Loc, R.Out, i);
      outBasis.push_back(extent);
    }
    AffineExpr e = B.getAffineSymbolExpr(0);
    outputCount = affine::makeComposedFoldedAffineApply(
        B, Loc, e * staticOutputs, {extent});
    workgroups = affine::makeComposedFoldedAffineApply(
        B, Loc, (e * staticOutputs).ceilDiv(C.Outputs), {extent});
  }
  auto forall = scf::ForallOp::create(
      B, Loc, getAsIndexOpFoldResult(ctx, {0}), {workgroups},
      getAsIndexOpFoldResult(ctx, {1}), ValueRange{},
      B.getArrayAttr(
          {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::LinearDim0)}));
  B.setInsertionPointToStart(forall.getBody());
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  // s: this thread's share of its output; local: the output in the
  // workgroup.
  Value s, local;
  if (R.Rows) {
    s = rem(tid, C.Threads);
    local = div(tid, C.Threads);
  } else {
    local = rem(tid, C.Outputs);
    s = div(tid, C.Outputs);
  }
  Value output = add(mul(forall.getInductionVar(0), C.Outputs), local);
  // Threads past the last output compute a copy of it (so every lane takes
  // part in the shuffles and barrier) and store nothing.
  Value inRange, readOutput = output;
  if (R.DynamicOutputs || R.Outputs % C.Outputs != 0) {
    // No workgroup runs when there are no outputs.
    Value count = getValueOrCreateConstantIndexOp(B, Loc, outputCount);
    inRange =
        arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, output, count);
    Value lastOutput = R.DynamicOutputs
                           ? Value(arith::SubIOp::create(B, Loc, count, idx(1)))
                           : idx(R.Outputs - 1);
    readOutput = arith::MinUIOp::create(B, Loc, output, lastOutput);
  }
  SmallVector<Value> outIndices =
      R.DynamicOutputs && outBasis.size() > 1
          ? SmallVector<Value>(affine::AffineDelinearizeIndexOp::create(
                                   B, Loc, readOutput, outBasis,
                                   /*hasOuterBound=*/true)
                                   .getResults())
          : delinearize(readOutput, R.OutShape);
  SmallVector<Value> loops(R.Op.getNumLoops());
  for (auto [loop, index] : llvm::zip_equal(R.OutputLoops, outIndices))
    loops[loop] = index;

  Value partial = reduceOwnElements(s, loops);
  // Lanes sharing an output differ in the low bits of the lane id (rows) or
  // in the bits above the output's (columns).
  int64_t stride = R.Rows ? 1 : C.Outputs;
  for (int64_t m = lanes / 2; m >= 1; m /= 2)
    partial =
        combine(partial, shuffleXor(B, Loc, partial, m * stride, C.Subgroup));
  if (partials) {
    Value warpLeader = compare(arith::CmpIPredicate::eq, rem(s, lanes), 0);
    Value slot = div(s, lanes);
    auto leader = scf::IfOp::create(B, Loc, warpLeader);
    {
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPoint(leader.thenYield());
      Value stored = partial;
      if (sharedStorageType(type) != type)
        stored =
            arith::ExtUIOp::create(B, Loc, sharedStorageType(type), partial);
      memref::StoreOp::create(B, Loc, stored, partials,
                              ValueRange{slot, local});
    }
    gpu::BarrierOp::create(B, Loc);
  }

  Value last = compare(arith::CmpIPredicate::eq, s, 0);
  if (inRange)
    last = arith::AndIOp::create(B, Loc, last, inRange);
  auto finish = scf::IfOp::create(B, Loc, last);
  B.setInsertionPoint(finish.thenYield());
  Value total = partial;
  for (int64_t k = 1; k < partialsPerOutput; ++k) {
    Value other =
        memref::LoadOp::create(B, Loc, partials, ValueRange{idx(k), local});
    if (sharedStorageType(type) != type)
      other = arith::TruncIOp::create(B, Loc, type, other);
    total = combine(total, other);
  }
  Value init = ElementEvaluator().evaluate(
      B, Loc, R.Op.getDpsInitOperand(0)->get(), outIndices);
  Value reduced = combine(init, total);
  Value result = ElementEvaluator(R.Op->getResult(0))
                     .evaluate(B, Loc, R.Stored, outIndices, reduced);
  memref::StoreOp::create(B, Loc, result, R.Out, outIndices);
}

} // namespace

LogicalResult buildReductionKernel(func::FuncOp func, SymbolTable &symbols,
                                   const GpuTarget &target) {
  FailureOr<Reduction> r = matchReductionDispatch(func);
  if (failed(r))
    return failure();
  std::optional<Config> config = chooseConfig(*r, target);
  if (!config)
    return failure();
  KernelBuilder(func, *r, *config, symbols).build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr,
                OpBuilder(func).getDenseI64ArrayAttr(
                    {config->Threads * config->Outputs, 1, 1}));
  return success();
}

namespace {

struct GpuReductionKernelsPass
    : impl::GpuReductionKernelsBase<GpuReductionKernelsPass> {
  void runOnOperation() override {
    FailureOr<GpuTarget> target = getGpuTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    buildKernelsOfDispatches(
        getOperation(),
        [&](func::FuncOp func, SymbolTable &symbols) {
          return buildReductionKernel(func, symbols, *target);
        },
        /*dynamicToo=*/true);
  }
};

} // namespace
} // namespace kiln
