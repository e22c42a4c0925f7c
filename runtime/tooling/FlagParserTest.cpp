//===- FlagParserTest.cpp -------------------------------------------------===//

#include "runtime/tooling/FlagParser.h"

#include <gtest/gtest.h>

namespace kiln::tooling {
namespace {

struct Options {
  std::string Module;
  std::string Device = "local-task";
  std::vector<std::string> Inputs;
  bool Help = false;
  int64_t Repetitions = 20;
};

class FlagParserTest : public ::testing::Test {
protected:
  FlagParserTest() : Parser("tool [flags]", "Does a thing.") {
    Parser.addString("module", &Opts.Module, "Module file.", "m.kiln");
    Parser.addString("device", &Opts.Device, "Device URI.", "local-sync");
    Parser.addList("input", &Opts.Inputs, "An input.", "4xf32=0");
    Parser.addBool("help", &Opts.Help, "Shows help.");
    Parser.addInt("reps", &Opts.Repetitions, 1, "Repetitions.", "5");
  }

  Status parse(std::vector<const char *> args) {
    args.insert(args.begin(), "tool");
    return Parser.parse(static_cast<int>(args.size()), args.data());
  }

  Options Opts;
  FlagParser Parser;
};

TEST_F(FlagParserTest, EqualsAndSpaceForms) {
  ASSERT_TRUE(parse({"--module=a.kiln", "--device", "local-sync", "--input",
                     "4xf32=1", "--input=2xi8=[1 2]", "--reps=7"})
                  .ok());
  EXPECT_EQ(Opts.Module, "a.kiln");
  EXPECT_EQ(Opts.Device, "local-sync");
  EXPECT_EQ(Opts.Inputs, (std::vector<std::string>{"4xf32=1", "2xi8=[1 2]"}));
  EXPECT_EQ(Opts.Repetitions, 7);
  EXPECT_TRUE(Parser.isSet("module"));
  EXPECT_TRUE(Parser.isSet("input"));
  EXPECT_FALSE(Parser.isSet("help"));
}

TEST_F(FlagParserTest, ValuesMayContainEqualsAndBeEmpty) {
  ASSERT_TRUE(parse({"--input=f32=5", "--input=", "--input", "-"}).ok());
  EXPECT_EQ(Opts.Inputs, (std::vector<std::string>{"f32=5", "", "-"}));
}

TEST_F(FlagParserTest, Booleans) {
  ASSERT_TRUE(parse({"--help"}).ok());
  EXPECT_TRUE(Opts.Help);
  ASSERT_TRUE(parse({"--help=false"}).ok());
  EXPECT_FALSE(Opts.Help);
  ASSERT_TRUE(parse({"-h"}).ok());
  EXPECT_TRUE(Opts.Help);
  Status status = parse({"--help=maybe"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --help takes true or false, got "
                                   "'maybe'"),
            std::string::npos);
}

TEST_F(FlagParserTest, UnknownFlagIsNamed) {
  Status status = parse({"--modul=x"});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.toString().find("unknown flag '--modul'"),
            std::string::npos);
  status = parse({"-modul=x"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("unknown flag '-modul'"), std::string::npos);
}

TEST_F(FlagParserTest, OneDashWorksLikeTwo) {
  ASSERT_TRUE(
      parse({"-module=a.kiln", "-device", "local-sync", "-input=f32=1", "-h"})
          .ok());
  EXPECT_EQ(Opts.Module, "a.kiln");
  EXPECT_EQ(Opts.Device, "local-sync");
  EXPECT_EQ(Opts.Inputs, std::vector<std::string>{"f32=1"});
  EXPECT_TRUE(Opts.Help);
  Status status = parse({"-reps=x"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag -reps takes an integer"),
            std::string::npos)
      << status.toString();
}

TEST_F(FlagParserTest, AliasesSetTheirTarget) {
  Parser.addAlias("module_file", "module");
  Parser.addAlias("driver", "device");
  ASSERT_TRUE(parse({"-module_file=b.kiln", "--driver", "cuda"}).ok());
  EXPECT_EQ(Opts.Module, "b.kiln");
  EXPECT_EQ(Opts.Device, "cuda");
  EXPECT_TRUE(Parser.isSet("module"));
  EXPECT_TRUE(Parser.isSet("device"));
  EXPECT_FALSE(Parser.isSet("module_file"));
  // Messages quote the spelling used.
  Status status = parse({"-module_file"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find(
                "flag -module_file needs a value (-module_file=m.kiln)"),
            std::string::npos)
      << status.toString();
}

TEST_F(FlagParserTest, AliasOfAnUnknownFlagMatchesNothing) {
  Parser.addAlias("nothing", "no_such_flag");
  Status status = parse({"--nothing=1"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("unknown flag '--nothing'"),
            std::string::npos);
  EXPECT_EQ(Parser.helpText().find("nothing"), std::string::npos);
}

TEST_F(FlagParserTest, SplittingAliasAppendsInOrder) {
  Parser.addSplittingAlias(
      "inputs", "input",
      [](std::string_view text) -> StatusOr<std::vector<std::string>> {
        if (text == "bad")
          return KILN_ERROR(InvalidArgument, "cannot split");
        std::vector<std::string> pieces;
        size_t start = 0;
        for (size_t comma;
             (comma = text.find(',', start)) != std::string_view::npos;
             start = comma + 1)
          pieces.emplace_back(text.substr(start, comma - start));
        pieces.emplace_back(text.substr(start));
        return pieces;
      },
      "comma-separated inputs.", "");
  ASSERT_TRUE(
      parse({"--input=a", "--inputs=b,c", "-input", "d", "-inputs", "e"}).ok());
  EXPECT_EQ(Opts.Inputs, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_TRUE(Parser.isSet("input"));
  Status status = parse({"--inputs=bad"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --inputs: cannot split"),
            std::string::npos)
      << status.toString();
}

TEST_F(FlagParserTest, KnownFlagsAreNotTakenAsValues) {
  Status status = parse({"--module", "-device=x"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --module needs a value"),
            std::string::npos);
  // Anything else starting with one dash is a value.
  ASSERT_TRUE(parse({"--module", "-not-a-flag"}).ok());
  EXPECT_EQ(Opts.Module, "-not-a-flag");
}

TEST_F(FlagParserTest, MissingValue) {
  Status status = parse({"--module"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --module needs a value "
                                   "(--module=m.kiln)"),
            std::string::npos)
      << status.toString();
  status = parse({"--module", "--device=x"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("needs a value"), std::string::npos);
}

TEST_F(FlagParserTest, Integers) {
  Status status = parse({"--reps=abc"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --reps takes an integer, got 'abc'"),
            std::string::npos);
  status = parse({"--reps", "0"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flag --reps must be >= 1, got 0"),
            std::string::npos);
  EXPECT_FALSE(parse({"--reps=99999999999999999999"}).ok());
  EXPECT_FALSE(parse({"--reps=5x"}).ok());
}

TEST_F(FlagParserTest, PositionalArguments) {
  Status status = parse({"file.kiln"});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("unexpected argument 'file.kiln'"),
            std::string::npos);
  std::vector<std::string> positional;
  Parser.allowPositional(&positional, "<module.kiln>");
  ASSERT_TRUE(parse({"a.kiln", "--reps=2", "--", "--not-a-flag", "-"}).ok());
  EXPECT_EQ(positional,
            (std::vector<std::string>{"a.kiln", "--not-a-flag", "-"}));
}

TEST_F(FlagParserTest, HelpListsEveryFlagWithExampleAndDefault) {
  std::string help = Parser.helpText();
  EXPECT_EQ(help.find("Usage: tool [flags]"), 0u);
  for (const char *needle :
       {"--module=<value>", "e.g. --module=m.kiln", "--device=<value>",
        "Default: local-task.", "--input=<value>", "Repeatable.",
        "e.g. --input=4xf32=0", "--help ", "--reps=<value>", "Default: 20."})
    EXPECT_NE(help.find(needle), std::string::npos) << needle << "\n" << help;
  size_t lineStart = 0;
  while (lineStart < help.size()) {
    size_t lineEnd = help.find('\n', lineStart);
    EXPECT_LE(lineEnd - lineStart, 80u) << help.substr(lineStart, 100);
    lineStart = lineEnd + 1;
  }
}

TEST_F(FlagParserTest, HelpListsAliasesUnderTheirFlag) {
  Parser.addAlias("module_file", "module");
  Parser.addAlias("halp", "help");
  Parser.addSplittingAlias(
      "inputs", "input",
      [](std::string_view) -> StatusOr<std::vector<std::string>> {
        return std::vector<std::string>{};
      },
      "several inputs, comma-separated.", "a,b");
  std::string help = Parser.helpText();
  size_t module = help.find("--module=<value>");
  size_t alias = help.find("Also spelled --module_file=<value>.");
  size_t device = help.find("--device=<value>");
  ASSERT_NE(alias, std::string::npos) << help;
  EXPECT_LT(module, alias);
  EXPECT_LT(alias, device);
  EXPECT_NE(help.find("Also spelled --halp."), std::string::npos) << help;
  EXPECT_NE(help.find("Also --inputs=<value>: several inputs,"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("e.g. --inputs=a,b\n"), std::string::npos) << help;
  EXPECT_NE(help.find("single dash"), std::string::npos) << help;
}

TEST(FlagParserHelpTest, ExamplesAreShellQuoted) {
  std::string value;
  FlagParser parser("t", "s");
  parser.addString("input", &value, "An input.", "4xf32=[1 2 3 4]");
  EXPECT_NE(parser.helpText().find("e.g. --input=\"4xf32=[1 2 3 4]\""),
            std::string::npos)
      << parser.helpText();
}

} // namespace
} // namespace kiln::tooling
