//===- ShapeProgramBuilder.cpp - Building a function's shape program ------===//

#include "compiler/host/ShapeProgramBuilder.h"

#include <bit>
#include <cmath>

namespace kiln {

uint32_t ShapeProgramBuilder::node(Opcode op, int64_t a, int64_t b) {
  auto [it, inserted] = Index.try_emplace(
      std::make_tuple(static_cast<uint8_t>(op), a, b), Nodes.size());
  if (inserted)
    Nodes.push_back({op, a, b});
  return it->second;
}

uint32_t ShapeProgramBuilder::constant(int64_t value) {
  return node(Opcode::Constant, value, 0);
}

uint32_t ShapeProgramBuilder::inputDim(uint32_t input, uint32_t dim) {
  return node(Opcode::InputDim, input, dim);
}

uint32_t ShapeProgramBuilder::pushConstant(uint32_t word) {
  return node(Opcode::PushConstant, word, 0);
}

uint32_t ShapeProgramBuilder::inputElement(uint32_t input, uint32_t element,
                                           bool negativePart) {
  return node(negativePart ? Opcode::InputElementNeg : Opcode::InputElementPos,
              input, element);
}

uint32_t ShapeProgramBuilder::realConstant(double value) {
  return node(Opcode::RealConstant, std::bit_cast<int64_t>(value), 0);
}

uint32_t ShapeProgramBuilder::inputElementReal(uint32_t input,
                                               uint32_t element) {
  return node(Opcode::InputElementReal, input, element);
}

std::optional<int64_t> ShapeProgramBuilder::constantValue(uint32_t n) const {
  if (Nodes[n].Op != Opcode::Constant)
    return std::nullopt;
  return Nodes[n].A;
}

std::optional<double> ShapeProgramBuilder::realConstantValue(uint32_t n) const {
  if (Nodes[n].Op != Opcode::RealConstant)
    return std::nullopt;
  return std::bit_cast<double>(Nodes[n].A);
}

std::optional<uint32_t>
ShapeProgramBuilder::fold(Opcode op, llvm::ArrayRef<uint32_t> operands) {
  // The shared evaluator folds, so compile time and run time agree; an
  // undefined result stays a node and fails each call that reaches it.
  std::vector<schema::ShapeNodeData> folded;
  for (uint32_t n : operands) {
    if (!constantValue(n) && !realConstantValue(n))
      return std::nullopt;
    folded.push_back(Nodes[n]);
  }
  folded.push_back({op, 0, operands.size() > 1 ? 1 : 0});
  std::vector<int64_t> values;
  std::vector<double> reals;
  if (!schema::evaluateShapeProgram(
           folded, [](Opcode, int64_t, int64_t) { return std::nullopt; },
           values, nullptr, &reals)
           .empty())
    return std::nullopt;
  if (!schema::isRealShapeOpcode(op))
    return constant(values.back());
  if (!std::isfinite(reals.back()))
    return std::nullopt;
  return realConstant(reals.back());
}

uint32_t ShapeProgramBuilder::unary(Opcode op, uint32_t a) {
  if (std::optional<uint32_t> folded = fold(op, {a}))
    return *folded;
  return node(op, a, 0);
}

uint32_t ShapeProgramBuilder::binary(Opcode op, uint32_t a, uint32_t b) {
  std::optional<int64_t> ca = constantValue(a), cb = constantValue(b);
  // Identities keep programs short; they hold for every value.
  if ((op == Opcode::Mul && cb == 1) || (op == Opcode::Add && cb == 0) ||
      (op == Opcode::Sub && cb == 0) ||
      ((op == Opcode::FloorDiv || op == Opcode::CeilDiv) && cb == 1) ||
      ((op == Opcode::Max || op == Opcode::Min) && a == b))
    return a;
  if ((op == Opcode::Mul && ca == 1) || (op == Opcode::Add && ca == 0) ||
      (op == Opcode::Max && ca == 0))
    return b;
  // Every node is >= 0.
  if (op == Opcode::Max && cb == 0)
    return a;
  if ((op == Opcode::Mul && (ca == 0 || cb == 0)) ||
      (op == Opcode::Min && (ca == 0 || cb == 0)) ||
      (op == Opcode::Sub && a == b))
    return constant(0);
  if (std::optional<uint32_t> folded = fold(op, {a, b}))
    return *folded;
  // Commutative operands in one order, so a + b and b + a are one node.
  if ((op == Opcode::Add || op == Opcode::Mul || op == Opcode::Max ||
       op == Opcode::Min || op == Opcode::RealAdd || op == Opcode::RealMul ||
       op == Opcode::RealMax || op == Opcode::RealMin) &&
      a > b)
    std::swap(a, b);
  return node(op, a, b);
}

uint32_t ShapeProgramBuilder::alignTo(uint32_t a, int64_t alignment) {
  uint32_t c = constant(alignment);
  return mul(binary(Opcode::CeilDiv, a, c), c);
}

} // namespace kiln
