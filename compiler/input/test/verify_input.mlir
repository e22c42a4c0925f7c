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
// expected-error @+1 {{function 'tensor_rank' returns 'index'; Kiln functions take and return tensors}}
func.func @tensor_rank(%a: tensor<4xf32>) -> index {
  // expected-error @+1 {{unsupported op 'tensor.rank'}}
  %d = tensor.rank %a : tensor<4xf32>
  return %d : index
}

// -----

// Dynamic dimensions on a signature, on linalg, arith and math ops, and
// through tensor.dim and tensor.empty (issue 19) are accepted.
func.func @dynamic_signature(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %r = linalg.exp ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = math.absf %r : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// -----

// So are pads and reshapes over a dynamic batch (a convolution's padding,
// a flatten before a classifier).
func.func @dynamic_pad_reshape(%a: tensor<?x3x4xf32>) -> tensor<?x5x5xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1, 0] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<?x3x4xf32> to tensor<?x5x5xf32>
  %c = tensor.collapse_shape %p [[0], [1, 2]] : tensor<?x5x5xf32> into tensor<?x25xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %c, %c0 : tensor<?x25xf32>
  %f = tensor.collapse_shape %c [[0, 1]] : tensor<?x25xf32> into tensor<?xf32>
  %e = tensor.expand_shape %f [[0, 1, 2]] output_shape [%n, 5, 5] : tensor<?xf32> into tensor<?x5x5xf32>
  return %e : tensor<?x5x5xf32>
}

// -----

// A cast may forget a static tensor's sizes (a view, as a reshape to a
// target given at call time makes); other ops keep static shapes.
func.func @dynamic_result(%a: tensor<4xf32>, %b: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
  // expected-error @+1 {{'tensor.cast' has a result of dynamic shape 'tensor<?x?xf32>'; Kiln compiles dynamic dimensions only in func, linalg, arith and math ops, tensor.empty, tensor.dim, tensor.pad, tensor.collapse_shape, tensor.expand_shape, tensor.extract_slice, tensor.concat and tensor.cast of a static tensor so far}}
  %1 = tensor.cast %b : tensor<?x4xf32> to tensor<?x?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @unranked(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.cast' has a result of unranked type 'tensor<*xf32>'}}
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

// -----

// Ops of accepted dialects that no phase lowers are rejected by name too.
func.func @unlowered_ops(%x: tensor<4xf32>, %i: tensor<1x2xi32>, %v: tensor<1x4x3xf32>, %u: tensor<1x2x3xf32>) -> tensor<1x4x3xf32> {
  // expected-error @+1 {{unsupported op 'math.clampf': Kiln has no lowering for it}}
  %0 = math.clampf %x to [%x, %x] : tensor<4xf32>
  // expected-error @+1 {{unsupported op 'tosa.scatter'}}
  %1 = tosa.scatter %v, %i, %u : (tensor<1x4x3xf32>, tensor<1x2xi32>, tensor<1x2x3xf32>) -> tensor<1x4x3xf32>
  return %1 : tensor<1x4x3xf32>
}

// -----

// An accepted op on an element type it has no lowering for (KILN_OP_EXCEPT).
func.func @erf_f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    // expected-error @+1 {{unsupported op 'math.erf' on 'f64' elements: Kiln has no lowering for it on this element type}}
    %y = math.erf %a : f64
    linalg.yield %y : f64
  } -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Calls are accepted (and inlined by the input phase).
// CHECK-LABEL: func.func @caller
// CHECK: call @callee
func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An unsupported element type is reported where a value of it is defined,
// whatever the route: a function argument...
// expected-error @+1 {{'func.func' has an argument of unsupported element type 'f8E4M3FN'}}
func.func @f8_argument(%a: tensor<4xf8E4M3FN>) -> tensor<4xf32> {
  %0 = arith.extf %a : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ... a dense constant, arith or tosa...
func.func @i4_and_f8_constants() -> (tensor<4xi32>, tensor<4xf32>) {
  // expected-error @+1 {{'arith.constant' has a result of unsupported element type 'i4'}}
  %0 = arith.constant dense<3> : tensor<4xi4>
  %1 = arith.extsi %0 : tensor<4xi4> to tensor<4xi32>
  // expected-error @+1 {{'tosa.const' has a result of unsupported element type 'f8E5M2'}}
  %2 = "tosa.const"() {values = dense<1.0> : tensor<4xf8E5M2>} : () -> tensor<4xf8E5M2>
  %3 = tosa.cast %2 : (tensor<4xf8E5M2>) -> tensor<4xf32>
  return %1, %3 : tensor<4xi32>, tensor<4xf32>
}

// -----

// ... the result of a cast (arith or tosa)...
func.func @f4_and_i2_casts(%a: tensor<4xf32>, %b: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xf32>) {
  // expected-error @+1 {{'arith.truncf' has a result of unsupported element type 'f4E2M1FN'}}
  %0 = arith.truncf %a : tensor<4xf32> to tensor<4xf4E2M1FN>
  %1 = arith.extf %0 : tensor<4xf4E2M1FN> to tensor<4xf32>
  // expected-error @+1 {{'arith.trunci' has a result of unsupported element type 'i2'}}
  %2 = arith.trunci %b : tensor<4xi8> to tensor<4xi2>
  %3 = arith.extsi %2 : tensor<4xi2> to tensor<4xi8>
  // expected-error @+1 {{'tosa.cast' has a result of unsupported element type 'f8E4M3FN'}}
  %4 = tosa.cast %a : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %5 = tosa.cast %4 : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  return %1, %3, %5 : tensor<4xf32>, tensor<4xi8>, tensor<4xf32>
}

// -----

// ... and inside a linalg region: a scalar computed in the body, the block
// arguments of an f8 init, and what the op then returns.
func.func @f8_in_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tensor.empty' has a result of unsupported element type 'f8E4M3FN'}}
  %e = tensor.empty() : tensor<4xf8E4M3FN>
  // expected-error @+2 {{'linalg.generic' has a result of unsupported element type 'f8E4M3FN'}}
  // expected-error @+1 {{'linalg.generic' has a block argument of unsupported element type 'f8E4M3FN'}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf8E4M3FN>) {
  ^bb0(%x: f32, %o: f8E4M3FN):
    // expected-error @+1 {{'arith.truncf' has a result of unsupported element type 'f8E4M3FN'}}
    %t = arith.truncf %x : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<4xf8E4M3FN>
  %1 = arith.extf %0 : tensor<4xf8E4M3FN> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Vectors are not tensors.
func.func @vector_constant(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.constant' has a result of unsupported type 'vector<4xf32>'; Kiln computes on tensors}}
  %v = arith.constant dense<1.0> : vector<4xf32>
  return %a : tensor<4xf32>
}
