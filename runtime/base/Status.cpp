//===- Status.cpp ---------------------------------------------------------===//

#include "runtime/base/Status.h"

namespace kiln {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "OK";
  case StatusCode::Cancelled:
    return "CANCELLED";
  case StatusCode::Unknown:
    return "UNKNOWN";
  case StatusCode::InvalidArgument:
    return "INVALID_ARGUMENT";
  case StatusCode::DeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case StatusCode::NotFound:
    return "NOT_FOUND";
  case StatusCode::AlreadyExists:
    return "ALREADY_EXISTS";
  case StatusCode::PermissionDenied:
    return "PERMISSION_DENIED";
  case StatusCode::ResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case StatusCode::FailedPrecondition:
    return "FAILED_PRECONDITION";
  case StatusCode::Aborted:
    return "ABORTED";
  case StatusCode::OutOfRange:
    return "OUT_OF_RANGE";
  case StatusCode::Unimplemented:
    return "UNIMPLEMENTED";
  case StatusCode::Internal:
    return "INTERNAL";
  case StatusCode::Unavailable:
    return "UNAVAILABLE";
  case StatusCode::DataLoss:
    return "DATA_LOSS";
  }
  return "UNKNOWN";
}

Status::Status(StatusCode code, std::string message, const char *file,
               int line) {
  if (code == StatusCode::Ok)
    return;
  State = std::make_shared<Payload>(
      Payload{code, std::move(message), file ? file : "", line});
}

std::string_view Status::message() const {
  return State ? std::string_view(State->Message) : std::string_view();
}

std::string Status::toString() const {
  if (ok())
    return "OK";
  std::string result = strCat(statusCodeName(State->Code), ": ", State->Message,
                              " [", State->File, ":", State->Line, "]");
  // A report is one line even when a message quotes multi-line text.
  for (char &c : result)
    if (c == '\n' || c == '\r')
      c = ' ';
  return result;
}

Status &Status::annotate(std::string_view context) {
  if (State) {
    auto copy = std::make_shared<Payload>(*State);
    copy->Message = strCat(context, ": ", copy->Message);
    State = std::move(copy);
  }
  return *this;
}

} // namespace kiln
