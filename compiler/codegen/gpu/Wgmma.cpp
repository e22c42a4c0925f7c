//===- Wgmma.cpp - Hopper's warpgroup mma and its shared operands ---------===//

#include "compiler/codegen/gpu/Wgmma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {
namespace {

// Bytes of a swizzle chunk: the unit the swizzle exchanges.
constexpr int64_t kChunkBytes = 16;
// The matrix descriptor's fields (PTX ISA, "Matrix Descriptor Format"):
// addresses and offsets in 16-byte units, 14 bits each.
constexpr int64_t kLeadingShift = 16, kStrideShift = 32, kSwizzleShift = 62;
constexpr int64_t kSwizzle128B = 1;
constexpr int64_t kFieldMask = (1 << 14) - 1;

} // namespace

Value swizzledColumn(OpBuilder &b, Location loc, Value row, Value col,
                     int64_t elementBytes) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  int64_t chunkElements = kChunkBytes / elementBytes;
  Value chunk = arith::DivUIOp::create(b, loc, col, idx(chunkElements));
  Value within = arith::RemUIOp::create(b, loc, col, idx(chunkElements));
  Value phase = arith::RemUIOp::create(b, loc, row, idx(kWgmmaAtomRows));
  Value swapped = arith::XOrIOp::create(b, loc, chunk, phase);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, swapped, idx(chunkElements)),
      within);
}

Value wgmmaDescriptor(OpBuilder &b, Location loc, Value address,
                      int64_t leadingBytes, int64_t strideBytes) {
  Type i64 = b.getI64Type();
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  Value start = arith::IndexCastUIOp::create(b, loc, i64, address);
  start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, start, constant(4)),
      constant(kFieldMask));
  int64_t fixed = ((leadingBytes / kChunkBytes) & kFieldMask) << kLeadingShift |
                  ((strideBytes / kChunkBytes) & kFieldMask) << kStrideShift |
                  kSwizzle128B << kSwizzleShift;
  return arith::OrIOp::create(b, loc, start, constant(fixed));
}

Type wgmmaAccumulatorType(MLIRContext *context, int64_t n) {
  return LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(kWgmmaM * n / kWarpgroupThreads,
                                 Float32Type::get(context)));
}

Value splatAccumulator(OpBuilder &b, Location loc, Type type, Value value) {
  Value acc = LLVM::PoisonOp::create(b, loc, type);
  auto structType = cast<LLVM::LLVMStructType>(type);
  for (int64_t i = 0, e = structType.getBody().size(); i < e; ++i)
    acc = LLVM::InsertValueOp::create(b, loc, acc, value, i);
  return acc;
}

Value fenceAccumulator(OpBuilder &b, Location loc, Value acc) {
  int64_t n = cast<LLVM::LLVMStructType>(acc.getType()).getBody().size();
  SmallVector<Value> elements;
  std::string constraints;
  for (int64_t i = 0; i < n; ++i) {
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    constraints += "=f,";
  }
  // Input i is tied to output i: the asm changes no register.
  for (int64_t i = 0; i < n; ++i)
    constraints += std::to_string(i) + (i + 1 < n ? "," : "");
  return LLVM::InlineAsmOp::create(
             b, loc, acc.getType(), elements, b.getStringAttr(""),
             b.getStringAttr(constraints), /*has_side_effects=*/b.getUnitAttr(),
             /*is_align_stack=*/nullptr, /*tail_call_kind=*/nullptr,
             /*asm_dialect=*/nullptr, /*operand_attrs=*/nullptr)
      .getRes();
}

Value wgmmaHalf(OpBuilder &b, Location loc, Value acc, Value descriptorA,
                Value descriptorB, int64_t n, Type operand) {
  MLIRContext *context = b.getContext();
  NVVM::WGMMATypes type =
      operand.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  // B is K x N with N innermost: "row" asks wgmma to transpose it from its
  // native K-innermost (column-major) form.
  return NVVM::WgmmaMmaAsyncOp::create(
      b, loc, acc.getType(), acc, descriptorA, descriptorB,
      NVVM::MMAShapeAttr::get(context, kWgmmaM, n, kWgmmaK), type, type,
      NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
      NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row, NVVM::MMALayout::row,
      /*satfinite=*/nullptr);
}

Value addAccumulators(OpBuilder &b, Location loc, Value x, Value y) {
  Value sum = x;
  int64_t n = cast<LLVM::LLVMStructType>(x.getType()).getBody().size();
  for (int64_t i = 0; i < n; ++i)
    sum = LLVM::InsertValueOp::create(
        b, loc, sum,
        arith::AddFOp::create(b, loc,
                              LLVM::ExtractValueOp::create(b, loc, x, i),
                              LLVM::ExtractValueOp::create(b, loc, y, i)),
        i);
  return sum;
}

Value wgmmaTf32(OpBuilder &b, Location loc, Value acc, Value descriptorA,
                Value descriptorB, int64_t n, bool accumulate) {
  // B "col": K-innermost, wgmma's native form (tf32 has no other).
  return NVVM::WgmmaMmaAsyncOp::create(
      b, loc, acc.getType(), acc, descriptorA, descriptorB,
      NVVM::MMAShapeAttr::get(b.getContext(), kWgmmaM, n, kWgmmaTf32K),
      NVVM::WGMMATypes::tf32, NVVM::WGMMATypes::tf32, NVVM::WGMMATypes::f32,
      accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
      NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
      NVVM::MMALayout::col,
      /*satfinite=*/nullptr);
}

Value accumulatorPair(OpBuilder &b, Location loc, Value acc, int64_t j,
                      int64_t r) {
  // Tile j's four floats are elements 4j .. 4j + 3: (row, column) pairs
  // (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
  SmallVector<Value> pair;
  for (int64_t c = 0; c < 2; ++c)
    pair.push_back(
        LLVM::ExtractValueOp::create(b, loc, acc, 4 * j + 2 * r + c));
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({2}, b.getF32Type()), pair);
}

} // namespace kiln
