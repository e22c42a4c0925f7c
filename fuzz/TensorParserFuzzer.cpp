//===- TensorParserFuzzer.cpp - --input strings through the parser --------===//
//
// An input is the text of one --input flag. The type check stands in for a
// function signature: as a signature refuses a type it does not take, it
// refuses tensors over 64 KiB, so what the fuzzer finds is the parser's
// doing rather than the size of a splat it asked for. Strings with an '@'
// are skipped, since one in front names a file: the .npy reader has a
// target of its own, and a fuzzer must not read whatever files its
// mutations name.
//
// A parsed tensor must print (as kiln-run-module prints results) in a form
// the parser reads back to the same type and shape, and, for integers and
// booleans, to the same values.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzCheck.h"
#include "runtime/tooling/TensorFormat.h"
#include "runtime/tooling/TensorParser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using kiln::ElementType;
using kiln::Status;
using kiln::tooling::ParsedTensorType;

constexpr uint64_t kMaxTensorBytes = 64 << 10;

Status refuseLargeTensors(const ParsedTensorType &type) {
  auto size = kiln::tooling::tensorByteSize(type.Shape, type.Type);
  if (!size.ok())
    return size.status();
  if (*size > kMaxTensorBytes)
    return KILN_ERROR(InvalidArgument, "larger than the fuzz limit");
  return Status();
}

bool isExact(ElementType type) {
  switch (type) {
  case ElementType::F32:
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::F64:
    return false;
  default:
    return true;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (text.find('@') != std::string_view::npos)
    return 0;
  auto tensor = kiln::tooling::parseTensor(text, refuseLargeTensors);
  if (!tensor.ok())
    return 0;
  std::string printed = kiln::tooling::formatTensor(*tensor);
  auto reread = kiln::tooling::parseTensor(printed);
  KILN_FUZZ_CHECK(
      reread.ok(),
      ("a printed tensor parses: " + reread.status().toString()).c_str());
  KILN_FUZZ_CHECK(reread->Type == tensor->Type &&
                      reread->Shape == tensor->Shape,
                  "a printed tensor reads back to its type and shape");
  if (isExact(tensor->Type))
    KILN_FUZZ_CHECK(reread->Data == tensor->Data,
                    "printed integers read back to the same values");
  return 0;
}
