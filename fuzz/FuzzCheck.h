//===- FuzzCheck.h - Properties a fuzz target asserts ---------------------===//
//
// A fuzz target reports a broken property by crashing, the one outcome
// libFuzzer (and the corpus replay under ctest) notices. The message says
// which property, since the stack alone often does not.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FUZZ_FUZZCHECK_H
#define KILN_FUZZ_FUZZCHECK_H

#include <cstdio>
#include <cstdlib>

/// Aborts with `message` when `condition` is false.
#define KILN_FUZZ_CHECK(condition, message)                                    \
  do {                                                                         \
    if (!(condition)) {                                                        \
      std::fprintf(stderr, "%s:%d: fuzz property failed: %s (%s)\n", __FILE__, \
                   __LINE__, message, #condition);                             \
      std::abort();                                                            \
    }                                                                          \
  } while (false)

#endif // KILN_FUZZ_FUZZCHECK_H
