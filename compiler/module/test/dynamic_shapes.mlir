// RUN: kiln-compile %s --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s
// RUN: rm -rf %t.ptx && mkdir -p %t.ptx
// RUN: kiln-compile %s --target-device=cuda --dump-executable-binaries-to=%t.ptx -o %t.cuda.kiln
// RUN: kiln-dump-module %t.cuda.kiln | FileCheck %s --check-prefix=CUDA
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx/cuda_sm_60.cuda-ptx

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

// CUDA compiles the same program and plan; its kernel takes the extents as
// .u32 parameters after the binding pointers (two words each), and its grid
// is its own program over those words: a row per workgroup, 1024 columns.
// CUDA: module 'module': version 1.3,
// CUDA: step 0: dispatch {{.*}} per call [words 0, 1 = n2, words 2, 3 = n4, words 4, 5 = n2, words 6, 7 = n4, words 8, 9 = n6, words 10, 11 = n2, words 12, 13 = n4]
// CUDA:      variant 0: format 'cuda-ptx'
// CUDA-NEXT:   entry point 0 'bias_dispatch_0': workgroup size 256x1x1, workgroup count 1x1x1, 3 bindings, 14 push constants
// CUDA-NEXT:     workgroup count per dispatch: n5 x n0 x n0 of
// CUDA-NEXT:       n0 = const 1
// CUDA-NEXT:       n1 = push words 4, 5
// CUDA-NEXT:       n2 = push words 6, 7
// CUDA-NEXT:       n3 = const 1024
// CUDA-NEXT:       n4 = ceildiv n2, n3
// CUDA-NEXT:       n5 = mul n1, n4
// PTX: .entry bias_dispatch_0(
// PTX-COUNT-3: .param .u64
// PTX-COUNT-14: .param .u32
// PTX-NEXT: )
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
