//===- ModuleDump.cpp -----------------------------------------------------===//

#include "runtime/tooling/ModuleDump.h"

#include "runtime/base/HostTensor.h"
#include "runtime/module/CallShapes.h"

#include <bit>
#include <cstdio>

namespace kiln::tooling {

namespace sc = kiln::schema;

namespace {

// Names are verified but arbitrary bytes; keep each printed item on its line.
std::string quoted(const flatbuffers::String *text) {
  std::string out = "'";
  for (char c : text->string_view()) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\'' && c != '\\')
      out += c;
    else
      out += strCat("\\x", "0123456789abcdef"[u >> 4],
                    "0123456789abcdef"[u & 0xf]);
  }
  return out + "'";
}

std::string typeString(const sc::TensorType &type) {
  std::vector<int64_t> shape(type.shape()->begin(), type.shape()->end());
  std::string text =
      tensorTypeString(shape, static_cast<ElementType>(type.element_type()));
  // A bounded input (--input-shape=NAME:MIN..MAX): its dynamic dimensions'
  // ranges after the type, "(dim 0 in 1..64)".
  const auto *low = type.dim_min();
  const auto *high = type.dim_max();
  if (!low || !high || low->size() != shape.size() ||
      high->size() != shape.size())
    return text;
  std::string ranges;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 0)
      ranges += strCat(ranges.empty() ? "" : ", ", "dim ", d, " in ",
                       low->Get(d), "..", high->Get(d));
  return ranges.empty() ? text : strCat(text, " (", ranges, ")");
}

std::string typeList(
    const flatbuffers::Vector<flatbuffers::Offset<sc::TensorType>> &types) {
  std::string out = "(";
  for (flatbuffers::uoffset_t i = 0; i < types.size(); ++i)
    out += strCat(i ? ", " : "", typeString(*types.Get(i)));
  return out + ")";
}

// "arena[16, 32)", "input1[0, 16)", "constants[0, 64)".
std::string rangeString(const sc::BufferRange &range) {
  std::string storage;
  switch (range.storage()) {
  case sc::StorageKind::Input:
    storage = strCat("input", range.index());
    break;
  case sc::StorageKind::Output:
    storage = strCat("output", range.index());
    break;
  case sc::StorageKind::Constant:
    storage = "constants";
    break;
  case sc::StorageKind::Arena:
    storage = "arena";
    break;
  }
  return strCat(storage, "[", range.offset(), ", ",
                range.offset() + range.length(), ")");
}

std::string hex(uint32_t value, unsigned bytes) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "0x%0*x", static_cast<int>(bytes * 2),
                value);
  return buffer;
}

std::string grid(const flatbuffers::Vector<uint32_t> &values) {
  return strCat(values.Get(0), "x", values.Get(1), "x", values.Get(2));
}

// "n3 = mul n1, n2" per node, as the runtime evaluates them
// (schema/ShapeProgram.h).
std::string programString(const std::vector<sc::ShapeNodeData> &program,
                          std::string_view indent) {
  std::string out;
  for (size_t i = 0; i < program.size(); ++i) {
    const sc::ShapeNodeData &node = program[i];
    out += strCat(indent, "n", i, " = ", sc::shapeOpcodeName(node.Op), " ");
    switch (node.Op) {
    case sc::ShapeOpcode::Constant:
      out += strCat(node.A);
      break;
    case sc::ShapeOpcode::InputDim:
      out += strCat("input", node.A, "[", node.B, "]");
      break;
    case sc::ShapeOpcode::PushConstant:
      out += strCat("words ", node.A, ", ", node.A + 1);
      break;
    case sc::ShapeOpcode::InputElementPos:
    case sc::ShapeOpcode::InputElementNeg:
    case sc::ShapeOpcode::InputElementReal:
      // The positive or negative part of that element's value, or it.
      out += strCat("input", node.A, ".value[", node.B, "]");
      break;
    case sc::ShapeOpcode::RealConstant:
      out += strCat(std::bit_cast<double>(node.A));
      break;
    case sc::ShapeOpcode::RealFromInt:
    case sc::ShapeOpcode::RealFloor:
    case sc::ShapeOpcode::RealCeil:
    case sc::ShapeOpcode::RealToInt:
    case sc::ShapeOpcode::RealRoundF32:
      out += strCat("n", node.A);
      break;
    default:
      out += strCat("n", node.A, ", n", node.B);
      break;
    }
    out += "\n";
  }
  return out;
}

std::string nodeOr(uint32_t node, uint64_t value) {
  return node == sc::kNoShapeNode ? strCat(value) : strCat("n", node);
}

std::string stepString(const sc::Module &module, const sc::Step &step) {
  if (const auto *dispatch = step.kind_as_DispatchStep()) {
    const sc::Executable &executable =
        *module.executables()->Get(dispatch->executable());
    const sc::EntryPoint &entryPoint =
        *executable.variants()->Get(0)->entry_points()->Get(
            dispatch->entry_point());
    std::string out = strCat("dispatch executable ", dispatch->executable(),
                             " ", quoted(executable.name()), " entry point ",
                             dispatch->entry_point(), " ",
                             quoted(entryPoint.name()), " bindings [");
    const auto &bindings = *dispatch->bindings();
    const auto *access = dispatch->binding_access();
    const auto *nodes = dispatch->binding_nodes();
    for (flatbuffers::uoffset_t i = 0; i < bindings.size(); ++i) {
      const sc::BufferRange &range = *bindings.Get(i);
      if (nodes) {
        // A range placed per call: "arena[n4, +n5)".
        std::string storage = rangeString(range);
        storage = storage.substr(0, storage.find('['));
        out += strCat(i ? ", " : "", storage, "[",
                      nodeOr(nodes->Get(i)->offset(), range.offset()), ", +",
                      nodeOr(nodes->Get(i)->length(), range.length()), ")");
      } else {
        out += strCat(i ? ", " : "", rangeString(range));
      }
      if (access)
        out += access->Get(i) == sc::BindingAccess::Read    ? " read"
               : access->Get(i) == sc::BindingAccess::Write ? " write"
                                                            : " read-write";
    }
    out += "]";
    if (const auto *pushConstants = dispatch->push_constants()) {
      out += " push constants [";
      for (flatbuffers::uoffset_t i = 0; i < pushConstants->size(); ++i)
        out += strCat(i ? ", " : "", pushConstants->Get(i));
      out += "]";
    }
    if (const auto *pushNodes = dispatch->push_constant_nodes()) {
      out += " per call [";
      for (flatbuffers::uoffset_t i = 0; i < pushNodes->size(); ++i)
        out += strCat(i ? ", " : "", "words ", pushNodes->Get(i)->word(), ", ",
                      pushNodes->Get(i)->word() + 1, " = n",
                      pushNodes->Get(i)->node());
      out += "]";
    }
    if (const auto *choices = dispatch->entry_point_choices()) {
      // "instead [entry point 60 'd_rows_1' where n12]"
      out += " instead [";
      for (flatbuffers::uoffset_t i = 0; i < choices->size(); ++i) {
        const sc::EntryPointChoice &choice = *choices->Get(i);
        out += strCat(i ? ", " : "", "entry point ", choice.entry_point(), " ",
                      quoted(executable.variants()
                                 ->Get(0)
                                 ->entry_points()
                                 ->Get(choice.entry_point())
                                 ->name()),
                      " where n", choice.node());
      }
      out += "]";
    }
    return out;
  }
  if (const auto *copy = step.kind_as_CopyStep())
    return strCat("copy ", rangeString(*copy->source()), " -> ",
                  rangeString(*copy->target()), " (", copy->source()->length(),
                  " bytes)");
  if (const auto *fill = step.kind_as_FillStep())
    return strCat("fill ", rangeString(*fill->target()), " with ",
                  hex(fill->pattern(), fill->pattern_length()), " (",
                  unsigned(fill->pattern_length()), "-byte pattern)");
  return "unknown step";
}

} // namespace

std::string functionSignatureString(const sc::Function &function) {
  return strCat(typeList(*function.inputs()), " -> ",
                typeList(*function.outputs()));
}

std::string dumpModule(const module::ModuleFile &file) {
  const sc::Module &module = file.root();
  std::string out = "module";
  if (module.name())
    out += " " + quoted(module.name());
  out += strCat(": version ", module.version_major(), ".",
                module.version_minor(), ", ", file.size(), " bytes\n");
  out += strCat("constants: ", file.constantsSize(), " bytes");
  if (const sc::ConstantsSegment *segment = module.constants_segment())
    out += strCat(" in a segment at offset ", segment->offset(), " (",
                  segment->alignment(), "-byte aligned)");
  else if (module.constants())
    out += " in the flatbuffer";
  out += "\n";

  const auto &functions = *module.functions();
  out += strCat("\nfunctions: ", functions.size(), "\n");
  for (const sc::Function *function : functions) {
    out += strCat("function ", quoted(function->name()), " ",
                  functionSignatureString(*function), "\n");
    // Specializations (kiln-compile --specialize): which calls run which.
    if (function->specialization_of() < functions.size())
      out +=
          strCat("  specialization of ",
                 quoted(functions.Get(function->specialization_of())->name()),
                 ": runs its calls whose inputs fit this signature\n");
    if (const auto *list = function->specializations())
      for (uint32_t s : *list)
        if (s < functions.size())
          out += strCat("  specialized by ", quoted(functions.Get(s)->name()),
                        "\n");
    // Phases (values the function computes read on the host between them).
    if (function->phase_of() < functions.size())
      out += strCat("  phase of ",
                    quoted(functions.Get(function->phase_of())->name()), "\n");
    auto sourceString = [](const sc::PhaseSource *source) {
      return source->phase() == 0xFFFFFFFFu
                 ? strCat("input ", source->index())
                 : strCat("phase ", source->phase(), " output ",
                          source->index());
    };
    if (const auto *phases = function->phases()) {
      for (flatbuffers::uoffset_t p = 0; p < phases->size(); ++p) {
        const sc::Phase *phase = phases->Get(p);
        // A loop phase repeats its body (module.fbs PhaseLoop).
        const sc::PhaseLoop *loop = phase->loop();
        uint32_t runs = loop ? loop->body() : phase->function();
        out +=
            strCat("  phase ", p, ": ", loop ? "loop of " : "",
                   runs < functions.size() ? quoted(functions.Get(runs)->name())
                                           : strCat("function ", runs),
                   loop ? strCat(" carrying ", loop->carried()) : "", " (");
        for (flatbuffers::uoffset_t i = 0; i < phase->inputs()->size(); ++i)
          out += strCat(i ? ", " : "", sourceString(phase->inputs()->Get(i)));
        out += ")\n";
      }
      if (const auto *outputs = function->phase_outputs())
        for (flatbuffers::uoffset_t j = 0; j < outputs->size(); ++j)
          out += strCat("  output ", j, " = ", sourceString(outputs->Get(j)),
                        "\n");
      continue;
    }
    if (function->shape_program()) {
      // Dynamic shapes: what the runtime evaluates per call.
      out += "  shape program:\n";
      out += programString(module::shapeProgramOf(function->shape_program()),
                           "    ");
      if (const auto *checks = function->shape_checks())
        for (flatbuffers::uoffset_t c = 0; c < checks->size(); ++c) {
          const sc::ShapeCheck *check = checks->Get(c);
          out += strCat("  check n", check->lhs(), " == n", check->rhs());
          // The verifier made each message one printable line.
          if (const auto *messages = function->shape_check_messages();
              messages && messages->Get(c)->size() > 0)
            out += strCat(": ", messages->Get(c)->str());
          out += "\n";
        }
      const auto &outputs = *function->outputs();
      for (flatbuffers::uoffset_t i = 0; i < outputs.size(); ++i)
        if (const auto *nodes = outputs.Get(i)->dim_nodes()) {
          out += strCat("  output ", i, " shape [");
          for (flatbuffers::uoffset_t d = 0; d < nodes->size(); ++d)
            out += strCat(d ? ", " : "", "n", nodes->Get(d));
          out += "]\n";
        }
    }
    out += strCat("  arena: ",
                  nodeOr(function->arena_size_node(), function->arena_size()),
                  " bytes\n");
    const auto &steps = *function->steps();
    for (flatbuffers::uoffset_t i = 0; i < steps.size(); ++i) {
      const sc::Step &step = *steps.Get(i);
      out += strCat("  step ", i, ": ", stepString(module, step));
      if (const auto *dependencies = step.dependencies()) {
        if (dependencies->size() > 0)
          out += dependencies->size() == 1 ? "; after step " : "; after steps ";
        for (flatbuffers::uoffset_t d = 0; d < dependencies->size(); ++d)
          out += strCat(d ? ", " : "", dependencies->Get(d));
      } else if (i > 0) {
        out += "; after every earlier step";
      }
      out += "\n";
    }
  }

  const auto &executables = *module.executables();
  out += strCat("\nexecutables: ", executables.size(), "\n");
  for (flatbuffers::uoffset_t e = 0; e < executables.size(); ++e) {
    const sc::Executable &executable = *executables.Get(e);
    out += strCat("executable ", e, " ", quoted(executable.name()), "\n");
    const auto &variants = *executable.variants();
    for (flatbuffers::uoffset_t v = 0; v < variants.size(); ++v) {
      const sc::ExecutableVariant &variant = *variants.Get(v);
      out += strCat("  variant ", v, ": format ", quoted(variant.format()),
                    ", target ", quoted(variant.target()), ", image ",
                    variant.image()->size(), " bytes\n");
      const auto &entryPoints = *variant.entry_points();
      for (flatbuffers::uoffset_t i = 0; i < entryPoints.size(); ++i) {
        const sc::EntryPoint &entryPoint = *entryPoints.Get(i);
        out += strCat("    entry point ", i, " ", quoted(entryPoint.name()),
                      ": workgroup size ", grid(*entryPoint.workgroup_size()),
                      ", workgroup count ", grid(*entryPoint.workgroup_count()),
                      ", ", entryPoint.binding_count(), " bindings, ",
                      entryPoint.push_constant_count(), " push constants, ",
                      entryPoint.shared_memory_bytes(), " bytes shared memory",
                      entryPoint.waits_for_prerequisites()
                          ? ", waits for its prerequisites (launched early)"
                          : "",
                      "\n");
        if (const auto *nodes = entryPoint.workgroup_count_nodes()) {
          out += strCat("      workgroup count per dispatch: n", nodes->Get(0),
                        " x n", nodes->Get(1), " x n", nodes->Get(2), " of\n");
          out += programString(
              module::shapeProgramOf(entryPoint.workgroup_count_program()),
              "        ");
        }
      }
    }
  }
  return out;
}

} // namespace kiln::tooling
