// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-contraction-kernels --canonicalize --cse %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=mi300x --kiln-gpu-contraction-kernels --canonicalize --cse %s | FileCheck %s --check-prefix=WAVE64

// The matrix-vector kernel: contractions of at most 4 rows, each of 256
// threads streaming a share of B.

// B stored K x N: a thread takes 4 consecutive columns (16 bytes) and
// every 128th k; with 1000 columns, 8 a workgroup (a 32-byte sector of a
// row for each pair of lanes) give 125 workgroups. All three of a thread's
// rows of B are loaded before its multiply-adds. The lanes sharing
// columns add their sums by xor shuffles (2 to 16 on a 32-lane subgroup),
// the 8 subgroups theirs through shared memory in order; the bias is the
// accumulator's start, added to the sum.

// CHECK-LABEL: func.func private @classifier(
// CHECK-SAME:    kiln.lowering_config = {k_threads = 128 : i64, kernel = "matvec", thread_tile = array<i64: 4, 1>, workgroup_tile = array<i64: 1, 8>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 1, 1000) step (1, 1, 8)
// CHECK-COUNT-15:  memref.load
// CHECK-NOT:       memref.load
// CHECK:           arith.mulf
// CHECK:           gpu.shuffle  xor {{.*}}, %c2_i32, %c32_i32
// CHECK:           gpu.shuffle  xor {{.*}}, %c16_i32, %c32_i32
// CHECK:           memref.store {{.*}} : memref<8x8xf32, 3>
// CHECK:           gpu.barrier
// CHECK-COUNT-8:   memref.load {{.*}} : memref<8x8xf32, 3>
// CHECK:           memref.load %arg2
// CHECK:           memref.store {{.*}}, %arg3
// CHECK-NOT:     linalg.

// A wave64 chip: 4 subgroups, shuffles up to 32 lanes apart.
// WAVE64-LABEL: func.func private @classifier(
// WAVE64:         gpu.shuffle  xor {{.*}}, %c32_i32, %c64_i32
// WAVE64:         memref.store {{.*}} : memref<4x8xf32, 3>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @classifier(%a: memref<1x384xf32>, %b: memref<384x1000xf32>, %bias: memref<1000xf32>, %out: memref<1x1000xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1x384xf32> to tensor<1x384xf32>
  %1 = bufferization.to_tensor %b restrict : memref<384x1000xf32> to tensor<384x1000xf32>
  %2 = bufferization.to_tensor %bias restrict : memref<1000xf32> to tensor<1000xf32>
  %e = tensor.empty() : tensor<1x1000xf32>
  %i = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<1x1000xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1x384xf32>, tensor<384x1000xf32>) outs(%i : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1x1000xf32>, memref<1x1000xf32>) -> ()
  return
}

// -----

// B stored N x K (a tied LM head's embedding): a subgroup a column, each
// lane 4 consecutive k of every 128; 300 is no multiple of 128, so loads
// past K are predicated; the lanes' sums meet by shuffles 1 to 16 apart,
// and lane 0 applies the tanh and stores both rows. 77 columns, 8 a
// workgroup: the last workgroup's columns past 77 store nothing.

// CHECK-LABEL: func.func private @transposed(
// CHECK-SAME:    kiln.lowering_config = {k_threads = 32 : i64, kernel = "matvec", thread_tile = array<i64: 1, 4>, workgroup_tile = array<i64: 2, 8>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 2, 77) step (1, 2, 8)
// CHECK:           scf.if
// CHECK:             memref.load %arg1
// CHECK:           gpu.shuffle  xor {{.*}}, %c1_i32, %c32_i32
// CHECK:           gpu.shuffle  xor {{.*}}, %c16_i32, %c32_i32
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.if
// CHECK-COUNT-2:     math.tanh
// CHECK-NOT:     linalg.
func.func private @transposed(%a: memref<2x300xf32>, %b: memref<77x300xf32>, %out: memref<2x77xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2x300xf32> to tensor<2x300xf32>
  %1 = bufferization.to_tensor %b restrict : memref<77x300xf32> to tensor<77x300xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x77xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x77xf32>) -> tensor<2x77xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<2x300xf32>, tensor<77x300xf32>) outs(%f : tensor<2x77xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x77xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<2x77xf32>) outs(%e : tensor<2x77xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x = math.tanh %v : f32
    linalg.yield %x : f32
  } -> tensor<2x77xf32>
  bufferization.materialize_in_destination %t in restrict writable %out : (tensor<2x77xf32>, memref<2x77xf32>) -> ()
  return
}

// -----

// f16 operands into f32: 8 columns a thread (16 bytes), extended before
// each multiply.

// CHECK-LABEL: func.func private @half(
// CHECK-SAME:    thread_tile = array<i64: 8, 1>
// CHECK:         arith.extf
// CHECK-NOT:     linalg.
func.func private @half(%a: memref<1x520xf16>, %b: memref<520x136xf16>, %out: memref<1x136xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1x520xf16> to tensor<1x520xf16>
  %1 = bufferization.to_tensor %b restrict : memref<520x136xf16> to tensor<520x136xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x136xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x136xf32>) -> tensor<1x136xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<1x520xf16>, tensor<520x136xf16>) outs(%f : tensor<1x136xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x136xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1x136xf32>, memref<1x136xf32>) -> ()
  return
}
