//===- Passes.td - Kiln compiler passes --------------------*- tablegen -*-===//
//
// Every Kiln pass, grouped by phase. Constructors are generated; the logic of
// each pass lives in a function or pattern set other passes can reuse.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PASSES
#define KILN_COMPILER_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// input
//===----------------------------------------------------------------------===//

def VerifyInput : Pass<"kiln-verify-input", "mlir::ModuleOp"> {
  let summary = "Rejects programs Kiln cannot compile, naming the op";
  let description = [{
    Accepts the ops listed in `compiler/input/SupportedOps.def` (func,
    linalg, tensor, arith, math and tosa ops the pipeline lowers) on
    statically shaped tensors of supported element types. Anything else is
    an error at the op's location that names the op or the type, so users
    learn what to change.
  }];
}

def LowerInputOps : Pass<"kiln-lower-input-ops", "mlir::func::FuncOp"> {
  let summary = "Lowers accepted ops that no back end lowers";
  let description = [{
    `math.acosh`, `math.asinh` and `math.atanh` become `log`/`sqrt`
    formulas that stay accurate near 0 and do not overflow for large inputs
    (f16 and bf16 compute in f32); `math.fpowi` and `math.ipowi` become
    exponentiation by squaring; `math.absi`, `math.ctlz`, `math.cttz`, the
    float classifications and `math.sincos` become arith and simpler math
    ops; `tosa.apply_scale` becomes arith with 64-bit intermediates
    (upstream TosaToArith's rescale patterns); `linalg.pack` becomes pad,
    expand_shape and transpose, `linalg.unpack` transpose, collapse_shape and
    extract_slice. Target neutral: every back end receives ops it already
    lowers. An op left over is an error naming it.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::math::MathDialect",
                           "mlir::tensor::TensorDialect"];
}

def TosaCondIfToSelect : Pass<"kiln-tosa-cond-if-to-select",
                               "mlir::func::FuncOp"> {
  let summary = "Runs both branches of a tosa.cond_if and selects the results";
  let description = [{
    Kiln's plans have no conditional steps, so a tosa.cond_if (issue 19
    item 4) inlines both branches and makes each result a linalg.generic
    selecting elementwise by the condition, read as 0-d data. Branches with
    side effects and results of dynamic shape are refused with an error at
    the op.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TosaUnrollWhileLoops : Pass<"kiln-tosa-unroll-while-loops",
                                 "mlir::func::FuncOp"> {
  let summary = "Writes out a tosa.while_loop of a trip count known at "
                "compile time";
  let description = [{
    Kiln's plans have no loops (issue 19 item 4). A tosa.while_loop whose
    condition folds to a constant at every step, following the
    loop-carried values it reads from constant initial values through the
    ops' folders (a counter against a limit), runs its body a number of
    times known here: the body is cloned that many times (at most
    `kMaxUnrolledWhileSteps`). Any other loop is left to
    kiln-tosa-outline-control-flow (the runtime repeats it).
    Logic: `countWhileLoopSteps` (TosaUnrollWhileLoops.h).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def TosaOutlineControlFlow : Pass<"kiln-tosa-outline-control-flow",
                                   "mlir::ModuleOp"> {
  let summary = "Makes TOSA control flow known per call run by the runtime";
  let description = [{
    Issue 19 item 4. Runs after kiln-tosa-unroll-while-loops, which writes
    out the loops whose trip count follows from constants: each other
    tosa.while_loop at the top of a function has its body, then its
    condition on the values the body gives, made a function of the module
    on (iteration, condition, the loop's values, the values its regions
    read), and becomes the call of a loop without a trip count
    (compiler/host/LoopCalls.h), the condition on the first values computed
    where it was; kiln-split-phases makes it a loop phase. A loop inside
    another op's region, or inside such a loop, is an error at the op.
    Each tosa.cond_if at the top of a function with a result of dynamic
    shape (which kiln-tosa-cond-if-to-select cannot select between) has
    each branch made a function and becomes two loops of at most one step
    (buildBranchLoops), so only the branch taken runs.
    Logic: `outlineWhileLoop`, `outlineCondIf` (TosaOutlineControlFlow.h).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def TosaConcatToTensor : Pass<"kiln-tosa-concat-to-tensor",
                               "mlir::func::FuncOp"> {
  let summary = "Rewrites tosa.concat as tensor.concat";
  let description = [{
    Runs before upstream's tosa-to-tensor, which would write a concat as a
    chain of insert_slices into an empty tensor: one dispatch per operand,
    each copying everything inserted before it (and, on the GPU, needing a
    temporary of the whole result). tensor.concat is one dispatch that every
    back end lowers.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def DecomposeOps : Pass<"kiln-decompose-ops", "mlir::func::FuncOp"> {
  let summary = "Decomposes aggregate ops (softmax, concat) into linalg/tensor";
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

//===----------------------------------------------------------------------===//
// globalopt
//===----------------------------------------------------------------------===//

def SliceProducers : Pass<"kiln-slice-producers", "mlir::func::FuncOp"> {
  let summary = "Computes only the part of a tensor that a slice keeps";
  let description = [{
    A model that keeps part of a tensor (a ViT's class token, x[:, 0])
    would otherwise compute all of it. A linalg op whose every use is the
    same static, unit-stride slice of its one result becomes the op
    computing that slice (its TilingInterface result tile: inputs sliced
    to what the tile reads, reductions whole); a rank-reducing slice
    becomes a collapse of the tile. With upstream's patterns moving slices
    above reshapes and fills, the slice climbs producer by producer until
    a value is read whole or sliced differently (the keys and values every
    query of the last layer's attention reads), where it stays. Nothing
    is computed twice: an op read whole by anyone is left as it is.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ConvertConvLayout : Pass<"kiln-convert-conv-layout", "mlir::func::FuncOp"> {
  let summary = "Rewrites NHWC/FHWC convolutions to NHWC/HWCF";
  let description = [{
    The CPU code generator decomposes and vectorizes NHWC/HWCF convolutions;
    TOSA produces FHWC filters, so the filter is transposed once (folded
    away when it is a constant).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ConvertToChannelsLast
    : Pass<"kiln-convert-to-channels-last", "mlir::func::FuncOp"> {
  let summary = "Runs chains of 2-D convolutions channels-last (NHWC)";
  let description = [{
    For back ends whose convolution kernels want the channels innermost (the
    GPU's implicit GEMMs reduce over (KH, KW, C) and copy operands 16 bytes
    at a time). In a function with at least two 2-D convolutions, or one
    whose filter is a constant (its layout changed at compile time), every
    conv_2d_nchw_fchw, depthwise_conv_2d_nchw_chw and NCHW max/sum pooling
    becomes its NHWC form between transposes; the transposes then sink
    through elementwise generics and pads, compose with each other, fold
    into reductions that read them and into constant filters (dense and
    dense_resource), and rebuild broadcasts (a bias accumulator) in the new
    layout. What is left is a transpose where the chain meets the function's
    NCHW inputs and outputs or an op it cannot pass (a reshape).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def PadConvChannels : Pass<"kiln-pad-conv-channels", "mlir::func::FuncOp"> {
  let summary = "Pads a channels-last convolution's 1 to 3 input channels to 4";
  let description = [{
    For back ends that copy a convolution's input along its channels in
    4-, 8- or 16-byte pieces (the GPU's): a conv_2d_nhwc_hwcf over fewer
    than 4 channels (a network's RGB stem) reads its input padded with zero
    channels to 4 and its filter padded with zero weights (folded into a
    constant filter), which computes the same sums. A spatial zero pad of
    the input, also one before a transpose (the channels-last layout
    change), is applied around the channel pad, so that the convolution can
    still read it in place.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def DemoteContractions : Pass<"kiln-demote-contractions"> {
  let summary = "Multiplies f32 contractions' operands in f16 or bf16";
  let description = [{
    For --precision=f16 and bf16: every contraction and convolution whose
    payload is `out + a * b` on f32 operands and accumulator becomes a
    linalg.generic multiplying its operands rounded to `type` and extended
    back, accumulating in f32 as before (`out + f32(a') * f32(b')`, what
    the GPU back ends put on tensor cores). A constant operand is rounded
    at compile time (dense elements and dense_resource blobs); a padded
    one is rounded before its pad (by the rounded constant); any other by
    an elementwise truncf. Other ops, the function's signature and the
    results' types are left as they are.
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"f16\"",
           "The operands' type: f16 or bf16">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseElementwise : Pass<"kiln-fuse-elementwise"> {
  let summary = "Fuses elementwise linalg.generic ops, within a size bound";
  let description = [{
    Upstream's elementwise fusion (a generic whose result only one generic
    reads is merged into it; reshapes folded by expansion; fills and splat
    constants folded in; linalg and tensor reshape canonicalizations), with
    a bound: a fusion whose result would have more than
    `max-body-ops` operations in its body or more than `max-operands`
    operands is not made. Unbounded, a chain of N elementwise ops fuses
    into one generic by N merges that each copy the body so far, O(N^2)
    (a 4,000-node ONNX chain took 25 s); bounded, each merge copies at most
    the bound and a long chain becomes one dispatch per bound's worth.

    Into a contraction's or convolution's inputs only producers that move
    or cast their element (a transpose, a broadcast, an extf) are fused: a
    computing producer (a LayerNorm's normalization, a softmax's exp and
    division, a GELU) would be recomputed for every output that reads the
    element, and the GEMM kernels could no longer stage the operand in
    shared memory as it is (a ViT's projections ran as reductions). A named
    `linalg.transpose` read only by a contraction's input (attention's Kᵀ,
    the heads' output before the projection) is made a generic first, and
    so is a named contraction reading it (tosa.matmul's batch_matmul), so
    it folds into the contraction's map and is never stored.

    A cheap all-parallel producer (at most 8 body ops) that a reduction
    reads and something else reads too (a softmax's exp(x - max), read by
    the sum and the division) is copied for the reduction and fused there,
    so no dispatch stores it for both to read back. A generic that only
    rounds a contraction's result (the truncf after an f16 matmul's f32
    accumulator) is not fused into its consumer: it becomes the
    contraction's epilogue, and the wide result is never stored.
  }];
  let options = [
    Option<"maxBodyOps", "max-body-ops", "int64_t", "64",
           "most operations in a fused generic's body">,
    Option<"maxOperands", "max-operands", "int64_t", "32",
           "most operands (inputs and outputs) of a fused generic">,
  ];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SplitReduction : Pass<"kiln-split-reduction", "mlir::func::FuncOp"> {
  let summary = "Splits the reduction of contractions with few output tiles";
  let description = [{
    A GPU runs a contraction or convolution one output tile per workgroup,
    so one with a small output and a long reduction (ResNet50's 3x3
    convolutions at 7x7: 49 x 512 outputs, K = 4608) leaves most
    multiprocessors idle. This splits the reduction's input-channel loop
    into S parts: a contraction with S as a batch dimension computes S
    partial outputs from zero (A and B reshaped so the part is a dimension
    of its own), and a reduction adds them to the original accumulator in
    order (deterministic). S is the largest power of two that divides the
    channels, keeps at least `min-split-size` reduction steps per part and
    keeps the 32 x 32 output tiles times S at most `target-tiles`; nothing
    changes when that is 1; with f16 or bf16 operands each part also keeps a
    multiple of 32 reduction steps (the tensor-core kernel's step).
    Contractions with float or integer accumulators whose payload
    accumulates with an add. The target was the fastest of the settings
    tried on ResNet50 and MobileNetV2; the smallest part, 256 steps, keeps
    transformers' projections at K = 384 whole, whose sums of parts (a
    dispatch of their own) cost more than the parallelism gained
    (bench/README.md).
  }];
  let options = [
    Option<"targetTiles", "target-tiles", "int64_t", "1024",
           "32x32 output tiles (times the split) to aim for">,
    Option<"minSplitSize", "min-split-size", "int64_t", "256",
           "fewest reduction steps one part may have">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

//===----------------------------------------------------------------------===//
// dispatch
//===----------------------------------------------------------------------===//

def FormDispatches : Pass<"kiln-form-dispatches", "mlir::ModuleOp"> {
  let summary = "Groups ops into dispatch regions and outlines them";
  let description = [{
    Each compute root (a linalg op or a data-movement tensor op) becomes a
    dispatch together with the cheap producers of its operands (empty, fill,
    broadcasts, scalar constants) and the elementwise consumers of its result
    (reading it at their own indices, or through a permutation when the root
    is elementwise too),
    up to 512 operations (nested ones counted): a longer elementwise chain
    continues in the next dispatch, so no back end compiles one loop body of
    unbounded size. Each dispatch is outlined into a private function marked
    `kiln.dispatch` and called from the host function.

    With `fuse-input-pads`, a static `tensor.pad` by a constant whose only
    reader is the input of a convolution or pooling is computed in that
    op's dispatch instead of its own, for targets whose kernels read the
    padding as they load the input (GPUs): the padded tensor is never
    stored. A window op (a depthwise convolution or a pooling: every
    reduction loop indexes the input through a window) takes any constant;
    a convolution that also reduces over input channels (an implicit GEMM)
    takes a pad by zero of its window dimensions only.

    With `fuse-rows`, a row program (RowPrograms.h: LayerNorm, RMSNorm,
    softmax) is one dispatch: an elementwise op (the sink) with the
    reductions along its innermost dimension that it reads broadcast, and
    the elementwise ops and reshapes between them, every one of which only
    the program reads, for targets that run a row's reductions and elements
    in one kernel (GPUs, kiln-gpu-row-kernels). Its ops are taken first,
    from the last sink in the block up; an elementwise op that would join
    the dispatch of the contraction or other root it reads as that root's
    consumer stays there. A conversion of the sink that another op reads
    too (a LayerNorm rounded to f16 for a matmul and read in f32 by a
    residual add) joins the dispatch as a second result.

    With `fuse-attention`, an attention (Attention.h: S = Q . K^T, a
    softmax of an elementwise program of S along the keys, O = P . V, in
    f16 with f32 accumulation or in f32) is one dispatch with the consumers
    of O, for
    targets that run it as one kernel streaming over the keys
    (kiln-gpu-attention-kernels); its ops are taken before row programs.

    With `fuse-permuted-epilogues`, a contraction's (not an attention's)
    chain of consumers may end in one that reads the value before it
    through a permutation keeping the innermost dimension innermost, and
    nothing else (a transpose moving a projection's heads apart): the GEMM
    kernels compute at the contraction's indices and store through the
    permutation, so no dispatch of its own copies the projection. A named
    linalg.transpose so taken becomes a generic.

    Reshapes, and static slices whose elements are contiguous in their
    source from a multiple of 64 bytes (`aliasByteOffset`), stay in the
    host function: the host plan binds the bytes they view.
  }];
  let options = [
    Option<"fuseInputPads", "fuse-input-pads", "bool", /*default=*/"false",
           "Place pads that only a convolution's input reads in its dispatch">,
    Option<"fuseDynamicInputPads", "fuse-dynamic-input-pads", "bool",
           /*default=*/"false",
           "With fuse-input-pads, also a convolution's zero window padding "
           "over a batch known per call">,
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"false",
           "Make each row program (a normalization, a softmax) one dispatch">,
    Option<"fuseAttention", "fuse-attention", "bool", /*default=*/"false",
           "Make each attention (QK^T, softmax, PV) one dispatch">,
    Option<"fusePermutedEpilogues", "fuse-permuted-epilogues", "bool",
           /*default=*/"false",
           "End a contraction's dispatch with a transpose of its result">,
  ];
}

def DedupeDispatches : Pass<"kiln-dedupe-dispatches", "mlir::ModuleOp"> {
  let summary = "Merges structurally identical dispatch functions";
  let description = [{
    Dispatches with the same type and the same body (ops, attributes,
    operands and regions, locations aside; constants compared by value) are
    one: every call of a later one calls the first, and the later one is
    erased, so repeated blocks of a model (whose weights are bindings) share
    one entry point. Logic: `dedupeDispatches` (DispatchEquivalence.h).
  }];
}

def HoistDispatchScalars : Pass<"kiln-hoist-dispatch-scalars",
                                "mlir::ModuleOp"> {
  let summary = "Merges dispatches that differ only in scalar constants";
  let description = [{
    Dispatches identical except for the values of scalar `arith.constant`s
    (integers up to 64 bits, f16, bf16, f32, f64; not index) become the
    first of them, where each constant that differs becomes a scalar
    argument after the tensors; every call passes its own values, which the
    host plan records as the step's push constants. Constants with one
    value across the class, and those of dispatches equivalent to no other,
    stay in the body where they fold. Logic:
    `mergeDispatchesDifferingInScalars` (DispatchEquivalence.h).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def RowVariants : Pass<"kiln-row-variants", "mlir::ModuleOp"> {
  let summary = "Compiles GEMM dispatches over a per-call batch for several "
                "batch sizes, chosen per call";
  let description = [{
    Issue 19: a dispatch whose contraction or convolution has its output's
    outermost extent known per call only (a batch of images), with at least
    32 rows of the GEMM per index of it, gets a clone for each of the
    `rowBuckets()` (RowVariants.h), marked with the outer extent its kernel
    tiles assume (`kiln.assumed_outer_rows`). Each call of it in a function
    with dynamic shapes records them (`kiln.row_choices`): the host plan
    turns each into an entry point choice taken when the call's extent is
    at most the bucket's bound, so a batch of 1 runs tiles chosen for one
    image and not for 32. GPU targets only. Logic: `addRowVariants`.
  }];
}

//===----------------------------------------------------------------------===//
// host
//===----------------------------------------------------------------------===//

def SplitPhases : Pass<"kiln-split-phases", "mlir::ModuleOp"> {
  let summary = "Splits functions where the host reads values they compute";
  let description = [{
    Issue 19 item 4: a function whose extents depend on an element it
    computes (NonZero of a computed condition, through the count of true
    elements read on the host) becomes phases run one after another, each a
    public function marked `kiln.phase_of`, each reading on the host, as its
    own inputs, what earlier phases computed. The module's
    `kiln.phase_chains` records the function's type and where each phase's
    inputs and the function's results come from. A call of a loop the
    runtime repeats (compiler/host/LoopCalls.h: an ONNX Loop or If, a
    tosa.while_loop or tosa.cond_if decided per call) becomes a loop phase
    of its own, its body a phase function (`loop_carried`, `loop_outputs`
    in the chain). Functions that read nothing computed and run no such
    loop are left as they are. Logic: `splitIntoPhases`
    (compiler/host/Phases.h).
  }];
}

def DedupePhaseOutputs : Pass<"kiln-dedupe-phase-outputs", "mlir::ModuleOp"> {
  let summary = "Returns each value of a phase function once";
  let description = [{
    kiln-split-phases gives each value passing between phases a result of
    its own; passes after it (CSE) may make two of them one value, which a
    host plan with dynamic shapes cannot return twice. Each phase function
    then returns it once, and `kiln.phase_chains` reads the others from it:
    later phases' inputs and the function's outputs for an ordinary phase,
    `loop_outputs` for a loop phase's body. Logic: `dedupePhaseOutputs`
    (compiler/host/Phases.h).
  }];
}

def PlanHost : Pass<"kiln-plan-host", "mlir::ModuleOp"> {
  let summary = "Annotates host functions with their buffer plan";
  let description = [{
    Assigns every tensor in a host function to an input, output, constant or
    a slice of the transient arena (offsets from liveness) and records the
    plan as attributes, for inspection and tests. The module writer computes
    the same plan through `planHostFunction`.
  }];
}

//===----------------------------------------------------------------------===//
// codegen/common
//===----------------------------------------------------------------------===//

def BindDispatch : Pass<"kiln-bind-dispatch", "mlir::ModuleOp"> {
  let summary = "Turns tensor dispatch functions into buffer-binding form";
  let description = [{
    A dispatch `(tensor..., scalar...) -> (tensor...)` becomes
    `(memref..., scalar...) -> ()`: one memref per input then per output,
    read through `to_tensor restrict` and written with
    `materialize_in_destination`, then the push constant scalars.
  }];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

//===----------------------------------------------------------------------===//
// codegen/cpu
//===----------------------------------------------------------------------===//

def MaterializeInits : Pass<"kiln-materialize-inits", "mlir::ModuleOp"> {
  let summary = "Gives every linalg op in a dispatch a fresh destination";
  let description = [{
    An init the payload never reads becomes `tensor.empty`; an accumulator
    read from outside the dispatch's computation (an input binding, a
    constant, a slice) becomes a `linalg.copy` into `tensor.empty`. Tiling
    then fuses the copy into each workgroup's tile, instead of bufferization
    copying the whole accumulator in every workgroup.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def CpuTileAndVectorize : Pass<"kiln-cpu-tile-and-vectorize",
                               "mlir::func::FuncOp"> {
  let summary = "Tiles a dispatch to workgroups and vectors and vectorizes";
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def Bufferize : Pass<"kiln-bufferize", "mlir::ModuleOp"> {
  let summary = "One-shot bufferization of binding-form dispatches";
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::linalg::LinalgDialect"];
}

def DistributeToWorkgroups : Pass<"kiln-distribute-to-workgroups",
                                  "mlir::ModuleOp"> {
  let summary = "Maps the outer scf.forall of each dispatch to workgroup ids";
  let description = [{
    Appends three `index` workgroup-id arguments (x, y, z) to each dispatch,
    replaces the outermost scf.forall by its body indexed by the linearized
    workgroup id, and records `kiln.workgroup_count`.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def CpuLowerToLLVM : Pass<"kiln-cpu-lower-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lowers dispatches to the LLVM dialect with the CPU ABI";
  let description = [{
    Lowers vector, memref, scf and arithmetic to LLVM and wraps each dispatch
    in the CPU entry point ABI:
    `void f(void *const *bindings, const uint32_t *push, uint32_t x, y, z)`;
    scalar arguments are read from `push` as words
    (`compiler/dispatch/PushConstants.h`), their count recorded as
    `kiln.push_constant_count`.
  }];
  // Everything the nested upstream lowering pipeline creates on the way.
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::cf::ControlFlowDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::index::IndexDialect",
                           "mlir::ub::UBDialect",
                           "mlir::affine::AffineDialect"];
}

//===----------------------------------------------------------------------===//
// codegen/gpu
//===----------------------------------------------------------------------===//

def GpuSetTarget : Pass<"kiln-gpu-set-target", "mlir::ModuleOp"> {
  let summary = "Records the GPU target description on the module";
  let description = [{
    Sets the module's `kiln.gpu_target` dictionary, which every
    `kiln-gpu-*` pass reads: `vendor`, `arch`, `subgroup_size`,
    `processors`, `max_workgroup_threads`, `max_threads_per_processor`,
    `shared_memory_bytes` (static, per workgroup), `max_shared_memory_bytes`
    (with the kernel's opt-in), `processor_shared_memory_bytes` (what a
    processor's resident workgroups share), `reserved_shared_memory_bytes`
    (what each of them takes beyond its own use), `async_copy`, `tma` and `matrix` (the matrix
    instructions, e.g. `"mma_sync.m16n8k16.f16.f32"`). A backend passes the
    description of its chip; from the command line, `target` is the
    dictionary's text, or `chip` a name a registered chip table knows
    (`h100`, `sm_80`: the --cuda-target names). Either is checked before it
    is recorded.
  }];
  let options = [
    Option<"TargetText", "target", "std::string", "\"\"",
           "The kiln.gpu_target dictionary, as MLIR attribute text">,
    Option<"Chip", "chip", "std::string", "\"\"",
           "A chip or product name of a registered GPU target table">
  ];
}

def GpuContractionKernels : Pass<"kiln-gpu-contraction-kernels",
                                 "mlir::ModuleOp"> {
  let summary = "Writes contractions and convolutions as shared-memory GEMM kernels";
  let description = [{
    A dispatch in binding form whose result is one contraction or
    convolution on bindings, accumulating into a fill, a copy of a binding
    or an elementwise op of bindings, optionally followed by one elementwise
    epilogue reading other bindings, becomes a GEMM kernel over C[batch, m,
    n] = sum over k of A[batch, m, k] * B[batch, k, n], each of batch, m, n,
    k a group of the root's loops (a convolution is an implicit GEMM: m =
    (N, OH, OW), n = F, k = (KH, KW, C), A gathered from the input through
    the root's indexing map). 16x16 threads each compute TM x TN outputs
    (up to 8x8, down to 2x2 for small grids) in registers, over K in steps
    of BK (8 or 16) with the A and B tiles staged in shared memory
    (`memref.global`s in the workgroup address space) between barriers, the
    next step's tiles loaded into registers during the math. The root's and
    epilogues' payloads are cloned per element (a chain of elementwise
    epilogues, each reading the value before it, is applied in turn). The
    function gets its
    workgroup size and lowering configuration (below); other dispatches
    (depthwise convolutions included) are left alone.

    The tiles and the tensor cores follow the module's `kiln.gpu_target`
    (see kiln-gpu-set-target): outputs per thread shrink while there are
    fewer workgroups than the target has processors. When the target has
    `mma_sync.m16n8k16.f16.f32` and asynchronous copies, f16 x f16 -> f32
    multiply-adds (B N-innermost with N a multiple of 8; A K-innermost in
    16-byte runs, or gathered an element at a time) run on the tensor cores
    instead: 128 x 128, 128 x 64 or 64 x 64 tiles computing with
    `nvgpu.mma.sync` m16n8k16 from `nvgpu.ldmatrix` fragments, K tiles of
    32 in 2 to 4 static shared-memory stages filled by
    `nvgpu.device_async_copy`, the parts past M, N and K zero-filled and
    not stored. When the target also has `wgmma.m64n0k16.f16.f32` and
    the shared memory, a warpgroup per 64 rows issues
    `nvvm.wgmma.mma_async` m64nBNk16 instead (64 x 128, 128 x 128, 64 x 64
    or 128 x 64 tiles), from 3 to 8 stages of K tiles
    of 64 in 128-byte swizzled `gpu.dynamic_shared_memory` (the function gets
    `kiln.shared_memory_bytes`). An input padded by zero in the dispatch
    (kiln-form-dispatches' fuse-input-pads) is read from the unpadded
    binding by both kernels, zero where a window falls outside it.

    With `allow-tf32` (--precision=tf32), f32 x f32 -> f32 multiply-adds
    run on the tensor cores too, where the target has
    `mma_sync.m16n8k8.tf32.f32`: the mma.sync kernel's tiles with K steps
    of 16, A's fragments by `nvgpu.ldmatrix`, B's two elements a thread
    by shared loads (ldmatrix transposes only 16-bit elements, and wgmma
    reads tf32 B only K-innermost), each operand rounded to tf32 (to
    nearest) by `nvvm.convert.float.to.tf32` before `nvgpu.mma.sync`
    m16n8k8 `tf32Enabled`. Without it, IEEE f32 matmuls (not
    convolutions) of 1024 rows or more (batch times M, static), K of 96 or
    more and N of 64 or more (batched ones, K and N of 256 or more), in a
    grid of half the processors or more, A's rows copied in 16-byte runs,
    run on
    `wgmma.m64n0k8.tf32.f32` where
    the target has it, as 3xTF32: 128 x 128 or 128 x 64 tiles, K tiles of
    32, B copied as stored into plain stages; each step every thread
    clears the low 13 bits of A in place and writes what that left beside
    it, and writes B transposed (K-innermost, as tf32 wgmma reads it) with
    its remainders into one of two swizzled buffers; three
    `nvvm.wgmma.mma_async` m64nBNk8 a k8 (remainder of A by B, A by B's
    remainder, A by B) into an accumulator of the step's own, added to the
    tile's in f32 once the next step's are issued; `tf32_passes = 3` in
    the lowering config.

    Where the target has `mfma.m16n16k16.f16.f32` (or `.bf16.f32`) in
    64-lane subgroups (AMD CDNA), or `wmma`/`wmma_r4` of that shape in
    32-lane ones (RDNA3, RDNA4), f16 (bf16) multiply-adds of at least 16
    rows and columns run the SIMT kernel's threads, tiles and copies with
    K steps of 16, its wavefronts as 2 rows of 2 (wave64) or 4 (wave32),
    each computing 2 x 2 blocks of 16 x 16 or, for grids smaller than the
    chip, one, with `amdgpu.mfma` or `amdgpu.wmma` 16x16x16 from fragments
    read from the shared tiles in the instruction's lane layout.

    The lowering configuration, `kiln.lowering_config`: `kernel =
    "mma_contraction"` with `workgroup_tile = [BM, BN, BK]`, `warp_tile`,
    `stages` and the `instruction`; `kernel = "matrix_contraction"` with
    `workgroup_tile`, `wave_tile`, `stages = 1` and the `instruction`; or
    `kernel = "simt_contraction"` with `workgroup_tile = [BM, BN, BK]`,
    `thread_tile = [TM, TN]` and `stages = 1`; a convolution adds
    `implicit_gemm = [M, N, K]`.
  }];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", "false",
           "f32 multiply-adds may round their operands to tf32 on the "
           "tensor cores">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::nvgpu::NVGPUDialect",
                           "mlir::NVVM::NVVMDialect",
                           "mlir::amdgpu::AMDGPUDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuWindowKernels : Pass<"kiln-gpu-window-kernels", "mlir::ModuleOp"> {
  let summary = "Writes depthwise convolutions and poolings as window kernels";
  let description = [{
    A dispatch in binding form whose root slides a window over its input
    without reducing over channels (a depthwise convolution, a pooling:
    every reduction loop indexes the input only through a window `oh * s +
    kh * d`), accumulating into a fill, a copy of a binding or an
    elementwise op of bindings, optionally followed by one elementwise
    epilogue, becomes a kernel: a workgroup computes an output tile of up to
    a subgroup's width of channels (consecutive threads) x rows x columns,
    first copying the input box its windows read into shared memory (each
    thread's loads issued before its stores; an input padded by a constant
    in the dispatch, see kiln-form-dispatches' fuse-input-pads, read from
    the unpadded binding, the padding value outside it), then each thread computes
    R (up to 4) consecutive outputs of a row, with one filter load per
    window position for its R outputs. Where the channels are the innermost
    index of the input, filter and output, whole 16-byte vectors of them,
    the payload is elementwise and the vector kernel keeps a sixteenth of
    the target's resident threads, each thread takes a vector of channels
    (V: 8 f16, 4 f32): the box is copied and the window read a vector at a
    time, the payload applied to vectors. The function records its
    workgroup size and `kiln.lowering_config = {kernel = "window",
    workgroup_tile (the output tile, per output dimension), thread_tile =
    [R], stages = 1, vector_width = V (when more than 1)}`; a window whose
    box would exceed half the target's static shared memory
    (`kiln.gpu_target`), and every other dispatch, is left alone.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def GpuAttentionKernels : Pass<"kiln-gpu-attention-kernels", "mlir::ModuleOp"> {
  let summary = "Writes attention (QK^T, softmax, PV) as one kernel";
  let description = [{
    A dispatch in binding form whose stored result is an attention's output
    contraction O = P . V, perhaps followed by elementwise epilogues
    (Attention.h; kiln-form-dispatches' fuse-attention makes them), becomes
    one kernel on mma.sync m16n8k16, where the target has it (cp.async, f16
    mma.sync, 32-thread subgroups): a workgroup of four warps streams over
    the keys 64 (or 32) at a time, K and V double-buffered in shared memory
    by cp.async. Its warps take 16 query rows each, as many query blocks as
    leave no more than half the processors idle; the warps sharing a query
    block split each step's keys between them. Each warp computes its
    scores with mma.sync, applies the softmax's x (scale, mask, roundings)
    to them in registers, keeps each row's running max and sum in f32 and
    rescales its partial O as the max grows (an online softmax), and
    multiplies the rounded probabilities, still in registers, by V; split
    warps then merge their maxes, sums and scaled outputs through shared
    memory. S and P are never stored.

    An f32 attention runs the same kernel on mma.sync m16n8k8 tf32 (f32
    tiles, so 32 keys a step for a head of 64): each fragment split into
    a tf32 part and a tf32 remainder, three instructions per product
    (3xTF32: f32's accuracy), or with `allow-tf32` (--precision=tf32) one
    on the rounded fragments. P stays f32 in registers; as an m16n8k8
    operand its keys 2t and 2t + 1 are the instruction's k = t and t + 4,
    and V's two elements a thread are loaded at those keys.

    The function records `kiln.lowering_config = {kernel = "attention",
    workgroup_rows, keys_per_step, key_splits, instruction}` (f32 adds
    `tf32_passes`, 3 or 1) and its workgroup size; other dispatches are
    left alone.
  }];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", "false",
           "f32 attention multiplies its operands rounded to tf32 once "
           "(else as 3xTF32)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::NVVM::NVVMDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::math::MathDialect",
                           "mlir::nvgpu::NVGPUDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuRowKernels : Pass<"kiln-gpu-row-kernels", "mlir::ModuleOp"> {
  let summary = "Writes row programs (normalizations, softmax) as one kernel";
  let description = [{
    A dispatch in binding form whose stored result is the sink of a row
    program with reductions (RowPrograms.h; kiln-form-dispatches'
    fuse-rows makes them) becomes a kernel in which T consecutive threads,
    whole subgroups, run one row: for each reduction in turn every thread
    reduces a strided share of the reduced elements, computed from the
    bindings, the lanes combine theirs with `gpu.shuffle xor` and the
    subgroups through a shared buffer of the reduction's own after a
    barrier, so every thread holds the row's value; then each thread
    computes and stores its share of the row's elements. Tensors between
    the reductions and the sink are never stored. T is the power of two
    that gives each thread about 4 elements of the longest reduction or
    row, between the subgroup width (`kiln.gpu_target`) and 256; a
    workgroup runs 256 / T rows, halved while that leaves fewer workgroups
    than the target has processors. The function records `kiln.lowering_config
    = {kernel = "row", threads_per_row, rows_per_workgroup, reductions}`
    and its workgroup size; other dispatches are left alone. A second
    result that converts the sink (kiln-form-dispatches' fuse-rows adds
    one) is stored beside it from the same value.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuReductionKernels : Pass<"kiln-gpu-reduction-kernels",
                               "mlir::ModuleOp"> {
  let summary = "Writes reduction dispatches as kernels splitting each output";
  let description = [{
    A dispatch in binding form whose result is one reduction (payload
    `combine(f(inputs), out)` with add, mul, min, max, and, or or xor),
    reading bindings through elementwise ops, optionally followed by
    elementwise consumers, becomes a kernel in which G threads share each
    output: each reduces a strided share of the reduced elements, the lanes
    of a subgroup (the width `kiln.gpu_target` gives) combine theirs with
    `gpu.shuffle xor`, and subgroups through
    shared memory after a barrier; the output's first thread then adds the
    initial value, applies the consumers and stores. Layout `rows` (reduction
    innermost in memory: G consecutive threads per output) or `columns`
    (consecutive threads on consecutive outputs, G groups of them splitting
    the reduction); outputs are split until the target's resident threads
    are busy. The function records `kiln.lowering_config = {kernel =
    "reduction", layout, threads_per_output, outputs_per_workgroup}` and its
    workgroup size; other
    dispatches (several results, other combiners, contractions and
    convolutions, at most 4 elements per output) are left alone.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def GpuTile : Pass<"kiln-gpu-tile", "mlir::func::FuncOp"> {
  let summary = "Tiles a dispatch to GPU workgroups and threads";
  let description = [{
    Static `tensor.pad`s, `tensor.concat`s, `tensor.extract_slice`s and
    `tensor.insert_slice`s first become elementwise gathers (a
    linalg.generic loading each element from where it lives, or computing
    a pad's padding value); a pad, concat or extract_slice may have dynamic
    dimensions (issue 19) that it copies whole (not padded, joined or
    sliced), its gather sized by the op's reified extents. The
    root's parallel loops are then tiled into an `scf.forall` mapped to
    blocks (tiles of up to 1024 elements, filled from the innermost loop
    outwards), and each tile into an `scf.forall` of one-element tiles mapped
    to threads; reduction loops stay whole, so each thread reduces its own
    output. A dynamic loop (extents from push constants, issue 19) is taken
    as a long one: its tile is what is left of the 1024, the last tile
    partial, and it is never vectorized; where the root reduces, a
    workgroup then takes 256 outputs, one a thread, and the config records
    `unroll_reductions = 8` (kiln-gpu-unroll-reductions). Dispatches with
    dynamic shapes come here but for a reduction kernel over a dynamic
    reduced extent. Producers are fused at both levels. Several results are tiled
    together when one op has them all, or when every other stored op is an
    elementwise producer fused into the last one's tiles through a
    permutation (its tiles are yielded too); otherwise, and when the root is
    not tileable, the dispatch is left for one thread.

    In an elementwise dispatch whose ops all read their operands along the
    innermost dimension or broadcast over it, each thread instead takes V
    contiguous elements (16 bytes of the widest element type, when V divides
    the innermost extent; workgroup tiles of 256 x V) and its tile is
    vectorized. The function records `kiln.lowering_config = {kernel =
    "tiled", workgroup_tile, vector_width = V}` (V only when above 1).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::vector::VectorDialect"];
}

def GpuUnrollReductions : Pass<"kiln-gpu-unroll-reductions",
                               "mlir::func::FuncOp"> {
  let summary = "Unrolls a tiled dispatch's per-thread reduction loops";
  let description = [{
    In a dispatch whose `kiln.lowering_config` has `unroll_reductions = N`
    (kiln-gpu-tile: a thread per output over a dynamic extent), each
    innermost `scf.for` with a constant trip count is unrolled by N (fully
    when it runs N times or fewer; by the largest power of two dividing its
    trip count otherwise), so a thread issues the loads of N steps before
    it waits for the first: its outputs' reductions were latency-bound.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

def GpuDistributeToThreads : Pass<"kiln-gpu-distribute-to-threads",
                                  "mlir::ModuleOp"> {
  let summary = "Maps thread loops of distributed dispatches to thread ids";
  let description = [{
    Each thread-mapped `scf.forall` becomes an `scf.for` over its linearized
    iterations from `gpu.thread_id x` strided by the workgroup's 256
    threads; `kiln.workgroup_size` is recorded. When an op outside those
    loops writes a binding (each thread would repeat it), the workgroup is
    one thread running everything (`kiln.lowering_config = {kernel =
    "one_thread"}`).

    In a function whose lowering configuration has `vector_width = V`,
    transfers become vector
    loads and stores, and each thread loop is versioned on every binding
    being 16-byte aligned: that version declares its V-element binding
    accesses aligned to their size (single 16-byte loads and stores), the
    other keeps element alignment.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::vector::VectorDialect"];
}

def GpuOutlineKernels : Pass<"kiln-gpu-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Moves distributed dispatches into a gpu.module as kernels";
  let description = [{
    Each dispatch `(bindings..., scalars..., wg_x, wg_y, wg_z)` becomes a
    `gpu.func` kernel of `gpu.module @kiln_kernels` taking the bindings,
    then each scalar as its push constant words (i32, decoded in the
    kernel), with the workgroup ids read from `gpu.block_id` and its launch
    metadata (`kiln.workgroup_size`, `kiln.workgroup_count`,
    `kiln.binding_count`, `kiln.push_constant_count`, `known_block_size`)
    as attributes. A grid computed per dispatch (dynamic shapes:
    `kiln.workgroup_count_program` and `_nodes`) moves with it, each
    PushConstant leaf renumbered from its i64 argument to that argument's
    first word. A heap temporary is an error.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

#endif // KILN_COMPILER_PASSES
