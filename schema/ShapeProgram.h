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

#include <bit>
#include <cmath>
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
  // Real nodes (minor version 8): doubles, for sizes ONNX computes in
  // floating point (Resize's floor(dim * scale), Range's ceil((limit -
  // start) / delta)). They read and give only real nodes, except
  // RealFromInt (an integer node as a double) and RealToInt (back).
  RealConstant = 12,     // the double whose bits are a
  InputElementReal = 13, // element b of input a as a double
  RealFromInt = 14,
  RealAdd = 15,
  RealSub = 16,
  RealMul = 17,
  RealDiv = 18,
  RealMax = 19,
  RealMin = 20,
  RealFloor = 21,
  RealCeil = 22,
  // a truncated toward zero; an error of the call unless -1 < a < 2^63.
  RealToInt = 23,
  // a rounded to the nearest float32: f32 arithmetic done in double and
  // rounded after each operation is exactly f32 arithmetic.
  RealRoundF32 = 24,
};

inline constexpr uint8_t kMaxShapeOpcode = 24;

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
  static const char *const kNames[] = {
      "const",    "dim",       "push",      "add",     "sub",
      "mul",      "floordiv",  "ceildiv",   "max",     "min",
      "element+", "element-",  "realconst", "element", "real",
      "realadd",  "realsub",   "realmul",   "realdiv", "realmax",
      "realmin",  "realfloor", "realceil",  "int",     "realf32"};
  auto raw = static_cast<uint8_t>(op);
  return raw <= kMaxShapeOpcode ? kNames[raw] : "unknown";
}

inline bool isBinaryShapeOpcode(ShapeOpcode op) {
  return static_cast<uint8_t>(op) >= static_cast<uint8_t>(ShapeOpcode::Add) &&
         static_cast<uint8_t>(op) <= static_cast<uint8_t>(ShapeOpcode::Min);
}

/// Opcodes reading an element of an input on the host.
inline bool isInputElementOpcode(ShapeOpcode op) {
  return op == ShapeOpcode::InputElementPos ||
         op == ShapeOpcode::InputElementNeg ||
         op == ShapeOpcode::InputElementReal;
}

/// Opcodes giving a real node (a double) rather than an integer >= 0.
inline bool isRealShapeOpcode(ShapeOpcode op) {
  auto raw = static_cast<uint8_t>(op);
  return (raw >= static_cast<uint8_t>(ShapeOpcode::RealConstant) &&
          raw <= static_cast<uint8_t>(ShapeOpcode::RealCeil)) ||
         op == ShapeOpcode::RealRoundF32;
}

inline bool isRealBinaryShapeOpcode(ShapeOpcode op) {
  auto raw = static_cast<uint8_t>(op);
  return raw >= static_cast<uint8_t>(ShapeOpcode::RealAdd) &&
         raw <= static_cast<uint8_t>(ShapeOpcode::RealMin);
}

/// Opcodes of one operand node `a`: RealFromInt (an integer node),
/// RealFloor, RealCeil, RealToInt and RealRoundF32 (a real node).
inline bool isUnaryShapeOpcode(ShapeOpcode op) {
  return op == ShapeOpcode::RealFromInt || op == ShapeOpcode::RealFloor ||
         op == ShapeOpcode::RealCeil || op == ShapeOpcode::RealToInt ||
         op == ShapeOpcode::RealRoundF32;
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
/// operands naming earlier nodes of the kind the opcode reads (integer or
/// real), and leaves (InputDim, PushConstant, InputElement*) that
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
    if (node.Op == ShapeOpcode::RealConstant) {
      if (!std::isfinite(std::bit_cast<double>(node.A)))
        return where + " is a real constant that is not finite";
      continue;
    }
    // An operand: an earlier node, real where the opcode reads reals.
    auto operand = [&](int64_t n, bool real) {
      return n >= 0 && static_cast<uint64_t>(n) < i &&
             isRealShapeOpcode(nodes[n].Op) == real;
    };
    bool binary = isBinaryShapeOpcode(node.Op);
    if (binary || isRealBinaryShapeOpcode(node.Op)) {
      if (!operand(node.A, !binary) || !operand(node.B, !binary))
        return where + " (" + shapeOpcodeName(node.Op) + ") reads nodes " +
               std::to_string(node.A) + " and " + std::to_string(node.B) +
               ", not both earlier " + (binary ? "integer" : "real") + " ones";
      continue;
    }
    if (isUnaryShapeOpcode(node.Op)) {
      bool real = node.Op != ShapeOpcode::RealFromInt;
      if (!operand(node.A, real))
        return where + " (" + shapeOpcodeName(node.Op) + ") reads node " +
               std::to_string(node.A) + ", not an earlier " +
               (real ? "real" : "integer") + " one";
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

/// A real node's value, or nullopt where the leaf has none.
using RealLeaf = std::function<std::optional<double>(int64_t, int64_t)>;

/// Evaluates a real node of a program checked by checkShapeProgram, its
/// operands' values in `reals`; an empty string, or what failed.
inline std::string evaluateRealShapeNode(const ShapeNodeData &node,
                                         const std::vector<int64_t> &values,
                                         const std::vector<double> &reals,
                                         const RealLeaf &leaf, double &out) {
  switch (node.Op) {
  case ShapeOpcode::RealConstant:
    out = std::bit_cast<double>(node.A);
    return "";
  case ShapeOpcode::InputElementReal: {
    std::optional<double> value = leaf ? leaf(node.A, node.B) : std::nullopt;
    if (!value)
      return " has no value";
    out = *value;
    return "";
  }
  case ShapeOpcode::RealFromInt:
    out = static_cast<double>(values[node.A]);
    return "";
  case ShapeOpcode::RealFloor:
    out = std::floor(reals[node.A]);
    return "";
  case ShapeOpcode::RealCeil:
    out = std::ceil(reals[node.A]);
    return "";
  case ShapeOpcode::RealRoundF32: {
    // Past float's range (from FLT_MAX + half an ulp, a tie rounding to
    // the even infinity) an infinity, as an f32 operation gives; C++
    // leaves converting those undefined, so they are not converted.
    double a = reals[node.A];
    constexpr double kFloatMax = 0x1.fffffep127, kHalfwayPast = 0x1.ffffffp127;
    if (std::isnan(a))
      out = a;
    else if (std::fabs(a) >= kHalfwayPast)
      out = std::copysign(INFINITY, a);
    else if (std::fabs(a) > kFloatMax)
      out = std::copysign(kFloatMax, a);
    else
      out = static_cast<double>(static_cast<float>(a));
    return "";
  }
  default:
    break;
  }
  double a = reals[node.A], b = reals[node.B];
  switch (node.Op) {
  case ShapeOpcode::RealAdd:
    out = a + b;
    break;
  case ShapeOpcode::RealSub:
    out = a - b;
    break;
  case ShapeOpcode::RealMul:
    out = a * b;
    break;
  case ShapeOpcode::RealDiv:
    out = a / b;
    break;
  // NaN wins, so a NaN read from an input fails the call at RealToInt.
  case ShapeOpcode::RealMax:
    out = std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
    break;
  case ShapeOpcode::RealMin:
    out = std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
    break;
  default:
    return " has unknown opcode";
  }
  return "";
}

/// Evaluates a program checked by checkShapeProgram into `values`, `leaf`
/// giving InputDim, PushConstant and InputElementPos/Neg values (which must
/// be >= 0) and `realLeaf` InputElementReal's. A real node's entry in
/// `values` is 0; its double goes to `*realValues` where given. Returns an
/// empty string, or what failed, naming the node.
inline std::string evaluateShapeProgram(
    std::span<const ShapeNodeData> nodes,
    const std::function<std::optional<int64_t>(ShapeOpcode, int64_t, int64_t)>
        &leaf,
    std::vector<int64_t> &values, const RealLeaf &realLeaf = nullptr,
    std::vector<double> *realValues = nullptr) {
  values.assign(nodes.size(), 0);
  // Sized at the first real node only: most programs (every grid program)
  // have none, and are evaluated per dispatch and call.
  std::vector<double> ownReals;
  std::vector<double> &reals = realValues ? *realValues : ownReals;
  reals.clear();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ShapeNodeData &node = nodes[i];
    std::string where = "shape node " + std::to_string(i) + " (" +
                        shapeOpcodeName(node.Op) + ")";
    int64_t result = 0;
    if (isRealShapeOpcode(node.Op)) {
      if (reals.empty())
        reals.assign(nodes.size(), 0.0);
      std::string failure =
          evaluateRealShapeNode(node, values, reals, realLeaf, reals[i]);
      if (!failure.empty())
        return where + failure;
      continue;
    }
    if (node.Op == ShapeOpcode::Constant) {
      result = node.A;
    } else if (node.Op == ShapeOpcode::RealToInt) {
      // A checked program's operand is an earlier real node.
      double real = reals.empty() ? NAN : reals[node.A];
      // 2^63 is the first double past int64.
      if (!(real > -1.0 && real < 9223372036854775808.0))
        return where + " is no size: " + std::to_string(real);
      result = static_cast<int64_t>(real);
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
