//===- ModuleFile.cpp -----------------------------------------------------===//

#include "runtime/module/ModuleFile.h"

#include "runtime/module/Verifier.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::module {

namespace {

constexpr std::align_val_t kAlignment{kConstantsAlignment};

// Closes the descriptor on every return path.
struct FileDescriptor {
  int Fd;
  ~FileDescriptor() {
    if (Fd >= 0)
      ::close(Fd);
  }
};

Status errnoStatus(int error, const std::string &path, std::string_view what) {
  std::string message =
      strCat("cannot ", what, " module file '", path, "': ", strerror(error));
  switch (error) {
  case ENOENT:
  case ENOTDIR:
    return Status(StatusCode::NotFound,
                  strCat("module file '", path, "' not found"), __FILE__,
                  __LINE__);
  case EACCES:
  case EPERM:
    return Status(StatusCode::PermissionDenied, message, __FILE__, __LINE__);
  default:
    return Status(StatusCode::Unavailable, message, __FILE__, __LINE__);
  }
}

} // namespace

void ModuleFile::AlignedDeleter::operator()(uint8_t *ptr) const {
  ::operator delete[](ptr, kAlignment);
}

ModuleFile::ModuleFile(AlignedBytes bytes, size_t size)
    : Bytes(std::move(bytes)), Size(size),
      Root(kiln::schema::GetModule(Bytes.get())) {}

StatusOr<ModuleFile::AlignedBytes> ModuleFile::allocate(size_t size) {
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return KILN_ERROR(InvalidArgument, "module is too large (", size,
                      " bytes); the maximum is 2 GiB");
  // Zero-sized allocations are avoided so an empty module still gets a
  // distinct pointer; verification rejects it anyway.
  void *ptr = ::operator new[](size == 0 ? 1 : size, kAlignment, std::nothrow);
  if (!ptr)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes for a module");
  return AlignedBytes(static_cast<uint8_t *>(ptr));
}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::verifyAndWrap(AlignedBytes bytes, size_t size) {
  KILN_RETURN_IF_ERROR(verifyModule(bytes.get(), size));
  return std::shared_ptr<const ModuleFile>(
      new ModuleFile(std::move(bytes), size));
}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::fromBytes(const void *data, size_t size) {
  KILN_ASSIGN_OR_RETURN(AlignedBytes bytes, allocate(size));
  if (size > 0)
    std::memcpy(bytes.get(), data, size);
  return verifyAndWrap(std::move(bytes), size);
}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::open(const std::string &path) {
  FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.Fd < 0)
    return errnoStatus(errno, path, "open");
  struct stat info;
  if (::fstat(file.Fd, &info) != 0)
    return errnoStatus(errno, path, "stat");
  if (S_ISDIR(info.st_mode))
    return KILN_ERROR(InvalidArgument, "module path '", path,
                      "' is a directory, not a file");
  if (!S_ISREG(info.st_mode))
    return KILN_ERROR(InvalidArgument, "module path '", path,
                      "' is not a regular file");
  auto size = static_cast<size_t>(info.st_size);
  auto bytes = allocate(size);
  if (!bytes.ok())
    return Status(bytes.status()).annotate(strCat("module file '", path, "'"));
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(file.Fd, bytes->get() + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return errnoStatus(errno, path, "read");
    if (n == 0)
      return KILN_ERROR(DataLoss, "module file '", path, "' shrank to ", done,
                        " bytes while being read (expected ", size, ")");
    done += static_cast<size_t>(n);
  }
  auto module = verifyAndWrap(std::move(*bytes), size);
  if (!module.ok())
    return Status(module.status()).annotate(strCat("module file '", path, "'"));
  return module;
}

const uint8_t *ModuleFile::constantsData() const {
  const auto *constants = Root->constants();
  return constants && constants->size() > 0 ? constants->data() : nullptr;
}

size_t ModuleFile::constantsSize() const {
  const auto *constants = Root->constants();
  return constants ? constants->size() : 0;
}

} // namespace kiln::module
