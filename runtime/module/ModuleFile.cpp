//===- ModuleFile.cpp -----------------------------------------------------===//

#include "runtime/module/ModuleFile.h"

#include "runtime/base/File.h"
#include "runtime/module/Verifier.h"
#include "schema/ConstantsSegment.h"

#include <cstring>
#include <new>

namespace kiln::module {

namespace {

// Copies get the alignment writers give the constants segment, so its
// constants are as aligned in memory as in a mapped file.
constexpr std::align_val_t kAlignment{schema::kConstantsSegmentAlignment};

struct AlignedDeleter {
  void operator()(uint8_t *ptr) const { ::operator delete[](ptr, kAlignment); }
};

StatusOr<std::shared_ptr<uint8_t>> allocate(size_t size) {
  // Zero-sized allocations are avoided so an empty module still gets a
  // distinct pointer; verification rejects it anyway.
  void *ptr = ::operator new[](size == 0 ? 1 : size, kAlignment, std::nothrow);
  if (!ptr)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes for a module");
  return std::shared_ptr<uint8_t>(static_cast<uint8_t *>(ptr),
                                  AlignedDeleter());
}

} // namespace

ModuleFile::ModuleFile(std::shared_ptr<const void> owner, const uint8_t *bytes,
                       size_t size)
    : Owner(std::move(owner)), Bytes(bytes), Size(size),
      Root(kiln::schema::GetModule(bytes)) {}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::wrap(std::shared_ptr<const void> owner, const uint8_t *data,
                 size_t size) {
  KILN_RETURN_IF_ERROR(verifyModule(data, size));
  return std::shared_ptr<const ModuleFile>(
      new ModuleFile(std::move(owner), data, size));
}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::fromBytes(const void *data, size_t size) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<uint8_t> bytes, allocate(size));
  if (size > 0)
    std::memcpy(bytes.get(), data, size);
  const uint8_t *start = bytes.get();
  return wrap(std::move(bytes), start, size);
}

StatusOr<std::shared_ptr<const ModuleFile>>
ModuleFile::open(const std::string &path) {
  KILN_ASSIGN_OR_RETURN(InputFile file, InputFile::open(path, "module"));
  std::string context = strCat("module file '", path, "'");
  uint64_t size = file.size();
  // The first and last bytes say whether this is a Kiln module at all, so
  // any other file (a model in another format, a large data file) is
  // refused before the rest is mapped or read.
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
  std::shared_ptr<const void> owner;
  const uint8_t *start = nullptr;
  if (auto mapping = file.map(); mapping.ok()) {
    start = (*mapping)->data();
    owner = std::move(mapping).value();
  } else {
    // A file system that cannot map files: read it all instead.
    auto bytes = allocate(size);
    if (!bytes.ok())
      return Status(bytes.status()).annotate(context);
    KILN_RETURN_IF_ERROR(file.readAt(0, bytes->get(), size));
    start = bytes->get();
    owner = std::move(bytes).value();
  }
  auto module = wrap(std::move(owner), start, size);
  if (!module.ok())
    return Status(module.status()).annotate(context);
  return module;
}

const uint8_t *ModuleFile::constantsData() const {
  if (const schema::ConstantsSegment *segment = Root->constants_segment())
    return segment->size() > 0 ? Bytes + segment->offset() : nullptr;
  const auto *constants = Root->constants();
  return constants && constants->size() > 0 ? constants->data() : nullptr;
}

uint64_t ModuleFile::constantsSize() const {
  if (const schema::ConstantsSegment *segment = Root->constants_segment())
    return segment->size();
  const auto *constants = Root->constants();
  return constants ? constants->size() : 0;
}

} // namespace kiln::module
