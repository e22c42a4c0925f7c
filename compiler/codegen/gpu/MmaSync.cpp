//===- MmaSync.cpp - tf32 fragments and their mma.sync --------------------===//

#include "compiler/codegen/gpu/MmaSync.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {
namespace {

// Each element of an f32 fragment mapped by `f`.
Value mapFragment(OpBuilder &b, Location loc, Value fragment,
                  function_ref<Value(Value)> f) {
  auto type = cast<VectorType>(fragment.getType());
  Value result = fragment;
  for (int64_t i = 0; i < type.getDimSize(0); ++i) {
    Value element =
        vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{i, 0});
    result = vector::InsertOp::create(b, loc, f(element), result,
                                      ArrayRef<int64_t>{i, 0});
  }
  return result;
}

Value roundToTf32(OpBuilder &b, Location loc, Value value) {
  Value bits = NVVM::ConvertFloatToTF32Op::create(
      b, loc, b.getI32Type(), value, NVVM::FPRoundingMode::RNA,
      NVVM::SaturationMode::NONE, /*relu=*/false);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

} // namespace

int64_t mmaSyncK(Type operand) { return operand.isF32() ? kMmaTf32K : kMmaK; }

VectorType mmaFragmentType(int64_t registers, Type operand) {
  return VectorType::get({registers, 32 / operand.getIntOrFloatBitWidth()},
                         operand);
}

Tf32Fragment tf32Fragment(OpBuilder &b, Location loc, Value fragment,
                          bool split) {
  Tf32Fragment result;
  result.Big = mapFragment(b, loc, fragment,
                           [&](Value v) { return roundToTf32(b, loc, v); });
  if (split)
    result.Small =
        mapFragment(b, loc, arith::SubFOp::create(b, loc, fragment, result.Big),
                    [&](Value v) { return roundToTf32(b, loc, v); });
  return result;
}

Value mmaTf32(OpBuilder &b, Location loc, const Tf32Fragment &a,
              const Tf32Fragment &bFragment, Value acc) {
  auto mma = [&](Value x, Value y, Value c) -> Value {
    return nvgpu::MmaSyncOp::create(b, loc, x, y, c,
                                    ArrayRef<int64_t>{kMmaM, kMmaN, kMmaTf32K},
                                    /*tf32Enabled=*/true);
  };
  if (a.Small && bFragment.Small) {
    acc = mma(a.Small, bFragment.Big, acc);
    acc = mma(a.Big, bFragment.Small, acc);
  }
  return mma(a.Big, bFragment.Big, acc);
}

} // namespace kiln
