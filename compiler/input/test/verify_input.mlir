// RUN: kiln-opt --kiln-verify-input --verify-diagnostics -split-input-file %s | FileCheck %s

// Accepted programs are left untouched.

// CHECK-LABEL: func.func @tosa_f32
// CHECK: tosa.add
// CHECK: tosa.greater
func.func @tosa_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = tosa.greater %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @linalg_matmul_f16
// CHECK: linalg.matmul
func.func @linalg_matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf16> {
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<4x2xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<4x2xf16>) -> tensor<4x2xf16>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x2xf16>) outs(%init : tensor<4x2xf16>) -> tensor<4x2xf16>
  return %0 : tensor<4x2xf16>
}

// -----

// i1 and i64 tensors, math in a generic body, reshapes and constants.
// CHECK-LABEL: func.func @linalg_i1_i64
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK: tensor.collapse_shape
func.func @linalg_i1_i64(%mask: tensor<2x4xi1>, %x: tensor<2x4xi64>) -> tensor<8xi64> {
  %c = arith.constant dense<7> : tensor<2x4xi64>
  %empty = tensor.empty() : tensor<2x4xi64>
  %0 = linalg.generic {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                       affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%mask, %x, %c : tensor<2x4xi1>, tensor<2x4xi64>, tensor<2x4xi64>)
      outs(%empty : tensor<2x4xi64>) {
  ^bb0(%m: i1, %a: i64, %b: i64, %out: i64):
    %s = arith.select %m, %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<2x4xi64>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x4xi64> into tensor<8xi64>
  return %1 : tensor<8xi64>
}

// -----

// Ops of other dialects are rejected at their location, by name.
func.func @memref_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unsupported op 'memref.alloc': Kiln compiles func, linalg, tensor, arith, math and tosa ops}}
  %m = memref.alloc() : memref<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @scf_while(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i32
  // expected-error @+1 {{unsupported op 'scf.while'}}
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %cond = arith.cmpi slt, %i, %c0 : i32
    // Ops nested in a rejected op are reported too.
    // expected-error @+1 {{unsupported op 'scf.condition'}}
    scf.condition(%cond) %i : i32
  } do {
  ^bb0(%j: i32):
    // expected-error @+1 {{unsupported op 'scf.yield'}}
    scf.yield %j : i32
  }
  return %a : tensor<4xf32>
}

// -----

// Every offending op is reported, not only the first.
func.func @two_errors(%a: tensor<4xf32>, %b: tensor<1x8x8xf32>) -> tensor<4xi32> {
  // expected-error @+1 {{unsupported op 'tensor.bitcast'}}
  %0 = tensor.bitcast %a : tensor<4xf32> to tensor<4xi32>
  // expected-error @+1 {{unsupported op 'tosa.fft2d'}}
  %r, %i = tosa.fft2d %b, %b {inverse = false} : (tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x8x8xf32>)
  return %0 : tensor<4xi32>
}

// -----

// Supported dialect, but no lowering in Kiln.
// expected-error @+1 {{function 'tensor_dim' returns 'index'; Kiln functions take and return tensors}}
func.func @tensor_dim(%a: tensor<4xf32>) -> index {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{unsupported op 'tensor.dim'}}
  %d = tensor.dim %a, %c0 : tensor<4xf32>
  return %d : index
}

// -----

// Dynamic shapes, on a signature and on an op result.
// expected-error-re @+2 {{'func.func' has {{an?}} argument of dynamic shape 'tensor<?x4xf32>'; Kiln supports static shapes only}}
// expected-error @+1 {{'func.func' has a result of dynamic shape 'tensor<?x4xf32>'}}
func.func @dynamic_signature(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}

// -----

func.func @dynamic_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.cast' has a result of dynamic shape 'tensor<?xf32>'}}
  %0 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @unranked(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.cast' has a result of dynamic shape 'tensor<*xf32>'}}
  %0 = tensor.cast %a : tensor<4xf32> to tensor<*xf32>
  %1 = tensor.cast %0 : tensor<*xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Unsupported element types.
// expected-error-re @+1 {{'func.func' has {{an?}} argument of unsupported element type 'complex<f32>'}}
func.func @complex_arg(%a: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %0 = arith.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f8_constant() -> tensor<4xf32> {
  // expected-error @+1 {{'arith.constant' has a result of unsupported element type 'f8E4M3FN'}}
  %0 = arith.constant dense<1.0> : tensor<4xf8E4M3FN>
  %1 = arith.extf %0 : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' has a result of unsupported element type 'i4'}}
func.func @i4_result(%a: tensor<4xi8>) -> tensor<4xi4> {
  %0 = arith.trunci %a : tensor<4xi8> to tensor<4xi4>
  // expected-error @-1 {{'arith.trunci' has a result of unsupported element type 'i4'}}
  return %0 : tensor<4xi4>
}

// -----

// Scalars cannot cross a module function's boundary.
// expected-error @+2 {{function 'scalar_args' takes 'f32'; Kiln functions take and return tensors}}
// expected-error @+1 {{function 'scalar_args' returns 'f32'; Kiln functions take and return tensors}}
func.func @scalar_args(%a: f32) -> f32 {
  return %a : f32
}
