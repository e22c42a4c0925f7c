//===- MaterializeInits.h - Fresh destinations for structured ops ---------===//
#ifndef KILN_COMPILER_CODEGEN_COMMON_MATERIALIZEINITS_H
#define KILN_COMPILER_CODEGEN_COMMON_MATERIALIZEINITS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {

/// Gives every linalg op in `func` a fresh destination: an init the payload
/// never reads becomes `tensor.empty`; one it reads (an accumulator from an
/// input, a constant or a slice) becomes a `linalg.copy` of it into
/// `tensor.empty`, which tiling fuses into each tile like a fill.
void materializeInits(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_COMMON_MATERIALIZEINITS_H
