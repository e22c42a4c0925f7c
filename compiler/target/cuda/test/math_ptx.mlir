// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s

// A GELU's erf of x / sqrt(2): the program's division stays IEEE (div.rn);
// erf is libdevice's (two short polynomials and an exp2, no division), not
// MLIR's rational approximation.

// CHECK-LABEL: .entry gelu_dispatch_0
// CHECK-NOT:   div.approx
// CHECK:       div.rn.f32 {{.*}}0f3FB504F3
// CHECK-NOT:   div.approx
// CHECK:       ex2.approx
// CHECK-NOT:   div.approx
// CHECK:       ret;

func.func @gelu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c = arith.constant dense<1.41421354> : tensor<1024xf32>
  %0 = arith.divf %x, %c : tensor<1024xf32>
  %1 = math.erf %0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}

// tanh stays MLIR's rational approximation, whose own division, a few ulp
// from tanh already, is approximate (a reciprocal and a multiply).

// CHECK-LABEL: .entry tanh_dispatch_0
// CHECK:       div.approx.f32
// CHECK-NOT:   div.rn.f32
// CHECK:       ret;

func.func @tanh(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = math.tanh %x : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
