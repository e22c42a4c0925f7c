//===- Phases.h - Functions split where the host reads computed values ----===//
//
// Issue 19 item 4: an extent may depend on a value the function computes
// (NonZero of a computed condition: how many of its elements are true).
// A host plan evaluates every extent before its first step runs, from the
// call's input shapes and the input elements it reads, so such a function
// is split into *phases*: functions run one after another, each reading on
// the host, as its own inputs, what earlier ones computed. The runtime runs
// them in turn (module.fbs Function.phases), the values passing between
// them left in device buffers.
//
// A function F becomes public functions `F_phase0` .. `F_phaseN`, each
// marked `kiln.phase_of = "F"`, and an entry of the module's
// `kiln.phase_chains` array naming F, its type and attributes, and for
// each phase and for F's results where each value comes from (a PhaseChain).
// A loop the runtime repeats (LoopCalls.h) is a phase of its own: its body
// is the phase's function, run once per step (module.fbs PhaseLoop).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HOST_PHASES_H
#define KILN_COMPILER_HOST_PHASES_H

#include "compiler/host/LoopCalls.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kiln {

/// The module attribute listing the functions split into phases.
inline constexpr llvm::StringLiteral kPhaseChainsAttrName = "kiln.phase_chains";

/// Where a phase's input or a phased function's output comes from: output
/// `Index` of phase `Phase`, or with Phase == kFunctionInput the function's
/// input `Index`.
struct PhaseSource {
  static constexpr int64_t kFunctionInput = -1;
  int64_t Phase = kFunctionInput;
  int64_t Index = 0;
};

/// A function split into phases, as `kiln.phase_chains` records it.
struct PhaseChain {
  std::string Name;
  mlir::FunctionType Type;
  mlir::ArrayAttr ArgAttrs, ResAttrs; // may be null
  std::string SpecializationOf;       // empty: none
  std::string PhaseOf; // the function whose loop phase repeats it, or empty
  std::vector<std::string> Phases; // function names, in order
  std::vector<std::vector<PhaseSource>> PhaseInputs;
  /// Per phase: -1 where it calls its function once, else the number of
  /// values it carries as a loop phase repeating its function (the body).
  std::vector<int64_t> LoopCarried;
  /// Per phase: a loop phase's LoopCall::Outputs (empty otherwise).
  std::vector<std::vector<int64_t>> LoopOutputs;
  std::vector<PhaseSource> Outputs;
};

/// Splits `func` where its host reads an element of a tensor it computes
/// (`isHostRead` of a value no argument holds): each op runs in the first
/// phase where all it reads is known, a read one phase after the tensor it
/// reads; host scalar arithmetic and constants are recomputed in every phase
/// using them, tensors pass from phase to phase as outputs and inputs.
/// Returns the chain, or std::nullopt where `func` reads nothing computed
/// (left as it is); failure after an error at the op.
mlir::FailureOr<std::optional<PhaseChain>>
splitIntoPhases(mlir::func::FuncOp func);

/// Makes each phase function of `module` return each value once (passes
/// after the split may merge two of its results), rewriting the chains'
/// sources and loop outputs that read the others; failure after an error
/// where `kiln.phase_chains` is malformed.
mlir::LogicalResult dedupePhaseOutputs(mlir::ModuleOp module);

/// The chains `module` records (kiln.phase_chains); failure after an error
/// where the attribute is malformed.
mlir::FailureOr<std::vector<PhaseChain>> phaseChainsOf(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_COMPILER_HOST_PHASES_H
