//===- LoopCalls.h - Loops the runtime repeats, before the phase split ----===//
//
// Issue 19 item 4: a loop whose trip count or condition is known only per
// call (an ONNX Loop given its trip count as data; a tosa.while_loop whose
// condition reads such values) runs as a loop phase (module.fbs PhaseLoop):
// the runtime calls its body, a function of the module, once per step.
// Until kiln-split-phases (Phases.h) makes that phase, the loop is a
// `func.call` of a private declaration carrying these attributes, on
// (trip count: tensor<i64>, condition: tensor<i1>, the carried values'
// first values, the values the body reads) and giving the carried values'
// last values, then each scan output stacked (a leading `?`).
// `kiln.loop_body` names the body, a public function on (iteration:
// tensor<i64>, condition: tensor<i1>, carried..., read...) giving each of
// its values (condition: tensor<i1>, carried..., one slice per scan output)
// once, marked `kiln.phase_of` the function it is a loop of;
// `kiln.loop_carried` is how many values it carries; `kiln.loop_outputs`,
// where present, where each of its values is (k >= 0 its result k, k < 0
// its input -1 - k: a function with dynamic shapes returns no argument and
// no value twice). A library of its own: the ONNX importer and the input
// pipeline both write loops so.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HOST_LOOPCALLS_H
#define KILN_COMPILER_HOST_LOOPCALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>
#include <vector>

namespace kiln {

inline constexpr llvm::StringLiteral kLoopBodyAttrName = "kiln.loop_body";
inline constexpr llvm::StringLiteral kLoopCarriedAttrName = "kiln.loop_carried";
inline constexpr llvm::StringLiteral kLoopOutputsAttrName = "kiln.loop_outputs";
/// A phase function's attribute naming the function it is a phase of.
inline constexpr llvm::StringLiteral kPhaseOfAttrName = "kiln.phase_of";

/// The body a run-time loop's call repeats and what it records.
struct LoopCall {
  mlir::func::FuncOp Body;
  int64_t Carried = 0;
  std::vector<int64_t> Outputs; // empty: the body's results in order
};

/// The loop `op` runs, where it is a run-time loop's call; std::nullopt
/// otherwise.
std::optional<LoopCall> loopCallOf(mlir::Operation *op);

/// Finishes `body` (its entry block holding what computes `values`:
/// condition, carried..., slices...) as a run-time loop's body: returns
/// each value it computes once, marks it a phase of `owner`, declares the
/// loop after the functions of the module and calls it at `b`'s point on
/// `operands` (trip count, condition, first values, read values), giving
/// `resultTypes` (the carried values', then each scan output's).
mlir::func::CallOp buildLoopCall(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::func::FuncOp body, llvm::StringRef owner,
                                 int64_t carried,
                                 llvm::ArrayRef<mlir::Value> values,
                                 mlir::ValueRange operands,
                                 mlir::TypeRange resultTypes);

/// One branch of an if the runtime decides: a function of the module whose
/// entry block computes `Values` (one per result of the if) from its
/// arguments, which stand for `Reads` of the caller, in order.
struct BranchBody {
  mlir::func::FuncOp Func;
  llvm::SmallVector<mlir::Value> Values;
  llvm::SmallVector<mlir::Value> Reads;
};

/// An if on `cond` (a 0-d tensor<i1>) known per call whose branches give
/// values of different shapes, as two loops of at most one step
/// (buildLoopCall, at `b`'s point): `otherwise`'s runs when the condition
/// is false, carrying placeholders of `types` (one element along a `?`)
/// when not; `taken`'s runs when it is true, carrying the first loop's
/// values when not. So one branch runs per call and its values come out,
/// of `types` (what each branch gives fits). Returns them.
llvm::SmallVector<mlir::Value>
buildBranchLoops(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef owner,
                 mlir::Value cond, mlir::TypeRange types, BranchBody &taken,
                 BranchBody &otherwise);

} // namespace kiln

#endif // KILN_COMPILER_HOST_LOOPCALLS_H
