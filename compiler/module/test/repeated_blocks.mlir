// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// Two ResNet bottleneck blocks whose weights are bindings: the second block's
// steps run the first block's seven entry points (kiln-dedupe-dispatches);
// the last one (residual add + clamp) differs in its upper bound, which it
// takes as a push constant (kiln-hoist-dispatch-scalars): 6.0 = 1086324736,
// 1.0 = 1065353216.

// CHECK:      step 0: {{.*}} entry point 0 'bottleneck_blocks_dispatch_0'
// CHECK:      step 6: {{.*}} entry point 6 'bottleneck_blocks_dispatch_6' {{.*}} push constants [1086324736]
// CHECK-NEXT: step 7: {{.*}} entry point 0 'bottleneck_blocks_dispatch_0'
// CHECK:      step 13: {{.*}} entry point 6 'bottleneck_blocks_dispatch_6' {{.*}} push constants [1065353216]
// CHECK-NOT:  step 14:
// CHECK:      entry point 5 'bottleneck_blocks_dispatch_5': {{.*}}, 0 push constants,
// CHECK-NEXT: entry point 6 'bottleneck_blocks_dispatch_6': {{.*}}, 5 bindings, 1 push constants,
// CHECK-NOT:  entry point 7
func.func @bottleneck_blocks(%x: tensor<1x6x6x16xf32>, %w0a: tensor<8x1x1x16xf32>, %b0a: tensor<8xf32>, %w0b: tensor<8x3x3x8xf32>, %b0b: tensor<8xf32>, %w0c: tensor<16x1x1x8xf32>, %b0c: tensor<16xf32>, %w1a: tensor<8x1x1x16xf32>, %b1a: tensor<8xf32>, %w1b: tensor<8x3x3x8xf32>, %b1b: tensor<8xf32>, %w1c: tensor<16x1x1x8xf32>, %b1c: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c0a = tosa.conv2d %x, %w0a, %b0a, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r0a = tosa.clamp %c0a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c0b = tosa.conv2d %r0a, %w0b, %b0b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r0b = tosa.clamp %c0b {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c0c = tosa.conv2d %r0b, %w0c, %b0c, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %s0 = tosa.add %c0c, %x : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %o0 = tosa.clamp %s0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %c1a = tosa.conv2d %o0, %w1a, %b1a, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r1a = tosa.clamp %c1a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c1b = tosa.conv2d %r1a, %w1b, %b1b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r1b = tosa.clamp %c1b {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c1c = tosa.conv2d %r1b, %w1c, %b1c, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %s1 = tosa.add %c1c, %o0 : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %o1 = tosa.clamp %s1 {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %o1 : tensor<1x6x6x16xf32>
}
