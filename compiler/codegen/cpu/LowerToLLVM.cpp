//===- LowerToLLVM.cpp - CPU dispatches to the LLVM dialect ---------------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_CPULOWERTOLLVM
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Upstream lowering, in the order each dialect's ops are consumed.
constexpr const char *kLoweringPipeline =
    "func.func(convert-linalg-to-loops,lower-affine,canonicalize,cse),"
    "func.func(convert-vector-to-scf{full-unroll=true},lower-affine),"
    "convert-scf-to-cf,canonicalize,cse,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
    "reassociate-fp-reductions=true},"
    "convert-math-to-llvm,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,"
    "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},"
    "convert-arith-to-llvm,convert-cf-to-llvm,convert-index-to-llvm,"
    "convert-ub-to-llvm,reconcile-unrealized-casts,canonicalize";

// Wraps `impl(binding0, ..., bindingN, word0, ..., wordM, wgX, wgY, wgZ)` as
// the CPU ABI entry point
// `name(void *const *bindings, const uint32_t *push, u32 x, y, z)`.
FailureOr<LLVM::LLVMFuncOp> emitEntryPoint(ModuleOp module,
                                           LLVM::LLVMFuncOp impl,
                                           StringRef name, unsigned numBindings,
                                           unsigned numPushConstants) {
  MLIRContext *ctx = module.getContext();
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(impl);
  Location loc = impl.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i32 = IntegerType::get(ctx, 32);
  auto i64 = IntegerType::get(ctx, 64);
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  auto entryType =
      LLVM::LLVMFunctionType::get(voidType, {ptrType, ptrType, i32, i32, i32});
  auto entry = LLVM::LLVMFuncOp::create(builder, loc, name, entryType);
  Block *body = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);

  SmallVector<Value> args;
  for (unsigned i = 0; i < numBindings; ++i) {
    Value slot = LLVM::GEPOp::create(
        builder, loc, ptrType, ptrType, body->getArgument(0),
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(builder, loc, ptrType, slot));
  }
  for (unsigned i = 0; i < numPushConstants; ++i) {
    Value word =
        LLVM::GEPOp::create(builder, loc, ptrType, i32, body->getArgument(1),
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(builder, loc, i32, word));
  }
  for (unsigned i = 0; i < 3; ++i)
    args.push_back(
        LLVM::ZExtOp::create(builder, loc, i64, body->getArgument(2 + i)));
  auto implType = impl.getFunctionType();
  if (implType.getNumParams() != args.size())
    return impl.emitError("dispatch has ")
           << implType.getNumParams() << " parameters, expected "
           << args.size();
  LLVM::CallOp::create(builder, loc, impl, args);
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  return entry;
}

struct CpuLowerToLLVMPass : impl::CpuLowerToLLVMBase<CpuLowerToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();

    // Remember each dispatch's binding count and grid before lowering.
    struct DispatchInfo {
      std::string Name;
      unsigned NumBindings;
      unsigned NumPushConstants;
      DenseI64ArrayAttr WorkgroupCount;
      DenseI64ArrayAttr GridProgram, GridNodes; // null when static
    };
    SmallVector<DispatchInfo> dispatches;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!isDispatchFunc(func))
        continue;
      // Accumulators of a reduction loop stay in registers.
      linalg::hoistRedundantVectorTransfers(func);
      auto count = func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountAttr);
      if (!count || count.size() != 3) {
        func.emitError("dispatch has no workgroup count; run "
                       "kiln-distribute-to-workgroups first");
        return signalPassFailure();
      }
      // A grid computed per dispatch reads the words of its arguments.
      DenseI64ArrayAttr gridProgram = renumberGridProgram(func);
      // Scalar arguments arrive as push constant words.
      unsigned numPushConstants = replaceScalarArgumentsByWords(func);
      unsigned numBindings = llvm::count_if(
          func.getArgumentTypes(), [](Type t) { return isa<MemRefType>(t); });
      if (numBindings + numPushConstants + 3 != func.getNumArguments()) {
        func.emitError("dispatch arguments must be bindings, push constants "
                       "and the workgroup ids");
        return signalPassFailure();
      }
      dispatches.push_back(
          {func.getSymName().str(), numBindings, numPushConstants, count,
           gridProgram,
           func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountNodesAttr)});
      func.setSymName((func.getSymName() + "_impl").str());
      func.setPrivate();
    }

    {
      // Polynomial approximations keep exp/tanh/log vectorized instead of
      // scalarized libm calls.
      RewritePatternSet patterns(ctx);
      populateMathPolynomialApproximationPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }

    {
      // n-D vector ops become 1-D ones (native registers) before LLVM:
      // reductions over outer dims as elementwise ops across rows,
      // contractions as outer products (broadcast FMAs).
      RewritePatternSet patterns(ctx);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      vector::populateVectorContractLoweringPatterns(
          patterns, vector::VectorContractLowering::OuterProduct);
      vector::populateVectorOuterProductLoweringPatterns(patterns);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::EltWise);
      vector::populateVectorBroadcastLoweringPatterns(patterns);
      vector::populateVectorShapeCastLoweringPatterns(patterns);
      vector::populateVectorMaskOpLoweringPatterns(patterns);
      vector::populateVectorStepLoweringPatterns(patterns);
      vector::populateVectorGatherLoweringPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }

    OpPassManager pm(ModuleOp::getOperationName());
    if (failed(parsePassPipeline(kLoweringPipeline, pm)) ||
        failed(runPipeline(pm, module)))
      return signalPassFailure();

    for (const DispatchInfo &info : dispatches) {
      auto impl = module.lookupSymbol<LLVM::LLVMFuncOp>(info.Name + "_impl");
      if (!impl) {
        module.emitError("lowered dispatch not found: ") << info.Name;
        return signalPassFailure();
      }
      impl.setLinkage(LLVM::Linkage::Internal);
      FailureOr<LLVM::LLVMFuncOp> entry = emitEntryPoint(
          module, impl, info.Name, info.NumBindings, info.NumPushConstants);
      if (failed(entry))
        return signalPassFailure();
      // What the module writer records for this entry point.
      (*entry)->setAttr(kWorkgroupCountAttr, info.WorkgroupCount);
      if (info.GridProgram && info.GridNodes) {
        (*entry)->setAttr(kWorkgroupCountProgramAttr, info.GridProgram);
        (*entry)->setAttr(kWorkgroupCountNodesAttr, info.GridNodes);
      }
      (*entry)->setAttr(
          kBindingCountAttr,
          IntegerAttr::get(IntegerType::get(ctx, 32), info.NumBindings));
      (*entry)->setAttr(
          kPushConstantCountAttr,
          IntegerAttr::get(IntegerType::get(ctx, 32), info.NumPushConstants));
    }
  }
};

} // namespace
} // namespace kiln
