// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-plan-host %s | FileCheck %s

// Dynamic shapes (issue 19): every size is a node of the function's shape
// program (`kiln.shape_program`: `dim INPUT DIM`, `const V`, `mul nA nB`,
// ...), a slice placed per call is `kind[offset:+length]` over nodes, and
// `wW=nN` puts node N's 64-bit value at push constant words W and W + 1.

func.func private @d(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Two inputs an elementwise op reads at the same indices must have equal
// lengths: a check. The first result lives in the arena, at a node offset;
// the second is the output.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    kiln.arena_size = 0 : i64
// CHECK-SAME:    kiln.arena_size_node = 8 : i64
// CHECK-SAME:    kiln.output_dim_nodes = [array<i32: 2>]
// CHECK-SAME:    kiln.shape_checks = ["n2 == n4"]
// CHECK-SAME:    kiln.shape_program = ["const 0", "const 4", "dim 0 0", "mul n1 n2", "dim 1 0", "mul n1 n4", "const 64", "ceildiv n3 n6", "mul n6 n7"]
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>]
// CHECK-SAME:    kiln.steps = ["dispatch @d input0[0:+n3] input1[0:+n5] arena[0:+n3] push 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 w0=n2 w2=n2 w4=n4 w6=n2",
// CHECK-SAME:                  "dispatch @d arena[0:+n3] input0[0:+n3] output0[0:+n3] push {{.*}} w0=n2 w2=n2 w4=n2 w6=n2"]
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %0 = call @d(%a, %b, %n) : (tensor<?xf32>, tensor<?xf32>, index) -> tensor<?xf32>
  %1 = call @d(%0, %a, %n) : (tensor<?xf32>, tensor<?xf32>, index) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

func.func private @d(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.exp ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Host-side index arithmetic becomes nodes.
// CHECK-LABEL: func.func @arithmetic(
// CHECK-SAME:    kiln.shape_program = [{{.*}}"dim 0 0", {{.*}}"add n{{[0-9]+}} n{{[0-9]+}}"
func.func @arithmetic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = arith.addi %n, %n : index
  %0 = call @d(%a, %m) : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func private @d(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.exp ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Only shape arithmetic runs on the host.
func.func @unsupported(%a: tensor<?xf32>, %s: tensor<index>) -> tensor<?xf32> {
  // expected-error @+1 {{'tensor.extract' cannot run on the host of a function with dynamic shapes yet (issue 19)}}
  %n = tensor.extract %s[] : tensor<index>
  %0 = call @d(%a, %n) : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A returned input would need a copy of dynamic length.
func.func @returned_input(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{functions with dynamic shapes cannot copy values into outputs yet}}
  return %a : tensor<?xf32>
}

// -----

func.func private @pad(%a: tensor<?x3xf32>) -> tensor<?x5xf32> attributes {kiln.dispatch} {
  %z = arith.constant 0.0 : f32
  %0 = tensor.pad %a low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<?x3xf32> to tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

func.func private @exp(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.exp ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A pad's extents are its source's plus the padding (rows of 5); a
// reshape on the host is a view of its source's slice (the padded rows read
// whole by the next dispatch: the same arena bytes), its dimension the
// product of its group (n11 = n2 * 5), and each call checks that the view
// holds as many bytes as its source (n12 == n7).
// CHECK-LABEL: func.func @pad_then_view(
// CHECK-SAME:    kiln.shape_checks = ["n12 == n7"]
// CHECK-SAME:    kiln.shape_program = ["const 0", "const 4", "dim 0 0", "mul n1 n2", "const 3", "mul n3 n4", "const 5", "mul n3 n6", "const 64", "ceildiv n7 n8", "mul n8 n9", "mul n2 n6", "mul n1 n11"]
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>]
// CHECK-SAME:    kiln.steps = ["dispatch @pad input0[0:+n5] arena[0:+n7] push 0x00000000 0x00000000 0x00000000 0x00000000 w0=n2 w2=n2",
// CHECK-SAME:                  "dispatch @exp arena[0:+n7] output0[0:+n12] push {{.*}} w0=n11 w2=n11 w4=n11"]
func.func @pad_then_view(%a: tensor<?x3xf32>) -> tensor<?xf32> {
  %0 = call @pad(%a) : (tensor<?x3xf32>) -> tensor<?x5xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<?x5xf32> into tensor<?xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %1, %c0 : tensor<?xf32>
  %2 = call @exp(%1, %n) : (tensor<?xf32>, index) -> tensor<?xf32>
  return %2 : tensor<?xf32>
}

// -----

func.func private @exp2(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %0 = linalg.exp ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// An expansion's dimensions are the sizes it was given, computed on the
// host (n4 = n2 / 4), and a call whose input does not fill the view is
// refused (n6 == n3: 16 * (n2 / 4) bytes of the view, 4 * n2 of the input).
// CHECK-LABEL: func.func @expand_input(
// CHECK-SAME:    kiln.shape_checks = ["n6 == n3"]
// CHECK-SAME:    kiln.shape_program = ["const 0", "const 4", "dim 0 0", "mul n1 n2", "floordiv n2 n1", "mul n1 n4", "mul n1 n5"]
// CHECK-SAME:    kiln.steps = ["dispatch @exp2 input0[0:+n3] output0[0:+n6] push {{.*}} w0=n4 w2=n4 w4=n4"]
func.func @expand_input(%a: tensor<?xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %rows = arith.divui %n, %c4 : index
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [%rows, 4] : tensor<?xf32> into tensor<?x4xf32>
  %1 = call @exp2(%0, %rows) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}

// -----

func.func private @exp3(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %0 = linalg.exp ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// A result returned through a host reshape (a flatten at the end) is
// computed into the output buffer, which the reshape views: the output's
// dimensions are the view's (n3 = 4 * n2, as many bytes as the result:
// no check is needed).
// CHECK-LABEL: func.func @returned_view(
// CHECK-SAME:    kiln.output_dim_nodes = [array<i32: 3>]
// CHECK-SAME:    kiln.shape_checks = []
// CHECK-SAME:    kiln.steps = ["dispatch @exp3 input0[0:+n4] output0[0:+n4] push {{.*}} w0=n2 w2=n2 w4=n2"]
func.func @returned_view(%a: tensor<?x4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %0 = call @exp3(%a, %n) : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

func.func private @join(%a: tensor<?x3xf32>, %b: tensor<?x2xf32>) -> tensor<?x5xf32> attributes {kiln.dispatch} {
  %0 = tensor.concat dim(1) %a, %b : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// A concat's extent along its axis is the sum of its operands' (here
// static: 5, n10), off its axis the first operand's (n2), and each call
// checks that the operands agree there (n2 == n6: as many rows in both
// inputs).
// CHECK-LABEL: func.func @concat_rows(
// CHECK-SAME:    kiln.output_dim_nodes = [array<i32: 2, 10>]
// CHECK-SAME:    kiln.shape_checks = ["n2 == n6"]
// CHECK-SAME:    kiln.shape_program = ["const 0", "const 4", "dim 0 0", "mul n1 n2", "const 3", "mul n3 n4", "dim 1 0", "mul n1 n6", "const 2", "mul n7 n8", "const 5", "mul n3 n10"]
func.func @concat_rows(%a: tensor<?x3xf32>, %b: tensor<?x2xf32>) -> tensor<?x5xf32> {
  %0 = call @join(%a, %b) : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

func.func private @widen(%a: tensor<?x2xf32>) -> tensor<?x4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x2xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j floordiv 2)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x2xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
func.func private @narrow(%a: tensor<?x4xf32>) -> tensor<?x2xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x2xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j * 2)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// Dead values' arena slots are taken again: %2 (n x 4 floats, node n6)
// takes the slot of %0 (the same size node), last read by step 1, and %3
// (n x 2, n5) the slot of %1, last read by step 2: three arena values in
// two slots, arena[0:+n6] and arena[n9:+n5]. Each step writing a reused
// slot follows the steps that read its earlier value (the dependencies are
// derived slot by slot).
// CHECK-LABEL: func.func @reuse(
// CHECK-SAME:    kiln.shape_program = ["const 0", "const 4", "dim 0 0", "mul n1 n2", "const 2", "mul n3 n4", "mul n1 n3", "const 64", "ceildiv n6 n7", "mul n7 n8", "add n5 n9", "ceildiv n10 n7", "mul n7 n11"]
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>, array<i32: 1>, array<i32: 2>, array<i32: 3>]
// CHECK-SAME:    kiln.steps = ["dispatch @widen input0[0:+n5] arena[0:+n6] push {{[^"]*}}",
// CHECK-SAME:                  "dispatch @narrow arena[0:+n6] arena[n9:+n5] push {{[^"]*}}",
// CHECK-SAME:                  "dispatch @widen arena[n9:+n5] arena[0:+n6] push {{[^"]*}}",
// CHECK-SAME:                  "dispatch @narrow arena[0:+n6] arena[n9:+n5] push {{[^"]*}}",
// CHECK-SAME:                  "dispatch @widen arena[n9:+n5] output0[0:+n6] push {{[^"]*}}"]
func.func @reuse(%a: tensor<?x2xf32>) -> tensor<?x4xf32> {
  %0 = call @widen(%a) : (tensor<?x2xf32>) -> tensor<?x4xf32>
  %1 = call @narrow(%0) : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %2 = call @widen(%1) : (tensor<?x2xf32>) -> tensor<?x4xf32>
  %3 = call @narrow(%2) : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %4 = call @widen(%3) : (tensor<?x2xf32>) -> tensor<?x4xf32>
  return %4 : tensor<?x4xf32>
}

// -----

func.func private @proj(%a: tensor<?xf32>) -> tensor<3x64xf32> attributes {kiln.dispatch} {
  %0 = arith.constant dense<1.0> : tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}

func.func private @use(%a: tensor<1x64xf32>, %b: tensor<1x64xf32>, %c: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.dispatch} {
  return %c : tensor<?xf32>
}

// Contiguous slices of a static value (a fused projection's rows, split on
// the host) are views of its arena slice at constant byte offsets (rows 1
// and 2 of 64 floats: +256 and +512), read after it is written.
// CHECK-LABEL: func.func @split_rows(
// CHECK-SAME:    kiln.step_dependencies = [array<i32>, array<i32: 0>]
// CHECK-SAME:    kiln.steps = ["dispatch @proj input0[0:+n3] arena[0:768] push {{.*}}",
// CHECK-SAME:                  "dispatch @use arena[256:512] arena[512:768] input0[0:+n3] output0[0:+n3] push {{.*}}"]
func.func @split_rows(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = call @proj(%a) : (tensor<?xf32>) -> tensor<3x64xf32>
  %1 = tensor.extract_slice %0[1, 0] [1, 64] [1, 1] : tensor<3x64xf32> to tensor<1x64xf32>
  %2 = tensor.extract_slice %0[2, 0] [1, 64] [1, 1] : tensor<3x64xf32> to tensor<1x64xf32>
  %3 = call @use(%1, %2, %a) : (tensor<1x64xf32>, tensor<1x64xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %3 : tensor<?xf32>
}

// -----

func.func private @d(%a: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.exp ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// An element of an integer input read on the host (a shape given at call
// time) is its positive and negative parts, each a node >= 0; counted from
// the end when negative (select of a comparison: sums and products of
// parts), the extent is their difference, which fails a call where it is
// negative. The view of the input at that length is checked per call to
// hold as many bytes as the input.
// CHECK-LABEL: func.func @extent_from_input(
// CHECK-SAME:    kiln.shape_checks = ["n{{[0-9]+}} == n{{[0-9]+}}"]
// CHECK-SAME:    kiln.shape_program = [{{.*}}"element+ 1 0", "element- 1 0"{{.*}}"min n{{[0-9]+}} n{{[0-9]+}}"{{.*}}"sub n{{[0-9]+}} n{{[0-9]+}}"
func.func @extent_from_input(%a: tensor<8xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %e = tensor.extract %s[%c0] : tensor<1xi64>
  %v = arith.index_cast %e : i64 to index
  %negative = arith.cmpi slt, %v, %c0 : index
  %wrapped = arith.addi %v, %c8 : index
  %n = arith.select %negative, %wrapped, %v : index
  %flat = tensor.cast %a : tensor<8xf32> to tensor<?xf32>
  %view = tensor.expand_shape %flat [[0]] output_shape [%n] : tensor<?xf32> into tensor<?xf32>
  %0 = call @d(%view, %n) : (tensor<?xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func private @d(%a: tensor<8xf32>) -> tensor<8xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.exp ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// A condition on values read per call (cf.assert) makes a function of
// static shapes planned per call: a check that the condition's node is 1,
// with the assert's message.
// CHECK-LABEL: func.func @asserted(
// CHECK-SAME:    kiln.shape_checks = ["n{{[0-9]+}} == n{{[0-9]+}}: axis must be 1"]
// CHECK-SAME:    kiln.shape_program = [{{.*}}"element+ 1 0", "element- 1 0"
func.func @asserted(%a: tensor<8xf32>, %s: tensor<1xi64>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.extract %s[%c0] : tensor<1xi64>
  %v = arith.index_cast %e : i64 to index
  %ok = arith.cmpi eq, %v, %c1 : index
  cf.assert %ok, "axis must be 1"
  %0 = call @d(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func private @d(%a: tensor<8xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c = tensor.extract %a[%i] : tensor<8xf32>
    linalg.yield %c : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// An extent ONNX computes in floating point (Resize's floor(dim * scale),
// the scale an f32 input read per call) becomes real nodes: the element
// as a double, the dimension made real, their product floored, and its
// positive part made an integer (its negative part too: the extent is
// their difference).
// CHECK-LABEL: func.func @extent_from_real(
// CHECK-SAME:    kiln.shape_program = [{{.*}}"element 1 0"{{.*}}"realmul n{{[0-9]+}} n{{[0-9]+}}", "realfloor n{{[0-9]+}}"{{.*}}"realmax n{{[0-9]+}} n{{[0-9]+}}", "int n{{[0-9]+}}"
func.func @extent_from_real(%a: tensor<8xf32>, %s: tensor<1xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8.0 : f64
  %e = tensor.extract %s[%c0] : tensor<1xf32>
  %w = arith.extf %e : f32 to f64
  %p = arith.mulf %c8, %w : f64
  %f = math.floor %p : f64
  %i = arith.fptosi %f : f64 to i64
  %n = arith.index_cast %i : i64 to index
  %0 = call @d(%a, %n) : (tensor<8xf32>, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}


// -----

func.func private @d(%a: tensor<?x64xf32>, %n: index) -> tensor<?x64xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %0 = linalg.exp ins(%a : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
func.func private @d_small(%a: tensor<?x64xf32>, %n: index) -> tensor<?x64xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %0 = linalg.exp ins(%a : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// Kernels chosen per call (kiln-row-variants): @d_small where the result's
// rows n2 are at most 4, that is where 5 - min(n2, 5) is not 0.
// CHECK-LABEL: func.func @choices(
// CHECK-SAME:    kiln.shape_program = [{{.*}}"dim 0 0", {{.*}}"const 5", "min n2 n[[FIVE:[0-9]+]]", "sub n[[FIVE]] n[[MIN:[0-9]+]]"]
// CHECK-SAME:    kiln.steps = ["dispatch @d {{.*}} @d_small if n{{[0-9]+}}"]
func.func @choices(%a: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x64xf32>
  %0 = call @d(%a, %n) {kiln.row_choices = {callees = [@d_small], at_most = array<i64: 4>}} : (tensor<?x64xf32>, index) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}
