//===- DynamicLibrary.cpp -------------------------------------------------===//

#include "runtime/base/DynamicLibrary.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace kiln {

namespace {

std::string takeDlError() {
  const char *error = dlerror();
  return error ? std::string(error) : std::string("unknown dlopen error");
}

// dlerror quotes the path it was given; for memory images that is a
// meaningless /proc/self/fd/N or temp path, so name the image instead.
std::string replaceAll(std::string text, const std::string &from,
                       std::string_view to) {
  if (from.empty())
    return text;
  for (size_t pos = text.find(from); pos != std::string::npos;
       pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

Status writeAll(int fd, std::span<const uint8_t> bytes,
                std::string_view debugName) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return KILN_ERROR(Unavailable, "cannot write image '", debugName,
                        "' to a file for loading: ", std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  return Status();
}

// A file descriptor holding a copy of the image, and the path dlopen should
// read it through.
struct ImageFile {
  int Fd = -1;
  std::string Path;
  bool Unlink = false;
  // Hands the descriptor to the loaded library.
  int release() {
    int fd = Fd;
    Fd = -1;
    return fd;
  }
  ~ImageFile() {
    if (Fd >= 0)
      ::close(Fd);
    if (Unlink)
      ::unlink(Path.c_str());
  }
};

// Whether a loaded object already has this path as its name: one that was
// never unloaded (RTLD_NODELETE, unique symbols) after its descriptor was
// closed. dlopen would return it instead of loading the new image.
bool isLoadedName(const std::string &path) {
  auto visit = [](struct dl_phdr_info *info, size_t, void *data) -> int {
    const auto *wanted = static_cast<const std::string *>(data);
    return info->dlpi_name && *wanted == info->dlpi_name ? 1 : 0;
  };
  return ::dl_iterate_phdr(visit, const_cast<std::string *>(&path)) != 0;
}

Status createImageFile(std::span<const uint8_t> image,
                       std::string_view debugName, ImageFile &file) {
  // memfd keeps the image off the file system; without /proc (some
  // containers) dlopen cannot reach it, so fall back to an unlinked temp file.
  if (::access("/proc/self/fd", F_OK) == 0) {
    std::string memfdName(debugName.substr(0, 200));
    // Descriptors whose path names a stale loaded object stay open until a
    // fresh number comes up, so the loop ends.
    std::vector<int> stale;
    Status result = KILN_ERROR(Unavailable, "no usable descriptor");
    for (int attempt = 0; attempt < 64; ++attempt) {
      file.Fd = ::memfd_create(memfdName.c_str(), MFD_CLOEXEC);
      if (file.Fd < 0)
        break;
      file.Path = strCat("/proc/self/fd/", file.Fd);
      if (!isLoadedName(file.Path)) {
        result = writeAll(file.Fd, image, debugName);
        break;
      }
      stale.push_back(file.release());
    }
    for (int fd : stale)
      ::close(fd);
    if (file.Fd >= 0)
      return result;
  }
  const char *tmpDir = std::getenv("TMPDIR");
  std::string pattern =
      strCat(tmpDir && *tmpDir ? tmpDir : "/tmp", "/kiln-image-XXXXXX");
  file.Fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (file.Fd < 0)
    return KILN_ERROR(Unavailable, "cannot create a file to load image '",
                      debugName, "': ", std::strerror(errno));
  file.Path = pattern;
  file.Unlink = true;
  return writeAll(file.Fd, image, debugName);
}

} // namespace

StatusOr<std::unique_ptr<DynamicLibrary>>
DynamicLibrary::open(const std::string &path, bool keepLoaded) {
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL |
                                            (keepLoaded ? RTLD_NODELETE : 0));
  if (!handle)
    return KILN_ERROR(NotFound, "cannot load library '", path,
                      "': ", takeDlError());
  return std::unique_ptr<DynamicLibrary>(
      new DynamicLibrary(handle, path, path, -1));
}

StatusOr<std::unique_ptr<DynamicLibrary>>
DynamicLibrary::openFromMemory(std::span<const uint8_t> image,
                               std::string_view debugName) {
  // dlopen's own message for a non-ELF file is obscure; check the magic so
  // a corrupt image gets a plain error.
  static constexpr uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (image.size() < 64 || std::memcmp(image.data(), kElfMagic, 4) != 0)
    return KILN_ERROR(InvalidArgument, "image '", debugName,
                      "' is not an ELF shared object (", image.size(),
                      " bytes)");
  ImageFile file;
  KILN_RETURN_IF_ERROR(createImageFile(image, debugName, file));
  void *handle = ::dlopen(file.Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return KILN_ERROR(
        InvalidArgument, "cannot load image '", debugName, "': ",
        replaceAll(takeDlError(), file.Path, strCat("<", debugName, ">")));
  // A temp file can go once mapped; a memfd stays open with the library.
  int keptFd = file.Unlink ? -1 : file.release();
  return std::unique_ptr<DynamicLibrary>(
      new DynamicLibrary(handle, std::string(debugName), file.Path, keptFd));
}

DynamicLibrary::~DynamicLibrary() {
  ::dlclose(Handle);
  if (ImageFd >= 0)
    ::close(ImageFd);
}

std::string DynamicLibrary::loadedPath() const {
  struct link_map *map = nullptr;
  if (::dlinfo(Handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name ||
      !*map->l_name)
    return Name;
  return map->l_name;
}

StatusOr<void *> DynamicLibrary::symbol(std::string_view name) const {
  std::string symbolName(name);
  dlerror(); // A null symbol value is legal; only dlerror tells failure.
  void *address = ::dlsym(Handle, symbolName.c_str());
  if (const char *error = dlerror())
    return KILN_ERROR(
        NotFound, "symbol '", name, "' not found in '", Name,
        "': ", replaceAll(error, LoadPath, strCat("<", Name, ">")));
  return address;
}

} // namespace kiln
