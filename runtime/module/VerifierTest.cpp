//===- VerifierTest.cpp ---------------------------------------------------===//

#include "runtime/module/Verifier.h"

#include "runtime/module/TestModule.h"
#include "schema/ModuleChecksum.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <new>
#include <random>

namespace kiln::module {
namespace {

using test::buildModule;
using test::checkVerifiedModule;
using test::ModuleSpec;
using test::range;
using test::validModuleSpec;
using SK = kiln::schema::StorageKind;
using StepKind = kiln::schema::StepKind;

// An exact-size, 64-byte aligned copy, so ASan flags any read past the end.
class AlignedCopy {
public:
  explicit AlignedCopy(const uint8_t *data, size_t size)
      : Data(static_cast<uint8_t *>(
            ::operator new[](size ? size : 1, std::align_val_t{64}))),
        Size(size) {
    if (size)
      std::memcpy(Data, data, size);
  }
  ~AlignedCopy() { ::operator delete[](Data, std::align_val_t{64}); }
  AlignedCopy(const AlignedCopy &) = delete;
  AlignedCopy &operator=(const AlignedCopy &) = delete;
  const uint8_t *data() const { return Data; }
  size_t size() const { return Size; }

private:
  uint8_t *Data;
  size_t Size;
};

Status verifyBytes(const uint8_t *data, size_t size) {
  AlignedCopy copy(data, size);
  Status status = verifyModule(copy.data(), copy.size());
  if (status.ok()) {
    // Whatever the verifier accepts must keep every promise it makes.
    std::string broken = checkVerifiedModule(copy.data(), copy.size());
    EXPECT_EQ(broken, "") << "verifier accepted a module that breaks: "
                          << broken;
  }
  return status;
}

Status verifyBytes(const std::vector<uint8_t> &bytes) {
  return verifyBytes(bytes.data(), bytes.size());
}

// Hostile files can carry a matching checksum, so damaged flatbuffers get
// one before they are verified; otherwise every mutation would stop at the
// checksum and the other checks would go untested.
Status verifyWithChecksum(std::vector<uint8_t> bytes) {
  schema::appendModuleChecksum(bytes);
  return verifyBytes(bytes);
}

Status verifySpec(const ModuleSpec &spec) {
  return verifyBytes(buildModule(spec));
}

// Expects `spec` to be rejected with a message containing `needle`.
void expectRejected(const ModuleSpec &spec, const std::string &needle) {
  Status status = verifySpec(spec);
  ASSERT_FALSE(status.ok()) << "expected an error mentioning: " << needle;
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(status.toString().find(needle), std::string::npos)
      << "message: " << status.toString()
      << "\nexpected to contain: " << needle;
}

// Without a checksum footer, for mutation before verifyWithChecksum().
ModuleSpec uncheckedSpec() {
  ModuleSpec spec = validModuleSpec();
  spec.AppendChecksum = false;
  return spec;
}

TEST(VerifierTest, ValidModuleVerifies) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  Status status = verifyBytes(bytes);
  ASSERT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, ByteSizeOfTensorTypes) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  AlignedCopy copy(bytes.data(), bytes.size());
  ASSERT_TRUE(verifyModule(copy.data(), copy.size()).ok());
  const auto &module = *kiln::schema::GetModule(copy.data());
  EXPECT_EQ(tensorTypeByteSize(*module.functions()->Get(0)->inputs()->Get(0)),
            16u);
  EXPECT_EQ(tensorTypeByteSize(*module.functions()->Get(1)->inputs()->Get(0)),
            24u);
  EXPECT_EQ(tensorTypeByteSize(*module.functions()->Get(1)->outputs()->Get(0)),
            1u);
}

TEST(VerifierTest, NewerMinorVersionIsAccepted) {
  ModuleSpec spec = validModuleSpec();
  spec.VersionMinor = 7;
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, ModuleWithoutConstantsOrFunctionsVerifies) {
  ModuleSpec spec;
  spec.Layout = test::ConstantsLayout::None;
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, EveryTruncationIsRejected) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  for (size_t length = 0; length < bytes.size(); ++length) {
    Status status = verifyBytes(bytes.data(), length);
    EXPECT_FALSE(status.ok()) << "truncated to " << length << " bytes";
  }
  // Cutting exactly the footer leaves a well-formed flatbuffer: still
  // rejected, and the message says why.
  Status status =
      verifyBytes(bytes.data(), bytes.size() - schema::kChecksumFooterSize);
  EXPECT_NE(status.toString().find("truncated or has no checksum footer"),
            std::string::npos)
      << status.toString();
}

// A truncation of the flatbuffer that keeps a valid footer is caught by the
// structural checks.
TEST(VerifierTest, EveryTruncationWithValidChecksumIsRejected) {
  std::vector<uint8_t> bytes = buildModule(uncheckedSpec());
  for (size_t length = 0; length < bytes.size(); ++length)
    EXPECT_FALSE(verifyWithChecksum(std::vector<uint8_t>(
                                        bytes.begin(), bytes.begin() + length))
                     .ok())
        << "truncated to " << length << " bytes";
}

TEST(VerifierTest, ChecksumCatchesEveryFlip) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  size_t footer = bytes.size() - schema::kChecksumFooterSize;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (uint8_t mask : {0x01, 0x80}) {
      std::vector<uint8_t> mutated = bytes;
      mutated[pos] ^= mask;
      Status status = verifyBytes(mutated);
      ASSERT_FALSE(status.ok()) << "flip at " << pos;
      // The identifier is checked first; the footer's magic must be present.
      const char *expected = pos >= 4 && pos < 8 ? "file identifier"
                             : pos >= footer && pos < footer + 8
                                 ? "no checksum footer"
                                 : "checksum does not match";
      EXPECT_NE(status.toString().find(expected), std::string::npos)
          << pos << ": " << status.toString();
    }
  }
}

TEST(VerifierTest, ModuleWithoutChecksumIsRejected) {
  Status status = verifySpec(uncheckedSpec());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("appendModuleChecksum()"), std::string::npos)
      << status.toString();
}

TEST(VerifierTest, FooterAloneIsTooSmall) {
  std::vector<uint8_t> bytes;
  schema::appendModuleChecksum(bytes);
  Status status = verifyBytes(bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("too small (16 bytes)"), std::string::npos)
      << status.toString();
}

TEST(VerifierTest, EverySingleByteFlipIsSafe) {
  std::vector<uint8_t> bytes = buildModule(uncheckedSpec());
  size_t rejected = 0, accepted = 0;
  for (size_t pos = 0; pos < bytes.size(); ++pos) {
    for (uint8_t mask : {0x01, 0x02, 0x10, 0x80, 0xff}) {
      std::vector<uint8_t> mutated = bytes;
      mutated[pos] ^= mask;
      if (verifyWithChecksum(mutated).ok())
        ++accepted;
      else
        ++rejected;
    }
  }
  // Flips inside image bytes, constants and names legitimately survive;
  // most structural flips must not.
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u);
}

TEST(VerifierTest, RandomMultiByteCorruptionIsSafe) {
  std::vector<uint8_t> bytes = buildModule(uncheckedSpec());
  std::mt19937 rng(12345);
  size_t rejected = 0;
  for (int iteration = 0; iteration < 4000; ++iteration) {
    std::vector<uint8_t> mutated = bytes;
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % mutated.size();
      switch (rng() % 3) {
      case 0:
        mutated[pos] = static_cast<uint8_t>(rng());
        break;
      case 1:
        // Small offsets and counts are what lead to in-bounds lies.
        mutated[pos] = static_cast<uint8_t>(rng() % 8);
        break;
      default: {
        uint32_t value = static_cast<uint32_t>(rng());
        size_t at = pos & ~size_t(3);
        if (at + 4 <= mutated.size())
          std::memcpy(&mutated[at], &value, 4);
        break;
      }
      }
    }
    if (!verifyWithChecksum(mutated).ok())
      ++rejected;
  }
  EXPECT_GT(rejected, 0u);
}

TEST(VerifierTest, RandomGarbageIsRejected) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 500; ++iteration) {
    std::vector<uint8_t> garbage = test::randomBytes(1 + rng() % 600, rng());
    // Give half of them the right identifier so they reach the flatbuffer
    // verifier.
    if (iteration % 2 == 0 && garbage.size() >= 8)
      std::memcpy(&garbage[4], "KILN", 4);
    EXPECT_FALSE(verifyBytes(garbage).ok());
    EXPECT_FALSE(verifyWithChecksum(garbage).ok());
  }
}

TEST(VerifierTest, EmptyInput) {
  Status status = verifyModule(nullptr, 0);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("empty"), std::string::npos);
}

TEST(VerifierTest, TooSmall) {
  uint8_t bytes[4] = {1, 2, 3, 4};
  Status status = verifyBytes(bytes, sizeof(bytes));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("too small"), std::string::npos);
}

TEST(VerifierTest, WrongIdentifier) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  std::memcpy(&bytes[4], "IREE", 4);
  Status status = verifyBytes(bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(
      status.toString().find("file identifier is 'IREE', expected 'KILN'"),
      std::string::npos)
      << status.toString();
}

TEST(VerifierTest, UnprintableIdentifierIsEscaped) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  bytes[5] = '\n';
  Status status = verifyBytes(bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("K\\x0aLN"), std::string::npos)
      << status.toString();
}

// What a loader checks on a small read, before it reads a file whole.
TEST(VerifierTest, EnvelopeNeedsOnlyHeadAndFooter) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  std::vector<uint8_t> head(bytes.begin(), bytes.begin() + kModuleHeadSize);
  std::vector<uint8_t> footer(bytes.end() - schema::kChecksumFooterSize,
                              bytes.end());
  EXPECT_TRUE(
      checkModuleEnvelope(head.data(), footer.data(), bytes.size()).ok());
  // Sizes alone: the head and footer are not read.
  Status empty = checkModuleEnvelope(nullptr, nullptr, 0);
  EXPECT_NE(empty.toString().find("module is empty (0 bytes)"),
            std::string::npos);
  Status small = checkModuleEnvelope(nullptr, nullptr, kMinModuleSize - 1);
  EXPECT_NE(small.toString().find("too small (23 bytes)"), std::string::npos)
      << small.toString();
  // Constants segments may take a file past 2 GiB, and past 4 GiB.
  EXPECT_TRUE(
      checkModuleEnvelope(head.data(), footer.data(), uint64_t(1) << 40).ok());
  Status huge =
      checkModuleEnvelope(head.data(), footer.data(), (uint64_t(1) << 48) + 1);
  EXPECT_NE(huge.toString().find("module is too large (281474976710657 "
                                 "bytes); the maximum is 2^48 bytes"),
            std::string::npos)
      << huge.toString();
  footer[3] = 'X';
  Status noFooter =
      checkModuleEnvelope(head.data(), footer.data(), bytes.size());
  EXPECT_NE(noFooter.toString().find("no checksum footer"), std::string::npos);
  head[6] = 'X';
  Status wrongId =
      checkModuleEnvelope(head.data(), footer.data(), bytes.size());
  EXPECT_NE(wrongId.toString().find("file identifier is 'KIXN'"),
            std::string::npos);
}

TEST(VerifierTest, NullDataWithASizeIsRejected) {
  Status status = verifyModule(nullptr, 64);
  EXPECT_NE(status.toString().find("module data is null (64 bytes)"),
            std::string::npos);
}

TEST(VerifierTest, MisalignedBufferIsRejected) {
  std::vector<uint8_t> bytes = buildModule(validModuleSpec());
  std::vector<uint8_t> storage(bytes.size() + 64);
  uint8_t *base = storage.data();
  while (reinterpret_cast<uintptr_t>(base) % 8 != 4)
    ++base;
  std::memcpy(base, bytes.data(), bytes.size());
  Status status = verifyModule(base, bytes.size());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("8-byte aligned"), std::string::npos);
}

TEST(VerifierTest, StructurallyBrokenBufferIsRejected) {
  std::vector<uint8_t> bytes = buildModule(uncheckedSpec());
  // The root offset pointing past the end.
  uint32_t rootOffset = static_cast<uint32_t>(bytes.size() + 100);
  std::memcpy(bytes.data(), &rootOffset, 4);
  Status status = verifyWithChecksum(bytes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.toString().find("flatbuffer structure does not verify"),
            std::string::npos)
      << status.toString();
}

//===----------------------------------------------------------------------===//
// One test per semantic rule.
//===----------------------------------------------------------------------===//

TEST(VerifierTest, UnsupportedMajorVersion) {
  ModuleSpec spec = validModuleSpec();
  spec.VersionMajor = 2;
  spec.VersionMinor = 3;
  expectRejected(spec,
                 "module version 2.3 is not supported by this runtime (1.x)");
  spec.VersionMajor = 0;
  expectRejected(spec, "module version 0.3");
}

TEST(VerifierTest, EmptyFunctionName) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[1].Name = "";
  expectRejected(spec, "function 1 has an empty name");
}

TEST(VerifierTest, DuplicateFunctionName) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[1].Name = "main";
  expectRejected(spec, "function 'main' is defined more than once");
}

// Specializations (minor version 6) name each other both ways and refine
// the general signature.
TEST(VerifierTest, Specializations) {
  ModuleSpec spec = test::specializedFillSpec({}, 1.0f, 2.0f);
  Status status = verifySpec(spec);
  ASSERT_TRUE(status.ok()) << status.toString();
  ModuleSpec bad = spec;
  bad.Functions[1].SpecializationOf = 0xFFFFFFFFu;
  expectRejected(bad, "lists function 1 as a specialization, which does not "
                      "name it");
  bad = spec;
  bad.Functions[0].Specializations = {};
  expectRejected(bad, "specializes 'fill', which does not list it");
  bad = spec;
  bad.Functions[0].Specializations = {};
  bad.Functions[1].SpecializationOf = 7;
  expectRejected(bad, "specializes function 7, which is not another");
  bad = spec;
  bad.Functions[0].Specializations = {0};
  bad.Functions[1].SpecializationOf = 0xFFFFFFFFu;
  expectRejected(bad, "lists function 0 as a specialization");
  bad = spec;
  bad.Functions[1].Inputs = {{0, {2, 2}}};
  bad.Functions[1].Steps[0].Target.Length = 16;
  expectRejected(bad, "'s specialization 'fill_4' has inputs or outputs of "
                      "other types, ranks or static extents");
  bad = spec;
  bad.Functions[1].Outputs = {{7, {4}}}; // i32
  expectRejected(bad, "other types, ranks or static extents");
}

// Phased functions (minor version 10) name phases that name them back,
// each input from the function or an earlier phase, each output from a
// phase, and have nothing of their own to run.
TEST(VerifierTest, Phases) {
  ModuleSpec spec = test::phasedFillSpec({}, 1.0f);
  Status status = verifySpec(spec);
  ASSERT_TRUE(status.ok()) << status.toString();
  constexpr uint32_t kInput = 0xFFFFFFFFu;
  ModuleSpec bad = spec;
  bad.Functions[2].PhaseOf = kInput;
  expectRejected(bad, "phase 0 runs function 2, which is not a phase of it");
  bad = spec;
  bad.Functions[0].Phases[1].first = 2;
  expectRejected(bad, "runs twice");
  bad = spec;
  bad.Functions.push_back(bad.Functions[2]);
  bad.Functions.back().Name = "stray";
  expectRejected(bad, "'stray' is a phase of function 0, which does not run "
                      "it");
  bad = spec;
  bad.Functions[0].Phases[0].second = {{1, 0}}; // from a later phase
  expectRejected(bad, "phase 0 input 0 is no earlier value of its type");
  bad = spec;
  bad.Functions[0].Phases[1].second = {{kInput, 1}, {0, 0}}; // i64 for f32
  expectRejected(bad, "phase 1 input 0 is no earlier value of its type");
  bad = spec;
  bad.Functions[0].Phases[1].second = {{kInput, 0}};
  expectRejected(bad, "phase 1 passes 1 inputs to 'fill_n', which takes 2");
  bad = spec;
  bad.Functions[0].PhaseOutputs = {{1, 0}, {1, 0}}; // f32 for i64
  expectRejected(bad, "output 1 is no phase output of its type");
  bad = spec;
  bad.Functions[0].PhaseOutputs = {{1, 0}, {kInput, 1}};
  expectRejected(bad, "output 1 is no phase output of its type");
  bad = spec;
  bad.Functions[0].PhaseOutputs = {{1, 0}};
  expectRejected(bad, "not one phase output per output");
  bad = spec;
  bad.Functions[0].ArenaSize = 64;
  expectRejected(bad, "runs in phases and has steps, a shape program or an "
                      "arena of its own");
  bad = spec;
  bad.Functions[2].Steps.clear();
  bad.Functions[2].Phases = {{2, {{kInput, 0}}}};
  bad.Functions[2].PhaseOutputs = {{0, 0}};
  // Only a loop's body may run in phases of its own.
  expectRejected(bad, "has phases without being a loop's body");
}

// A loop phase (minor version 11) names its body in PhaseLoop and no
// function of its own; the body takes (i64[], i1[], carried...) and gives
// a condition and each carried value's next of its type, every value of
// PhaseLoop.outputs inside it; the phase's outputs are the carried values
// and the scans stacked (a `?` before the slice).
TEST(VerifierTest, LoopPhases) {
  for (bool mapped : {false, true}) {
    ModuleSpec spec = test::loopCountSpec(mapped);
    Status status = verifySpec(spec);
    ASSERT_TRUE(status.ok()) << status.toString();
    EXPECT_EQ(
        checkVerifiedModule(buildModule(spec).data(), buildModule(spec).size()),
        "");
    ModuleSpec bad = spec;
    bad.Functions[0].Loops.clear(); // the body run once: a 1.10 phase
    expectRejected(bad, "is no phase output of its type");
    bad = spec;
    bad.Functions[0].Loops[0].Carried = 3;
    expectRejected(bad, "phase 0 repeats function 'count_body', which does "
                        "not take (i64[], i1[], 3 carried values...)");
    bad = spec;
    bad.Functions[1].Inputs[0].ElementType =
        static_cast<uint8_t>(schema::ElementType::F64);
    expectRejected(bad, "phase 0 repeats function 'count_body'");
    bad = spec;
    bad.Functions[0].Loops[0].Outputs = {-2, 0, 5};
    expectRejected(bad, "phase 0 repeats function 'count_body'");
    bad = spec;
    bad.Functions[0].Loops[0].Outputs = {-4, 0, 1};
    expectRejected(bad, "phase 0 repeats function 'count_body'");
    bad = spec;
    bad.Functions[0].Outputs[1].Shape = {4}; // a scan's rows are the steps'
    Status scans = verifySpec(bad);
    EXPECT_TRUE(scans.ok()) << "a static extent agrees with `?`";
    bad = spec;
    bad.Functions[0].Outputs[1].Shape = {};
    expectRejected(bad, "output 1 is no phase output of its type");
    bad = spec;
    bad.Functions[1].PhaseOf = 0xFFFFFFFFu;
    expectRejected(bad, "which is not a phase of it");
  }
}

TEST(VerifierTest, HostileFunctionNameIsEscaped) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Name = "ma\nin'" + std::string(100, 'x');
  spec.Functions[0].ArenaSize = 1;
  Status status = verifySpec(spec);
  ASSERT_FALSE(status.ok());
  std::string text = status.toString();
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_NE(text.find("function 'ma\\x0ain\\x27xxx"), std::string::npos)
      << text;
  EXPECT_NE(text.find("...'"), std::string::npos) << text;
}

TEST(VerifierTest, UnknownElementType) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Outputs[0].ElementType = 13;
  expectRejected(spec, "function 'main' output 0: unknown element type 13");
}

TEST(VerifierTest, RankTooLarge) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[1].Inputs[0].Shape = std::vector<int64_t>(17, 1);
  expectRejected(
      spec, "function 'second' input 0: rank 17 exceeds the maximum of 16");
}

TEST(VerifierTest, NegativeDimension) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[1].Inputs[0].Shape = {2, -3};
  expectRejected(spec, "input 0: dimension 1 is -3, expected >= 0");
}

TEST(VerifierTest, TensorByteSizeOverflow) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[1].Inputs[0].Shape = {int64_t(1) << 40, int64_t(1) << 20};
  expectRejected(spec, "is larger than 2^48 bytes");
  spec.Functions[1].Inputs[0].Shape = {std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::max()};
  expectRejected(spec, "is larger than 2^48 bytes");
  // Just below the cap is fine: 2^46 f32 elements = 2^48 bytes.
  spec.Functions[1].Inputs[0].ElementType = 0;
  spec.Functions[1].Inputs[0].Shape = {int64_t(1) << 46};
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
  // An empty tensor may not hide an impossible size either.
  spec.Functions[1].Inputs[0].Shape = {0, int64_t(1) << 50};
  expectRejected(spec, "is larger than 2^48 bytes");
}

TEST(VerifierTest, StepWithoutKind) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[1].Kind = StepKind::NONE;
  expectRejected(spec, "function 'main' step 1: step kind 0 is not a "
                       "dispatch, copy or fill");
  spec.Functions[0].Steps[1].Kind = static_cast<StepKind>(9);
  expectRejected(spec, "step kind 9 is not");
}

TEST(VerifierTest, DispatchOfMissingExecutable) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Executable = 1;
  expectRejected(spec, "function 'main' step 2: dispatch of executable 1 but "
                       "the module has 1 executables");
}

TEST(VerifierTest, DispatchOfMissingEntryPoint) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].EntryPoint = 2;
  expectRejected(spec, "dispatch of entry point 2 but executable 0 ('exe0') "
                       "has 2 entry points");
}

TEST(VerifierTest, DispatchBindingCountMismatch) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Bindings.pop_back();
  expectRejected(spec, "step 2: dispatch has 2 bindings but executable 0 "
                       "entry point 0 ('add') takes 3");
}

TEST(VerifierTest, DispatchPushConstantCountMismatch) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].PushConstants.clear();
  expectRejected(spec, "dispatch has 0 push constants but executable 0 entry "
                       "point 0 ('add') takes 1");
  spec = validModuleSpec();
  spec.Functions[0].Steps[3].PushConstants = {1, 2};
  expectRejected(spec, "dispatch has 2 push constants");
}

TEST(VerifierTest, UnknownStorageKind) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Bindings[0].Storage = static_cast<SK>(9);
  expectRejected(spec, "step 2: binding 0 has unknown storage kind 9");
}

TEST(VerifierTest, InputIndexOutOfRange) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Bindings[1].Index = 2;
  expectRejected(spec, "binding 1 refers to input 2 but the function has 2 "
                       "inputs");
}

TEST(VerifierTest, OutputIndexOutOfRange) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Bindings[2].Index = 1;
  expectRejected(spec, "binding 2 refers to output 1 but the function has 1 "
                       "outputs");
}

TEST(VerifierTest, RangeExceedsTensor) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[2].Bindings[1] = range(SK::Input, 1, 8, 16);
  expectRejected(spec, "binding 1 (input 1 offset 8 + length 16) exceeds "
                       "input 1 size 16 (4xf32)");
}

TEST(VerifierTest, RangeExceedsArena) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].ArenaSize = 160;
  spec.Functions[0].Steps[3].Bindings[1] = range(SK::Arena, 0, 128, 64);
  expectRejected(spec, "function 'main' step 3: binding 1 (arena offset 128 + "
                       "length 64) exceeds arena size 160");
  // Exactly reaching the end is fine.
  spec.Functions[0].Steps[3].Bindings[1] = range(SK::Arena, 0, 96, 64);
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, RangeExceedsConstants) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[3].Bindings[0] = range(SK::Constant, 0, 250, 16);
  expectRejected(spec, "binding 0 (constant offset 250 + length 16) exceeds "
                       "constants size 256");
  spec = validModuleSpec();
  spec.Layout = test::ConstantsLayout::None;
  expectRejected(spec, "exceeds constants size 0");
}

// Modules of versions 1.0 and 1.1 keep their constants in a vector inside
// the flatbuffer; they still load.
TEST(VerifierTest, ConstantsVectorStillVerifies) {
  ModuleSpec spec = validModuleSpec();
  spec.VersionMinor = 1;
  spec.Layout = test::ConstantsLayout::Vector;
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
  spec.Functions[0].Steps[3].Bindings[0] = range(SK::Constant, 0, 250, 16);
  expectRejected(spec, "exceeds constants size 256");
}

TEST(VerifierTest, ConstantsVectorAndSegmentTogetherAreRejected) {
  ModuleSpec spec = validModuleSpec();
  spec.Layout = test::ConstantsLayout::Both;
  expectRejected(spec, "module has both a constants vector and a constants "
                       "segment; it may have one of them");
}

TEST(VerifierTest, ConstantsSegmentAlignment) {
  for (uint32_t alignment : {0u, 1u, 32u, 96u, 131072u}) {
    ModuleSpec spec = validModuleSpec();
    spec.Segment.Alignment = alignment;
    expectRejected(spec, "-byte aligned): the alignment must be a power of "
                         "two from 64 to 65536");
  }
  for (uint32_t alignment : {64u, 65536u}) {
    ModuleSpec spec = validModuleSpec();
    spec.Segment.Alignment = alignment;
    Status status = verifySpec(spec);
    EXPECT_TRUE(status.ok()) << alignment << ": " << status.toString();
  }
  ModuleSpec spec = validModuleSpec();
  std::vector<uint8_t> bytes = buildModule(spec);
  spec.Segment.Offset = bytes.size() - schema::kChecksumFooterSize - 256 - 64;
  expectRejected(spec, "4096-byte aligned): the offset is not a multiple of "
                       "the alignment");
}

TEST(VerifierTest, ConstantsSegmentBounds) {
  ModuleSpec spec = validModuleSpec();
  uint64_t offset = buildModule(spec).size() - schema::kChecksumFooterSize -
                    spec.Constants.size();
  // Up to the footer, not into it.
  spec.Segment.Size = 272;
  expectRejected(spec, "module constants segment (272 bytes at offset " +
                           std::to_string(offset) +
                           ", 4096-byte aligned) does not end before the "
                           "checksum footer at byte " +
                           std::to_string(offset + 256));
  // offset + size wraps around 2^64.
  spec.Segment.Offset = uint64_t(0) - 4096;
  spec.Segment.Size = 8192;
  expectRejected(spec, "does not end before the checksum footer");
}

TEST(VerifierTest, ConstantsSegmentMayNotOverlapTheFlatbuffer) {
  ModuleSpec spec = validModuleSpec();
  spec.Segment.Alignment = 64;
  spec.Segment.Offset = 0;
  expectRejected(spec, "overlaps the flatbuffer, which does not verify within "
                       "the bytes before the segment");
  std::vector<uint8_t> bytes = buildModule(spec);
  // Any start before its end cuts into the flatbuffer's last table or vector.
  size_t flatbufferSize = test::buildFlatbuffer(spec).size();
  spec.Segment.Offset = flatbufferSize / 64 * 64 - 64;
  spec.Segment.Size =
      bytes.size() - schema::kChecksumFooterSize - *spec.Segment.Offset;
  expectRejected(spec, "overlaps the flatbuffer");
}

// The valid module's main with dependencies and binding access, as the
// compiler writes them: fill arena[0:16]; copy input0 -> arena[16:32];
// add(arena[16:32], input1) -> output0; scale(constant) -> arena[32:64].
// Only the add depends on anything (the copy wrote what it reads).
ModuleSpec declaredSpec() {
  using Access = kiln::schema::BindingAccess;
  ModuleSpec spec = validModuleSpec();
  std::vector<test::StepSpec> &steps = spec.Functions[0].Steps;
  steps[0].Dependencies = std::vector<uint32_t>{};
  steps[1].Dependencies = std::vector<uint32_t>{};
  steps[2].Dependencies = std::vector<uint32_t>{1};
  steps[2].Access = {Access::Read, Access::Read, Access::Write};
  steps[3].Dependencies = std::vector<uint32_t>{};
  steps[3].Access = {Access::Read, Access::Write};
  return spec;
}

TEST(VerifierTest, DeclaredDependenciesVerify) {
  Status status = verifySpec(declaredSpec());
  EXPECT_TRUE(status.ok()) << status.toString();
  // More than needed is fine too.
  ModuleSpec spec = declaredSpec();
  spec.Functions[0].Steps[3].Dependencies = std::vector<uint32_t>{0, 2};
  status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, DependenciesMustNameEarlierStepsInOrder) {
  ModuleSpec spec = declaredSpec();
  spec.Functions[0].Steps[2].Dependencies = std::vector<uint32_t>{1, 2};
  expectRejected(spec, "function 'main' step 2: depends on step 2; a step can "
                       "only wait for earlier ones");
  spec.Functions[0].Steps[2].Dependencies = std::vector<uint32_t>{1, 0};
  expectRejected(spec, "step 2: dependencies are not strictly ascending");
}

TEST(VerifierTest, UnorderedConflictsAreRejected) {
  // Read after write: the add reads what the copy wrote.
  ModuleSpec spec = declaredSpec();
  spec.Functions[0].Steps[2].Dependencies = std::vector<uint32_t>{0};
  expectRejected(spec, "function 'main': steps 1 and 2 touch the same bytes, "
                       "one of them writing, but step 2 does not wait for "
                       "step 1");
  // Write after read: the scale overwrites what the add still reads.
  spec = declaredSpec();
  spec.Functions[0].Steps[3].Bindings[1] = range(SK::Arena, 0, 16, 32);
  expectRejected(spec, "steps 1 and 3 touch the same bytes");
  spec.Functions[0].Steps[3].Dependencies = std::vector<uint32_t>{1};
  expectRejected(spec, "steps 2 and 3 touch the same bytes");
  // Through another step is enough.
  spec.Functions[0].Steps[3].Dependencies = std::vector<uint32_t>{2};
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
  // Two readers of the copy's bytes need no order between them...
  spec = declaredSpec();
  spec.Functions[0].Steps[3].Bindings[0] = range(SK::Arena, 0, 16, 16);
  spec.Functions[0].Steps[3].Dependencies = std::vector<uint32_t>{1};
  status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
  // ...but without binding access every binding counts as written.
  spec.Functions[0].Steps[2].Access.clear();
  expectRejected(spec, "steps 2 and 3 touch the same bytes");
}

TEST(VerifierTest, BindingAccessIsChecked) {
  using Access = kiln::schema::BindingAccess;
  ModuleSpec spec = declaredSpec();
  spec.Functions[0].Steps[2].Access = {Access::Read, Access::Write};
  expectRejected(spec, "step 2: dispatch has 3 bindings but 2 binding access "
                       "entries");
  spec.Functions[0].Steps[2].Access = {Access::Read, static_cast<Access>(7),
                                       Access::Write};
  expectRejected(spec, "step 2: binding 1 has unknown access 7");
  spec.Functions[0].Steps[2].Access = {Access::Read, Access::ReadWrite,
                                       Access::Write};
  expectRejected(spec, "step 2: binding 1 writes to input 1; a function's "
                       "inputs are read-only");
  spec = declaredSpec();
  spec.Functions[0].Steps[3].Access = {Access::Write, Access::Write};
  expectRejected(spec, "step 3: binding 0 writes to the module constants");
}

TEST(VerifierTest, RangeOffsetOverflow) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[0].Target =
      range(SK::Arena, 0, std::numeric_limits<uint64_t>::max() - 3, 8);
  expectRejected(spec, "fill target (arena offset 18446744073709551612 + "
                       "length 8) exceeds arena size 64");
}

TEST(VerifierTest, CopyRangesChecked) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[1].Source = range(SK::Output, 3, 0, 16);
  expectRejected(spec, "step 1: copy source refers to output 3");
  spec = validModuleSpec();
  spec.Functions[0].Steps[1].Target = range(SK::Arena, 0, 60, 16);
  expectRejected(spec, "copy target (arena offset 60 + length 16) exceeds");
}

TEST(VerifierTest, CopyLengthsDiffer) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[1].Target.Length = 8;
  expectRejected(spec,
                 "step 1: copy source length 16 differs from target length 8");
}

TEST(VerifierTest, CopyOverlap) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[1].Source = range(SK::Arena, 0, 8, 16);
  expectRejected(spec, "copy source (arena offset 8 + length 16) overlaps its "
                       "target (arena offset 16 + length 16)");
  // Adjacent ranges do not overlap.
  spec.Functions[0].Steps[1].Source = range(SK::Arena, 0, 0, 16);
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST(VerifierTest, WritesToConstants) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[0].Target = range(SK::Constant, 0, 0, 16);
  expectRejected(spec, "fill target writes to the module constants");
  spec = validModuleSpec();
  spec.Functions[0].Steps[1].Target = range(SK::Constant, 0, 0, 16);
  expectRejected(spec, "copy target writes to the module constants");
}

TEST(VerifierTest, FillPatternLength) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[0].PatternLength = 3;
  spec.Functions[0].Steps[0].Target.Length = 12;
  expectRejected(spec, "step 0: fill pattern length 3 is not 1, 2 or 4");
  spec.Functions[0].Steps[0].PatternLength = 0;
  expectRejected(spec, "fill pattern length 0 is not 1, 2 or 4");
}

TEST(VerifierTest, FillTargetNotMultipleOfPattern) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].Steps[0].Target.Length = 6;
  expectRejected(spec, "fill target length 6 is not a multiple of the 4-byte "
                       "pattern");
}

TEST(VerifierTest, ArenaTooLarge) {
  ModuleSpec spec = validModuleSpec();
  spec.Functions[0].ArenaSize = (uint64_t(1) << 48) + 1;
  expectRejected(spec, "function 'main': arena size 281474976710657 exceeds "
                       "the maximum of 2^48 bytes");
}

TEST(VerifierTest, ExecutableWithoutVariants) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants.clear();
  expectRejected(spec, "executable 0 ('exe0') has no variants");
}

TEST(VerifierTest, VariantEmptyFormat) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[1].Format = "";
  expectRejected(spec, "variant 1 ('' for 'sm_90') has an empty format");
}

TEST(VerifierTest, VariantsDisagreeOnEntryPointCount) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[1].EntryPoints.pop_back();
  expectRejected(spec, "executable 0 ('exe0') variant 1 ('cuda-ptx' for "
                       "'sm_90') has 1 entry points but variant 0 has 2");
}

TEST(VerifierTest, VariantsDisagreeOnEntryPointName) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[1].EntryPoints[1].Name = "scale2";
  expectRejected(spec, "entry point 1 is named 'scale2' but variant 0 names "
                       "it 'scale'");
}

TEST(VerifierTest, VariantsDisagreeOnBindingCount) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[1].EntryPoints[0].BindingCount = 4;
  expectRejected(spec, "entry point 0 ('add') has 4 bindings but variant 0 "
                       "has 3");
}

TEST(VerifierTest, VariantsDisagreeOnPushConstantCount) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[1].EntryPoints[0].PushConstantCount = 0;
  expectRejected(spec, "entry point 0 ('add') has 0 push constants but "
                       "variant 0 has 1");
}

TEST(VerifierTest, EntryPointEmptyName) {
  ModuleSpec spec = validModuleSpec();
  for (auto &variant : spec.Executables[0].Variants)
    variant.EntryPoints[0].Name = "";
  expectRejected(spec, "variant 0 ('cpu-elf-x86_64' for 'x86-64-v3') entry "
                       "point 0 has an empty name");
}

TEST(VerifierTest, WorkgroupSizeRank) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[0].EntryPoints[1].WorkgroupSize = {32, 2};
  expectRejected(spec, "entry point 1 ('scale'): workgroup_size has 2 "
                       "entries, expected 3");
  spec = validModuleSpec();
  spec.Executables[0].Variants[1].EntryPoints[0].WorkgroupCount = {1, 1, 1, 1};
  expectRejected(spec, "entry point 0 ('add'): workgroup_count has 4 "
                       "entries, expected 3");
}

TEST(VerifierTest, WorkgroupZero) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[0].EntryPoints[0].WorkgroupCount = {4, 0, 1};
  expectRejected(spec, "workgroup_count[1] is 0, expected >= 1");
  spec = validModuleSpec();
  spec.Executables[0].Variants[0].EntryPoints[0].WorkgroupSize = {0, 1, 1};
  expectRejected(spec, "workgroup_size[0] is 0, expected >= 1");
}

TEST(VerifierTest, GridTooLarge) {
  ModuleSpec spec = validModuleSpec();
  spec.Executables[0].Variants[0].EntryPoints[0].WorkgroupCount = {65536, 65536,
                                                                   2};
  expectRejected(spec, "workgroup_count 65536x65536x2 exceeds 2^32 in total");
  // Exactly 2^32 is allowed.
  spec.Executables[0].Variants[0].EntryPoints[0].WorkgroupCount = {65536, 65536,
                                                                   1};
  Status status = verifySpec(spec);
  EXPECT_TRUE(status.ok()) << status.toString();
  spec.Executables[0].Variants[0].EntryPoints[0].WorkgroupCount = {
      0xffffffffu, 0xffffffffu, 0xffffffffu};
  expectRejected(spec, "exceeds 2^32 in total");
}

} // namespace
} // namespace kiln::module
