//===- VerifyInput.cpp - Reject programs Kiln cannot compile --------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"

namespace kiln {
#define GEN_PASS_DEF_VERIFYINPUT
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

bool isSupportedElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16() || type.isF64() ||
      type.isIndex())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
  return false;
}

// Ops outside these dialects have no lowering in Kiln's pipeline.
bool isSupportedDialect(Operation *op) {
  StringRef ns = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return llvm::is_contained(
      {"func", "linalg", "tensor", "arith", "math", "tosa", "builtin"}, ns);
}

// Ops of supported dialects that the pipeline still cannot lower.
bool isRejectedOp(Operation *op) {
  return isa<tensor::BitcastOp, tensor::GenerateOp, tensor::ScatterOp,
             tensor::GatherOp, tensor::DimOp, tensor::RankOp, tosa::FFT2dOp,
             tosa::RFFT2dOp, tosa::CustomOp, tosa::WhileOp, tosa::IfOp,
             tosa::VariableOp, tosa::VariableReadOp, tosa::VariableWriteOp,
             func::CallIndirectOp>(op);
}

LogicalResult verifyType(Operation *op, Type type, StringRef what) {
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasStaticShape())
      return op->emitError() << "'" << op->getName() << "' has "
                             << (what == "argument" ? "an " : "a ") << what
                             << " of dynamic shape " << type
                             << "; Kiln supports static shapes only";
    type = shaped.getElementType();
  }
  if (isa<tosa::shapeType>(type) || isa<NoneType>(type))
    return success();
  if (!isSupportedElementType(type))
    return op->emitError() << "'" << op->getName() << "' has "
                           << (what == "argument" ? "an " : "a ") << what
                           << " of unsupported element type " << type;
  return success();
}

struct VerifyInputPass : impl::VerifyInputBase<VerifyInputPass> {
  void runOnOperation() override {
    bool anyError = false;
    getOperation().walk([&](Operation *op) {
      if (isa<ModuleOp>(op))
        return;
      if (!isSupportedDialect(op) || isRejectedOp(op)) {
        op->emitError() << "unsupported op '" << op->getName()
                        << "': Kiln compiles func, linalg, tensor, arith, "
                           "math and tosa ops on static shapes";
        anyError = true;
        return;
      }
      if (auto func = dyn_cast<func::FuncOp>(op)) {
        // Functions exchange tensors with the runtime: scalars and memrefs
        // have no place in a module's signatures.
        for (Type t : func.getFunctionType().getInputs())
          if (!isa<RankedTensorType>(t)) {
            op->emitError() << "function '" << func.getSymName() << "' takes "
                            << t << "; Kiln functions take and return tensors";
            anyError = true;
          }
        for (Type t : func.getFunctionType().getResults())
          if (!isa<RankedTensorType>(t)) {
            op->emitError() << "function '" << func.getSymName() << "' returns "
                            << t << "; Kiln functions take and return tensors";
            anyError = true;
          }
        for (Type t : func.getFunctionType().getInputs())
          anyError |= failed(verifyType(op, t, "argument"));
        for (Type t : func.getFunctionType().getResults())
          anyError |= failed(verifyType(op, t, "result"));
        return;
      }
      for (Type t : op->getResultTypes())
        anyError |= failed(verifyType(op, t, "result"));
    });
    if (anyError)
      signalPassFailure();
  }
};

} // namespace
} // namespace kiln
