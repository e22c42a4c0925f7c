//===- CallShapes.h - A call of a function with dynamic shapes --*- C++ -*-===//
//
// A function with dynamic dimensions (module.fbs ShapeNode, issue 19) is
// planned at compile time as expressions; each call's input shapes make it
// concrete. resolveCall evaluates the function's shape program
// (schema/ShapeProgram.h) from the inputs' shapes and gives everything a
// recording needs: the inputs checked (rank, static dimensions, the
// equalities the function needs), output shapes (which may also depend on
// the values of integer inputs the program reads), byte sizes (overflow
// checked, at most 2^48), the arena's size, each step's ranges and push
// constants, every range checked against its buffer and the steps'
// dependencies checked against what they touch. A module is hostile until
// checked: a program that overflows or divides by zero for these shapes is
// an error of the call, never a wrapped size.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_CALLSHAPES_H
#define KILN_RUNTIME_MODULE_CALLSHAPES_H

#include "runtime/base/ElementType.h"
#include "runtime/base/Status.h"
#include "runtime/module/StepAccesses.h"
#include "schema/ShapeProgram.h"
#include "schema/module_generated.h"

#include <array>
#include <span>
#include <string_view>
#include <vector>

namespace kiln::module {

/// A program of the file as the shared evaluator takes it (empty when
/// absent).
std::vector<schema::ShapeNodeData>
shapeProgramOf(const flatbuffers::Vector<const schema::ShapeNode *> *nodes);

struct CallShapes {
  std::vector<std::vector<int64_t>> InputShapes, OutputShapes;
  std::vector<uint64_t> InputBytes, OutputBytes;
  uint64_t ArenaSize = 0;
  /// Per step: its ranges (as StepAccesses.h orders them) and, for a
  /// dispatch, its push constant words.
  std::vector<std::vector<ResolvedRange>> Ranges;
  std::vector<std::vector<uint32_t>> PushConstants;
  /// Per step: the entry point a dispatch runs at these shapes (its first
  /// entry point choice whose node is not zero, else its own; 0 for other
  /// steps).
  std::vector<uint32_t> EntryPoints;
};

/// The inputs whose values `function`'s shape program reads on the host
/// (InputElement leaves: a Reshape target or Slice starts given at call
/// time), ascending.
std::vector<uint32_t> valueInputsOf(const schema::Function &function);

/// The elements of an int32, int64, bool, f32 or f64 tensor's `data` as
/// resolveCall takes them: an integer's value (a bool's 0 or 1), a float's
/// double's bits
/// (InputElementReal reads them exactly; InputElementPos/Neg truncate them
/// toward zero, refusing one that is not finite or lies past int64). A
/// partial element at the end is left out, so a short tensor gives too few
/// values, which resolveCall refuses.
std::vector<int64_t> shapeValues(ElementType type,
                                 std::span<const uint8_t> data);

/// Resolves a verified function with a shape program at `inputShapes`;
/// `inputValues` holds, at the index of each input valueInputsOf names, its
/// elements as shapeValues gives them (others may be empty); `label`
/// ("function @f") starts error messages, `constantsSize` bounds Constant
/// ranges.
StatusOr<CallShapes>
resolveCall(const schema::Function &function, std::string_view label,
            std::span<const std::vector<int64_t>> inputShapes,
            std::span<const std::vector<int64_t>> inputValues,
            uint64_t constantsSize);

/// The grid of a dispatch of verified `entry` with `pushConstants`: its
/// grid program's when it has one, else its workgroup_count; each count
/// below 2^32 and their product at most 2^32 (a zero count: no work).
StatusOr<std::array<uint32_t, 3>>
resolveGrid(const schema::EntryPoint &entry,
            std::span<const uint32_t> pushConstants);

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_CALLSHAPES_H
