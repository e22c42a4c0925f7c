//===- InvocationIoTest.cpp -----------------------------------------------===//

#include "runtime/tooling/InvocationIo.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/Npy.h"
#include "runtime/tooling/TensorParser.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <unistd.h>

namespace kiln::tooling {
namespace {

module::FunctionSignature addSignature() {
  module::FunctionSignature signature;
  signature.Name = "add";
  signature.Inputs = {{ElementType::F32, {4}}, {ElementType::I32, {2, 2}}};
  signature.Outputs = {{ElementType::F32, {4}}, {ElementType::I8, {}}};
  return signature;
}

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "kiln_invocation_io_" +
         std::to_string(::getpid()) + "_" + name;
}

TEST(InvocationIoTest, SignatureString) {
  EXPECT_EQ(signatureString(addSignature()), "(4xf32, 2x2xi32) -> (4xf32, i8)");
}

TEST(InvocationIoTest, ParsesMatchingInputs) {
  auto inputs =
      parseInputs({"4xf32=[1 2 3 4]", "2x2xi32=[[5 6][7 -8]]"}, addSignature());
  ASSERT_TRUE(inputs.ok()) << inputs.status().toString();
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_EQ((*inputs)[1].Shape, (std::vector<int64_t>{2, 2}));
  int32_t last;
  std::memcpy(&last, (*inputs)[1].Data.data() + 12, 4);
  EXPECT_EQ(last, -8);
}

TEST(InvocationIoTest, InputCountMismatch) {
  auto inputs = parseInputs({"4xf32=0"}, addSignature());
  ASSERT_FALSE(inputs.ok());
  EXPECT_NE(inputs.status().toString().find(
                "function 'add' takes 2 inputs (4xf32, 2x2xi32) but 1 "
                "--input flags were given"),
            std::string::npos)
      << inputs.status().toString();
}

TEST(InvocationIoTest, InputTypeAndShapeMismatch) {
  auto wrongType = parseInputs({"4xf32=0", "2x2xf32=0"}, addSignature());
  ASSERT_FALSE(wrongType.ok());
  EXPECT_NE(wrongType.status().toString().find(
                "input 1 of function 'add' must be 2x2xi32, but "
                "--input='2x2xf32=0' is 2x2xf32"),
            std::string::npos)
      << wrongType.status().toString();
  auto wrongShape = parseInputs({"2x2xf32=0", "2x2xi32=0"}, addSignature());
  ASSERT_FALSE(wrongShape.ok());
  EXPECT_NE(wrongShape.status().toString().find("input 0 of function 'add' "
                                                "must be 4xf32"),
            std::string::npos);
  auto malformed = parseInputs({"4xf32=[1 2]", "2x2xi32=0"}, addSignature());
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.status().toString().find("expected 4 values"),
            std::string::npos);
}

TEST(InvocationIoTest, InputFromNpy) {
  auto tensor = parseTensor("2x2xi32=[[1 2][3 4]]");
  ASSERT_TRUE(tensor.ok());
  std::string path = tempPath("in.npy");
  ASSERT_TRUE(writeNpy(path, *tensor).ok());
  auto inputs = parseInputs({"4xf32=0", "@" + path}, addSignature());
  std::remove(path.c_str());
  ASSERT_TRUE(inputs.ok()) << inputs.status().toString();
  EXPECT_EQ((*inputs)[1].Data, tensor->Data);
}

// Each input's type is checked against the signature before its data is
// allocated, filled or read: a 1 GiB splat or .npy file for a 4xf32 input
// fails at once, and the message names the input and both types.
TEST(InvocationIoTest, WrongTypeFailsBeforeAllocating) {
  uint64_t before = peakResidentBytes();
  auto splat =
      parseInputs({"256x1024x1024xf32=0", "2x2xi32=0"}, addSignature());
  ASSERT_FALSE(splat.ok());
  EXPECT_NE(splat.status().toString().find(
                "INVALID_ARGUMENT: input 0 of function 'add' must be 4xf32, "
                "but --input='256x1024x1024xf32=0' is 256x1024x1024xf32"),
            std::string::npos)
      << splat.status().toString();
  // The type is wrong before the values are: that is what is reported.
  auto malformed =
      parseInputs({"4xf32=0", "65536x16384xi32=[1 2"}, addSignature());
  ASSERT_FALSE(malformed.ok());
  EXPECT_NE(malformed.status().toString().find(
                "input 1 of function 'add' must be 2x2xi32, but "
                "--input='65536x16384xi32=[1 2' is 65536x16384xi32"),
            std::string::npos)
      << malformed.status().toString();

  // A 1 GiB .npy file (sparse, so free to make).
  std::string path = tempPath("large.npy");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(16384, 16384), }\n";
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, file);
  std::fputc(static_cast<int>(header.size()), file);
  std::fputc(0, file);
  std::fputs(header.c_str(), file);
  ASSERT_EQ(::ftruncate(::fileno(file),
                        static_cast<off_t>(10 + header.size() + (1u << 30))),
            0);
  std::fclose(file);
  auto npy = parseInputs({"@" + path, "2x2xi32=0"}, addSignature());
  std::remove(path.c_str());
  ASSERT_FALSE(npy.ok());
  EXPECT_NE(npy.status().toString().find(
                "input 0 of function 'add' must be 4xf32, but --input='@" +
                path + "' is 16384x16384xf32"),
            std::string::npos)
      << npy.status().toString();
  EXPECT_LT(peakResidentBytes() - before, uint64_t(64) << 20);
}

TEST(InvocationIoTest, OutputTargets) {
  auto targets = parseOutputTargets({"@out.npy"}, addSignature());
  ASSERT_TRUE(targets.ok());
  ASSERT_EQ(targets->size(), 2u);
  EXPECT_EQ((*targets)[0].TargetKind, OutputTarget::Kind::Npy);
  EXPECT_EQ((*targets)[0].Path, "out.npy");
  EXPECT_EQ((*targets)[1].TargetKind, OutputTarget::Kind::Print);
  targets = parseOutputTargets({"", "-"}, addSignature());
  ASSERT_TRUE(targets.ok());
  EXPECT_EQ((*targets)[0].TargetKind, OutputTarget::Kind::Ignore);
  EXPECT_EQ((*targets)[1].TargetKind, OutputTarget::Kind::Print);

  auto tooMany = parseOutputTargets({"-", "-", "-"}, addSignature());
  ASSERT_FALSE(tooMany.ok());
  EXPECT_NE(tooMany.status().toString().find(
                "3 --output flags were given but function 'add' has 2 "
                "outputs (4xf32, i8)"),
            std::string::npos);
  for (const char *bad : {"out.npy", "@"}) {
    auto invalid = parseOutputTargets({bad}, addSignature());
    ASSERT_FALSE(invalid.ok()) << bad;
    EXPECT_NE(invalid.status().toString().find("invalid --output"),
              std::string::npos);
  }
}

TEST(InvocationIoTest, EmitOutputs) {
  auto first = parseTensor("4xf32=[3 4 5 6]");
  auto second = parseTensor("i8=-3");
  ASSERT_TRUE(first.ok() && second.ok());
  std::vector<HostTensor> results = {*first, *second};

  std::ostringstream printed;
  ASSERT_TRUE(emitOutputs(results, {}, printed).ok());
  EXPECT_EQ(printed.str(), "4xf32=3 4 5 6\ni8=-3\n");

  std::string path = tempPath("out.npy");
  std::ostringstream rest;
  OutputTarget npy{OutputTarget::Kind::Npy, path};
  OutputTarget ignore{OutputTarget::Kind::Ignore, ""};
  ASSERT_TRUE(emitOutputs(results, {npy, ignore}, rest).ok());
  EXPECT_EQ(rest.str(), "");
  auto written = readNpy(path);
  std::remove(path.c_str());
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(written->Data, first->Data);

  OutputTarget unwritable{OutputTarget::Kind::Npy, "/nonexistent/dir/o.npy"};
  Status status = emitOutputs(results, {unwritable}, rest);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("output 0: cannot create npy file"),
            std::string::npos)
      << status.toString();
}

TEST(CommonFlagsTest, FunctionGiven) {
  for (bool given : {false, true}) {
    CommonFlags flags;
    FlagParser parser("t", "s");
    registerCommonFlags(parser, flags, true);
    std::vector<const char *> argv = {"t", "--module=m.kiln", "--input=f32=1",
                                      "--input", "f32=2"};
    if (given)
      argv.push_back("--function=");
    ASSERT_TRUE(parseCommonFlags(parser, flags, static_cast<int>(argv.size()),
                                 argv.data())
                    .ok());
    EXPECT_EQ(flags.FunctionGiven, given);
    EXPECT_EQ(flags.Module, "m.kiln");
    EXPECT_EQ(flags.Device, "local-task");
    EXPECT_EQ(flags.Inputs, (std::vector<std::string>{"f32=1", "f32=2"}));
  }
}

} // namespace
} // namespace kiln::tooling
