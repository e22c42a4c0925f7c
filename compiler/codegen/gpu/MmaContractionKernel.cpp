//===- MmaContractionKernel.cpp - Tensor-core contraction kernels ---------===//
//
// f16 x f16 -> f32 contractions whose tiles divide the problem run on the
// tensor cores (nvgpu.mma.sync m16n8k16, sm_80 and later):
//
//   workgroup: a 128 x 128 output tile, 8 warps as 2 x 4, each warp 64 x 32
//     (4 x 4 mma tiles: 16 accumulator fragments of 2x2 f32 per thread)
//   K in steps of 32, two shared-memory stages: while one stage is read the
//     next is filled with cp.async (16 bytes per copy), so global loads
//     overlap the math
//   fragments come from shared memory through ldmatrix (A: x4, B: x2
//     transposed, as B is stored K x N); rows are padded by 16 bytes so the
//     8 row addresses of an ldmatrix fall in different banks
//   the epilogue runs per accumulator element and stores it
//
// Anything else (other types, a payload that is not a multiply-add, edges,
// an operand not laid out K- or N-innermost) is left to the SIMT kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kBM = 128, kBN = 128, kBK = 32;
constexpr int64_t kWarpsM = 2, kWarpsN = 4;
constexpr int64_t kWM = kBM / kWarpsM, kWN = kBN / kWarpsN; // 64 x 32
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
constexpr int64_t kTilesM = kWM / kMmaM, kTilesN = kWN / kMmaN; // 4 x 4
constexpr int64_t kThreads = kWarpsM * kWarpsN * 32;
constexpr int64_t kStages = 2;
// 16 bytes of f16 padding per shared row.
constexpr int64_t kPad = 8;
// f16 elements per cp.async.
constexpr int64_t kCopyElements = 8;

// True if `v` is `arith.extf` of block argument `arg` from f16 to f32.
bool isExtendedArg(Value v, BlockArgument arg) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  return ext && ext.getIn() == arg;
}

// The payload is acc + f32(a) * f32(b), in any operand order.
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != 3 || !body.getArgument(0).getType().isF16() ||
      !body.getArgument(1).getType().isF16() ||
      !body.getArgument(2).getType().isF32())
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == body.getArgument(2)   ? add.getRhs()
                  : add.getRhs() == body.getArgument(2) ? add.getLhs()
                                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  BlockArgument a = body.getArgument(0), b = body.getArgument(1);
  return (isExtendedArg(mul.getLhs(), a) && isExtendedArg(mul.getRhs(), b)) ||
         (isExtendedArg(mul.getLhs(), b) && isExtendedArg(mul.getRhs(), a));
}

// The loop position of `map`'s innermost result.
int64_t innermostLoop(AffineMap map) {
  return cast<AffineDimExpr>(map.getResults().back()).getPosition();
}

bool isApplicable(const Contraction &c) {
  if (!isMultiplyAccumulate(c.Op) || c.M % kBM != 0 || c.N % kBN != 0 ||
      c.K % kBK != 0)
    return false;
  if (c.InitValue && !c.InitValue.getType().isF32())
    return false;
  linalg::LinalgOp op = c.Op;
  return innermostLoop(op.getMatchingIndexingMap(op.getDpsInputOperand(0))) ==
             c.KDim &&
         innermostLoop(op.getMatchingIndexingMap(op.getDpsInputOperand(1))) ==
             c.NDim;
}

class MmaKernelBuilder {
public:
  MmaKernelBuilder(func::FuncOp func, Contraction c, SymbolTable &symbols)
      : Func(func), C(c), Symbols(symbols), B(func.getContext()),
        Loc(c.Op.getLoc()) {}

  void build();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(B, Loc, v); }
  Value add(Value a, Value b) { return arith::AddIOp::create(B, Loc, a, b); }
  Value add(Value a, int64_t b) { return add(a, idx(b)); }
  Value mul(Value a, int64_t b) {
    return arith::MulIOp::create(B, Loc, a, idx(b));
  }
  Value div(Value a, int64_t b) {
    return arith::DivUIOp::create(B, Loc, a, idx(b));
  }
  Value rem(Value a, int64_t b) {
    return arith::RemUIOp::create(B, Loc, a, idx(b));
  }
  // Loop values for batch `Batch` with the given M, N, K positions (null
  // ones left at 0).
  SmallVector<Value> loops(Value m, Value n, Value k) {
    SmallVector<Value> values(C.Op.getNumLoops(), idx(0));
    if (C.BatchDim >= 0)
      values[C.BatchDim] = Batch;
    if (m)
      values[C.MDim] = m;
    if (n)
      values[C.NDim] = n;
    if (k)
      values[C.KDim] = k;
    return values;
  }
  // Issues the cp.asyncs filling `stage` with the tiles at k0 and commits
  // them as one group, whose token it returns.
  Value copyStage(Value stage, Value k0);

  func::FuncOp Func;
  Contraction C;
  SymbolTable &Symbols;
  OpBuilder B;
  Location Loc;
  Value TileA, TileB, Batch, Row0, Col0, Tid;
};

Value MmaKernelBuilder::copyStage(Value stage, Value k0) {
  linalg::LinalgOp op = C.Op;
  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap mapB = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  SmallVector<Value> tokens;
  // A: kBM rows of kBK; B: kBK rows of kBN; each in 16-byte pieces, spread
  // over the threads with consecutive threads on consecutive pieces.
  auto copy = [&](Value tile, Value source, AffineMap map, int64_t rows,
                  int64_t cols, bool isA) {
    int64_t pieces = rows * cols / kCopyElements;
    for (int64_t first = 0; first < pieces; first += kThreads) {
      Value piece = add(Tid, first);
      Value row = div(piece, cols / kCopyElements);
      Value col = mul(rem(piece, cols / kCopyElements), kCopyElements);
      SmallVector<Value> at =
          isA ? loops(add(Row0, row), nullptr, add(k0, col))
              : loops(nullptr, add(Col0, col), add(k0, row));
      tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
          B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tile,
          ValueRange{stage, row, col}, source, applyToLoops(map, at),
          B.getIndexAttr(kCopyElements), /*srcElements=*/Value(),
          /*bypassL1=*/B.getUnitAttr()));
    }
  };
  copy(TileA, C.Lhs, mapA, kBM, kBK, /*isA=*/true);
  copy(TileB, C.Rhs, mapB, kBK, kBN, /*isA=*/false);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tokens);
}

void MmaKernelBuilder::build() {
  B.setInsertionPoint(C.Store);
  Func->setAttr("kiln.gpu_contraction_mma",
                B.getDenseI64ArrayAttr({kBM, kBN, kBK, kMmaM, kMmaN, kMmaK}));
  TileA = createSharedBuffer(B, Loc, Func, Symbols, "_mma_a",
                             {kStages, kBM, kBK + kPad}, B.getF16Type());
  TileB = createSharedBuffer(B, Loc, Func, Symbols, "_mma_b",
                             {kStages, kBK, kBN + kPad}, B.getF16Type());

  scf::ForallOp forall = createWorkgroupLoop(B, Loc, C, kBM, kBN);
  B.setInsertionPointToStart(forall.getBody());
  Batch = forall.getInductionVar(0);
  Row0 = forall.getInductionVar(1);
  Col0 = forall.getInductionVar(2);
  Tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Value warp = div(Tid, 32), lane = rem(Tid, 32);
  Value warpRow = mul(div(warp, kWarpsN), kWM);
  Value warpCol = mul(rem(warp, kWarpsN), kWN);
  // Accumulator fragment element (r, c) is row g + 8r, column 2t + c of its
  // 16 x 8 tile (g = lane / 4, t = lane % 4).
  Value g = div(lane, 4), t2 = mul(rem(lane, 4), 2);

  auto fragType = VectorType::get({2, 2}, B.getF32Type());
  SmallVector<Value> acc;
  for (int64_t mi = 0; mi < kTilesM; ++mi)
    for (int64_t ni = 0; ni < kTilesN; ++ni) {
      if (C.InitValue) {
        acc.push_back(
            vector::BroadcastOp::create(B, Loc, fragType, C.InitValue));
        continue;
      }
      Value frag = vector::BroadcastOp::create(
          B, Loc, fragType,
          arith::ConstantOp::create(B, Loc, B.getF32FloatAttr(0.0)));
      AffineMap outMap = C.Op.getIndexingMapsArray().back();
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          Value row = add(add(Row0, warpRow), add(g, mi * kMmaM + 8 * r));
          Value col = add(add(Col0, warpCol), add(t2, ni * kMmaN + c));
          Value value = memref::LoadOp::create(
              B, Loc, C.InitBinding,
              applyToLoops(outMap, loops(row, col, nullptr)));
          frag = vector::InsertOp::create(B, Loc, value, frag,
                                          ArrayRef<int64_t>{r, c});
        }
      acc.push_back(frag);
    }

  int64_t steps = C.K / kBK;
  Value first = copyStage(idx(0), idx(0));
  auto kLoop = scf::ForOp::create(B, Loc, idx(0), idx(steps), idx(1), acc);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(kLoop.getBody());
    Value step = kLoop.getInductionVar();
    Value stage = rem(step, kStages);
    // Fill the other stage with the next tiles (the last step refetches
    // its own tiles into the stage nobody reads, keeping the loop uniform).
    Value next = arith::MinUIOp::create(B, Loc, add(step, 1), idx(steps - 1));
    Value group = copyStage(rem(add(step, 1), kStages), mul(next, kBK));
    // All but the newest group done: this stage's copies have landed...
    nvgpu::DeviceAsyncWaitOp::create(B, Loc, group, B.getI32IntegerAttr(1));
    // ...and every thread's, not just this one's.
    gpu::BarrierOp::create(B, Loc);
    SmallVector<Value> values(kLoop.getRegionIterArgs());
    auto aType = VectorType::get({4, 2}, B.getF16Type());
    auto bType = VectorType::get({2, 2}, B.getF16Type());
    for (int64_t kk = 0; kk < kBK; kk += kMmaK) {
      SmallVector<Value> as, bs;
      // ldmatrix x4 of a 16 x 16 A tile: lane l gives row l % 16 of
      // column half l / 16.
      Value aRow = add(warpRow, rem(lane, 16));
      Value aCol = add(mul(div(lane, 16), 8), kk);
      for (int64_t mi = 0; mi < kTilesM; ++mi)
        as.push_back(nvgpu::LdMatrixOp::create(
            B, Loc, aType, TileA,
            ValueRange{stage, add(aRow, mi * kMmaM), aCol},
            /*transpose=*/false, /*numTiles=*/4));
      // ldmatrix x2 transposed of a 16 x 8 B tile (K x N): lanes 0-15 give
      // rows k.
      Value bRow = add(rem(lane, 16), kk);
      for (int64_t ni = 0; ni < kTilesN; ++ni)
        bs.push_back(nvgpu::LdMatrixOp::create(
            B, Loc, bType, TileB,
            ValueRange{stage, bRow, add(warpCol, ni * kMmaN)},
            /*transpose=*/true, /*numTiles=*/2));
      for (int64_t mi = 0; mi < kTilesM; ++mi)
        for (int64_t ni = 0; ni < kTilesN; ++ni) {
          Value &frag = values[mi * kTilesN + ni];
          frag =
              nvgpu::MmaSyncOp::create(B, Loc, as[mi], bs[ni], frag,
                                       ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK});
        }
    }
    // The next step fills this stage again.
    gpu::BarrierOp::create(B, Loc);
    scf::YieldOp::create(B, Loc, values);
  }
  // The last (redundant) copies must land before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(B, Loc, first, B.getI32IntegerAttr(0));

  AffineMap outMap = C.Op.getIndexingMapsArray().back();
  for (int64_t mi = 0; mi < kTilesM; ++mi)
    for (int64_t ni = 0; ni < kTilesN; ++ni)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          Value row = add(add(Row0, warpRow), add(g, mi * kMmaM + 8 * r));
          Value col = add(add(Col0, warpCol), add(t2, ni * kMmaN + c));
          SmallVector<Value> outIndices =
              applyToLoops(outMap, loops(row, col, nullptr));
          Value value = vector::ExtractOp::create(
              B, Loc, kLoop.getResult(mi * kTilesN + ni),
              ArrayRef<int64_t>{r, c});
          value = applyEpilogue(B, Loc, C, value, outIndices);
          memref::StoreOp::create(B, Loc, value, C.Out, outIndices);
        }
}

} // namespace

LogicalResult buildMmaContractionKernel(func::FuncOp func,
                                        SymbolTable &symbols) {
  FailureOr<Contraction> c = matchContraction(func);
  if (failed(c) || !isApplicable(*c))
    return failure();
  MmaKernelBuilder(func, *c, symbols).build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr,
                OpBuilder(func).getDenseI64ArrayAttr({kThreads, 1, 1}));
  return success();
}

} // namespace kiln
