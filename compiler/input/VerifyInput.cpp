//===- VerifyInput.cpp - Reject programs Kiln cannot compile --------------===//

#include "compiler/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_VERIFYINPUT
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The ops the pipeline lowers; tests/ops/run_ops.py compiles each of them.
bool isSupportedOp(Operation *op) {
  static const llvm::StringSet<> kOps = {
#define KILN_OP(dialect, op, kind) #dialect "." #op,
#include "compiler/input/SupportedOps.def"
  };
  return kOps.contains(op->getName().getStringRef());
}

/// Whether `op` is of a dialect Kiln compiles, though perhaps not this op.
bool isKilnDialect(Operation *op) {
  return llvm::is_contained(
      {"func", "linalg", "tensor", "arith", "math", "tosa", "cf"},
      op->getName().getDialectNamespace());
}

/// The element type of an operand or result of `op` on which `op` has no
/// lowering (KILN_OP_EXCEPT), if any.
std::optional<Type> unloweredElementType(Operation *op) {
  static const llvm::StringMap<SmallVector<StringRef, 1>> kExcept = [] {
    llvm::StringMap<SmallVector<StringRef, 1>> except;
#define KILN_OP(dialect, op, kind)
#define KILN_OP_EXCEPT(dialect, op, type)                                      \
  except[#dialect "." #op].push_back(#type);
#include "compiler/input/SupportedOps.def"
    return except;
  }();
  auto it = kExcept.find(op->getName().getStringRef());
  if (it == kExcept.end())
    return std::nullopt;
  auto excepted = [&](Type type) {
    std::string name;
    llvm::raw_string_ostream os(name);
    getElementTypeOrSelf(type).print(os);
    return llvm::is_contained(it->second, name);
  };
  for (Type t : op->getOperandTypes())
    if (excepted(t))
      return getElementTypeOrSelf(t);
  for (Type t : op->getResultTypes())
    if (excepted(t))
      return getElementTypeOrSelf(t);
  return std::nullopt;
}

bool isSupportedElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16() || type.isF64() ||
      type.isIndex())
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
  return false;
}

/// Whether `op` compiles on tensors with dynamic dimensions (issue 19, item
/// 1): the ops whose shapes the host plan reifies (ShapeExpressions.h) and
/// the CPU back end tiles with remainders. Anything else keeps the static
/// rule, so a dynamic shape reaching an op no phase handles is an error
/// here, at the op, rather than a failure deep in the pipeline.
bool acceptsDynamicShapes(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialect == "linalg" || dialect == "arith" || dialect == "math")
    return true;
  // A cast only forgets sizes (a static view made dynamic): the host plan
  // takes it as a view of the same bytes.
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return cast.getSource().getType().getElementType() ==
               cast.getType().getElementType() &&
           cast.getSource().getType().hasStaticShape();
  // TOSA control flow of dynamic values runs as the runtime's loops
  // (kiln-tosa-outline-control-flow), whose bodies are functions over `?`.
  return isa<func::FuncOp, func::ReturnOp, func::CallOp, tensor::EmptyOp,
             tensor::DimOp, tensor::PadOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::ExtractSliceOp, tensor::ConcatOp,
             tosa::IfOp, tosa::WhileOp, tosa::YieldOp>(op);
}

/// `what` says how `op` holds the value: "argument", "result" or "block
/// argument".
LogicalResult verifyType(Operation *op, Type type, StringRef what) {
  auto describe = [&]() {
    return op->emitError() << "'" << op->getName() << "' has "
                           << (what == "argument" ? "an " : "a ") << what;
  };
  if (isa<VectorType, BaseMemRefType>(type))
    return describe() << " of unsupported type " << type
                      << "; Kiln computes on tensors";
  if (auto shaped = dyn_cast<ShapedType>(type)) {
    if (!shaped.hasRank())
      return describe() << " of unranked type " << type
                        << "; Kiln compiles ranked tensors";
    if (!shaped.hasStaticShape() && !acceptsDynamicShapes(op))
      return describe() << " of dynamic shape " << type
                        << "; Kiln compiles dynamic dimensions only in func, "
                           "linalg, arith and math ops, tensor.empty, "
                           "tensor.dim, tensor.pad, tensor.collapse_shape, "
                           "tensor.expand_shape, tensor.extract_slice, "
                           "tensor.concat and tensor.cast of a static tensor "
                           "so far";
    type = shaped.getElementType();
  }
  if (isa<tosa::shapeType, NoneType>(type))
    return success();
  if (!isSupportedElementType(type))
    return describe() << " of unsupported element type " << type;
  return success();
}

/// Checks the values `op` defines: its results and the arguments of its
/// blocks. Every operand is one of those, so each bad value is reported
/// once, where it is defined. A constant's value attribute has its result's
/// type, and the verifiers of the accepted ops tie every other typed
/// attribute to an operand's type, so attributes are covered too.
bool verifyTypes(Operation *op) {
  bool ok = true;
  for (Type t : op->getResultTypes())
    ok &= succeeded(verifyType(op, t, "result"));
  // A function's entry block arguments are its signature, checked apart.
  if (!isa<func::FuncOp>(op))
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          ok &= succeeded(verifyType(op, arg.getType(), "block argument"));
  return ok;
}

bool verifySignature(func::FuncOp func) {
  bool ok = true;
  // Functions exchange tensors with the runtime: scalars and memrefs have no
  // place in a module's signatures.
  for (Type t : func.getFunctionType().getInputs())
    if (!isa<RankedTensorType>(t)) {
      func.emitError() << "function '" << func.getSymName() << "' takes " << t
                       << "; Kiln functions take and return tensors";
      ok = false;
    }
  for (Type t : func.getFunctionType().getResults())
    if (!isa<RankedTensorType>(t)) {
      func.emitError() << "function '" << func.getSymName() << "' returns " << t
                       << "; Kiln functions take and return tensors";
      ok = false;
    }
  for (Type t : func.getFunctionType().getInputs())
    ok &= succeeded(verifyType(func, t, "argument"));
  for (Type t : func.getFunctionType().getResults())
    ok &= succeeded(verifyType(func, t, "result"));
  return ok;
}

struct VerifyInputPass : impl::VerifyInputBase<VerifyInputPass> {
  void runOnOperation() override {
    bool ok = true;
    ModuleOp module = getOperation();
    module.walk([&](Operation *op) {
      if (op == module)
        return;
      if (!isSupportedOp(op)) {
        InFlightDiagnostic diag = op->emitError() << "unsupported op '"
                                                  << op->getName() << "': ";
        if (isKilnDialect(op))
          diag << "Kiln has no lowering for it";
        else
          diag << "Kiln compiles func, linalg, tensor, arith, math and tosa "
                  "ops on static shapes";
        ok = false;
        return;
      }
      if (std::optional<Type> type = unloweredElementType(op)) {
        op->emitError() << "unsupported op '" << op->getName() << "' on "
                        << *type
                        << " elements: Kiln has no lowering for it on this "
                           "element type";
        ok = false;
      }
      if (auto func = dyn_cast<func::FuncOp>(op))
        ok &= verifySignature(func);
      ok &= verifyTypes(op);
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
} // namespace kiln
