//===- TosaOutlineControlFlow.h - tosa.while_loop run by the runtime -*- C++
//-*-===//
#ifndef KILN_COMPILER_INPUT_TOSAOUTLINECONTROLFLOW_H
#define KILN_COMPILER_INPUT_TOSAOUTLINECONTROLFLOW_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace kiln {

/// Makes `loop`, at the top of `func`'s body, a loop the runtime repeats
/// (compiler/host/LoopCalls.h): its body and then its condition on the
/// values the body gives become a function of the module, `name`, on
/// (iteration, condition, the loop's values, the values its regions read
/// from `func`); the condition on the first values is computed where the
/// loop was, and the loop becomes the call of a loop with no trip count.
mlir::LogicalResult outlineWhileLoop(mlir::tosa::WhileOp loop,
                                     mlir::func::FuncOp func,
                                     llvm::StringRef name);

/// Makes `op`, at the top of `func`'s body, an if the runtime decides
/// (buildBranchLoops): each branch becomes a function of the module,
/// `name`_then / `name`_else, on the if's inputs and the values its region
/// reads from `func`, and the if two loops of at most one step giving its
/// results (of dynamic shape: which extents they have, the branch taken
/// decides).
mlir::LogicalResult outlineCondIf(mlir::tosa::IfOp op, mlir::func::FuncOp func,
                                  llvm::StringRef name);

} // namespace kiln

#endif // KILN_COMPILER_INPUT_TOSAOUTLINECONTROLFLOW_H
