//===- CallShapes.cpp -----------------------------------------------------===//

#include "runtime/module/CallShapes.h"

#include "runtime/base/ElementType.h"
#include "runtime/module/Verifier.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace kiln::module {

namespace sc = kiln::schema;

std::vector<sc::ShapeNodeData>
shapeProgramOf(const flatbuffers::Vector<const sc::ShapeNode *> *nodes) {
  std::vector<sc::ShapeNodeData> program;
  if (!nodes)
    return program;
  program.reserve(nodes->size());
  for (const sc::ShapeNode *node : *nodes)
    program.push_back(
        {static_cast<sc::ShapeOpcode>(node->op()), node->a(), node->b()});
  return program;
}

namespace {

// Bytes of a tensor of `shape` and `element`, at most kMaxModuleByteSize.
std::optional<uint64_t> checkedByteSize(std::span<const int64_t> shape,
                                        sc::ElementType element) {
  uint64_t bytes = elementTypeSize(static_cast<ElementType>(element));
  for (int64_t dim : shape)
    if (dim < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes) ||
        bytes > kMaxModuleByteSize)
      return std::nullopt;
  return bytes;
}

// "input 1 dimension 0" where `node` reads one, else a computed size.
std::string describeNode(const std::vector<sc::ShapeNodeData> &program,
                         uint32_t node) {
  const sc::ShapeNodeData &data = program[node];
  if (data.Op == sc::ShapeOpcode::InputDim)
    return strCat("input ", data.A, " dimension ", data.B);
  if (data.Op == sc::ShapeOpcode::Constant)
    return strCat("the function's ", data.A);
  if (data.Op == sc::ShapeOpcode::InputElementPos ||
      data.Op == sc::ShapeOpcode::InputElementNeg)
    return strCat(data.Op == sc::ShapeOpcode::InputElementPos ? "the positive"
                                                              : "the negative",
                  " part of input ", data.A, " element ", data.B);
  return strCat("a size computed from the inputs' shapes (shape node ", node,
                ")");
}

} // namespace

std::vector<int64_t> shapeValues(ElementType type,
                                 std::span<const uint8_t> data) {
  std::vector<int64_t> values;
  auto append = [&]<typename T>(T) {
    size_t count = data.size() / sizeof(T);
    values.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, data.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_floating_point_v<T>)
        values.push_back(std::bit_cast<int64_t>(static_cast<double>(v)));
      else
        values.push_back(static_cast<int64_t>(v));
    }
  };
  if (type == ElementType::I64)
    append(int64_t());
  else if (type == ElementType::I32)
    append(int32_t());
  else if (type == ElementType::I1) // a byte, any nonzero one true
    for (uint8_t byte : data)
      values.push_back(byte != 0);
  else if (type == ElementType::F32)
    append(float());
  else if (type == ElementType::F64)
    append(double());
  return values;
}

std::vector<uint32_t> valueInputsOf(const sc::Function &function) {
  std::vector<uint32_t> inputs;
  for (const sc::ShapeNodeData &node : shapeProgramOf(function.shape_program()))
    if (sc::isInputElementOpcode(node.Op))
      inputs.push_back(static_cast<uint32_t>(node.A));
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

StatusOr<CallShapes>
resolveCall(const sc::Function &function, std::string_view label,
            std::span<const std::vector<int64_t>> inputShapes,
            std::span<const std::vector<int64_t>> inputValues,
            uint64_t constantsSize) {
  CallShapes call;
  const auto &inputs = *function.inputs();
  if (inputShapes.size() != inputs.size())
    return KILN_ERROR(InvalidArgument, label, " expects ", inputs.size(),
                      " input(s), got ", inputShapes.size());
  for (flatbuffers::uoffset_t i = 0; i < inputs.size(); ++i) {
    const sc::TensorType &type = *inputs.Get(i);
    std::span<const int64_t> shape = inputShapes[i];
    if (shape.size() != type.shape()->size())
      return KILN_ERROR(InvalidArgument, label, " input ", i, " has rank ",
                        shape.size(), ", expected ", type.shape()->size());
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t expected = type.shape()->Get(d);
      if (shape[d] < 0 || (expected >= 0 && shape[d] != expected))
        return KILN_ERROR(InvalidArgument, label, " input ", i, " dimension ",
                          d, " is ", shape[d], ", expected ",
                          expected >= 0 ? strCat(expected) : "a size >= 0");
      // The bounds it was compiled for (--input-shape=NAME:MIN..MAX).
      if (type.dim_min() && type.dim_max() &&
          (shape[d] < type.dim_min()->Get(d) ||
           shape[d] > type.dim_max()->Get(d)))
        return KILN_ERROR(InvalidArgument, label, " input ", i, " dimension ",
                          d, " is ", shape[d], ", outside its bounds ",
                          type.dim_min()->Get(d), "..", type.dim_max()->Get(d),
                          " (the module was compiled for that range)");
    }
    std::optional<uint64_t> bytes = checkedByteSize(shape, type.element_type());
    if (!bytes)
      return KILN_ERROR(InvalidArgument, label, " input ", i,
                        " is larger than 2^48 bytes");
    call.InputShapes.emplace_back(shape.begin(), shape.end());
    call.InputBytes.push_back(*bytes);
  }

  std::vector<sc::ShapeNodeData> program =
      shapeProgramOf(function.shape_program());
  for (uint32_t i : valueInputsOf(function))
    if (i >= inputValues.size() ||
        inputValues[i].size() !=
            call.InputBytes[i] / elementTypeSize(static_cast<ElementType>(
                                     inputs.Get(i)->element_type())))
      return KILN_ERROR(InvalidArgument, label,
                        " computes shapes from the values of input ", i,
                        ", which this call does not give (call it with host "
                        "tensors, or pass that input's values)");
  // A float input's elements come as their doubles' bits (shapeValues).
  auto isFloat = [&](int64_t input) {
    sc::ElementType type = inputs.Get(input)->element_type();
    return type == sc::ElementType::F32 || type == sc::ElementType::F64;
  };
  // The verifier checked InputDim leaves against the inputs' ranks and
  // InputElement leaves against their static element counts. An integer
  // read of a float truncates it toward zero, as ONNX's OneHot casts its
  // depth.
  for (const sc::ShapeNodeData &node : program) {
    if (node.Op != sc::ShapeOpcode::InputElementPos &&
        node.Op != sc::ShapeOpcode::InputElementNeg)
      continue;
    if (!isFloat(node.A))
      continue;
    double d = std::bit_cast<double>(inputValues[node.A][node.B]);
    // 2^63 is the first double past int64.
    if (!std::isfinite(d) || d <= -9223372036854775808.0 ||
        d >= 9223372036854775808.0)
      return KILN_ERROR(InvalidArgument, label, " input ", node.A, " holds ", d,
                        ", which is no size");
  }
  std::vector<int64_t> values;
  std::string failure = sc::evaluateShapeProgram(
      program,
      [&](sc::ShapeOpcode op, int64_t a, int64_t b) -> std::optional<int64_t> {
        if (op == sc::ShapeOpcode::InputDim)
          return call.InputShapes[a][b];
        if (!sc::isInputElementOpcode(op))
          return std::nullopt;
        int64_t raw = inputValues[a][b];
        if (isFloat(a))
          raw = static_cast<int64_t>(std::bit_cast<double>(raw));
        return sc::inputElementPart(op, raw);
      },
      values,
      [&](int64_t a, int64_t b) -> std::optional<double> {
        int64_t raw = inputValues[a][b];
        return isFloat(a) ? std::bit_cast<double>(raw)
                          : static_cast<double>(raw);
      });
  if (!failure.empty())
    return KILN_ERROR(InvalidArgument, label,
                      " at these input shapes: ", failure);
  if (const auto *checks = function.shape_checks())
    for (flatbuffers::uoffset_t c = 0; c < checks->size(); ++c) {
      const sc::ShapeCheck *check = checks->Get(c);
      if (values[check->lhs()] == values[check->rhs()])
        continue;
      // A condition of the model's, said in its own words (the verifier
      // bounded them to one printable line).
      if (const auto *messages = function.shape_check_messages())
        if (const flatbuffers::String *message = messages->Get(c);
            message->size() > 0)
          return KILN_ERROR(InvalidArgument, label, ": ", message->str(),
                            " (shape nodes ", check->lhs(), " and ",
                            check->rhs(), " are ", values[check->lhs()],
                            " and ", values[check->rhs()], ")");
      // The later input names the one that contradicts the earlier.
      uint32_t culprit = check->rhs(), other = check->lhs();
      if (program[culprit].Op != sc::ShapeOpcode::InputDim)
        std::swap(culprit, other);
      return KILN_ERROR(InvalidArgument, label, " ",
                        describeNode(program, culprit), " is ", values[culprit],
                        " but must equal ", describeNode(program, other),
                        ", which is ", values[other]);
    }

  const auto &outputs = *function.outputs();
  for (flatbuffers::uoffset_t i = 0; i < outputs.size(); ++i) {
    const sc::TensorType &type = *outputs.Get(i);
    std::vector<int64_t> shape(type.shape()->begin(), type.shape()->end());
    if (const auto *nodes = type.dim_nodes())
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t value = values[nodes->Get(d)];
        if (shape[d] >= 0 && shape[d] != value)
          return KILN_ERROR(InvalidArgument, label, " output ", i,
                            " dimension ", d, " is ", shape[d],
                            " but its shape node gives ", value);
        shape[d] = value;
      }
    std::optional<uint64_t> bytes = checkedByteSize(shape, type.element_type());
    if (!bytes)
      return KILN_ERROR(InvalidArgument, label, " output ", i,
                        " would be larger than 2^48 bytes at these shapes");
    call.OutputShapes.push_back(std::move(shape));
    call.OutputBytes.push_back(*bytes);
  }
  call.ArenaSize = function.arena_size();
  if (function.arena_size_node() != sc::kNoShapeNode)
    call.ArenaSize = static_cast<uint64_t>(values[function.arena_size_node()]);
  if (call.ArenaSize > kMaxModuleByteSize)
    return KILN_ERROR(InvalidArgument, label, " needs an arena of ",
                      call.ArenaSize, " bytes at these shapes, above 2^48");

  // Every range within its buffer at these sizes.
  auto resolve = [&](const sc::BufferRange &range,
                     const sc::BindingNodes *nodes,
                     std::string_view what) -> StatusOr<ResolvedRange> {
    ResolvedRange place{range.offset(), range.length()};
    if (nodes && nodes->offset() != sc::kNoShapeNode)
      place.Offset = static_cast<uint64_t>(values[nodes->offset()]);
    if (nodes && nodes->length() != sc::kNoShapeNode)
      place.Length = static_cast<uint64_t>(values[nodes->length()]);
    uint64_t limit = 0;
    switch (range.storage()) {
    case sc::StorageKind::Input:
      limit = call.InputBytes[range.index()];
      break;
    case sc::StorageKind::Output:
      limit = call.OutputBytes[range.index()];
      break;
    case sc::StorageKind::Constant:
      limit = constantsSize;
      break;
    case sc::StorageKind::Arena:
      limit = call.ArenaSize;
      break;
    }
    uint64_t end = 0;
    if (__builtin_add_overflow(place.Offset, place.Length, &end) || end > limit)
      return KILN_ERROR(InvalidArgument, label, " ", what, " (offset ",
                        place.Offset, " + length ", place.Length,
                        ") exceeds its buffer's ", limit,
                        " bytes at these shapes");
    return place;
  };

  const auto &steps = *function.steps();
  sc::StepOrder order(steps.size());
  std::vector<std::vector<sc::StepAccess>> accesses;
  for (flatbuffers::uoffset_t s = 0; s < steps.size(); ++s) {
    const sc::Step &step = *steps.Get(s);
    std::string what = strCat("step ", s);
    std::vector<ResolvedRange> ranges;
    std::vector<uint32_t> words;
    uint32_t entryPoint = 0;
    if (const auto *dispatch = step.kind_as_DispatchStep()) {
      entryPoint = dispatch->entry_point();
      if (const auto *choices = dispatch->entry_point_choices())
        for (const sc::EntryPointChoice *choice : *choices)
          if (values[choice->node()] != 0) {
            entryPoint = choice->entry_point();
            break;
          }
      const auto &bindings = *dispatch->bindings();
      const auto *nodes = dispatch->binding_nodes();
      for (flatbuffers::uoffset_t b = 0; b < bindings.size(); ++b) {
        KILN_ASSIGN_OR_RETURN(ResolvedRange place,
                              resolve(*bindings.Get(b),
                                      nodes ? nodes->Get(b) : nullptr,
                                      strCat(what, " binding ", b)));
        ranges.push_back(place);
      }
      if (const auto *pushConstants = dispatch->push_constants())
        words.assign(pushConstants->begin(), pushConstants->end());
      if (const auto *pushNodes = dispatch->push_constant_nodes())
        for (const sc::PushConstantNode *node : *pushNodes) {
          auto value = static_cast<uint64_t>(values[node->node()]);
          words[node->word()] = static_cast<uint32_t>(value);
          words[node->word() + 1] = static_cast<uint32_t>(value >> 32);
        }
    } else if (const auto *copy = step.kind_as_CopyStep()) {
      KILN_ASSIGN_OR_RETURN(ResolvedRange source,
                            resolve(*copy->source(), nullptr, what));
      KILN_ASSIGN_OR_RETURN(ResolvedRange target,
                            resolve(*copy->target(), nullptr, what));
      ranges = {source, target};
    } else if (const auto *fill = step.kind_as_FillStep()) {
      KILN_ASSIGN_OR_RETURN(ResolvedRange target,
                            resolve(*fill->target(), nullptr, what));
      ranges = {target};
    }
    if (const auto *dependencies = step.dependencies())
      order.add(s, std::span<const uint32_t>(dependencies->data(),
                                             dependencies->size()));
    else
      order.addAfterAll(s);
    accesses.push_back(stepAccesses(step, ranges));
    call.Ranges.push_back(std::move(ranges));
    call.PushConstants.push_back(std::move(words));
    call.EntryPoints.push_back(entryPoint);
  }
  // The verifier's rule (StepDependencies.h), at this call's ranges.
  if (auto conflict = sc::findUnorderedConflict(accesses, order))
    return KILN_ERROR(InvalidArgument, label, ": steps ", conflict->first,
                      " and ", conflict->second,
                      " touch the same bytes at these shapes, one of them "
                      "writing, but step ",
                      conflict->second, " does not wait for step ",
                      conflict->first);
  return call;
}

StatusOr<std::array<uint32_t, 3>>
resolveGrid(const sc::EntryPoint &entry,
            std::span<const uint32_t> pushConstants) {
  const auto &count = *entry.workgroup_count();
  std::array<uint32_t, 3> grid = {count.Get(0), count.Get(1), count.Get(2)};
  const auto *nodes = entry.workgroup_count_nodes();
  if (!entry.workgroup_count_program() || !nodes)
    return grid;
  std::vector<sc::ShapeNodeData> program =
      shapeProgramOf(entry.workgroup_count_program());
  std::vector<int64_t> values;
  std::string failure = sc::evaluateShapeProgram(
      program,
      [&](sc::ShapeOpcode op, int64_t a, int64_t) -> std::optional<int64_t> {
        // The verifier checked that words a and a + 1 exist.
        if (op != sc::ShapeOpcode::PushConstant)
          return std::nullopt;
        uint64_t value = pushConstants[a] |
                         (static_cast<uint64_t>(pushConstants[a + 1]) << 32);
        if (value > static_cast<uint64_t>(INT64_MAX))
          return std::nullopt;
        return static_cast<int64_t>(value);
      },
      values);
  if (!failure.empty())
    return KILN_ERROR(InvalidArgument, "entry point '",
                      entry.name()->string_view(), "' grid: ", failure);
  uint64_t product = 1;
  for (unsigned i = 0; i < 3; ++i) {
    int64_t value = values[nodes->Get(i)];
    if (value > int64_t(UINT32_MAX) ||
        (product *= static_cast<uint64_t>(value)) > (uint64_t(1) << 32))
      return KILN_ERROR(InvalidArgument, "entry point '",
                        entry.name()->string_view(),
                        "' grid exceeds 2^32 workgroups at these shapes");
    grid[i] = static_cast<uint32_t>(value);
  }
  return grid;
}

} // namespace kiln::module
