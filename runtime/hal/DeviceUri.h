//===- DeviceUri.h - Device names: `driver`, `driver:N`, `driver://path?k=v` =//
//
// One spelling selects a device everywhere (tools, C API, tests):
//   cuda                   the driver's default device
//   cuda:1                 the device with ordinal 1
//   cuda://GPU-1234?k=v    a driver-defined path plus parameters
//   local-task://?workers=4
// Parsing is strict so a typo is an error that quotes the input, never a
// silently different device.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DEVICEURI_H
#define KILN_RUNTIME_HAL_DEVICEURI_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::hal {

class DeviceUri {
public:
  enum class Form {
    Bare,    // "driver" or "driver?k=v"
    Ordinal, // "driver:N"
    Path,    // "driver://path" (path may be empty)
  };

  /// Parses `text`; a malformed URI is InvalidArgument quoting it.
  static StatusOr<DeviceUri> parse(std::string_view text);

  const std::string &driver() const { return Driver; }
  Form form() const { return UriForm; }
  /// Percent-decoded path; empty unless form() is Path.
  const std::string &path() const { return Path; }
  /// Set only for form() == Ordinal.
  std::optional<uint32_t> ordinal() const { return Ordinal; }
  /// Percent-decoded parameters in the order written; keys are unique.
  const std::vector<std::pair<std::string, std::string>> &params() const {
    return Params;
  }
  std::optional<std::string_view> param(std::string_view key) const;

  /// InvalidArgument naming the first parameter not in `known`.
  Status checkParams(std::initializer_list<std::string_view> known) const;
  /// A decimal parameter in [min, max]; nullopt when absent.
  StatusOr<std::optional<uint64_t>> uintParam(std::string_view key,
                                              uint64_t min, uint64_t max) const;
  /// "1", "true", "0" or "false"; nullopt when absent.
  StatusOr<std::optional<bool>> boolParam(std::string_view key) const;

  /// The text this URI was parsed from.
  const std::string &text() const { return Text; }

private:
  DeviceUri() = default;

  std::string Text;
  std::string Driver;
  Form UriForm = Form::Bare;
  std::string Path;
  std::optional<uint32_t> Ordinal;
  std::vector<std::pair<std::string, std::string>> Params;
};

/// Quotes untrusted text for a one-line message: non-printable bytes become
/// \xNN and long text is cut.
std::string quoteForMessage(std::string_view text);

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_DEVICEURI_H
