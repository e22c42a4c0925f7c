//===- PushConstants.cpp - How scalar dispatch arguments travel -----------===//

#include "compiler/dispatch/PushConstants.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "schema/ShapeProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln {

bool isPushConstantType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

bool isPushConstantArgumentType(Type type) {
  return type.isIndex() || isPushConstantType(type);
}

unsigned pushConstantWordCount(Type type) {
  return type.isIndex() || type.getIntOrFloatBitWidth() > 32 ? 2 : 1;
}

LogicalResult appendPushConstantWords(Attribute value,
                                      std::vector<uint32_t> &words) {
  APInt bits;
  Type type;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    bits = f.getValue().bitcastToAPInt();
    type = f.getType();
  } else if (auto i = dyn_cast<IntegerAttr>(value)) {
    bits = i.getValue();
    type = i.getType();
  } else {
    return failure();
  }
  if (!isPushConstantArgumentType(type))
    return failure();
  unsigned count = pushConstantWordCount(type);
  APInt wide = bits.zext(count * 32);
  for (unsigned w = 0; w < count; ++w)
    words.push_back(
        static_cast<uint32_t>(wide.extractBitsAsZExtValue(32, w * 32)));
  return success();
}

Value decodePushConstant(OpBuilder &builder, Location loc, Type type,
                         ValueRange words) {
  unsigned width = type.getIntOrFloatBitWidth();
  Type bitsType = builder.getIntegerType(width);
  Value bits;
  if (width > 32) {
    auto i64 = builder.getI64Type();
    Value low = arith::ExtUIOp::create(builder, loc, i64, words[0]);
    Value high = arith::ExtUIOp::create(builder, loc, i64, words[1]);
    Value shifted = arith::ShLIOp::create(
        builder, loc, high,
        arith::ConstantOp::create(builder, loc, builder.getI64IntegerAttr(32)));
    bits = arith::OrIOp::create(builder, loc, low, shifted);
  } else if (width < 32) {
    bits = arith::TruncIOp::create(builder, loc, bitsType, words[0]);
  } else {
    bits = words[0];
  }
  if (type == bitsType)
    return bits;
  return arith::BitcastOp::create(builder, loc, type, bits);
}

unsigned replaceScalarArgumentsByWords(func::FuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  Type i32 = builder.getI32Type();
  unsigned total = 0;
  for (unsigned i = 0; i < entry.getNumArguments(); ++i) {
    BlockArgument arg = entry.getArgument(i);
    Type type = arg.getType();
    if (!isPushConstantType(type))
      continue;
    unsigned count = pushConstantWordCount(type);
    SmallVector<Value> words;
    for (unsigned w = 0; w < count; ++w)
      words.push_back(entry.insertArgument(i + w, i32, arg.getLoc()));
    arg.replaceAllUsesWith(
        decodePushConstant(builder, arg.getLoc(), type, words));
    entry.eraseArgument(i + count);
    i += count - 1;
    total += count;
  }
  func.setType(FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                                 func.getResultTypes()));
  return total;
}

DenseI64ArrayAttr renumberGridProgram(func::FuncOp func) {
  auto program =
      func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountProgramAttr);
  if (!program)
    return nullptr;
  SmallVector<int64_t> firstWord;
  int64_t words = 0;
  for (Type type : func.getArgumentTypes()) {
    firstWord.push_back(words);
    if (isPushConstantType(type))
      words += pushConstantWordCount(type);
  }
  SmallVector<int64_t> nodes(program.asArrayRef());
  for (size_t i = 0; i + 2 < nodes.size(); i += 3)
    if (nodes[i] == static_cast<int64_t>(schema::ShapeOpcode::PushConstant))
      nodes[i + 1] = firstWord[nodes[i + 1]];
  return DenseI64ArrayAttr::get(func.getContext(), nodes);
}

} // namespace kiln
