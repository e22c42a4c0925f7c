//===- Verifier.cpp -------------------------------------------------------===//

#include "runtime/module/Verifier.h"
#include "schema/Specializations.h"

#include "runtime/base/ElementType.h"
#include "runtime/base/HostTensor.h"
#include "runtime/module/CallShapes.h"
#include "runtime/module/StepAccesses.h"
#include "schema/ModuleChecksum.h"
#include "schema/StepDependencies.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace kiln::module {

namespace sc = kiln::schema;

namespace {

// Generous for this schema (Module > Function > Step > DispatchStep is the
// deepest path) while bounding the work a crafted file can cause.
constexpr flatbuffers::uoffset_t kMaxDepth = 16;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 20;
constexpr uint64_t kMaxGridProduct = uint64_t(1) << 32;
constexpr size_t kMaxQuotedChars = 64;
// Checking that every pair of conflicting steps is ordered costs time
// quadratic in the steps and a bit per pair; this bounds both (32 MiB) for
// a crafted file, far above what a model needs.
constexpr flatbuffers::uoffset_t kMaxSteps = 1u << 14;
// Loops' bodies run in phases of their own nest at most this deep (each
// level a loop of the runtime's; a call recurses once per level).
constexpr uint32_t kMaxPhaseNesting = 8;

// Names come from untrusted files and end up in one-line error reports, so
// they are shortened and anything unprintable is escaped.
std::string escape(const char *chars, size_t size) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size && i < kMaxQuotedChars; ++i) {
    unsigned char c = static_cast<unsigned char>(chars[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (size > kMaxQuotedChars)
    out += "...";
  return out;
}

std::string quote(const flatbuffers::String *str) {
  return strCat("'", escape(str->c_str(), str->size()), "'");
}

std::string_view storageName(sc::StorageKind kind) {
  switch (kind) {
  case sc::StorageKind::Input:
    return "input";
  case sc::StorageKind::Output:
    return "output";
  case sc::StorageKind::Constant:
    return "constant";
  case sc::StorageKind::Arena:
    return "arena";
  }
  return "?";
}

bool isAligned(const void *ptr, const uint8_t *base, size_t alignment) {
  return (static_cast<const uint8_t *>(ptr) - base) % alignment == 0;
}

// Whether `size` bytes at `data` hold a well-formed Module flatbuffer, every
// table, vector and string of it inside them.
bool flatbufferVerifies(const uint8_t *data, size_t size) {
  flatbuffers::Verifier::Options options;
  options.max_depth = kMaxDepth;
  options.max_tables = kMaxTables;
  options.check_alignment = true;
  options.check_nested_flatbuffers = false;
  flatbuffers::Verifier verifier(data, size, options);
  return sc::VerifyModuleBuffer(verifier);
}

// Checks one module after the flatbuffers structural verifier accepted its
// first `flatbufferLimit` bytes; `payloadSize` bytes precede the footer.
class ModuleChecker {
public:
  ModuleChecker(const uint8_t *base, uint64_t payloadSize,
                uint64_t flatbufferLimit, const sc::Module &module)
      : Base(base), PayloadSize(payloadSize), FlatbufferLimit(flatbufferLimit),
        Mod(module) {}

  Status run() {
    if (Mod.version_major() != kModuleVersionMajor)
      return KILN_ERROR(InvalidArgument, "module version ", Mod.version_major(),
                        ".", Mod.version_minor(),
                        " is not supported by this runtime (",
                        kModuleVersionMajor, ".x)");
    if (const auto *constants = Mod.constants()) {
      ConstantsSize = constants->size();
      if (ConstantsSize > 0 &&
          !isAligned(constants->data(), Base, kConstantsAlignment))
        return KILN_ERROR(InvalidArgument, "module constants (", ConstantsSize,
                          " bytes) are not ", kConstantsAlignment,
                          "-byte aligned in the file");
    }
    if (const sc::ConstantsSegment *segment = Mod.constants_segment()) {
      if (Mod.constants())
        return KILN_ERROR(InvalidArgument,
                          "module has both a constants vector and a constants "
                          "segment; it may have one of them");
      KILN_RETURN_IF_ERROR(checkConstantsSegment(*segment));
      ConstantsSize = segment->size();
    }
    const auto &executables = *Mod.executables();
    for (flatbuffers::uoffset_t i = 0; i < executables.size(); ++i)
      KILN_RETURN_IF_ERROR(checkExecutable(i, *executables.Get(i)));
    const auto &functions = *Mod.functions();
    std::unordered_set<std::string_view> names;
    for (flatbuffers::uoffset_t i = 0; i < functions.size(); ++i) {
      const sc::Function &function = *functions.Get(i);
      if (function.name()->size() == 0)
        return KILN_ERROR(InvalidArgument, "function ", i,
                          " has an empty name");
      if (!names.insert(function.name()->string_view()).second)
        return KILN_ERROR(InvalidArgument, "function ", quote(function.name()),
                          " is defined more than once");
      KILN_RETURN_IF_ERROR(checkFunction(function));
    }
    for (flatbuffers::uoffset_t i = 0; i < functions.size(); ++i) {
      KILN_RETURN_IF_ERROR(checkSpecializations(functions, i));
      KILN_RETURN_IF_ERROR(checkPhases(functions, i));
    }
    return Status();
  }

private:
  using Functions = flatbuffers::Vector<flatbuffers::Offset<sc::Function>>;

  // A value's type as the phase checks compare it.
  struct TypeView {
    uint32_t ElementType = 0;
    std::vector<int64_t> Shape; // -1: dynamic
  };
  static TypeView viewOf(const sc::TensorType &type) {
    return {static_cast<uint32_t>(type.element_type()),
            std::vector<int64_t>(type.shape()->begin(), type.shape()->end())};
  }
  // The same bytes per element at the same rank, static extents agreeing.
  static bool compatible(const TypeView &a, const TypeView &b) {
    if (elementTypeSize(static_cast<ElementType>(a.ElementType)) !=
            elementTypeSize(static_cast<ElementType>(b.ElementType)) ||
        a.Shape.size() != b.Shape.size())
      return false;
    for (size_t d = 0; d < a.Shape.size(); ++d)
      if (a.Shape[d] >= 0 && b.Shape[d] >= 0 && a.Shape[d] != b.Shape[d])
        return false;
    return true;
  }
  static bool scalarOf(const TypeView &type, ElementType elementType) {
    return type.Shape.empty() &&
           type.ElementType == static_cast<uint32_t>(elementType);
  }

  // The type of a loop's value `j` (condition, carried..., slices...):
  // where PhaseLoop.outputs puts it; null outside the body.
  static const sc::TensorType *loopValue(const sc::PhaseLoop &loop,
                                         const sc::Function &body, uint64_t j) {
    const auto *map = loop.outputs();
    if (!map)
      return j < body.outputs()->size() ? body.outputs()->Get(j) : nullptr;
    if (j >= map->size())
      return nullptr;
    int64_t k = map->Get(j);
    if (k >= 0)
      return uint64_t(k) < body.outputs()->size() ? body.outputs()->Get(k)
                                                  : nullptr;
    return uint64_t(-1 - k) < body.inputs()->size() ? body.inputs()->Get(-1 - k)
                                                    : nullptr;
  }
  static uint64_t loopValues(const sc::PhaseLoop &loop,
                             const sc::Function &body) {
    return loop.outputs() ? loop.outputs()->size() : body.outputs()->size();
  }

  // Loop phase `p`'s body `body` (module.fbs PhaseLoop): (i64[], i1[],
  // carried..., read...) -> (i1[], carried..., slices...), each carried
  // value's next value of its type, every value where `outputs` says.
  static Status checkLoopBody(const std::string &where,
                              flatbuffers::uoffset_t p,
                              const sc::Function &body,
                              const sc::PhaseLoop &loop) {
    uint32_t carried = loop.carried();
    const auto &in = *body.inputs();
    uint64_t values = loopValues(loop, body);
    bool fits = in.size() >= 2 + uint64_t(carried) &&
                values >= 1 + uint64_t(carried) &&
                scalarOf(viewOf(*in.Get(0)), ElementType::I64) &&
                scalarOf(viewOf(*in.Get(1)), ElementType::I1);
    for (uint64_t j = 0; fits && j < values; ++j)
      fits = loopValue(loop, body, j) != nullptr;
    fits = fits && scalarOf(viewOf(*loopValue(loop, body, 0)), ElementType::I1);
    for (uint32_t i = 0; fits && i < carried; ++i) {
      const sc::TensorType &next = *loopValue(loop, body, 1 + i);
      fits = compatible(viewOf(*in.Get(2 + i)), viewOf(next)) &&
             in.Get(2 + i)->element_type() == next.element_type();
    }
    if (!fits)
      return KILN_ERROR(InvalidArgument, where, " phase ", p,
                        " repeats function ", quote(body.name()),
                        ", which does not take (i64[], i1[], ", carried,
                        " carried values...) and give (i1[], the same "
                        "carried values...)");
    return Status();
  }

  // Function `index`'s phases (module.fbs Function.phases): each another
  // function of the module naming it back, run once, neither phased nor
  // specialized (a loop phase's body repeated); each phase input comes
  // from an earlier phase's output or the function's input, each output
  // of the function from a phase's output, and the two hold the same bytes
  // per element at the same rank, static extents agreeing (an output also
  // its element type).
  Status checkPhases(const Functions &functions, flatbuffers::uoffset_t index) {
    const sc::Function &function = *functions.Get(index);
    std::string where = strCat("function ", quote(function.name()));
    // The function phase `phase` runs (a loop's body).
    auto runs = [](const sc::Phase &phase) {
      return phase.loop() ? phase.loop()->body() : phase.function();
    };
    uint32_t of = function.phase_of();
    if (of != sc::kNoSpecializationOf) {
      const auto *phases =
          of < functions.size() ? functions.Get(of)->phases() : nullptr;
      bool listed = false, repeated = false;
      if (phases)
        for (const sc::Phase *phase : *phases)
          if (runs(*phase) == index) {
            listed = true;
            repeated = phase->loop() != nullptr;
          }
      if (!listed)
        return KILN_ERROR(InvalidArgument, where, " is a phase of function ",
                          of, ", which does not run it");
      // A loop's body may run in phases of its own (a loop inside a loop,
      // or a value it computes read on the host), nested a few deep.
      if ((function.phases() && !repeated) || function.specializations() ||
          function.specialization_of() != sc::kNoSpecializationOf)
        return KILN_ERROR(InvalidArgument, where,
                          " is a phase and has specializations, or is one, "
                          "or has phases without being a loop's body");
      uint32_t depth = 0;
      for (uint32_t up = of; up != sc::kNoSpecializationOf;
           up = functions.Get(up)->phase_of())
        if (up >= functions.size() || ++depth > kMaxPhaseNesting)
          return KILN_ERROR(InvalidArgument, where,
                            " is a phase nested more "
                            "than ",
                            kMaxPhaseNesting, " deep, or in a cycle of phases");
    }
    const auto *phases = function.phases();
    if (!phases)
      return function.phase_outputs()
                 ? KILN_ERROR(InvalidArgument, where,
                              " has phase outputs but no phases")
                 : Status();
    const auto *outputs = function.phase_outputs();
    if (phases->size() == 0 || !outputs ||
        outputs->size() != function.outputs()->size())
      return KILN_ERROR(InvalidArgument, where,
                        " runs in phases but has none, or not one phase "
                        "output per output");
    // The type of source (phase, index) from phase `before` on, if any. A
    // loop phase gives its carried values, then its scan outputs' slices
    // stacked along a new dimension.
    auto sourceType = [&](const sc::PhaseSource &source,
                          flatbuffers::uoffset_t before,
                          bool functionInputs) -> std::optional<TypeView> {
      if (source.phase() == 0xFFFFFFFFu) {
        if (functionInputs && source.index() < function.inputs()->size())
          return viewOf(*function.inputs()->Get(source.index()));
        return std::nullopt;
      }
      if (source.phase() >= before)
        return std::nullopt;
      const sc::Phase &phase = *phases->Get(source.phase());
      const sc::Function &from = *functions.Get(runs(phase));
      if (!phase.loop())
        return source.index() < from.outputs()->size()
                   ? std::optional(viewOf(*from.outputs()->Get(source.index())))
                   : std::nullopt;
      uint64_t carried = phase.loop()->carried();
      if (source.index() < carried)
        return viewOf(*from.inputs()->Get(2 + source.index()));
      const sc::TensorType *slice =
          loopValue(*phase.loop(), from, 1 + uint64_t(source.index()));
      if (!slice)
        return std::nullopt;
      TypeView stacked = viewOf(*slice);
      stacked.Shape.insert(stacked.Shape.begin(), -1);
      return stacked;
    };
    std::vector<bool> seen(functions.size());
    for (flatbuffers::uoffset_t p = 0; p < phases->size(); ++p) {
      const sc::Phase &phase = *phases->Get(p);
      uint32_t f = runs(phase);
      if (f >= functions.size() || f == index || seen[f] ||
          functions.Get(f)->phase_of() != index ||
          (phase.loop() && phase.function() != 0xFFFFFFFFu))
        return KILN_ERROR(InvalidArgument, where, " phase ", p,
                          " runs function ", f,
                          ", which is not a phase of it or runs twice");
      seen[f] = true;
      const sc::Function &callee = *functions.Get(f);
      if (phase.loop())
        KILN_RETURN_IF_ERROR(checkLoopBody(where, p, callee, *phase.loop()));
      if (phase.inputs()->size() != callee.inputs()->size())
        return KILN_ERROR(InvalidArgument, where, " phase ", p, " passes ",
                          phase.inputs()->size(), " inputs to ",
                          quote(callee.name()), ", which takes ",
                          callee.inputs()->size());
      for (flatbuffers::uoffset_t i = 0; i < phase.inputs()->size(); ++i) {
        std::optional<TypeView> type =
            sourceType(*phase.inputs()->Get(i), p, /*functionInputs=*/true);
        if (!type || !compatible(*type, viewOf(*callee.inputs()->Get(i))))
          return KILN_ERROR(InvalidArgument, where, " phase ", p, " input ", i,
                            " is no earlier value of its type");
      }
    }
    for (flatbuffers::uoffset_t j = 0; j < outputs->size(); ++j) {
      std::optional<TypeView> type = sourceType(
          *outputs->Get(j), phases->size(), /*functionInputs=*/false);
      TypeView want = viewOf(*function.outputs()->Get(j));
      if (!type || !compatible(*type, want) ||
          type->ElementType != want.ElementType)
        return KILN_ERROR(InvalidArgument, where, " output ", j,
                          " is no phase output of its type");
    }
    return Status();
  }

  // Function `index`'s specializations (schema/Specializations.h): other
  // functions, each naming it back, whose signatures refine its own (the
  // same element types and ranks, its static extents kept), so a call
  // they accept is one it accepts and their results are its results'
  // types.
  Status checkSpecializations(
      const flatbuffers::Vector<flatbuffers::Offset<sc::Function>> &functions,
      flatbuffers::uoffset_t index) {
    const sc::Function &general = *functions.Get(index);
    std::string where = strCat("function ", quote(general.name()));
    uint32_t of = general.specialization_of();
    if (of != sc::kNoSpecializationOf) {
      if (of >= functions.size() || of == index)
        return KILN_ERROR(InvalidArgument, where, " specializes function ", of,
                          ", which is not another function of the module");
      const auto *list = functions.Get(of)->specializations();
      if (!list || std::find(list->begin(), list->end(), index) == list->end())
        return KILN_ERROR(InvalidArgument, where, " specializes ",
                          quote(functions.Get(of)->name()),
                          ", which does not list it");
    }
    const auto *list = general.specializations();
    if (!list)
      return Status();
    if (of != sc::kNoSpecializationOf)
      return KILN_ERROR(InvalidArgument, where,
                        " is a specialization and has specializations");
    auto refines = [](const auto &types, const auto &refined) {
      if (types.size() != refined.size())
        return false;
      for (flatbuffers::uoffset_t t = 0; t < types.size(); ++t) {
        const sc::TensorType &a = *types.Get(t), &b = *refined.Get(t);
        if (a.element_type() != b.element_type())
          return false;
        std::vector<int64_t> general(a.shape()->begin(), a.shape()->end()),
            special(b.shape()->begin(), b.shape()->end());
        if (!schema::dimsFit(general, special))
          return false;
      }
      return true;
    };
    for (uint32_t s : *list) {
      if (s >= functions.size() || s == index ||
          functions.Get(s)->specialization_of() != index)
        return KILN_ERROR(InvalidArgument, where, " lists function ", s,
                          " as a specialization, which does not name it as "
                          "its general function");
      const sc::Function &special = *functions.Get(s);
      if (!refines(*general.inputs(), *special.inputs()) ||
          !refines(*general.outputs(), *special.outputs()))
        return KILN_ERROR(InvalidArgument, where, "'s specialization ",
                          quote(special.name()),
                          " has inputs or outputs of other types, ranks or "
                          "static extents");
    }
    return Status();
  }

  struct TensorInfo {
    uint64_t ByteSize;
    std::string TypeString;
  };

  Status checkConstantsSegment(const sc::ConstantsSegment &segment) {
    std::string where = strCat("module constants segment (", segment.size(),
                               " bytes at offset ", segment.offset(), ", ",
                               segment.alignment(), "-byte aligned)");
    uint64_t alignment = segment.alignment();
    if (alignment < kConstantsAlignment || alignment > kMaxConstantsAlignment ||
        (alignment & (alignment - 1)) != 0)
      return KILN_ERROR(InvalidArgument, where,
                        ": the alignment must be a power of two from ",
                        kConstantsAlignment, " to ", kMaxConstantsAlignment);
    if (segment.offset() % alignment != 0)
      return KILN_ERROR(InvalidArgument, where,
                        ": the offset is not a multiple of the alignment");
    uint64_t end = 0;
    if (__builtin_add_overflow(segment.offset(), segment.size(), &end) ||
        end > PayloadSize)
      return KILN_ERROR(InvalidArgument, where,
                        " does not end before the checksum footer at byte ",
                        PayloadSize);
    // The flatbuffer was verified within FlatbufferLimit bytes; a segment
    // starting inside them must not overlap any part of it.
    if (segment.offset() < FlatbufferLimit &&
        !flatbufferVerifies(Base, static_cast<size_t>(segment.offset())))
      return KILN_ERROR(InvalidArgument, where,
                        " overlaps the flatbuffer, which does not verify "
                        "within the bytes before the segment");
    return Status();
  }

  Status checkExecutable(flatbuffers::uoffset_t index,
                         const sc::Executable &executable) {
    std::string where =
        strCat("executable ", index, " (", quote(executable.name()), ")");
    const auto &variants = *executable.variants();
    if (variants.size() == 0)
      return KILN_ERROR(InvalidArgument, where, " has no variants");
    const sc::ExecutableVariant &first = *variants.Get(0);
    for (flatbuffers::uoffset_t v = 0; v < variants.size(); ++v) {
      const sc::ExecutableVariant &variant = *variants.Get(v);
      std::string variantWhere =
          strCat(where, " variant ", v, " (", quote(variant.format()), " for ",
                 quote(variant.target()), ")");
      if (variant.format()->size() == 0)
        return KILN_ERROR(InvalidArgument, variantWhere,
                          " has an empty format");
      if (variant.image()->size() > 0 &&
          !isAligned(variant.image()->data(), Base, 16))
        return KILN_ERROR(InvalidArgument, variantWhere,
                          ": image is not 16-byte aligned in the file");
      const auto &entryPoints = *variant.entry_points();
      for (flatbuffers::uoffset_t e = 0; e < entryPoints.size(); ++e)
        KILN_RETURN_IF_ERROR(checkEntryPoint(
            strCat(variantWhere, " entry point ", e), *entryPoints.Get(e)));
      if (v == 0)
        continue;
      // The runtime records dispatches against variant 0's layout and then
      // runs whichever variant the device picks, so they must be
      // interchangeable.
      const auto &firstEntryPoints = *first.entry_points();
      if (entryPoints.size() != firstEntryPoints.size())
        return KILN_ERROR(
            InvalidArgument, variantWhere, " has ", entryPoints.size(),
            " entry points but variant 0 has ", firstEntryPoints.size());
      for (flatbuffers::uoffset_t e = 0; e < entryPoints.size(); ++e) {
        const sc::EntryPoint &a = *firstEntryPoints.Get(e);
        const sc::EntryPoint &b = *entryPoints.Get(e);
        std::string entryWhere = strCat(variantWhere, " entry point ", e);
        if (a.name()->string_view() != b.name()->string_view())
          return KILN_ERROR(InvalidArgument, entryWhere, " is named ",
                            quote(b.name()), " but variant 0 names it ",
                            quote(a.name()));
        if (a.binding_count() != b.binding_count())
          return KILN_ERROR(InvalidArgument, entryWhere, " (", quote(b.name()),
                            ") has ", b.binding_count(),
                            " bindings but variant 0 has ", a.binding_count());
        if (a.push_constant_count() != b.push_constant_count())
          return KILN_ERROR(InvalidArgument, entryWhere, " (", quote(b.name()),
                            ") has ", b.push_constant_count(),
                            " push constants but variant 0 has ",
                            a.push_constant_count());
      }
    }
    return Status();
  }

  Status checkEntryPoint(const std::string &where,
                         const sc::EntryPoint &entryPoint) {
    std::string fullWhere = strCat(where, " (", quote(entryPoint.name()), ")");
    if (entryPoint.name()->size() == 0)
      return KILN_ERROR(InvalidArgument, where, " has an empty name");
    KILN_RETURN_IF_ERROR(
        checkGrid(fullWhere, "workgroup_size", *entryPoint.workgroup_size()));
    KILN_RETURN_IF_ERROR(
        checkGrid(fullWhere, "workgroup_count", *entryPoint.workgroup_count()));
    // A grid computed per dispatch: a program over the dispatch's push
    // constant words (resolveGrid evaluates it).
    const auto *program = entryPoint.workgroup_count_program();
    const auto *nodes = entryPoint.workgroup_count_nodes();
    if (!program && !nodes)
      return Status();
    if (!program || !nodes || nodes->size() != 3)
      return KILN_ERROR(InvalidArgument, fullWhere,
                        ": a grid program needs its program and 3 nodes");
    std::vector<sc::ShapeNodeData> data = shapeProgramOf(program);
    uint32_t words = entryPoint.push_constant_count();
    std::string problem = sc::checkShapeProgram(
        data, [&](sc::ShapeOpcode op, int64_t a, int64_t) {
          return op == sc::ShapeOpcode::PushConstant && a >= 0 &&
                 a + 1 < static_cast<int64_t>(words);
        });
    if (!problem.empty())
      return KILN_ERROR(InvalidArgument, fullWhere, " grid program: ", problem);
    for (uint32_t node : *nodes)
      if (node >= data.size())
        return KILN_ERROR(InvalidArgument, fullWhere, ": grid node ", node,
                          " is not one of the program's ", data.size());
    return Status();
  }

  Status checkGrid(const std::string &where, std::string_view field,
                   const flatbuffers::Vector<uint32_t> &values) {
    if (values.size() != 3)
      return KILN_ERROR(InvalidArgument, where, ": ", field, " has ",
                        values.size(), " entries, expected 3");
    uint64_t product = 1;
    for (flatbuffers::uoffset_t i = 0; i < 3; ++i) {
      if (values.Get(i) == 0)
        return KILN_ERROR(InvalidArgument, where, ": ", field, "[", i,
                          "] is 0, expected >= 1");
      // Three uint32 factors: the product of two fits in 64 bits, and the
      // cap is checked before each multiply so the third cannot overflow.
      product *= values.Get(i);
      if (product > kMaxGridProduct)
        return KILN_ERROR(InvalidArgument, where, ": ", field, " ",
                          values.Get(0), "x", values.Get(1), "x", values.Get(2),
                          " exceeds 2^32 in total");
    }
    return Status();
  }

  // `dynamic`: the function has a shape program, so a dimension may be -1.
  StatusOr<TensorInfo> checkTensorType(const std::string &where,
                                       const sc::TensorType &type,
                                       bool dynamic) {
    uint8_t rawType = static_cast<uint8_t>(type.element_type());
    if (rawType > kMaxElementType)
      return KILN_ERROR(InvalidArgument, where, ": unknown element type ",
                        unsigned(rawType));
    const auto &shape = *type.shape();
    if (shape.size() > kMaxTensorRank)
      return KILN_ERROR(InvalidArgument, where, ": rank ", shape.size(),
                        " exceeds the maximum of ", kMaxTensorRank);
    if (shape.size() > 0 && !isAligned(shape.data(), Base, 8))
      return KILN_ERROR(InvalidArgument, where,
                        ": shape is not 8-byte aligned in the file");
    auto elementType = static_cast<ElementType>(rawType);
    uint64_t byteSize = elementTypeSize(elementType);
    std::vector<int64_t> dims;
    for (flatbuffers::uoffset_t i = 0; i < shape.size(); ++i) {
      int64_t dim = shape.Get(i);
      if (dim == -1 && dynamic)
        continue; // known per call (CallShapes.h)
      if (dim < 0)
        return KILN_ERROR(InvalidArgument, where, ": dimension ", i, " is ",
                          dim, ", expected >= 0",
                          dim == -1 ? " (a dynamic dimension needs a function "
                                      "with a shape program)"
                                    : "");
      dims.push_back(dim);
    }
    // An empty tensor's other dims still must not describe an impossible
    // size, so the cap applies to the product of the non-zero dims.
    uint64_t product = byteSize;
    bool empty = false;
    for (int64_t dim : dims) {
      if (dim == 0) {
        empty = true;
        continue;
      }
      if (__builtin_mul_overflow(product, static_cast<uint64_t>(dim),
                                 &product) ||
          product > kMaxModuleByteSize)
        return KILN_ERROR(InvalidArgument, where, ": ",
                          tensorTypeString(dims, elementType),
                          " is larger than 2^48 bytes");
    }
    byteSize = empty ? 0 : product;
    return TensorInfo{byteSize, tensorTypeString(dims, elementType)};
  }

  Status checkFunction(const sc::Function &function) {
    std::string where = strCat("function ", quote(function.name()));
    Inputs.clear();
    Outputs.clear();
    bool hasProgram = function.shape_program() != nullptr;
    // A phased function's shapes come from its phases' (checkPhases).
    bool phased = function.phases() != nullptr;
    const auto &inputs = *function.inputs();
    for (flatbuffers::uoffset_t i = 0; i < inputs.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(TensorInfo info,
                            checkTensorType(strCat(where, " input ", i),
                                            *inputs.Get(i),
                                            hasProgram || phased));
      Inputs.push_back(std::move(info));
    }
    const auto &outputs = *function.outputs();
    for (flatbuffers::uoffset_t i = 0; i < outputs.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(TensorInfo info,
                            checkTensorType(strCat(where, " output ", i),
                                            *outputs.Get(i),
                                            hasProgram || phased));
      Outputs.push_back(std::move(info));
    }
    if (phased) {
      // Specializations stay: a call picks one first, phased or not.
      if (function.steps() || hasProgram || function.shape_checks() ||
          function.arena_size() != 0)
        return KILN_ERROR(InvalidArgument, where,
                          " runs in phases and has steps, a shape program or "
                          "an arena of its own");
      return Status();
    }
    if (!function.steps())
      return KILN_ERROR(InvalidArgument, where,
                        " has neither steps nor phases");
    KILN_RETURN_IF_ERROR(checkShapeProgram(where, function));
    ArenaSize = function.arena_size();
    if (ArenaSize > kMaxModuleByteSize)
      return KILN_ERROR(InvalidArgument, where, ": arena size ", ArenaSize,
                        " exceeds the maximum of 2^48 bytes");
    const auto &steps = *function.steps();
    if (steps.size() > kMaxSteps)
      return KILN_ERROR(InvalidArgument, where, ": ", steps.size(),
                        " steps; at most ", kMaxSteps, " are supported");
    sc::StepOrder order(steps.size());
    std::vector<std::vector<sc::StepAccess>> accesses;
    accesses.reserve(steps.size());
    for (flatbuffers::uoffset_t i = 0; i < steps.size(); ++i) {
      std::string stepWhere = strCat(where, " step ", i);
      const sc::Step &step = *steps.Get(i);
      KILN_RETURN_IF_ERROR(checkStep(stepWhere, step));
      KILN_RETURN_IF_ERROR(checkDependencies(stepWhere, i, step, order));
      accesses.push_back(stepAccesses(step));
    }
    // A function with dynamic shapes has its ranges, and is checked, per
    // call (CallShapes.h).
    if (auto conflict = hasProgram ? std::nullopt
                                   : sc::findUnorderedConflict(accesses, order))
      return KILN_ERROR(InvalidArgument, where, ": steps ", conflict->first,
                        " and ", conflict->second,
                        " touch the same bytes, one of them writing, but step ",
                        conflict->second, " does not wait for step ",
                        conflict->first,
                        " (directly or through its dependencies), so they "
                        "could run at the same time");
    return Status();
  }

  // The shape program and every reference to its nodes outside the steps:
  // leaves reading existing input dimensions, checks, the arena's node,
  // outputs' dimension nodes. Without a program, none of those may appear.
  Status checkShapeProgram(const std::string &where,
                           const sc::Function &function) {
    ProgramSize = 0;
    const auto &inputs = *function.inputs();
    const auto &outputs = *function.outputs();
    // Bounds: both or neither, one per dimension, 0 <= min <= max, a
    // static dimension's its size; outputs have none.
    for (flatbuffers::uoffset_t i = 0; i < inputs.size(); ++i) {
      const sc::TensorType &type = *inputs.Get(i);
      const auto *low = type.dim_min();
      const auto *high = type.dim_max();
      if (!low && !high)
        continue;
      size_t rank = type.shape()->size();
      if (!low || !high || low->size() != rank || high->size() != rank)
        return KILN_ERROR(InvalidArgument, where, " input ", i,
                          " has bounds that are not one minimum and one "
                          "maximum per dimension");
      for (size_t d = 0; d < rank; ++d) {
        int64_t lo = low->Get(d), hi = high->Get(d), dim = type.shape()->Get(d);
        if (lo < 0 || hi < lo || (dim >= 0 && (lo != dim || hi != dim)))
          return KILN_ERROR(InvalidArgument, where, " input ", i, " dimension ",
                            d, " has bounds ", lo, "..", hi,
                            dim >= 0 ? strCat(" but size ", dim) : "");
      }
    }
    for (const sc::TensorType *type : outputs)
      if (type->dim_min() || type->dim_max())
        return KILN_ERROR(InvalidArgument, where, " has bounds on an output");
    if (!function.shape_program()) {
      bool stray = function.shape_checks() || function.shape_check_messages() ||
                   function.arena_size_node() != sc::kNoShapeNode;
      for (const sc::TensorType *type : outputs)
        stray |= type->dim_nodes() != nullptr;
      if (stray)
        return KILN_ERROR(InvalidArgument, where,
                          " refers to shape nodes but has no shape program");
      return Status();
    }
    std::vector<sc::ShapeNodeData> program =
        shapeProgramOf(function.shape_program());
    std::string problem = sc::checkShapeProgram(
        program, [&](sc::ShapeOpcode op, int64_t a, int64_t b) {
          if (a < 0 || a >= static_cast<int64_t>(inputs.size()) || b < 0)
            return false;
          const sc::TensorType &input = *inputs.Get(a);
          if (op == sc::ShapeOpcode::InputDim)
            return b < static_cast<int64_t>(input.shape()->size());
          // An element the runtime reads on the host: of an integer, bool
          // or float input whose size the signature fixes.
          if (!sc::isInputElementOpcode(op) ||
              (input.element_type() != sc::ElementType::I64 &&
               input.element_type() != sc::ElementType::I32 &&
               input.element_type() != sc::ElementType::I1 &&
               input.element_type() != sc::ElementType::F32 &&
               input.element_type() != sc::ElementType::F64))
            return false;
          int64_t elements = 1;
          for (int64_t d : *input.shape())
            if (d < 0 || __builtin_mul_overflow(elements, d, &elements))
              return false;
          return b < elements;
        });
    if (!problem.empty())
      return KILN_ERROR(InvalidArgument, where, ": ", problem);
    ProgramSize = program.size();
    auto valid = [&](uint32_t node, bool allowNone) {
      return sc::validShapeNodeRef(node, ProgramSize, allowNone);
    };
    if (const auto *checks = function.shape_checks())
      for (const sc::ShapeCheck *check : *checks)
        if (!valid(check->lhs(), false) || !valid(check->rhs(), false))
          return KILN_ERROR(InvalidArgument, where,
                            ": a shape check names nodes ", check->lhs(),
                            " and ", check->rhs(), " of ", ProgramSize);
    // Messages reach one-line errors: one per check, printable, short.
    if (const auto *messages = function.shape_check_messages()) {
      size_t checks =
          function.shape_checks() ? function.shape_checks()->size() : 0;
      if (messages->size() != checks)
        return KILN_ERROR(InvalidArgument, where, " has ", messages->size(),
                          " shape check messages for ", checks, " checks");
      for (const flatbuffers::String *message : *messages) {
        bool printable = message->size() <= 1024;
        for (char c : message->string_view())
          printable &= c >= 0x20 && c < 0x7f;
        if (!printable)
          return KILN_ERROR(InvalidArgument, where,
                            " has a shape check message that is not one "
                            "printable line of at most 1024 characters");
      }
    }
    if (!valid(function.arena_size_node(), true))
      return KILN_ERROR(InvalidArgument, where, ": arena size node ",
                        function.arena_size_node(), " is not one of ",
                        ProgramSize);
    for (flatbuffers::uoffset_t i = 0; i < outputs.size(); ++i) {
      const sc::TensorType &type = *outputs.Get(i);
      const auto *nodes = type.dim_nodes();
      bool dynamic = hasNegativeDim(*type.shape());
      if (!nodes) {
        if (dynamic)
          return KILN_ERROR(InvalidArgument, where, " output ", i,
                            " has a dynamic dimension but no dimension nodes");
        continue;
      }
      if (nodes->size() != type.shape()->size())
        return KILN_ERROR(InvalidArgument, where, " output ", i, " has ",
                          nodes->size(), " dimension nodes for rank ",
                          type.shape()->size());
      for (uint32_t node : *nodes)
        if (!valid(node, false))
          return KILN_ERROR(InvalidArgument, where, " output ", i,
                            ": dimension node ", node, " is not one of ",
                            ProgramSize);
    }
    return Status();
  }

  static bool hasNegativeDim(const flatbuffers::Vector<int64_t> &v) {
    return std::any_of(v.begin(), v.end(), [](int64_t d) { return d < 0; });
  }

  Status checkDependencies(const std::string &where, uint32_t index,
                           const sc::Step &step, sc::StepOrder &order) {
    const auto *dependencies = step.dependencies();
    if (!dependencies) {
      order.addAfterAll(index);
      return Status();
    }
    for (flatbuffers::uoffset_t i = 0; i < dependencies->size(); ++i) {
      uint32_t dependency = dependencies->Get(i);
      if (dependency >= index)
        return KILN_ERROR(InvalidArgument, where, ": depends on step ",
                          dependency,
                          "; a step can only wait for earlier ones");
      if (i > 0 && dependency <= dependencies->Get(i - 1))
        return KILN_ERROR(InvalidArgument, where,
                          ": dependencies are not strictly ascending");
    }
    order.add(index, std::span<const uint32_t>(dependencies->data(),
                                               dependencies->size()));
    return Status();
  }

  Status checkStep(const std::string &where, const sc::Step &step) {
    switch (step.kind_type()) {
    case sc::StepKind::DispatchStep:
      if (const auto *dispatch = step.kind_as_DispatchStep())
        return checkDispatch(where, *dispatch);
      break;
    case sc::StepKind::CopyStep:
      if (const auto *copy = step.kind_as_CopyStep())
        return checkCopy(where, *copy);
      break;
    case sc::StepKind::FillStep:
      if (const auto *fill = step.kind_as_FillStep())
        return checkFill(where, *fill);
      break;
    default:
      break;
    }
    return KILN_ERROR(InvalidArgument, where, ": step kind ",
                      unsigned(static_cast<uint8_t>(step.kind_type())),
                      " is not a dispatch, copy or fill");
  }

  Status checkDispatch(const std::string &where,
                       const sc::DispatchStep &dispatch) {
    const auto &executables = *Mod.executables();
    if (dispatch.executable() >= executables.size())
      return KILN_ERROR(InvalidArgument, where, ": dispatch of executable ",
                        dispatch.executable(), " but the module has ",
                        executables.size(), " executables");
    const sc::Executable &executable = *executables.Get(dispatch.executable());
    // Variants were checked to agree on entry points, so variant 0 speaks
    // for all of them.
    const auto &entryPoints = *executable.variants()->Get(0)->entry_points();
    if (dispatch.entry_point() >= entryPoints.size())
      return KILN_ERROR(InvalidArgument, where, ": dispatch of entry point ",
                        dispatch.entry_point(), " but executable ",
                        dispatch.executable(), " (", quote(executable.name()),
                        ") has ", entryPoints.size(), " entry points");
    const sc::EntryPoint &entryPoint = *entryPoints.Get(dispatch.entry_point());
    std::string target =
        strCat("executable ", dispatch.executable(), " entry point ",
               dispatch.entry_point(), " (", quote(entryPoint.name()), ")");
    const auto &bindings = *dispatch.bindings();
    if (bindings.size() != entryPoint.binding_count())
      return KILN_ERROR(InvalidArgument, where, ": dispatch has ",
                        bindings.size(), " bindings but ", target, " takes ",
                        entryPoint.binding_count());
    uint32_t pushConstantCount =
        dispatch.push_constants() ? dispatch.push_constants()->size() : 0;
    if (pushConstantCount != entryPoint.push_constant_count())
      return KILN_ERROR(InvalidArgument, where, ": dispatch has ",
                        pushConstantCount, " push constants but ", target,
                        " takes ", entryPoint.push_constant_count());
    // Check before reading any BufferRange: a misaligned struct read is UB.
    if (bindings.size() > 0 && !isAligned(bindings.data(), Base, 8))
      return KILN_ERROR(InvalidArgument, where,
                        ": bindings are not 8-byte aligned in the file");
    for (flatbuffers::uoffset_t i = 0; i < bindings.size(); ++i)
      KILN_RETURN_IF_ERROR(
          checkRange(where, strCat("binding ", i), *bindings.Get(i)));
    if (const auto *nodes = dispatch.binding_nodes()) {
      if (nodes->size() != bindings.size())
        return KILN_ERROR(InvalidArgument, where, ": dispatch has ",
                          bindings.size(), " bindings but ", nodes->size(),
                          " binding node entries");
      for (const sc::BindingNodes *node : *nodes)
        if (!sc::validShapeNodeRef(node->offset(), ProgramSize, true) ||
            !sc::validShapeNodeRef(node->length(), ProgramSize, true))
          return KILN_ERROR(InvalidArgument, where,
                            ": a binding names shape nodes ", node->offset(),
                            " and ", node->length(), " of ", ProgramSize);
    }
    if (const auto *nodes = dispatch.push_constant_nodes())
      for (const sc::PushConstantNode *node : *nodes)
        if (!sc::validShapeNodeRef(node->node(), ProgramSize, false) ||
            node->word() >= pushConstantCount ||
            node->word() + 1 >= pushConstantCount)
          return KILN_ERROR(InvalidArgument, where,
                            ": a push constant node writes words ",
                            node->word(), " and ", node->word() + 1, " of ",
                            pushConstantCount, " from shape node ",
                            node->node(), " of ", ProgramSize);
    if (const auto *choices = dispatch.entry_point_choices()) {
      // Chosen per call by the function's program, among kernels that take
      // what the step passes.
      if (choices->size() > 0 && ProgramSize == 0)
        return KILN_ERROR(InvalidArgument, where,
                          ": entry point choices in a function without a "
                          "shape program");
      for (const sc::EntryPointChoice *choice : *choices) {
        if (!sc::validShapeNodeRef(choice->node(), ProgramSize, false))
          return KILN_ERROR(InvalidArgument, where,
                            ": an entry point choice reads shape node ",
                            choice->node(), " of ", ProgramSize);
        if (choice->entry_point() >= entryPoints.size())
          return KILN_ERROR(InvalidArgument, where,
                            ": an entry point choice names entry point ",
                            choice->entry_point(), " of ", entryPoints.size());
        const sc::EntryPoint &chosen = *entryPoints.Get(choice->entry_point());
        if (chosen.binding_count() != entryPoint.binding_count() ||
            chosen.push_constant_count() != entryPoint.push_constant_count())
          return KILN_ERROR(
              InvalidArgument, where, ": entry point ", choice->entry_point(),
              " (", quote(chosen.name()), ") takes ", chosen.binding_count(),
              " bindings and ", chosen.push_constant_count(),
              " push constants, unlike ", target, ", which it may replace");
      }
    }
    if (const auto *access = dispatch.binding_access()) {
      if (access->size() != bindings.size())
        return KILN_ERROR(InvalidArgument, where, ": dispatch has ",
                          bindings.size(), " bindings but ", access->size(),
                          " binding access entries");
      for (flatbuffers::uoffset_t i = 0; i < access->size(); ++i) {
        sc::BindingAccess kind = access->Get(i);
        if (kind != sc::BindingAccess::Read &&
            kind != sc::BindingAccess::Write &&
            kind != sc::BindingAccess::ReadWrite)
          return KILN_ERROR(InvalidArgument, where, ": binding ", i,
                            " has unknown access ",
                            unsigned(static_cast<uint8_t>(kind)));
        if (kind != sc::BindingAccess::Read)
          KILN_RETURN_IF_ERROR(
              checkWritable(where, strCat("binding ", i), *bindings.Get(i)));
      }
    }
    return Status();
  }

  Status checkCopy(const std::string &where, const sc::CopyStep &copy) {
    const sc::BufferRange &source = *copy.source();
    const sc::BufferRange &target = *copy.target();
    KILN_RETURN_IF_ERROR(checkRange(where, "copy source", source));
    KILN_RETURN_IF_ERROR(checkRange(where, "copy target", target));
    KILN_RETURN_IF_ERROR(checkWritable(where, "copy target", target));
    if (source.length() != target.length())
      return KILN_ERROR(InvalidArgument, where, ": copy source length ",
                        source.length(), " differs from target length ",
                        target.length());
    // Ranges are bounded by 2^48 so these sums cannot overflow.
    bool sameStorage = source.storage() == target.storage() &&
                       (source.storage() == sc::StorageKind::Arena ||
                        source.index() == target.index());
    if (sameStorage && source.length() > 0 &&
        source.offset() < target.offset() + target.length() &&
        target.offset() < source.offset() + source.length())
      return KILN_ERROR(InvalidArgument, where, ": copy source ",
                        describe(source), " overlaps its target ",
                        describe(target));
    return Status();
  }

  Status checkFill(const std::string &where, const sc::FillStep &fill) {
    const sc::BufferRange &target = *fill.target();
    KILN_RETURN_IF_ERROR(checkRange(where, "fill target", target));
    KILN_RETURN_IF_ERROR(checkWritable(where, "fill target", target));
    uint8_t patternLength = fill.pattern_length();
    if (patternLength != 1 && patternLength != 2 && patternLength != 4)
      return KILN_ERROR(InvalidArgument, where, ": fill pattern length ",
                        unsigned(patternLength), " is not 1, 2 or 4");
    if (target.length() % patternLength != 0)
      return KILN_ERROR(InvalidArgument, where, ": fill target length ",
                        target.length(), " is not a multiple of the ",
                        unsigned(patternLength), "-byte pattern");
    return Status();
  }

  Status checkWritable(const std::string &where, std::string_view label,
                       const sc::BufferRange &range) {
    if (range.storage() == sc::StorageKind::Constant)
      return KILN_ERROR(InvalidArgument, where, ": ", label,
                        " writes to the module constants, which are read-only");
    // The caller's inputs may be read-only, and one input buffer may serve
    // several calls.
    if (range.storage() == sc::StorageKind::Input)
      return KILN_ERROR(InvalidArgument, where, ": ", label, " writes to ",
                        storageName(range.storage()), " ", range.index(),
                        "; a function's inputs are read-only");
    return Status();
  }

  // "(arena offset 128 + length 64)" or "(input 1 offset 0 + length 16)".
  static std::string describe(const sc::BufferRange &range) {
    std::string storage(storageName(range.storage()));
    if (range.storage() == sc::StorageKind::Input ||
        range.storage() == sc::StorageKind::Output)
      storage = strCat(storage, " ", range.index());
    return strCat("(", storage, " offset ", range.offset(), " + length ",
                  range.length(), ")");
  }

  Status checkRange(const std::string &where, std::string_view label,
                    const sc::BufferRange &range) {
    uint64_t limit = 0;
    std::string limitName;
    switch (range.storage()) {
    case sc::StorageKind::Input:
    case sc::StorageKind::Output: {
      bool isInput = range.storage() == sc::StorageKind::Input;
      const std::vector<TensorInfo> &tensors = isInput ? Inputs : Outputs;
      std::string_view kind = isInput ? "input" : "output";
      if (range.index() >= tensors.size())
        return KILN_ERROR(InvalidArgument, where, ": ", label, " refers to ",
                          kind, " ", range.index(), " but the function has ",
                          tensors.size(), " ", kind, "s");
      const TensorInfo &tensor = tensors[range.index()];
      limit = tensor.ByteSize;
      limitName = strCat(kind, " ", range.index(), " size ", limit, " (",
                         tensor.TypeString, ")");
      break;
    }
    case sc::StorageKind::Constant:
      limit = ConstantsSize;
      limitName = strCat("constants size ", limit);
      break;
    case sc::StorageKind::Arena:
      limit = ArenaSize;
      limitName = strCat("arena size ", limit);
      break;
    default:
      return KILN_ERROR(InvalidArgument, where, ": ", label,
                        " has unknown storage kind ",
                        unsigned(static_cast<uint8_t>(range.storage())));
    }
    // In a function with a shape program, sizes are known per call, and
    // ranges checked then (CallShapes.h).
    if (ProgramSize > 0)
      return Status();
    uint64_t end = 0;
    if (__builtin_add_overflow(range.offset(), range.length(), &end) ||
        end > limit)
      return KILN_ERROR(InvalidArgument, where, ": ", label, " ",
                        describe(range), " exceeds ", limitName);
    return Status();
  }

  const uint8_t *Base;
  uint64_t PayloadSize;
  uint64_t FlatbufferLimit;
  const sc::Module &Mod;
  uint64_t ConstantsSize = 0;
  // Of the function being checked.
  std::vector<TensorInfo> Inputs;
  std::vector<TensorInfo> Outputs;
  uint64_t ArenaSize = 0;
  // Of a function with a shape program: its nodes (0 without one).
  size_t ProgramSize = 0;
};

} // namespace

Status checkModuleEnvelope(const uint8_t *head, const uint8_t *footer,
                           uint64_t size) {
  if (size == 0)
    return KILN_ERROR(InvalidArgument, "module is empty (0 bytes)");
  if (size < kMinModuleSize)
    return KILN_ERROR(InvalidArgument, "module is too small (", size,
                      " bytes) to be a Kiln module");
  if (!sc::ModuleBufferHasIdentifier(head)) {
    std::string id = escape(reinterpret_cast<const char *>(head) +
                                sizeof(flatbuffers::uoffset_t),
                            flatbuffers::kFileIdentifierLength);
    return KILN_ERROR(InvalidArgument,
                      "not a Kiln module: file identifier is '", id,
                      "', expected '", sc::ModuleIdentifier(), "'");
  }
  if (std::memcmp(footer, schema::kChecksumMagic,
                  sizeof(schema::kChecksumMagic)) != 0)
    return KILN_ERROR(InvalidArgument,
                      "module is truncated or has no checksum footer (", size,
                      " bytes); writers must finish the file with "
                      "appendModuleChecksum()");
  if (size > kMaxModuleByteSize)
    return KILN_ERROR(InvalidArgument, "module is too large (", size,
                      " bytes); the maximum is 2^48 bytes");
  return Status();
}

Status verifyModule(const uint8_t *data, size_t size) {
  if (data == nullptr && size != 0)
    return KILN_ERROR(InvalidArgument, "module data is null (", size,
                      " bytes)");
  if (reinterpret_cast<uintptr_t>(data) % 8 != 0)
    return KILN_ERROR(InvalidArgument,
                      "module data must be 8-byte aligned in memory");
  KILN_RETURN_IF_ERROR(checkModuleEnvelope(
      data,
      size >= kMinModuleSize ? data + size - schema::kChecksumFooterSize
                             : nullptr,
      size));
  // Structural checks cannot see a damaged image, name or constant, nor a
  // cut that happens to leave a well-formed prefix; the checksum can. The
  // envelope checked that the footer is there.
  uint64_t stored = *schema::storedModuleChecksum(data, size);
  size -= schema::kChecksumFooterSize;
  if (schema::moduleChecksum(data, size) != stored)
    return KILN_ERROR(InvalidArgument,
                      "module is corrupt: its checksum does not match (", size,
                      " bytes checksummed)");
  // The flatbuffer starts the file and holds at most 2 GiB (flatbuffers'
  // own limit); a constants segment may follow it, and its checks confirm
  // that the flatbuffer ends before the segment.
  size_t flatbufferLimit =
      std::min<size_t>(size, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  if (!flatbufferVerifies(data, flatbufferLimit))
    return KILN_ERROR(InvalidArgument, "module is malformed (", size,
                      " bytes): its flatbuffer structure does not verify");
  return ModuleChecker(data, size, flatbufferLimit, *sc::GetModule(data)).run();
}

uint64_t tensorTypeByteSize(const sc::TensorType &type) {
  uint64_t size =
      elementTypeSize(static_cast<ElementType>(type.element_type()));
  for (int64_t dim : *type.shape())
    size *= static_cast<uint64_t>(dim);
  return size;
}

} // namespace kiln::module
