//===- StatusTesting.h - gtest assertions on Status and StatusOr ----------===//
//
// For tests only: fail the running gtest case with the Status's message
// (code, text and file:line) instead of a bare "false".
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_STATUSTESTING_H
#define KILN_RUNTIME_BASE_STATUSTESTING_H

#include "runtime/base/Status.h"

#include <gtest/gtest.h>

/// Asserts that `expr` (a Status) is OK.
#define KILN_ASSERT_OK(expr)                                                   \
  do {                                                                         \
    ::kiln::Status kilnAssertStatus = (expr);                                  \
    ASSERT_TRUE(kilnAssertStatus.ok()) << kilnAssertStatus.toString();         \
  } while (false)

/// Asserts that `expr` (a StatusOr) is OK and moves its value into `lhs`,
/// which may declare a variable.
#define KILN_ASSERT_OK_AND_ASSIGN(lhs, expr)                                   \
  KILN_ASSERT_OK_AND_ASSIGN_IMPL(KILN_CONCAT(kilnAssertResult, __LINE__), lhs, \
                                 expr)
#define KILN_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr)                         \
  auto tmp = (expr);                                                           \
  ASSERT_TRUE(tmp.ok()) << tmp.status().toString();                            \
  lhs = std::move(tmp).value()

#endif // KILN_RUNTIME_BASE_STATUSTESTING_H
