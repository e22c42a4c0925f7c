//===- DispatchRegions.h - What a dispatch is made of ---------------------===//
#ifndef KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H
#define KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

namespace kiln {

/// Name of the unit attribute marking outlined dispatch functions.
inline constexpr llvm::StringLiteral kDispatchAttr = "kiln.dispatch";
/// The grid of a distributed dispatch, and of its CPU entry point:
/// `array<i64: x, y, z>`.
inline constexpr llvm::StringLiteral kWorkgroupCountAttr =
    "kiln.workgroup_count";
/// The number of bindings of a lowered entry point (i32).
inline constexpr llvm::StringLiteral kBindingCountAttr = "kiln.binding_count";
/// The threads of one workgroup of a GPU entry point: `array<i64: x, y, z>`
/// (CPU entry points run a workgroup on one thread and record none).
inline constexpr llvm::StringLiteral kWorkgroupSizeAttr = "kiln.workgroup_size";
/// The dynamic shared memory a GPU entry point's launch provides, in bytes
/// (i64); static shared memory is part of the kernel image.
inline constexpr llvm::StringLiteral kSharedMemoryBytesAttr =
    "kiln.shared_memory_bytes";

/// Ops that only reinterpret a contiguous buffer; the host plan aliases
/// their result with their operand instead of running anything.
bool isAliasOp(mlir::Operation *op);

/// Ops cheap enough to be recomputed inside every dispatch that uses them
/// (empty tensors, scalar constants, fills of such scalars).
bool isClonableProducer(mlir::Operation *op);

/// Returns true if `func` is an outlined dispatch.
bool isDispatchFunc(mlir::func::FuncOp func);

/// Groups the ops of `func` into dispatches and outlines each one into a
/// private function inserted into `func`'s module, replacing the group by a
/// call.
mlir::LogicalResult formDispatches(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_DISPATCHREGIONS_H
