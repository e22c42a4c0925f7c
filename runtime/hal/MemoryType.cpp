//===- MemoryType.cpp -----------------------------------------------------===//

#include "runtime/hal/MemoryType.h"

#include "runtime/base/Status.h"

#include <utility>

namespace kiln::hal {

namespace {
struct FlagName {
  uint32_t Bit;
  const char *Name;
};

template <size_t N>
std::string flagString(uint32_t bits, const FlagName (&names)[N]) {
  std::string out;
  for (const FlagName &flag : names) {
    if (!(bits & flag.Bit))
      continue;
    out += strCat(out.empty() ? "" : "|", flag.Name);
    bits &= ~flag.Bit;
  }
  if (bits)
    out += strCat(out.empty() ? "" : "|", "0x", std::hex, bits);
  return out.empty() ? "None" : out;
}
} // namespace

std::string memoryTypeString(MemoryType type) {
  static const FlagName kNames[] = {{1, "DeviceLocal"}, {2, "HostVisible"}};
  return flagString(static_cast<uint32_t>(type), kNames);
}

std::string bufferUsageString(BufferUsage usage) {
  static const FlagName kNames[] = {
      {1, "Transfer"}, {2, "Dispatch"}, {4, "Mapping"}};
  return flagString(static_cast<uint32_t>(usage), kNames);
}

} // namespace kiln::hal
