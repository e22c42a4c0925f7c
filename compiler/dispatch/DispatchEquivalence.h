//===- DispatchEquivalence.h - When two dispatches compute the same -------===//
//
// Two outlined dispatch functions are equivalent when they have the same
// type and the same body: the same ops in the same order, with the same
// attributes, result types and operands (up to renaming of values), and the
// same regions, locations aside. A model's repeated blocks (ResNet's
// bottlenecks, whose weights are bindings) outline into equivalent
// dispatches, which can share one entry point; dispatches that differ only
// in a scalar constant (a clamp bound, a slope) can too once those scalars
// are arguments, given at each call as push constants.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_DISPATCHEQUIVALENCE_H
#define KILN_COMPILER_DISPATCH_DISPATCHEQUIVALENCE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Whether `op` is an `arith.constant` of a scalar type a push constant can
/// carry: an integer of at most 64 bits or an f16, bf16, f32 or f64 (not
/// index: index constants size loops and slices, which must stay static).
bool isHoistableScalarConstant(mlir::Operation *op);

/// A hash of `func`'s type and body, equal for equivalent functions. With
/// `ignoreScalarValues`, the values of hoistable scalar constants do not
/// count (their types do).
llvm::hash_code hashDispatch(mlir::func::FuncOp func, bool ignoreScalarValues);

/// Whether `a` and `b` are equivalent. With `scalarPairs` null every
/// attribute, constant values included, must be equal. Otherwise hoistable
/// scalar constants may differ in value (not in type), and every pair of
/// them, (a's, b's) in the order a walk visits them, equal or not, is
/// appended to `scalarPairs`.
bool areDispatchesEquivalent(
    mlir::func::FuncOp a, mlir::func::FuncOp b,
    llvm::SmallVectorImpl<std::pair<mlir::Operation *, mlir::Operation *>>
        *scalarPairs = nullptr);

/// Replaces every call of a dispatch equivalent to an earlier one (module
/// order) by a call of the earlier one and erases it. Returns how many
/// dispatches were erased.
unsigned dedupeDispatches(mlir::ModuleOp module);

/// Merges dispatches that are equivalent up to the values of hoistable
/// scalar constants: in each such class the first function keeps its body,
/// each constant whose value differs in some member becomes an argument
/// after the tensor arguments (in walk order), and every call of a member
/// calls the first function instead, passing the member's values as
/// `arith.constant`s. Constants equal in every member stay constants (they
/// fold), and a dispatch equivalent to no other keeps all of its constants.
/// A class whose arguments would exceed `kMaxPushConstantWords` is left as
/// it is. Returns how many dispatches were erased.
unsigned mergeDispatchesDifferingInScalars(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_DISPATCHEQUIVALENCE_H
