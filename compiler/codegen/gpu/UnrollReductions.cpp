//===- UnrollReductions.cpp - Per-thread reduction loops unrolled --------===//
//
// A tiled dispatch whose threads each reduce an output along a loop of a
// constant trip count (kiln-gpu-tile's `unroll_reductions`: a decoder
// step's scores, one 64-long dot product a thread) waits for each step's
// loads before the next: LLVM unrolled such loops by 2. Unrolled by N
// here, a thread issues N steps' loads together.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/LoweringConfig.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace kiln {
#define GEN_PASS_DEF_GPUUNROLLREDUCTIONS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

struct GpuUnrollReductionsPass
    : impl::GpuUnrollReductionsBase<GpuUnrollReductionsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    int64_t factor = getLoweringConfigInt(func, "unroll_reductions", 1);
    if (factor <= 1)
      return;
    // Innermost loops, collected before any is rewritten.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) {
      bool innermost = true;
      loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
      if (innermost)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      std::optional<APInt> count = loop.getStaticTripCount();
      if (!count || count->getActiveBits() > 32)
        continue;
      int64_t trips = count->getSExtValue();
      if (trips <= 1)
        continue;
      if (trips <= factor) {
        (void)loopUnrollFull(loop);
        continue;
      }
      // A factor dividing the trip count: no remainder loop.
      int64_t by = std::min<int64_t>(factor, trips & -trips);
      if (by > 1)
        (void)loopUnrollByFactor(loop, by);
    }
  }
};

} // namespace
} // namespace kiln
