//===- DeviceSelection.cpp ------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/DeviceSelection.h"

#include <algorithm>
#include <charconv>

namespace kiln::hal::amdgpu {

namespace {

// A list longer than any machine has GPUs is a typo or an attack.
constexpr size_t kMostGpus = 64;

Status absent(const DeviceUri &uri, std::string_view why,
              std::span<const std::string> uuids) {
  return KILN_ERROR(NotFound, "no device ", quoteForMessage(uri.text()), ": ",
                    why, " (", uuids.size(),
                    " AMD GPU(s) present; see --list_devices)");
}

} // namespace

StatusOr<std::vector<uint32_t>> selectGpus(const DeviceUri &uri,
                                           std::span<const std::string> uuids) {
  if (uuids.empty())
    return absent(uri, "no AMD GPU is present", uuids);
  std::vector<uint32_t> chosen;
  auto take = [&](uint64_t index) -> Status {
    if (index >= uuids.size())
      return absent(uri, strCat("there is no GPU ", index), uuids);
    if (std::find(chosen.begin(), chosen.end(), index) != chosen.end())
      return KILN_ERROR(InvalidArgument, "device ", quoteForMessage(uri.text()),
                        " names GPU ", index, " twice");
    chosen.push_back(static_cast<uint32_t>(index));
    return Status();
  };
  if (uri.form() == DeviceUri::Form::Ordinal) {
    KILN_RETURN_IF_ERROR(take(*uri.ordinal()));
    return chosen;
  }
  if (uri.form() == DeviceUri::Form::Bare || uri.path().empty()) {
    KILN_RETURN_IF_ERROR(take(0));
    return chosen;
  }
  std::string_view rest = uri.path();
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item.empty())
      return KILN_ERROR(InvalidArgument, "device ", quoteForMessage(uri.text()),
                        " has an empty item in its GPU list");
    if (chosen.size() == kMostGpus)
      return KILN_ERROR(InvalidArgument, "device ", quoteForMessage(uri.text()),
                        " names more than ", kMostGpus, " GPUs");
    uint64_t ordinal = 0;
    auto [end, error] =
        std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (error == std::errc() && end == item.data() + item.size()) {
      KILN_RETURN_IF_ERROR(take(ordinal));
    } else if (item.starts_with("GPU-")) {
      auto found = std::find(uuids.begin(), uuids.end(), item);
      if (found == uuids.end())
        return absent(
            uri, strCat("no AMD GPU has UUID ", quoteForMessage(item)), uuids);
      KILN_RETURN_IF_ERROR(take(found - uuids.begin()));
    } else {
      return KILN_ERROR(InvalidArgument, "device ", quoteForMessage(uri.text()),
                        ": ", quoteForMessage(item),
                        " is neither a GPU ordinal nor GPU-<uuid>");
    }
    if (comma == std::string_view::npos)
      return chosen;
    rest.remove_prefix(comma + 1);
  }
}

} // namespace kiln::hal::amdgpu
