// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-plan-host %s | FileCheck %s

// The plan is written as `kiln.arena_size` and one string per step:
// `dispatch @callee <operand slices> <result slices>`, `copy <src> -> <dst>`,
// `fill <dst> pattern <bits>/<bytes>`; a slice is `kind[index][begin:end]`.
// `kiln.step_dependencies` lists, per step, the earlier steps it waits for.

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// A dispatch result that is returned is written straight into the output.
// CHECK-LABEL: func.func @direct_output(
// CHECK-SAME:    kiln.arena_size = 0 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] output0[0:64]"]
func.func @direct_output(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// Dispatch bodies are not planned.
// CHECK-NOT: kiln.steps
// CHECK:     func.func private @body(
// CHECK-NOT: kiln.steps
func.func private @body(%x: tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch} {
  return %x : tensor<16xf32>
}

// -----

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// A chain of three dispatches needs two arena slots: the first intermediate
// is still being read while the second is written.
// CHECK-LABEL: func.func @chain3(
// CHECK-SAME:    kiln.arena_size = 128 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[64:128] output0[0:64]"]
func.func @chain3(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = call @d(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = call @d(%1) : (tensor<16xf32>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// With four, the third result reuses the first's slot once it is dead.
// CHECK-LABEL: func.func @chain4(
// CHECK-SAME:    kiln.arena_size = 128 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[64:128] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] output0[0:64]"]
func.func @chain4(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = call @d(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = call @d(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = call @d(%2) : (tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}
func.func private @d2(tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// Each step waits for the steps it reads from, and, where the arena reuses
// a dead value's bytes, for the steps that read them (step 2 overwrites
// what step 1 read).
// CHECK-LABEL: func.func @chain_dependencies(
// CHECK-SAME:    kiln.arena_size = 128 : i64
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>, array<i32: 1>, array<i32: 2>]
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[64:128] arena[0:64]",
func.func @chain_dependencies(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = call @d(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = call @d(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = call @d(%2) : (tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// Two chains that share no data: no step of one waits for a step of the
// other. The second chain does not reuse the first one's dead bytes, which
// would make it wait for their readers.
// CHECK-LABEL: func.func @two_chains(
// CHECK-SAME:    kiln.arena_size = 256 : i64
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>, array<i32: 1>, array<i32>, array<i32: 3>, array<i32: 4>]
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[64:128] output0[0:64]",
// CHECK-SAME:                  "dispatch @d input1[0:64] arena[128:192]",
// CHECK-SAME:                  "dispatch @d arena[128:192] arena[192:256]",
// CHECK-SAME:                  "dispatch @d arena[192:256] output1[0:64]"]
func.func @two_chains(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %a1 = call @d(%a0) : (tensor<16xf32>) -> tensor<16xf32>
  %a2 = call @d(%a1) : (tensor<16xf32>) -> tensor<16xf32>
  %b0 = call @d(%y) : (tensor<16xf32>) -> tensor<16xf32>
  %b1 = call @d(%b0) : (tensor<16xf32>) -> tensor<16xf32>
  %b2 = call @d(%b1) : (tensor<16xf32>) -> tensor<16xf32>
  return %a2, %b2 : tensor<16xf32>, tensor<16xf32>
}

// Two branches from one value, joined: the branches wait only for the
// fork, the join for both, and the join's own step (after both branches)
// may reuse the fork's bytes.
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME:    kiln.arena_size = 192 : i64
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>, array<i32: 0>, array<i32: 1, 2>, array<i32: 3>]
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[128:192]",
// CHECK-SAME:                  "dispatch @d2 arena[64:128] arena[128:192] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] output0[0:64]"]
func.func @diamond(%x: tensor<16xf32>) -> tensor<16xf32> {
  %p = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %q = call @d(%p) : (tensor<16xf32>) -> tensor<16xf32>
  %r = call @d(%p) : (tensor<16xf32>) -> tensor<16xf32>
  %s = call @d2(%q, %r) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %t = call @d(%s) : (tensor<16xf32>) -> tensor<16xf32>
  return %t : tensor<16xf32>
}

// -----

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}
func.func private @d2(tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// A value stays live until its last use: %0 is read by the last dispatch,
// so nothing may reuse its slot before then.
// CHECK-LABEL: func.func @long_lived(
// CHECK-SAME:    kiln.arena_size = 192 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @d arena[64:128] arena[128:192]",
// CHECK-SAME:                  "dispatch @d2 arena[0:64] arena[128:192] output0[0:64]"]
func.func @long_lived(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = call @d(%0) : (tensor<16xf32>) -> tensor<16xf32>
  %2 = call @d(%1) : (tensor<16xf32>) -> tensor<16xf32>
  %3 = call @d2(%0, %2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}

// -----

// Returned inputs and constants are copied into the outputs; a value
// returned twice is copied from the output it was written to first.

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// CHECK-LABEL: func.func @copies(
// CHECK-SAME:    kiln.arena_size = 0 : i64
// CHECK-SAME:    kiln.steps = ["copy input0[0:64] -> output0[0:64]",
// CHECK-SAME:                  "copy constant[0:16] -> output1[0:16]"]
func.func @copies(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %x, %k : tensor<16xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @returned_twice(
// CHECK-SAME:    kiln.arena_size = 0 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:64] output0[0:64]",
// CHECK-SAME:                  "copy output0[0:64] -> output1[0:64]"]
func.func @returned_twice(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<4x4xf32>) {
  %0 = call @d(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %e = tensor.expand_shape %0 [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  return %0, %e : tensor<16xf32>, tensor<4x4xf32>
}

// -----

// Non-splat constants live in one 64-byte-aligned pool, deduplicated.

func.func private @dk(tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// CHECK-LABEL: func.func @constant_pool(
// CHECK-SAME:    kiln.arena_size = 0 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @dk input0[0:64] constant[0:16] constant[64:80] constant[0:16] output0[0:64]"]
func.func @constant_pool(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %a2 = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = call @dk(%x, %a, %b, %a2) : (tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Splat constants are not stored: a fill step writes them into the arena
// right before their first use, or straight into an output.
// 1.0f = 0x3F800000 = 1065353216; f16 -2.0 = 0xC000 = 49152.

func.func private @d2(tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}

// CHECK-LABEL: func.func @splats(
// CHECK-SAME:    kiln.arena_size = 64 : i64
// CHECK-SAME:    kiln.steps = ["fill arena[0:64] pattern 1065353216/4",
// CHECK-SAME:                  "dispatch @d2 input0[0:64] arena[0:64] output0[0:64]",
// CHECK-SAME:                  "fill output1[0:64] pattern 7/4",
// CHECK-SAME:                  "fill output2[0:8] pattern 49152/2"]
func.func @splats(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xi32>, tensor<4xf16>) {
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %seven = arith.constant dense<7> : tensor<16xi32>
  %m2 = arith.constant dense<-2.0> : tensor<4xf16>
  %0 = call @d2(%x, %one) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %0, %seven, %m2 : tensor<16xf32>, tensor<16xi32>, tensor<4xf16>
}

// -----

// Reshapes alias their operand: an expanded input is read from input0, and
// a collapsed/expanded intermediate shares its producer's arena slice.

func.func private @d(tensor<16xf32>) -> tensor<16xf32> attributes {kiln.dispatch}
func.func private @dv(tensor<4x4xf32>) -> tensor<4x4xf32> attributes {kiln.dispatch}

// CHECK-LABEL: func.func @aliases(
// CHECK-SAME:    kiln.arena_size = 128 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @dv input0[0:64] arena[0:64]",
// CHECK-SAME:                  "dispatch @d arena[0:64] arena[64:128]",
// CHECK-SAME:                  "dispatch @dv arena[64:128] output0[0:64]"]
func.func @aliases(%x: tensor<16xf32>) -> tensor<16xf32> {
  %xe = tensor.expand_shape %x [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  %0 = call @dv(%xe) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = tensor.collapse_shape %0 [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %1 = call @d(%c) : (tensor<16xf32>) -> tensor<16xf32>
  %e = tensor.expand_shape %1 [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  %2 = call @dv(%e) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.collapse_shape %2 [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Compute left on the host is an error: it should have been in a dispatch.

func.func @host_compute(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'linalg.exp' cannot run on the host; it was expected inside a dispatch}}
  %0 = linalg.exp ins(%x : tensor<16xf32>) outs(%x : tensor<16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func private @qkv(tensor<16xf32>) -> tensor<3x2x16xf32> attributes {kiln.dispatch}
func.func private @use(tensor<1x2x16xf32>) -> tensor<1x2x16xf32> attributes {kiln.dispatch}

// Contiguous slices at multiples of 64 bytes (the heads of a [3, 2, 16]
// tensor: 128 bytes each) are views of the bytes they take: each reader
// binds its part of the producer's result, and one returned is copied out.
// A slice starting 72 bytes in is no view: kiln-form-dispatches leaves it
// in a dispatch, and the host refuses it.
// CHECK-LABEL: func.func @head_views(
// CHECK-SAME:    kiln.arena_size = 384 : i64
// CHECK-SAME:    kiln.steps = ["dispatch @qkv input0[0:64] arena[0:384]", "dispatch @use arena[128:256] output0[0:128]", "copy arena[256:384] -> output1[0:128]"]
func.func @head_views(%x: tensor<16xf32>) -> (tensor<1x2x16xf32>, tensor<1x2x16xf32>) {
  %0 = call @qkv(%x) : (tensor<16xf32>) -> tensor<3x2x16xf32>
  %k = tensor.extract_slice %0[1, 0, 0] [1, 2, 16] [1, 1, 1] : tensor<3x2x16xf32> to tensor<1x2x16xf32>
  %v = tensor.extract_slice %0[2, 0, 0] [1, 2, 16] [1, 1, 1] : tensor<3x2x16xf32> to tensor<1x2x16xf32>
  %1 = call @use(%k) : (tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  return %1, %v : tensor<1x2x16xf32>, tensor<1x2x16xf32>
}

// -----

func.func private @make(tensor<16xf32>) -> tensor<2x16xf32> attributes {kiln.dispatch}

func.func @unaligned_slice(%x: tensor<16xf32>) -> tensor<1x14xf32> {
  %0 = call @make(%x) : (tensor<16xf32>) -> tensor<2x16xf32>
  // expected-error @below {{'tensor.extract_slice' cannot run on the host; it was expected inside a dispatch}}
  %s = tensor.extract_slice %0[1, 2] [1, 14] [1, 1] : tensor<2x16xf32> to tensor<1x14xf32>
  return %s : tensor<1x14xf32>
}
