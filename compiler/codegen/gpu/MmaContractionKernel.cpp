//===- MmaContractionKernel.cpp - Pipelined GEMM kernels ------------------===//
//
// f16 x f16 -> f32 contractions and convolutions (implicit GEMMs: see
// ContractionMatch.h), and bf16 x bf16 -> f32 ones where wgmma is, run on
// the tensor cores, with one of two instructions; so do f32 x f32 -> f32
// ones when the user allows tf32 (--precision=tf32), on mma.sync m16n8k8
// with K steps of 16 (the same bytes as f16's 32), A's fragments by
// ldmatrix, B's by two shared loads a thread, each element rounded to
// tf32. IEEE f32 matmuls of 1024 rows or more run on wgmma where the chip
// has it, as 3xTF32 (chooseSplitTf32Tile, MmaTile::wgmmaTf32): each
// operand split into its tf32 part and what that leaves, three products a
// k8, each product within about 2^-20 of itself, each step's sums added in
// f32 (the tensor cores' own additions drift over long sums). Other IEEE
// f32 ones (of 32 rows and columns at least) run the same
// pipeline into the CUDA cores' FMAs (kFmaTiles: each thread 4 x 4 to 8 x 8
// outputs from 16-byte shared loads), in place of the SIMT kernel's
// register-staged single stage, whose loads a small matmul waited for at
// every K step; where the grid leaves a processor fewer than 256 threads,
// the small tiles are sliced along K (kSlicedFmaTiles: 2 or 4 groups of
// threads over parts of each K step, their sums added in the epilogue):
//
// mma.sync m16n8k16 (sm_80 and later), a warp at a time:
//   workgroup: a BM x BN output tile, 128 x 128 with 8 warps as 2 x 4 (each
//     warp 64 x 32), or 128 x 64 with 4 warps as 2 x 2 (each 64 x 32), or
//     64 x 64 with 4 warps as 2 x 2 (each 32 x 32) when N or the number of
//     workgroups asks for smaller tiles; a warp's tile is
//     16 x 8 mma tiles, one accumulator fragment of 2x2 f32 per thread each
//   K in steps of 32 through S static shared-memory stages (2 for 128 x
//     128, 3 for 128 x 64, 4 for 64 x 64)
//   fragments come from shared memory through ldmatrix (A: x4, B: x2
//     transposed, as B is stored K x N); rows are padded by 16 bytes so the
//     8 row addresses of an ldmatrix fall in different banks
//
// wgmma (sm_90a), a warpgroup (4 warps) at a time, where the chip has it:
//   the same tiles, a warpgroup per 64 rows (128 x 128 and 128 x 64: 8
//     warps, 64 x 64: 4), each issuing one m64nBNk16 per 16 of K that reads
//     A and B from shared memory itself (Wgmma.h: descriptors, swizzle)
//   K in steps of 64 (one 128-byte row) through S stages in dynamic shared
//     memory (beyond the 48 KiB a kernel has statically): 5 for 128 x 128,
//     4 for the others, no more than K's steps + 2 and at least 3; a
//     step's wgmmas stay in flight until the end of the next step, so the
//     copies go S - 2 steps ahead. A short K loop (3 steps, or 4 where
//     three workgroups a processor still fit) has a stage for each step
//     instead, all copied before the loop
//
// Both: while one stage is read, the tiles S - 1 (mma.sync) or S - 2
// (wgmma) steps ahead are copied into another with cp.async (16 bytes per
// copy), so global loads overlap the math, one barrier a step; the parts
// of the tiles past M, N or K (the last tiles of a problem they do not
// divide) are zero-filled (copies of 0 source bytes) and their outputs not
// stored. Accumulators start at zero
// (or a fill's value); the epilogue stages them through shared memory (16
// rows at a time for mma.sync, the whole tile in wgmma's stages) so that
// consecutive threads add the init, apply the epilogues and store
// consecutive output columns; an FMA tile's threads hold runs of 4
// columns already and finish their own outputs (storeFmaOutputs; K slices
// exchange their partial sums through the A stages first). A warp's part
// of a
// wgmma accumulator has mma.sync's fragment layout, so the epilogue is one.
//
// A convolution's A rows are gathered from its input: each 16-byte copy is
// 8 consecutive input channels (f16) of one window position, when the
// input channels come in multiples of 8; 8- or 4-byte copies of 4 or 2
// (kiln-pad-conv-channels pads a network's first convolution from 3
// channels to 4). Otherwise (an odd channel count, an A stored
// k-outermost) A is gathered an element at a time into registers, zero
// past M and K, and stored into the next stage after the current step's
// math is issued. B must be
// N-innermost with N a multiple of 8; anything else (other types, a
// payload that is not a multiply-add) is left to the SIMT kernel.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/IndexArithmetic.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/codegen/gpu/MmaSync.h"
#include "compiler/codegen/gpu/Wgmma.h"
#include "compiler/dispatch/Attention.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kBK = 32;
// f32 padding per row of the epilogue's staging buffer: 16 bytes; 32 for
// wgmma's, whose rows are then 8 banks apart, so that the half warp
// storing a fragment's 8-byte pairs (4 rows of 8 columns) hits each bank
// once (16 bytes apart, two rows shared banks: 2 wavefronts a store).
constexpr int64_t kStagingPad = 4;
constexpr int64_t kWgmmaStagingPad = 8;
// A wgmmaTf32 tile's plain B stages pad each row of f32 by 16 bytes: the
// transposing threads of a warp read 32 rows at one column, whose 16-byte
// loads then fall in different banks for each 8 of them.
constexpr int64_t kTf32RowPad = 4;
// The bits of an f32 that tf32 keeps (sign, exponent, 10 of the mantissa).
constexpr uint32_t kTf32Mask = 0xFFFFE000u;
// The swizzled buffers a wgmmaTf32 tile transposes and splits into: the
// step's, and the previous step's still read by its wgmmas.
constexpr int64_t kTf32Buffers = 2;

// A workgroup tile, the warps splitting it, its shared-memory stages and
// the K step of one stage; with Wgmma, warpgroups of four warps issue
// wgmma from swizzled stages in dynamic shared memory instead of warps
// issuing mma.sync from padded static ones.
struct MmaTile {
  int64_t BM = 0, BN = 0, WarpsM = 0, WarpsN = 0, Stages = 0, BK = 0;
  bool Wgmma = false;
  // Bytes of an operand element: 2 (f16, bf16) or 4 (f32 rounded to tf32,
  // whose K steps are half as many elements, the same bytes).
  int64_t ElemBytes = 2;
  // The CUDA cores' FMAs instead of a matrix instruction (IEEE f32): each
  // thread computes TM x TN outputs (no warps: WarpsM, WarpsN unused).
  bool Fma = false;
  int64_t TM = 0, TN = 0;
  // An FMA tile's K slices: as many groups of its threads, each computing
  // the whole tile over its own part of every K step, their partial sums
  // added in the epilogue (in slice order).
  int64_t Slices = 1;
  // The workgroups a processor must hold at once (0: no requirement); the
  // back end keeps the registers a thread uses within that share.
  int64_t WorkgroupsPerProcessor = 0;
  // wgmma on f32 operands as 3xTF32 (IEEE f32's accuracy on the tensor
  // cores: each operand split in two, each product three passes), which
  // reads tf32 K-innermost only: B is copied as stored (K x N, N
  // innermost) into plain stages, and each step every thread clears the
  // low 13 bits of its share of the stage (A in place) and writes B
  // transposed, and what clearing left of A and B, into one of
  // kTf32Buffers swizzled buffers the step's wgmmas read.
  constexpr bool wgmmaTf32() const { return Wgmma && ElemBytes == 4; }
  constexpr int64_t threads() const {
    return Fma ? Slices * sliceThreads() : WarpsM * WarpsN * kMmaWarpThreads;
  }
  // The threads of one K slice of an FMA tile.
  constexpr int64_t sliceThreads() const { return BM * BN / (TM * TN); }
  // An FMA tile's threads as rows x columns of threads.
  constexpr int64_t threadCols() const { return BN / TN; }
  constexpr int64_t tilesM() const { return BM / WarpsM / kMmaM; }
  constexpr int64_t tilesN() const { return BN / WarpsN / kMmaN; }
  // Steps whose tiles are copied ahead of the one being read: all stages
  // but that one for mma.sync (each step's math done before the next
  // step's barrier); one fewer for wgmma, whose last step's group may
  // still be reading its stage through the next step.
  constexpr int64_t lookahead() const {
    return Wgmma ? Stages - 2 : Stages - 1;
  }
  // The dynamic shared memory of a wgmma tile: its stages, plus the slack
  // that aligns them to a swizzle atom.
  constexpr int64_t stageBytesA() const { return BM * BK * ElemBytes; }
  constexpr int64_t stageBytesB() const {
    return BK * (BN + (wgmmaTf32() ? kTf32RowPad : 0)) * ElemBytes;
  }
  // A wgmmaTf32 tile's buffers: B transposed (cut to tf32, then its
  // remainders), then A's remainders, each part rows of BK.
  constexpr int64_t tf32BufferBytesB() const { return 2 * BN * BK * ElemBytes; }
  constexpr int64_t tf32BufferBytesA() const { return BM * BK * ElemBytes; }
  // Where a wgmmaTf32 tile's parts start in its dynamic shared memory: A's
  // stages, B's buffers, A's buffers, B's stages (every swizzled part
  // aligned to an atom).
  constexpr int64_t tf32BuffersBOffset() const {
    return Stages * stageBytesA();
  }
  constexpr int64_t tf32BuffersAOffset() const {
    return tf32BuffersBOffset() + kTf32Buffers * tf32BufferBytesB();
  }
  constexpr int64_t tf32StagesBOffset() const {
    return tf32BuffersAOffset() + kTf32Buffers * tf32BufferBytesA();
  }
  // The shared memory of the stages (and a wgmmaTf32 tile's buffers).
  constexpr int64_t stagesBytes() const {
    return (wgmmaTf32() ? tf32StagesBOffset() : Stages * stageBytesA()) +
           Stages * stageBytesB();
  }
  // Elements one 16-byte cp.async moves.
  constexpr int64_t copyElements() const { return 16 / ElemBytes; }
  // Rows of the epilogue's f32 staging: 16 at a time in mma.sync's static
  // shared memory; the whole tile in wgmma's dynamic shared memory, over
  // its stages (dynamicSharedBytes holds the larger of the two), so
  // each thread issues the loads of all its runs together, waiting for
  // global memory once rather than once per 16 rows.
  constexpr int64_t stagingRows() const { return Wgmma ? BM : kMmaM; }
  // The staging buffer's rows: a chunk's rows for each K slice.
  constexpr int64_t stagingBufferRows() const { return Slices * stagingRows(); }
  constexpr int64_t stagingColumns() const {
    return BN + (Wgmma ? kWgmmaStagingPad : kStagingPad);
  }
  // The epilogue's f32 staging, which wgmma's places over its stages.
  constexpr int64_t stagingBytes() const {
    return stagingBufferRows() * stagingColumns() * 4;
  }
  constexpr int64_t dynamicSharedBytes() const {
    return Wgmma ? std::max(stagesBytes(), stagingBytes()) + kWgmmaAtomBytes
                 : 0;
  }
};
// mma.sync tiles, largest first, each as many stages as fit the 48 KiB a
// kernel has without opting in to more. Shared memory: 128 x 128 with 2
// stages 46,592 bytes, 128 x 64 with 3 stages 48,896, 64 x 64 with 4
// stages 43,264 (A and B tiles plus the epilogue's staging). 128 x 64's
// warps are 64 x 32 as 128 x 128's, more mma.syncs per ldmatrix than 64 x
// 64's 32 x 32.
constexpr MmaTile kTiles[] = {{128, 128, 2, 4, 2, kBK, false},
                              {128, 64, 2, 2, 3, kBK, false},
                              {64, 64, 2, 2, 4, kBK, false}};
// mma.sync's 32 x 32 tile (4 warps of 16 x 16, 22,784 bytes of shared
// memory), for a matmul over a few dozen tokens that the tiles above (or
// wgmma's) would spread over fewer workgroups than half the processors:
// such a kernel waits on memory more than on its math, and four times the
// workgroups wait in parallel.
constexpr MmaTile kSmallTile = {32, 32, 2, 2, 4, kBK, false};
// An mma.sync tile for tf32: the same bytes, K steps of half as many
// elements.
constexpr MmaTile tf32Tile(MmaTile tile) {
  tile.ElemBytes = 4;
  tile.BK /= 2;
  return tile;
}
// wgmma tiles: a warpgroup per 64 rows, each warp 16 rows of the whole
// width (an m64nBN instruction per k16); K steps of one 128-byte swizzled
// row. Dynamic shared memory: 64 x 128 and 128 x 64 with 4 stages 97 KiB
// (two workgroups a multiprocessor), 128 x 128 with 5 161 KiB, 64 x 64
// 65 KiB. chooseTile takes the first of equals, in this order (one
// warpgroup before two of the same width, wide before narrow) unless
// wgmmaTileOrder puts the two-warpgroup tiles first. On ResNet50 f16
// batch 32 (ncu, each layer forced to each tile), 64 x 128 beat 128 x 128
// and 128 x 64 on most layers where N allows it (14x14 1x1 to 1024
// channels: 21.4 -> 19.1 us, 7x7 3x3: 38.7 -> 35.3), and 64 x 64 beat
// 128 x 64 on 64 columns (56x56 3x3: 33.9 -> 32.7): workgroups of one
// warpgroup wait at their own barriers, not at another's, an m64n128
// reads fewer shared-memory bytes per multiply than an m64n64, and the
// smaller steps of the grid leave the processors evener.
constexpr MmaTile kWgmmaTiles[] = {{64, 128, 4, 1, 4, kWgmmaRowElements, true},
                                   {128, 128, 8, 1, 5, kWgmmaRowElements, true},
                                   {64, 64, 4, 1, 4, kWgmmaRowElements, true},
                                   {128, 64, 8, 1, 4, kWgmmaRowElements, true}};
// The most stages a wgmma kernel takes where shared memory allows them
// (a grid of at most one workgroup a processor: see where stages are
// chosen).
constexpr int64_t kMaxWgmmaStages = 8;
// The K steps from which such a grid takes them.
constexpr int64_t kDeepSteps = 32;
// The K steps up to which a wgmma tile has a stage for each, and up to
// which it does where three workgroups a processor still fit.
constexpr int64_t kAllAheadSteps = 3;
constexpr int64_t kAllAheadStepsWithRoom = 4;
// f32 tiles on the CUDA cores' FMAs, K steps of 16 (64-byte rows, as
// tf32's), as many stages as fit 48 KiB with the epilogue's 16 staged rows
// (128 x 64 and 64 x 64 take the bytes of the mma.sync tiles of their
// size). A thread's outputs are TM rows by TN columns, the columns in runs
// of kFmaVector: 8 x 8 (two runs half the tile apart) for 128 x 128, 8 x 4
// for 128 x 64, 4 x 4 for the smaller tiles, whose threads are fewer (256,
// 128, 64) so that each still reads 4 values of A and of B from shared
// memory for every 16 of its FMAs, not 2 for 4: a small matmul (a
// transformer's projections over 64 to 200 tokens) is spread over more
// workgroups without each thread's work shrinking.
constexpr int64_t kFmaVector = 4;
constexpr MmaTile fmaTile(int64_t bm, int64_t bn, int64_t tm, int64_t tn,
                          int64_t stages) {
  MmaTile tile;
  tile.BM = bm;
  tile.BN = bn;
  tile.Stages = stages;
  tile.BK = 16;
  tile.ElemBytes = 4;
  tile.Fma = true;
  tile.TM = tm;
  tile.TN = tn;
  return tile;
}
// The FMA tile large grids take (chooseFmaTile).
constexpr MmaTile kWideFmaTile = fmaTile(128, 64, 8, 4, 3);
// The unsliced tile a convolution weighs beside the sliced ones.
constexpr MmaTile kSquareFmaTile = fmaTile(64, 64, 4, 4, 4);
constexpr MmaTile kFmaTiles[] = {fmaTile(128, 128, 8, 8, 2), kWideFmaTile,
                                 kSquareFmaTile, fmaTile(64, 32, 4, 4, 4),
                                 fmaTile(32, 32, 4, 4, 4)};
// The small FMA tiles sliced along K into 256 threads: a grid of fewer
// workgroups than processors times 256 threads (a transformer's projections
// over 64 to 200 tokens, 84 workgroups of 64 threads for the ViT's) leaves
// each processor a few warps, too few to hide the latency of shared and
// global loads; slices give a tile 2 or 4 times the warps over the same
// outputs. K steps of 32, 16 or 8 a slice.
constexpr MmaTile slicedFmaTile(MmaTile tile, int64_t slices, int64_t stages) {
  tile.Slices = slices;
  tile.BK = 32;
  tile.Stages = stages;
  return tile;
}
constexpr int64_t kSlicedThreads = 256;
constexpr MmaTile kSlicedFmaTiles[] = {
    slicedFmaTile(fmaTile(64, 32, 4, 4, 0), 2, 3),
    slicedFmaTile(fmaTile(32, 32, 4, 4, 0), 4, 4)};
constexpr bool fitsFmaTile(const MmaTile &t) {
  int64_t sharedBytes =
      t.Stages *
          (t.BM * (t.BK + t.copyElements()) + t.BK * (t.BN + kMmaRowPad)) *
          t.ElemBytes +
      t.stagingBufferRows() * (t.BN + kStagingPad) * 4;
  int64_t piecesA = t.BM * t.BK / t.copyElements();
  int64_t piecesB = t.BK * t.BN / t.copyElements();
  // Within 48 KiB; whole copies per thread; whole K steps per thread
  // for a gathered A (loadA); a thread's rows inside one staged chunk;
  // quarter warps (8 threads) on one row of threads, so their A loads
  // are one address and their B loads consecutive.
  return sharedBytes <= 48 * 1024 && piecesA % t.threads() == 0 &&
         piecesB % t.threads() == 0 && t.threads() % t.BK == 0 &&
         kMmaM % t.TM == 0 && t.TN % kFmaVector == 0 &&
         t.threadCols() % 8 == 0 && t.BK % (t.Slices * kFmaVector) == 0;
}
static_assert(std::all_of(std::begin(kFmaTiles), std::end(kFmaTiles),
                          fitsFmaTile));
static_assert(std::all_of(std::begin(kSlicedFmaTiles),
                          std::end(kSlicedFmaTiles), fitsFmaTile));

// A cp.async moves 16 bytes, `elements` consecutive elements: of A along k,
// of B along n. They are consecutive in memory if the operand's innermost
// index is the group's innermost loop and a copy never crosses a run of it
// (which also keeps every copy 16-byte aligned).
bool isCopyable(const Contraction &c, unsigned input, ArrayRef<int64_t> dims,
                int64_t elements) {
  linalg::LinalgOp op = c.Op;
  return isInnermostIn(c, op.getDpsInputOperand(input), dims) &&
         c.Ranges[dims.back()] % elements == 0;
}

// The elements of each cp.async of A (16, 8 or 4 bytes of them: the
// longest that isCopyable), or 0 where A must be gathered.
int64_t copyElementsOfA(const Contraction &c, const MmaTile &tile) {
  for (int64_t elements = tile.copyElements(); elements * tile.ElemBytes >= 4;
       elements /= 2)
    if (isCopyable(c, 0, c.KDims, elements))
      return elements;
  return 0;
}

// Whether C's innermost index is the innermost n loop, in runs of `run`
// (kCopyElements, or an FMA thread's kFmaVector), and its layout the
// identity: `run` consecutive columns are consecutive in memory, aligned
// to the run (16 bytes for kCopyElements 2-byte elements).
bool hasColumnRuns(const Contraction &c, int64_t run = kCopyElements) {
  auto type = cast<MemRefType>(c.Out.getType());
  return isRowMajorPastOutermost(type) &&
         type.getElementType().isIntOrFloat() &&
         type.getElementTypeBitWidth() % 8 == 0 &&
         isInnermostIn(c, linalg::LinalgOp(c.Op).getDpsInitOperand(0),
                       c.NDims) &&
         type.getShape().back() % run == 0;
}

// The workgroups of `c` in tiles of `tile`.
int64_t workgroupCount(const Contraction &c, const MmaTile &tile) {
  return c.Batch * llvm::divideCeilSigned(c.M, tile.BM) *
         llvm::divideCeilSigned(c.N, tile.BN);
}

// The outputs the busiest processor computes when `c` runs in tiles of
// `tile`, one workgroup after another: the grid's waves times a tile.
int64_t busiestLoad(const Contraction &c, const MmaTile &tile,
                    const GpuTarget &target) {
  return llvm::divideCeilSigned(workgroupCount(c, tile),
                                target.ProcessorCount) *
         tile.BM * tile.BN;
}

// The tile for `c`, skipping a tile that would compute a third more
// columns than N has when a smaller one wastes less; none if B cannot be
// copied 16 bytes at a time (which also makes N a multiple of 8: tails of
// whole copies). wgmma tiles: the one leaving the least work on the
// busiest processor, ceil(workgroups / processors) x BM x BN, the first
// of equals in kWgmmaTiles (ResNet50's 14x14x256 3x3 convolution: 392
// tiles of 64 x 64, three a processor, rather than 196 of 128 x 64, two
// on half of them: 37 -> 30 us). Others: the largest with a workgroup for each
// processor, else the one giving the most (the smallest of equals).
std::optional<MmaTile> chooseTile(const Contraction &c, const GpuTarget &target,
                                  ArrayRef<MmaTile> tiles) {
  if (!isCopyable(c, 1, c.NDims, tiles.front().copyElements()))
    return std::nullopt;
  Value init = uniformInit(c);
  if (init && !init.getType().isF32())
    return std::nullopt;
  auto padded = [&](const MmaTile &tile) {
    return llvm::alignTo(c.N, tile.BN);
  };
  uint64_t leastPadded = padded(tiles.front());
  for (const MmaTile &tile : tiles)
    leastPadded = std::min(leastPadded, padded(tile));
  auto wasteful = [&](const MmaTile &tile) {
    return padded(tile) * 3 > static_cast<uint64_t>(c.N) * 4 &&
           padded(tile) > leastPadded;
  };
  std::optional<MmaTile> best;
  int64_t bestCount = 0;
  if (tiles.front().Wgmma) {
    // (Measured on wgmma's tiles only; mma.sync's keep the rule below.)
    std::optional<MmaTile> least;
    int64_t leastLoad = 0;
    for (const MmaTile &tile : tiles) {
      if (wasteful(tile))
        continue;
      int64_t load = busiestLoad(c, tile, target);
      if (!least || load < leastLoad) {
        least = tile;
        leastLoad = load;
      }
    }
    return least;
  }
  for (const MmaTile &tile : tiles) {
    if (wasteful(tile))
      continue;
    int64_t count = workgroupCount(c, tile);
    if (count >= target.ProcessorCount)
      return tile;
    if (count >= bestCount) {
      best = tile;
      bestCount = count;
    }
  }
  return best;
}

// The CUDA cores' tile for an IEEE f32 contraction: chooseTile's, then
// adjusted for what the grid leaves each processor. Measured on an H200
// against each other over ConvNeXt-T's MLP GEMMs at batch 32 and 4096^3
// (bench/README.md).
std::optional<MmaTile> chooseFmaTile(const Contraction &c,
                                     const GpuTarget &target) {
  std::optional<MmaTile> tile = chooseTile(c, target, kFmaTiles);
  if (!tile)
    return std::nullopt;
  int64_t processors = target.ProcessorCount;
  // A grid of fewer threads than kSlicedThreads a processor takes the
  // tile's K-sliced twin where one exists and K has two of its steps.
  if (workgroupCount(c, *tile) * tile->threads() < processors * kSlicedThreads)
    for (const MmaTile &sliced : kSlicedFmaTiles)
      if (sliced.BM == tile->BM && sliced.BN == tile->BN &&
          c.K >= 2 * sliced.BK)
        tile = sliced;
  // A smaller sliced tile where it leaves the busiest processor fewer
  // outputs: the ViT's projections over 197 tokens, 64 x 32 tiles in 192
  // or 144 workgroups, two on some processors, take 32 x 32 in 336 or
  // 252, three or two a processor of half the outputs and 224 rows
  // rather than 256 (MLP up-projection 19.9 -> 15.9 us under ncu, QKV
  // 16.3 -> 10.6, the model 467 -> 393 us); so do convolutions (ResNet-18's
  // 3x3 convolutions at batch 32, 196 workgroups of 128 x 64 or 128 x 128
  // over 132 processors, take 64 x 32 or 32 x 32 sliced: its blocks 9-10%
  // faster, MobileNetV2 f32 at batch 32 3.5%). Not over more than two waves of
  // a tile that fits N exactly either: waves then leave no processor idle and a
  // tile's own rate decides, where a sliced tile's 4 x 4 outputs a thread wait
  // on shared loads (6272 x 384 by 384 x 1536: 64 x 32 sliced 252 us, 128 x 128
  // 245; 4096^3: 4.51 ms, 3.60).
  //
  // For a convolution the unsliced 128 x 64 and 64 x 64 tiles compete too,
  // largest first, and of equal loads the larger tile wins: it reads fewer
  // operand bytes per output (ResNet-34's 3x3 convolutions at batch 32,
  // blocks alone on an H200: 28x28x128, 392 tiles of 128 x 64, 560 -> 477
  // us over 64 x 32 sliced; 14x14x256, 392 of 64 x 64, 533 -> 503; every
  // candidate leaving the busiest processor the same outputs). Not for a
  // matmul: BERT at batch 32, its QKV projection in 64 x 64 tiles, 525 ->
  // 533 us.
  bool manyWaves =
      workgroupCount(c, *tile) > 2 * processors && c.N % tile->BN == 0;
  if (!manyWaves) {
    auto fewerOutputs = [&](const MmaTile &candidate) {
      return busiestLoad(c, candidate, target) < busiestLoad(c, *tile, target);
    };
    if (c.ImplicitGemm)
      for (const MmaTile &unsliced : {kWideFmaTile, kSquareFmaTile})
        if (c.N % unsliced.BN == 0 && fewerOutputs(unsliced))
          tile = unsliced;
    for (const MmaTile &sliced : kSlicedFmaTiles)
      if (c.K >= 2 * sliced.BK && fewerOutputs(sliced))
        tile = sliced;
  }
  // 128 x 64 (8 x 4 outputs a thread) runs fastest of all where its grid
  // has four workgroups a processor or more, N is whole tiles and K a few
  // steps: 25088 x 192 by 192 x 768 228 -> 204 us (cuBLAS 211), 6272 x
  // 384 by 384 x 1536 245 -> 195 (203), 1568 x 768 by 768 x 3072 272 ->
  // 232 (217), 4096^3 3.60 -> 3.44 ms. Over fewer workgroups its last wave
  // leaves processors idle (6272 x 1536 by 1536 x 384, 294 of them: 242 ->
  // 270 us); over 6 K steps 128 x 128 computes more a prologue.
  if (c.N % kWideFmaTile.BN == 0 && c.K >= 8 * kWideFmaTile.BK &&
      workgroupCount(c, kWideFmaTile) >= 4 * processors)
    tile = kWideFmaTile;
  // A matmul's tile of 256 threads, 32 or more outputs each, runs two
  // workgroups a processor: the back end then keeps a thread to 128
  // registers (128 x 128: 129, one workgroup of 8 warps a processor, too
  // few to hide the shared loads). A 4 x 4 thread's 64 registers fit more
  // workgroups without it (asked for two, ptxas took 80). A convolution
  // only in 128 x 64 tiles over two to four waves of one workgroup a
  // processor and 8 K steps or more, where each processor's second
  // workgroup is most of its work (ResNet-34's 28x28x128 3x3, 392 tiles:
  // 546 -> 475 us, 121 registers, no spills). Elsewhere its address
  // arithmetic and epilogue spilled: over more waves or in 128 x 128 tiles
  // 36 to 52 bytes (ConvNeXt's downsampling 0 to 5% slower), MobileNetV2's
  // first 1x1 expansion at batch 1 (196 tiles, K 16) 412 bytes, the model
  // 197 -> 226 us.
  int64_t workgroups = workgroupCount(c, *tile);
  bool convolutionShare = tile->TM * tile->TN == 32 &&
                          workgroups >= 2 * processors &&
                          workgroups < 4 * processors && c.K >= 8 * tile->BK;
  if (tile->threads() >= 256 && tile->Slices <= 1 &&
      tile->TM * tile->TN >= 32 && (!c.ImplicitGemm || convolutionShare))
    tile->WorkgroupsPerProcessor = 2;
  return tile;
}

// kWgmmaTiles in the order chooseTile prefers them for `c`: as listed
// (but 128 x 64 before 64 x 64 where 64 does not divide N), or the
// two-warpgroup tiles first for a long, large GEMM (K of at least
// kLongK, at least kManyWaves workgroups a processor in 128-row tiles),
// which keeps the tensor cores busy whatever the tile and there gains
// from two warpgroups sharing each B tile in shared memory (fewer bytes
// read per multiply: the f16 4096^3 matmul's 128 x 128).
constexpr int64_t kLongK = 1024, kManyWaves = 4;
// The columns of the narrow wgmma tiles (64 x 64, 128 x 64).
constexpr int64_t kNarrowColumns = 64;
SmallVector<MmaTile> wgmmaTileOrder(const Contraction &c,
                                    const GpuTarget &target) {
  SmallVector<MmaTile> tiles(std::begin(kWgmmaTiles), std::end(kWgmmaTiles));
  // The grid in 128-row tiles, as wide as N uses.
  int64_t columns = c.N > kNarrowColumns ? 2 * kNarrowColumns : kNarrowColumns;
  int64_t workgroups = c.Batch * llvm::divideCeilSigned(c.M, 2 * kWgmmaM) *
                       llvm::divideCeilSigned(c.N, columns);
  if (c.K >= kLongK && workgroups >= kManyWaves * target.ProcessorCount) {
    std::stable_partition(tiles.begin(), tiles.end(),
                          [](const MmaTile &t) { return t.BM > kWgmmaM; });
    return tiles;
  }
  // Where 64 does not divide N, a 64-column tile is partly padding (most of
  // it for MobileNetV2's 16 to 32 channels), and 128 rows share
  // each workgroup's B copies and barriers over twice the outputs:
  // MobileNetV2 f16 batch 32's 112x112 1x1 convolution to 16 channels,
  // 32.8 us with 128 x 64 tiles, 43.7 with 64 x 64 (ncu).
  if (c.N % kNarrowColumns != 0) {
    auto narrow = [](const MmaTile &t) { return t.BN == kNarrowColumns; };
    auto first = llvm::find_if(tiles, narrow);
    std::stable_partition(first, tiles.end(), [&](const MmaTile &t) {
      return narrow(t) && t.BM > kWgmmaM;
    });
  }
  return tiles;
}

// IEEE f32 on wgmma as 3xTF32 (MmaTile::wgmmaTf32), in tiles of two
// warpgroups, 128 x 128 or 128 x 64: each step's rounding and transposing
// falls on 256 threads, twice the math of a one-warpgroup tile (ViT f32 at
// batch 32, measured before each step's sums were added in f32: 64 x 128
// tiles 4.95 ms, 128 x 128 3.72, the CUDA cores' FMAs 4.71; with the f32
// adds 4.36, on an H200). K steps of one 128-byte row (32 f32), as many
// stages as shared memory holds beside the buffers, 3 or 4 (a step's
// copies go S - 2 steps ahead), leaving an atom for the static shared
// memory the back end may add.
constexpr MmaTile kTf32Shapes[] = {kWgmmaTiles[1], kWgmmaTiles[3]};
constexpr int64_t kTf32RowElements = kWgmmaRowElements / 2;
constexpr int64_t kMinTf32Stages = 3, kMaxTf32Stages = 4;
// The rows (batch times M) from which an IEEE f32 matmul takes them: fewer
// leave the CUDA cores' sliced FMA tiles more workgroups (the ViT at batch
// 1, 197 rows, 0.34 -> 0.43 ms in 3xTF32 tiles; BERT at batch 32, 2048
// rows, 0.489 -> 0.431).
constexpr int64_t kMinTf32Rows = 1024;
// ...the reduction depth and columns from which it was measured as fast or
// faster (an H200, each shape alone against the FMA tiles: matmuls of K
// 96 to 3072 and N 96 to 3072 up to 37% faster, or tied, or one 3%
// slower; K of 64 15% slower, K of 24 43%; bench/README.md).
constexpr int64_t kMinTf32K = 3 * kTf32RowElements;
constexpr int64_t kMinTf32N = 64;
// A batched contraction, kiln-split-reduction's parts of a matmul split
// along K among them, only with K and N of 256 or more, as measured in the
// transformers (BERT and GPT's MLP down-projections in parts of K 256):
// 1568 x 960 by 160 in 6 parts of K 160 ran 24.5 -> 29.6 us.
constexpr int64_t kMinBatchedTf32Extent = 256;
// ...and in a grid of half the processors or more: fewer workgroups of 128
// rows leave the FMA tiles' K slices more parallelism (an H200, alone:
// 2048 x 256 by 256 in 64 workgroups 13.3 -> 17.9 us, 1024 x 256 by 256 in
// 32 9.6 -> 18.0, 3136 x 384 by 96 in 50 15.6 -> 23.4; 75 to 98 tied, and
// long loops gained from 78 up: 6272 x 2304 by 256 in 98, -29%).
constexpr int64_t kMinTf32GridDivisor = 2;
std::optional<MmaTile> splitTf32Tile(MmaTile tile, const GpuTarget &target) {
  tile.ElemBytes = 4;
  tile.BK = kTf32RowElements;
  for (int64_t stages = kMaxTf32Stages; stages >= kMinTf32Stages; --stages) {
    tile.Stages = stages;
    if (tile.dynamicSharedBytes() + kWgmmaAtomBytes <=
        target.MaxSharedMemoryBytes)
      return tile;
  }
  return std::nullopt;
}

struct SplitTf32Choice {
  MmaTile Tile;
  const GpuMatrixInstruction *Instruction;
};

// The 3xTF32 wgmma tile for an IEEE f32 matmul of at least kMinTf32Rows
// static rows, where the chip has tf32 wgmma; chosen as the f16 tiles are.
// Not a convolution: ResNets' 3x3 ones ran 12 to 29% faster on it, but
// ResNet50 at batch 1 with its stem so missed f32's tolerance (4.2e-5
// against float64 where 2.4e-5 was allowed; 2.4e-5 still, one element
// off, with the remainders rounded to nearest instead of cleared). Nor
// rows known only per call (not measured).
std::optional<SplitTf32Choice> chooseSplitTf32Tile(const Contraction &c,
                                                   const GpuTarget &target) {
  bool batched = c.Batch != 1;
  if (c.ImplicitGemm || c.DynamicM || c.Batch * c.M < kMinTf32Rows ||
      c.K < (batched ? kMinBatchedTf32Extent : kMinTf32K) ||
      c.N < (batched ? kMinBatchedTf32Extent : kMinTf32N))
    return std::nullopt;
  const GpuMatrixInstruction *instruction = target.findMatrixInstruction(
      GpuMatrixInstruction::Kind::Wgmma, "tf32", "f32");
  if (!instruction || instruction->M != kWgmmaM ||
      instruction->K != kWgmmaTf32K)
    return std::nullopt;
  SmallVector<MmaTile> tiles;
  for (const MmaTile &shape : kTf32Shapes)
    if (std::optional<MmaTile> tile = splitTf32Tile(shape, target))
      tiles.push_back(*tile);
  if (tiles.empty())
    return std::nullopt;
  std::optional<MmaTile> tile = chooseTile(c, target, tiles);
  // Only what ran on a GPU: A copied in whole 16-byte runs (not gathered
  // an element at a time, nor in shorter copies).
  if (!tile || copyElementsOfA(c, *tile) != tile->copyElements() ||
      workgroupCount(c, *tile) * kMinTf32GridDivisor < target.ProcessorCount)
    return std::nullopt;
  return SplitTf32Choice{*tile, instruction};
}

// Whether a K step of A stays at one window position: its innermost K loop
// (channels, innermost in A) is a multiple of BK.
bool isStepAtOneWindowPosition(const Contraction &c, const MmaTile &tile) {
  return c.Ranges[c.KDims.back()] % tile.BK == 0;
}

// Whether A's copies split their addresses (MmaKernelBuilder::SplitA): a
// convolution's A copied (not gathered) from a row-major binding (its
// outermost extent static or per call), and either a K step at one window
// position or each thread's copies of A at one column of the tile (the
// threads a multiple of a row's copies), so that a copy's k part is the
// same for all of a thread's copies. A copy is at one window position
// either way (its elements divide the channels).
bool splitsA(const Contraction &c, const MmaTile &tile) {
  auto type = cast<MemRefType>(c.Lhs.getType());
  int64_t width = copyElementsOfA(c, tile);
  return c.ImplicitGemm && width != 0 && isRowMajorPastOutermost(type) &&
         (isStepAtOneWindowPosition(c, tile) ||
          tile.threads() % (tile.BK / width) == 0);
}

// Whether a K-sliced FMA tile's partial sums, every slice's whole tile in
// rows padded by kStagingPad, fit the A stages they overwrite once the K
// loop is done, and each slice finishes whole rows of each thread's.
bool partialsFitStages(const MmaTile &t) {
  return t.TM % t.Slices == 0 &&
         t.Slices * t.BM * (t.BN + kStagingPad) <=
             t.Stages * t.BM * (t.BK + t.copyElements());
}

class MmaKernelBuilder : IndexArithmetic {
public:
  MmaKernelBuilder(func::FuncOp func, Contraction c, MmaTile tile,
                   const GpuMatrixInstruction *instruction,
                   SymbolTable &symbols)
      : IndexArithmetic(func.getContext(), c.Op.getLoc()), Func(func), C(c),
        T(tile), Instruction(instruction), Symbols(symbols),
        CopyElementsA(copyElementsOfA(c, tile)), GatherA(CopyElementsA == 0),
        VectorStores(hasColumnRuns(c)),
        DirectStores(tile.Fma && hasColumnRuns(c, kFmaVector) &&
                     (tile.Slices <= 1 || partialsFitStages(tile))),
        SplitA(splitsA(c, tile)),
        UniformStepA(SplitA && isStepAtOneWindowPosition(c, tile)),
        Elem(multiplyAccumulateType(c.Op)), CopyElements(tile.copyElements()) {}

  void build();

private:
  // Whether row `m` of A (and C) exists; null when BM divides M (a static
  // one).
  Value rowInBounds(Value m) {
    if (Rows)
      return arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, m, Rows);
    return below(m, C.M, T.BM);
  }
  // Row `m` clamped inside A where it may lie past M, so an address formed
  // from it stays inside the operand.
  Value clampRow(Value m) {
    if (Rows)
      return arith::MinUIOp::create(B, Loc, m, LastRow);
    return C.M % T.BM != 0 ? min(m, C.M - 1) : m;
  }
  // Whether column `n` of B (and C) exists; null when BN divides N.
  Value columnInBounds(Value n) { return below(n, C.N, T.BN); }
  // Whether reduction step `k` exists; null when BK divides K.
  Value stepInBounds(Value k) { return below(k, C.K, T.BK); }
  // v < size, or null when tiles of `tile` divide `size` (always true).
  Value below(Value v, int64_t size, int64_t tile) {
    if (size % tile == 0)
      return nullptr;
    return arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult, v,
                                 idx(size));
  }
  Value min(Value a, int64_t b) {
    return arith::MinUIOp::create(B, Loc, a, idx(b));
  }
  // The indices `map` gives at batch `Batch` and the given m, n, k
  // positions (null ones left at 0).
  SmallVector<Value> at(AffineMap map, Value m, Value n, Value k) {
    return applyToLoops(B, Loc, map,
                        contractionLoops(B, Loc, C, Batch, m, n, k));
  }
  // Issues the cp.asyncs filling `stage` with the tiles at k0 (B's only,
  // when A is gathered) and commits them as one group, whose token it
  // returns; with `valid` (null: true) false they read nothing from global
  // memory (a step past the last).
  Value copyStage(Value stage, Value k0, Value valid);
  // One cp.async of `width` elements from `source` at `indices` into `tile`
  // at `shared`, copying nothing where `inBounds` (null: true) is false;
  // returns its token.
  Value asyncCopy(Value tile, ValueRange shared, Value source,
                  ValueRange indices, int64_t width, Value inBounds);
  // With SplitA: the row parts of this thread's copies of A (before the K
  // loop)...
  void prepareSplitA();
  // ...and the copies of A at k0 from them.
  void copySplitA(Value stage, Value k0, Value valid,
                  SmallVectorImpl<Value> &tokens);
  // A gathered element by element (its rows are not 16-byte runs along k:
  // a convolution over 3 input channels): this thread's elements of the A
  // tile at k0, zero past M and K, loaded into registers...
  SmallVector<Value> loadA(Value k0, Value valid);
  // ...and stored into `stage` once the math of the current step is issued,
  // so the loads' latency overlaps it.
  void storeA(Value stage, ArrayRef<Value> values);
  // The shared indices of element (row, col) of a stage's A tile (row m,
  // column k) and B tile (row k, column n): padded rows for mma.sync;
  // swizzled rows, B in blocks of kWgmmaRowElements columns, for wgmma.
  SmallVector<Value> sharedA(Value stage, Value row, Value col);
  SmallVector<Value> sharedB(Value stage, Value row, Value col);
  // The stages' tiles: static buffers for mma.sync; for wgmma, views of
  // the dynamic shared memory aligned to a swizzle atom, whose address
  // (index) it records in StagesBase.
  void createStages();
  // One step of the math on `stage`: mma.syncs from ldmatrix fragments
  // into `acc` (a fragment per warp tile), or the warpgroup's wgmmas into
  // its one accumulator, left in flight until the end of the next step.
  void mmaSyncStep(Value stage, SmallVector<Value> &acc);
  void wgmmaStep(Value stage, SmallVector<Value> &acc);
  // A wgmmaTf32 tile's step: `stage` cut to tf32 into `buffer` (A in place
  // and its remainders beside; B transposed, with its remainders)...
  void splitTf32Stage(Value stage, Value buffer);
  // ...and the warpgroup's wgmmas over them, three a k8.
  void wgmmaTf32Step(Value stage, Value buffer, SmallVector<Value> &acc);
  // ...or an FMA tile's: each thread's TM x TN outputs in `acc` (row-major)
  // updated from TM rows of A and TN columns of B, 4 k at a time.
  void fmaStep(Value stage, SmallVector<Value> &acc);
  // The shared column of run `run` of an FMA thread's columns: the runs
  // are BN / (TN / kFmaVector) apart, so consecutive threads' runs are
  // consecutive.
  Value fmaColumn(int64_t run) {
    return add(mul(rem(SliceTid, T.threadCols()), kFmaVector),
               run * T.BN / (T.TN / kFmaVector));
  }
  // The first of an FMA thread's TM consecutive rows.
  Value fmaRow() { return mul(div(SliceTid, T.threadCols()), T.TM); }
  // Stores the accumulators' rows of staged chunk `chunk` (chunkRows rows)
  // into Staging: each warp's fragments, or each FMA thread's outputs.
  void stageChunk(ValueRange results, int64_t chunk, int64_t chunkRows);
  // Stores an FMA thread's TM x TN f32 results into `buffer`, 16 bytes (a
  // run of kFmaVector columns) at a time, row i's run r at row0 + i and
  // fmaColumn(r), through `at`, which gives the buffer's indices of a row
  // and a column.
  void storeFmaRuns(ValueRange results, Value buffer, Value row0,
                    llvm::function_ref<SmallVector<Value>(Value, Value)> at);
  // The epilogue of an FMA tile with DirectStores: each thread adds the
  // init to its TM x TN outputs (with K slices, to TM / Slices rows of
  // them, summed over the slices), applies the epilogues and stores them, a
  // run of kFmaVector columns at a time.
  void storeFmaOutputs(ValueRange results, AffineMap outMap);
  // Row r of this thread's fragment of warp tile (mi, ni) in `results`.
  Value fragmentRow(ValueRange results, int64_t mi, int64_t ni, int64_t r);

  func::FuncOp Func;
  Contraction C;
  MmaTile T;
  // The matrix instruction; null for FMA tiles.
  const GpuMatrixInstruction *Instruction;
  SymbolTable &Symbols;
  Value TileA, TileB, StagesBase, Staging, Batch, Row0, Col0, Tid, Warp, Lane;
  // A wgmmaTf32 tile's swizzled buffers: B transposed ([buffer][rounded,
  // remainder][n][k]) and A's remainders ([buffer][m][k]); a zero
  // accumulator, the registers each step's first wgmma writes.
  Value BuffersB, BuffersA, Zeros;
  // The call's M where it is dynamic (issue 19), and M - 1; else null.
  Value Rows, LastRow;
  // An FMA thread's K slice and its index among the slice's threads (Tid
  // itself without slices).
  Value Slice, SliceTid;
  // Elements of A's copies along k: 16 bytes, or 8 or 4 where its runs are
  // shorter (a convolution over 4 f16 channels); 0 when not even 4 bytes
  // are (3 f16 channels)...
  const int64_t CopyElementsA;
  // ...and A is gathered element by element.
  const bool GatherA;
  // C's rows are runs of kCopyElements columns: stored a run at a time.
  const bool VectorStores;
  // An FMA tile over C's rows in runs of kFmaVector columns: each thread
  // finishes and stores its own outputs, with K slices rows of them whose
  // partial sums the slices exchange through the A stages
  // (storeFmaOutputs).
  const bool DirectStores;
  // A convolution's A copied with each copy's address split into a part
  // of its row, computed once before the K loop (PiecesA), and a part of
  // the step, computed once a step (copySplitA, in copyStage): see
  // splitsA.
  const bool SplitA;
  // With SplitA, whether a step's part is the same for every thread (a K
  // step at one window position), or only for each thread's copies (a
  // network's first convolution over 4 channels: a step spans 16 window
  // positions, each thread's copies one of them).
  const bool UniformStepA;
  struct PieceA {
    // Lhs's elements before the row's window origin (of the unpadded
    // binding: negative where the window starts in the padding)...
    Value Offset;
    // ...whether the row exists (null: always)...
    Value InM;
    // ...its window origin along each padded dimension (else null), and
    // its column of the tile.
    SmallVector<Value> Origin;
    Value Column;
  };
  SmallVector<PieceA> PiecesA;
  // Lhs as one dimension, which split copies index, and the elements
  // between consecutive indices of each of Lhs's dimensions.
  Value FlatLhs;
  SmallVector<int64_t> StridesA;
  // The operands' element type: f16, bf16 (wgmma only), or f32 rounded to
  // tf32 (mma.sync only).
  const Type Elem;
  // Elements of a 16-byte cp.async.
  const int64_t CopyElements;
};

Value MmaKernelBuilder::copyStage(Value stage, Value k0, Value valid) {
  linalg::LinalgOp op = C.Op;
  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap mapB = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  SmallVector<Value> tokens;
  // A: BM rows of BK; B: BK rows of BN; each in 16-byte pieces, spread
  // over the threads with consecutive threads on consecutive pieces.
  auto copy = [&](Value tile, Value source, AffineMap map, int64_t rows,
                  int64_t cols, bool isA) {
    int64_t width = isA ? CopyElementsA : CopyElements;
    int64_t pieces = rows * cols / width;
    for (int64_t first = 0; first < pieces; first += T.threads()) {
      Value piece = add(Tid, first);
      Value row = div(piece, cols / width);
      Value col = mul(rem(piece, cols / width), width);
      // A copy past M, N or K copies no bytes (its piece of the tile is
      // zero-filled, adding nothing) from an address clamped inside the
      // operand.
      SmallVector<Value> indices;
      Value inBounds;
      if (isA) {
        Value m = add(Row0, row), k = add(k0, col);
        // Built in a fixed order (not as call arguments) so the IR is.
        Value inM = rowInBounds(m), inK = stepInBounds(k);
        inBounds = both(valid, both(inM, inK));
        m = clampRow(m);
        if (C.K % T.BK != 0)
          k = min(k, C.K - width);
        // A padded input: the window's part outside the binding is
        // zero-filled as the parts past M and K are.
        LhsAccess access = lhsAccess(B, Loc, C, at(map, m, nullptr, k));
        indices = access.Indices;
        inBounds = both(inBounds, access.InBounds);
      } else {
        Value k = add(k0, row), n = add(Col0, col);
        Value inK = stepInBounds(k), inN = columnInBounds(n);
        inBounds = both(valid, both(inK, inN));
        if (C.K % T.BK != 0)
          k = min(k, C.K - 1);
        if (C.N % T.BN != 0)
          n = min(n, C.N - CopyElements);
        indices = at(map, nullptr, n, k);
      }
      tokens.push_back(asyncCopy(
          tile, isA ? sharedA(stage, row, col) : sharedB(stage, row, col),
          source, indices, width, inBounds));
    }
  };
  if (SplitA)
    copySplitA(stage, k0, valid, tokens);
  else if (!GatherA)
    copy(TileA, C.Lhs, mapA, T.BM, T.BK, /*isA=*/true);
  copy(TileB, C.Rhs, mapB, T.BK, T.BN, /*isA=*/false);
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tokens);
}

Value MmaKernelBuilder::asyncCopy(Value tile, ValueRange shared, Value source,
                                  ValueRange indices, int64_t width,
                                  Value inBounds) {
  Value srcElements;
  if (inBounds)
    srcElements = arith::SelectOp::create(B, Loc, inBounds, idx(width), idx(0));
  // Only 16-byte copies may bypass L1 (cp.async.cg); the shorter ones of a
  // convolution's few channels are the window's overlapping reads, which
  // L1 serves.
  bool whole = width == CopyElements;
  return nvgpu::DeviceAsyncCopyOp::create(
      B, Loc, nvgpu::DeviceAsyncTokenType::get(B.getContext()), tile, shared,
      source, indices, B.getIndexAttr(width), srcElements,
      /*bypassL1=*/whole ? B.getUnitAttr() : UnitAttr());
}

void MmaKernelBuilder::prepareSplitA() {
  linalg::LinalgOp op = C.Op;
  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  auto type = cast<MemRefType>(C.Lhs.getType());
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.front().push_back(i);
  FlatLhs = memref::CollapseShapeOp::create(B, Loc, C.Lhs, all);
  StridesA = computeSuffixProduct(type.getShape());
  int64_t width = CopyElementsA, perRow = T.BK / width;
  for (int64_t first = 0; first < T.BM * perRow; first += T.threads()) {
    Value piece = add(Tid, first);
    PieceA p;
    Value m = add(Row0, div(piece, perRow));
    p.InM = rowInBounds(m);
    m = clampRow(m);
    p.Column = mul(rem(piece, perRow), width);
    // A's indices at the row with every k loop at 0: the row's part of
    // each (its results are sums of loops times constants).
    SmallVector<Value> origin = applyToLoops(
        B, Loc, mapA, contractionLoops(B, Loc, C, Batch, m, nullptr, nullptr));
    Value offset = idx(0);
    for (auto [i, index] : llvm::enumerate(origin)) {
      if (isLhsDimPadded(C, i)) {
        index = arith::SubIOp::create(B, Loc, index, idx(C.LhsPadLow[i]));
        p.Origin.push_back(index);
      } else {
        p.Origin.push_back(nullptr);
      }
      offset = add(offset, mul(index, StridesA[i]));
    }
    p.Offset = offset;
    PiecesA.push_back(std::move(p));
  }
}

void MmaKernelBuilder::copySplitA(Value stage, Value k0, Value valid,
                                  SmallVectorImpl<Value> &tokens) {
  linalg::LinalgOp op = C.Op;
  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  auto type = cast<MemRefType>(C.Lhs.getType());
  // The step's part of A's indices (its window position and first
  // channel): at k0, the same for every copy of the step, to which a
  // copy's column adds channels; or at the k of this thread's column
  // (every piece of a thread has the same), which may be past K.
  Value k = UniformStepA ? k0 : add(k0, PiecesA.front().Column);
  Value inK = UniformStepA ? nullptr : stepInBounds(k);
  SmallVector<Value> step = applyToLoops(
      B, Loc, mapA, contractionLoops(B, Loc, C, nullptr, nullptr, nullptr, k));
  Value stepOffset = idx(0);
  for (auto [i, index] : llvm::enumerate(step))
    stepOffset = add(stepOffset, mul(index, StridesA[i]));
  int64_t width = CopyElementsA, perRow = T.BK / width;
  Value zero = idx(0);
  for (auto [i, p] : llvm::enumerate(PiecesA)) {
    Value inBounds = both(valid, both(p.InM, inK));
    for (auto [dim, origin] : llvm::enumerate(p.Origin))
      if (origin)
        inBounds = both(inBounds,
                        arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult,
                                              add(origin, step[dim]),
                                              idx(type.getDimSize(dim))));
    Value index = add(p.Offset, stepOffset);
    if (UniformStepA)
      index = add(index, p.Column);
    // Outside, a copy of nothing from the binding's start.
    if (inBounds)
      index = arith::SelectOp::create(B, Loc, inBounds, index, zero);
    Value piece = add(Tid, static_cast<int64_t>(i) * T.threads());
    tokens.push_back(asyncCopy(TileA,
                               sharedA(stage, div(piece, perRow), p.Column),
                               FlatLhs, index, width, inBounds));
  }
}

SmallVector<Value> MmaKernelBuilder::loadA(Value k0, Value valid) {
  linalg::LinalgOp op = C.Op;
  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  SmallVector<Value> values;
  // Consecutive threads on consecutive k: along a window row of a
  // channels-last input, consecutive in memory. The thread count is a
  // multiple of BK, so each thread keeps one k: its window position and
  // channel are computed once a step, only m's loops per element.
  Value k = add(k0, rem(Tid, T.BK)), row0 = div(Tid, T.BK);
  Value inK = stepInBounds(k);
  SmallVector<Value> kLoops =
      contractionLoops(B, Loc, C, Batch, nullptr, nullptr, k);
  for (int64_t e = 0; e < T.BM * T.BK; e += T.threads()) {
    Value m = add(Row0, add(row0, e / T.BK));
    Value inM = rowInBounds(m);
    Value inBounds = both(valid, both(inM, inK));
    values.push_back(zeroUnless(B, Loc, inBounds, Elem, [&] {
      SmallVector<Value> loops(kLoops);
      for (auto [dim, value] :
           llvm::zip(C.MDims, delinearize(B, Loc, m, C.sizes(C.MDims))))
        loops[dim] = value;
      LhsAccess access =
          lhsAccess(B, Loc, C, applyToLoops(B, Loc, mapA, loops));
      return zeroUnless(B, Loc, access.InBounds, Elem, [&] {
        return memref::LoadOp::create(B, Loc, C.Lhs, access.Indices);
      });
    }));
  }
  return values;
}

void MmaKernelBuilder::storeA(Value stage, ArrayRef<Value> values) {
  for (auto [i, value] : llvm::enumerate(values)) {
    Value element = add(Tid, static_cast<int64_t>(i) * T.threads());
    memref::StoreOp::create(
        B, Loc, value, TileA,
        sharedA(stage, div(element, T.BK), rem(element, T.BK)));
  }
}

SmallVector<Value> MmaKernelBuilder::sharedA(Value stage, Value row,
                                             Value col) {
  if (!T.Wgmma)
    return {stage, row, col};
  return {stage, row, swizzledColumn(B, Loc, row, col, T.ElemBytes)};
}

SmallVector<Value> MmaKernelBuilder::sharedB(Value stage, Value row,
                                             Value col) {
  if (!T.Wgmma || T.wgmmaTf32())
    return {stage, row, col};
  return {stage, div(col, kWgmmaRowElements), row,
          swizzledColumn(B, Loc, row, rem(col, kWgmmaRowElements))};
}

void MmaKernelBuilder::createStages() {
  SmallVector<int64_t> stagingShape = {T.stagingBufferRows(),
                                       T.stagingColumns()};
  if (!T.Wgmma) {
    // A's rows padded by 16 bytes (ldmatrix, see kMmaRowPad). B's by 16
    // bytes of f16 (ldmatrix) or 8 f32 (tf32): the four k rows t of a
    // tf32 fragment load are then 8 banks apart, each holding 8 columns.
    TileA = createSharedBuffer(B, Loc, Func, Symbols, "_mma_a",
                               {T.Stages, T.BM, T.BK + CopyElements}, Elem);
    TileB = createSharedBuffer(B, Loc, Func, Symbols, "_mma_b",
                               {T.Stages, T.BK, T.BN + kMmaRowPad}, Elem);
    if (!DirectStores)
      Staging = createSharedBuffer(B, Loc, Func, Symbols, "_mma_out",
                                   stagingShape, B.getF32Type());
    return;
  }
  // The kernel's only shared memory is dynamic, 16-byte aligned: the stages
  // start at the next atom boundary within it, and the epilogue's staging
  // reuses them once the last step is done. It is viewed in NVVM's
  // numbered shared space, as the static buffers are, which the vector
  // ops' lowering maps (it does not map the GPU dialect's attribute).
  auto shared =
      B.getI64IntegerAttr(static_cast<int64_t>(NVVM::NVVMMemorySpace::Shared));
  Value bytes = memref::MemorySpaceCastOp::create(
      B, Loc,
      MemRefType::get({ShapedType::kDynamic}, B.getI8Type(), AffineMap(),
                      shared),
      gpu::DynamicSharedMemoryOp::create(
          B, Loc,
          MemRefType::get({ShapedType::kDynamic}, B.getI8Type(), AffineMap(),
                          gpu::AddressSpaceAttr::get(
                              B.getContext(), gpu::AddressSpace::Workgroup))));
  Value raw = memref::ExtractAlignedPointerAsIndexOp::create(B, Loc, bytes);
  Value shift = rem(arith::SubIOp::create(B, Loc, idx(kWgmmaAtomBytes),
                                          rem(raw, kWgmmaAtomBytes)),
                    kWgmmaAtomBytes);
  StagesBase = add(raw, shift);
  auto view = [&](Value offset, ArrayRef<int64_t> shape, Type element) {
    return memref::ViewOp::create(
        B, Loc, MemRefType::get(shape, element, AffineMap(), shared), bytes,
        offset, ValueRange{});
  };
  TileA = view(shift, {T.Stages, T.BM, T.BK}, Elem);
  if (!T.wgmmaTf32()) {
    TileB = view(add(shift, T.Stages * T.stageBytesA()),
                 {T.Stages, T.BN / kWgmmaRowElements, T.BK, kWgmmaRowElements},
                 Elem);
    Staging = view(shift, stagingShape, B.getF32Type());
    return;
  }
  BuffersB = view(add(shift, T.tf32BuffersBOffset()),
                  {kTf32Buffers, 2, T.BN, T.BK}, Elem);
  BuffersA = view(add(shift, T.tf32BuffersAOffset()),
                  {kTf32Buffers, T.BM, T.BK}, Elem);
  TileB = view(add(shift, T.tf32StagesBOffset()),
               {T.Stages, T.BK, T.BN + kTf32RowPad}, Elem);
  Staging = view(shift, stagingShape, B.getF32Type());
}

void MmaKernelBuilder::mmaSyncStep(Value stage, SmallVector<Value> &acc) {
  int64_t tilesM = T.tilesM(), tilesN = T.tilesN();
  Value warpRow = mul(div(Warp, T.WarpsN), T.BM / T.WarpsM);
  Value warpCol = mul(rem(Warp, T.WarpsN), T.BN / T.WarpsN);
  bool tf32 = Elem.isF32();
  // A fragment is four 8 x 8 matrices of 16-bit pairs (f16: 16 x 16, as
  // (rows, k) blocks (0, 0), (8, 0), (0, 8), (8, 8); tf32: 16 x 8, the
  // same blocks of 4 k); B's two 8 x 8 of pairs (f16: 16 x 8) or two
  // elements (tf32: 8 x 8, k = t and t + 4 of column g).
  VectorType aType = mmaFragmentType(4, Elem), bType = mmaFragmentType(2, Elem);
  int64_t instructionK = Instruction->K;
  Value g = div(Lane, 4), t = rem(Lane, 4);
  for (int64_t kk = 0; kk < T.BK; kk += instructionK) {
    SmallVector<Value> as, bs;
    // tf32 operands rounded (to nearest) rather than truncated by the
    // instruction.
    SmallVector<Tf32Fragment> as32, bs32;
    // ldmatrix x4 of the A tile: lane l gives row l % 16 of the k half
    // l / 16.
    Value aRow = add(warpRow, rem(Lane, 16));
    Value aCol = add(mul(div(Lane, 16), instructionK / 2), kk);
    for (int64_t mi = 0; mi < tilesM; ++mi) {
      Value fragment = nvgpu::LdMatrixOp::create(
          B, Loc, aType, TileA, ValueRange{stage, add(aRow, mi * kMmaM), aCol},
          /*transpose=*/false, /*numTiles=*/4);
      if (tf32)
        as32.push_back(tf32Fragment(B, Loc, fragment, /*split=*/false));
      else
        as.push_back(fragment);
    }
    for (int64_t ni = 0; ni < tilesN; ++ni) {
      Value col = add(warpCol, ni * kMmaN);
      if (!tf32) {
        // ldmatrix x2 transposed of a 16 x 8 B tile (K x N): lanes 0-15
        // give rows k.
        bs.push_back(nvgpu::LdMatrixOp::create(
            B, Loc, bType, TileB,
            ValueRange{stage, add(rem(Lane, 16), kk), col},
            /*transpose=*/true, /*numTiles=*/2));
        continue;
      }
      // ldmatrix transposes 16-bit elements only: tf32's two elements are
      // loaded one by one.
      SmallVector<Value> elements;
      for (int64_t half = 0; half < 2; ++half)
        elements.push_back(memref::LoadOp::create(
            B, Loc, TileB,
            ValueRange{stage, add(t, kk + half * instructionK / 2),
                       add(col, g)}));
      bs32.push_back(tf32Fragment(
          B, Loc, vector::FromElementsOp::create(B, Loc, bType, elements),
          /*split=*/false));
    }
    for (int64_t mi = 0; mi < tilesM; ++mi)
      for (int64_t ni = 0; ni < tilesN; ++ni) {
        Value &frag = acc[mi * tilesN + ni];
        frag = tf32 ? mmaTf32(B, Loc, as32[mi], bs32[ni], frag)
                    : nvgpu::MmaSyncOp::create(
                          B, Loc, as[mi], bs[ni], frag,
                          ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK});
      }
  }
}

void MmaKernelBuilder::wgmmaStep(Value stage, SmallVector<Value> &acc) {
  // This warpgroup's 64 rows of the stage's A; B whole. Each k16 moves 32
  // bytes along A's swizzled rows and 16 rows (two atoms) down B's blocks.
  Value warpgroup = div(Tid, kWarpgroupThreads);
  Value a = add(add(StagesBase, mul(stage, T.stageBytesA())),
                mul(warpgroup, kWgmmaM * T.BK * T.ElemBytes));
  Value b = add(add(StagesBase, idx(T.Stages * T.stageBytesA())),
                mul(stage, T.stageBytesB()));
  acc[0] = fenceAccumulator(B, Loc, acc[0]);
  NVVM::WgmmaFenceAlignedOp::create(B, Loc);
  for (int64_t kk = 0; kk < T.BK; kk += kWgmmaK) {
    Value descA = wgmmaDescriptor(B, Loc, add(a, kk * 2), /*leadingBytes=*/16,
                                  /*strideBytes=*/kWgmmaAtomBytes);
    Value descB = wgmmaDescriptor(B, Loc, add(b, kk * kWgmmaRowElements * 2),
                                  /*leadingBytes=*/T.BK * kWgmmaRowElements * 2,
                                  /*strideBytes=*/kWgmmaAtomBytes);
    acc[0] = wgmmaHalf(B, Loc, acc[0], descA, descB, T.BN, Elem);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(B, Loc);
  // The previous step's group is done (its stage is refilled after the
  // next step's barrier); this one's runs on during the next step's
  // barrier and copies.
  NVVM::WgmmaWaitGroupSyncOp::create(B, Loc, 1);
  acc[0] = fenceAccumulator(B, Loc, acc[0]);
}

void MmaKernelBuilder::splitTf32Stage(Value stage, Value buffer) {
  VectorType chunk = VectorType::get({CopyElements}, Elem);
  auto load = [&](Value tile, ValueRange indices) {
    return vector::LoadOp::create(B, Loc, chunk, tile, indices,
                                  /*nontemporal=*/false, llvm::MaybeAlign(16))
        .getResult();
  };
  auto store = [&](Value value, Value tile, ValueRange indices) {
    vector::StoreOp::create(B, Loc, value, tile, indices,
                            /*nontemporal=*/false, llvm::MaybeAlign(16));
  };
  // An f32 value as tf32 (its low 13 bits cleared: what the tensor cores
  // read of it), and what that left (itself cleared so, within 2^-20 of
  // the value), 0 where nothing was left: an infinity's remainder is 0,
  // not inf - inf.
  VectorType bitsType = VectorType::get({CopyElements}, B.getI32Type());
  Value mask = arith::ConstantOp::create(
      B, Loc,
      DenseElementsAttr::get(
          bitsType,
          B.getI32IntegerAttr(static_cast<int32_t>(kTf32Mask)).getValue()));
  auto truncate = [&](Value v) -> Value {
    Value bits = arith::BitcastOp::create(B, Loc, bitsType, v);
    return arith::BitcastOp::create(B, Loc, v.getType(),
                                    arith::AndIOp::create(B, Loc, bits, mask));
  };
  Value zeros = arith::ConstantOp::create(
      B, Loc, DenseElementsAttr::get(chunk, B.getF32FloatAttr(0).getValue()));
  auto remainder = [&](Value v, Value big) -> Value {
    Value exact =
        arith::CmpFOp::create(B, Loc, arith::CmpFPredicate::OEQ, v, big);
    return arith::SelectOp::create(
        B, Loc, exact, zeros, truncate(arith::SubFOp::create(B, Loc, v, big)));
  };
  // A: each 16-byte chunk of the stage cleared in place, its remainder at
  // the same place of the buffer (both swizzled alike, so a chunk's place
  // is all either needs). Consecutive threads on consecutive chunks.
  int64_t rowChunks = T.BK / CopyElements;
  for (int64_t first = 0; first < T.BM * rowChunks; first += T.threads()) {
    Value piece = add(Tid, first);
    Value row = div(piece, rowChunks);
    Value col = mul(rem(piece, rowChunks), CopyElements);
    Value a = load(TileA, {stage, row, col});
    Value big = truncate(a);
    store(big, TileA, {stage, row, col});
    store(remainder(a, big), BuffersA, {buffer, row, col});
  }
  // B: a warp's threads read one 16-byte chunk (4 columns) from each of 32
  // consecutive k rows and write each column's 32 k as one swizzled row.
  for (int64_t first = 0; first < T.BK * T.BN / CopyElements;
       first += T.threads()) {
    Value piece = add(Tid, first);
    Value k = rem(piece, T.BK);
    Value n = mul(div(piece, T.BK), CopyElements);
    Value b = load(TileB, {stage, k, n});
    Value big = truncate(b);
    Value small = remainder(b, big);
    for (int64_t j = 0; j < CopyElements; ++j) {
      Value row = add(n, j);
      Value col = swizzledColumn(B, Loc, row, k, T.ElemBytes);
      auto element = [&](Value v) {
        return vector::ExtractOp::create(B, Loc, v, ArrayRef<int64_t>{j});
      };
      memref::StoreOp::create(B, Loc, element(big), BuffersB,
                              ValueRange{buffer, idx(0), row, col});
      memref::StoreOp::create(B, Loc, element(small), BuffersB,
                              ValueRange{buffer, idx(1), row, col});
    }
  }
  // The buffers are read by wgmma, through the async proxy, once every
  // thread has written its share.
  NVVM::FenceProxyOp::create(
      B, Loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(B.getContext(),
                                 NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(B, Loc);
}

void MmaKernelBuilder::wgmmaTf32Step(Value stage, Value buffer,
                                     SmallVector<Value> &acc) {
  // This warpgroup's 64 rows of A (cut to tf32 in the stage, remainders in the
  // buffer) and all of B's rows; each k8 moves 32 bytes along every row.
  int64_t rowBytes = T.BK * T.ElemBytes;
  Value warpgroupRows = mul(div(Tid, kWarpgroupThreads), kWgmmaM * rowBytes);
  Value a = add(add(StagesBase, mul(stage, T.stageBytesA())), warpgroupRows);
  Value aSmall = add(add(StagesBase, idx(T.tf32BuffersAOffset())),
                     add(mul(buffer, T.tf32BufferBytesA()), warpgroupRows));
  Value b = add(add(StagesBase, idx(T.tf32BuffersBOffset())),
                mul(buffer, T.tf32BufferBytesB()));
  Value bSmall = add(b, T.BN * rowBytes);
  auto descriptor = [&](Value base, int64_t kk) {
    return wgmmaDescriptor(B, Loc, add(base, kk * T.ElemBytes),
                           /*leadingBytes=*/16,
                           /*strideBytes=*/kWgmmaAtomBytes);
  };
  // acc[0] sums the steps in IEEE f32 adds; acc[1] is the previous step's
  // products, still in flight. The tensor cores' own sums round less
  // exactly than an FMA (ResNet-18 in f32 at batch 32 with its
  // convolutions summed on them over K: 8.9e-5 against float64, past
  // f32's tolerance), so each step's twelve products start from zero and
  // are added to acc[0] once the next step's are issued.
  Value step = Zeros;
  NVVM::WgmmaFenceAlignedOp::create(B, Loc);
  bool first = true;
  auto issue = [&](Value descA, Value descB) {
    step = wgmmaTf32(B, Loc, step, descA, descB, T.BN, /*accumulate=*/!first);
    first = false;
  };
  for (int64_t kk = 0; kk < T.BK; kk += kWgmmaTf32K) {
    // The small terms first, as mmaTf32 adds them.
    issue(descriptor(aSmall, kk), descriptor(b, kk));
    issue(descriptor(a, kk), descriptor(bSmall, kk));
    issue(descriptor(a, kk), descriptor(b, kk));
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(B, Loc);
  // As wgmmaStep: the previous step's group is done, so its buffer and
  // stage may be written again after the next step's first barrier, and
  // its products added.
  NVVM::WgmmaWaitGroupSyncOp::create(B, Loc, 1);
  acc[0] = addAccumulators(B, Loc, acc[0], fenceAccumulator(B, Loc, acc[1]));
  acc[1] = fenceAccumulator(B, Loc, step);
}

void MmaKernelBuilder::storeFmaRuns(
    ValueRange results, Value buffer, Value row0,
    llvm::function_ref<SmallVector<Value>(Value, Value)> at) {
  VectorType run = VectorType::get({kFmaVector}, B.getF32Type());
  for (int64_t i = 0; i < T.TM; ++i)
    for (int64_t r = 0; r < T.TN / kFmaVector; ++r)
      vector::StoreOp::create(
          B, Loc,
          vector::FromElementsOp::create(
              B, Loc, run,
              results.slice(i * T.TN + r * kFmaVector, kFmaVector)),
          buffer, at(add(row0, i), fmaColumn(r)),
          /*nontemporal=*/false, llvm::MaybeAlign(16));
}

void MmaKernelBuilder::stageChunk(ValueRange results, int64_t chunk,
                                  int64_t chunkRows) {
  if (T.Fma) {
    // The threads whose TM rows are in the chunk store them, a run of
    // kFmaVector columns at a time.
    // With K slices, each slice's partial sums go to rows of their own.
    Value owner = arith::CmpIOp::create(
        B, Loc, arith::CmpIPredicate::eq,
        div(SliceTid, T.threadCols() * (chunkRows / T.TM)), idx(chunk));
    OpBuilder::InsertionGuard guard(B);
    auto branch = scf::IfOp::create(B, Loc, owner);
    B.setInsertionPoint(branch.thenYield());
    Value row0 =
        arith::SubIOp::create(B, Loc, fmaRow(), idx(chunk * chunkRows));
    if (T.Slices > 1)
      row0 = add(row0, mul(Slice, chunkRows));
    storeFmaRuns(results, Staging, row0, [](Value row, Value col) {
      return SmallVector<Value>{row, col};
    });
    return;
  }
  // Accumulator fragment element (r, c) is row g + 8r, column 2t + c of its
  // 16 x 8 tile (g = lane / 4, t = lane % 4), for mma.sync and wgmma alike.
  int64_t tilesM = T.tilesM(), tilesN = T.tilesN();
  Value warpCol = mul(rem(Warp, T.WarpsN), T.BN / T.WarpsN);
  Value g = div(Lane, 4), t2 = mul(rem(Lane, 4), 2);
  for (int64_t tile = 0; tile < chunkRows / kMmaM; ++tile) {
    int64_t rowTile = chunk * (chunkRows / kMmaM) + tile;
    int64_t warpRowIndex = rowTile / tilesM, mi = rowTile % tilesM;
    Value owner = arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::eq,
                                        div(Warp, T.WarpsN), idx(warpRowIndex));
    OpBuilder::InsertionGuard guard(B);
    auto branch = scf::IfOp::create(B, Loc, owner);
    B.setInsertionPoint(branch.thenYield());
    // A pair starts at an even column of rows of an even length: one
    // 8-byte store.
    for (int64_t ni = 0; ni < tilesN; ++ni)
      for (int64_t r = 0; r < 2; ++r)
        vector::StoreOp::create(B, Loc, fragmentRow(results, mi, ni, r),
                                Staging,
                                ValueRange{add(g, tile * kMmaM + 8 * r),
                                           add(warpCol, add(t2, ni * kMmaN))},
                                /*nontemporal=*/false, llvm::MaybeAlign(8));
  }
}

void MmaKernelBuilder::fmaStep(Value stage, SmallVector<Value> &acc) {
  // Shared reads of 16 bytes: 4 k of each of A's TM rows, then for each of
  // those k a run of 4 columns of B per kFmaVector of TN. A quarter warp
  // shares a row of threads: its A reads are one address (a broadcast),
  // its B reads 8 consecutive runs; rows of A padded by 16 bytes put the
  // rows of a warp's other quarters in other banks.
  VectorType run = VectorType::get({kFmaVector}, Elem);
  auto load = [&](Value tile, Value row, Value col) {
    return vector::LoadOp::create(B, Loc, run, tile,
                                  ValueRange{stage, row, col},
                                  /*nontemporal=*/false, llvm::MaybeAlign(16))
        .getResult();
  };
  int64_t runs = T.TN / kFmaVector;
  Value row0 = fmaRow();
  SmallVector<Value> cols;
  for (int64_t r = 0; r < runs; ++r)
    cols.push_back(fmaColumn(r));
  // A K slice's part of the step: BK / Slices consecutive k.
  int64_t sliceK = T.BK / T.Slices;
  Value k0 = T.Slices > 1 ? mul(Slice, sliceK) : Value();
  auto kAt = [&](int64_t k) { return k0 ? add(k0, k) : idx(k); };
  for (int64_t kk = 0; kk < sliceK; kk += kFmaVector) {
    SmallVector<Value> as;
    for (int64_t i = 0; i < T.TM; ++i)
      as.push_back(load(TileA, add(row0, i), kAt(kk)));
    for (int64_t k = 0; k < kFmaVector; ++k) {
      SmallVector<Value> bs;
      for (int64_t r = 0; r < runs; ++r)
        bs.push_back(load(TileB, kAt(kk + k), cols[r]));
      for (int64_t i = 0; i < T.TM; ++i) {
        Value a =
            vector::ExtractOp::create(B, Loc, as[i], ArrayRef<int64_t>{k});
        for (int64_t j = 0; j < T.TN; ++j) {
          Value b = vector::ExtractOp::create(
              B, Loc, bs[j / kFmaVector], ArrayRef<int64_t>{j % kFmaVector});
          Value &out = acc[i * T.TN + j];
          out = applyRootPayload(B, C, {a, b, out});
        }
      }
    }
  }
}

Value MmaKernelBuilder::fragmentRow(ValueRange results, int64_t mi, int64_t ni,
                                    int64_t r) {
  if (T.Wgmma)
    return accumulatorPair(B, Loc, results[0], ni, r);
  return vector::ExtractOp::create(B, Loc, results[mi * T.tilesN() + ni],
                                   ArrayRef<int64_t>{r});
}

void MmaKernelBuilder::build() {
  B.setInsertionPoint(C.Store);
  SmallVector<NamedAttribute> config = {
      B.getNamedAttr("workgroup_tile",
                     B.getDenseI64ArrayAttr({T.BM, T.BN, T.BK})),
      B.getNamedAttr("stages", B.getI64IntegerAttr(T.Stages))};
  if (T.Fma) {
    config.push_back(
        B.getNamedAttr("thread_tile", B.getDenseI64ArrayAttr({T.TM, T.TN})));
    if (T.Slices > 1)
      config.push_back(
          B.getNamedAttr("k_slices", B.getI64IntegerAttr(T.Slices)));
  } else {
    config.push_back(B.getNamedAttr(
        "warp_tile",
        B.getDenseI64ArrayAttr({T.BM / T.WarpsM, T.BN / T.WarpsN})));
    config.push_back(
        B.getNamedAttr("instruction", B.getStringAttr(Instruction->str())));
    if (Elem.isF32())
      config.push_back(B.getNamedAttr(
          "tf32_passes", B.getI64IntegerAttr(T.wgmmaTf32() ? 3 : 1)));
  }
  if (GatherA)
    config.push_back(B.getNamedAttr("gather_a", B.getUnitAttr()));
  if (T.WorkgroupsPerProcessor)
    config.push_back(
        B.getNamedAttr("workgroups_per_processor",
                       B.getI64IntegerAttr(T.WorkgroupsPerProcessor)));
  if (C.ImplicitGemm)
    config.push_back(B.getNamedAttr(
        "implicit_gemm",
        B.getDenseI64ArrayAttr({C.DynamicM ? -1 : C.M, C.N, C.K})));
  if (C.DynamicM)
    config.push_back(B.getNamedAttr("dynamic_rows", B.getUnitAttr()));
  setLoweringConfig(Func, T.Fma ? "fma_contraction" : "mma_contraction",
                    config);
  createStages();

  // Issue 19: a dynamic M is read once, before the workgroup loop it
  // bounds.
  Rows = rowCount(B, Loc, C);
  if (Rows)
    LastRow = arith::SubIOp::create(B, Loc, Rows, idx(1));
  scf::ForallOp forall = createWorkgroupLoop(B, Loc, C, T.BM, T.BN, Rows);
  B.setInsertionPointToStart(forall.getBody());
  Batch = forall.getInductionVar(0);
  Row0 = forall.getInductionVar(1);
  Col0 = forall.getInductionVar(2);
  Tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  Warp = div(Tid, kMmaWarpThreads);
  Lane = rem(Tid, kMmaWarpThreads);
  SliceTid = Tid;
  if (T.Slices > 1) {
    Slice = div(Tid, T.sliceThreads());
    SliceTid = rem(Tid, T.sliceThreads());
  }
  if (SplitA)
    prepareSplitA();
  // Accumulators start from a fill's value, else from zero with the init
  // added in the epilogue, where consecutive threads read consecutive
  // elements of it.
  AffineMap outMap = C.Op.getIndexingMapsArray().back();
  Value init = uniformInit(C);
  if (!init)
    init = arith::ConstantOp::create(B, Loc, B.getF32FloatAttr(0.0));
  SmallVector<Value> acc;
  if (T.Fma)
    acc.assign(T.TM * T.TN, init);
  else if (T.Wgmma)
    acc.push_back(splatAccumulator(
        B, Loc, wgmmaAccumulatorType(B.getContext(), T.BN), init));
  else
    acc.assign(T.tilesM() * T.tilesN(),
               vector::BroadcastOp::create(
                   B, Loc, VectorType::get({2, 2}, B.getF32Type()), init));

  if (T.wgmmaTf32()) {
    Zeros = splatAccumulator(
        B, Loc, wgmmaAccumulatorType(B.getContext(), T.BN),
        arith::ConstantOp::create(B, Loc, B.getF32FloatAttr(0.0)));
    acc.push_back(Zeros);
  }

  int64_t steps = llvm::divideCeilSigned(C.K, T.BK);
  // A wgmma tile with a stage for every step (a short K loop) copies them
  // all before the loop and waits for them once: their loads' latencies
  // overlap, where a pipeline of wgmma's lookahead of S - 2 would wait for
  // each step's in turn.
  bool allAhead = T.Wgmma && !T.wgmmaTf32() && steps <= T.Stages;
  // Else the first lookahead steps' tiles are in flight before the loop;
  // with fewer steps than that, the stages past the last copy nothing
  // (each is still a commit group, which the waits count).
  Value first;
  for (int64_t s = 0; s < (allAhead ? steps : T.lookahead()); ++s) {
    Value k0 = idx(std::min(s, steps - 1) * T.BK);
    Value valid = s < steps
                      ? Value()
                      : arith::ConstantIntOp::create(B, Loc, B.getI1Type(), 0);
    Value group = copyStage(idx(s), k0, valid);
    first = first ? first : group;
    if (GatherA)
      storeA(idx(s), loadA(k0, valid));
  }
  // Waits until all but the newest `pending` groups of copies are done,
  // then for every thread's.
  auto awaitCopies = [&](int64_t pending) {
    nvgpu::DeviceAsyncWaitOp::create(B, Loc, first,
                                     B.getI32IntegerAttr(pending));
    // (wgmma reads shared memory through the async proxy, which sees this
    // thread's copies and stores only after a proxy fence)...
    if (T.Wgmma)
      NVVM::FenceProxyOp::create(
          B, Loc, NVVM::ProxyKind::async_shared,
          NVVM::SharedSpaceAttr::get(B.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    // ...and every thread's, not just this one's; and every thread is done
    // reading the stage filled next (the previous step's, or for wgmma the
    // one before it).
    gpu::BarrierOp::create(B, Loc);
  };
  if (allAhead)
    awaitCopies(0);
  auto kLoop = scf::ForOp::create(B, Loc, idx(0), idx(steps), idx(1), acc);
  {
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPointToStart(kLoop.getBody());
    Value step = kLoop.getInductionVar();
    Value stage = rem(step, T.Stages);
    Value aheadStage;
    SmallVector<Value> aheadA;
    if (!allAhead) {
      // All but the newest lookahead - 1 groups done: this step's copies
      // have landed.
      awaitCopies(T.lookahead() - 1);
      // The tiles lookahead steps ahead go into that stage while this one
      // is read (past the last step, copies of nothing: the loop stays
      // uniform).
      Value aheadStep = add(step, T.lookahead());
      Value valid = arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult,
                                          aheadStep, idx(steps));
      Value ahead = arith::MinUIOp::create(B, Loc, aheadStep, idx(steps - 1));
      aheadStage = rem(aheadStep, T.Stages);
      copyStage(aheadStage, mul(ahead, T.BK), valid);
      if (GatherA)
        aheadA = loadA(mul(ahead, T.BK), valid);
    }
    SmallVector<Value> values(kLoop.getRegionIterArgs());
    if (T.Fma)
      fmaStep(stage, values);
    else if (T.wgmmaTf32()) {
      Value buffer = rem(step, kTf32Buffers);
      splitTf32Stage(stage, buffer);
      wgmmaTf32Step(stage, buffer, values);
    } else if (T.Wgmma)
      wgmmaStep(stage, values);
    else
      mmaSyncStep(stage, values);
    if (GatherA && !allAhead)
      storeA(aheadStage, aheadA);
    scf::YieldOp::create(B, Loc, values);
  }
  // The last (empty) copies complete before the kernel ends.
  nvgpu::DeviceAsyncWaitOp::create(B, Loc, first, B.getI32IntegerAttr(0));
  // wgmma's staging reuses the stages: every thread's copies (which write
  // zeros even when empty) and every warpgroup's math are done first.
  SmallVector<Value> results(kLoop.getResults());
  if (T.Wgmma) {
    NVVM::WgmmaWaitGroupSyncOp::create(B, Loc, 0);
    results[0] = fenceAccumulator(B, Loc, results[0]);
    if (T.wgmmaTf32())
      results[0] = addAccumulators(B, Loc, results[0],
                                   fenceAccumulator(B, Loc, results[1]));
    gpu::BarrierOp::create(B, Loc);
  }

  if (DirectStores) {
    storeFmaOutputs(results, outMap);
    return;
  }
  // The epilogue goes through shared memory stagingRows() at a time (16
  // rows, or the whole tile): the warps holding those rows write their
  // fragments, then every thread takes consecutive columns of a row, so
  // the init, the epilogues' other operands and the output are read and
  // written in coalesced runs (a fragment's elements are 8 rows apart).
  int64_t chunkRows = T.stagingRows();
  for (int64_t chunk = 0; chunk < T.BM / chunkRows; ++chunk) {
    stageChunk(results, chunk, chunkRows);
    gpu::BarrierOp::create(B, Loc);
    // A thread's elements are computed first and stored after, unrolled:
    // the loads of all of them (the init, the epilogues' operands) are in
    // flight together, as none waits behind a store that might alias it.
    // Where the output's rows are runs of kCopyElements columns, each
    // thread takes one such run and stores it as one vector.
    struct Pending {
      Value Result, InBounds;
      SmallVector<Value> Indices;
    };
    SmallVector<Pending> pending;
    Type outType = cast<MemRefType>(C.Out.getType()).getElementType();
    int64_t run = VectorStores ? kCopyElements : 1;
    int64_t runs = chunkRows * T.BN / run;
    for (int64_t first = 0; first < runs; first += T.threads()) {
      Value runIndex = add(Tid, first);
      Value element = mul(runIndex, run);
      Value row = div(element, T.BN), col = rem(element, T.BN);
      Value m = add(Row0, add(row, chunk * chunkRows)), n = add(Col0, col);
      // A run is in or past N whole, as kCopyElements divides N. Where the
      // chunk has fewer runs than the workgroup threads (a wgmma tile of 64
      // columns), the threads past them have none.
      Value inM = rowInBounds(m), inN = columnInBounds(n);
      Value inBounds = both(inM, inN);
      if (first + T.threads() > runs)
        inBounds = both(arith::CmpIOp::create(B, Loc, arith::CmpIPredicate::ult,
                                              runIndex, idx(runs)),
                        inBounds);
      // One branch for the run (it is in or past the bounds whole).
      Type resultType =
          VectorStores ? Type(VectorType::get({run}, outType)) : outType;
      Value result = zeroUnless(B, Loc, inBounds, resultType, [&]() -> Value {
        // The run's operands read along it are loaded a run at a time.
        OutputRun operands(B, Loc, C, at(outMap, m, n, nullptr), run);
        SmallVector<Value> values;
        for (int64_t j = 0; j < run; ++j) {
          Value v = memref::LoadOp::create(B, Loc, Staging,
                                           ValueRange{row, add(col, j)});
          // The K slices' partial sums, added in slice order.
          for (int64_t slice = 1; slice < T.Slices; ++slice)
            v = arith::AddFOp::create(
                B, Loc, v,
                memref::LoadOp::create(
                    B, Loc, Staging,
                    ValueRange{add(row, slice * chunkRows), add(col, j)}));
          if (!uniformInit(C))
            v = arith::AddFOp::create(B, Loc, operands.initialValue(j), v);
          values.push_back(operands.applyEpilogue(v, j));
        }
        if (!VectorStores)
          return values.front();
        return vector::FromElementsOp::create(
                   B, Loc, cast<VectorType>(resultType), values)
            .getResult();
      });
      pending.push_back(
          {result, inBounds, storeIndices(C, at(outMap, m, n, nullptr))});
    }
    for (Pending &p : pending) {
      OpBuilder::InsertionGuard guard(B);
      if (p.InBounds) {
        auto branch = scf::IfOp::create(B, Loc, p.InBounds);
        B.setInsertionPoint(branch.thenYield());
      }
      if (VectorStores)
        // The run starts at a multiple of kCopyElements elements of a row
        // whose length is one too: 16-byte aligned for 2-byte elements.
        vector::StoreOp::create(
            B, Loc, p.Result, C.Out, p.Indices, /*nontemporal=*/false,
            llvm::MaybeAlign(std::min<int64_t>(
                16, kCopyElements * outType.getIntOrFloatBitWidth() / 8)));
      else
        memref::StoreOp::create(B, Loc, p.Result, C.Out, p.Indices);
    }
    // The next chunk overwrites the rows just read.
    gpu::BarrierOp::create(B, Loc);
  }
}

void MmaKernelBuilder::storeFmaOutputs(ValueRange results, AffineMap outMap) {
  // A quarter warp shares a row of threads, so each store of a row's run
  // is 8 consecutive runs (128 bytes of f32): coalesced as the staged
  // epilogue's, which made half the threads wait at two barriers a chunk
  // while the others finished 16 rows (ConvNeXt's GELU epilogues).
  // Outputs are computed first and stored after, as there, up to
  // kPendingOutputs at a time (all 64 of an 8 x 8 thread's, held with
  // GELU's temporaries, spilled under the 128-register cap).
  constexpr int64_t kPendingOutputs = 32;
  Type outType = cast<MemRefType>(C.Out.getType()).getElementType();
  auto runType = VectorType::get({kFmaVector}, outType);
  Value init = uniformInit(C);
  struct Pending {
    Value Result, InBounds;
    SmallVector<Value> Indices;
  };
  SmallVector<Pending> pending;
  auto flush = [&]() {
    for (Pending &p : pending) {
      OpBuilder::InsertionGuard guard(B);
      if (p.InBounds) {
        auto branch = scf::IfOp::create(B, Loc, p.InBounds);
        B.setInsertionPoint(branch.thenYield());
      }
      // The run starts at a multiple of kFmaVector elements of a row whose
      // length is one too.
      vector::StoreOp::create(
          B, Loc, p.Result, C.Out, p.Indices, /*nontemporal=*/false,
          llvm::MaybeAlign(std::min<int64_t>(
              16, kFmaVector * outType.getIntOrFloatBitWidth() / 8)));
    }
    pending.clear();
  };
  // With K slices, every thread stores its partial sums into the A stages
  // (once no thread reads them: each waited for its own copies), as
  // [slice][row][column]; after a barrier, slice s finishes rows s, s +
  // Slices, ... of each thread's TM, adding the slices' sums in slice
  // order as the staged epilogue does. Two barriers in all, where staging
  // 16 rows at a time took two a chunk with a quarter of the threads busy.
  Value partials;
  int64_t pitch = T.BN + kStagingPad;
  VectorType sumType = VectorType::get({kFmaVector}, B.getF32Type());
  auto partialAt = [&](Value slice, Value row, Value col) {
    return SmallVector<Value>{add(mul(add(mul(slice, T.BM), row), pitch), col)};
  };
  int64_t rows = T.TM;
  if (T.Slices > 1) {
    gpu::BarrierOp::create(B, Loc);
    partials = memref::CollapseShapeOp::create(
        B, Loc, TileA, SmallVector<ReassociationIndices>{{0, 1, 2}});
    storeFmaRuns(results, partials, fmaRow(), [&](Value row, Value col) {
      return partialAt(Slice, row, col);
    });
    gpu::BarrierOp::create(B, Loc);
    rows = T.TM / T.Slices;
  }
  for (int64_t q = 0; q < rows; ++q)
    for (int64_t r = 0; r < T.TN / kFmaVector; ++r) {
      if (static_cast<int64_t>(pending.size()) * kFmaVector == kPendingOutputs)
        flush();
      Value rowInTile = T.Slices > 1 ? add(fmaRow(), add(Slice, q * T.Slices))
                                     : add(fmaRow(), q);
      Value m = add(Row0, rowInTile), n = add(Col0, fmaColumn(r));
      // A run is in or past N whole, as kFmaVector divides N.
      Value inBounds = both(rowInBounds(m), columnInBounds(n));
      Value result = zeroUnless(B, Loc, inBounds, runType, [&]() -> Value {
        OutputRun operands(B, Loc, C, at(outMap, m, n, nullptr), kFmaVector);
        Value sums;
        for (int64_t slice = 0; partials && slice < T.Slices; ++slice) {
          Value part = vector::LoadOp::create(
              B, Loc, sumType, partials,
              partialAt(idx(slice), rowInTile, fmaColumn(r)),
              /*nontemporal=*/false, llvm::MaybeAlign(16));
          sums = sums ? arith::AddFOp::create(B, Loc, sums, part) : part;
        }
        SmallVector<Value> values;
        for (int64_t j = 0; j < kFmaVector; ++j) {
          Value v = sums ? vector::ExtractOp::create(B, Loc, sums,
                                                     ArrayRef<int64_t>{j})
                               .getResult()
                         : results[q * T.TN + r * kFmaVector + j];
          if (!init)
            v = arith::AddFOp::create(B, Loc, operands.initialValue(j), v);
          values.push_back(operands.applyEpilogue(v, j));
        }
        return vector::FromElementsOp::create(B, Loc, runType, values)
            .getResult();
      });
      pending.push_back(
          {result, inBounds, storeIndices(C, at(outMap, m, n, nullptr))});
    }
  flush();
}

LogicalResult buildKernel(func::FuncOp func, const Contraction &c,
                          const MmaTile &tile,
                          const GpuMatrixInstruction *instruction,
                          SymbolTable &symbols) {
  MmaKernelBuilder(func, c, tile, instruction, symbols).build();
  eraseTensorProgram(func);
  OpBuilder builder(func);
  func->setAttr(kWorkgroupSizeAttr,
                builder.getDenseI64ArrayAttr({tile.threads(), 1, 1}));
  if (tile.Wgmma)
    func->setAttr(kSharedMemoryBytesAttr,
                  builder.getI64IntegerAttr(tile.dynamicSharedBytes()));
  if (tile.WorkgroupsPerProcessor)
    func->setAttr(kWorkgroupsPerProcessorAttr,
                  builder.getI64IntegerAttr(tile.WorkgroupsPerProcessor));
  return success();
}

} // namespace

LogicalResult buildMmaContractionKernel(func::FuncOp func, SymbolTable &symbols,
                                        const GpuTarget &target,
                                        bool allowTf32) {
  // Both kernels are filled by cp.async. Half operands on wgmma (of any N,
  // a multiple of 8) where the chip has it and the shared memory for its
  // stages; else on mma.sync m16n8k16's fragments, for f16 only
  // (upstream's lowering of nvgpu.mma.sync takes no bf16). f32 operands,
  // where the user allows rounding them to tf32, on mma.sync m16n8k8: wgmma
  // would need B K-innermost in shared memory (it transposes 16-bit
  // operands only), and cp.async copies B as it is stored, N-innermost.
  if (!target.AsyncCopy)
    return failure();
  FailureOr<Contraction> c = matchContraction(func, /*dynamicRows=*/true);
  if (failed(c))
    return failure();
  Type operand = multiplyAccumulateType(c->Op);
  if (!operand)
    return failure();
  // IEEE f32 on the CUDA cores through the same pipeline, where its tiles
  // (32 rows and columns at least) are not mostly empty; a matrix-vector
  // product stays on the SIMT kernel.
  if (operand.isF32() && !allowTf32) {
    if (c->M < 32 || c->N < 32)
      return failure();
    if (std::optional<SplitTf32Choice> wgmma = chooseSplitTf32Tile(*c, target))
      return buildKernel(func, *c, wgmma->Tile, wgmma->Instruction, symbols);
    std::optional<MmaTile> tile = chooseFmaTile(*c, target);
    if (!tile)
      return failure();
    return buildKernel(func, *c, *tile, /*instruction=*/nullptr, symbols);
  }
  StringRef operandName = operand.isF32()    ? "tf32"
                          : operand.isBF16() ? "bf16"
                                             : "f16";
  const GpuMatrixInstruction *instruction = target.findMatrixInstruction(
      GpuMatrixInstruction::Kind::Wgmma, operandName, "f32");
  SmallVector<MmaTile> tiles = wgmmaTileOrder(*c, target);
  if (operand.isF32() || !instruction || instruction->M != kWgmmaM ||
      instruction->K != kWgmmaK ||
      llvm::any_of(kWgmmaTiles, [&](const MmaTile &t) {
        return target.MaxSharedMemoryBytes < t.dynamicSharedBytes();
      })) {
    instruction = target.findMatrixInstruction(
        GpuMatrixInstruction::Kind::MmaSync, operandName, "f32");
    tiles.assign(std::begin(kTiles), std::end(kTiles));
    if (!instruction || operand.isBF16() || instruction->M != kMmaM ||
        instruction->N != kMmaN || instruction->K != mmaSyncK(operand))
      return failure();
    if (operand.isF32())
      for (MmaTile &tile : tiles)
        tile = tf32Tile(tile);
  }
  std::optional<MmaTile> tile = chooseTile(*c, target, tiles);
  if (!tile)
    return failure();
  // A grid at most half the chip: mma.sync's 32 x 32 tiles, where they
  // give twice the workgroups (f16 and tf32: no bf16 mma.sync upstream).
  if (!operand.isBF16() &&
      workgroupCount(*c, *tile) * 2 <= target.ProcessorCount)
    if (const GpuMatrixInstruction *mmaSync = target.findMatrixInstruction(
            GpuMatrixInstruction::Kind::MmaSync, operandName, "f32");
        mmaSync && mmaSync->M == kMmaM && mmaSync->N == kMmaN &&
        mmaSync->K == mmaSyncK(operand)) {
      // Copied as the chosen tile is (the same bytes a copy): no other
      // check.
      MmaTile small = operand.isF32() ? tf32Tile(kSmallTile) : kSmallTile;
      if (workgroupCount(*c, small) >= 2 * workgroupCount(*c, *tile)) {
        tile = small;
        instruction = mmaSync;
      }
    }
  if (tile->Wgmma) {
    // A wgmma kernel keeps no more stages than it has steps to look ahead
    // to, and one of four K steps without room for a stage each (below)
    // the three its pipeline needs: its workgroups are short, and more of
    // them a processor overlap one's copies with another's epilogue.
    // Measured before the stage per step: ResNet50 f16 batch 32's 28x28
    // convolution of K 128, 128 x 128 tiles: 4 stages, one workgroup a
    // processor, 44.6 us; 3 stages, two, 36.6 (ncu).
    //
    // A loop of at most three steps takes a stage for each, all copied
    // before it (MmaKernelBuilder::build), and its dynamic shared memory is
    // then at least the epilogue's staging: a 1x1 convolution over 64
    // channels, 64 x 128 tiles, 36 KiB instead of 74 (ResNet50 f16 batch
    // 32's, 48.5 -> 38.9 us; MobileNetV2's 1x1 convolutions of 1 to 3
    // steps 7 to 20% faster). So does one of four where that leaves three
    // workgroups a processor (ResNet50's stem, 64 x 64 tiles of 4 steps,
    // 109.5 -> 91.3 us); with two, one of its 64 x 128 tiles ran 20%
    // slower.
    int64_t steps = llvm::divideCeilSigned(c->K, tile->BK);
    MmaTile perStep = *tile;
    perStep.Stages = steps;
    if (steps <= kAllAheadSteps ||
        (steps <= kAllAheadStepsWithRoom &&
         target.workgroupsBySharedMemory(perStep.dynamicSharedBytes()) >= 3))
      tile->Stages = steps;
    else
      tile->Stages =
          steps <= 4 ? 3 : std::clamp<int64_t>(steps + 2, 3, tile->Stages);
    // A long K loop in a grid of at most one workgroup a processor has no
    // other workgroup to overlap its copies' latency with, so it looks
    // further ahead: as many stages as its steps use and shared memory
    // holds (ResNet50 f16 batch 32's 7x7 layers, 104 workgroups of 128 x
    // 64 and 32 to 72 steps: 1.357 -> 1.324 ms for the model). Not a
    // short one: the ViT's projections (6 to 24 steps, 72 to 96
    // workgroups) ran no faster under ncu and the model 2% slower.
    if (steps >= kDeepSteps &&
        workgroupCount(*c, *tile) <= target.ProcessorCount) {
      int64_t fitting = (target.MaxSharedMemoryBytes - kWgmmaAtomBytes) /
                        (tile->stageBytesA() + tile->stageBytesB());
      tile->Stages = std::max(tile->Stages,
                              std::min({steps + 2, kMaxWgmmaStages, fitting}));
    }
    // A tile of two warpgroups (256 threads) runs two workgroups a
    // processor where their stages leave room for both: the back end then
    // keeps a thread's registers to half the file, which such a tile
    // otherwise overruns (ResNet50's 56x56 3x3 convolution, 128 x 64
    // tiles: 155 registers, one workgroup a processor, 41.7 us; 128
    // registers, two, 36.8). More than two would spill; a one-warpgroup
    // tile's registers fit two anyway.
    if (tile->BM > kWgmmaM &&
        target.workgroupsBySharedMemory(tile->dynamicSharedBytes()) >= 2)
      tile->WorkgroupsPerProcessor = 2;
  }
  return buildKernel(func, *c, *tile, instruction, symbols);
}

} // namespace kiln
