//===- File.h - Untrusted input files read piece by piece -----------------===//
//
// Module and .npy files come from users, so the tools read the few bytes
// that say what a file holds before they allocate for or read the rest: a
// wrong or hostile file is refused without a large read. Errors name the
// file with the caller's noun ("module file 'x.kiln' not found").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_FILE_H
#define KILN_RUNTIME_BASE_FILE_H

#include "runtime/base/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kiln {

/// The status of a failed system call `what` ("open", "create", ...) on the
/// `kind` file at `path`: NotFound, PermissionDenied or Unavailable, with
/// strerror's text.
Status fileError(int error, std::string_view kind, const std::string &path,
                 std::string_view what);

/// A whole file mapped read-only into memory (page-aligned), unmapped when
/// destroyed. Pages are read from the file when first touched, and the page
/// cache holds them, not the process heap. The file must not shrink or be
/// rewritten in place while mapped: reading a page past a new end raises
/// SIGBUS, as with every mapped file (replace a file by renaming a new one
/// over it).
class FileMapping {
public:
  FileMapping(const FileMapping &) = delete;
  FileMapping &operator=(const FileMapping &) = delete;
  ~FileMapping();

  const uint8_t *data() const { return Data; }
  uint64_t size() const { return Size; }

private:
  friend class InputFile;
  FileMapping(const uint8_t *data, uint64_t size) : Data(data), Size(size) {}

  const uint8_t *Data;
  uint64_t Size;
};

/// A regular file opened for reading, closed when destroyed.
class InputFile {
public:
  /// Opens `path`; `kind` ("module", "npy") names it in errors. A missing
  /// file is NotFound; a directory, a device or a pipe is InvalidArgument.
  static StatusOr<InputFile> open(const std::string &path,
                                  std::string_view kind);

  InputFile(InputFile &&other) noexcept;
  InputFile &operator=(InputFile &&) = delete;
  InputFile(const InputFile &) = delete;
  InputFile &operator=(const InputFile &) = delete;
  ~InputFile();

  /// The size when the file was opened.
  uint64_t size() const { return Size; }

  /// Reads exactly `length` bytes at `offset`; a file that ends early (it
  /// shrank since it was opened) is DataLoss.
  Status readAt(uint64_t offset, void *out, size_t length) const;

  /// Maps the whole file (size() bytes, at least 1) read-only. The mapping
  /// outlives this object. Fails where the file system cannot map files;
  /// readAt still works there.
  StatusOr<std::shared_ptr<const FileMapping>> map() const;

private:
  InputFile(int fd, uint64_t size, std::string path, std::string_view kind)
      : Fd(fd), Size(size), Path(std::move(path)), Kind(kind) {}

  int Fd;
  uint64_t Size;
  std::string Path;
  std::string Kind;
};

} // namespace kiln

#endif // KILN_RUNTIME_BASE_FILE_H
