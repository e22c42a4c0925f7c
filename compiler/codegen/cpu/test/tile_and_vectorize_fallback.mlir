// RUN: kiln-opt --split-input-file --pass-pipeline="builtin.module(kiln-cpu-bind-dispatch,func.func(kiln-cpu-tile-and-vectorize))" %s | FileCheck %s

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
