//===- DeviceUriTest.cpp --------------------------------------------------===//

#include "runtime/hal/DeviceUri.h"

#include <gtest/gtest.h>

namespace kiln::hal {
namespace {

DeviceUri parseOk(std::string_view text) {
  StatusOr<DeviceUri> uri = DeviceUri::parse(text);
  EXPECT_TRUE(uri.ok()) << text << ": " << uri.status().toString();
  return uri.ok() ? std::move(uri).value() : DeviceUri::parse("x").value();
}

// Returns the error message, asserting the code and that it quotes `text`.
std::string parseError(std::string_view text) {
  StatusOr<DeviceUri> uri = DeviceUri::parse(text);
  EXPECT_FALSE(uri.ok()) << "accepted " << quoteForMessage(text);
  if (uri.ok())
    return "";
  EXPECT_EQ(uri.status().code(), StatusCode::InvalidArgument);
  std::string message(uri.status().message());
  EXPECT_NE(message.find(quoteForMessage(text)), std::string::npos) << message;
  return message;
}

TEST(DeviceUriTest, Bare) {
  DeviceUri uri = parseOk("local-task");
  EXPECT_EQ(uri.driver(), "local-task");
  EXPECT_EQ(uri.form(), DeviceUri::Form::Bare);
  EXPECT_EQ(uri.path(), "");
  EXPECT_FALSE(uri.ordinal());
  EXPECT_TRUE(uri.params().empty());
  EXPECT_EQ(uri.text(), "local-task");
}

TEST(DeviceUriTest, DriverNameCharacters) {
  EXPECT_EQ(parseOk("cuda").driver(), "cuda");
  EXPECT_EQ(parseOk("a_b-9").driver(), "a_b-9");
  parseError("Cuda");
  parseError("9cuda");
  parseError("-cuda");
  parseError("cu da");
  parseError("cuda!");
}

TEST(DeviceUriTest, Ordinal) {
  DeviceUri uri = parseOk("cuda:1");
  EXPECT_EQ(uri.form(), DeviceUri::Form::Ordinal);
  ASSERT_TRUE(uri.ordinal());
  EXPECT_EQ(*uri.ordinal(), 1u);
  EXPECT_EQ(*parseOk("cuda:0").ordinal(), 0u);
  EXPECT_EQ(*parseOk("cuda:4294967295").ordinal(), 4294967295u);
  EXPECT_NE(parseError("cuda:4294967296").find("too large"), std::string::npos);
  EXPECT_NE(parseError("cuda:").find("ordinal"), std::string::npos);
  parseError("cuda:-1");
  parseError("cuda:+1");
  parseError("cuda:1x");
  parseError("cuda:01");
  parseError("cuda: 1");
  parseError("cuda:/x");
}

TEST(DeviceUriTest, Path) {
  DeviceUri uri = parseOk("cuda://GPU-1234-abcd");
  EXPECT_EQ(uri.form(), DeviceUri::Form::Path);
  EXPECT_EQ(uri.path(), "GPU-1234-abcd");
  EXPECT_FALSE(uri.ordinal());
  DeviceUri empty = parseOk("local-sync://");
  EXPECT_EQ(empty.form(), DeviceUri::Form::Path);
  EXPECT_EQ(empty.path(), "");
  EXPECT_EQ(parseOk("x://a/b:c=d").path(), "a/b:c=d");
}

TEST(DeviceUriTest, PercentDecoding) {
  EXPECT_EQ(parseOk("x://a%20b%2Fc").path(), "a b/c");
  EXPECT_EQ(parseOk("x://?k=%3d%26").param("k"), "=&");
  parseError("x://a%2");
  parseError("x://a%zz");
  parseError("x://a%");
}

TEST(DeviceUriTest, Params) {
  DeviceUri uri = parseOk("local-task://?workers=4&unified=0");
  ASSERT_EQ(uri.params().size(), 2u);
  EXPECT_EQ(uri.params()[0].first, "workers");
  EXPECT_EQ(uri.params()[0].second, "4");
  EXPECT_EQ(uri.params()[1].first, "unified");
  EXPECT_EQ(uri.param("workers"), "4");
  EXPECT_FALSE(uri.param("absent"));
  // Parameters after a bare name or an ordinal.
  EXPECT_EQ(parseOk("local-task?workers=2").param("workers"), "2");
  DeviceUri ordinal = parseOk("cuda:3?stream_count=2");
  EXPECT_EQ(*ordinal.ordinal(), 3u);
  EXPECT_EQ(ordinal.param("stream_count"), "2");
  EXPECT_EQ(parseOk("x?k=").param("k"), "");
}

TEST(DeviceUriTest, MalformedParams) {
  EXPECT_NE(parseError("x?").find("empty parameter list"), std::string::npos);
  EXPECT_NE(parseError("x?a=1&").find("stray '&'"), std::string::npos);
  parseError("x?&a=1");
  parseError("x?a=1&&b=2");
  EXPECT_NE(parseError("x?novalue").find("no '=value'"), std::string::npos);
  parseError("x?=1");
  parseError("x?a b=1");
  parseError("x?a=1=2");
  parseError("x?a=1?b=2");
  EXPECT_NE(parseError("x?a=1&a=2").find("given twice"), std::string::npos);
}

TEST(DeviceUriTest, RejectsOddCharactersAndQuotesThemSafely) {
  parseError("");
  parseError("x://a b");
  parseError("x://a#frag");
  parseError("x?k=a b");
  std::string message = parseError(std::string_view("x://a\nb\x01", 8));
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_NE(message.find("\\x0a"), std::string::npos) << message;
  // Non-ASCII must be percent-encoded.
  parseError("x://\xc3\xa9");
  parseError("x:1:2");
  parseError("x:/");
  EXPECT_EQ(parseOk("x:///").path(), "/");
}

TEST(DeviceUriTest, LongInputIsCutInMessages) {
  std::string text = "x://" + std::string(1000, 'a') + " ";
  std::string message(DeviceUri::parse(text).status().message());
  EXPECT_LT(message.size(), 400u);
  EXPECT_NE(message.find("..."), std::string::npos);
}

TEST(DeviceUriTest, CheckParams) {
  DeviceUri uri = parseOk("local-task://?workers=4&colour=blue");
  EXPECT_TRUE(uri.checkParams({"workers", "colour"}).ok());
  Status status = uri.checkParams({"workers", "unified"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  std::string message(status.message());
  EXPECT_NE(message.find("unknown parameter 'colour'"), std::string::npos);
  EXPECT_NE(message.find("workers, unified"), std::string::npos);
  EXPECT_NE(parseOk("local-sync?a=1").checkParams({}).message().find("none"),
            std::string::npos);
}

TEST(DeviceUriTest, UintParam) {
  DeviceUri uri = parseOk("x?n=12&zero=0&big=18446744073709551615&"
                          "over=18446744073709551616&neg=-1&hex=0x10&empty=");
  auto value = uri.uintParam("n", 1, 100);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(**value, 12u);
  auto absent = uri.uintParam("absent", 1, 100);
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(*absent);
  EXPECT_EQ(uri.uintParam("zero", 1, 100).status().code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(**uri.uintParam("big", 0, UINT64_MAX), UINT64_MAX);
  EXPECT_FALSE(uri.uintParam("over", 0, UINT64_MAX).ok());
  EXPECT_FALSE(uri.uintParam("neg", 0, 100).ok());
  EXPECT_FALSE(uri.uintParam("hex", 0, 100).ok());
  EXPECT_FALSE(uri.uintParam("empty", 0, 100).ok());
  std::string message(uri.uintParam("n", 1, 10).status().message());
  EXPECT_NE(message.find("[1, 10]"), std::string::npos) << message;
}

TEST(DeviceUriTest, BoolParam) {
  DeviceUri uri = parseOk("x?a=1&b=0&c=true&d=false&e=yes");
  EXPECT_TRUE(**uri.boolParam("a"));
  EXPECT_FALSE(**uri.boolParam("b"));
  EXPECT_TRUE(**uri.boolParam("c"));
  EXPECT_FALSE(**uri.boolParam("d"));
  EXPECT_FALSE(*uri.boolParam("absent"));
  EXPECT_EQ(uri.boolParam("e").status().code(), StatusCode::InvalidArgument);
}

} // namespace
} // namespace kiln::hal
