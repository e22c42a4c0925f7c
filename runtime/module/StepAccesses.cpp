//===- StepAccesses.cpp ---------------------------------------------------===//

#include "runtime/module/StepAccesses.h"

namespace kiln::module {

namespace sc = kiln::schema;

std::vector<sc::StepAccess>
stepAccesses(const sc::Step &step, std::span<const ResolvedRange> resolved) {
  size_t next = 0;
  auto access = [&](const sc::BufferRange &range, bool written) {
    bool indexed = range.storage() == sc::StorageKind::Input ||
                   range.storage() == sc::StorageKind::Output;
    ResolvedRange place{range.offset(), range.length()};
    if (!resolved.empty())
      place = resolved[next++];
    return sc::StepAccess{static_cast<uint8_t>(range.storage()),
                          indexed ? range.index() : 0, place.Offset,
                          place.Length, written};
  };
  std::vector<sc::StepAccess> accesses;
  if (const auto *dispatch = step.kind_as_DispatchStep()) {
    const auto &bindings = *dispatch->bindings();
    const auto *kinds = dispatch->binding_access();
    for (flatbuffers::uoffset_t i = 0; i < bindings.size(); ++i)
      accesses.push_back(
          access(*bindings.Get(i),
                 !kinds || kinds->Get(i) != sc::BindingAccess::Read));
  } else if (const auto *copy = step.kind_as_CopyStep()) {
    accesses.push_back(access(*copy->source(), false));
    accesses.push_back(access(*copy->target(), true));
  } else if (const auto *fill = step.kind_as_FillStep()) {
    accesses.push_back(access(*fill->target(), true));
  }
  return accesses;
}

} // namespace kiln::module
