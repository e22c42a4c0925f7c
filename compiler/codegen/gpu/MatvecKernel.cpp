//===- MatvecKernel.cpp - Contractions of a few rows, at B's read rate ----===//
//
// A contraction of at most kMaxRows rows of A (a classifier over one token,
// a projection of the token a model keeps, a decoder's step) uses each
// element of B for at most kMaxRows multiply-adds: its time is B's bytes
// over the memory's rate. The GEMM kernels' row tiles are mostly empty
// there (the SIMT kernel's 16 x 16 threads leave 15 rows of 16 idle, and
// each thread then walks K alone: a ViT's 1 x 384 . 384 x 1000 classifier
// took 17 us under ncu for 1.5 MB of weights). Here every thread streams
// a share of B, all of a share's loads issued before its multiply-adds so
// they are in flight together, and the shares' sums meet at the end:
//
//   B N-innermost (B[k, n]: weights stored K x N): a thread takes V
//     consecutive columns (16 bytes) and every S-th row k, S the threads
//     along k. ColumnLanes lanes of a subgroup take consecutive columns,
//     so its loads of a row are one run of ColumnLanes x 16 bytes; fewer
//     columns a workgroup (down to a 32-byte sector a row) while the grid
//     would leave processors idle. The lanes of a subgroup with the same
//     columns add their sums by xor shuffles, the subgroups theirs through
//     shared memory.
//   B K-innermost (B[n, k]: the transposed embedding of a tied LM head): a
//     subgroup takes one column, each lane V consecutive k of every
//     (lanes x V)-th run, so its loads are whole runs of B's row; the
//     lanes add their sums by xor shuffles.
//
// Each share starts from zero and the accumulator's initial value (a
// fill, a copied bias) is added to the sum of the shares, in a fixed order:
// the payload must be `acc + a * b` accumulating in f32
// (multiplyAccumulateType), so the sum may be regrouped. The dispatch's
// epilogues are applied to each output before its store.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/IndexArithmetic.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {
namespace {

// The most rows of A a matrix-vector kernel takes; a thread keeps
// kMaxRows x V sums.
constexpr int64_t kMaxRows = 4;
constexpr int64_t kThreads = 256;
// Steps of a thread's share whose loads are issued together.
constexpr int64_t kUnroll = 8;

struct MatvecConfig {
  bool KInnermost;
  int64_t Vector;      // consecutive elements of B a thread loads
  int64_t ColumnLanes; // N-innermost: lanes along the columns
  int64_t Columns;     // outputs of each row a workgroup computes
  int64_t KThreads;    // threads of a workgroup along K
  int64_t Subgroup;
  int64_t subgroups() const { return kThreads / Subgroup; }
  // The k a thread's step covers, and the steps of a share.
  int64_t kStride() const { return KInnermost ? Subgroup * Vector : KThreads; }
};

MatvecConfig chooseConfig(Contraction &c, const GpuTarget &target,
                          int64_t elementBytes) {
  MatvecConfig config;
  config.Subgroup = target.SubgroupSize;
  config.Vector = std::max<int64_t>(1, 16 / elementBytes);
  config.KInnermost = isInnermostIn(c, c.Op.getDpsInputOperand(1), c.KDims) &&
                      !isInnermostIn(c, c.Op.getDpsInputOperand(1), c.NDims);
  if (config.KInnermost) {
    config.ColumnLanes = 1;
    config.Columns = kThreads / config.Subgroup;
    config.KThreads = config.Subgroup;
    return config;
  }
  // Whole 32-byte sectors a row at least.
  int64_t minLanes = std::max<int64_t>(1, 32 / (config.Vector * elementBytes));
  config.ColumnLanes = config.Subgroup;
  while (config.ColumnLanes > minLanes &&
         c.Batch * llvm::divideCeilSigned(c.N,
                                          config.ColumnLanes * config.Vector) <
             target.ProcessorCount)
    config.ColumnLanes /= 2;
  config.Columns = config.ColumnLanes * config.Vector;
  config.KThreads = kThreads / config.ColumnLanes;
  return config;
}

class MatvecBuilder : IndexArithmetic {
public:
  MatvecBuilder(func::FuncOp func, Contraction c, MatvecConfig config,
                SymbolTable &symbols)
      : IndexArithmetic(func.getContext(), c.Op.getLoc()), Func(func), C(c),
        Config(config), Symbols(symbols) {}

  void build();

private:
  // Element (m, k) of A (`isA`, `at` = m) or (k, n) of B (`at` = n), zero
  // where `inBounds` fails.
  Value load(bool isA, Value batch, Value at, Value k, Value inBounds);
  // `value` summed over the lanes whose ids differ in bits `from` .. the
  // subgroup's width.
  Value sumLanes(Value value, int64_t from);
  // Adds the init and the epilogues to `sum`, the contraction's output
  // (m, n), and stores it.
  void finish(Value batch, Value m, Value n, Value sum);

  func::FuncOp Func;
  Contraction C;
  MatvecConfig Config;
  SymbolTable &Symbols;
  Type AccType;
};

Value MatvecBuilder::load(bool isA, Value batch, Value at, Value k,
                          Value inBounds) {
  Value source = isA ? C.Lhs : C.Rhs;
  Type element = cast<MemRefType>(source.getType()).getElementType();
  return zeroUnless(B, Loc, inBounds, element, [&] {
    SmallVector<Value> loops =
        isA ? contractionLoops(B, Loc, C, batch, at, nullptr, k)
            : contractionLoops(B, Loc, C, batch, nullptr, at, k);
    AffineMap map =
        C.Op.getMatchingIndexingMap(C.Op.getDpsInputOperand(isA ? 0 : 1));
    return memref::LoadOp::create(B, Loc, source,
                                  applyToLoops(B, Loc, map, loops));
  });
}

Value MatvecBuilder::sumLanes(Value value, int64_t from) {
  for (int64_t mask = from; mask < Config.Subgroup; mask *= 2)
    value = arith::AddFOp::create(
        B, Loc, value, shuffleXor(B, Loc, value, mask, Config.Subgroup));
  return value;
}

void MatvecBuilder::finish(Value batch, Value m, Value n, Value sum) {
  SmallVector<Value> outIndices =
      applyToLoops(B, Loc, C.Op.getIndexingMapsArray().back(),
                   contractionLoops(B, Loc, C, batch, m, n, nullptr));
  Value init = uniformInit(C);
  if (!init)
    init = initialValue(B, Loc, C, outIndices);
  Value result = arith::AddFOp::create(B, Loc, init, sum);
  memref::StoreOp::create(B, Loc, applyEpilogue(B, Loc, C, result, outIndices),
                          C.Out, storeIndices(C, outIndices));
}

void MatvecBuilder::build() {
  B.setInsertionPoint(C.Store);
  AccType = cast<ShapedType>(C.Op.getDpsInitOperand(0)->get().getType())
                .getElementType();
  const int64_t rows = C.M, vector = Config.Vector;
  setLoweringConfig(
      Func, "matvec",
      {B.getNamedAttr("workgroup_tile",
                      B.getDenseI64ArrayAttr({rows, Config.Columns})),
       B.getNamedAttr("thread_tile",
                      B.getDenseI64ArrayAttr(
                          Config.KInnermost ? ArrayRef<int64_t>{1, vector}
                                            : ArrayRef<int64_t>{vector, 1})),
       B.getNamedAttr("k_threads", B.getI64IntegerAttr(Config.KThreads))});

  scf::ForallOp forall = createWorkgroupLoop(B, Loc, C, rows, Config.Columns);
  B.setInsertionPointToStart(forall.getBody());
  Value batch = forall.getInductionVar(0);
  Value col0 = forall.getInductionVar(2);
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Value lane = rem(tid, Config.Subgroup);
  Value zero =
      arith::ConstantOp::create(B, Loc, AccType, B.getZeroAttr(AccType));

  // This thread's first k and its columns: N-innermost, V columns from
  // `myCol` and rows kSlice, kSlice + S, ...; K-innermost, column `myCol`
  // and runs of V k from kSlice, kSlice + lanes x V, ...
  Value myCol, kSlice;
  int64_t columnsHere;
  if (Config.KInnermost) {
    myCol = add(col0, div(tid, Config.Subgroup));
    kSlice = mul(lane, vector);
    columnsHere = 1;
  } else {
    myCol = add(col0, mul(rem(tid, Config.ColumnLanes), vector));
    kSlice = div(tid, Config.ColumnLanes);
    columnsHere = vector;
  }
  int64_t stride = Config.kStride();
  int64_t steps = llvm::divideCeilSigned(C.K, stride);
  int64_t unroll = std::min(steps, kUnroll);
  int64_t chunks = llvm::divideCeilSigned(steps, unroll);
  // Whether every k a thread visits is inside K.
  bool wholeK = C.K % stride == 0 && steps % unroll == 0 &&
                (!Config.KInnermost || C.K % vector == 0);
  SmallVector<Value> columnInBounds;
  for (int64_t v = 0; v < columnsHere; ++v)
    columnInBounds.push_back(
        C.N % Config.Columns == 0 ? Value() : lessThan(add(myCol, v), C.N));

  SmallVector<Value> init(rows * columnsHere, zero);
  auto loop = scf::ForOp::create(B, Loc, idx(0), idx(chunks), idx(1), init);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(loop.getBody());
    Value chunk0 = mul(loop.getInductionVar(), unroll * stride);
    // Every load of the chunk first, then the multiply-adds.
    SmallVector<SmallVector<Value>> as(unroll), bs(unroll);
    for (int64_t u = 0; u < unroll; ++u) {
      Value kBase = add(add(chunk0, kSlice), u * stride);
      for (int64_t e = 0; e < (Config.KInnermost ? vector : 1); ++e) {
        Value k = add(kBase, e);
        Value kIn = wholeK ? Value() : lessThan(k, C.K);
        for (int64_t m = 0; m < rows; ++m)
          as[u].push_back(load(/*isA=*/true, batch, idx(m), k, kIn));
        for (int64_t v = 0; v < columnsHere; ++v)
          bs[u].push_back(load(/*isA=*/false, batch, add(myCol, v), k,
                               both(kIn, columnInBounds[v])));
      }
    }
    SmallVector<Value> sums(loop.getRegionIterArgs());
    for (int64_t u = 0; u < unroll; ++u)
      for (int64_t e = 0; e < (Config.KInnermost ? vector : 1); ++e)
        for (int64_t m = 0; m < rows; ++m)
          for (int64_t v = 0; v < columnsHere; ++v) {
            Value &sum = sums[m * columnsHere + v];
            sum = applyRootPayload(
                B, C, {as[u][e * rows + m], bs[u][e * columnsHere + v], sum});
          }
    scf::YieldOp::create(B, Loc, sums);
  }
  SmallVector<Value> sums(loop.getResults());

  if (Config.KInnermost) {
    // The subgroup's lanes hold parts of one column's sums.
    for (Value &sum : sums)
      sum = sumLanes(sum, 1);
    Value first =
        arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::eq, lane, idx(0));
    auto branch = scf::IfOp::create(B, Loc, both(first, columnInBounds[0]));
    B.setInsertionPoint(branch.thenYield());
    for (int64_t m = 0; m < rows; ++m)
      finish(batch, idx(m), myCol, sums[m]);
    return;
  }

  // N-innermost: the lanes of a subgroup with the same columns first, then
  // the subgroups' sums through shared memory, added in subgroup order by
  // one thread an output.
  for (Value &sum : sums)
    sum = sumLanes(sum, Config.ColumnLanes);
  int64_t outputs = rows * Config.Columns;
  Value partials = createSharedBuffer(B, Loc, Func, Symbols, "_matvec",
                                      {Config.subgroups(), outputs}, AccType);
  Value subgroup = div(tid, Config.Subgroup);
  Value writer = lessThan(lane, Config.ColumnLanes);
  {
    auto branch = scf::IfOp::create(B, Loc, writer);
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPoint(branch.thenYield());
    Value column = mul(lane, vector);
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t v = 0; v < vector; ++v)
        memref::StoreOp::create(
            B, Loc, sums[m * vector + v], partials,
            ValueRange{subgroup, add(column, m * Config.Columns + v)});
  }
  gpu::BarrierOp::create(B, Loc);
  for (int64_t o0 = 0; o0 < outputs; o0 += kThreads) {
    Value o = add(tid, o0);
    Value m = div(o, Config.Columns);
    Value n = add(col0, rem(o, Config.Columns));
    Value inBounds = outputs - o0 >= kThreads ? Value() : lessThan(o, outputs);
    if (C.N % Config.Columns != 0)
      inBounds = both(inBounds, lessThan(n, C.N));
    OpBuilder::InsertionGuard guard(B);
    if (inBounds) {
      auto branch = scf::IfOp::create(B, Loc, inBounds);
      B.setInsertionPoint(branch.thenYield());
    }
    Value sum = memref::LoadOp::create(B, Loc, partials, ValueRange{idx(0), o});
    for (int64_t s = 1; s < Config.subgroups(); ++s)
      sum = arith::AddFOp::create(
          B, Loc, sum,
          memref::LoadOp::create(B, Loc, partials, ValueRange{idx(s), o}));
    finish(batch, m, n, sum);
  }
}

} // namespace

LogicalResult buildMatvecKernel(func::FuncOp func, SymbolTable &symbols,
                                const GpuTarget &target) {
  FailureOr<Contraction> c = matchContraction(func);
  if (failed(c) || c->M > kMaxRows || c->ImplicitGemm ||
      !c->LhsPadLow.empty() || !multiplyAccumulateType(c->Op))
    return failure();
  // Subgroups of at least the lanes a reduction's shuffles assume.
  if (target.SubgroupSize < 2 || kThreads % target.SubgroupSize != 0)
    return failure();
  int64_t elementBytes =
      cast<MemRefType>(c->Rhs.getType()).getElementTypeBitWidth() / 8;
  MatvecBuilder(func, *c, chooseConfig(*c, target, elementBytes), symbols)
      .build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr,
                OpBuilder(func).getDenseI64ArrayAttr({kThreads, 1, 1}));
  return success();
}

} // namespace kiln
