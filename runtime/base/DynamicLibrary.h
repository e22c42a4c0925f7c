//===- DynamicLibrary.h - Shared objects opened at run time ---------------===//
//
// Vendor libraries (libcuda, ...) are opened by path and CPU executables
// inside a module are opened from memory, so neither needs to be linked or
// written next to the module. Every failure carries dlerror's text.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_DYNAMICLIBRARY_H
#define KILN_RUNTIME_BASE_DYNAMICLIBRARY_H

#include "runtime/base/Status.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace kiln {

class DynamicLibrary {
public:
  /// Opens a shared object by path or soname (searched like dlopen does).
  /// Symbols stay local to the library and are bound immediately. With
  /// `keepLoaded` the library stays mapped after this object is gone
  /// (RTLD_NODELETE): vendor runtimes start threads and keep state their
  /// static data points to, which unloading would cut off.
  static StatusOr<std::unique_ptr<DynamicLibrary>>
  open(const std::string &path, bool keepLoaded = false);

  /// Opens a shared object from an in-memory ELF image. `debugName` names
  /// the image in errors and in /proc/self/maps. The bytes are copied; the
  /// caller may free them once this returns.
  static StatusOr<std::unique_ptr<DynamicLibrary>>
  openFromMemory(std::span<const uint8_t> image, std::string_view debugName);

  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary &) = delete;
  DynamicLibrary &operator=(const DynamicLibrary &) = delete;

  /// Looks up a symbol; NotFound names it and the library.
  StatusOr<void *> symbol(std::string_view name) const;

  const std::string &name() const { return Name; }

  /// The file the loader opened (a soname resolved to its path), for
  /// reports such as --dump_devices; name() when the loader cannot say.
  std::string loadedPath() const;

private:
  DynamicLibrary(void *handle, std::string name, std::string loadPath,
                 int imageFd)
      : Handle(handle), Name(std::move(name)), LoadPath(std::move(loadPath)),
        ImageFd(imageFd) {}

  void *Handle;
  std::string Name;
  // What dlopen was given; dlerror quotes it, errors show Name instead.
  std::string LoadPath;
  // The memfd of an in-memory image, open while the library is loaded:
  // the loader identifies libraries by path, so a reused descriptor number
  // would make a later image resolve to this one.
  int ImageFd;
};

} // namespace kiln

#endif // KILN_RUNTIME_BASE_DYNAMICLIBRARY_H
