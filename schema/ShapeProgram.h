//===- ShapeProgram.h - Shapes computed per call --------------------------===//
//
// A function with dynamic dimensions (issue 19) carries a shape program
// (module.fbs ShapeNode): nodes in SSA order, each a non-negative int64
// computed from earlier nodes, a constant, or a dimension of the call's
// input. The runtime evaluates it once per call from the inputs' shapes and
// reads every per-call quantity off it: output dimensions, binding offsets
// and lengths, the arena's size, the extents dispatches take as push
// constants. An entry point whose grid depends on the shapes carries a
// program of the same form over its dispatch's push constant words.
//
// The compiler builds programs against these opcodes and the runtime's
// loader checks (checkShapeProgram) and evaluates (evaluateShapeProgram)
// them here, so both sides agree on the arithmetic: every result must stay
// in [0, 2^63), a difference must not be negative, a division's divisor must
// not be zero; anything else is an error of the call, never a wrapped value.
//
// Header-only and dependency-free: like module.fbs, it is part of the file
// format.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_SHAPEPROGRAM_H
#define KILN_SCHEMA_SHAPEPROGRAM_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::schema {

/// module.fbs ShapeOp.
enum class ShapeOpcode : uint8_t {
  Constant = 0,
  InputDim = 1,
  PushConstant = 2,
  Add = 3,
  Sub = 4,
  Mul = 5,
  FloorDiv = 6,
  CeilDiv = 7,
  Max = 8,
  Min = 9,
  InputElementPos = 10,
  InputElementNeg = 11,
};

inline constexpr uint8_t kMaxShapeOpcode = 11;

/// "No node": the static value holds (module.fbs BindingNodes, ...).
inline constexpr uint32_t kNoShapeNode = 0xFFFFFFFFu;

/// The most nodes a program may have (bounds the loader's work).
inline constexpr size_t kMaxShapeNodes = size_t(1) << 20;

struct ShapeNodeData {
  ShapeOpcode Op = ShapeOpcode::Constant;
  int64_t A = 0;
  int64_t B = 0;
};

inline const char *shapeOpcodeName(ShapeOpcode op) {
  static const char *const kNames[] = {"const", "dim", "push",     "add",
                                       "sub",   "mul", "floordiv", "ceildiv",
                                       "max",   "min", "element+", "element-"};
  auto raw = static_cast<uint8_t>(op);
  return raw <= kMaxShapeOpcode ? kNames[raw] : "unknown";
}

inline bool isBinaryShapeOpcode(ShapeOpcode op) {
  return static_cast<uint8_t>(op) >= static_cast<uint8_t>(ShapeOpcode::Add) &&
         static_cast<uint8_t>(op) <= static_cast<uint8_t>(ShapeOpcode::Min);
}

inline bool isInputElementOpcode(ShapeOpcode op) {
  return op == ShapeOpcode::InputElementPos ||
         op == ShapeOpcode::InputElementNeg;
}

/// The leaf an input element's value `v` gives: its positive part for
/// InputElementPos, its negative part for InputElementNeg; nullopt where
/// -v overflows.
inline std::optional<int64_t> inputElementPart(ShapeOpcode op, int64_t v) {
  if (op == ShapeOpcode::InputElementPos)
    return v > 0 ? v : 0;
  if (v == INT64_MIN)
    return std::nullopt;
  return v < 0 ? -v : 0;
}

/// Checks `nodes`' structure: known opcodes, non-negative constants,
/// operands naming earlier nodes, and leaves (InputDim, PushConstant) that
/// `validLeaf(op, a, b)` accepts. Returns an empty string, or why not.
inline std::string checkShapeProgram(
    std::span<const ShapeNodeData> nodes,
    const std::function<bool(ShapeOpcode, int64_t, int64_t)> &validLeaf) {
  if (nodes.size() > kMaxShapeNodes)
    return "has " + std::to_string(nodes.size()) + " shape nodes, at most " +
           std::to_string(kMaxShapeNodes) + " are allowed";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ShapeNodeData &node = nodes[i];
    std::string where = "shape node " + std::to_string(i);
    if (static_cast<uint8_t>(node.Op) > kMaxShapeOpcode)
      return where + " has unknown opcode " +
             std::to_string(static_cast<unsigned>(node.Op));
    if (node.Op == ShapeOpcode::Constant) {
      if (node.A < 0)
        return where + " is a negative constant " + std::to_string(node.A);
      continue;
    }
    if (isBinaryShapeOpcode(node.Op)) {
      if (node.A < 0 || node.B < 0 || static_cast<uint64_t>(node.A) >= i ||
          static_cast<uint64_t>(node.B) >= i)
        return where + " (" + shapeOpcodeName(node.Op) + ") reads nodes " +
               std::to_string(node.A) + " and " + std::to_string(node.B) +
               ", not both earlier ones";
      continue;
    }
    if (!validLeaf(node.Op, node.A, node.B))
      return where + " (" + shapeOpcodeName(node.Op) + " " +
             std::to_string(node.A) + ", " + std::to_string(node.B) +
             ") names nothing this program may read";
  }
  return "";
}

/// Whether every node named in `refs` is one of a program's `count` nodes
/// (kNoShapeNode allowed where `allowNone`).
inline bool validShapeNodeRef(uint32_t ref, size_t count, bool allowNone) {
  return ref < count || (allowNone && ref == kNoShapeNode);
}

/// Evaluates a program checked by checkShapeProgram into `values`, `leaf`
/// giving InputDim, PushConstant and InputElement values (which must be
/// >= 0). Returns an
/// empty string, or what failed, naming the node.
inline std::string evaluateShapeProgram(
    std::span<const ShapeNodeData> nodes,
    const std::function<std::optional<int64_t>(ShapeOpcode, int64_t, int64_t)>
        &leaf,
    std::vector<int64_t> &values) {
  values.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ShapeNodeData &node = nodes[i];
    std::string where = "shape node " + std::to_string(i) + " (" +
                        shapeOpcodeName(node.Op) + ")";
    int64_t result = 0;
    if (node.Op == ShapeOpcode::Constant) {
      result = node.A;
    } else if (!isBinaryShapeOpcode(node.Op)) {
      std::optional<int64_t> value = leaf(node.Op, node.A, node.B);
      if (!value || *value < 0)
        return where + " has no value";
      result = *value;
    } else {
      int64_t a = values[node.A], b = values[node.B];
      bool overflow = false;
      switch (node.Op) {
      case ShapeOpcode::Add:
        overflow = __builtin_add_overflow(a, b, &result);
        break;
      case ShapeOpcode::Sub:
        if (b > a)
          return where + " would be negative: " + std::to_string(a) + " - " +
                 std::to_string(b);
        result = a - b;
        break;
      case ShapeOpcode::Mul:
        overflow = __builtin_mul_overflow(a, b, &result);
        break;
      case ShapeOpcode::FloorDiv:
      case ShapeOpcode::CeilDiv:
        if (b == 0)
          return where + " divides by zero";
        result = a / b;
        if (node.Op == ShapeOpcode::CeilDiv && a % b != 0)
          ++result;
        break;
      case ShapeOpcode::Max:
        result = a > b ? a : b;
        break;
      case ShapeOpcode::Min:
        result = a < b ? a : b;
        break;
      default:
        return where + " has unknown opcode";
      }
      if (overflow)
        return where + " overflows: " + std::to_string(a) + " and " +
               std::to_string(b);
    }
    values[i] = result;
  }
  return "";
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_SHAPEPROGRAM_H
