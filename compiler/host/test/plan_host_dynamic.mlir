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
