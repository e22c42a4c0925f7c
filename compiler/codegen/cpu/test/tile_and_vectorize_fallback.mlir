// RUN: kiln-opt --split-input-file --pass-pipeline="builtin.module(kiln-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize))" %s | FileCheck %s

// Ops that must not be vectorized stay linalg ops, which become loops.

// A zero-size loop: no workgroup tiling (nothing to divide, and upstream
// tiling divides by the range) and no vectors (a vector type cannot have a
// zero-size dimension). The fill of the result still runs.

// CHECK-LABEL: func.func private @matmul_k0(
// CHECK-NOT:   scf.forall
// CHECK:       linalg.matmul ins({{.*}} : tensor<3x0xf32>, tensor<0x2xf32>)
func.func private @matmul_k0(%a: tensor<3x0xf32>, %b: tensor<0x2xf32>) -> tensor<3x2xf32> attributes {kiln.dispatch} {
  %v = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x0xf32>, tensor<0x2xf32>) outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A reduction whose payload ignores the reduced input applies its update
// once per reduction step; vectorized, it would apply it once.

// CHECK-LABEL: func.func private @count_rows(
// CHECK-NOT:   vector.multi_reduction
// CHECK:       linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK:         arith.addf
func.func private @count_rows(%x: tensor<11x3xf32>) -> tensor<3xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<11x3xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %one : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Boolean tensors in memory are one byte per element; vectors of i1 are
// packed bits. The i8 -> i1 conversion of the mask binding and the select
// reading it both stay scalar, so no buffer sees both layouts.

// CHECK-LABEL: func.func private @boolean_operand(
// CHECK-NOT:   vector<{{.*}}xi1>
// CHECK:       linalg.generic
// CHECK-SAME:    tensor<{{.*}}xi1>
func.func private @boolean_operand(%m: tensor<8x16xi1>, %a: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %a : tensor<8x16xi1>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%b: i1, %x: f32, %o: f32):
    %s = arith.select %b, %zero, %x : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A contraction with a zero-filled operand is its accumulator: no
// vector.contract is left to meet upstream's contract+add canonicalization,
// which would read %x for the zero operand too.

// CHECK-LABEL: func.func private @zero_operand_matmul_add(
// CHECK-NOT:   vector.contract
// CHECK-NOT:   linalg.matmul
// CHECK:       arith.addf
func.func private @zero_operand_matmul_add(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%z, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
