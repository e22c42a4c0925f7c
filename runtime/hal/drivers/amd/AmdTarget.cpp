//===- AmdTarget.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/amd/AmdTarget.h"

namespace kiln::hal::amd {

namespace {

// The setting ('+' or '-') `id` gives `feature` ("xnack"), or 0 for none.
char featureSetting(std::string_view id, std::string_view feature) {
  size_t colon = id.find(':');
  while (colon != std::string_view::npos) {
    id.remove_prefix(colon + 1);
    colon = id.find(':');
    std::string_view item = id.substr(0, colon);
    if (item.size() == feature.size() + 1 && item.starts_with(feature) &&
        (item.back() == '+' || item.back() == '-'))
      return item.back();
  }
  return 0;
}

} // namespace

std::string_view amdProcessorName(std::string_view targetId) {
  return targetId.substr(0, targetId.find(':'));
}

bool amdSupportsExecutable(std::string_view format, std::string_view target,
                           std::string_view deviceTarget) {
  if (format != kHsacoFormat || !target.starts_with("gfx") ||
      amdProcessorName(target) != amdProcessorName(deviceTarget))
    return false;
  for (std::string_view feature : {"sramecc", "xnack"}) {
    char wanted = featureSetting(target, feature);
    char present = featureSetting(deviceTarget, feature);
    if (wanted && present && wanted != present)
      return false;
  }
  return true;
}

} // namespace kiln::hal::amd
