//===- AmdElf.cpp ---------------------------------------------------------===//

#include "runtime/hal/drivers/amd/AmdElf.h"

#include <cstring>
#include <elf.h>
#include <optional>
#include <string_view>

namespace kiln::hal::amd {

namespace {

constexpr uint8_t kOsAbiAmdgpuHsa = 64;
constexpr uint32_t kNoteAmdgpuMetadata = 32;
// Real code objects have a few dozen sections and symbols; far more is a
// hostile file, refused before the tables are walked.
constexpr uint64_t kMostSections = 4096;
constexpr uint64_t kMostSymbols = 1 << 20;

// A fixed-size record at `offset`, or nullopt where it would not fit.
template <typename T>
std::optional<T> readAt(std::span<const uint8_t> image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

// `size` bytes at `offset`, or nullopt where they do not fit.
std::optional<std::span<const uint8_t>>
sliceAt(std::span<const uint8_t> image, uint64_t offset, uint64_t size) {
  if (offset > image.size() || image.size() - offset < size)
    return std::nullopt;
  return image.subspan(offset, size);
}

Status bad(std::string_view why) {
  return KILN_ERROR(InvalidArgument, "not a valid AMD code object: ", why);
}

uint64_t alignTo4(uint64_t value) { return (value + 3) & ~uint64_t{3}; }

// The metadata notes of one SHT_NOTE section.
Status scanNotes(std::span<const uint8_t> notes,
                 std::vector<std::span<const uint8_t>> &found) {
  uint64_t offset = 0;
  while (offset < notes.size()) {
    auto header = readAt<Elf64_Nhdr>(notes, offset);
    if (!header)
      return bad("a note runs past its section");
    uint64_t nameStart = offset + sizeof(Elf64_Nhdr);
    uint64_t descStart = nameStart + alignTo4(header->n_namesz);
    auto name = sliceAt(notes, nameStart, header->n_namesz);
    auto desc = sliceAt(notes, descStart, header->n_descsz);
    if (!name || !desc)
      return bad("a note runs past its section");
    static constexpr char kOwner[] = "AMDGPU";
    if (header->n_type == kNoteAmdgpuMetadata &&
        name->size() == sizeof(kOwner) &&
        std::memcmp(name->data(), kOwner, sizeof(kOwner)) == 0)
      found.push_back(*desc);
    offset = descStart + alignTo4(header->n_descsz);
  }
  return Status();
}

Status readSymbols(std::span<const uint8_t> image, const Elf64_Shdr &table,
                   const Elf64_Shdr &strings, std::vector<std::string> &names) {
  auto symbols = sliceAt(image, table.sh_offset, table.sh_size);
  auto text = sliceAt(image, strings.sh_offset, strings.sh_size);
  if (!symbols || !text || table.sh_entsize != sizeof(Elf64_Sym))
    return bad("its dynamic symbol table is out of bounds");
  uint64_t count = symbols->size() / sizeof(Elf64_Sym);
  if (count > kMostSymbols)
    return bad("it has too many symbols");
  for (uint64_t i = 1; i < count; ++i) {
    Elf64_Sym symbol = *readAt<Elf64_Sym>(*symbols, i * sizeof(Elf64_Sym));
    if (symbol.st_name >= text->size())
      return bad("a symbol name is out of bounds");
    const auto *start =
        reinterpret_cast<const char *>(text->data() + symbol.st_name);
    size_t length = strnlen(start, text->size() - symbol.st_name);
    if (length == text->size() - symbol.st_name)
      return bad("a symbol name is not terminated");
    names.emplace_back(start, length);
  }
  return Status();
}

} // namespace

StatusOr<AmdElf> readAmdElf(std::span<const uint8_t> image) {
  auto header = readAt<Elf64_Ehdr>(image, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0)
    return bad(strCat("no ELF header (", image.size(), " bytes)"));
  if (header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_ident[EI_DATA] != ELFDATA2LSB || header->e_machine != EM_AMDGPU)
    return bad("not a little-endian ELF64 file for EM_AMDGPU");
  if (header->e_ident[EI_OSABI] != kOsAbiAmdgpuHsa)
    return bad(strCat("OS ABI ",
                      static_cast<unsigned>(header->e_ident[EI_OSABI]),
                      " is not AMDGPU HSA (64)"));
  AmdElf elf;
  elf.AbiVersion = header->e_ident[EI_ABIVERSION];
  if (elf.AbiVersion != kCodeObjectV5 && elf.AbiVersion != kCodeObjectV6)
    return bad(strCat("ABI version ", static_cast<unsigned>(elf.AbiVersion),
                      " is not code object v5 (3) or v6 (4)"));
  if (header->e_type != ET_DYN)
    return bad("not a shared object (link the object with ld.lld -shared)");
  elf.Flags = header->e_flags;
  if (header->e_shentsize != sizeof(Elf64_Shdr) ||
      header->e_shnum > kMostSections || header->e_shnum == 0)
    return bad("bad section header table");
  auto sections = sliceAt(image, header->e_shoff,
                          uint64_t{header->e_shnum} * sizeof(Elf64_Shdr));
  if (!sections)
    return bad("its section headers are out of bounds");
  auto section = [&](uint64_t index) {
    return *readAt<Elf64_Shdr>(*sections, index * sizeof(Elf64_Shdr));
  };
  std::vector<std::span<const uint8_t>> notes;
  bool symbolsRead = false;
  for (uint64_t i = 0; i < header->e_shnum; ++i) {
    Elf64_Shdr current = section(i);
    if (current.sh_type == SHT_NOTE) {
      auto bytes = sliceAt(image, current.sh_offset, current.sh_size);
      if (!bytes)
        return bad("a note section is out of bounds");
      KILN_RETURN_IF_ERROR(scanNotes(*bytes, notes));
    } else if (current.sh_type == SHT_DYNSYM) {
      if (symbolsRead || current.sh_link >= header->e_shnum)
        return bad("bad dynamic symbol table");
      KILN_RETURN_IF_ERROR(readSymbols(image, current, section(current.sh_link),
                                       elf.DynamicSymbols));
      symbolsRead = true;
    }
  }
  if (notes.size() != 1)
    return bad(strCat(notes.size(), " NT_AMDGPU_METADATA notes (one is "
                                    "needed)"));
  elf.Metadata = notes.front();
  return elf;
}

} // namespace kiln::hal::amd
