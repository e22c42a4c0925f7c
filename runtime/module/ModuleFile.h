//===- ModuleFile.h - A verified, immutable Kiln module in memory ---------===//
//
// The bytes of a module file, verified once when loaded so everything else
// may trust root() without further checks. A file is mapped read-only
// rather than read (its constants segment, the weights, may be larger than
// memory would comfortably hold twice, and a device that addresses host
// memory then runs on the mapped pages); bytes given by the caller are
// copied into aligned memory or, with wrap(), used where they are.
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
  /// Maps and verifies the module at `path`; a missing file is NotFound. A
  /// file that is not a Kiln module is refused from its first and last bytes
  /// (checkModuleEnvelope) before the rest is touched. The file must not be
  /// truncated or rewritten in place while the module lives (see
  /// FileMapping); where the file system cannot map files it is read into
  /// memory instead.
  static StatusOr<std::shared_ptr<const ModuleFile>>
  open(const std::string &path);

  /// Copies `size` bytes into aligned storage and verifies them.
  static StatusOr<std::shared_ptr<const ModuleFile>> fromBytes(const void *data,
                                                               size_t size);

  /// Verifies `size` bytes at `data` (8-byte aligned) and uses them in
  /// place: `owner` is held, and the bytes must stay unchanged, for as long
  /// as the ModuleFile lives. open() and fromBytes() end here.
  static StatusOr<std::shared_ptr<const ModuleFile>>
  wrap(std::shared_ptr<const void> owner, const uint8_t *data, size_t size);

  /// The verified root table; valid as long as this object lives.
  const kiln::schema::Module &root() const { return *Root; }

  /// The constants (the segment, or a 1.0/1.1 module's vector), or nullptr
  /// when there are none. Their address is aligned like their offset in the
  /// file up to the base's alignment: a page for open(), 4096 bytes for
  /// fromBytes().
  const uint8_t *constantsData() const;
  uint64_t constantsSize() const;

  /// The whole file.
  const uint8_t *data() const { return Bytes; }
  size_t size() const { return Size; }

  ModuleFile(const ModuleFile &) = delete;
  ModuleFile &operator=(const ModuleFile &) = delete;

private:
  ModuleFile(std::shared_ptr<const void> owner, const uint8_t *bytes,
             size_t size);

  std::shared_ptr<const void> Owner;
  const uint8_t *Bytes;
  size_t Size;
  const kiln::schema::Module *Root;
};

} // namespace kiln::module

#endif // KILN_RUNTIME_MODULE_MODULEFILE_H
