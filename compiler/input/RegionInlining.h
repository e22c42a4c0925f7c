//===- RegionInlining.h - A TOSA region's ops written out elsewhere -*- C++
//-*-===//
//
// tosa.while_loop and tosa.cond_if hold single-block regions ending in
// tosa.yield; the passes rewriting them (unrolled, selected, outlined into
// functions) write a region's ops out at another place.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_INPUT_REGIONINLINING_H
#define KILN_COMPILER_INPUT_REGIONINLINING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {

/// The ops of `region`'s block cloned at `b` with its arguments bound to
/// `arguments` (recorded in `map`, which may hold more); what its
/// terminator yields, mapped.
inline llvm::SmallVector<mlir::Value> inlineRegion(mlir::OpBuilder &b,
                                                   mlir::Region &region,
                                                   mlir::ValueRange arguments,
                                                   mlir::IRMapping &map) {
  mlir::Block &block = region.front();
  map.map(block.getArguments(), arguments);
  for (mlir::Operation &op : block.without_terminator())
    b.clone(op, map);
  llvm::SmallVector<mlir::Value> yielded;
  for (mlir::Value v : block.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}

} // namespace kiln

#endif // KILN_COMPILER_INPUT_REGIONINLINING_H
