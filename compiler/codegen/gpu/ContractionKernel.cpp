//===- ContractionKernel.cpp - Shared-memory tiled contraction kernels ----===//
//
// A dispatch whose result is one contraction (matmul, batch matmul, or a
// generic with one M, N and K loop), optionally followed by one elementwise
// epilogue, is written out directly as a kernel instead of going through
// per-output tiling:
//
//   for each BM x BN output tile (a workgroup; batch is a workgroup loop too)
//     accumulators: TM x TN outputs per thread, in registers
//     for k0 in 0 .. K step BK
//       the workgroup copies A[BM x BK] and B[BK x BN] to shared memory
//       barrier
//       for k in 0 .. BK: each thread loads TM values of A and TN of B from
//         shared memory (vector loads) and updates its TM x TN outputs
//       barrier
//     each thread applies the epilogue to its outputs and stores them
//
// Each element of A and B is read from global memory once per workgroup
// instead of once per output, and the inner loop does TM x TN updates for
// TM + TN shared-memory reads. The contraction's own payload is cloned for
// each update and the epilogue's for each output, so element types, casts
// and accumulation follow the program exactly. Edges are handled by
// predicated loads and stores, emitted only for dimensions the tiles do not
// divide.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_GPUCONTRACTIONKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kThreadRows = 16;
constexpr int64_t kThreadCols = 16;

int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p *= 2;
  return p;
}

// Builds the kernel of one matched contraction in place of its ops.
class KernelBuilder {
public:
  KernelBuilder(func::FuncOp func, Contraction c, SymbolTable &symbols)
      : Func(func), C(c), Symbols(symbols), B(func.getContext()),
        Loc(c.Op.getLoc()) {
    // Outputs per thread: up to 8 x 8, fewer for small outputs so that
    // threads are not left idle on a 4-row matmul.
    TM = std::clamp<int64_t>(powerOfTwoAtLeast(c.M) / kThreadRows, 1, 8);
    TN = std::clamp<int64_t>(powerOfTwoAtLeast(c.N) / kThreadCols, 1, 8);
    BM = TM * kThreadRows;
    BN = TN * kThreadCols;
    BK = std::min<int64_t>(8, c.K);
  }

  void build();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(B, Loc, v); }
  Value add(Value a, Value b) { return arith::AddIOp::create(B, Loc, a, b); }
  Value mul(Value a, int64_t b) {
    return arith::MulIOp::create(B, Loc, a, idx(b));
  }
  Value lessThan(Value a, int64_t bound) {
    return arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, a,
                                 idx(bound));
  }
  Value both(Value a, Value b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return arith::AndIOp::create(B, Loc, a, b);
  }
  // `memory[indices]`, or zero where `inBounds` (if set) is false.
  Value guardedLoad(Value memory, ValueRange indices, Value inBounds);
  // Copies the BK x `cols` tile of `operand` (input `which` of the
  // contraction) starting at k0 / col0 into shared memory `tile`.
  void copyTile(unsigned which, Value tile, int64_t cols, int64_t colDim,
                int64_t colSize, Value batch, Value k0, Value col0, Value tid);

  func::FuncOp Func;
  Contraction C;
  SymbolTable &Symbols;
  OpBuilder B;
  Location Loc;
  int64_t TM, TN, BM, BN, BK;
};

Value KernelBuilder::guardedLoad(Value memory, ValueRange indices,
                                 Value inBounds) {
  Type element = cast<MemRefType>(memory.getType()).getElementType();
  if (!inBounds)
    return memref::LoadOp::create(B, Loc, memory, indices);
  return scf::IfOp::create(
             B, Loc, inBounds,
             [&](OpBuilder &b, Location loc) {
               scf::YieldOp::create(
                   b, loc,
                   ValueRange{memref::LoadOp::create(b, loc, memory, indices)});
             },
             [&](OpBuilder &b, Location loc) {
               scf::YieldOp::create(
                   b, loc,
                   ValueRange{arith::ConstantOp::create(
                       b, loc, element, b.getZeroAttr(element))});
             })
      .getResult(0);
}

void KernelBuilder::copyTile(unsigned which, Value tile, int64_t cols,
                             int64_t colDim, int64_t colSize, Value batch,
                             Value k0, Value col0, Value tid) {
  Value source = which == 0 ? C.Lhs : C.Rhs;
  AffineMap map = C.Op.getMatchingIndexingMap(C.Op.getDpsInputOperand(which));
  // Consecutive threads take consecutive elements of the source's
  // innermost dimension, so global reads are coalesced.
  bool kInnermost =
      cast<AffineDimExpr>(map.getResults().back()).getPosition() ==
      static_cast<unsigned>(C.KDim);
  int64_t elements = BK * cols;
  int64_t threads = kThreadRows * kThreadCols;
  auto loop = scf::ForOp::create(B, Loc, tid, idx(elements), idx(threads));
  OpBuilder::InsertionGuard guard(B);
  B.setInsertionPointToStart(loop.getBody());
  Value e = loop.getInductionVar();
  Value kk, cc;
  if (kInnermost) {
    kk = arith::RemUIOp::create(B, Loc, e, idx(BK));
    cc = arith::DivUIOp::create(B, Loc, e, idx(BK));
  } else {
    cc = arith::RemUIOp::create(B, Loc, e, idx(cols));
    kk = arith::DivUIOp::create(B, Loc, e, idx(cols));
  }
  Value k = add(k0, kk), col = add(col0, cc);
  Value inBounds;
  if (C.K % BK != 0)
    inBounds = lessThan(k, C.K);
  if (colSize % cols != 0)
    inBounds = both(inBounds, lessThan(col, colSize));
  SmallVector<Value> loops(C.Op.getNumLoops(), idx(0));
  if (C.BatchDim >= 0)
    loops[C.BatchDim] = batch;
  loops[C.KDim] = k;
  loops[colDim] = col;
  Value value = guardedLoad(source, applyToLoops(map, loops), inBounds);
  memref::StoreOp::create(B, Loc, value, tile, ValueRange{kk, cc});
}

void KernelBuilder::build() {
  // Before the store: everything the payloads capture is defined by then.
  B.setInsertionPoint(C.Store);
  Func->setAttr("kiln.gpu_contraction_tile",
                B.getDenseI64ArrayAttr({BM, BN, BK, TM, TN}));
  Type aType = cast<MemRefType>(C.Lhs.getType()).getElementType();
  Type bType = cast<MemRefType>(C.Rhs.getType()).getElementType();
  // A's tile is stored transposed (k-major) so a thread's TM values are
  // contiguous; its rows are padded by 16 bytes, which keeps them 16-byte
  // aligned and spreads a warp's k-innermost stores over the banks.
  int64_t pad = 128 / aType.getIntOrFloatBitWidth();
  Value tileA = createSharedBuffer(B, Loc, Func, Symbols, "_tile_a",
                                   {BK, BM + pad}, aType);
  Value tileB =
      createSharedBuffer(B, Loc, Func, Symbols, "_tile_b", {BK, BN}, bType);

  // The workgroup loop: batch, row tiles, column tiles.
  scf::ForallOp forall = createWorkgroupLoop(B, Loc, C, BM, BN);
  B.setInsertionPointToStart(forall.getBody());
  Value batch = forall.getInductionVar(0);
  Value row0 = forall.getInductionVar(1);
  Value col0 = forall.getInductionVar(2);
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Value threadRow = arith::DivUIOp::create(B, Loc, tid, idx(kThreadCols));
  Value threadCol = arith::RemUIOp::create(B, Loc, tid, idx(kThreadCols));
  Value myRow0 = add(row0, mul(threadRow, TM));
  Value myCol0 = add(col0, mul(threadCol, TN));

  // Loop values of output (i, j) of this thread (k left at 0).
  auto outputLoops = [&](int64_t i, int64_t j) {
    SmallVector<Value> loops(C.Op.getNumLoops(), idx(0));
    if (C.BatchDim >= 0)
      loops[C.BatchDim] = batch;
    loops[C.MDim] = add(myRow0, idx(i));
    loops[C.NDim] = add(myCol0, idx(j));
    return loops;
  };
  auto outputInBounds = [&](ArrayRef<Value> loops) {
    Value inBounds;
    if (C.M % BM != 0)
      inBounds = lessThan(loops[C.MDim], C.M);
    if (C.N % BN != 0)
      inBounds = both(inBounds, lessThan(loops[C.NDim], C.N));
    return inBounds;
  };

  AffineMap outMap = C.Op.getIndexingMapsArray().back();
  SmallVector<Value> acc;
  for (int64_t i = 0; i < TM; ++i)
    for (int64_t j = 0; j < TN; ++j) {
      if (C.InitValue) {
        acc.push_back(C.InitValue);
        continue;
      }
      SmallVector<Value> loops = outputLoops(i, j);
      acc.push_back(guardedLoad(C.InitBinding, applyToLoops(outMap, loops),
                                outputInBounds(loops)));
    }

  auto kLoop = scf::ForOp::create(B, Loc, idx(0), idx(C.K), idx(BK), acc);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    copyTile(0, tileA, BM, C.MDim, C.M, batch, k0, row0, tid);
    copyTile(1, tileB, BN, C.NDim, C.N, batch, k0, col0, tid);
    gpu::BarrierOp::create(B, Loc);
    SmallVector<Value> values(kLoop.getRegionIterArgs());
    Block &payload = C.Op->getRegion(0).front();
    auto yield = cast<linalg::YieldOp>(payload.getTerminator());
    // Scalar loads of consecutive elements from a 16-byte aligned buffer:
    // LLVM's NVPTX backend merges them into vector loads.
    auto loadRow = [&](Value tile, int64_t k, Value at, int64_t n) {
      SmallVector<Value> values;
      for (int64_t i = 0; i < n; ++i)
        values.push_back(memref::LoadOp::create(
            B, Loc, tile, ValueRange{idx(k), add(at, idx(i))}));
      return values;
    };
    Value aOffset = mul(threadRow, TM), bOffset = mul(threadCol, TN);
    for (int64_t k = 0; k < BK; ++k) {
      SmallVector<Value> as = loadRow(tileA, k, aOffset, TM);
      SmallVector<Value> bs = loadRow(tileB, k, bOffset, TN);
      for (int64_t i = 0; i < TM; ++i)
        for (int64_t j = 0; j < TN; ++j) {
          IRMapping map;
          map.map(payload.getArgument(0), as[i]);
          map.map(payload.getArgument(1), bs[j]);
          map.map(payload.getArgument(2), values[i * TN + j]);
          for (Operation &op : payload.without_terminator()) {
            Operation *clone = B.clone(op, map);
            // Multiply and add may fuse into one FMA (one rounding instead
            // of two), as cuBLAS and every other GPU matmul do.
            if (auto fastMath =
                    dyn_cast<arith::ArithFastMathInterface>(clone)) {
              arith::FastMathFlagsAttr flags = fastMath.getFastMathFlagsAttr();
              clone->setAttr(
                  fastMath.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      B.getContext(),
                      (flags ? flags.getValue() : arith::FastMathFlags::none) |
                          arith::FastMathFlags::contract));
            }
          }
          values[i * TN + j] = map.lookupOrDefault(yield.getOperand(0));
        }
    }
    // The next iteration overwrites the tiles.
    gpu::BarrierOp::create(B, Loc);
    scf::YieldOp::create(B, Loc, values);
  }

  // Epilogue and stores, predicated at the edges.
  for (int64_t i = 0; i < TM; ++i)
    for (int64_t j = 0; j < TN; ++j) {
      SmallVector<Value> loops = outputLoops(i, j);
      SmallVector<Value> outIndices = applyToLoops(outMap, loops);
      Value inBounds = outputInBounds(loops);
      Value result = kLoop.getResult(i * TN + j);
      auto store = [&]() {
        memref::StoreOp::create(B, Loc,
                                applyEpilogue(B, Loc, C, result, outIndices),
                                C.Out, outIndices);
      };
      if (!inBounds) {
        store();
        continue;
      }
      auto guarded = scf::IfOp::create(B, Loc, inBounds);
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPoint(guarded.thenYield());
      store();
    }
}

} // namespace

LogicalResult buildContractionKernel(func::FuncOp func, SymbolTable &symbols) {
  FailureOr<Contraction> c = matchContraction(func);
  if (failed(c))
    return failure();
  KernelBuilder builder(func, *c, symbols);
  builder.build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr, OpBuilder(func).getDenseI64ArrayAttr(
                                        {kThreadRows * kThreadCols, 1, 1}));
  return success();
}

namespace {

struct GpuContractionKernelsPass
    : impl::GpuContractionKernelsBase<GpuContractionKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> dispatches;
    for (auto func : module.getOps<func::FuncOp>())
      if (isDispatchFunc(func))
        dispatches.push_back(func);
    for (func::FuncOp func : dispatches)
      if (TensorCoreArch < 80 ||
          failed(buildMmaContractionKernel(func, symbols)))
        (void)buildContractionKernel(func, symbols);
  }
};

} // namespace
} // namespace kiln
