//===- File.cpp -----------------------------------------------------------===//

#include "runtime/base/File.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

Status fileError(int error, std::string_view kind, const std::string &path,
                 std::string_view what) {
  bool missing = error == ENOENT || error == ENOTDIR;
  if (missing && what == "open")
    return KILN_ERROR(NotFound, kind, " file '", path, "' not found");
  std::string message = strCat("cannot ", what, " ", kind, " file '", path,
                               "': ", strerror(error));
  if (missing)
    return KILN_ERROR(NotFound, message);
  if (error == EACCES || error == EPERM)
    return KILN_ERROR(PermissionDenied, message);
  return KILN_ERROR(Unavailable, message);
}

StatusOr<InputFile> InputFile::open(const std::string &path,
                                    std::string_view kind) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(errno, kind, path, "open");
  // Owned from here, so every early return closes it.
  InputFile file(fd, 0, path, kind);
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return fileError(errno, kind, path, "stat");
  if (S_ISDIR(info.st_mode))
    return KILN_ERROR(InvalidArgument, kind, " path '", path,
                      "' is a directory, not a regular file");
  if (!S_ISREG(info.st_mode))
    return KILN_ERROR(InvalidArgument, kind, " path '", path,
                      "' is not a regular file");
  file.Size = static_cast<uint64_t>(info.st_size);
  return file;
}

InputFile::InputFile(InputFile &&other) noexcept
    : Fd(other.Fd), Size(other.Size), Path(std::move(other.Path)),
      Kind(std::move(other.Kind)) {
  other.Fd = -1;
}

InputFile::~InputFile() {
  if (Fd >= 0)
    ::close(Fd);
}

Status InputFile::readAt(uint64_t offset, void *out, size_t length) const {
  auto *bytes = static_cast<uint8_t *>(out);
  size_t done = 0;
  while (done < length) {
    ssize_t n = ::pread(Fd, bytes + done, length - done,
                        static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fileError(errno, Kind, Path, "read");
    if (n == 0)
      return KILN_ERROR(DataLoss, Kind, " file '", Path, "' ended at byte ",
                        offset + done, " while being read (it had ", Size,
                        " bytes when opened)");
    done += static_cast<size_t>(n);
  }
  return Status();
}

FileMapping::~FileMapping() {
  ::munmap(const_cast<uint8_t *>(Data), static_cast<size_t>(Size));
}

StatusOr<std::shared_ptr<const FileMapping>> InputFile::map() const {
  if (Size == 0 || Size > SIZE_MAX)
    return KILN_ERROR(InvalidArgument, "cannot map ", Kind, " file '", Path,
                      "' of ", Size, " bytes");
  void *data =
      ::mmap(nullptr, static_cast<size_t>(Size), PROT_READ, MAP_PRIVATE, Fd, 0);
  if (data == MAP_FAILED)
    return fileError(errno, Kind, Path, "map");
  return std::shared_ptr<const FileMapping>(
      new FileMapping(static_cast<const uint8_t *>(data), Size));
}

} // namespace kiln
