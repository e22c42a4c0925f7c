// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-dump-module %t.kiln | FileCheck %s --check-prefix=DUMP

// Two clamps sharing one kernel: after its binding pointers it takes one
// .u32 parameter per push constant word (the bounds), which the epilogue
// reads as f32.

// CHECK-LABEL: .entry clamps_dispatch_0(
// CHECK-NEXT:  .param .u64 .ptr .align 1 clamps_dispatch_0_param_0,
// CHECK-NEXT:  .param .u64 .ptr .align 1 clamps_dispatch_0_param_1,
// CHECK-NEXT:  .param .u32 clamps_dispatch_0_param_2,
// CHECK-NEXT:  .param .u32 clamps_dispatch_0_param_3
// CHECK:       ld.param.b32 %[[MAX:r[0-9]+]], [clamps_dispatch_0_param_2];
// CHECK-NEXT:  ld.param.b32 %[[MIN:r[0-9]+]], [clamps_dispatch_0_param_3];
// CHECK:       min.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %[[MAX]];
// CHECK:       max.NaN.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %[[MIN]];

// Every variant (PTX, and a cubin where ptxas is installed) lists one entry
// point taking two push constants; the steps pass their bounds.
// DUMP:     step 0: {{.*}} entry point 0 'clamps_dispatch_0' {{.*}} push constants [1065353216, 3212836864]
// DUMP:     step 1: {{.*}} entry point 0 'clamps_dispatch_0' {{.*}} push constants [1086324736, 0]
// DUMP:     entry point 0 'clamps_dispatch_0': {{.*}}, 2 bindings, 2 push constants,
// DUMP-NOT: entry point 1
func.func @clamps(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %0 = tosa.clamp %a {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<1024xf32>) -> tensor<1024xf32>
  %1 = tosa.clamp %b {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %0, %1 : tensor<1024xf32>, tensor<1024xf32>
}
