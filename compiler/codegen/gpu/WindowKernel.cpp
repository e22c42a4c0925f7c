//===- WindowKernel.cpp - Depthwise convolutions and poolings -------------===//
//
// A dispatch whose root slides a window over its input without reducing
// over channels, a depthwise convolution or a pooling
//
//   out[n, oh, ow, c] = combine over (kh, kw) of
//                       in[n, oh * s + kh * d, ow * s + kw * d, c]
//                       (times w[kh, kw, c] for a convolution)
//
// (any such indexing; see matchWindow), with a KernelDispatch's init and
// epilogue, is written out as a kernel:
//
//   workgroup: an output tile of L channels x H rows x (G * R) columns
//   the workgroup copies the part of the input the tile's windows read (its
//     box) to shared memory, consecutive threads on consecutive channels,
//     each thread's loads all issued before its stores
//   barrier
//   each thread computes R consecutive outputs of one row and channel: for
//     each window position, one filter load (the same for its R outputs)
//     and R shared-memory loads
//   epilogue, predicated stores
//
// Each input element is read from global memory about once per workgroup
// instead of once per window holding it (KH * KW / stride² times); there is
// no channel reduction to tile, so this is not a GEMM. An input padded by a
// constant in the dispatch (kiln-form-dispatches' fuse-input-pads) is read
// from the unpadded binding, the padding value wherever the box falls
// outside it: the padded tensor is never stored. Windows larger than
// the shared box allows (a global pooling over a large image) are left to
// kiln-gpu-tile.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/KernelDispatch.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

namespace kiln {
#define GEN_PASS_DEF_GPUWINDOWKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

constexpr int64_t kThreads = 256;
// Outputs per thread along a row.
constexpr int64_t kOutputsPerThread = 4;

// The root's loops by role, and the kernel's tiling of them.
struct Window : KernelDispatch {
  Value Input, Filter; // bindings; Filter is null when the payload ignores it
  // The root's input: Input, or Input padded by PadLow (and up to
  // InputShape) with PadValue.
  SmallVector<int64_t> InputShape, PadLow;
  TypedAttr PadValue;
  // Parallel loops: image loops index the input through a window, lanes
  // are the output's loops after the last image loop (channels); other
  // parallel loops (batch) take tiles of one.
  SmallVector<int64_t> ImageDims, LaneDims, ReductionDims;
  // Per root loop: the workgroup tile (parallel loops) and the threads
  // along it; the innermost image loop's tile is Groups * R, the innermost
  // lane loop's Groups * V.
  SmallVector<int64_t> Tile, Groups;
  int64_t R = 1;
  // Channels a thread computes together, as vectors (1: scalars).
  int64_t V = 1;
  // The input box one workgroup reads, per input dimension.
  SmallVector<int64_t> Box;
  // Issue 19: the batch loop (a parallel loop outside the image and lane
  // loops, the input's and output's outermost index) when its extent is
  // known per call only; tiles of one along it, never partial.
  std::optional<unsigned> DynamicBatch;
};

// The box of input indices one workgroup tile's windows read: along each
// input dimension, `map`'s result over tile-sized parallel loops and whole
// reduction loops (its coefficients are positive, so that is a range).
SmallVector<int64_t> boxOf(AffineMap map, ArrayRef<int64_t> extents) {
  SmallVector<int64_t> last;
  for (int64_t extent : extents)
    last.push_back(extent - 1);
  SmallVector<int64_t> box = map.compose(last);
  for (int64_t &extent : box)
    ++extent;
  return box;
}

int64_t boxBytes(const Window &w) {
  int64_t elements = 1;
  for (int64_t extent : w.Box)
    elements *= extent;
  return elements *
         cast<MemRefType>(w.Input.getType()).getElementTypeBitWidth() / 8;
}

// The workgroups of w's grid (a batch known per call counted as
// kAssumedOuterRows).
int64_t workgroupCount(const Window &w) {
  int64_t count = 1;
  for (auto [range, tile, iterator] : llvm::zip(
           w.Ranges, w.Tile, linalg::LinalgOp(w.Op).getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      count *= llvm::divideCeilSigned(
          ShapedType::isDynamic(range) ? kAssumedOuterRows : range, tile);
  return count;
}

// Sets w's tiles and box for the threads along each loop.
void tile(Window &w) {
  w.Tile.assign(w.Ranges.size(), 1);
  for (int64_t dim : w.ReductionDims)
    w.Tile[dim] = w.Ranges[dim];
  for (size_t i = 0; i < w.Ranges.size(); ++i)
    if (w.Groups[i] != 0)
      w.Tile[i] = w.Groups[i];
  w.Tile[w.LaneDims.back()] *= w.V;
  int64_t inner = w.ImageDims.back();
  w.Tile[inner] = w.Groups[inner] * w.R;
  AffineMap map = w.Op.getMatchingIndexingMap(w.Op.getDpsInputOperand(0));
  w.Box = boxOf(map, w.Tile);
}

// R, the outputs along a row a thread computes, for vectors of `v`
// channels: 4 where they share a filter load, or for scalars; a pooling's
// vectors (no filter) gain nothing from more, and more threads fill the
// chip.
int64_t outputsPerThread(const Window &w, int64_t v) {
  return std::min(w.Filter || v == 1 ? kOutputsPerThread : 1,
                  w.Ranges[w.ImageDims.back()]);
}

// The channels a thread takes as one vector of 16 bytes: where the
// innermost lane loop (channels) is the innermost index of the input, the
// filter and the output, each an identity-layout binding whose channels
// (unpadded) are whole vectors, and the payload is elementwise. Then the
// box is copied, and the window read, 16 bytes at a time instead of an
// element (ResNet50's max pooling, f16: 8 channels a load). Only where the
// vector kernel has a sixteenth of the threads the chip holds (16,896 on
// an H100): with fewer, the scalar kernel's several times more threads
// hide more latency (MobileNetV2 f32 at batch 1, 14x14x384 depthwise:
// 4,704 vector threads, 12.4 -> 16.6 us with vectors), while at batch 32
// every depthwise layer gained (f16 7x7x576: 28,224 vector threads,
// 14.8 -> 8.6 us).
int64_t vectorWidth(const Window &w, AffineMap mapIn, AffineMap mapFilter,
                    AffineMap mapOut, const GpuTarget &target) {
  int64_t channel = w.LaneDims.back();
  auto type = cast<MemRefType>(w.Input.getType());
  int64_t width = 16 / (type.getElementTypeBitWidth() / 8);
  auto alongChannels = [&](Value binding, AffineMap map) {
    auto memref = dyn_cast<MemRefType>(binding.getType());
    return memref && isRowMajorPastOutermost(memref) &&
           memref.getShape().back() % width == 0 &&
           map.getResults().back() ==
               getAffineDimExpr(channel, map.getContext());
  };
  int64_t inputChannels = type.getRank() - 1;
  if (width < 2 || w.Ranges[channel] % width != 0 ||
      !isVectorizablePayload(w) || !alongChannels(w.Input, mapIn) ||
      !alongChannels(w.Out, mapOut) ||
      (w.Filter && !alongChannels(w.Filter, mapFilter)) ||
      (!w.PadLow.empty() &&
       (w.PadLow[inputChannels] != 0 ||
        w.InputShape[inputChannels] != type.getShape().back())))
    return 1;
  // Its threads: one per vector of R outputs.
  int64_t outputs = 1;
  for (auto [range, iterator] :
       llvm::zip(w.Ranges, linalg::LinalgOp(w.Op).getIteratorTypesArray()))
    if (iterator == utils::IteratorType::parallel)
      outputs *= ShapedType::isDynamic(range) ? kAssumedOuterRows : range;
  if (outputs / (outputsPerThread(w, width) * width) <
      target.residentThreads() / 16)
    return 1;
  return width;
}

FailureOr<Window> matchWindow(func::FuncOp func, const GpuTarget &target) {
  FailureOr<KernelDispatch> dispatch =
      matchKernelDispatch(func, /*permutedStore=*/false,
                          /*dynamicRanges=*/true);
  if (failed(dispatch))
    return failure();
  Window w;
  static_cast<KernelDispatch &>(w) = *dispatch;
  linalg::LinalgOp op = w.Op;
  if (!linalg::isaConvolutionOpInterface(op))
    return failure();
  Value input = op.getDpsInputOperand(0)->get();
  w.InputShape = llvm::to_vector(cast<ShapedType>(input.getType()).getShape());
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    if (!isConstantPadOfStaticWidths(pad) ||
        !matchPattern(pad.getConstantPaddingValue(), m_Constant(&w.PadValue)))
      return failure();
    w.PadLow = llvm::to_vector(pad.getStaticLow());
    input = pad.getSource();
  }
  w.Input = bindingOf(input);
  if (!w.Input ||
      cast<MemRefType>(w.Input.getType()).getElementTypeBitWidth() % 8 != 0)
    return failure();
  OpOperand *filter = op.getDpsInputOperand(1);
  if (op.payloadUsesValueFromOperand(filter)) {
    w.Filter = bindingOf(filter->get());
    if (!w.Filter)
      return failure();
  }
  AffineMap mapIn = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap mapFilter = op.getMatchingIndexingMap(filter);
  AffineMap mapOut = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!mapFilter.isProjectedPermutation() || !mapOut.isProjectedPermutation())
    return failure();
  // Loops in a window index of the input, and those indexing it alone.
  unsigned loops = op.getNumLoops();
  SmallVector<unsigned> uses(loops, 0);
  SmallVector<bool> inWindow(loops, false);
  for (AffineExpr e : mapIn.getResults()) {
    SmallVector<unsigned> dims;
    if (!collectWindowLoops(e, dims))
      return failure();
    for (unsigned dim : dims) {
      ++uses[dim];
      inWindow[dim] = !isa<AffineDimExpr>(e);
    }
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < loops; ++d) {
    if (uses[d] > 1)
      return failure();
    // Every reduction is over the window (none over channels).
    if (iterators[d] == utils::IteratorType::reduction) {
      if (!inWindow[d] || mapOut.isFunctionOfDim(d))
        return failure();
      w.ReductionDims.push_back(d);
    } else if (!mapOut.isFunctionOfDim(d)) {
      return failure();
    }
  }
  for (AffineExpr e : mapOut.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (inWindow[d]) {
      w.ImageDims.push_back(d);
      w.LaneDims.clear();
    } else if (!w.ImageDims.empty()) {
      w.LaneDims.push_back(d);
    }
  }
  if (w.ImageDims.empty() || w.LaneDims.empty() || w.ReductionDims.empty())
    return failure();
  // At most one loop of a per-call extent: the batch, outermost in the
  // input and the output, neither an image nor a lane loop.
  for (unsigned d = 0; d < loops; ++d) {
    if (!ShapedType::isDynamic(w.Ranges[d]))
      continue;
    if (w.DynamicBatch || llvm::is_contained(w.ImageDims, d) ||
        llvm::is_contained(w.LaneDims, d) ||
        mapOut.getResult(0) != getAffineDimExpr(d, func.getContext()) ||
        mapIn.getResult(0) != getAffineDimExpr(d, func.getContext()))
      return failure();
    w.DynamicBatch = d;
  }
  // A thread's R outputs share their filter element.
  int64_t inner = w.ImageDims.back();
  if (w.Filter && mapFilter.isFunctionOfDim(inner))
    return failure();

  // Lanes from the innermost channel loop outwards, then threads along the
  // image loops, doubling the innermost and the others in turn so the tile
  // (and its box) stays square-ish.
  w.V = vectorWidth(w, mapIn, mapFilter, mapOut, target);
  // Channels (consecutive threads) per workgroup: a subgroup's worth (in
  // vectors of V), whose shared-memory reads then spread over the banks,
  // whose global reads are one line, and whose box holds as many bytes a
  // window position whatever V is.
  const int64_t lanesPerWorkgroup =
      std::max<int64_t>(1, target.SubgroupSize / w.V);
  w.Groups.assign(loops, 0);
  int64_t lanes = 1;
  for (int64_t dim : llvm::reverse(w.LaneDims)) {
    int64_t range =
        dim == w.LaneDims.back() ? w.Ranges[dim] / w.V : w.Ranges[dim];
    w.Groups[dim] = std::min(range, lanesPerWorkgroup / lanes);
    lanes *= w.Groups[dim];
  }
  w.R = outputsPerThread(w, w.V);
  for (int64_t dim : w.ImageDims)
    w.Groups[dim] = 1;
  auto limit = [&](int64_t dim) {
    return dim == inner ? llvm::divideCeilSigned(w.Ranges[dim], w.R)
                        : w.Ranges[dim];
  };
  int64_t threads = lanes;
  for (bool grew = true; grew;) {
    grew = false;
    for (int64_t dim : llvm::reverse(w.ImageDims)) {
      int64_t groups = std::min(w.Groups[dim] * 2, limit(dim));
      if (groups == w.Groups[dim] ||
          threads / w.Groups[dim] * groups > kThreads)
        continue;
      threads = threads / w.Groups[dim] * groups;
      w.Groups[dim] = groups;
      grew = true;
    }
  }
  tile(w);
  // Shrink until the box fits `limit` bytes: threads along the outer image
  // loops first, then along the row, then outputs per thread.
  auto fit = [&](Window &x, int64_t limit) -> LogicalResult {
    while (boxBytes(x) > limit) {
      auto outer = llvm::find_if(x.ImageDims, [&](int64_t dim) {
        return dim != inner && x.Groups[dim] > 1;
      });
      if (outer != x.ImageDims.end())
        x.Groups[*outer] /= 2;
      else if (x.Groups[inner] > 1)
        x.Groups[inner] /= 2;
      else if (x.R > 1)
        x.R /= 2;
      else
        return failure();
      tile(x);
    }
    return success();
  };
  // The shared box takes at most half the static shared memory of a
  // workgroup, leaving room for two workgroups per processor and more. A
  // window of 5 or more a side may take all of it where a processor still
  // holds two and the grid keeps four workgroups a processor: its halo (6
  // of 7x7's 22 columns in a tile of 16) makes a small tile read each input
  // several times (ConvNeXt-T's 7x7 depthwise layers, f32 at batch 32,
  // read 9.6 input elements an output), while at batch 1 a larger tile
  // would leave processors idle.
  Window grown = w;
  if (failed(fit(w, target.SharedMemoryBytes / 2)))
    return failure();
  int64_t window = 1;
  for (int64_t dim : w.ReductionDims)
    window = std::max(window, w.Ranges[dim]);
  if (window >= 5 &&
      target.workgroupsBySharedMemory(target.SharedMemoryBytes) >= 2 &&
      workgroupCount(w) >= 4 * target.ProcessorCount &&
      succeeded(fit(grown, target.SharedMemoryBytes)))
    return grown;
  return w;
}

class WindowKernelBuilder {
public:
  WindowKernelBuilder(func::FuncOp func, Window w, SymbolTable &symbols)
      : Func(func), W(std::move(w)), Symbols(symbols), B(func.getContext()),
        Loc(W.Op.getLoc()) {}

  // Writes the kernel; returns its workgroup size.
  int64_t build();

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(B, Loc, v); }
  Value add(Value a, Value b) { return arith::AddIOp::create(B, Loc, a, b); }
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
  // `type` as the kernel computes it: a vector of V lanes, or itself.
  Type lanesOf(Type type) {
    return W.V == 1 ? type : VectorType::get({W.V}, type);
  }
  // V consecutive elements along the innermost index at `indices` (which
  // is a multiple of V there): a vector load, or one element.
  Value load(Value memref, ValueRange indices) {
    if (W.V == 1)
      return memref::LoadOp::create(B, Loc, memref, indices);
    auto type = cast<MemRefType>(memref.getType());
    return vector::LoadOp::create(
        B, Loc, cast<VectorType>(lanesOf(type.getElementType())), memref,
        indices, /*nontemporal=*/false, llvm::MaybeAlign(alignment(type)));
  }
  void store(Value value, Value memref, ValueRange indices) {
    if (W.V == 1) {
      memref::StoreOp::create(B, Loc, value, memref, indices);
      return;
    }
    vector::StoreOp::create(
        B, Loc, value, memref, indices, /*nontemporal=*/false,
        llvm::MaybeAlign(alignment(cast<MemRefType>(memref.getType()))));
  }
  // A vector's alignment: its bytes, up to the 16 a binding's (and shared
  // buffer's) start and each multiple of V elements along its rows have.
  int64_t alignment(MemRefType type) {
    int64_t bytes = W.V * type.getElementTypeBitWidth() / 8;
    return std::min<int64_t>(bytes & -bytes, 16);
  }
  // Copies the input box at `origin` (input indices) to `box`.
  void copyBox(Value box, ArrayRef<Value> tileStart, Value tid,
               int64_t threads);

  func::FuncOp Func;
  Window W;
  SymbolTable &Symbols;
  OpBuilder B;
  Location Loc;
};

Value WindowKernelBuilder::guarded(Value inBounds, Type type,
                                   function_ref<Value()> compute) {
  return zeroUnless(B, Loc, inBounds, type, compute);
}

void WindowKernelBuilder::copyBox(Value box, ArrayRef<Value> tileStart,
                                  Value tid, int64_t threads) {
  linalg::LinalgOp op = W.Op;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  auto inputType = cast<MemRefType>(W.Input.getType());
  // The box's first element: the windows' indices at the tile's start with
  // every reduction loop at 0 (tileStart holds 0 there).
  SmallVector<Value> origin = applyToLoops(B, Loc, map, tileStart);
  // Outside the input: the padding value, or anything (those elements of
  // the box feed no stored output), zero.
  TypedAttr outsideValue =
      W.PadValue ? W.PadValue
                 : cast<TypedAttr>(B.getZeroAttr(inputType.getElementType()));
  Value outside =
      W.V == 1 ? arith::ConstantOp::create(B, Loc, outsideValue).getResult()
               : arith::ConstantOp::create(
                     B, Loc,
                     DenseElementsAttr::get(
                         cast<ShapedType>(lanesOf(outsideValue.getType())),
                         ArrayRef<Attribute>{outsideValue}))
                     .getResult();
  // A dimension needs a bounds check where the last tile's box reaches
  // past the input (a tile the output does not fill).
  SmallVector<int64_t> lastStart;
  for (auto [range, size] : llvm::zip(W.Ranges, W.Tile))
    lastStart.push_back(size == range || ShapedType::isDynamic(range)
                            ? 0
                            : (range - 1) / size * size);
  for (int64_t dim : W.ReductionDims)
    lastStart[dim] = 0;
  SmallVector<int64_t> lastOrigin = map.compose(lastStart);
  // The box in copies: V elements along its innermost dimension each.
  SmallVector<int64_t> copyShape(W.Box);
  copyShape.back() /= W.V;
  int64_t elements = 1;
  for (int64_t extent : copyShape)
    elements *= extent;
  // Unrolled, every load of this thread issued before its first store: the
  // loads' latencies overlap instead of one following the other (a loop
  // storing each element before loading the next waited a global load's
  // latency per element).
  struct Copy {
    Value Element, InBox;
    SmallVector<Value> Position;
  };
  SmallVector<Copy> copies;
  for (int64_t first = 0; first < elements; first += threads) {
    Value linear = add(tid, idx(first));
    // The last round's threads past the box copy nothing.
    Value inBox;
    if (first + threads > elements)
      inBox = lessThan(linear, elements);
    SmallVector<Value> position = delinearize(B, Loc, linear, copyShape);
    if (W.V > 1)
      position.back() =
          arith::MulIOp::create(B, Loc, position.back(), idx(W.V));
    SmallVector<Value> indices;
    Value inBounds = inBox;
    for (size_t i = 0; i < position.size(); ++i) {
      Value index = add(origin[i], position[i]);
      int64_t size = inputType.getDimSize(i);
      // A dynamic batch: tiles of one, each inside the input.
      if (ShapedType::isDynamic(size)) {
        indices.push_back(index);
        continue;
      }
      if (!W.PadLow.empty() && (W.PadLow[i] != 0 || W.InputShape[i] != size)) {
        // Unsigned: an index left of the padding wraps past the size.
        index = arith::SubIOp::create(B, Loc, index, idx(W.PadLow[i]));
        inBounds = both(inBounds, lessThan(index, size));
      } else if (lastOrigin[i] + W.Box[i] > size) {
        inBounds = both(inBounds, lessThan(index, size));
      }
      indices.push_back(index);
    }
    Value element = valueUnless(B, Loc, inBounds, outside,
                                [&] { return load(W.Input, indices); });
    copies.push_back({element, inBox, position});
  }
  for (Copy &copy : copies) {
    OpBuilder::InsertionGuard guard(B);
    if (copy.InBox) {
      auto branch = scf::IfOp::create(B, Loc, copy.InBox);
      B.setInsertionPoint(branch.thenYield());
    }
    store(copy.Element, box, copy.Position);
  }
}

int64_t WindowKernelBuilder::build() {
  B.setInsertionPoint(W.Store);
  linalg::LinalgOp op = W.Op;
  AffineMap mapIn = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap mapFilter = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap mapOut = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<int64_t> outTile;
  for (AffineExpr e : mapOut.getResults())
    outTile.push_back(W.Tile[cast<AffineDimExpr>(e).getPosition()]);
  SmallVector<NamedAttribute> config = {
      B.getNamedAttr("workgroup_tile", B.getDenseI64ArrayAttr(outTile)),
      B.getNamedAttr("thread_tile", B.getDenseI64ArrayAttr({W.R})),
      B.getNamedAttr("stages", B.getI64IntegerAttr(1))};
  if (W.V > 1)
    config.push_back(B.getNamedAttr("vector_width", B.getI64IntegerAttr(W.V)));
  if (W.DynamicBatch)
    config.push_back(B.getNamedAttr("dynamic_rows", B.getUnitAttr()));
  setLoweringConfig(Func, "window", config);
  Type element = cast<MemRefType>(W.Input.getType()).getElementType();
  Value box =
      createSharedBuffer(B, Loc, Func, Symbols, "_window", W.Box, element);

  // The workgroup loop over the parallel loops (reductions: one step); a
  // dynamic batch read off the output's view, which the grid program reads
  // per call (kiln-distribute-to-workgroups).
  SmallVector<OpFoldResult> upper;
  SmallVector<int64_t> steps;
  for (auto [range, size] : llvm::zip(W.Ranges, W.Tile)) {
    upper.push_back(B.getIndexAttr(range));
    steps.push_back(size);
  }
  for (int64_t dim : W.ReductionDims) {
    upper[dim] = B.getIndexAttr(1);
    steps[dim] = 1;
  }
  if (W.DynamicBatch)
    upper[*W.DynamicBatch] =
        memref::DimOp::create(B, Loc, W.Out, 0).getResult();
  scf::ForallOp forall = createBlockLoop(B, Loc, upper, steps);
  B.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> tileStart(forall.getInductionVars());
  int64_t threads = 1;
  for (int64_t dim : llvm::concat<const int64_t>(W.LaneDims, W.ImageDims))
    threads *= W.Groups[dim];
  Value tid = gpu::ThreadIdOp::create(B, Loc, gpu::Dimension::x);
  copyBox(box, tileStart, tid, threads);
  gpu::BarrierOp::create(B, Loc);

  // This thread's position in the tile: lanes vary fastest.
  SmallVector<int64_t> order(W.ImageDims), counts;
  llvm::append_range(order, W.LaneDims);
  for (int64_t dim : order)
    counts.push_back(W.Groups[dim]);
  SmallVector<Value> local(W.Ranges.size(), idx(0));
  for (auto [dim, value] : llvm::zip(order, delinearize(B, Loc, tid, counts)))
    local[dim] = value;
  // A thread's first channel.
  int64_t channel = W.LaneDims.back();
  if (W.V > 1)
    local[channel] = arith::MulIOp::create(B, Loc, local[channel], idx(W.V));
  int64_t inner = W.ImageDims.back();
  Value innerStart = arith::MulIOp::create(B, Loc, local[inner], idx(W.R));

  // Output r's tile-local loops, absolute loops and bounds check.
  auto localLoops = [&](int64_t r) {
    SmallVector<Value> loops(local);
    loops[inner] = add(innerStart, idx(r));
    return loops;
  };
  auto absolute = [&](ArrayRef<Value> loops) {
    SmallVector<Value> result;
    for (auto [start, offset] : llvm::zip(tileStart, loops))
      result.push_back(add(start, offset));
    return result;
  };
  Value lanesInBounds;
  for (int64_t dim : W.LaneDims)
    if (W.Ranges[dim] % W.Tile[dim] != 0)
      lanesInBounds =
          both(lanesInBounds,
               lessThan(add(tileStart[dim], local[dim]), W.Ranges[dim]));
  auto inBounds = [&](int64_t r) {
    Value result = lanesInBounds;
    SmallVector<Value> loops = absolute(localLoops(r));
    for (int64_t dim : W.ImageDims)
      if (W.Ranges[dim] % W.Tile[dim] != 0)
        result = both(result, lessThan(loops[dim], W.Ranges[dim]));
    return result;
  };

  Type accType = cast<ShapedType>(op.getDpsInitOperand(0)->get().getType())
                     .getElementType();
  SmallVector<Value> acc;
  for (int64_t r = 0; r < W.R; ++r) {
    if (Value value = uniformInit(W)) {
      acc.push_back(W.V == 1 ? value
                             : vector::BroadcastOp::create(
                                   B, Loc, lanesOf(accType), value)
                                   .getResult());
      continue;
    }
    acc.push_back(guarded(inBounds(r), lanesOf(accType), [&]() -> Value {
      SmallVector<Value> outIndices =
          applyToLoops(B, Loc, mapOut, absolute(localLoops(r)));
      if (W.V == 1)
        return initialValue(B, Loc, W, outIndices);
      OutputRun run(B, Loc, W, outIndices, W.V);
      SmallVector<Value> lanes;
      for (int64_t j = 0; j < W.V; ++j)
        lanes.push_back(run.initialValue(j));
      return vector::FromElementsOp::create(
          B, Loc, cast<VectorType>(lanesOf(accType)), lanes);
    }));
  }

  // The window: one loop per reduction loop, the R outputs unrolled inside.
  SmallVector<Value> window(W.Ranges.size());
  std::function<SmallVector<Value>(size_t, ValueRange)> reduce =
      [&](size_t level, ValueRange values) -> SmallVector<Value> {
    if (level < W.ReductionDims.size()) {
      int64_t dim = W.ReductionDims[level];
      auto loop = scf::ForOp::create(B, Loc, idx(0), idx(W.Ranges[dim]), idx(1),
                                     values);
      OpBuilder::InsertionGuard guard(B);
      B.setInsertionPointToStart(loop.getBody());
      window[dim] = loop.getInductionVar();
      scf::YieldOp::create(B, Loc, reduce(level + 1, loop.getRegionIterArgs()));
      return SmallVector<Value>(loop.getResults());
    }
    Value weight;
    if (W.Filter) {
      SmallVector<Value> loops = absolute(localLoops(0));
      for (int64_t dim : W.ReductionDims)
        loops[dim] = window[dim];
      Type type = cast<MemRefType>(W.Filter.getType()).getElementType();
      weight = guarded(lanesInBounds, lanesOf(type), [&] {
        return load(W.Filter, applyToLoops(B, Loc, mapFilter, loops));
      });
    }
    SmallVector<Value> results;
    for (int64_t r = 0; r < W.R; ++r) {
      SmallVector<Value> loops = localLoops(r);
      for (int64_t dim : W.ReductionDims)
        loops[dim] = window[dim];
      Value in = load(box, applyToLoops(B, Loc, mapIn, loops));
      results.push_back(W.V == 1
                            ? applyRootPayload(B, W, {in, weight, values[r]})
                            : applyRootPayloadToVectors(
                                  B, Loc, W, {in, weight, values[r]}, W.V));
    }
    return results;
  };
  SmallVector<Value> results = reduce(0, acc);

  for (int64_t r = 0; r < W.R; ++r) {
    auto storeOutput = [&] {
      SmallVector<Value> outIndices =
          applyToLoops(B, Loc, mapOut, absolute(localLoops(r)));
      if (W.V == 1) {
        store(applyEpilogue(B, Loc, W, results[r], outIndices), W.Out,
              outIndices);
        return;
      }
      // The epilogue lane by lane, its operands along the channels loaded
      // as vectors.
      OutputRun run(B, Loc, W, outIndices, W.V);
      SmallVector<Value> lanes;
      for (int64_t j = 0; j < W.V; ++j)
        lanes.push_back(run.applyEpilogue(
            vector::ExtractOp::create(B, Loc, results[r], ArrayRef<int64_t>{j}),
            j));
      Type outType = cast<MemRefType>(W.Out.getType()).getElementType();
      store(vector::FromElementsOp::create(
                B, Loc, cast<VectorType>(lanesOf(outType)), lanes),
            W.Out, outIndices);
    };
    Value check = inBounds(r);
    if (!check) {
      storeOutput();
      continue;
    }
    auto branch = scf::IfOp::create(B, Loc, check);
    OpBuilder::InsertionGuard guard(B);
    B.setInsertionPoint(branch.thenYield());
    storeOutput();
  }
  return threads;
}

} // namespace

LogicalResult buildWindowKernel(func::FuncOp func, SymbolTable &symbols,
                                const GpuTarget &target) {
  FailureOr<Window> w = matchWindow(func, target);
  if (failed(w))
    return failure();
  int64_t threads = WindowKernelBuilder(func, std::move(*w), symbols).build();
  eraseTensorProgram(func);
  func->setAttr(kWorkgroupSizeAttr,
                OpBuilder(func).getDenseI64ArrayAttr({threads, 1, 1}));
  return success();
}

namespace {

struct GpuWindowKernelsPass : impl::GpuWindowKernelsBase<GpuWindowKernelsPass> {
  void runOnOperation() override {
    FailureOr<GpuTarget> target = getGpuTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    // Over a dynamic batch too (Window::DynamicBatch).
    buildKernelsOfDispatches(
        getOperation(),
        [&](func::FuncOp func, SymbolTable &symbols) {
          return buildWindowKernel(func, symbols, *target);
        },
        /*dynamicToo=*/true);
  }
};

} // namespace
} // namespace kiln
