//===- ShapeProgramBuilder.h - Building a function's shape program -*- C++ -*-//
//
// Nodes of a shape program (schema/ShapeProgram.h) built once each: equal
// expressions get one node, so two extents computed alike are recognized as
// equal by their node alone, and constants fold while building.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HOST_SHAPEPROGRAMBUILDER_H
#define KILN_COMPILER_HOST_SHAPEPROGRAMBUILDER_H

#include "schema/ShapeProgram.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <tuple>
#include <vector>

namespace kiln {

class ShapeProgramBuilder {
public:
  using Opcode = schema::ShapeOpcode;

  uint32_t constant(int64_t value);
  /// Dimension `dim` of input `input` (a function's program).
  uint32_t inputDim(uint32_t input, uint32_t dim);
  /// The 64-bit push constant at `word` (an entry point's grid program).
  uint32_t pushConstant(uint32_t word);
  /// The positive (or, with `negativePart`, negative) part of element
  /// `element` of input `input`, read per call (a function's program).
  uint32_t inputElement(uint32_t input, uint32_t element, bool negativePart);
  /// `a op b`, folded when both are constants and the result is defined
  /// (integer or real opcodes).
  uint32_t binary(Opcode op, uint32_t a, uint32_t b);
  /// A real node (schema RealConstant .. RealCeil): a double.
  uint32_t realConstant(double value);
  /// Element `element` of input `input` as a double, read per call.
  uint32_t inputElementReal(uint32_t input, uint32_t element);
  /// RealFromInt, RealFloor, RealCeil or RealToInt of node `a`, folded
  /// when it is a constant and the result is defined.
  uint32_t unary(Opcode op, uint32_t a);
  uint32_t add(uint32_t a, uint32_t b) { return binary(Opcode::Add, a, b); }
  uint32_t mul(uint32_t a, uint32_t b) { return binary(Opcode::Mul, a, b); }
  /// `a - b`, an error of the call where it would be negative.
  uint32_t sub(uint32_t a, uint32_t b) { return binary(Opcode::Sub, a, b); }
  /// `a` rounded up to a multiple of `alignment`.
  uint32_t alignTo(uint32_t a, int64_t alignment);

  std::optional<int64_t> constantValue(uint32_t node) const;
  std::optional<double> realConstantValue(uint32_t node) const;
  const std::vector<schema::ShapeNodeData> &nodes() const { return Nodes; }

private:
  uint32_t node(Opcode op, int64_t a, int64_t b);
  // `op` over constant operands evaluated as the runtime would, or
  // nullopt where an operand is no constant or the result is undefined.
  std::optional<uint32_t> fold(Opcode op, llvm::ArrayRef<uint32_t> operands);

  std::vector<schema::ShapeNodeData> Nodes;
  llvm::DenseMap<std::tuple<uint8_t, int64_t, int64_t>, uint32_t> Index;
};

} // namespace kiln

#endif // KILN_COMPILER_HOST_SHAPEPROGRAMBUILDER_H
