//===- TileConfig.cpp - CPU tile size heuristics --------------------------===//

#include "compiler/codegen/cpu/TileConfig.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

using namespace mlir;

namespace kiln {

int64_t largestDivisorAtMost(int64_t n, int64_t cap) {
  if (n <= 0 || cap <= 1)
    return 1;
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

int64_t tileSizeAtMost(int64_t n, int64_t cap) {
  if (n <= cap)
    return std::max<int64_t>(n, 1);
  int64_t divisor = largestDivisorAtMost(n, cap);
  return 2 * divisor >= cap ? divisor : cap;
}

namespace {

// Elements a workgroup should cover: enough work to amortize the call and
// keep operands in L1/L2, few enough to leave parallelism.
constexpr int64_t kWorkgroupElements = 4096;
constexpr int64_t kReductionWorkgroupRows = 64;
// Lanes of the innermost vector dimension (two AVX2 registers of f32).
constexpr int64_t kVectorLanes = 16;
// What a dynamic extent is taken for when choosing tiles: longer than any
// tile and divisible by every power of two a tile size takes, so each loop
// gets its wanted size.
constexpr int64_t kDynamicRangeAssumed = int64_t(1) << 30;

// Fills `sizes` for the parallel loops in `order` (innermost first) so their
// product approaches `budget`.
void tileParallelForBudget(ArrayRef<int64_t> ranges, ArrayRef<unsigned> order,
                           int64_t budget, SmallVectorImpl<int64_t> &sizes) {
  for (unsigned loop : order) {
    int64_t size = tileSizeAtMost(ranges[loop], std::max<int64_t>(budget, 1));
    sizes[loop] = size;
    budget /= size;
  }
}

bool isDecomposableWindowOp(Operation *op) {
  return isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp,
             linalg::PoolingNhwcSumOp, linalg::PoolingNhwcMaxOp,
             linalg::PoolingNhwcMinOp, linalg::PoolingNhwcMaxUnsignedOp,
             linalg::PoolingNhwcMinUnsignedOp>(op);
}

} // namespace

std::optional<CpuTileConfig> chooseCpuTileConfig(linalg::LinalgOp anchor) {
  SmallVector<int64_t> ranges = anchor.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    // A window op is decomposed only over static extents.
    if (isDecomposableWindowOp(anchor))
      return std::nullopt;
    // A dynamic extent (issue 19) is tiled as a long one would be: the
    // wanted sizes, the last tile partial (peeled, or masked up to the
    // tile's size).
    for (int64_t &range : ranges)
      if (ShapedType::isDynamic(range))
        range = kDynamicRangeAssumed;
  }
  unsigned numLoops = ranges.size();
  SmallVector<utils::IteratorType> iterators = anchor.getIteratorTypesArray();
  CpuTileConfig config;
  config.Workgroup.assign(numLoops, 0);
  config.Vector.assign(numLoops, 0);
  config.Reduction.assign(numLoops, 0);

  SmallVector<unsigned> parallelInnermostFirst, reductions;
  for (unsigned i = numLoops; i-- > 0;) {
    if (iterators[i] == utils::IteratorType::parallel)
      parallelInnermostFirst.push_back(i);
    else
      reductions.push_back(i);
  }

  if (isDecomposableWindowOp(anchor)) {
    // Loops: (n, oh, ow, c|f, [kh, kw, c]). One output row per vector tile
    // and one filter row per reduction step let the 2-D window decompose
    // into vectorizable 1-D convolutions.
    // Partial vector tiles of a window op must have static extents to be
    // decomposed, so the workgroup tiles of ow and c|f divide them (rows are
    // vector-tiled one at a time and need not).
    auto dividingTile = [](int64_t n, int64_t cap) {
      int64_t divisor = largestDivisorAtMost(n, cap);
      return 4 * divisor >= cap || n > 4 * cap ? divisor : n;
    };
    config.Workgroup[0] = 1;
    config.Workgroup[1] = tileSizeAtMost(ranges[1], 4);
    config.Workgroup[2] = dividingTile(ranges[2], 16);
    config.Workgroup[3] = dividingTile(ranges[3], 64);
    config.Vector[0] = 1;
    config.Vector[1] = 1;
    config.Vector[2] = tileSizeAtMost(config.Workgroup[2], 4);
    config.Vector[3] = tileSizeAtMost(config.Workgroup[3], kVectorLanes);
    config.Reduction[4] = 1; // kh
    if (isa<linalg::Conv2DNhwcHwcfOp>(anchor))
      config.Reduction[6] = tileSizeAtMost(ranges[6], 8); // c
    return config;
  }

  if (linalg::isaContractionOpInterface(anchor) &&
      parallelInnermostFirst.size() >= 2) {
    unsigned n = parallelInnermostFirst[0], m = parallelInnermostFirst[1];
    for (unsigned loop : parallelInnermostFirst) {
      config.Workgroup[loop] = 1;
      config.Vector[loop] = 1;
    }
    config.Workgroup[n] = tileSizeAtMost(ranges[n], 64);
    config.Workgroup[m] = tileSizeAtMost(ranges[m], 64);
    config.Vector[n] = tileSizeAtMost(config.Workgroup[n], kVectorLanes);
    config.Vector[m] = tileSizeAtMost(config.Workgroup[m], 4);
    for (unsigned loop : reductions)
      config.Reduction[loop] = 1;
    if (!reductions.empty())
      config.Reduction[reductions[0]] =
          tileSizeAtMost(ranges[reductions[0]], 8);
    return config;
  }

  if (!reductions.empty()) {
    tileParallelForBudget(ranges, parallelInnermostFirst,
                          kReductionWorkgroupRows, config.Workgroup);
    for (unsigned loop : parallelInnermostFirst)
      config.Vector[loop] = 1;
    if (!parallelInnermostFirst.empty()) {
      unsigned inner = parallelInnermostFirst[0];
      config.Vector[inner] = tileSizeAtMost(config.Workgroup[inner], 8);
    }
    for (unsigned loop : reductions)
      config.Reduction[loop] = 1;
    config.Reduction[reductions[0]] =
        tileSizeAtMost(ranges[reductions[0]], kVectorLanes);
    return config;
  }

  tileParallelForBudget(ranges, parallelInnermostFirst, kWorkgroupElements,
                        config.Workgroup);
  for (unsigned loop : parallelInnermostFirst)
    config.Vector[loop] = 1;
  if (!parallelInnermostFirst.empty()) {
    unsigned inner = parallelInnermostFirst[0];
    config.Vector[inner] =
        tileSizeAtMost(config.Workgroup[inner], kVectorLanes);
  }
  return config;
}

} // namespace kiln
