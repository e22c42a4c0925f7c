//===- StatusTest.cpp -----------------------------------------------------===//

#include "runtime/base/Status.h"

#include <gtest/gtest.h>

#include <memory>

namespace kiln {
namespace {

TEST(StatusTest, OkStatus) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::Ok);
  EXPECT_EQ(ok.message(), "");
  EXPECT_EQ(ok.toString(), "OK");
  // An OK code never carries a payload.
  Status alsoOk(StatusCode::Ok, "ignored", "f.cpp", 1);
  EXPECT_TRUE(alsoOk.ok());
  EXPECT_EQ(alsoOk.message(), "");
}

TEST(StatusTest, ErrorCarriesCodeMessageAndOrigin) {
  int line = __LINE__ + 1;
  Status error = KILN_ERROR(InvalidArgument, "bad rank ", 3, " for ", "x");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(error.message(), "bad rank 3 for x");
  EXPECT_EQ(error.line(), line);
  // -fmacro-prefix-map makes origins repo-relative.
  EXPECT_EQ(std::string(error.file()), "runtime/base/StatusTest.cpp");
  EXPECT_EQ(error.toString(),
            "INVALID_ARGUMENT: bad rank 3 for x [runtime/base/StatusTest.cpp:" +
                std::to_string(line) + "]");
}

TEST(StatusTest, ToStringIsOneLine) {
  Status error(StatusCode::DataLoss, "line one\nline two\r", "f.cpp", 7);
  EXPECT_EQ(error.toString(), "DATA_LOSS: line one line two  [f.cpp:7]");
}

TEST(StatusTest, CodeNames) {
  EXPECT_STREQ(statusCodeName(StatusCode::ResourceExhausted),
               "RESOURCE_EXHAUSTED");
  EXPECT_STREQ(statusCodeName(StatusCode::DeadlineExceeded),
               "DEADLINE_EXCEEDED");
  EXPECT_STREQ(statusCodeName(StatusCode::OutOfRange), "OUT_OF_RANGE");
  EXPECT_STREQ(statusCodeName(static_cast<StatusCode>(99)), "UNKNOWN");
}

TEST(StatusTest, AnnotateDoesNotAffectCopies) {
  Status original = KILN_ERROR(NotFound, "no such file");
  Status copy = original;
  copy.annotate("loading model");
  EXPECT_EQ(copy.message(), "loading model: no such file");
  EXPECT_EQ(copy.code(), StatusCode::NotFound);
  EXPECT_EQ(copy.line(), original.line());
  EXPECT_EQ(original.message(), "no such file");
  Status ok;
  ok.annotate("context");
  EXPECT_TRUE(ok.ok());
}

StatusOr<int> half(int value) {
  if (value % 2)
    return KILN_ERROR(InvalidArgument, value, " is odd");
  return value / 2;
}

Status quarter(int value, int *out) {
  KILN_ASSIGN_OR_RETURN(int h, half(value));
  KILN_ASSIGN_OR_RETURN(*out, half(h));
  return Status();
}

Status failIfNegative(int value) {
  if (value < 0)
    return KILN_ERROR(OutOfRange, "negative");
  return Status();
}

Status checkBoth(int a, int b) {
  KILN_RETURN_IF_ERROR(failIfNegative(a));
  KILN_RETURN_IF_ERROR(failIfNegative(b));
  return Status();
}

TEST(StatusOrTest, ValueAndError) {
  StatusOr<int> value = half(8);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 4);
  StatusOr<int> error = half(7);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(), "7 is odd");
}

TEST(StatusOrTest, Macros) {
  int out = 0;
  EXPECT_TRUE(quarter(12, &out).ok());
  EXPECT_EQ(out, 3);
  Status status = quarter(6, &out); // 6 -> 3 -> odd
  EXPECT_EQ(status.message(), "3 is odd");
  EXPECT_TRUE(checkBoth(1, 2).ok());
  EXPECT_EQ(checkBoth(1, -2).code(), StatusCode::OutOfRange);
}

TEST(StatusOrTest, MoveOnlyAndConvertibleValues) {
  StatusOr<std::unique_ptr<int>> owned = std::make_unique<int>(5);
  ASSERT_TRUE(owned.ok());
  std::unique_ptr<int> taken = std::move(owned).value();
  EXPECT_EQ(*taken, 5);
  // Derived-to-base conversion, as drivers return concrete objects.
  struct Base {
    virtual ~Base() = default;
  };
  struct Derived : Base {};
  StatusOr<std::shared_ptr<Base>> base = std::make_shared<Derived>();
  EXPECT_TRUE(base.ok());
  StatusOr<std::string> text = "literal";
  EXPECT_EQ(*text, "literal");
}

} // namespace
} // namespace kiln
