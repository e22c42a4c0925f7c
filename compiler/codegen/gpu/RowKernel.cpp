//===- RowKernel.cpp - A row program as one kernel ------------------------===//
//
// A dispatch whose stored result is the sink of a row program
// (RowPrograms.h: a LayerNorm, an RMSNorm, a softmax) becomes a kernel in
// which T consecutive threads (a whole number of subgroups) run one row:
//
//   for each reduction, in order
//     each thread    partial = neutral; for r = s, s + T, ... < extent:
//                      partial = payload(inputs at the row and r, partial)
//     each subgroup  butterfly shuffles combine its lanes' partials
//     workgroup      one partial per subgroup to shared memory (a buffer of
//                    its own per reduction, so no barrier guards reuse);
//                    after a barrier every thread of the row combines them
//                    and the accumulator's initial value: the row's value,
//                    which everything after reads from a register
//   the row        each thread computes and stores the sink's elements
//                  s, s + T, ... of its row
//
// Tensors between the reductions and the sink are not stored (but for
// those others read too, stored where the sink is: the residual stream a
// LayerNorm reads): each element a thread needs is computed again from the
// bindings, so the row is
// read from memory once per reduction and once for the sink (from L1 after
// the first time for rows that fit it). Combining partials in another order
// changes floating-point sums within rounding, as the reduction kernels'
// does.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/ElementEvaluator.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/KernelDispatch.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/codegen/gpu/RowEvaluator.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/RowPrograms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUROWKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct RowDispatch {
  RowProgram Program;
  Value Out;        // the output binding
  Operation *Store; // the store of the sink's result to Out
  /// A second result: an elementwise conversion of the sink (a rounding to
  /// f16 stored beside it), and its output binding; else null.
  linalg::LinalgOp Side;
  Value SideOut;
  /// Tensors of the sink's shape the program computes and others read too
  /// (the residual stream a LayerNorm reads), with their output bindings:
  /// each element stored where the sink's is.
  SmallVector<std::pair<Value, Value>> Stored;
};

FailureOr<RowDispatch> matchRowDispatch(func::FuncOp func) {
  std::optional<ResultStores> stores = resultStores(func);
  if (!stores)
    return failure();
  bufferization::MaterializeInDestinationOp store = stores->Main,
                                            sideStore = stores->Side;
  auto sink = store.getSource().getDefiningOp<linalg::LinalgOp>();
  if (!sink)
    return failure();
  FailureOr<RowProgram> program = analyzeRowProgram(
      sink, [](Value v) { return static_cast<bool>(bindingOf(v)); });
  if (failed(program) || program->Reductions.empty())
    return failure();
  // Partials travel through 32-bit shuffles (64-bit ones in two halves).
  for (const RowReduction &r : program->Reductions) {
    Type type = r.Payload.Combiner->getResult(0).getType();
    if (!type.isIntOrFloat() || (type.getIntOrFloatBitWidth() > 32 &&
                                 type.getIntOrFloatBitWidth() != 64))
      return failure();
  }
  RowDispatch d{
      std::move(*program), store.getDest(), store, nullptr, nullptr, {}};
  if (sideStore) {
    d.Side = sideStore.getSource().getDefiningOp<linalg::LinalgOp>();
    d.SideOut = sideStore.getDest();
  }
  // Every other stored tensor: an elementwise op of the program over the
  // sink's loops, its element computed at the sink's indices.
  for (bufferization::MaterializeInDestinationOp other : stores->Others) {
    Value value = other.getSource();
    auto op = value.getDefiningOp<linalg::LinalgOp>();
    if (!op || !d.Program.Ops.contains(op) || op.getNumReductionLoops() != 0 ||
        d.Program.InlineReductions.contains(op) ||
        value.getType() != sink->getResult(0).getType())
      return failure();
    d.Stored.push_back({value, other.getDest()});
  }
  return d;
}

// How the threads of a workgroup share the rows.
struct RowConfig {
  int64_t Threads;  // T, per row: whole subgroups
  int64_t Rows;     // per workgroup
  int64_t Subgroup; // the target's subgroup (the shuffles' width)
};

// Elements of the longest reduction or row per thread, about: a row's time
// is the latency of its loads and barriers, which more warps hide. GPT f32
// (rows of 256, 9 LayerNorms), one H100, alternated: 8 elements a thread
// (32 threads) 153.4 us, 4 (64) 150.0, 2 (128) 147.0; BERT 126.7, 122.4,
// 120.0.
constexpr int64_t kRowElementsPerThread = 2;

RowConfig chooseConfig(const RowProgram &p, const GpuTarget &target) {
  int64_t longest = p.rowLength();
  for (const RowReduction &r : p.Reductions)
    longest = std::max(longest, r.Extent);
  RowConfig c;
  c.Subgroup = target.SubgroupSize;
  c.Threads = std::clamp<int64_t>(
      static_cast<int64_t>(
          llvm::PowerOf2Ceil(llvm::divideCeil(longest, kRowElementsPerThread))),
      c.Subgroup, std::max(c.Subgroup, kGpuWorkgroupThreads));
  c.Rows =
      std::max<int64_t>(1, std::min<int64_t>(kGpuWorkgroupThreads / c.Threads,
                                             llvm::PowerOf2Ceil(p.rows())));
  // Few rows spread over the processors rather than packed into fewer
  // workgroups: a row's time is the latency of its loads and barriers,
  // which more processors overlap.
  while (c.Rows > 1 && (p.rows() + c.Rows - 1) / c.Rows < target.ProcessorCount)
    c.Rows /= 2;
  return c;
}

class RowKernelBuilder {
public:
  RowKernelBuilder(func::FuncOp func, RowDispatch &d, RowConfig c,
                   SymbolTable &symbols)
      : Func(func), D(d), P(d.Program), C(c), Symbols(symbols),
        B(func.getContext()), Loc(P.Sink.getLoc()), E(B, Loc, P) {}

  void build();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(B, Loc, v); }
  Value compare(arith::CmpIPredicate predicate, Value a, int64_t b) {
    return arith::CmpIOp::create(B, Loc, predicate, a, idx(b));
  }
  Value combine(const RowReduction &r, Value accumulator, Value value);
  // Reduction k's value for this thread's row.
  Value reduce(unsigned k, Value s, Value local);

  func::FuncOp Func;
  RowDispatch &D;
  RowProgram &P;
  RowConfig C;
  SymbolTable &Symbols;
  OpBuilder B;
  Location Loc;
  // The dims' values, and each reduction's row value once computed.
  RowEvaluator E;
  // Each reduction's shared buffer of one partial per subgroup and row, when
  // a row has several subgroups.
  SmallVector<Value> Partials;
};

Value RowKernelBuilder::combine(const RowReduction &r, Value accumulator,
                                Value value) {
  return applyCombiner(B, r.Payload, accumulator, value);
}

Value RowKernelBuilder::reduce(unsigned k, Value s, Value local) {
  const RowReduction &r = P.Reductions[k];
  SmallVector<AffineExpr> loops = reductionLoops(r);
  Type type = r.Payload.Combiner->getResult(0).getType();
  // This thread's elements: a loop of a constant trip count (LLVM unrolls it
  // and issues the loads together), then the one some threads have left.
  auto step = [&](Value reduced, Value partial) {
    E.Dims[r.Dim] = reduced;
    Value next = E.payload(r.Op, loops, partial);
    E.Dims[r.Dim] = nullptr;
    return next;
  };
  Value partial = arith::ConstantOp::create(B, Loc, r.Payload.Neutral);
  int64_t trips = r.Extent / C.Threads;
  if (trips > 0) {
    auto loop = scf::ForOp::create(B, Loc, idx(0), idx(trips), idx(1),
                                   ValueRange{partial});
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(loop.getBody());
    Value reduced = arith::AddIOp::create(
        B, Loc, s,
        arith::MulIOp::create(B, Loc, loop.getInductionVar(), idx(C.Threads)));
    scf::YieldOp::create(B, Loc,
                         step(reduced, loop.getRegionIterArgs().front()));
    partial = loop.getResult(0);
  }
  if (r.Extent % C.Threads != 0) {
    Value reduced = arith::AddIOp::create(B, Loc, s, idx(trips * C.Threads));
    Value before = partial;
    partial = scf::IfOp::create(
                  B, Loc, compare(arith::CmpIPredicate::ult, reduced, r.Extent),
                  [&](OpBuilder &, Location) {
                    scf::YieldOp::create(B, Loc, step(reduced, before));
                  },
                  [&](OpBuilder &, Location) {
                    scf::YieldOp::create(B, Loc, before);
                  })
                  .getResult(0);
  }
  // The row's threads are whole subgroups: every lane's partial is its
  // row's.
  for (int64_t m = C.Subgroup / 2; m >= 1; m /= 2)
    partial = combine(r, partial, shuffleXor(B, Loc, partial, m, C.Subgroup));
  int64_t subgroups = C.Threads / C.Subgroup;
  Value total = partial;
  if (subgroups > 1) {
    Type stored = sharedStorageType(type);
    Value partials = Partials[k];
    Value slot = arith::DivUIOp::create(B, Loc, s, idx(C.Subgroup));
    Value first =
        compare(arith::CmpIPredicate::eq,
                arith::RemUIOp::create(B, Loc, s, idx(C.Subgroup)), 0);
    auto leader = scf::IfOp::create(B, Loc, first);
    {
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPoint(leader.thenYield());
      Value value = stored == type
                        ? partial
                        : arith::ExtUIOp::create(B, Loc, stored, partial);
      memref::StoreOp::create(B, Loc, value, partials, ValueRange{slot, local});
    }
    gpu::BarrierOp::create(B, Loc);
    total = nullptr;
    for (int64_t w = 0; w < subgroups; ++w) {
      Value other =
          memref::LoadOp::create(B, Loc, partials, ValueRange{idx(w), local});
      if (stored != type)
        other = arith::TruncIOp::create(B, Loc, type, other);
      total = total ? combine(r, total, other) : other;
    }
  }
  linalg::LinalgOp op = r.Op;
  Value init = E.element(op.getDpsInitOperand(0)->get(), r.ResultIndices);
  return combine(r, init, total);
}

void RowKernelBuilder::build() {
  // Before the store: everything the payloads capture is defined by then.
  B.setInsertionPoint(D.Store);
  setLoweringConfig(
      Func, "row",
      {B.getNamedAttr("threads_per_row", B.getI64IntegerAttr(C.Threads)),
       B.getNamedAttr("rows_per_workgroup", B.getI64IntegerAttr(C.Rows)),
       B.getNamedAttr("reductions", B.getI64IntegerAttr(P.Reductions.size()))});
  int64_t subgroups = C.Threads / C.Subgroup;
  for (auto [k, r] : llvm::enumerate(P.Reductions))
    Partials.push_back(
        subgroups == 1
            ? Value()
            : createSharedBuffer(
                  B, Loc, Func, Symbols, ("_row_partials_" + Twine(k)).str(),
                  {subgroups, C.Rows},
                  sharedStorageType(
                      r.Payload.Combiner->getResult(0).getType())));
  int64_t rows = P.rows();
  scf::ForallOp forall =
      createBlockLoop(B, Loc, {(rows + C.Rows - 1) / C.Rows}, {1});
  B.setInsertionPointToStart(forall.getBody());
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Value s = arith::RemUIOp::create(B, Loc, tid, idx(C.Threads));
  Value local = arith::DivUIOp::create(B, Loc, tid, idx(C.Threads));
  Value row = arith::AddIOp::create(
      B, Loc,
      arith::MulIOp::create(B, Loc, forall.getInductionVar(0), idx(C.Rows)),
      local);
  // Threads past the last row compute a copy of it (every lane takes part
  // in the shuffles and barriers) and store nothing.
  Value inRange, readRow = row;
  if (rows % C.Rows != 0) {
    inRange = compare(arith::CmpIPredicate::ult, row, rows);
    readRow = arith::MinUIOp::create(B, Loc, row, idx(rows - 1));
  }
  unsigned n = P.Loops.size();
  SmallVector<Value> position =
      delinearize(B, Loc, readRow, ArrayRef<int64_t>(P.Loops).drop_back());
  for (unsigned d = 0; d + 1 < n; ++d)
    E.Dims[d] = position[d];

  for (auto [k, r] : llvm::enumerate(P.Reductions))
    E.Given[r.Op->getResult(0)] = reduce(k, s, local);

  // The row's elements s, s + T, ...
  int64_t length = P.rowLength();
  auto loop = scf::ForOp::create(
      B, Loc, idx(0), idx((length + C.Threads - 1) / C.Threads), idx(1));
  B.setInsertionPointToStart(loop.getBody());
  Value c = arith::AddIOp::create(
      B, Loc, s,
      arith::MulIOp::create(B, Loc, loop.getInductionVar(), idx(C.Threads)));
  Value store = inRange;
  if (length % C.Threads != 0) {
    Value inRow = compare(arith::CmpIPredicate::ult, c, length);
    store = store ? arith::AndIOp::create(B, Loc, store, inRow) : inRow;
  }
  if (store) {
    auto guarded = scf::IfOp::create(B, Loc, store);
    B.setInsertionPoint(guarded.thenYield());
  }
  E.Dims[n - 1] = c;
  SmallVector<AffineExpr> loops;
  for (unsigned d = 0; d < n; ++d)
    loops.push_back(B.getAffineDimExpr(d));
  Value value = E.payload(P.Sink, loops, nullptr);
  ArrayRef<Value> indices = ArrayRef<Value>(E.Dims).take_front(n);
  for (auto [tensor, out] : D.Stored)
    memref::StoreOp::create(B, Loc, E.element(tensor, loops), out, indices);
  memref::StoreOp::create(B, Loc, value, D.Out, indices);
  if (D.Side)
    memref::StoreOp::create(B, Loc,
                            clonePayload(B, D.Side, {value, nullptr}, {}),
                            D.SideOut, indices);
}

} // namespace

LogicalResult buildRowKernel(func::FuncOp func, SymbolTable &symbols,
                             const GpuTarget &target) {
  FailureOr<RowDispatch> d = matchRowDispatch(func);
  if (failed(d))
    return failure();
  RowConfig config = chooseConfig(d->Program, target);
  RowKernelBuilder(func, *d, config, symbols).build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr, OpBuilder(func).getDenseI64ArrayAttr(
                                        {config.Threads * config.Rows, 1, 1}));
  return success();
}

namespace {

struct GpuRowKernelsPass : impl::GpuRowKernelsBase<GpuRowKernelsPass> {
  void runOnOperation() override {
    FailureOr<GpuTarget> target = getGpuTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    buildKernelsOfDispatches(getOperation(),
                             [&](func::FuncOp func, SymbolTable &symbols) {
                               return buildRowKernel(func, symbols, *target);
                             });
  }
};

} // namespace
} // namespace kiln
