// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-permuted-epilogues" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-form-dispatches %s | FileCheck %s --check-prefix=DEFAULT

// A projection, its bias and the transpose that moves its heads apart: with
// fuse-permuted-epilogues one dispatch, the named transpose a generic
// reading the biased product through the permutation. Without, the
// transpose is a dispatch of its own.

// CHECK-LABEL: func.func @projection_heads(
// CHECK:         call @projection_heads_dispatch_0
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @projection_heads_dispatch_0(
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK:         linalg.generic
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK:         } -> tensor<2x2x8x16xf32>
// CHECK-NOT:     linalg.transpose
// DEFAULT-LABEL: func.func @projection_heads(
// DEFAULT:         call @projection_heads_dispatch_0
// DEFAULT:         call @projection_heads_dispatch_1
#x = affine_map<(t, s, h, d, k) -> (t, k)>
#w = affine_map<(t, s, h, d, k) -> (k, s, h, d)>
#y = affine_map<(t, s, h, d, k) -> (t, s, h, d)>
#id = affine_map<(t, s, h, d) -> (t, s, h, d)>
#b = affine_map<(t, s, h, d) -> (s, h, d)>
func.func @projection_heads(%x: tensor<8x32xf32>, %w: tensor<32x2x2x16xf32>, %bias: tensor<2x2x16xf32>) -> tensor<2x2x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2x2x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x2x2x16xf32>) -> tensor<8x2x2x16xf32>
  %m = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<8x32xf32>, tensor<32x2x2x16xf32>) outs(%f : tensor<8x2x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x2x2x16xf32>
  %yb = linalg.generic {indexing_maps = [#id, #b, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<8x2x2x16xf32>, tensor<2x2x16xf32>) outs(%e : tensor<8x2x2x16xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<8x2x2x16xf32>
  %et = tensor.empty() : tensor<2x2x8x16xf32>
  %t = linalg.transpose ins(%yb : tensor<8x2x2x16xf32>) outs(%et : tensor<2x2x8x16xf32>) permutation = [1, 2, 0, 3]
  return %t : tensor<2x2x8x16xf32>
}

// -----

// A transpose that moves the innermost dimension is a dispatch of its own
// (its own kernel transposes through shared memory), as is one after a
// reduction, or one reading a second tensor.

// CHECK-LABEL: func.func @innermost_moved(
// CHECK:         call @innermost_moved_dispatch_0
// CHECK:         call @innermost_moved_dispatch_1
func.func @innermost_moved(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %et = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%m : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
  return %t : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @after_reduction(
// CHECK:         call @after_reduction_dispatch_0
// CHECK:         call @after_reduction_dispatch_1
func.func @after_reduction(%a: tensor<4x8x16x32xf32>) -> tensor<8x4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %r = linalg.reduce ins(%a : tensor<4x8x16x32xf32>) outs(%f : tensor<4x8x16xf32>) dimensions = [3]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %et = tensor.empty() : tensor<8x4x16xf32>
  %t = linalg.transpose ins(%r : tensor<4x8x16xf32>) outs(%et : tensor<8x4x16xf32>) permutation = [1, 0, 2]
  return %t : tensor<8x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @reads_second_tensor(
// CHECK:         call @reads_second_tensor_dispatch_0
// CHECK:         call @reads_second_tensor_dispatch_1
func.func @reads_second_tensor(%a: tensor<2x8x32xf32>, %b: tensor<2x32x16xf32>, %c: tensor<8x2x16xf32>) -> tensor<8x2x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x8x32xf32>, tensor<2x32x16xf32>) outs(%f : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %et = tensor.empty() : tensor<8x2x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (j, i, k)>, affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %c : tensor<2x8x16xf32>, tensor<8x2x16xf32>) outs(%et : tensor<8x2x16xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<8x2x16xf32>
  return %t : tensor<8x2x16xf32>
}
