//===- Attention.h - Scaled dot-product attention as frontends write it ---===//
//
// Attention is two contractions around a softmax:
//
//   S = Q . K^T      over the head dimension (the scores)
//   P = softmax(x)   along the keys, x an elementwise program of S and other
//                    tensors (a scale, an added mask, a rounding to f16)
//   O = P . V        over the keys
//
// The softmax is a row program (RowPrograms.h) of two reductions, m = max
// over the keys of x and l = sum over the keys of exp(x - m), whose sink is
// exp(x - m) / l (or exp(x - m) * (1 / l)), perhaps rounded. A kernel that
// knows this streams over the keys keeping each row's running m and l,
// rescaling the partial O by exp(m_old - m_new) as m grows (an online
// softmax): neither S nor P is ever stored. This is that match. Frontends
// write x again in each reduction's payload and in the sink, so the parts
// are compared op by op, through the tensors they read, at the row's key.
//
// Only what the GPU attention kernel computes is matched: Q, K, P and V
// all f16 multiplied in f32 (each contraction's payload `acc + f32(a) *
// f32(b)`, its accumulator a fill) or all f32 (`acc + a * b`), one query, key
// and value loop, any batch loops in the same order in S and O, Q and K read
// along the head dimension innermost and V and O along the value dimension, a
// head dimension that is a multiple of 16 and a value dimension a multiple of
// 8, both at most 128.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_ATTENTION_H
#define KILN_COMPILER_DISPATCH_ATTENTION_H

#include "compiler/dispatch/RowPrograms.h"

namespace kiln {

/// The operands' type if the payload is `acc + f32(a) * f32(b)` for inputs
/// a and b both f16, both bf16 or both f32 (then without extensions) and an
/// f32 accumulator, in any operand order (what tensor cores compute, f32
/// operands rounded to tf32 where the user allows it); else null.
mlir::Type multiplyAccumulateType(mlir::linalg::LinalgOp op);

/// multiplyAccumulateType if it is f16 or bf16, else null.
mlir::Type halfMultiplyAccumulateType(mlir::linalg::LinalgOp op);

/// multiplyAccumulateType if attention's contractions may multiply in it:
/// f16, or f32 (the kernel's tensor cores multiply it as 3xTF32, or as
/// tf32 where the user allows; Tf32Fragment in codegen/gpu/MmaSync.h).
mlir::Type attentionOperandType(mlir::linalg::LinalgOp op);

/// A contraction's loops by their role in attention: the batch loops (in
/// its result's order), the query, the key, and the inner loop (the scores'
/// reduction over the head, or the output's value dimension).
struct AttentionLoops {
  llvm::SmallVector<unsigned> Batch;
  unsigned Query = 0, Key = 0, Inner = 0;
};

struct Attention {
  mlir::linalg::LinalgOp Scores; // S = Q . K^T: inputs Q and K
  RowProgram Softmax;            // Reductions[0] the max, [1] the sum
  mlir::linalg::LinalgOp Output; // O = P . V: inputs P (the sink) and V
  /// Each contraction's loops by role; the output's key is its reduction.
  AttentionLoops ScoreLoops, OutputLoops;
  /// For each of the softmax program's sink dims (RowPrograms.h: dims 0 ..
  /// n-1, the last the key), the Output loop it is.
  llvm::SmallVector<unsigned> SinkLoops;
  int64_t Batch = 1, Queries = 0, Keys = 0, HeadDim = 0, ValueDim = 0;
  /// Both contractions' operand type: f16 or f32.
  mlir::Type Operand;
};

/// Matches attention ending in `output` (O = P . V) as above, following the
/// softmax down to tensors `isLeaf` accepts (bindings in a dispatch, values
/// from outside a group while dispatches form) and to the scores'
/// contraction, whose result only the softmax may read. Fails, changing
/// nothing, on anything else.
mlir::FailureOr<Attention>
analyzeAttention(mlir::linalg::LinalgOp output,
                 llvm::function_ref<bool(mlir::Value)> isLeaf);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_ATTENTION_H
