//===- Einsum.cpp - ONNX Einsum -------------------------------------------===//
//
// Any einsum without an output-side repeat is one linalg.generic: each
// letter a loop, each operand read through its letters (a repeated letter
// reads a diagonal), letters missing from the output reduced, the body the
// product of the operands added to the accumulator. An ellipsis stands for
// the leading dimensions, broadcast numpy-style across operands.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <map>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// One operand's subscripts, with an ellipsis expanded to the characters
/// '0', '1', ... (right-aligned: '0' is the outermost of the longest).
FailureOr<std::string> expand(NodeContext &ctx, llvm::StringRef term,
                              int64_t rank, int64_t &ellipsisRank,
                              bool isOutput) {
  std::string out;
  size_t dots = term.find("...");
  llvm::StringRef before = term, after;
  if (dots != llvm::StringRef::npos) {
    before = term.take_front(dots);
    after = term.drop_front(dots + 3);
  }
  for (char c : (before + after).str())
    if (!llvm::isAlpha(c))
      return ctx.emitError() << "subscript '" << c << "' is not a letter",
             failure();
  if (dots == llvm::StringRef::npos) {
    if (!isOutput && static_cast<int64_t>(term.size()) != rank)
      return ctx.emitError() << "'" << term << "' has " << term.size()
                             << " subscripts for rank " << rank,
             failure();
    return term.str();
  }
  int64_t n = isOutput
                  ? ellipsisRank
                  : rank - static_cast<int64_t>(before.size() + after.size());
  if (n < 0)
    return ctx.emitError() << "'" << term << "' has too many subscripts",
           failure();
  if (!isOutput)
    ellipsisRank = std::max(ellipsisRank, n);
  out = before.str();
  // Placeholder: the ellipsis dims, resolved once every operand is read.
  out += std::string(n, '.');
  out += after.str();
  return out;
}

LogicalResult convertEinsum(NodeContext &ctx) {
  std::string equation = ctx.attrString("equation", "");
  equation.erase(std::remove(equation.begin(), equation.end(), ' '),
                 equation.end());
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    if (failed(requireSameDType(ctx, i)))
      return failure();
  llvm::StringRef eq(equation);
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  llvm::SmallVector<llvm::StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ctx.numInputs())
    return ctx.emitError() << "equation '" << equation << "' names "
                           << terms.size() << " operands for "
                           << ctx.numInputs() << " inputs";
  int64_t ellipsisRank = 0;
  llvm::SmallVector<std::string> subs;
  for (auto [i, term] : llvm::enumerate(terms)) {
    FailureOr<std::string> s =
        expand(ctx, term, ctx.inputRank(i), ellipsisRank, false);
    if (failed(s))
      return failure();
    subs.push_back(*s);
  }
  // Ellipsis dims become '0'..'9'-like letters, right-aligned.
  auto resolve = [&](std::string s) {
    size_t n = std::count(s.begin(), s.end(), '.');
    size_t k = 0;
    for (char &c : s)
      if (c == '.')
        c = static_cast<char>('0' + (ellipsisRank - n) + k++);
    return s;
  };
  for (std::string &s : subs)
    s = resolve(s);
  std::string out;
  if (explicitOutput) {
    FailureOr<std::string> s = expand(ctx, rhs, 0, ellipsisRank, true);
    if (failed(s))
      return failure();
    out = resolve(*s);
  } else {
    // Implicit output: the ellipsis, then letters used once, sorted.
    for (int64_t k = 0; k < ellipsisRank; ++k)
      out += static_cast<char>('0' + k);
    std::map<char, int> uses;
    for (const std::string &s : subs)
      for (char c : s)
        if (llvm::isAlpha(c))
          ++uses[c];
    for (auto [c, n] : uses)
      if (n == 1)
        out += c;
  }
  // Loop order: output letters, then reduced ones; each letter's size.
  std::string loops = out;
  for (const std::string &s : subs)
    for (char c : s)
      if (loops.find(c) == std::string::npos)
        loops += c;
  std::map<char, int64_t> sizes;
  for (auto [i, s] : llvm::enumerate(subs)) {
    llvm::ArrayRef<int64_t> shape = ctx.inputShape(i);
    for (auto [k, c] : llvm::enumerate(s)) {
      int64_t d = shape[k];
      auto [it, inserted] = sizes.try_emplace(c, d);
      if (inserted || it->second == d)
        continue;
      bool ellipsis = !llvm::isAlpha(c);
      if (ellipsis && (d == 1 || it->second == 1)) {
        it->second = std::max(it->second, d);
        continue;
      }
      return ctx.emitError() << "subscript '" << c << "' is " << it->second
                             << " in one operand and " << d << " in another";
    }
  }
  for (char c : out)
    if (!sizes.count(c) || std::count(out.begin(), out.end(), c) != 1)
      return ctx.unsupported("output subscripts '" + rhs.str() + "'");
  MLIRContext *mctx = ctx.context();
  int64_t numLoops = loops.size();
  llvm::SmallVector<AffineMap> maps;
  for (auto [i, s] : llvm::enumerate(subs)) {
    llvm::ArrayRef<int64_t> shape = ctx.inputShape(i);
    llvm::SmallVector<AffineExpr> exprs;
    for (auto [k, c] : llvm::enumerate(s)) {
      // A broadcast ellipsis dimension is read at 0.
      if (shape[k] == 1 && sizes[c] != 1)
        exprs.push_back(getAffineConstantExpr(0, mctx));
      else
        exprs.push_back(getAffineDimExpr(loops.find(c), mctx));
    }
    maps.push_back(AffineMap::get(numLoops, 0, exprs, mctx));
  }
  llvm::SmallVector<AffineExpr> outExprs;
  llvm::SmallVector<int64_t> outShape;
  for (char c : out) {
    outExprs.push_back(getAffineDimExpr(loops.find(c), mctx));
    outShape.push_back(sizes[c]);
  }
  maps.push_back(AffineMap::get(numLoops, 0, outExprs, mctx));
  llvm::SmallVector<utils::IteratorType> iterators;
  for (int64_t i = 0; i < numLoops; ++i)
    iterators.push_back(i < static_cast<int64_t>(out.size())
                            ? utils::IteratorType::parallel
                            : utils::IteratorType::reduction);
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  bool isFloat = isa<FloatType>(element);
  Value init = filledTensor(b, loc, outShape, element, scalarAttr(element, 0));
  llvm::SmallVector<Value> operands;
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    operands.push_back(ctx.input(i));
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), operands, init, maps, iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value p = args[0];
            for (Value a : args.drop_front().drop_back())
              p = isFloat ? Value(arith::MulFOp::create(nb, l, p, a))
                          : Value(arith::MulIOp::create(nb, l, p, a));
            Value acc = args.back();
            Value r = isFloat ? Value(arith::AddFOp::create(nb, l, p, acc))
                              : Value(arith::AddIOp::create(nb, l, p, acc));
            linalg::YieldOp::create(nb, l, r);
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerEinsumOps(OpRegistry &registry) {
  registry.add("Einsum", convertEinsum);
}

} // namespace kiln::onnx_import
