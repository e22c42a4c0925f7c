// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s

// A GELU's erf of x / sqrt(2): the program's division stays IEEE (div.rn),
// while the division inside erf's rational approximation, which is a few
// ulp from erf already, is approximate (a reciprocal and a multiply).

// CHECK-LABEL: .entry gelu_dispatch_0
// CHECK:       div.rn.f32 {{.*}}0f3FB504F3
// CHECK:       div.approx.f32
// CHECK-NOT:   div.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}};

func.func @gelu(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %c = arith.constant dense<1.41421354> : tensor<1024xf32>
  %0 = arith.divf %x, %c : tensor<1024xf32>
  %1 = math.erf %0 : tensor<1024xf32>
  return %1 : tensor<1024xf32>
}
