//===- VendorLibraryTest.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/gpu/VendorLibrary.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace kiln::hal::gpu {
namespace {

VendorLibrarySearch searchFor(std::string soname) {
  VendorLibrarySearch search;
  search.What = "test library";
  search.EnvVariable = "KILN_VENDOR_LIBRARY_TEST_PATH";
  search.Sonames = {std::move(soname)};
  search.Hint = "point --test_path= at it";
  return search;
}

TEST(VendorLibraryTest, FindsASonameThroughTheLoader) {
  auto library = openVendorLibrary(searchFor("libm.so.6"));
  ASSERT_TRUE(library.ok()) << library.status().toString();
  EXPECT_NE((*library)->loadedPath().find("libm.so.6"), std::string::npos);
  double (*cosine)(double) = nullptr;
  EXPECT_TRUE(loadRequiredSymbol(**library, "cos", cosine, "libm").ok());
  EXPECT_DOUBLE_EQ(cosine(0.0), 1.0);
  int (*absent)() = reinterpret_cast<int (*)()>(1);
  loadOptionalSymbol(**library, "kiln_no_such_symbol", absent);
  EXPECT_EQ(absent, nullptr);
  Status missing =
      loadRequiredSymbol(**library, "kiln_no_such_symbol", absent, "libm");
  EXPECT_EQ(missing.code(), StatusCode::Unavailable);
  EXPECT_NE(missing.message().find("libm is too old"), std::string::npos);
}

TEST(VendorLibraryTest, MissingLibraryGivesTheHint) {
  auto library = openVendorLibrary(searchFor("libkiln-no-such.so.1"));
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::Unavailable);
  EXPECT_NE(library.status().message().find("point --test_path= at it"),
            std::string::npos);
}

TEST(VendorLibraryTest, OverrideWinsAndIsNotSilentlyReplaced) {
  VendorLibrarySearch search = searchFor("libm.so.6");
  search.Override = "/nonexistent/folder/libm.so.6";
  auto library = openVendorLibrary(search);
  ASSERT_FALSE(library.ok());
  EXPECT_NE(library.status().message().find("/nonexistent/folder"),
            std::string::npos);
}

TEST(VendorLibraryTest, EnvironmentFolderIsSearchedForTheSonames) {
  ::setenv("KILN_VENDOR_LIBRARY_TEST_PATH", "/nonexistent-kiln-dir", 1);
  auto missing = openVendorLibrary(searchFor("libm.so.6"));
  ::unsetenv("KILN_VENDOR_LIBRARY_TEST_PATH");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("KILN_VENDOR_LIBRARY_TEST_PATH"),
            std::string::npos);
}

} // namespace
} // namespace kiln::hal::gpu
