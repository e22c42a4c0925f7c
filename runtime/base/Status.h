//===- Status.h - Error values that carry a code, message and origin ------===//
//
// Every fallible runtime function returns Status or StatusOr<T>. The origin
// (file:line) is recorded where the error is created so a one-line report
// from a tool still says which check failed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_STATUS_H
#define KILN_RUNTIME_BASE_STATUS_H

#include <cassert>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace kiln {

enum class StatusCode : int {
  Ok = 0,
  Cancelled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  AlreadyExists = 6,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Aborted = 10,
  OutOfRange = 11,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
};

/// Returns the canonical upper-case name, e.g. "INVALID_ARGUMENT".
const char *statusCodeName(StatusCode code);

/// Concatenates anything streamable into a string.
template <typename... Args> std::string strCat(Args &&...args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

class [[nodiscard]] Status {
public:
  /// An OK status.
  Status() = default;
  Status(StatusCode code, std::string message, const char *file, int line);

  bool ok() const { return !State; }
  StatusCode code() const { return State ? State->Code : StatusCode::Ok; }
  std::string_view message() const;
  const char *file() const { return State ? State->File : ""; }
  int line() const { return State ? State->Line : 0; }

  /// "INVALID_ARGUMENT: message [file:line]" on one line, or "OK".
  std::string toString() const;

  /// Prepends context to the message, keeping code and origin.
  Status &annotate(std::string_view context);

  /// Marks the status as inspected; for call sites that deliberately drop it.
  void ignoreError() const {}

private:
  struct Payload {
    StatusCode Code;
    std::string Message;
    const char *File;
    int Line;
  };
  // A shared payload keeps OK statuses one pointer wide and copies cheap.
  std::shared_ptr<Payload> State;
};

/// Holds either a value or a non-OK status.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(Status status) : Err(std::move(status)) {
    assert(!Err.ok() && "StatusOr built from an OK status without a value");
  }
  StatusOr(T value) : Value(std::move(value)) {}
  template <typename U, typename = std::enable_if_t<
                            std::is_convertible_v<U &&, T> &&
                            !std::is_same_v<std::decay_t<U>, T> &&
                            !std::is_same_v<std::decay_t<U>, Status>>>
  StatusOr(U &&value) : Value(T(std::forward<U>(value))) {}

  bool ok() const { return Value.has_value(); }
  const Status &status() const { return Err; }

  T &value() & {
    assert(ok());
    return *Value;
  }
  const T &value() const & {
    assert(ok());
    return *Value;
  }
  T &&value() && {
    assert(ok());
    return std::move(*Value);
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  Status Err;
  std::optional<T> Value;
};

} // namespace kiln

/// Builds a non-OK Status at the current source location:
///   return KILN_ERROR(InvalidArgument, "bad rank ", rank);
#define KILN_ERROR(code, ...)                                                  \
  ::kiln::Status(::kiln::StatusCode::code, ::kiln::strCat(__VA_ARGS__),        \
                 __FILE__, __LINE__)

#define KILN_CONCAT_IMPL(a, b) a##b
#define KILN_CONCAT(a, b) KILN_CONCAT_IMPL(a, b)

/// Returns from the enclosing function if `expr` is a non-OK Status.
#define KILN_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    ::kiln::Status kilnStatusTmp = (expr);                                     \
    if (!kilnStatusTmp.ok())                                                   \
      return kilnStatusTmp;                                                    \
  } while (false)

/// Declares `lhs` from a StatusOr, returning its status on error:
///   KILN_ASSIGN_OR_RETURN(auto file, readFile(path));
#define KILN_ASSIGN_OR_RETURN(lhs, expr)                                       \
  KILN_ASSIGN_OR_RETURN_IMPL(KILN_CONCAT(kilnStatusOr, __LINE__), lhs, expr)
#define KILN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                             \
  auto tmp = (expr);                                                           \
  if (!tmp.ok())                                                               \
    return tmp.status();                                                       \
  lhs = std::move(tmp).value()

#endif // KILN_RUNTIME_BASE_STATUS_H
