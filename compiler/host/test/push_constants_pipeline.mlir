// RUN: kiln-opt --kiln-form-dispatches --canonicalize --cse --kiln-dedupe-dispatches --kiln-hoist-dispatch-scalars --kiln-plan-host %s | FileCheck %s

// Two scalings that differ only in the factor: one dispatch function, two
// steps passing their factors (0.75 and -2.5 as f32 bit patterns) as push
// constants.

// CHECK-LABEL: func.func @two_scales(
// CHECK-SAME:    kiln.steps = ["dispatch @two_scales_dispatch_0 input0[0:128] output0[0:128] push 0x3f400000", "dispatch @two_scales_dispatch_0 input1[0:128] output1[0:128] push 0xc0200000"]
// CHECK:       func.func private @two_scales_dispatch_0(%{{[^:]+}}: tensor<32xf32>, %{{[^:]+}}: f32) -> tensor<32xf32>
// CHECK-NOT:   func.func private @two_scales_dispatch_1
#id = affine_map<(d0) -> (d0)>
func.func @two_scales(%a: tensor<32xf32>, %b: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  %s0 = arith.constant 0.75 : f32
  %s1 = arith.constant -2.5 : f32
  %e = tensor.empty() : tensor<32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %s0 : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %s1 : f32
    linalg.yield %m : f32
  } -> tensor<32xf32>
  return %0, %1 : tensor<32xf32>, tensor<32xf32>
}
