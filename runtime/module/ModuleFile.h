//===- ModuleFile.h - A verified, immutable Kiln module in memory ---------===//
//
// The bytes of a module file held in 64-byte aligned memory, so the constants
// blob inside it can be handed to devices in place, and verified once when
// loaded so everything else may trust root() without further checks.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_MODULEFILE_H
#define KILN_RUNTIME_MODULE_MODULEFILE_H

#include "runtime/base/Status.h"
#include "schema/module_generated.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::module {

class ModuleFile {
public:
  /// Reads and verifies the module at `path`; a missing file is NotFound.
  /// A file that is not a Kiln module is refused from its first and last
  /// bytes (checkModuleEnvelope) before it is read whole.
  static StatusOr<std::shared_ptr<const ModuleFile>>
  open(const std::string &path);

  /// Copies `size` bytes into aligned storage and verifies them.
  static StatusOr<std::shared_ptr<const ModuleFile>> fromBytes(const void *data,
                                                               size_t size);

  /// The verified root table; valid as long as this object lives.
  const kiln::schema::Module &root() const { return *Root; }

  /// The constants blob (64-byte aligned), or nullptr when there is none.
  const uint8_t *constantsData() const;
  size_t constantsSize() const;

  /// The whole file.
  const uint8_t *data() const { return Bytes.get(); }
  size_t size() const { return Size; }

  ModuleFile(const ModuleFile &) = delete;
  ModuleFile &operator=(const ModuleFile &) = delete;

private:
  struct AlignedDeleter {
    void operator()(uint8_t *ptr) const;
  };
  using AlignedBytes = std::unique_ptr<uint8_t[], AlignedDeleter>;

  ModuleFile(AlignedBytes bytes, size_t size);
  static StatusOr<AlignedBytes> allocate(size_t size);
  static StatusOr<std::shared_ptr<const ModuleFile>>
  verifyAndWrap(AlignedBytes bytes, size_t size);

  AlignedBytes Bytes;
  size_t Size;
  const kiln::schema::Module *Root;
};

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_MODULEFILE_H
