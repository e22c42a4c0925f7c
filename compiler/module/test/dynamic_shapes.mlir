// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// RUN: not kiln-compile %s --target-device=cuda -o %t.cuda.kiln 2>&1 | FileCheck %s --check-prefix=CUDA

// Dynamic shapes (issue 19) make a 1.3 module: the function's shape program,
// its checks and output shape, ranges and push constants placed per call,
// and the entry point's grid computed per dispatch from its push constants.
// CHECK: module 'module': version 1.3,
// CHECK: function 'bias' (?x?xf32, ?xf32) -> (?x?xf32)
// CHECK-NEXT:  shape program:
// CHECK-NEXT:    n0 = const 0
// CHECK-NEXT:    n1 = const 4
// CHECK-NEXT:    n2 = dim input0[0]
// CHECK-NEXT:    n3 = mul n1, n2
// CHECK-NEXT:    n4 = dim input0[1]
// CHECK-NEXT:    n5 = mul n3, n4
// CHECK-NEXT:    n6 = dim input1[0]
// CHECK-NEXT:    n7 = mul n1, n6
// CHECK-NEXT:  check n4 == n6
// CHECK-NEXT:  output 0 shape [n2, n4]
// CHECK-NEXT:  arena: 0 bytes
// CHECK-NEXT:  step 0: dispatch {{.*}} bindings [input0[0, +n5) read, input1[0, +n7) read, output0[0, +n5) write] push constants [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] per call [words 0, 1 = n2, words 2, 3 = n4, words 4, 5 = n2, words 6, 7 = n4, words 8, 9 = n6, words 10, 11 = n2, words 12, 13 = n4]
// CHECK:       entry point 0 'bias_dispatch_0': workgroup size 1x1x1, workgroup count 1x1x1, 3 bindings, 14 push constants
// CHECK-NEXT:    workgroup count per dispatch: n{{[0-9]+}} x n0 x n0 of
// CHECK-NEXT:      n0 = const 1
// CHECK-NEXT:      n1 = push words {{[0-9]+}}, {{[0-9]+}}

// GPU targets refuse dynamic shapes at the first of them, with its location.
// CUDA: dynamic_shapes.mlir:[[#@LINE+1]]:1: error: dynamic shapes are not supported on --target-device=cuda yet
func.func @bias(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
