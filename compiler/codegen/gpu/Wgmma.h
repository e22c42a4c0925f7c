//===- Wgmma.h - Hopper's warpgroup mma and its shared operands -*- C++ -*-===//
//
// wgmma.mma_async (sm_90a) multiplies operands it reads from shared memory
// itself, described by 64-bit matrix descriptors, into accumulators spread
// over the 128 threads of a warpgroup. The helpers here build those pieces
// for f16 operands in the 128-byte swizzled layout:
//
//   a shared row is 64 two-byte elements (128 bytes); eight rows form a
//   1024-byte atom, aligned to 1024 bytes, in which the 16-byte chunk c of
//   row r is stored at chunk c ^ (r % 8), so the eight rows of a column
//   chunk fall in different banks;
//   A (M x K, K innermost) is stored as M rows of 64 k: atoms follow each
//   other along M (stride byte offset 1024);
//   B (K x N, N innermost) is stored as blocks of 64 columns, each block K
//   rows of 64 n: atoms follow each other along K (stride byte offset
//   1024) and blocks along N (leading byte offset: a block's bytes).
//
// Each k16 instruction starts 32 bytes further along A's rows and 16 rows
// further down B's blocks.
//
// tf32 operands (f32 values of which the instruction reads the top 19
// bits) have no transposed form: A and B are both K-innermost, 128-byte
// rows of 32 elements, B stored as N rows of K in A's layout; each k8
// instruction starts 32 bytes further along the rows of both.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_WGMMA_H
#define KILN_COMPILER_CODEGEN_GPU_WGMMA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace kiln {

/// Elements of a swizzled shared row (128 bytes of f16).
inline constexpr int64_t kWgmmaRowElements = 64;
/// Rows of a swizzle atom; atoms are 1024 bytes and must be 1024-aligned.
inline constexpr int64_t kWgmmaAtomRows = 8;
inline constexpr int64_t kWgmmaAtomBytes = 1024;
/// Rows of A (and of the accumulator) one warpgroup instruction covers.
inline constexpr int64_t kWgmmaM = 64;
/// Reduction depth of one f16 instruction.
inline constexpr int64_t kWgmmaK = 16;
/// Threads of a warpgroup.
inline constexpr int64_t kWarpgroupThreads = 128;

/// Reduction depth of one tf32 instruction.
inline constexpr int64_t kWgmmaTf32K = 8;

/// Where element `col` of shared row `row` is stored in a swizzled row of
/// 128 bytes of `elementBytes`-byte elements (2: f16, bf16; 4: tf32): its
/// 16-byte chunk exchanged by row % 8.
mlir::Value swizzledColumn(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value row, mlir::Value col,
                           int64_t elementBytes = 2);

/// The descriptor of a swizzled operand starting at shared byte address
/// `address` (index): the address, the leading and stride byte offsets and
/// the 128-byte swizzle mode, packed as the PTX ISA's "matrix descriptor".
mlir::Value wgmmaDescriptor(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value address, int64_t leadingBytes,
                            int64_t strideBytes);

/// A warpgroup's m64nN f32 accumulator: N / 2 floats a thread, as the
/// instruction's struct.
mlir::Type wgmmaAccumulatorType(mlir::MLIRContext *context, int64_t n);

/// An accumulator with every element `value` (f32).
mlir::Value splatAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Type type, mlir::Value value);

/// `acc` pinned at this point of the program: an empty side-effecting asm
/// that reads and writes each of its registers. wgmma.fence orders only the
/// register writes that precede it, and nothing stops the compiler from
/// moving a plain write (the zeros a loop starts from) past the fence or a
/// read above wgmma.wait; passing the accumulator through this asm just
/// before the fence and just after the wait keeps them on their side.
mlir::Value fenceAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value acc);

/// acc += A * B for one m64nNk16 step of `operand` (f16 or bf16)
/// operands: A K-innermost, B N-innermost (wgmma's transposed B).
mlir::Value wgmmaHalf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                      mlir::Value descriptorA, mlir::Value descriptorB,
                      int64_t n, mlir::Type operand);

/// acc += A * B for one m64nNk8 step of tf32 operands (acc = A * B
/// without `accumulate`: acc's registers only receive it): A and B both
/// K-innermost (B as N rows of K).
mlir::Value wgmmaTf32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                      mlir::Value descriptorA, mlir::Value descriptorB,
                      int64_t n, bool accumulate = true);

/// x + y, element by element, of two accumulators of one type (IEEE f32
/// adds, rounded to nearest).
mlir::Value addAccumulators(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value x, mlir::Value y);

/// Row `r` (0 or 1) of this thread's part of the warp's 16 x 8 accumulator
/// tile `j`: the same fragment layout as mma.sync m16n8's (rows lane / 4 +
/// 8r of the warp's 16, columns 8j + 2 (lane % 4) and the next), as
/// vector<2xf32>.
mlir::Value accumulatorPair(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value acc, int64_t j, int64_t r);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_WGMMA_H
