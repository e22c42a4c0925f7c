//===- PushConstants.h - How scalar dispatch arguments travel -------------===//
//
// A dispatch function may take scalar arguments after its tensors (the
// constants in which otherwise identical dispatches differ; see
// DispatchEquivalence.h). Each call passes constants, which the host plan
// records on the dispatch step as push constants: 32-bit words, the
// scalars in argument order, each as
//
//   - at most 32 bits (i1 ... i32, f16, bf16, f32): one word, its bit
//     pattern zero-extended (an i1 is 0 or 1, an f16 sits in the low half);
//   - 64 bits (i64, f64): two words, the low half first;
//   - `index` (an extent the host computes per call, issue 19): as i64.
//
// Both back ends receive the words, not the scalars: the CPU entry point
// reads them from its `push_constants` pointer, a CUDA kernel takes one
// `.u32` parameter per word after its binding pointers, and the dispatch
// body decodes them (decodePushConstant) into the scalars it was written
// with.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_PUSHCONSTANTS_H
#define KILN_COMPILER_DISPATCH_PUSHCONSTANTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <vector>

namespace kiln {

/// The most words one dispatch takes: the runtime's limit
/// (runtime/hal/Executable.h kMaxPushConstants).
inline constexpr unsigned kMaxPushConstantWords = 256;

/// The number of an entry point's push constant words, recorded on a
/// lowered entry point (i32) for the module writer.
inline constexpr llvm::StringLiteral kPushConstantCountAttr =
    "kiln.push_constant_count";

/// Whether a scalar of `type` can be a push constant: an integer of at most
/// 64 bits, f16, bf16, f32 or f64.
bool isPushConstantType(mlir::Type type);

/// Whether a dispatch argument of `type` travels as push constant words: a
/// push constant type, or `index` (a dynamic extent, which kiln-bind-dispatch
/// makes an i64 argument; never a hoisted constant, which isPushConstantType
/// alone decides).
bool isPushConstantArgumentType(mlir::Type type);

/// The words a scalar of push constant argument type `type` takes (1 or 2).
unsigned pushConstantWordCount(mlir::Type type);

/// Appends the words of `value` (an IntegerAttr or FloatAttr of push
/// constant argument type); fails for anything else.
mlir::LogicalResult appendPushConstantWords(mlir::Attribute value,
                                            std::vector<uint32_t> &words);

/// The scalar of `type` that `words` (i32 values, pushConstantWordCount of
/// them) encode.
mlir::Value decodePushConstant(mlir::OpBuilder &builder, mlir::Location loc,
                               mlir::Type type, mlir::ValueRange words);

/// Replaces each scalar argument of `func` (push constant type) by its i32
/// words, decoded at the start of the body, in place, and returns the
/// number of words. Code generation calls it once the body no longer needs
/// the scalars' own types at the boundary (a back end passes only words).
unsigned replaceScalarArgumentsByWords(mlir::func::FuncOp func);

/// The grid program of distributed dispatch `func`
/// (kWorkgroupCountProgramAttr, whose PushConstant leaves name i64
/// arguments) with each leaf naming its argument's first word instead, as
/// the entry point records it; null when the grid is static. Called before
/// replaceScalarArgumentsByWords, while the arguments are still scalars.
mlir::DenseI64ArrayAttr renumberGridProgram(mlir::func::FuncOp func);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_PUSHCONSTANTS_H
