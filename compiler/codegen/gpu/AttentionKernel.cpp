//===- AttentionKernel.cpp - Attention as one kernel over the keys --------===//
//
// A dispatch holding an attention (Attention.h; kiln-form-dispatches'
// fuse-attention makes them) becomes one kernel on mma.sync m16n8k16, in
// the manner of FlashAttention-2. A workgroup of W warps takes 16 W query
// rows of one batch position, each warp 16 of them, and streams over the
// keys BN at a time:
//
//   shared    Q's rows (once), and two stages of BN rows of K and of V,
//             filled by cp.async a step ahead of the one being read; rows
//             padded by 16 bytes so ldmatrix's 8 row addresses fall in
//             different banks
//   S         = Q . K^T for the warp's 16 x BN scores: Q fragments by
//             ldmatrix x4, K's by ldmatrix x2 (K rows are B's columns)
//   x         the softmax program's x (the max reduction's payload) applied
//             to each score element in registers, as RowEvaluator computes
//             it: the scale, the mask loaded from its binding, roundings
//   softmax   each row's running max m and sum l in f32: a step's max over
//             the quad of lanes that holds a row (two xor shuffles), p =
//             exp(x - m_new), the partial O and l scaled by exp(m_old -
//             m_new)
//   O         += P . V: a step's accumulators, rounded to f16, are the A
//             fragments of the next mma directly (an m16n8 accumulator pair
//             is an m16k16 operand); V by ldmatrix x2 transposed
//
// After the last step O / l (plus the contractions' fills) goes through the
// dispatch's epilogues and is stored. Scores past the last key are -inf;
// K and V rows past it are zero-filled; query rows past the last compute a
// copy of it and store nothing. The softmax runs in f32 where the model may
// round it to f16 at each op: the result is as close to the exact one or
// closer. A row whose every score is -inf divides 0 by 0, as the model's
// exp(-inf - -inf) does.
//
// An f32 attention is the same kernel on mma.sync m16n8k8 tf32, its tiles
// f32: fragments split into tf32 and a tf32 remainder, three instructions
// a product (3xTF32, Tf32Fragment in MmaSync.h: f32's accuracy on the
// tensor cores), or one with --precision=tf32. P stays f32; V's fragments
// are two loads a thread at the keys P's accumulator layout gives it.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/IndexArithmetic.h"
#include "compiler/codegen/gpu/KernelDispatch.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/codegen/gpu/MmaSync.h"
#include "compiler/codegen/gpu/RowEvaluator.h"
#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUATTENTIONKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct AttentionDispatch {
  Attention A;
  KernelDispatch D; // the output contraction, its fill and epilogues
  Value Q, K, V;    // bindings
};

FailureOr<AttentionDispatch> matchAttentionDispatch(func::FuncOp func) {
  FailureOr<KernelDispatch> d = matchKernelDispatch(func);
  if (failed(d) || !uniformInit(*d))
    return failure();
  FailureOr<Attention> a = analyzeAttention(
      d->Op, [](Value v) { return static_cast<bool>(bindingOf(v)); });
  if (failed(a))
    return failure();
  AttentionDispatch result{std::move(*a), *d, {}, {}, {}};
  linalg::LinalgOp scores = result.A.Scores;
  result.Q = bindingOf(scores.getDpsInputOperand(0)->get());
  result.K = bindingOf(scores.getDpsInputOperand(1)->get());
  result.V = bindingOf(d->Op.getDpsInputOperand(1)->get());
  if (!result.Q || !result.K || !result.V)
    return failure();
  return result;
}

// The scalar a contraction's accumulator is filled with.
Value fillValue(linalg::LinalgOp op) {
  return op.getDpsInitOperand(0)
      ->get()
      .getDefiningOp<linalg::FillOp>()
      .getInputs()[0];
}

struct AttentionConfig {
  int64_t Warps;     // along the queries, 16 rows each
  int64_t Splits;    // warps sharing each 16 rows, each a part of a step's keys
  int64_t BN;        // keys per step
  int64_t ElemBytes; // of Q, K and V: 2 (f16) or 4 (f32)
  int64_t K;         // the reduction depth of one mma.sync (mmaSyncK)
  int64_t rows() const { return Warps * kMmaM; }
  int64_t threads() const { return Warps * Splits * kMmaWarpThreads; }
  // The keys of a step each warp takes.
  int64_t splitKeys() const { return BN / Splits; }
  // Elements of a 16-byte cp.async, and of a row's 16 bytes of padding.
  int64_t copyElements() const { return 16 / ElemBytes; }
  int64_t sharedBytes(const Attention &a) const {
    int64_t merge = Splits > 1 ? rows() * a.ValueDim * 4 : 0;
    int64_t pad = copyElements();
    return ElemBytes * (rows() * (a.HeadDim + pad) +
                        2 * BN * (a.HeadDim + pad + a.ValueDim + pad)) +
           merge;
  }
};

// Four warps a workgroup. Their 16-row query blocks are as many as leave
// no more than half the processors idle (more rows a workgroup share its
// K and V copies); the rest split each step's keys between them, so a
// short sequence over few workgroups (a ViT's 197 tokens, 78 workgroups)
// runs its steps' math on four warps instead of one (unsplit where the
// tiles would not divide). 64 keys a step, 32 when the stages would not
// fit the static shared memory; every thread copies whole 16-byte pieces
// of each tile. f32 tiles take twice the bytes: 32 keys a step for a head
// of 64.
std::optional<AttentionConfig> chooseConfig(const Attention &a,
                                            const GpuTarget &target) {
  constexpr int64_t kWarps = 4;
  int64_t elemBytes = a.Operand.getIntOrFloatBitWidth() / 8;
  for (int64_t bn : {64, 32})
    for (int64_t warps = kWarps; warps >= 1; warps /= 2) {
      int64_t workgroups = a.Batch * llvm::divideCeil(a.Queries, warps * kMmaM);
      if (warps > 1 && workgroups * 2 <= target.ProcessorCount)
        continue;
      // Split keys first; unsplit where the tiles do not divide so.
      for (int64_t splits : {kWarps / warps, int64_t(1)}) {
        AttentionConfig c{warps, splits, bn, elemBytes, mmaSyncK(a.Operand)};
        int64_t piece = c.copyElements();
        bool whole = (c.BN * a.HeadDim / piece) % c.threads() == 0 &&
                     (c.BN * a.ValueDim / piece) % c.threads() == 0 &&
                     (c.rows() * a.HeadDim / piece) % c.threads() == 0;
        // Each warp's keys a whole number of P . V instructions.
        if (whole && c.splitKeys() % c.K == 0 &&
            c.sharedBytes(a) <= target.SharedMemoryBytes)
          return c;
      }
    }
  return std::nullopt;
}

class AttentionKernelBuilder : IndexArithmetic {
public:
  AttentionKernelBuilder(func::FuncOp func, AttentionDispatch &d,
                         AttentionConfig c,
                         const GpuMatrixInstruction &instruction,
                         bool allowTf32, SymbolTable &symbols)
      : IndexArithmetic(func.getContext(), d.A.Output.getLoc()), Func(func),
        D(d), A(d.A), C(c), Instruction(instruction), Symbols(symbols),
        E(B, Loc, A.Softmax), F32(A.Operand.isF32()),
        SplitTf32(F32 && !allowTf32) {}

  void build();

private:
  Value below(Value a, int64_t b) {
    return arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, a, idx(b));
  }
  Value clamp(Value a, int64_t size) {
    return arith::MinUIOp::create(B, Loc, a, idx(size - 1));
  }
  Value f32(double v) {
    return arith::ConstantOp::create(B, Loc, B.getF32FloatAttr(v));
  }
  Value toF32(Value v) {
    return v.getType().isF32()
               ? v
               : arith::ExtFOp::create(B, Loc, B.getF32Type(), v).getResult();
  }
  Value maxf(Value a, Value b) {
    return arith::MaxNumFOp::create(B, Loc, a, b);
  }
  // e^v as 2^(v log2 e): one multiply and the hardware's exp2 (a few
  // instructions) instead of exp's polynomial (about fifteen), for every
  // score.
  Value exp(Value v) {
    return math::Exp2Op::create(B, Loc,
                                arith::MulFOp::create(B, Loc, v, f32(M_LOG2E)));
  }
  // The loops of Scores or Output (`op`, whose loops have `roles`) at this
  // workgroup's batch position, query `q`, key `key` and head or value
  // position `inner` (a null one left at 0).
  SmallVector<Value> loops(linalg::LinalgOp op, const AttentionLoops &roles,
                           Value q, Value key, Value inner);
  SmallVector<Value> scoreLoops(Value q, Value key, Value inner) {
    return loops(A.Scores, A.ScoreLoops, q, key, inner);
  }
  SmallVector<Value> outputLoops(Value q, Value key, Value inner) {
    return loops(A.Output, A.OutputLoops, q, key, inner);
  }
  // cp.async of a rows x cols tile of `source` (16-byte pieces along the
  // innermost dim) into `tile`[stage]; `indices` gives a piece's source
  // indices from its row and column, `inBounds` whether it exists.
  void copyTile(SmallVectorImpl<Value> &tokens, Value tile, Value stage,
                Value source, int64_t rows, int64_t cols,
                function_ref<SmallVector<Value>(Value, Value)> indices,
                function_ref<Value(Value)> inBounds);
  // The copies of step `step`'s K and V into `stage`, with Q's when `q`.
  Value copyStep(Value stage, Value key0, Value valid, bool q);
  // x of the score element `s` at query `q` and key `key`, in f32.
  Value scoreX(Value s, Value q, Value key);

  func::FuncOp Func;
  AttentionDispatch &D;
  Attention &A;
  AttentionConfig C;
  const GpuMatrixInstruction &Instruction;
  SymbolTable &Symbols;
  RowEvaluator E;
  // f32 operands, on tf32 instructions: split for 3xTF32 (f32's accuracy)
  // unless the user allows tf32's.
  const bool F32, SplitTf32;
  Value TileQ, TileK, TileV, Q0;
  SmallVector<Value> BatchPosition; // per batch loop, in their order
};

SmallVector<Value> AttentionKernelBuilder::loops(linalg::LinalgOp op,
                                                 const AttentionLoops &roles,
                                                 Value q, Value key,
                                                 Value inner) {
  SmallVector<Value> values(op.getNumLoops(), idx(0));
  for (auto [loop, value] : llvm::zip(roles.Batch, BatchPosition))
    values[loop] = value;
  for (auto [loop, value] :
       {std::pair{roles.Query, q}, {roles.Key, key}, {roles.Inner, inner}})
    if (value)
      values[loop] = value;
  return values;
}

void AttentionKernelBuilder::copyTile(
    SmallVectorImpl<Value> &tokens, Value tile, Value stage, Value source,
    int64_t rows, int64_t cols,
    function_ref<SmallVector<Value>(Value, Value)> indices,
    function_ref<Value(Value)> inBounds) {
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  int64_t perCopy = C.copyElements();
  int64_t pieces = rows * cols / perCopy;
  for (int64_t first = 0; first < pieces; first += C.threads()) {
    Value piece = add(tid, first);
    Value row = div(piece, cols / perCopy);
    Value col = mul(rem(piece, cols / perCopy), perCopy);
    Value in = inBounds(row);
    Value srcElements;
    if (in)
      srcElements = arith::SelectOp::create(B, Loc, in, idx(perCopy), idx(0));
    SmallVector<Value> dst = {row, col};
    if (stage)
      dst.insert(dst.begin(), stage);
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tile, dst,
        source, indices(row, col), B.getIndexAttr(perCopy), srcElements,
        /*bypassL1=*/B.getUnitAttr()));
  }
}

Value AttentionKernelBuilder::copyStep(Value stage, Value key0, Value valid,
                                       bool q) {
  SmallVector<Value> tokens;
  auto both = [&](Value a, Value b) -> Value {
    if (!a || !b)
      return a ? a : b;
    return arith::AndIOp::create(B, Loc, a, b);
  };
  if (q) {
    AffineMap map =
        A.Scores.getMatchingIndexingMap(A.Scores.getDpsInputOperand(0));
    copyTile(
        tokens, TileQ, nullptr, D.Q, C.rows(), A.HeadDim,
        [&](Value row, Value col) {
          return applyToLoops(
              B, Loc, map,
              scoreLoops(clamp(add(Q0, row), A.Queries), nullptr, col));
        },
        [&](Value row) -> Value {
          return A.Queries % C.rows() == 0 ? Value()
                                           : below(add(Q0, row), A.Queries);
        });
  }
  auto keyInBounds = [&](Value row) -> Value {
    return both(valid,
                A.Keys % C.BN == 0 ? Value() : below(add(key0, row), A.Keys));
  };
  // K's and V's BN rows of keys, each read through its contraction's map.
  auto copyKeys = [&](Value tile, Value source, int64_t cols,
                      linalg::LinalgOp op, const AttentionLoops &roles) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
    copyTile(
        tokens, tile, stage, source, C.BN, cols,
        [&](Value row, Value col) {
          return applyToLoops(
              B, Loc, map,
              loops(op, roles, nullptr, clamp(add(key0, row), A.Keys), col));
        },
        keyInBounds);
  };
  copyKeys(TileK, D.K, A.HeadDim, A.Scores, A.ScoreLoops);
  copyKeys(TileV, D.V, A.ValueDim, A.Output, A.OutputLoops);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tokens);
}

Value AttentionKernelBuilder::scoreX(Value s, Value q, Value key) {
  // The sink dims are Output loops: the batch position, the query, the key.
  for (auto [dim, loop] : llvm::enumerate(A.SinkLoops)) {
    Value value;
    if (loop == A.OutputLoops.Query)
      value = q;
    else if (loop == A.OutputLoops.Key)
      value = key;
    else
      for (auto [batchLoop, position] :
           llvm::zip(A.OutputLoops.Batch, BatchPosition))
        if (batchLoop == loop)
          value = position;
    E.Dims[dim] = value;
  }
  const RowReduction &max = A.Softmax.Reductions[0];
  E.Dims[max.Dim] = key;
  E.Given[A.Scores->getResult(0)] = s;
  // The max's payload combining x with its neutral element is x.
  Value neutral = arith::ConstantOp::create(B, Loc, max.Payload.Neutral);
  return toF32(E.payload(max.Op, reductionLoops(max), neutral));
}

void AttentionKernelBuilder::build() {
  B.setInsertionPoint(D.D.Store);
  SmallVector<NamedAttribute> config = {
      B.getNamedAttr("workgroup_rows", B.getI64IntegerAttr(C.rows())),
      B.getNamedAttr("keys_per_step", B.getI64IntegerAttr(C.BN)),
      B.getNamedAttr("key_splits", B.getI64IntegerAttr(C.Splits)),
      B.getNamedAttr("instruction", B.getStringAttr(Instruction.str()))};
  if (F32)
    config.push_back(
        B.getNamedAttr("tf32_passes", B.getI64IntegerAttr(SplitTf32 ? 3 : 1)));
  setLoweringConfig(Func, "attention", config);
  // Rows padded by 16 bytes: ldmatrix's 8 row addresses (Q, K; V in f16)
  // fall in different banks, and so do an f32 V's loads at keys 2t.
  Type elem = A.Operand;
  int64_t pad = C.copyElements();
  TileQ = createSharedBuffer(B, Loc, Func, Symbols, "_attn_q",
                             {C.rows(), A.HeadDim + pad}, elem);
  TileK = createSharedBuffer(B, Loc, Func, Symbols, "_attn_k",
                             {2, C.BN, A.HeadDim + pad}, elem);
  TileV = createSharedBuffer(B, Loc, Func, Symbols, "_attn_v",
                             {2, C.BN, A.ValueDim + pad}, elem);
  // The splits' partial outputs, summed in turn; each split's row max and
  // sum, and each row's total.
  Value merged, splitMax, splitSum, rowSum;
  if (C.Splits > 1) {
    merged = createSharedBuffer(B, Loc, Func, Symbols, "_attn_o",
                                {C.rows(), A.ValueDim}, B.getF32Type());
    splitMax = createSharedBuffer(B, Loc, Func, Symbols, "_attn_m",
                                  {C.Splits, C.rows()}, B.getF32Type());
    splitSum = createSharedBuffer(B, Loc, Func, Symbols, "_attn_l",
                                  {C.Splits, C.rows()}, B.getF32Type());
    rowSum = createSharedBuffer(B, Loc, Func, Symbols, "_attn_total",
                                {C.rows()}, B.getF32Type());
  }

  scf::ForallOp forall =
      createBlockLoop(B, Loc, {A.Batch, A.Queries}, {1, C.rows()});
  B.setInsertionPointToStart(forall.getBody());
  SmallVector<int64_t> batchSizes;
  SmallVector<int64_t> ranges = A.Output.getStaticLoopRanges();
  for (unsigned loop : A.OutputLoops.Batch)
    batchSizes.push_back(ranges[loop]);
  if (!batchSizes.empty())
    BatchPosition = delinearize(B, Loc, forall.getInductionVar(0), batchSizes);
  Q0 = forall.getInductionVar(1);
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Value warp = div(tid, kMmaWarpThreads), lane = rem(tid, kMmaWarpThreads);
  // Accumulator element (r, c) of an m16n8 tile is row g + 8r, column
  // 2t + c (g = lane / 4, t = lane % 4).
  Value g = div(lane, 4), t2 = mul(rem(lane, 4), 2);
  // The warp's 16 query rows, and its part of each step's keys.
  Value split = div(warp, C.Warps);
  Value warpRow = mul(rem(warp, C.Warps), kMmaM);
  Value splitKey = mul(split, C.splitKeys());
  // The query of each of the thread's two rows, and the one it reads (a
  // copy of the last past it).
  SmallVector<Value> query, readQuery;
  for (int64_t r = 0; r < 2; ++r) {
    query.push_back(add(add(Q0, warpRow), add(g, 8 * r)));
    readQuery.push_back(A.Queries % C.rows() == 0
                            ? query.back()
                            : clamp(query.back(), A.Queries));
  }

  int64_t steps = llvm::divideCeil(A.Keys, C.BN);
  int64_t sTiles = C.splitKeys() / kMmaN, oTiles = A.ValueDim / kMmaN;
  auto accType = VectorType::get({2, 2}, B.getF32Type());
  int64_t instructionK = C.K;
  VectorType aType = mmaFragmentType(4, elem), bType = mmaFragmentType(2, elem);
  Value t = rem(lane, 4);
  Value first = copyStep(idx(0), idx(0), nullptr, /*q=*/true);

  // The running max starts at the max reduction's init (its fill: the
  // neutral NaN or -inf frontends write), the sum at zero.
  Value minusInf = f32(-std::numeric_limits<double>::infinity());
  const RowReduction &maxR = A.Softmax.Reductions[0];
  const RowReduction &sumR = A.Softmax.Reductions[1];
  linalg::LinalgOp maxOp = maxR.Op, sumOp = sumR.Op;
  Value maxInit = maxf(
      minusInf,
      toF32(E.element(maxOp.getDpsInitOperand(0)->get(), maxR.ResultIndices)));
  Value zeroAcc = vector::BroadcastOp::create(B, Loc, accType, f32(0));
  SmallVector<Value> inits = {maxInit, maxInit, f32(0), f32(0)};
  inits.append(oTiles, zeroAcc);
  // Q's fragments, the same at every step: with 3xTF32 loaded and split
  // once, once the first copies (Q's among them) have landed, instead of
  // at every step.
  auto loadQ = [&](int64_t kk) {
    return nvgpu::LdMatrixOp::create(
        B, Loc, aType, TileQ,
        ValueRange{add(warpRow, rem(lane, 16)),
                   add(mul(div(lane, 16), instructionK / 2), kk)},
        /*transpose=*/false, /*numTiles=*/4);
  };
  SmallVector<Tf32Fragment> splitQ;
  if (SplitTf32) {
    nvgpu::DeviceAsyncWaitOp::create(B, Loc, first, B.getI32IntegerAttr(0));
    gpu::BarrierOp::create(B, Loc);
    for (int64_t kk = 0; kk < A.HeadDim; kk += instructionK)
      splitQ.push_back(tf32Fragment(B, Loc, loadQ(kk), /*split=*/true));
  }
  auto loop = scf::ForOp::create(B, Loc, idx(0), idx(steps), idx(1), inits);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<Value> m = {args[0], args[1]}, l = {args[2], args[3]};
    SmallVector<Value> o(args.drop_front(4));
    Value stage = rem(step, 2);
    // Everyone is done reading the other stage (the previous step's):
    // the next step's tiles go there while this one's are read.
    gpu::BarrierOp::create(B, Loc);
    Value next = add(step, 1);
    Value valid = arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, next,
                                        idx(steps));
    Value nextKey =
        mul(arith::MinUIOp::create(B, Loc, next, idx(steps - 1)), C.BN);
    copyStep(rem(next, 2), nextKey, valid, /*q=*/false);
    nvgpu::DeviceAsyncWaitOp::create(B, Loc, first, B.getI32IntegerAttr(1));
    gpu::BarrierOp::create(B, Loc);
    // This warp's first key of the step.
    Value key0 = add(mul(step, C.BN), splitKey);

    // S = Q . K^T, the scores' fill value added.
    Value sInit = vector::BroadcastOp::create(B, Loc, accType,
                                              toF32(fillValue(A.Scores)));
    SmallVector<Value> s(sTiles, sInit);
    // ldmatrix gives both instructions' fragments: 8 x 8 matrices of
    // 16-bit pairs are f16's 8 x 8 and tf32's 8 x 4, each lane's element
    // (row lane / 4, column lane % 4) where the instruction wants it.
    // Lanes 0-7 address keys ni*8.. at the first half of the head's step
    // kk, lanes 8-15 at the second.
    auto loadK = [&](int64_t ni, int64_t kk) {
      return nvgpu::LdMatrixOp::create(
          B, Loc, bType, TileK,
          ValueRange{stage, add(splitKey, add(rem(lane, 8), ni * kMmaN)),
                     add(mul(rem(div(lane, 8), 2), instructionK / 2), kk)},
          /*transpose=*/false, /*numTiles=*/2);
    };
    // 3xTF32's products accumulate in six chains a tile (big x big, and
    // either small term, each over alternate steps of the head), summed at
    // the end: one chain of 24 dependent instructions a tile (8 steps of a
    // 64-wide head, 3 each) left the warp waiting on each in turn.
    if (SplitTf32) {
      Value zero = vector::BroadcastOp::create(B, Loc, accType, f32(0));
      SmallVector<SmallVector<Value>> chains(sTiles,
                                             SmallVector<Value>(6, zero));
      for (auto &c : chains)
        c[0] = sInit;
      auto mma = [&](Value x, Value y, Value acc) -> Value {
        return nvgpu::MmaSyncOp::create(
            B, Loc, x, y, acc, ArrayRef<int64_t>{kMmaM, kMmaN, kMmaTf32K},
            /*tf32Enabled=*/true);
      };
      for (int64_t kk = 0, j = 0; kk < A.HeadDim; kk += instructionK, ++j)
        for (int64_t ni = 0; ni < sTiles; ++ni) {
          Value b = loadK(ni, kk);
          Tf32Fragment b32 = tf32Fragment(B, Loc, b, /*split=*/true);
          const Tf32Fragment &a32 = splitQ[j];
          SmallVector<Value> &c = chains[ni];
          int64_t parity = j % 2;
          c[2 + parity] = mma(a32.Small, b32.Big, c[2 + parity]);
          c[4 + parity] = mma(a32.Big, b32.Small, c[4 + parity]);
          c[parity] = mma(a32.Big, b32.Big, c[parity]);
        }
      for (int64_t ni = 0; ni < sTiles; ++ni) {
        SmallVector<Value> &c = chains[ni];
        auto addf = [&](Value x, Value y) -> Value {
          return arith::AddFOp::create(B, Loc, x, y);
        };
        Value small = addf(addf(c[2], c[3]), addf(c[4], c[5]));
        s[ni] = addf(addf(c[0], c[1]), small);
      }
    }
    for (int64_t kk = 0; !SplitTf32 && kk < A.HeadDim; kk += instructionK) {
      Value a = loadQ(kk);
      Tf32Fragment a32;
      if (F32)
        a32 = tf32Fragment(B, Loc, a, /*split=*/false);
      for (int64_t ni = 0; ni < sTiles; ++ni) {
        Value b = loadK(ni, kk);
        s[ni] =
            F32 ? mmaTf32(B, Loc, a32, tf32Fragment(B, Loc, b, false), s[ni])
                : nvgpu::MmaSyncOp::create(
                      B, Loc, a, b, s[ni],
                      ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK});
      }
    }

    // x for each element, -inf past the last key; each row's max.
    SmallVector<SmallVector<Value>> x(sTiles);
    SmallVector<Value> rowMax = {minusInf, minusInf};
    for (int64_t ni = 0; ni < sTiles; ++ni)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          Value key = add(key0, add(t2, ni * kMmaN + c));
          Value inKeys = A.Keys % C.BN == 0 ? Value() : below(key, A.Keys);
          Value readKey = inKeys ? clamp(key, A.Keys) : key;
          Value sv =
              vector::ExtractOp::create(B, Loc, s[ni], ArrayRef<int64_t>{r, c});
          Value xv = scoreX(sv, readQuery[r], readKey);
          if (inKeys)
            xv = arith::SelectOp::create(B, Loc, inKeys, xv, minusInf);
          x[ni].push_back(xv);
          rowMax[r] = maxf(rowMax[r], xv);
        }
    // The four lanes of a quad hold a row between them.
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t mask : {1, 2})
        rowMax[r] = maxf(rowMax[r],
                         shuffleXor(B, Loc, rowMax[r], mask, kMmaWarpThreads));
    SmallVector<Value> shift, alpha, newM;
    for (int64_t r = 0; r < 2; ++r) {
      newM.push_back(maxf(m[r], rowMax[r]));
      // A row without a finite score yet subtracts 0 (exp(-inf) = 0).
      Value none = arith::CmpFOp::create(B, Loc, arith::CmpFPredicate::OEQ,
                                         newM[r], minusInf);
      shift.push_back(arith::SelectOp::create(B, Loc, none, f32(0), newM[r]));
      alpha.push_back(exp(arith::SubFOp::create(B, Loc, m[r], shift[r])));
    }
    // p = exp(x - m), rounded (f16) into the A fragments of P . V.
    SmallVector<Value> rowSum = {f32(0), f32(0)};
    SmallVector<SmallVector<Value>> p(sTiles);
    for (int64_t ni = 0; ni < sTiles; ++ni)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          Value pv =
              exp(arith::SubFOp::create(B, Loc, x[ni][r * 2 + c], shift[r]));
          rowSum[r] = arith::AddFOp::create(B, Loc, rowSum[r], pv);
          p[ni].push_back(
              F32 ? pv : arith::TruncFOp::create(B, Loc, elem, pv).getResult());
        }
    SmallVector<Value> results;
    for (int64_t r = 0; r < 2; ++r) {
      results.push_back(newM[r]);
    }
    for (int64_t r = 0; r < 2; ++r)
      results.push_back(arith::AddFOp::create(
          B, Loc, arith::MulFOp::create(B, Loc, l[r], alpha[r]), rowSum[r]));
    Value scale = vector::FromElementsOp::create(
        B, Loc, accType, ValueRange{alpha[0], alpha[0], alpha[1], alpha[1]});
    for (Value &acc : o)
      acc = arith::MulFOp::create(B, Loc, acc, scale);
    if (F32) {
      for (int64_t kj = 0; kj < C.splitKeys() / kMmaTf32K; ++kj) {
        // An m16n8k8 A fragment holds (g, t), (g + 8, t), (g, t + 4) and
        // (g + 8, t + 4); the scores' accumulator gave this thread keys 2t
        // and 2t + 1 of rows g and g + 8. The instruction's k order is free:
        // its k = t is key 2t and k = t + 4 key 2t + 1, for P and V alike.
        const SmallVector<Value> &keys = p[kj];
        Tf32Fragment a = tf32Fragment(
            B, Loc,
            vector::FromElementsOp::create(
                B, Loc, aType, ValueRange{keys[0], keys[2], keys[1], keys[3]}),
            SplitTf32);
        Value key = add(splitKey, add(mul(t, 2), kj * kMmaTf32K));
        for (int64_t vi = 0; vi < oTiles; ++vi) {
          Value column = add(g, vi * kMmaN);
          Value b = vector::FromElementsOp::create(
              B, Loc, bType,
              ValueRange{
                  memref::LoadOp::create(B, Loc, TileV,
                                         ValueRange{stage, key, column}),
                  memref::LoadOp::create(
                      B, Loc, TileV, ValueRange{stage, add(key, 1), column})});
          o[vi] = mmaTf32(B, Loc, a, tf32Fragment(B, Loc, b, SplitTf32), o[vi]);
        }
      }
    } else {
      for (int64_t kj = 0; kj < C.splitKeys() / kMmaK; ++kj) {
        const SmallVector<Value> &lo = p[2 * kj], &hi = p[2 * kj + 1];
        Value a = vector::FromElementsOp::create(
            B, Loc, aType,
            ValueRange{lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]});
        for (int64_t vi = 0; vi < oTiles; ++vi) {
          // Lanes 0-15 address keys kj*16.. of V's columns vi*8..
          Value b = nvgpu::LdMatrixOp::create(
              B, Loc, bType, TileV,
              ValueRange{stage, add(splitKey, add(rem(lane, 16), kj * kMmaK)),
                         idx(vi * kMmaN)},
              /*transpose=*/true, /*numTiles=*/2);
          o[vi] = nvgpu::MmaSyncOp::create(
              B, Loc, a, b, o[vi], ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK});
        }
      }
    }
    llvm::append_range(results, o);
    scf::YieldOp::create(B, Loc, results);
  }
  // The last (empty) copies complete before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(B, Loc, first, B.getI32IntegerAttr(0));

  ValueRange results = loop.getResults();
  Value sumInit =
      toF32(E.element(sumOp.getDpsInitOperand(0)->get(), sumR.ResultIndices));
  Value outInit = toF32(uniformInit(D.D));
  // Each row's sum over this warp's keys: the quad's partials added.
  SmallVector<Value> rowMaxes = {results[0], results[1]}, sums;
  for (int64_t r = 0; r < 2; ++r) {
    Value l = results[2 + r];
    for (int64_t mask : {1, 2})
      l = arith::AddFOp::create(B, Loc, l,
                                shuffleXor(B, Loc, l, mask, kMmaWarpThreads));
    sums.push_back(l);
  }
  SmallVector<Value> o(results.drop_front(4));
  AffineMap outMap =
      A.Output.getMatchingIndexingMap(A.Output.getDpsInitOperand(0));
  // O / l plus the output's fill, through the epilogues, stored.
  auto store = [&](Value q, Value v, Value acc, Value inverse) {
    SmallVector<Value> outIndices =
        applyToLoops(B, Loc, outMap, outputLoops(q, nullptr, v));
    Value value = arith::AddFOp::create(
        B, Loc, outInit, arith::MulFOp::create(B, Loc, acc, inverse));
    memref::StoreOp::create(B, Loc,
                            applyEpilogue(B, Loc, D.D, value, outIndices),
                            D.D.Out, outIndices);
  };
  if (C.Splits == 1) {
    SmallVector<Value> inverse;
    for (int64_t r = 0; r < 2; ++r)
      inverse.push_back(arith::DivFOp::create(
          B, Loc, f32(1), arith::AddFOp::create(B, Loc, sumInit, sums[r])));
    for (int64_t vi = 0; vi < oTiles; ++vi)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          OpBuilder::InsertionGuard guard(B);
          if (A.Queries % C.rows() != 0) {
            auto inside = scf::IfOp::create(B, Loc, below(query[r], A.Queries));
            B.setInsertionPoint(inside.thenYield());
          }
          store(
              query[r], add(t2, vi * kMmaN + c),
              vector::ExtractOp::create(B, Loc, o[vi], ArrayRef<int64_t>{r, c}),
              inverse[r]);
        }
    return;
  }

  // The splits' rows meet: every split's max and sum through shared
  // memory, each warp's O scaled by exp(its max - the row's) and added
  // into one buffer a split at a time, then each row's elements divided by
  // its total sum and stored by consecutive threads.
  auto isFirstOfQuad = arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::eq,
                                             rem(lane, 4), idx(0));
  SmallVector<Value> localRow;
  for (int64_t r = 0; r < 2; ++r)
    localRow.push_back(add(warpRow, add(g, 8 * r)));
  {
    OpBuilder::InsertionGuard guard(B);
    auto first = scf::IfOp::create(B, Loc, isFirstOfQuad);
    B.setInsertionPoint(first.thenYield());
    for (int64_t r = 0; r < 2; ++r) {
      memref::StoreOp::create(B, Loc, rowMaxes[r], splitMax,
                              ValueRange{split, localRow[r]});
      memref::StoreOp::create(B, Loc, sums[r], splitSum,
                              ValueRange{split, localRow[r]});
    }
  }
  gpu::BarrierOp::create(B, Loc);
  SmallVector<Value> scale;
  for (int64_t r = 0; r < 2; ++r) {
    Value rowMaxAll = minusInf;
    SmallVector<Value> maxes, partial;
    for (int64_t k = 0; k < C.Splits; ++k) {
      maxes.push_back(memref::LoadOp::create(B, Loc, splitMax,
                                             ValueRange{idx(k), localRow[r]}));
      partial.push_back(memref::LoadOp::create(
          B, Loc, splitSum, ValueRange{idx(k), localRow[r]}));
      rowMaxAll = maxf(rowMaxAll, maxes.back());
    }
    Value none = arith::CmpFOp::create(B, Loc, arith::CmpFPredicate::OEQ,
                                       rowMaxAll, minusInf);
    Value shift = arith::SelectOp::create(B, Loc, none, f32(0), rowMaxAll);
    Value total = sumInit;
    for (int64_t k = 0; k < C.Splits; ++k)
      total = arith::AddFOp::create(
          B, Loc, total,
          arith::MulFOp::create(
              B, Loc, partial[k],
              exp(arith::SubFOp::create(B, Loc, maxes[k], shift))));
    scale.push_back(exp(arith::SubFOp::create(B, Loc, rowMaxes[r], shift)));
    // One writer per row: split 0's first lane of the quad.
    OpBuilder::InsertionGuard guard(B);
    auto writer = scf::IfOp::create(
        B, Loc,
        arith::AndIOp::create(B, Loc, isFirstOfQuad,
                              arith::CmpIOp::create(B, Loc,
                                                    arith::CmpIPredicate::eq,
                                                    split, idx(0))));
    B.setInsertionPoint(writer.thenYield());
    memref::StoreOp::create(B, Loc, total, rowSum, ValueRange{localRow[r]});
  }
  for (int64_t k = 0; k < C.Splits; ++k) {
    {
      OpBuilder::InsertionGuard guard(B);
      auto mine = scf::IfOp::create(
          B, Loc,
          arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::eq, split,
                                idx(k)));
      B.setInsertionPoint(mine.thenYield());
      for (int64_t vi = 0; vi < oTiles; ++vi)
        for (int64_t r = 0; r < 2; ++r)
          for (int64_t c = 0; c < 2; ++c) {
            SmallVector<Value> at = {localRow[r], add(t2, vi * kMmaN + c)};
            Value v = arith::MulFOp::create(
                B, Loc,
                vector::ExtractOp::create(B, Loc, o[vi],
                                          ArrayRef<int64_t>{r, c}),
                scale[r]);
            if (k > 0)
              v = arith::AddFOp::create(
                  B, Loc, memref::LoadOp::create(B, Loc, merged, at), v);
            memref::StoreOp::create(B, Loc, v, merged, at);
          }
    }
    gpu::BarrierOp::create(B, Loc);
  }
  int64_t elements = C.rows() * A.ValueDim;
  for (int64_t e = 0; e < elements; e += C.threads()) {
    OpBuilder::InsertionGuard guard(B);
    Value element = add(tid, e);
    Value row = div(element, A.ValueDim), v = rem(element, A.ValueDim);
    Value q = add(Q0, row);
    Value inside;
    if (e + C.threads() > elements)
      inside = below(element, elements);
    if (A.Queries % C.rows() != 0) {
      Value inQueries = below(q, A.Queries);
      inside =
          inside ? arith::AndIOp::create(B, Loc, inside, inQueries) : inQueries;
    }
    if (inside) {
      auto guarded = scf::IfOp::create(B, Loc, inside);
      B.setInsertionPoint(guarded.thenYield());
    }
    Value inverse = arith::DivFOp::create(
        B, Loc, f32(1),
        memref::LoadOp::create(B, Loc, rowSum, ValueRange{row}));
    store(q, v, memref::LoadOp::create(B, Loc, merged, ValueRange{row, v}),
          inverse);
  }
}

} // namespace

bool hasAttentionKernel(const GpuTarget &target) {
  const GpuMatrixInstruction *mma = target.findMatrixInstruction(
      GpuMatrixInstruction::Kind::MmaSync, "f16", "f32");
  return target.AsyncCopy && mma && mma->M == kMmaM && mma->N == kMmaN &&
         mma->K == kMmaK && target.SubgroupSize == kMmaWarpThreads;
}

LogicalResult buildAttentionKernel(func::FuncOp func, SymbolTable &symbols,
                                   const GpuTarget &target, bool allowTf32) {
  if (!hasAttentionKernel(target))
    return failure();
  FailureOr<AttentionDispatch> d = matchAttentionDispatch(func);
  if (failed(d))
    return failure();
  // f32 attention multiplies on tf32 instructions.
  Type operand = d->A.Operand;
  const GpuMatrixInstruction *instruction =
      target.findMatrixInstruction(GpuMatrixInstruction::Kind::MmaSync,
                                   operand.isF32() ? "tf32" : "f16", "f32");
  if (!instruction || instruction->M != kMmaM || instruction->N != kMmaN ||
      instruction->K != mmaSyncK(operand))
    return failure();
  std::optional<AttentionConfig> config = chooseConfig(d->A, target);
  if (!config)
    return failure();
  AttentionKernelBuilder(func, *d, *config, *instruction, allowTf32, symbols)
      .build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr, OpBuilder(func).getDenseI64ArrayAttr(
                                        {config->threads(), 1, 1}));
  return success();
}

namespace {

struct GpuAttentionKernelsPass
    : impl::GpuAttentionKernelsBase<GpuAttentionKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    FailureOr<GpuTarget> target = getGpuTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    buildKernelsOfDispatches(
        getOperation(), [&](func::FuncOp func, SymbolTable &symbols) {
          return buildAttentionKernel(func, symbols, *target, allowTf32);
        });
  }
};

} // namespace
} // namespace kiln
