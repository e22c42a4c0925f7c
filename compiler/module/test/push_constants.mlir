// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// Three clamps that differ only in their bounds run one entry point that
// takes two push constants; each step carries its own bounds as f32 bit
// patterns (decimal): max first, as the body uses them.
// 0.25 = 0x3e800000 = 1048576000, -0.5 = 0xbf000000 = 3204448256,
// 0.75 = 0x3f400000 = 1061158912, -0.125 = 0xbe000000 = 3187671040,
// 0.5 = 0x3f000000 = 1056964608.

// CHECK:      step 0: dispatch executable 0 'dispatches' entry point 0 'clamps_dispatch_0' bindings [input0[0, 256) read, output0[0, 256) write] push constants [1048576000, 3204448256]
// CHECK-NEXT: step 1: dispatch executable 0 'dispatches' entry point 0 'clamps_dispatch_0' bindings [input1[0, 256) read, output1[0, 256) write] push constants [1061158912, 3187671040]
// CHECK-NEXT: step 2: dispatch executable 0 'dispatches' entry point 0 'clamps_dispatch_0' bindings [input0[0, 256) read, output2[0, 256) write] push constants [1056964608, 0]
// CHECK:      entry point 0 'clamps_dispatch_0': {{.*}}, 2 bindings, 2 push constants,
// CHECK-NOT:  entry point 1
func.func @clamps(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %0 = tosa.clamp %a {min_val = -0.5 : f32, max_val = 0.25 : f32} : (tensor<64xf32>) -> tensor<64xf32>
  %1 = tosa.clamp %b {min_val = -0.125 : f32, max_val = 0.75 : f32} : (tensor<64xf32>) -> tensor<64xf32>
  %2 = tosa.clamp %a {min_val = 0.0 : f32, max_val = 0.5 : f32} : (tensor<64xf32>) -> tensor<64xf32>
  return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
