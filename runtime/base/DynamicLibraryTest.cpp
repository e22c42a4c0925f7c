//===- DynamicLibraryTest.cpp ---------------------------------------------===//

#include "runtime/base/DynamicLibrary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace kiln {
namespace {

// A real shared object built by CMake (runtime/hal/cts/kernels): add_f32
// and friends in the CPU entry point ABI.
std::vector<uint8_t> readKernels() {
  std::ifstream file(KILN_CTS_KERNELS_PATH, std::ios::binary);
  EXPECT_TRUE(file) << KILN_CTS_KERNELS_PATH;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

using AddF32 = void (*)(void *const *, const uint32_t *, uint32_t, uint32_t,
                        uint32_t);

void expectAddWorks(const DynamicLibrary &library) {
  auto symbol = library.symbol("add_f32");
  ASSERT_TRUE(symbol.ok()) << symbol.status().toString();
  auto add = reinterpret_cast<AddF32>(*symbol);
  float a[3] = {1.5f, -2.0f, 8.25f}, b[3] = {0.25f, 7.0f, -1.0f}, out[3] = {};
  void *bindings[3] = {a, b, out};
  uint32_t push[2] = {3, 2}; // 3 elements, 2 per workgroup
  add(bindings, push, 0, 0, 0);
  add(bindings, push, 1, 0, 0);
  EXPECT_EQ(out[0], 1.75f);
  EXPECT_EQ(out[1], 5.0f);
  EXPECT_EQ(out[2], 7.25f);
}

TEST(DynamicLibraryTest, OpenByPath) {
  auto library = DynamicLibrary::open(KILN_CTS_KERNELS_PATH);
  ASSERT_TRUE(library.ok()) << library.status().toString();
  expectAddWorks(**library);
}

TEST(DynamicLibraryTest, OpenFromMemory) {
  std::vector<uint8_t> image = readKernels();
  ASSERT_FALSE(image.empty());
  auto library = DynamicLibrary::openFromMemory(image, "cts-kernels");
  ASSERT_TRUE(library.ok()) << library.status().toString();
  // The caller may drop its bytes right away.
  std::fill(image.begin(), image.end(), 0);
  EXPECT_EQ((*library)->name(), "cts-kernels");
  expectAddWorks(**library);
}

TEST(DynamicLibraryTest, TwoCopiesFromMemoryAreIndependent) {
  std::vector<uint8_t> image = readKernels();
  auto first = DynamicLibrary::openFromMemory(image, "first");
  auto second = DynamicLibrary::openFromMemory(image, "second");
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(*(*first)->symbol("add_f32"), *(*second)->symbol("add_f32"));
  first->reset();
  expectAddWorks(**second);
}

TEST(DynamicLibraryTest, MissingSymbolNamesItAndTheLibrary) {
  auto library = DynamicLibrary::openFromMemory(readKernels(), "my-kernels");
  ASSERT_TRUE(library.ok());
  auto symbol = (*library)->symbol("no_such_kernel");
  ASSERT_FALSE(symbol.ok());
  EXPECT_EQ(symbol.status().code(), StatusCode::NotFound);
  std::string message(symbol.status().message());
  EXPECT_NE(message.find("'no_such_kernel'"), std::string::npos) << message;
  EXPECT_NE(message.find("my-kernels"), std::string::npos) << message;
  EXPECT_EQ(message.find("/proc/self/fd"), std::string::npos) << message;
}

TEST(DynamicLibraryTest, MissingFileIsNotFound) {
  auto library = DynamicLibrary::open("/nonexistent/libkiln-nothing.so");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::NotFound);
  EXPECT_NE(library.status().message().find("libkiln-nothing.so"),
            std::string_view::npos);
}

TEST(DynamicLibraryTest, GarbageImagesAreErrors) {
  std::vector<uint8_t> notElf(256, 0x5a);
  auto library = DynamicLibrary::openFromMemory(notElf, "garbage");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(library.status().message().find("not an ELF"),
            std::string_view::npos);
  EXPECT_FALSE(DynamicLibrary::openFromMemory({}, "empty").ok());

  // An ELF header with nothing sensible behind it, and a truncated image:
  // dlopen's own error, attributed to the image name.
  std::vector<uint8_t> image = readKernels();
  std::vector<uint8_t> truncated(image.begin(), image.begin() + 200);
  auto broken = DynamicLibrary::openFromMemory(truncated, "truncated-image");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("truncated-image"),
            std::string_view::npos)
      << broken.status().toString();
  EXPECT_EQ(broken.status().message().find("/proc/self/fd"),
            std::string_view::npos)
      << broken.status().toString();
}

} // namespace
} // namespace kiln
