//===- CallShapesTest.cpp -------------------------------------------------===//
//
// Functions with dynamic shapes (issue 19): what the loader refuses of their
// shape programs, and what a call resolves them to (or refuses) at its
// input shapes.
//
//===----------------------------------------------------------------------===//

#include "runtime/module/CallShapes.h"

#include "runtime/module/TestModule.h"
#include "runtime/module/Verifier.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

namespace kiln::module {
namespace {

namespace sc = kiln::schema;
using SK = sc::StorageKind;
using Op = sc::ShapeOp;
using test::range;

constexpr uint8_t kF32 = 0;
constexpr uint32_t kNone = sc::kNoShapeNode;

// f(x: ?xf32, y: ?xf32) -> ?xf32, one dispatch over a grid of
// ceil(n / 64) workgroups:
//   n0 = const 4, n1 = dim input0[0], n2 = mul n0 n1, n3 = dim input1[0]
//   check n1 == n3; output 0 shape [n1]; words 0, 1 = n1
//   bindings input0[0, +n2), input1[0, +n2), output0[0, +n2)
test::ModuleSpec dynamicSpec() {
  test::ModuleSpec spec;
  spec.VersionMinor = 3;
  test::EntryPointSpec entry{"add", {1, 1, 1}, {1, 1, 1}, 3, 2, 0};
  spec.Grids = {{0,
                 0,
                 0,
                 {{Op::PushConstant, 0, 0},
                  {Op::Constant, 64, 0},
                  {Op::CeilDiv, 0, 1},
                  {Op::Constant, 1, 0}},
                 {2, 3, 3}}};
  spec.Executables.push_back(
      {"kernels", {{"cpu-elf-x86_64", "x86-64", {}, {entry}}}});
  test::FunctionSpec f;
  f.Name = "f";
  f.Inputs = {{kF32, {-1}}, {kF32, {-1}}};
  f.Outputs = {{kF32, {-1}}};
  f.OutputDimNodes = {{1}};
  f.ShapeProgram = {{Op::Constant, 4, 0},
                    {Op::InputDim, 0, 0},
                    {Op::Mul, 0, 1},
                    {Op::InputDim, 1, 0}};
  f.ShapeChecks = {{1, 3}};
  test::StepSpec step;
  step.Kind = sc::StepKind::DispatchStep;
  step.Bindings = {range(SK::Input, 0, 0, 0), range(SK::Input, 1, 0, 0),
                   range(SK::Output, 0, 0, 0)};
  step.Access = {sc::BindingAccess::Read, sc::BindingAccess::Read,
                 sc::BindingAccess::Write};
  step.PushConstants = {0, 0};
  step.BindingNodes = {{kNone, 2}, {kNone, 2}, {kNone, 2}};
  step.PushConstantNodes = {{0, 1}};
  step.Dependencies = std::vector<uint32_t>{};
  f.Steps = {step};
  spec.Functions = {f};
  return spec;
}

class Loaded {
public:
  explicit Loaded(const test::ModuleSpec &spec)
      : Bytes(test::buildModule(spec)) {}
  Status verify() const { return verifyModule(Bytes.data(), Bytes.size()); }
  // The test helpers' independent re-check of the verifier's promises.
  std::string recheck() const {
    return test::checkVerifiedModule(Bytes.data(), Bytes.size());
  }
  const sc::Function &function() const {
    return *sc::GetModule(Bytes.data())->functions()->Get(0);
  }
  const sc::EntryPoint &entry() const {
    return *sc::GetModule(Bytes.data())
                ->executables()
                ->Get(0)
                ->variants()
                ->Get(0)
                ->entry_points()
                ->Get(0);
  }

private:
  std::vector<uint8_t> Bytes;
};

StatusOr<CallShapes> resolve(const Loaded &loaded,
                             std::vector<std::vector<int64_t>> shapes) {
  return resolveCall(loaded.function(), "function @f", shapes, {}, 0);
}

std::string verifyError(const test::ModuleSpec &spec) {
  Status status = Loaded(spec).verify();
  return status.ok() ? std::string("verified") : std::string(status.message());
}

TEST(CallShapesTest, ResolvesEachCallsShapes) {
  Loaded loaded(dynamicSpec());
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  EXPECT_EQ(loaded.recheck(), "");
  for (int64_t n : {1, 7, 64, 65, 1009}) {
    StatusOr<CallShapes> call = resolve(loaded, {{n}, {n}});
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->OutputShapes, (std::vector<std::vector<int64_t>>{{n}}));
    EXPECT_EQ(call->OutputBytes, (std::vector<uint64_t>{uint64_t(4 * n)}));
    EXPECT_EQ(call->InputBytes,
              (std::vector<uint64_t>{uint64_t(4 * n), uint64_t(4 * n)}));
    ASSERT_EQ(call->Ranges.size(), 1u);
    EXPECT_EQ(call->Ranges[0][2].Length, uint64_t(4 * n));
    EXPECT_EQ(call->PushConstants[0],
              (std::vector<uint32_t>{static_cast<uint32_t>(n), 0}));
    StatusOr<std::array<uint32_t, 3>> grid =
        resolveGrid(loaded.entry(), call->PushConstants[0]);
    ASSERT_TRUE(grid.ok()) << grid.status().message();
    EXPECT_EQ(*grid, (std::array<uint32_t, 3>{
                         static_cast<uint32_t>((n + 63) / 64), 1, 1}));
  }
}

// dynamicSpec with a second kernel ("add_short", the same bindings and
// push constants) run instead where the length n1 is at most 4:
//   n4 = const 5, n5 = min n1 n4, n6 = sub n4 n5 (0 past 4).
test::ModuleSpec choiceSpec() {
  test::ModuleSpec spec = dynamicSpec();
  spec.VersionMinor = 9;
  test::EntryPointSpec shortEntry{"add_short", {1, 1, 1}, {1, 1, 1}, 3, 2, 0};
  spec.Executables[0].Variants[0].EntryPoints.push_back(shortEntry);
  test::FunctionSpec &f = spec.Functions[0];
  f.ShapeProgram.push_back({Op::Constant, 5, 0});
  f.ShapeProgram.push_back({Op::Min, 1, 4});
  f.ShapeProgram.push_back({Op::Sub, 4, 5});
  f.Steps[0].EntryPointChoices = {{6, 1}};
  return spec;
}

TEST(CallShapesTest, EntryPointChosenByShape) {
  Loaded loaded(choiceSpec());
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  EXPECT_EQ(loaded.recheck(), "");
  for (auto [n, entry] :
       {std::pair<int64_t, uint32_t>{1, 1}, {4, 1}, {5, 0}, {64, 0}}) {
    StatusOr<CallShapes> call =
        resolveCall(loaded.function(), "function @f", {{{n}, {n}}}, {}, 0);
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->EntryPoints, std::vector<uint32_t>{entry}) << "n = " << n;
  }
}

TEST(CallShapesTest, EntryPointChoicesVerified) {
  // A node past the program, an entry point past the executable's, and one
  // that takes other bindings.
  test::ModuleSpec spec = choiceSpec();
  spec.Functions[0].Steps[0].EntryPointChoices = {{7, 1}};
  EXPECT_NE(Loaded(spec).verify().message().find(
                "an entry point choice reads shape node 7 of 7"),
            std::string::npos)
      << Loaded(spec).verify().message();
  EXPECT_NE(Loaded(spec).recheck(), "");
  spec = choiceSpec();
  spec.Functions[0].Steps[0].EntryPointChoices = {{6, 2}};
  EXPECT_NE(Loaded(spec).verify().message().find(
                "an entry point choice names entry point 2 of 2"),
            std::string::npos)
      << Loaded(spec).verify().message();
  EXPECT_NE(Loaded(spec).recheck(), "");
  spec = choiceSpec();
  spec.Executables[0].Variants[0].EntryPoints[1].BindingCount = 2;
  EXPECT_NE(Loaded(spec).verify().message().find(
                "takes 2 bindings and 2 push constants, unlike"),
            std::string::npos)
      << Loaded(spec).verify().message();
  EXPECT_NE(Loaded(spec).recheck(), "");
}

// f(x: ?xf32, s: 1xi64) -> ?xf32, its output as long as s[0] says (a
// Reshape target given at call time), one dispatch copying that much of x:
//   n0 = element+ s[0], n1 = element- s[0], n2 = sub n0 n1, n3 = const 4,
//   n4 = mul n2 n3, n5 = dim input0[0], n6 = mul n5 n3
//   output 0 shape [n2]; bindings input0[0, +n4), output0[0, +n4)
test::ModuleSpec valueSpec() {
  test::ModuleSpec spec = dynamicSpec();
  spec.VersionMinor = 7;
  test::FunctionSpec &f = spec.Functions[0];
  f.Inputs = {{kF32, {-1}}, {static_cast<uint8_t>(sc::ElementType::I64), {1}}};
  f.OutputDimNodes = {{2}};
  f.ShapeProgram = {{Op::InputElementPos, 1, 0},
                    {Op::InputElementNeg, 1, 0},
                    {Op::Sub, 0, 1},
                    {Op::Constant, 4, 0},
                    {Op::Mul, 2, 3},
                    {Op::InputDim, 0, 0},
                    {Op::Mul, 5, 3}};
  f.ShapeChecks = {};
  test::StepSpec &step = f.Steps[0];
  step.Bindings = {range(SK::Input, 0, 0, 0), range(SK::Output, 0, 0, 0)};
  step.Access = {sc::BindingAccess::Read, sc::BindingAccess::Write};
  step.BindingNodes = {{kNone, 4}, {kNone, 4}};
  step.PushConstantNodes = {{0, 2}};
  spec.Executables[0].Variants[0].EntryPoints[0].BindingCount = 2;
  return spec;
}

TEST(CallShapesTest, ShapesFromInputValues) {
  Loaded loaded(valueSpec());
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  EXPECT_EQ(loaded.recheck(), "");
  EXPECT_EQ(valueInputsOf(loaded.function()), std::vector<uint32_t>{1});
  for (int64_t n : {0, 1, 5}) {
    std::vector<std::vector<int64_t>> values = {{}, {n}};
    StatusOr<CallShapes> call =
        resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0);
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->OutputShapes, (std::vector<std::vector<int64_t>>{{n}}));
    EXPECT_EQ(call->Ranges[0][1].Length, uint64_t(4 * n));
  }
  // A value making a negative extent, one past the input, or none given.
  std::vector<std::vector<int64_t>> values = {{}, {-3}};
  StatusOr<CallShapes> call =
      resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f at these input shapes: shape node 2 (sub) would be "
            "negative: 0 - 3");
  values = {{}, {9}};
  call = resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0);
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("exceeds its buffer's 32 bytes"),
            std::string::npos)
      << call.status().message();
  values = {{}, {INT64_MIN}};
  call = resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f at these input shapes: shape node 1 (element-) has "
            "no value");
  call = resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, {}, 0);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f computes shapes from the values of input 1, which "
            "this call does not give (call it with host tensors, or pass that "
            "input's values)");
}

// A condition of the model's on a value it reads (axes given at call time):
// its message reaches the call's error; the verifier wants one printable
// line per check.
TEST(CallShapesTest, CheckMessages) {
  test::ModuleSpec spec = valueSpec();
  spec.Functions[0].ShapeProgram.push_back({Op::Constant, 5, 0}); // n7
  spec.Functions[0].ShapeChecks = {{2, 7}};
  spec.Functions[0].ShapeCheckMessages = {"input 1 must be [5]"};
  Loaded loaded(spec);
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  std::vector<std::vector<int64_t>> values = {{}, {5}};
  EXPECT_TRUE(
      resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0)
          .ok());
  values = {{}, {4}};
  StatusOr<CallShapes> call =
      resolveCall(loaded.function(), "function @f", {{{8}, {1}}}, values, 0);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f: input 1 must be [5] (shape nodes 2 and 7 are 4 and "
            "5)");
  spec.Functions[0].ShapeCheckMessages = {"two\nlines"};
  EXPECT_NE(verifyError(spec).find("not one printable line"), std::string::npos)
      << verifyError(spec);
  spec.Functions[0].ShapeCheckMessages = {"a", "b"};
  EXPECT_NE(verifyError(spec).find("2 shape check messages for 1 checks"),
            std::string::npos)
      << verifyError(spec);
}

TEST(CallShapesTest, InputElementsOfIntegersOfStaticShapeOnly) {
  test::ModuleSpec spec = valueSpec();
  spec.Functions[0].ShapeProgram[1] = {Op::InputElementNeg, 1, 1};
  EXPECT_NE(verifyError(spec).find("shape node 1 (element- 1, 1) names "
                                   "nothing"),
            std::string::npos)
      << verifyError(spec);
  spec = valueSpec();
  spec.Functions[0].ShapeProgram[0] = {Op::InputElementPos, 0, 0};
  EXPECT_NE(verifyError(spec).find("shape node 0 (element+ 0, 0) names "
                                   "nothing"),
            std::string::npos)
      << verifyError(spec);
  spec = valueSpec();
  spec.Functions[0].Inputs[1].Shape = {-1};
  EXPECT_NE(verifyError(spec).find("shape node 0 (element+ 1, 0) names "
                                   "nothing"),
            std::string::npos)
      << verifyError(spec);
}

// f(x: ?xf32, s: 1xf32) -> ?xf32, its output floor(len(x) * s[0]) long
// (Resize's output size from a scale given at call time: real nodes,
// module format 1.8):
//   n0 = dim input0[0], n1 = real n0, n2 = element. s[0], n3 = realmul,
//   n4 = realfloor n3, n5 = int n4, n6 = const 4, n7 = mul n5 n6
test::ModuleSpec realSpec() {
  test::ModuleSpec spec = valueSpec();
  spec.VersionMinor = 8;
  test::FunctionSpec &f = spec.Functions[0];
  f.Inputs[1] = {kF32, {1}};
  f.OutputDimNodes = {{5}};
  f.ShapeProgram = {{Op::InputDim, 0, 0},         {Op::RealFromInt, 0, 0},
                    {Op::InputElementReal, 1, 0}, {Op::RealMul, 1, 2},
                    {Op::RealFloor, 3, 0},        {Op::RealToInt, 4, 0},
                    {Op::Constant, 4, 0},         {Op::Mul, 5, 6}};
  f.Steps[0].BindingNodes = {{kNone, 7}, {kNone, 7}};
  f.Steps[0].PushConstantNodes = {{0, 5}};
  return spec;
}

TEST(CallShapesTest, RealNodes) {
  Loaded loaded(realSpec());
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  EXPECT_EQ(loaded.recheck(), "");
  EXPECT_EQ(valueInputsOf(loaded.function()), std::vector<uint32_t>{1});
  auto resolveAt = [&](float scale) {
    std::vector<uint8_t> bytes(sizeof(float));
    std::memcpy(bytes.data(), &scale, sizeof(float));
    std::vector<std::vector<int64_t>> values = {
        {}, shapeValues(ElementType::F32, bytes)};
    return resolveCall(loaded.function(), "function @f", {{{10}, {1}}}, values,
                       0);
  };
  // 0.8f is 0.800000011920929 as a double: 8.00000011920929 floors to 8,
  // as numpy's (scales * shape).astype(int) gives.
  for (auto [scale, length] :
       {std::pair{0.8f, 8}, {0.25f, 2}, {1.0f, 10}, {0.05f, 0}}) {
    StatusOr<CallShapes> call = resolveAt(scale);
    ASSERT_TRUE(call.ok()) << call.status().message();
    EXPECT_EQ(call->OutputShapes, (std::vector<std::vector<int64_t>>{{length}}))
        << scale;
  }
  StatusOr<CallShapes> call = resolveAt(std::nanf(""));
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f at these input shapes: shape node 5 (int) is no "
            "size: nan");
  call = resolveAt(-0.5f);
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f at these input shapes: shape node 5 (int) is no "
            "size: -5.000000");
  call = resolveAt(1.5f);
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("exceeds its buffer's 40 bytes"),
            std::string::npos)
      << call.status().message();
}

// RealRoundF32 rounds a double to the nearest float, so f32 arithmetic
// done in double and rounded is ONNX's f32 arithmetic; past float's range
// it gives the infinity an f32 operation would (the halfway point ties to
// even, which is the infinity), not undefined behavior.
TEST(CallShapesTest, RealRoundF32) {
  auto bits = [](double v) { return std::bit_cast<int64_t>(v); };
  std::vector<sc::ShapeNodeData> program;
  std::vector<double> inputs = {0.1,
                                1.0 / 3.0,
                                16777217.0,
                                0x1.fffffep127,
                                0x1.fffffefp127,
                                0x1.ffffffp127,
                                -1e300,
                                NAN};
  for (double v : inputs) {
    program.push_back({sc::ShapeOpcode::RealConstant, bits(v), 0});
    program.push_back({sc::ShapeOpcode::RealRoundF32,
                       static_cast<int64_t>(program.size()) - 1, 0});
  }
  auto noLeaves = [](sc::ShapeOpcode, int64_t, int64_t) { return false; };
  EXPECT_EQ(sc::checkShapeProgram(program, noLeaves),
            "shape node 14 is a real constant that is not finite");
  program.resize(program.size() - 2); // NaN is no constant a program holds
  ASSERT_EQ(sc::checkShapeProgram(program, noLeaves), "");
  std::vector<int64_t> values;
  std::vector<double> reals;
  ASSERT_EQ(sc::evaluateShapeProgram(
                program,
                [](sc::ShapeOpcode, int64_t, int64_t) { return std::nullopt; },
                values, nullptr, &reals),
            "");
  std::vector<double> want = {double(0.1f),   double(float(1.0 / 3.0)),
                              16777216.0,     0x1.fffffep127,
                              0x1.fffffep127, INFINITY,
                              -INFINITY};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(reals[2 * i + 1], want[i]) << inputs[i];
}

// Integer and real nodes do not mix but through RealFromInt and RealToInt.
TEST(CallShapesTest, RealNodesReadRealNodesOnly) {
  test::ModuleSpec spec = realSpec();
  spec.Functions[0].ShapeProgram[3] = {Op::RealMul, 0, 2};
  EXPECT_NE(verifyError(spec).find("shape node 3 (realmul) reads nodes 0 and "
                                   "2, not both earlier real ones"),
            std::string::npos)
      << verifyError(spec);
  spec = realSpec();
  spec.Functions[0].ShapeProgram[7] = {Op::Mul, 4, 6};
  EXPECT_NE(verifyError(spec).find("shape node 7 (mul) reads nodes 4 and 6, "
                                   "not both earlier integer ones"),
            std::string::npos)
      << verifyError(spec);
  spec = realSpec();
  spec.Functions[0].ShapeProgram[5] = {Op::RealToInt, 0, 0};
  EXPECT_NE(verifyError(spec).find("shape node 5 (int) reads node 0, not an "
                                   "earlier real one"),
            std::string::npos)
      << verifyError(spec);
  spec = realSpec();
  spec.Functions[0].ShapeProgram[1] = {Op::RealFromInt, 2, 0};
  EXPECT_NE(verifyError(spec).find("shape node 1 (real) reads node 2, not an "
                                   "earlier integer one"),
            std::string::npos)
      << verifyError(spec);
  spec = realSpec();
  spec.Functions[0].ShapeProgram[1] = {
      Op::RealConstant, std::bit_cast<int64_t>(double(INFINITY)), 0};
  EXPECT_NE(verifyError(spec).find("shape node 1 is a real constant that is "
                                   "not finite"),
            std::string::npos)
      << verifyError(spec);
}

TEST(CallShapesTest, ContradictingInputsAreOneLineErrors) {
  Loaded loaded(dynamicSpec());
  StatusOr<CallShapes> call = resolve(loaded, {{5}, {4}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f input 1 dimension 0 is 4 but must equal input 0 "
            "dimension 0, which is 5");
  call = resolve(loaded, {{5, 1}, {5}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f input 0 has rank 2, expected 1");
  // A static dimension must match.
  test::ModuleSpec spec = dynamicSpec();
  spec.Functions[0].Inputs[1].Shape = {3};
  Loaded fixed(spec);
  ASSERT_TRUE(fixed.verify().ok());
  call = resolve(fixed, {{3}, {4}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f input 1 dimension 0 is 4, expected 3");
}

TEST(CallShapesTest, OverflowingSizesAreErrors) {
  test::ModuleSpec spec = dynamicSpec();
  // n4 = n2 * n2: 2^42 bytes squared overflows int64.
  spec.Functions[0].ShapeProgram.push_back({Op::Mul, 2, 2});
  spec.Functions[0].Steps[0].BindingNodes[2] = {kNone, 4};
  Loaded loaded(spec);
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  StatusOr<CallShapes> call =
      resolve(loaded, {{int64_t(1) << 40}, {int64_t(1) << 40}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("shape node 4 (mul) overflows"),
            std::string::npos)
      << call.status().message();
  // An input beyond 2^48 bytes is refused before any evaluation.
  call = resolve(loaded, {{int64_t(1) << 47}, {1}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("larger than 2^48 bytes"),
            std::string::npos);
}

TEST(CallShapesTest, DivisionByZeroAndNegativeDifferencesAreErrors) {
  test::ModuleSpec spec = dynamicSpec();
  spec.Functions[0].ShapeProgram.push_back({Op::Constant, 0, 0});
  spec.Functions[0].ShapeProgram.push_back({Op::FloorDiv, 1, 4});
  Loaded divides(spec);
  ASSERT_TRUE(divides.verify().ok());
  StatusOr<CallShapes> call = resolve(divides, {{3}, {3}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("divides by zero"), std::string::npos);
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram.push_back({Op::Sub, 0, 1}); // 4 - n
  Loaded subtracts(spec);
  EXPECT_TRUE(resolve(subtracts, {{3}, {3}}).ok());
  call = resolve(subtracts, {{5}, {5}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("would be negative: 4 - 5"),
            std::string::npos);
}

TEST(CallShapesTest, RangesBeyondTheirBuffersAreErrors) {
  test::ModuleSpec spec = dynamicSpec();
  // The output binding starts at n2 and is n2 long: past the output.
  spec.Functions[0].Steps[0].BindingNodes[2] = {2, 2};
  Loaded loaded(spec);
  ASSERT_TRUE(loaded.verify().ok());
  StatusOr<CallShapes> call = resolve(loaded, {{3}, {3}});
  ASSERT_FALSE(call.ok());
  EXPECT_EQ(call.status().message(),
            "function @f step 0 binding 2 (offset 12 + length 12) exceeds its "
            "buffer's 12 bytes at these shapes");
}

TEST(CallShapesTest, UnorderedConflictsAtTheseShapesAreErrors) {
  test::ModuleSpec spec = dynamicSpec();
  // A second step writing the same output without waiting for the first.
  spec.Functions[0].Steps.push_back(spec.Functions[0].Steps[0]);
  Loaded loaded(spec);
  ASSERT_TRUE(loaded.verify().ok()) << loaded.verify().message();
  StatusOr<CallShapes> call = resolve(loaded, {{3}, {3}});
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.status().message().find("steps 0 and 1 touch the same bytes"),
            std::string::npos)
      << call.status().message();
}

TEST(CallShapesTest, GridsBeyondTwoToThe32AreErrors) {
  Loaded loaded(dynamicSpec());
  // Words 0, 1 = 2^40: ceil(2^40 / 64) workgroups.
  StatusOr<std::array<uint32_t, 3>> grid =
      resolveGrid(loaded.entry(), std::vector<uint32_t>{0, 256});
  ASSERT_FALSE(grid.ok());
  EXPECT_NE(grid.status().message().find("exceeds 2^32 workgroups"),
            std::string::npos);
  // A push constant above INT64_MAX is no extent.
  grid = resolveGrid(loaded.entry(), std::vector<uint32_t>{0, 0x80000000u});
  ASSERT_FALSE(grid.ok());
  EXPECT_NE(grid.status().message().find("has no value"), std::string::npos);
}

// The loader refuses malformed programs and references with a one-line
// error naming what is wrong.
TEST(CallShapesTest, MalformedProgramsAreRefusedAtLoad) {
  auto expectRefused = [](test::ModuleSpec spec, const std::string &part) {
    std::string error = verifyError(spec);
    EXPECT_NE(error.find(part), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  };
  test::ModuleSpec spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[2] = {Op::Mul, 0, 2}; // reads itself
  expectRefused(spec, "shape node 2 (mul) reads nodes 0 and 2");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[2] = {Op::Add, -1, 0};
  expectRefused(spec, "shape node 2 (add) reads nodes -1 and 0");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[0] = {static_cast<Op>(200), 0, 0};
  expectRefused(spec, "shape node 0 has unknown opcode 200");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[0] = {Op::Constant, -4, 0};
  expectRefused(spec, "shape node 0 is a negative constant -4");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[1] = {Op::InputDim, 2, 0};
  expectRefused(spec, "shape node 1 (dim 2, 0) names nothing");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[1] = {Op::InputDim, 0, 1};
  expectRefused(spec, "shape node 1 (dim 0, 1) names nothing");
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram[1] = {Op::PushConstant, 0, 0};
  expectRefused(spec, "shape node 1 (push 0, 0) names nothing");
  spec = dynamicSpec();
  spec.Functions[0].ShapeChecks = {{1, 9}};
  expectRefused(spec, "a shape check names nodes 1 and 9 of 4");
  spec = dynamicSpec();
  spec.Functions[0].ArenaSizeNode = 4;
  expectRefused(spec, "arena size node 4 is not one of 4");
  spec = dynamicSpec();
  spec.Functions[0].OutputDimNodes[0] = {1, 1};
  expectRefused(spec, "output 0 has 2 dimension nodes for rank 1");
  spec = dynamicSpec();
  spec.Functions[0].OutputDimNodes[0] = {};
  expectRefused(spec, "output 0 has a dynamic dimension but no dimension "
                      "nodes");
  spec = dynamicSpec();
  spec.Functions[0].Steps[0].BindingNodes = {{kNone, 2}};
  expectRefused(spec, "dispatch has 3 bindings but 1 binding node entries");
  spec = dynamicSpec();
  spec.Functions[0].Steps[0].BindingNodes[1] = {7, kNone};
  expectRefused(spec, "a binding names shape nodes 7 and");
  spec = dynamicSpec();
  spec.Functions[0].Steps[0].PushConstantNodes = {{1, 1}};
  expectRefused(spec, "a push constant node writes words 1 and 2 of 2");
  spec = dynamicSpec();
  spec.Functions[0].Steps[0].PushConstantNodes = {{0xFFFFFFFFu, 1}};
  expectRefused(spec, "a push constant node writes words 4294967295");
  spec = dynamicSpec();
  spec.Grids[0].Program[0] = {Op::PushConstant, 1, 0};
  expectRefused(spec, "grid program: shape node 0 (push 1, 0) names nothing");
  spec = dynamicSpec();
  spec.Grids[0].Nodes = {2, 3};
  expectRefused(spec, "a grid program needs its program and 3 nodes");
  spec = dynamicSpec();
  spec.Grids[0].Nodes = {2, 3, 4};
  expectRefused(spec, "grid node 4 is not one of the program's 4");
  // Without a program, nothing may be dynamic or refer to nodes.
  spec = dynamicSpec();
  spec.Functions[0].ShapeProgram.clear();
  spec.Functions[0].ShapeChecks.clear();
  spec.Functions[0].OutputDimNodes[0].clear();
  expectRefused(spec, "input 0: dimension 0 is -1, expected >= 0 (a dynamic "
                      "dimension needs a function with a shape program)");
  spec = dynamicSpec();
  spec.Functions[0].Inputs[0].Shape = {-2};
  expectRefused(spec, "input 0: dimension 0 is -2, expected >= 0");
}

} // namespace
} // namespace kiln::module
