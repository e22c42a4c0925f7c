//===- CpuTarget.cpp ------------------------------------------------------===//

#include "runtime/hal/drivers/local/CpuTarget.h"

#include <fstream>

namespace kiln::hal::local {

namespace {

#if defined(__x86_64__)
bool hasLevel(int level) {
  __builtin_cpu_init();
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  switch (level) {
  case 1:
    return true;
  case 2:
    return __builtin_cpu_supports("x86-64-v2");
  case 3:
    return __builtin_cpu_supports("x86-64-v3");
  default:
    return __builtin_cpu_supports("x86-64-v4");
  }
#else
  // Without the ISA-level names, check the features each level adds that a
  // compiler actually uses.
  bool v2 = __builtin_cpu_supports("sse4.2") &&
            __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3");
  bool v3 = v2 && __builtin_cpu_supports("avx2") &&
            __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  bool v4 = v3 && __builtin_cpu_supports("avx512f") &&
            __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512cd");
  return level == 1 || (level == 2 && v2) || (level == 3 && v3) ||
         (level == 4 && v4);
#endif
}
#endif

} // namespace

bool hostSupportsCpuTarget(std::string_view target) {
#if defined(__x86_64__)
  if (target == "host" || target == "x86-64")
    return true;
  if (target == "x86-64-v2")
    return hasLevel(2);
  if (target == "x86-64-v3")
    return hasLevel(3);
  if (target == "x86-64-v4")
    return hasLevel(4);
#else
  (void)target;
#endif
  return false;
}

std::string hostCpuTarget() {
#if defined(__x86_64__)
  for (int level = 4; level > 1; --level)
    if (hasLevel(level))
      return "x86-64-v" + std::to_string(level);
  return "x86-64";
#else
  return "";
#endif
}

std::vector<std::string> hostCpuFeatures() {
  std::vector<std::string> features;
#if defined(__x86_64__)
  __builtin_cpu_init();
#define KILN_CPU_FEATURE(name)                                                 \
  if (__builtin_cpu_supports(name))                                            \
    features.emplace_back(name);
  KILN_CPU_FEATURE("sse4.2")
  KILN_CPU_FEATURE("avx")
  KILN_CPU_FEATURE("avx2")
  KILN_CPU_FEATURE("fma")
  KILN_CPU_FEATURE("f16c")
  KILN_CPU_FEATURE("avx512f")
  KILN_CPU_FEATURE("avx512bw")
  KILN_CPU_FEATURE("avx512vl")
  KILN_CPU_FEATURE("avx512dq")
  KILN_CPU_FEATURE("avx512vnni")
  KILN_CPU_FEATURE("avx512bf16")
#undef KILN_CPU_FEATURE
#endif
  return features;
}

std::string hostCpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0)
      continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      return "";
    size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

} // namespace kiln::hal::local
