//===- HostPlan.h - Steps and buffers of a host function ------------------===//
#ifndef KILN_COMPILER_HOST_HOSTPLAN_H
#define KILN_COMPILER_HOST_HOSTPLAN_H

#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/host/Phases.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "schema/ShapeProgram.h"
#include "schema/StepDependencies.h"
#include "llvm/ADT/DenseMap.h"

#include <string>
#include <variant>
#include <vector>

namespace kiln {

enum class Storage : uint8_t { Input, Output, Constant, Arena };

struct BufferSlice {
  Storage Kind = Storage::Arena;
  uint32_t Index = 0;
  uint64_t Offset = 0;
  uint64_t Length = 0;
  /// In a function with dynamic shapes: the shape program nodes giving the
  /// offset and length per call (schema::kNoShapeNode: the static value).
  uint32_t OffsetNode = schema::kNoShapeNode;
  uint32_t LengthNode = schema::kNoShapeNode;
};

/// What a dispatch does with a binding (module.fbs BindingAccess).
enum class BindingAccess : uint8_t { Read, Write, ReadWrite };

struct DispatchStepPlan {
  std::string EntryPoint;
  std::vector<BufferSlice> Bindings; // tensor operands, then results
  std::vector<BindingAccess> Access; // one per binding
  /// The call's scalar operands (constants) as words
  /// (compiler/dispatch/PushConstants.h).
  std::vector<uint32_t> PushConstants;
  /// (word, node): words computed per call, the 64-bit value of a shape
  /// program node written at `word` and `word + 1` over zeros in
  /// PushConstants (module.fbs PushConstantNode).
  std::vector<std::pair<uint32_t, uint32_t>> PushConstantNodes;
  /// (node, entry point): kernels run instead of EntryPoint on a call
  /// where the node is not zero, the first such one (module.fbs
  /// EntryPointChoice).
  std::vector<std::pair<uint32_t, std::string>> EntryPointChoices;
};
struct CopyStepPlan {
  BufferSlice Source, Target;
};
struct FillStepPlan {
  BufferSlice Target;
  uint32_t Pattern = 0;
  uint8_t PatternLength = 1;
};
using HostStep = std::variant<DispatchStepPlan, CopyStepPlan, FillStepPlan>;

struct HostPlan {
  std::string Name;
  std::vector<mlir::RankedTensorType> Inputs, Outputs;
  uint64_t ArenaSize = 0;
  std::vector<HostStep> Steps;
  /// Steps[i] waits for the steps Dependencies[i] names and no others
  /// (ascending; see schema/StepDependencies.h).
  std::vector<std::vector<uint32_t>> Dependencies;

  /// Dynamic shapes (issue 19; empty for static functions): the shape
  /// program evaluated per call, the node pairs a call's inputs must make
  /// equal, the node giving the arena's size, and each output's dimension
  /// nodes (empty for a static output).
  std::vector<schema::ShapeNodeData> ShapeProgram;
  std::vector<std::pair<uint32_t, uint32_t>> ShapeChecks;
  /// What each check stands for ("" for two sizes that must agree), as
  /// many as ShapeChecks once planned: a model's own condition on values
  /// it reads per call (cf.assert on the host) says it in its words.
  std::vector<std::string> ShapeCheckMessages;
  uint32_t ArenaSizeNode = schema::kNoShapeNode;
  std::vector<std::vector<uint32_t>> OutputDimNodes;
  /// Each input's dimension bounds (`kiln.dim_min`/`kiln.dim_max` argument
  /// attributes: --input-shape=NAME:MIN..MAX), checked per call; empty for
  /// an input without.
  std::vector<std::vector<int64_t>> InputDimMin, InputDimMax;
  /// For a specialization (`kiln.specialization_of`, written by
  /// kiln-compile --specialize): the general function it stands in for on
  /// the calls its signature accepts; empty otherwise.
  std::string SpecializationOf;
  /// A phased function (compiler/host/Phases.h; no steps): its phases'
  /// functions, where each one's inputs come from, and where its outputs
  /// come from. Empty for any other function.
  std::vector<std::string> Phases;
  std::vector<std::vector<PhaseSource>> PhaseInputs;
  /// Per phase: -1, or the values a loop phase carries (its function is
  /// the loop's body; PhaseChain::LoopCarried).
  std::vector<int64_t> PhaseLoopCarried;
  std::vector<std::vector<int64_t>> PhaseLoopOutputs;
  std::vector<PhaseSource> PhaseOutputs;
  /// For a phase (`kiln.phase_of`): the phased function it belongs to.
  std::string PhaseOf;
};

/// Module-wide constant data, 64-byte aligned entries, deduplicated.
class ConstantPool {
public:
  /// Adds `attr`'s bytes (dense or dense_resource) and returns their offset;
  /// fails when a resource's blob is missing (elided or never defined).
  mlir::FailureOr<uint64_t> add(mlir::ElementsAttr attr);
  const std::vector<uint8_t> &data() const { return Data; }

private:
  std::vector<uint8_t> Data;
  llvm::DenseMap<mlir::Attribute, uint64_t> Offsets;
  // Offsets of the entries by a hash of their bytes.
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<uint64_t, 1>> ByContent;
};

/// Bytes a dense row-major tensor of `type` occupies (i1: one per element).
uint64_t tensorByteSize(mlir::RankedTensorType type);

/// Alignment of every arena slice and constant: what dispatches may assume
/// of their bindings.
inline constexpr uint64_t kBufferAlignment = kBindingAlignment;

/// Plans `func` (after dispatch formation): every tensor gets a storage
/// location, dispatch results live in one arena whose slices are reused once
/// their values are dead, and results land directly in output buffers where
/// possible.
mlir::FailureOr<HostPlan> planHostFunction(mlir::func::FuncOp func,
                                           ConstantPool &pool);

/// Plans a function with dynamic dimensions (planHostFunction calls it):
/// see DynamicHostPlan.cpp.
mlir::FailureOr<HostPlan> planDynamicHostFunction(mlir::func::FuncOp func,
                                                  ConstantPool &pool);

/// A function attribute naming the function this one specializes
/// (kiln-compile --specialize; HostPlan::SpecializationOf).
inline constexpr llvm::StringLiteral kSpecializationOfAttrName =
    "kiln.specialization_of";

/// The function's input and output types as the module declares them
/// (unsigned integers where marked `kiln.unsigned`).
void setBoundaryTypes(mlir::func::FuncOp func, HostPlan &plan);

/// The plan of a phased function: its signature and phases, no steps.
HostPlan planPhasedFunction(const PhaseChain &chain);

/// The bytes `step` reads and writes, in the form step dependencies are
/// derived from.
std::vector<schema::StepAccess> stepAccesses(const HostStep &step);

} // namespace kiln

#endif // KILN_COMPILER_HOST_HOSTPLAN_H
