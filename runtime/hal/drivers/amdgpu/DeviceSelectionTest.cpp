//===- DeviceSelectionTest.cpp --------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/DeviceSelection.h"

#include <gtest/gtest.h>

namespace kiln::hal::amdgpu {
namespace {

const std::vector<std::string> kGpus = {
    "GPU-aaaa000000000001", "GPU-bbbb000000000002", "GPU-cccc000000000003"};

StatusOr<std::vector<uint32_t>> select(const char *text) {
  auto uri = DeviceUri::parse(text);
  if (!uri.ok())
    return uri.status();
  return selectGpus(*uri, kGpus);
}

using Indices = std::vector<uint32_t>;

TEST(DeviceSelectionTest, EveryForm) {
  EXPECT_EQ(*select("amdgpu"), Indices{0});
  EXPECT_EQ(*select("amdgpu://"), Indices{0});
  EXPECT_EQ(*select("amdgpu:2"), Indices{2});
  EXPECT_EQ(*select("amdgpu://GPU-bbbb000000000002"), Indices{1});
  EXPECT_EQ(*select("amdgpu://GPU-cccc000000000003,GPU-aaaa000000000001"),
            (Indices{2, 0}));
  EXPECT_EQ(*select("amdgpu://0,1"), (Indices{0, 1}));
  EXPECT_EQ(*select("amdgpu://2,GPU-aaaa000000000001?queues=1"),
            (Indices{2, 0}));
}

TEST(DeviceSelectionTest, BadListsAreOneLineErrors) {
  auto expect = [](const char *text, StatusCode code, const char *what) {
    auto chosen = select(text);
    ASSERT_FALSE(chosen.ok()) << text;
    EXPECT_EQ(chosen.status().code(), code) << chosen.status().toString();
    EXPECT_NE(chosen.status().message().find(what), std::string::npos)
        << chosen.status().toString();
    EXPECT_EQ(chosen.status().message().find('\n'), std::string::npos);
  };
  expect("amdgpu:3", StatusCode::NotFound, "there is no GPU 3");
  expect("amdgpu://0,3", StatusCode::NotFound, "3 AMD GPU(s) present");
  expect("amdgpu://GPU-ffff", StatusCode::NotFound, "no AMD GPU has UUID");
  expect("amdgpu://0,0", StatusCode::InvalidArgument, "twice");
  expect("amdgpu://0,,1", StatusCode::InvalidArgument, "empty item");
  expect("amdgpu://0,", StatusCode::InvalidArgument, "empty item");
  expect("amdgpu://gpu0", StatusCode::InvalidArgument, "neither");
  expect("amdgpu://99999999999999999999", StatusCode::InvalidArgument,
         "neither");
}

TEST(DeviceSelectionTest, NoGpuSaysSo) {
  auto uri = DeviceUri::parse("amdgpu");
  ASSERT_TRUE(uri.ok());
  auto chosen = selectGpus(*uri, {});
  ASSERT_FALSE(chosen.ok());
  EXPECT_NE(chosen.status().message().find("no AMD GPU is present"),
            std::string::npos);
}

} // namespace
} // namespace kiln::hal::amdgpu
