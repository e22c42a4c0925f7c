//===- MmaSync.h - What kernels issuing mma.sync m16n8k16 agree on --------===//
//
// The tensor-core GEMM and the attention kernel both issue mma.sync
// m16n8k16 (sm_80 and later) on f16 fragments loaded by ldmatrix from
// shared tiles that cp.async fills: the instruction's shape, the warp its
// fragments are laid out over, and the tiles' layout are one fact each.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_MMASYNC_H
#define KILN_COMPILER_CODEGEN_GPU_MMASYNC_H

#include <cstdint>

namespace kiln {

inline constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
/// The instruction's fragments are laid out over warps of 32 threads.
inline constexpr int64_t kMmaWarpThreads = 32;
/// f16 elements of padding per shared row (16 bytes): the 8 row addresses
/// of an ldmatrix fall in different banks.
inline constexpr int64_t kMmaRowPad = 8;
/// f16 elements one cp.async moves (16 bytes).
inline constexpr int64_t kCopyElements = 8;

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_MMASYNC_H
