//===- CommonFlagsTest.cpp - The run and benchmark tools' flags -----------===//

#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/ToolSession.h"

#include <gtest/gtest.h>

namespace kiln::tooling {
namespace {

using Strings = std::vector<std::string>;

class CommonFlagsParseTest : public ::testing::Test {
protected:
  CommonFlagsParseTest() : Parser("tool [flags]", "Runs a function.") {
    registerCommonFlags(Parser, Flags, /*unmatchedOutputsPrinted=*/true);
  }

  Status parse(std::vector<const char *> args) {
    args.insert(args.begin(), "tool");
    return parseCommonFlags(Parser, Flags, static_cast<int>(args.size()),
                            args.data());
  }

  CommonFlags Flags;
  FlagParser Parser;
};

TEST_F(CommonFlagsParseTest, IreeCudaNoteSpellingsAreAliases) {
  // As IREE's CUDA design note writes them.
  ASSERT_TRUE(parse({"-module_file=/tmp/add.kiln", "-driver=cuda",
                     "-entry_function=add",
                     "--function_inputs=4xf32=[1 2 3 4], 4xf32=[2 2 2 2]"})
                  .ok());
  EXPECT_EQ(Flags.Module, "/tmp/add.kiln");
  EXPECT_EQ(Flags.Device, "cuda");
  EXPECT_EQ(Flags.Function, "add");
  EXPECT_TRUE(Flags.FunctionGiven);
  EXPECT_EQ(Flags.Inputs, (Strings{"4xf32=[1 2 3 4]", "4xf32=[2 2 2 2]"}));
}

TEST_F(CommonFlagsParseTest, FunctionInputsAndInputKeepCommandLineOrder) {
  ASSERT_TRUE(
      parse({"--input=f32=1", "--function_inputs=f32=2,f32=3", "--input=f32=4"})
          .ok());
  EXPECT_EQ(Flags.Inputs, (Strings{"f32=1", "f32=2", "f32=3", "f32=4"}));
}

TEST_F(CommonFlagsParseTest, EmptyFunctionInputsIsAnErrorNamingTheFlag) {
  Status status = parse({"--function_inputs=f32=1,,f32=2"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --function_inputs: input 1 of the "
                                   "list is empty"),
            std::string::npos)
      << status.toString();
}

TEST_F(CommonFlagsParseTest, LibraryPathFlagsBecomeDriverOptions) {
  ASSERT_TRUE(parse({}).ok());
  EXPECT_TRUE(Flags.DriverOptions.empty());
  ASSERT_TRUE(parse({"--amdgpu_libhsa_search_path=/opt/rocm/lib",
                     "--hip_dylib_path=/opt/rocm/lib/libamdhip64.so"})
                  .ok());
  using Option = std::tuple<std::string, std::string, std::string>;
  EXPECT_EQ(Flags.DriverOptions,
            (std::vector<Option>{
                {"amdgpu", "libhsa_search_path", "/opt/rocm/lib"},
                {"hip", "dylib_path", "/opt/rocm/lib/libamdhip64.so"}}));
}

TEST_F(CommonFlagsParseTest, PrintStatisticsIsOffUnlessAsked) {
  ASSERT_TRUE(parse({}).ok());
  EXPECT_FALSE(Flags.PrintStatistics);
  ASSERT_TRUE(parse({"--print_statistics"}).ok());
  EXPECT_TRUE(Flags.PrintStatistics);
  EXPECT_NE(Parser.helpText().find("--print_statistics"), std::string::npos);
}

TEST_F(CommonFlagsParseTest, CudaUseStreamsChoosesTheCommandBufferKind) {
  ASSERT_TRUE(parse({}).ok());
  EXPECT_EQ(Flags.CudaCommandBuffers, "");
  ASSERT_TRUE(parse({"--cuda_use_streams"}).ok());
  EXPECT_EQ(Flags.CudaCommandBuffers, "stream");
  ASSERT_TRUE(parse({"--cuda_use_streams=false"}).ok());
  EXPECT_EQ(Flags.CudaCommandBuffers, "graph");
}

TEST_F(CommonFlagsParseTest, CudaUseStreamsBecomesTheUriParameter) {
  auto device = [&](std::vector<const char *> args) -> std::string {
    EXPECT_TRUE(parse(args).ok());
    StatusOr<std::string> uri = deviceUriWithFlags(Flags);
    return uri.ok() ? *uri : uri.status().toString();
  };
  EXPECT_EQ(device({"--device=cuda"}), "cuda");
  EXPECT_EQ(device({"--device=cuda", "--cuda_use_streams"}),
            "cuda?command_buffers=stream");
  EXPECT_EQ(device({"--device=cuda:1", "--cuda_use_streams=false"}),
            "cuda:1?command_buffers=graph");
  EXPECT_EQ(device({"--device=cuda://?queues=1", "--cuda_use_streams"}),
            "cuda://?queues=1&command_buffers=stream");
  // The URI's own choice stays; other drivers have no such parameter.
  EXPECT_EQ(
      device({"--device=cuda://?command_buffers=graph", "--cuda_use_streams"}),
      "cuda://?command_buffers=graph");
  EXPECT_EQ(device({"--device=local-task", "--cuda_use_streams"}),
            "local-task");
}

TEST_F(CommonFlagsParseTest, HelpNamesEveryAlias) {
  std::string help = Parser.helpText();
  for (const char *alias :
       {"--driver=<value>", "--module_file=<value>", "--entry_function=<value>",
        "--function_inputs=<value>", "--cuda_use_streams", "single dash"})
    EXPECT_NE(help.find(alias), std::string::npos) << alias << "\n" << help;
}

TEST(SplitInputListTest, SplitsOnlyOutsideBrackets) {
  auto split = splitInputList(
      " 2x2xf32=[[1, 2][3, 4]] ,f32=5,@in.npy,\t4xi8=[1 2 3 4]\n");
  ASSERT_TRUE(split.ok()) << split.status().toString();
  EXPECT_EQ(*split, (Strings{"2x2xf32=[[1, 2][3, 4]]", "f32=5", "@in.npy",
                             "4xi8=[1 2 3 4]"}));
}

TEST(SplitInputListTest, BlankIsNoInputs) {
  auto split = splitInputList("  ");
  ASSERT_TRUE(split.ok()) << split.status().toString();
  EXPECT_TRUE(split->empty());
}

TEST(SplitInputListTest, EmptyPiecesAreErrors) {
  for (const char *text : {",f32=1", "f32=1,", "f32=1, ,f32=2"}) {
    auto split = splitInputList(text);
    ASSERT_FALSE(split.ok()) << text;
    EXPECT_EQ(split.status().code(), StatusCode::InvalidArgument);
  }
}

TEST(SplitInputListTest, BracketsThatDoNotBalanceStayInTheirInput) {
  // The tensor parser reports these; the split must not hide them.
  auto split = splitInputList("4xf32=[1 2 3 4]], f32=1");
  ASSERT_TRUE(split.ok()) << split.status().toString();
  EXPECT_EQ(*split, (Strings{"4xf32=[1 2 3 4]]", "f32=1"}));
  split = splitInputList("4xf32=[1 2 3 4, f32=1");
  ASSERT_TRUE(split.ok()) << split.status().toString();
  EXPECT_EQ(*split, Strings{"4xf32=[1 2 3 4, f32=1"});
}

} // namespace
} // namespace kiln::tooling
