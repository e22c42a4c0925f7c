//===- MmaSync.h - What kernels issuing mma.sync m16n8k16 agree on --------===//
//
// The tensor-core GEMM and the attention kernel both issue mma.sync
// m16n8k16 (sm_80 and later) on f16 fragments loaded by ldmatrix from
// shared tiles that cp.async fills (the GEMM also m16n8k8 on tf32): the
// instruction's shape, the warp its fragments are laid out over, and the tiles'
// layout are one fact each.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_MMASYNC_H
#define KILN_COMPILER_CODEGEN_GPU_MMASYNC_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace kiln {

inline constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
/// The reduction depth of the tf32 instruction (m16n8k8): 32-byte rows of
/// its operands, as f16's 16.
inline constexpr int64_t kMmaTf32K = 8;
/// The instruction's fragments are laid out over warps of 32 threads.
inline constexpr int64_t kMmaWarpThreads = 32;
/// f16 elements of padding per shared row (16 bytes): the 8 row addresses
/// of an ldmatrix fall in different banks.
inline constexpr int64_t kMmaRowPad = 8;
/// f16 elements one cp.async moves (16 bytes).
inline constexpr int64_t kCopyElements = 8;

/// The reduction depth of mma.sync on `operand` (f16: m16n8k16; f32, as
/// tf32: m16n8k8): 32-byte rows of its operands either way.
int64_t mmaSyncK(mlir::Type operand);

/// The type of an operand fragment of `registers` 32-bit registers of
/// `operand` elements, as ldmatrix and nvgpu.mma.sync take it: registers x
/// 2 f16 pairs, or registers x 1 f32.
mlir::VectorType mmaFragmentType(int64_t registers, mlir::Type operand);

/// An f32 operand fragment of mma.sync m16n8k8 tf32 (vector<N x 1 x f32>):
/// its elements rounded to tf32 (Big) and, for 3xTF32, what rounding left
/// (Small, itself rounded; null for one pass). Big + Small carries 21
/// significant bits, and a product of two such sums less its small-small
/// term is within about 2^-21 of the f32 product: as accurate as an f32
/// sum of a few dozen products, on the tensor cores (what CUTLASS calls
/// fast-accurate f32, and PyTorch's memory-efficient attention runs f32
/// in).
struct Tf32Fragment {
  mlir::Value Big, Small;
};

/// `fragment` rounded to tf32 (to nearest, ties away: cvt.rna), split in
/// two when `split`.
Tf32Fragment tf32Fragment(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value fragment, bool split);

/// acc + a * b by mma.sync m16n8k8 tf32: one instruction, or three for
/// split fragments (the small terms first).
mlir::Value mmaTf32(mlir::OpBuilder &b, mlir::Location loc,
                    const Tf32Fragment &a, const Tf32Fragment &bFragment,
                    mlir::Value acc);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_MMASYNC_H
