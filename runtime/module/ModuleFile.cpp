//===- ModuleFile.cpp -----------------------------------------------------===//

#include "runtime/module/ModuleFile.h"

#include "runtime/base/File.h"
#include "runtime/module/Verifier.h"

#include <cstring>
#include <new>

namespace kiln::module {

namespace {

constexpr std::align_val_t kAlignment{kConstantsAlignment};

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
  KILN_ASSIGN_OR_RETURN(InputFile file, InputFile::open(path, "module"));
  std::string context = strCat("module file '", path, "'");
  uint64_t size = file.size();
  // The first and last bytes say whether this is a Kiln module at all, so
  // any other file (a model in another format, a large data file) is
  // refused before it is read whole.
  uint8_t head[kModuleHeadSize] = {};
  uint8_t footer[schema::kChecksumFooterSize] = {};
  if (size >= kMinModuleSize) {
    KILN_RETURN_IF_ERROR(file.readAt(0, head, sizeof(head)));
    KILN_RETURN_IF_ERROR(
        file.readAt(size - sizeof(footer), footer, sizeof(footer)));
  }
  Status envelope = checkModuleEnvelope(head, footer, size);
  if (!envelope.ok())
    return envelope.annotate(context);
  auto bytes = allocate(size);
  if (!bytes.ok())
    return Status(bytes.status()).annotate(context);
  KILN_RETURN_IF_ERROR(file.readAt(0, bytes->get(), size));
  auto module = verifyAndWrap(std::move(*bytes), size);
  if (!module.ok())
    return Status(module.status()).annotate(context);
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
