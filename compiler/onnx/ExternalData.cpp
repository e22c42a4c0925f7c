//===- ExternalData.cpp - Reading a tensor's bytes from beside the model --===//

#include "compiler/onnx/ExternalData.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::onnx_import {

namespace {

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// A file descriptor closed when it goes out of scope.
class Fd {
public:
  explicit Fd(int fd = -1) : Value(fd) {}
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  Fd(Fd &&other) : Value(other.Value) { other.Value = -1; }
  Fd &operator=(Fd &&other) {
    std::swap(Value, other.Value);
    return *this;
  }
  ~Fd() {
    if (Value >= 0)
      ::close(Value);
  }
  int get() const { return Value; }
  bool valid() const { return Value >= 0; }

private:
  int Value;
};

// openat retried on EINTR.
int openAt(int dir, const char *name, int flags) {
  int fd;
  do
    fd = ::openat(dir, name, flags);
  while (fd < 0 && errno == EINTR);
  return fd;
}

} // namespace

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readExternalData(llvm::StringRef modelDir, const ExternalLocation &where,
                 uint64_t bytes) {
  llvm::StringRef location = where.Location;
  auto quoted = [&] {
    return ("external data location '" + location + "'").str();
  };
  if (location.empty())
    return error("external data without a location");
  if (location.contains('\0'))
    return error(quoted() + " holds a NUL character");
  if (location.starts_with("/"))
    return error(quoted() +
                 " is absolute; it must be a relative path inside the "
                 "model's folder");
  llvm::SmallVector<llvm::StringRef> parts;
  location.split(parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  llvm::erase(parts, ".");
  if (parts.empty())
    return error(quoted() + " names no file");
  if (llvm::is_contained(parts, ".."))
    return error(quoted() + " climbs out with '..'; it must be a relative "
                            "path inside the model's folder");
  if (where.Length && *where.Length != bytes)
    return error("external data length " + llvm::Twine(*where.Length) +
                 " does not match the tensor's " + llvm::Twine(bytes) +
                 " bytes");

  // Every component is opened relative to the folder before it and never
  // through a symbolic link, so the file read is the one checked, inside
  // the model's folder, whatever else renames things meanwhile.
  std::string dirName = modelDir.empty() ? "." : modelDir.str();
  Fd dir(openAt(AT_FDCWD, dirName.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid())
    return error("cannot open the model's folder '" + dirName +
                 "': " + std::strerror(errno));
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    std::string name = parts[i].str();
    Fd next(openAt(dir.get(), name.c_str(),
                   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid())
      return error(
          quoted() + ": '" + name + "' " +
          (errno == ELOOP || errno == ENOTDIR
               ? "is not a folder (symbolic links are not followed)"
               : llvm::Twine("cannot be opened: ") + std::strerror(errno)));
    dir = std::move(next);
  }
  std::string name = parts.back().str();
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  Fd file(openAt(dir.get(), name.c_str(),
                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!file.valid())
    return error(quoted() + " in '" + dirName + "': " +
                 (errno == ELOOP ? "is a symbolic link (not followed: "
                                   "external data must be a file inside the "
                                   "model's folder)"
                                 : std::strerror(errno)));
  struct stat info;
  if (::fstat(file.get(), &info) != 0)
    return error(quoted() + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return error(quoted() + " is not a regular file");
  // A hard link is the same file as one outside the folder: nothing tells
  // which name is the real one, so only files with one name are read.
  if (info.st_nlink != 1)
    return error(quoted() + " has " + llvm::Twine(uint64_t(info.st_nlink)) +
                 " hard links; external data must be a file of its own "
                 "inside the model's folder");
  uint64_t size = static_cast<uint64_t>(info.st_size);
  if (where.Offset > size || size - where.Offset < bytes)
    return error(quoted() + " holds " + llvm::Twine(size) +
                 " bytes, too few for " + llvm::Twine(bytes) +
                 " bytes at offset " + llvm::Twine(where.Offset));
  if (bytes == 0)
    return llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(), location,
                                            /*RequiresNullTerminator=*/false);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> slice =
      llvm::MemoryBuffer::getOpenFileSlice(file.get(), location, bytes,
                                           static_cast<int64_t>(where.Offset));
  if (!slice)
    return error(quoted() + ": cannot read: " + slice.getError().message());
  return std::move(*slice);
}

} // namespace kiln::onnx_import
