//===- ContractionKernel.cpp - Shared-memory tiled GEMM kernels -----------===//
//
// A dispatch whose root is a contraction (matmul, batch matmul, a generic)
// or a convolution (an implicit GEMM: see ContractionMatch.h), optionally
// followed by one elementwise epilogue, is written out directly as a kernel
// instead of going through per-output tiling:
//
//   for each BM x BN output tile (a workgroup; batch is a workgroup loop too)
//     accumulators: TM x TN outputs per thread, in registers
//     load the first A[BM x BK] and B[BK x BN] tiles into registers
//     for k0 in 0 .. K step BK
//       the workgroup stores the tiles it holds in registers to shared memory
//       barrier
//       it loads the next step's tiles into registers: the math below hides
//         their latency (software pipelining)
//       for k in 0 .. BK: each thread loads TM values of A and TN of B from
//         shared memory (vector loads) and updates its TM x TN outputs
//       barrier
//     each thread applies the epilogue to its outputs and stores them
//
// Each element of A and B is read from global memory once per workgroup
// instead of once per output, and the inner loop does TM x TN updates for
// TM + TN shared-memory reads. Small problems get smaller tiles (down to
// 32 x 32, 2 x 2 outputs per thread) so that the grid fills the GPU, and
// deeper K steps (BK = 16) to amortize the barriers. A convolution's A tile is
// gathered from its (already padded) input: row m and column k of A are the
// input element the root's indexing map gives for the loops m and k delinearize
// to. The root's own payload is cloned for each update and the epilogue's for
// each output, so element types, casts and accumulation follow the program
// exactly. Edges are handled by predicated loads and stores, emitted only for
// dimensions the tiles do not divide.
//
// Where the target has a wave-wide matrix instruction the kernel can issue
// from these tiles (AMD: MFMA m16n16k16 on CDNA's 64-lane wavefronts, WMMA
// m16n16k16 on RDNA's 32-lane ones; f16 or bf16 into f32), an f16 or bf16
// multiply-add computes on it instead: the same 256 threads, tiles and
// copies, the wavefronts as 2 rows of 2 (wave64) or 4 (wave32), each
// computing 2 x 2 blocks of 16 x 16 (1 x 1 for grids smaller than the chip)
// with one instruction per block and K step of 16, its fragments read from
// the shared tiles in the instruction's lane layout, the epilogue applied to
// each accumulator element.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUCONTRACTIONKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kThreadRows = 16;
constexpr int64_t kThreadCols = 16;
// A wave matrix instruction's block and K.
constexpr int64_t kMatrixBlock = 16;
// Rows of wavefronts in a workgroup.
constexpr int64_t kMatrixWaveRows = 2;

// The m16n16k16 wave matrix instruction multiplying `operand` into f32 that
// `target` has (MFMA in 64-lane subgroups, WMMA in 32-lane ones); null if
// none (or `operand` is null).
const GpuMatrixInstruction *waveMatrixInstruction(const GpuTarget &target,
                                                  Type operand) {
  if (!operand)
    return nullptr;
  using Kind = GpuMatrixInstruction::Kind;
  StringRef name = operand.isBF16() ? "bf16" : "f16";
  for (const GpuMatrixInstruction &instruction : target.MatrixInstructions) {
    Kind kind = instruction.InstructionKind;
    int64_t lanes = kind == Kind::Mfma                           ? 64
                    : kind == Kind::Wmma || kind == Kind::WmmaR4 ? 32
                                                                 : 0;
    if (lanes == target.SubgroupSize && instruction.M == kMatrixBlock &&
        instruction.N == kMatrixBlock && instruction.K == kMatrixBlock &&
        instruction.Operand == name && instruction.Accumulator == "f32")
      return &instruction;
  }
  return nullptr;
}

// Where a lane's fragments lie in a 16 x 16 block, by instruction (the
// ISA manuals' operand layouts). Lane l's A fragment is `OperandElements`
// consecutive k of row l % 16, its B fragment as many of column l % 16;
// its accumulator holds `AccElements` rows of column l % 16.
struct MatrixLayout {
  int64_t Lanes;
  int64_t OperandElements, AccElements;
  // RDNA3 repeats each operand in both half-waves (all of K from k = 0);
  // MFMA and RDNA4 give each group of 16 lanes its own run of k, from
  // k = (l / 16) * OperandElements.
  bool RepeatedOperands;
  // RDNA3 interleaves its accumulator's rows between the half-waves
  // (element v at row 2 v + l / 16); the others give each group of 16
  // lanes consecutive rows ((l / 16) * AccElements + v).
  bool InterleavedRows;

  static MatrixLayout of(const GpuMatrixInstruction &instruction) {
    using Kind = GpuMatrixInstruction::Kind;
    if (instruction.InstructionKind == Kind::Mfma)
      return {64, 4, 4, false, false};
    if (instruction.InstructionKind == Kind::Wmma)
      return {32, 16, 8, true, true};
    return {32, 8, 8, false, false};
  }
};

// Builds the kernel of one matched contraction in place of its ops.
class KernelBuilder {
public:
  KernelBuilder(func::FuncOp func, Contraction c, SymbolTable &symbols,
                const GpuTarget &target)
      : Func(func), C(c), Symbols(symbols), B(func.getContext()),
        Loc(c.Op.getLoc()) {
    // Not for a matrix-vector product, whose blocks would be mostly empty.
    if (c.M >= kMatrixBlock && c.N >= kMatrixBlock)
      Matrix = waveMatrixInstruction(target, halfMultiplyAccumulateType(c.Op));
    if (Matrix) {
      // 2 x 2 blocks a wavefront (64 x 64 tiles in wave64, 64 x 128 in
      // wave32), 1 x 1 where that leaves processors idle; K in the
      // instruction's steps.
      Layout = MatrixLayout::of(*Matrix);
      WaveCols = kThreadRows * kThreadCols / Layout.Lanes / kMatrixWaveRows;
      auto tiles = [&](int64_t blocks) {
        return c.Batch *
               llvm::divideCeilSigned(c.M,
                                      kMatrixWaveRows * blocks * kMatrixBlock) *
               llvm::divideCeilSigned(c.N, WaveCols * blocks * kMatrixBlock);
      };
      WaveBlocks = tiles(2) < target.ProcessorCount ? 1 : 2;
      BM = kMatrixWaveRows * WaveBlocks * kMatrixBlock;
      BN = WaveCols * WaveBlocks * kMatrixBlock;
      TM = TN = 1;
      BK = kMatrixBlock;
      return;
    }
    // Outputs per thread: up to 8 x 8, fewer for small outputs so that
    // threads are not left idle on a 4-row matmul, and fewer again (down
    // to 2 x 2) while the grid would leave processors idle (fewer
    // workgroups than the chip has).
    TM = std::clamp<int64_t>(
        static_cast<int64_t>(llvm::PowerOf2Ceil(c.M)) / kThreadRows, 1, 8);
    TN = std::clamp<int64_t>(
        static_cast<int64_t>(llvm::PowerOf2Ceil(c.N)) / kThreadCols, 1, 8);
    auto workgroups = [&] {
      return c.Batch * llvm::divideCeilSigned(c.M, TM * kThreadRows) *
             llvm::divideCeilSigned(c.N, TN * kThreadCols);
    };
    while (workgroups() < target.ProcessorCount) {
      if (TM > 2 && TM >= TN)
        TM /= 2;
      else if (TN > 2)
        TN /= 2;
      else if (TM > 2)
        TM /= 2;
      else
        break;
    }
    BM = TM * kThreadRows;
    BN = TN * kThreadCols;
    // Deeper K steps for smaller tiles: as many elements per thread to copy
    // (4 of each operand), half the barriers per multiply-add.
    BK = std::min(c.K,
                  std::clamp<int64_t>(
                      4 * kThreadRows * kThreadCols / std::max(BM, BN), 8, 16));
  }

  void build();

private:
  // The accumulators the K loop carries: TM x TN scalars, or WaveBlocks^2
  // fragments.
  int64_t accumulators() const {
    return Matrix ? WaveBlocks * WaveBlocks : TM * TN;
  }
  // This lane's position in its wavefront's blocks, for Matrix: the
  // wavefront's first row and column in the tile, the lane's row (A) or
  // column (B, C) in a block, and its group of 16 lanes.
  struct LanePosition {
    Value WaveRow, WaveCol, InBlock, Group;
  };
  // The row in its block of element `v` of a lane's accumulator.
  Value accumulatorRow(const LanePosition &p, int64_t v);
  LanePosition lanePosition(Value tid);
  // One K step on the matrix instruction: every block's fragments from the
  // shared tiles, multiplied into `acc`.
  SmallVector<Value> matrixStep(const LanePosition &p, Value tileA, Value tileB,
                                ValueRange acc);
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
  // `compute()` where `inBounds` (if set) holds, else zero of `type`.
  Value guarded(Value inBounds, Type type, function_ref<Value()> compute);
  // The tile of A (`isA`) or B a workgroup copies each K step: BK x cols
  // elements, `Share` of them per thread.
  struct TileCopy {
    bool IsA;
    int64_t Cols, Elements, Share;
    bool KInnermost;
  };
  TileCopy tileCopy(bool isA, int64_t cols);
  // Element `e` of tile `t`: its (k, column) in the tile.
  std::pair<Value, Value> tilePosition(const TileCopy &t, Value e);
  // This thread's share of tile `t` at k0 / col0, read from global memory
  // into registers (zero outside the operand).
  SmallVector<Value> loadTile(const TileCopy &t, Value batch, Value k0,
                              Value col0, Value tid);
  // Stores `values` (from loadTile) into shared memory `tile`.
  void storeTile(const TileCopy &t, Value tile, ValueRange values, Value tid);

  func::FuncOp Func;
  Contraction C;
  SymbolTable &Symbols;
  OpBuilder B;
  Location Loc;
  int64_t TM, TN, BM, BN, BK;
  const GpuMatrixInstruction *Matrix = nullptr;
  MatrixLayout Layout = {};
  int64_t WaveCols = 0, WaveBlocks = 0;
};

KernelBuilder::LanePosition KernelBuilder::lanePosition(Value tid) {
  Value wave = arith::DivUIOp::create(B, Loc, tid, idx(Layout.Lanes));
  Value lane = arith::RemUIOp::create(B, Loc, tid, idx(Layout.Lanes));
  int64_t waveTile = WaveBlocks * kMatrixBlock;
  LanePosition p;
  p.WaveRow =
      mul(arith::DivUIOp::create(B, Loc, wave, idx(WaveCols)), waveTile);
  p.WaveCol =
      mul(arith::RemUIOp::create(B, Loc, wave, idx(WaveCols)), waveTile);
  p.InBlock = arith::RemUIOp::create(B, Loc, lane, idx(kMatrixBlock));
  p.Group = arith::DivUIOp::create(B, Loc, lane, idx(kMatrixBlock));
  return p;
}

Value KernelBuilder::accumulatorRow(const LanePosition &p, int64_t v) {
  if (Layout.InterleavedRows)
    return add(idx(2 * v), p.Group);
  return add(mul(p.Group, Layout.AccElements), idx(v));
}

SmallVector<Value> KernelBuilder::matrixStep(const LanePosition &p, Value tileA,
                                             Value tileB, ValueRange acc) {
  // Consecutive k of one row of A (the tile is k-major) or of one column
  // of B.
  Value k0 =
      Layout.RepeatedOperands ? idx(0) : mul(p.Group, Layout.OperandElements);
  auto fragment = [&](Value tile, Value at) {
    SmallVector<Value> values;
    for (int64_t i = 0; i < Layout.OperandElements; ++i)
      values.push_back(memref::LoadOp::create(B, Loc, tile,
                                              ValueRange{add(k0, idx(i)), at}));
    Type element = values.front().getType();
    return vector::FromElementsOp::create(
        B, Loc, VectorType::get({Layout.OperandElements}, element), values);
  };
  SmallVector<Value> as, bs;
  for (int64_t i = 0; i < WaveBlocks; ++i) {
    as.push_back(
        fragment(tileA, add(p.WaveRow, add(idx(i * kMatrixBlock), p.InBlock))));
    bs.push_back(
        fragment(tileB, add(p.WaveCol, add(idx(i * kMatrixBlock), p.InBlock))));
  }
  SmallVector<Value> result;
  constexpr uint32_t block = kMatrixBlock;
  for (int64_t i = 0; i < WaveBlocks; ++i)
    for (int64_t j = 0; j < WaveBlocks; ++j) {
      Value c = acc[i * WaveBlocks + j];
      if (Matrix->InstructionKind == GpuMatrixInstruction::Kind::Mfma)
        result.push_back(amdgpu::MFMAOp::create(B, Loc, c.getType(), block,
                                                block, block, /*blocks=*/1u,
                                                as[i], bs[j], c));
      else
        result.push_back(amdgpu::WMMAOp::create(B, Loc, c.getType(), block,
                                                block, block, as[i], bs[j], c));
    }
  return result;
}

Value KernelBuilder::guarded(Value inBounds, Type type,
                             function_ref<Value()> compute) {
  return zeroUnless(B, Loc, inBounds, type, compute);
}

KernelBuilder::TileCopy KernelBuilder::tileCopy(bool isA, int64_t cols) {
  int64_t threads = kThreadRows * kThreadCols;
  TileCopy t;
  t.IsA = isA;
  t.Cols = cols;
  t.Elements = BK * cols;
  t.Share = llvm::divideCeilSigned(t.Elements, threads);
  // Consecutive threads take consecutive elements of the operand's
  // innermost dimension, so global reads are coalesced.
  t.KInnermost =
      isInnermostIn(C, C.Op.getDpsInputOperand(isA ? 0 : 1), C.KDims);
  return t;
}

std::pair<Value, Value> KernelBuilder::tilePosition(const TileCopy &t,
                                                    Value e) {
  if (t.KInnermost)
    return {arith::RemUIOp::create(B, Loc, e, idx(BK)),
            arith::DivUIOp::create(B, Loc, e, idx(BK))};
  return {arith::DivUIOp::create(B, Loc, e, idx(t.Cols)),
          arith::RemUIOp::create(B, Loc, e, idx(t.Cols))};
}

SmallVector<Value> KernelBuilder::loadTile(const TileCopy &t, Value batch,
                                           Value k0, Value col0, Value tid) {
  Value source = t.IsA ? C.Lhs : C.Rhs;
  OpOperand *operand = C.Op.getDpsInputOperand(t.IsA ? 0 : 1);
  int64_t colSize = t.IsA ? C.M : C.N;
  Type element = cast<MemRefType>(source.getType()).getElementType();
  int64_t threads = kThreadRows * kThreadCols;
  SmallVector<Value> values;
  for (int64_t i = 0; i < t.Share; ++i) {
    Value e = add(tid, idx(i * threads));
    auto [kk, cc] = tilePosition(t, e);
    Value k = add(k0, kk), col = add(col0, cc);
    Value inBounds;
    if (t.Elements % threads != 0 && (i + 1) * threads > t.Elements)
      inBounds = lessThan(e, t.Elements);
    if (C.K % BK != 0)
      inBounds = both(inBounds, lessThan(k, C.K));
    if (colSize % t.Cols != 0)
      inBounds = both(inBounds, lessThan(col, colSize));
    // Out of range, the loops may address outside the operand: nothing is
    // computed there.
    values.push_back(guarded(inBounds, element, [&] {
      SmallVector<Value> loops =
          t.IsA ? contractionLoops(B, Loc, C, batch, col, nullptr, k)
                : contractionLoops(B, Loc, C, batch, nullptr, col, k);
      SmallVector<Value> indices =
          applyToLoops(B, Loc, C.Op.getMatchingIndexingMap(operand), loops);
      if (!t.IsA)
        return Value(memref::LoadOp::create(B, Loc, source, indices));
      // A padded input reads zero outside its binding.
      LhsAccess access = lhsAccess(B, Loc, C, indices);
      return guarded(access.InBounds, element, [&] {
        return memref::LoadOp::create(B, Loc, source, access.Indices);
      });
    }));
  }
  return values;
}

void KernelBuilder::storeTile(const TileCopy &t, Value tile, ValueRange values,
                              Value tid) {
  int64_t threads = kThreadRows * kThreadCols;
  for (auto [i, value] : llvm::enumerate(values)) {
    Value e = add(tid, idx(i * threads));
    auto [kk, cc] = tilePosition(t, e);
    if (t.Elements % threads == 0 ||
        static_cast<int64_t>(i + 1) * threads <= t.Elements) {
      memref::StoreOp::create(B, Loc, value, tile, ValueRange{kk, cc});
      continue;
    }
    auto branch = scf::IfOp::create(B, Loc, lessThan(e, t.Elements));
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPoint(branch.thenYield());
    memref::StoreOp::create(B, Loc, value, tile, ValueRange{kk, cc});
  }
}

void KernelBuilder::build() {
  // Before the store: everything the payloads capture is defined by then.
  B.setInsertionPoint(C.Store);
  // One shared stage, the next K step prefetched into registers.
  SmallVector<NamedAttribute> config = {
      B.getNamedAttr("workgroup_tile", B.getDenseI64ArrayAttr({BM, BN, BK})),
      B.getNamedAttr("stages", B.getI64IntegerAttr(1))};
  if (Matrix) {
    config.push_back(B.getNamedAttr(
        "wave_tile", B.getDenseI64ArrayAttr({WaveBlocks * kMatrixBlock,
                                             WaveBlocks * kMatrixBlock})));
    config.push_back(
        B.getNamedAttr("instruction", B.getStringAttr(Matrix->str())));
  } else {
    config.push_back(
        B.getNamedAttr("thread_tile", B.getDenseI64ArrayAttr({TM, TN})));
  }
  if (C.ImplicitGemm)
    config.push_back(B.getNamedAttr("implicit_gemm",
                                    B.getDenseI64ArrayAttr({C.M, C.N, C.K})));
  setLoweringConfig(Func, Matrix ? "matrix_contraction" : "simt_contraction",
                    config);
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
  // Consecutive threads take consecutive columns, so a warp's stores (and
  // epilogue loads) are coalesced where C's innermost dimension is an n
  // loop (matmuls, channels-last convolutions). Where it is an m loop
  // (channels-first convolutions: out[n, f, oh, ow]) they take consecutive
  // rows instead; with columns, a warp wrote 16 channel planes apart.
  bool rowsInnermost = isInnermostIn(C, C.Op.getDpsInitOperand(0), C.MDims);
  Value threadRow =
      rowsInnermost
          ? Value(arith::RemUIOp::create(B, Loc, tid, idx(kThreadRows)))
          : Value(arith::DivUIOp::create(B, Loc, tid, idx(kThreadCols)));
  Value threadCol =
      rowsInnermost
          ? Value(arith::DivUIOp::create(B, Loc, tid, idx(kThreadRows)))
          : Value(arith::RemUIOp::create(B, Loc, tid, idx(kThreadCols)));
  Value myRow0 = add(row0, mul(threadRow, TM));
  Value myCol0 = add(col0, mul(threadCol, TN));

  // The output at row `row` and column `col` of the problem: its indices
  // and whether it exists.
  AffineMap outMap = C.Op.getIndexingMapsArray().back();
  auto indicesAt = [&](Value row, Value col) {
    return applyToLoops(B, Loc, outMap,
                        contractionLoops(B, Loc, C, batch, row, col, nullptr));
  };
  auto inBoundsAt = [&](Value row, Value col) {
    Value inBounds;
    if (C.M % BM != 0)
      inBounds = lessThan(row, C.M);
    if (C.N % BN != 0)
      inBounds = both(inBounds, lessThan(col, C.N));
    return inBounds;
  };
  // Output (i, j) of this thread, or with Matrix, element i of block j's
  // fragment of this lane (i: row accumulatorRow(i) of the block; j: block
  // row j / WaveBlocks, column j % WaveBlocks of the wavefront's).
  std::optional<LanePosition> lane;
  if (Matrix)
    lane = lanePosition(tid);
  auto rowOf = [&](int64_t i, int64_t j) {
    if (!lane)
      return add(myRow0, idx(i));
    return add(
        add(row0, lane->WaveRow),
        add(idx((j / WaveBlocks) * kMatrixBlock), accumulatorRow(*lane, i)));
  };
  auto colOf = [&](int64_t i, int64_t j) {
    if (!lane)
      return add(myCol0, idx(j));
    return add(add(col0, lane->WaveCol),
               add(idx((j % WaveBlocks) * kMatrixBlock), lane->InBlock));
  };
  auto outputIndices = [&](int64_t i, int64_t j) {
    return indicesAt(rowOf(i, j), colOf(i, j));
  };
  auto outputInBounds = [&](int64_t i, int64_t j) {
    return inBoundsAt(rowOf(i, j), colOf(i, j));
  };
  // The outputs this thread holds, as (i, j) above.
  int64_t rows = Matrix ? Layout.AccElements : TM;
  int64_t cols = Matrix ? accumulators() : TN;

  Type accType = C.Op.getDpsInitOperand(0)->get().getType();
  accType = cast<ShapedType>(accType).getElementType();
  SmallVector<Value> acc;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      if (Value value = uniformInit(C)) {
        acc.push_back(value);
        continue;
      }
      acc.push_back(guarded(outputInBounds(i, j), accType, [&] {
        return initialValue(B, Loc, C, outputIndices(i, j));
      }));
    }
  // A fragment holds its rows of one block: acc[i * cols + j] is element
  // i of fragment j.
  if (Matrix) {
    SmallVector<Value> fragments;
    auto fragmentType = VectorType::get({rows}, accType);
    for (int64_t j = 0; j < cols; ++j) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < rows; ++i)
        elements.push_back(acc[i * cols + j]);
      fragments.push_back(
          vector::FromElementsOp::create(B, Loc, fragmentType, elements));
    }
    acc = fragments;
  }

  // Software pipelining: each K step first stores the tiles loaded during
  // the previous one, then issues the next step's global loads, whose
  // latency the math on this step's tiles hides. The last step reloads its
  // own tiles (kept in bounds, never stored).
  TileCopy copyA = tileCopy(/*isA=*/true, BM);
  TileCopy copyB = tileCopy(/*isA=*/false, BN);
  SmallVector<Value> iterArgs(acc);
  llvm::append_range(iterArgs, loadTile(copyA, batch, idx(0), row0, tid));
  llvm::append_range(iterArgs, loadTile(copyB, batch, idx(0), col0, tid));
  int64_t lastK0 = (llvm::divideCeilSigned(C.K, BK) - 1) * BK;
  auto kLoop = scf::ForOp::create(B, Loc, idx(0), idx(C.K), idx(BK), iterArgs);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(kLoop.getBody());
    Value k0 = kLoop.getInductionVar();
    int64_t numAcc = accumulators();
    ValueRange loadedA = kLoop.getRegionIterArgs().slice(numAcc, copyA.Share);
    ValueRange loadedB =
        kLoop.getRegionIterArgs().slice(numAcc + copyA.Share, copyB.Share);
    storeTile(copyA, tileA, loadedA, tid);
    storeTile(copyB, tileB, loadedB, tid);
    gpu::BarrierOp::create(B, Loc);
    Value nextK0 =
        arith::MinUIOp::create(B, Loc, add(k0, idx(BK)), idx(lastK0));
    SmallVector<Value> nextA = loadTile(copyA, batch, nextK0, row0, tid);
    SmallVector<Value> nextB = loadTile(copyB, batch, nextK0, col0, tid);
    SmallVector<Value> values(kLoop.getRegionIterArgs().take_front(numAcc));
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
    if (Matrix)
      values = matrixStep(*lane, tileA, tileB, values);
    for (int64_t k = 0; !Matrix && k < BK; ++k) {
      SmallVector<Value> as = loadRow(tileA, k, aOffset, TM);
      SmallVector<Value> bs = loadRow(tileB, k, bOffset, TN);
      for (int64_t i = 0; i < TM; ++i)
        for (int64_t j = 0; j < TN; ++j)
          values[i * TN + j] =
              applyRootPayload(B, C, {as[i], bs[j], values[i * TN + j]});
    }
    // The next iteration overwrites the tiles.
    gpu::BarrierOp::create(B, Loc);
    llvm::append_range(values, nextA);
    llvm::append_range(values, nextB);
    scf::YieldOp::create(B, Loc, values);
  }

  // Epilogue and stores, predicated at the edges.
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      Value inBounds = outputInBounds(i, j);
      Value result =
          Matrix
              ? Value(vector::ExtractOp::create(B, Loc, kLoop.getResult(j), i))
              : kLoop.getResult(i * TN + j);
      auto store = [&]() {
        SmallVector<Value> outIndices = outputIndices(i, j);
        memref::StoreOp::create(B, Loc,
                                applyEpilogue(B, Loc, C, result, outIndices),
                                C.Out, storeIndices(C, outIndices));
      };
      if (!inBounds) {
        store();
        continue;
      }
      auto branch = scf::IfOp::create(B, Loc, inBounds);
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPoint(branch.thenYield());
      store();
    }
}

} // namespace

LogicalResult buildContractionKernel(func::FuncOp func, SymbolTable &symbols,
                                     const GpuTarget &target) {
  FailureOr<Contraction> c = matchContraction(func);
  if (failed(c))
    return failure();
  KernelBuilder builder(func, *c, symbols, target);
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
    FailureOr<GpuTarget> target = getGpuTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    // Dispatches with dynamic shapes too: the pipelined GEMM kernels take a
    // dynamic outermost m loop (issue 19); the others match static ones.
    buildKernelsOfDispatches(
        getOperation(),
        [&](func::FuncOp func, SymbolTable &symbols) {
          if (succeeded(buildMatvecKernel(func, symbols, *target)) ||
              succeeded(
                  buildMmaContractionKernel(func, symbols, *target, allowTf32)))
            return success();
          return buildContractionKernel(func, symbols, *target);
        },
        /*dynamicToo=*/true);
  }
};

} // namespace
} // namespace kiln
