//===- ModuleLoaderFuzzer.cpp - Module bytes through load and verification ===//
//
// What kiln-run-module --module= does with a file before it creates a
// device: the envelope check (first and last bytes), the checksum, the
// flatbuffers verifier and the semantic checks (ModuleFile::fromBytes). A
// module that verifies must keep every promise of Verifier.h, as the tests'
// independent re-check (TestModule.h) sees it, and is then described by
// kiln-dump-module's code, which trusts those promises.
//
// An input is a module without its 16-byte checksum footer (the corpus holds
// such; scripts/fuzz-module-seeds.sh makes them). The target appends a
// matching footer, as a hostile writer would, so mutations reach the
// flatbuffers verifier and the semantic checks instead of stopping at the
// checksum; it also loads the input as it is, which covers the envelope and
// checksum checks on arbitrary bytes. Instantiating a module is left out: it
// loads the executables' images as shared objects.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzCheck.h"
#include "runtime/module/ModuleFile.h"
#include "runtime/module/TestModule.h"
#include "runtime/tooling/ModuleDump.h"
#include "schema/ModuleChecksum.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

void loadAndDescribe(const uint8_t *data, size_t size) {
  auto file = kiln::module::ModuleFile::fromBytes(data, size);
  if (!file.ok())
    return;
  std::string broken =
      kiln::module::test::checkVerifiedModule((*file)->data(), (*file)->size());
  KILN_FUZZ_CHECK(broken.empty(),
                  ("a verified module keeps the verifier's promises; "
                   "broken: " +
                   broken)
                      .c_str());
  kiln::tooling::dumpModule(**file);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  loadAndDescribe(data, size);
  std::vector<uint8_t> withFooter(data, data + size);
  kiln::schema::appendModuleChecksum(withFooter);
  loadAndDescribe(withFooter.data(), withFooter.size());
  return 0;
}
