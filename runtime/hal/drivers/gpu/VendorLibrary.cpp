//===- VendorLibrary.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/gpu/VendorLibrary.h"

#include <cstdlib>
#include <sys/stat.h>

namespace kiln::hal::gpu {

namespace {

// A vendor runtime is never unloaded, even when its initialization failed:
// what its static initializers allocated stays reachable from its data.
constexpr bool kKeepLoaded = true;

bool isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// `where` as a file, or each soname in it as a folder.
StatusOr<std::unique_ptr<DynamicLibrary>>
openAt(const VendorLibrarySearch &search, const std::string &where,
       std::string_view source) {
  if (!isDirectory(where)) {
    auto library = DynamicLibrary::open(where, kKeepLoaded);
    if (!library.ok())
      return Status(StatusCode::Unavailable,
                    strCat("no ", search.What, " at ", source, ": ",
                           library.status().message(), "; ", search.Hint),
                    library.status().file(), library.status().line());
    return library;
  }
  std::string last;
  for (const std::string &soname : search.Sonames) {
    auto library =
        DynamicLibrary::open(strCat(where, "/", soname), kKeepLoaded);
    if (library.ok())
      return library;
    last = std::string(library.status().message());
  }
  return KILN_ERROR(Unavailable, "no ", search.What, " in ", source,
                    " (looked for ", search.Sonames.front(), "): ", last, "; ",
                    search.Hint);
}

} // namespace

StatusOr<std::unique_ptr<DynamicLibrary>>
openVendorLibrary(const VendorLibrarySearch &search) {
  if (!search.Override.empty())
    return openAt(search, search.Override, strCat("'", search.Override, "'"));
  if (search.EnvVariable)
    if (const char *value = std::getenv(search.EnvVariable); value && *value)
      return openAt(search, value,
                    strCat(search.EnvVariable, "='", value, "'"));
  std::string last;
  for (const std::string &soname : search.Sonames) {
    auto library = DynamicLibrary::open(soname, kKeepLoaded);
    if (library.ok())
      return library;
    last = std::string(library.status().message());
  }
  return KILN_ERROR(Unavailable, "no ", search.What, ": ", last, "; ",
                    search.Hint);
}

} // namespace kiln::hal::gpu
