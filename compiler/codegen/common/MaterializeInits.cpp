//===- MaterializeInits.cpp - Fresh destinations for structured ops -------===//
//
// Tiling a dispatch to workgroups makes the root's destination the shared
// output of the workgroup loop. When that destination is fresh (an empty
// tensor, or an op computing into one, such as a fill), tiling fuses its
// producer into each tile and bufferization writes every tile straight into
// the output binding. When it is not (an input binding, a constant, a slice:
// an accumulator read from outside), one-shot bufferization must copy the
// whole read-only value into a temporary before the loop and the temporary
// into the output after it. Once each workgroup runs the loop body for its
// own id, every workgroup runs both whole copies as well, and the last one
// to finish overwrites the others' tiles with the untouched accumulator.
//
// So every structured op gets a fresh destination: an init its payload never
// reads becomes an empty tensor, and one it reads (an accumulator) becomes a
// copy of that value into an empty tensor. The copy is an elementwise
// producer like a fill, so each tile copies only its own slice.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/common/MaterializeInits.h"
#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"

namespace kiln {
#define GEN_PASS_DEF_MATERIALIZEINITS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// True if `value` is a fresh tensor to compute into.
bool isFreshDestination(Value value) {
  Operation *def = value.getDefiningOp();
  // A linalg op's own inits are made fresh in their turn, so its results are
  // computed into fresh tensors. Other ops' results (slices, pads, inserts)
  // cannot be fused into a tile as a destination.
  return def && isa<tensor::EmptyOp, linalg::LinalgOp>(def);
}

} // namespace

void materializeInits(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics())
      ops.push_back(op);
  });
  OpBuilder builder(func.getContext());
  for (linalg::LinalgOp op : ops) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Value value = init.get();
      auto type = dyn_cast<RankedTensorType>(value.getType());
      if (!type || isFreshDestination(value))
        continue;
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      // Sized as the init (tensor.dim of it where dynamic, issue 19).
      Value empty = tensor::EmptyOp::create(
          builder, loc, tensor::getMixedSizes(builder, loc, value),
          type.getElementType());
      if (!op.payloadUsesValueFromOperand(&init)) {
        init.set(empty);
        continue;
      }
      init.set(linalg::CopyOp::create(builder, loc, value, empty).getResult(0));
    }
  }
}

namespace {
struct MaterializeInitsPass : impl::MaterializeInitsBase<MaterializeInitsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func))
        materializeInits(func);
  }
};
} // namespace

} // namespace kiln
