// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=v100 --kiln-gpu-contraction-kernels %s | FileCheck %s

// The SIMT kernel, on a V100 (80 multiprocessors, no cp.async: sm_80 and
// later run f32 on the pipelined FMA kernel, fma_contraction_kernels.mlir),
// so grids of 80 workgroups and more keep their tiles.

// A matmul with a bias + relu epilogue: 128x128 workgroup tiles (8x8
// outputs for each of 16x16 threads; 16 x 8 = 128 workgroups fill the GPU),
// K in steps of 8 through shared tiles, the accumulators carried in
// registers, FMA allowed, and the epilogue applied per output before the
// store. The K loop is software-pipelined: the first tiles (4 elements of A
// and 4 of B per thread) are loaded before it, each step stores the loaded
// tiles to shared memory and loads the next ones before its math. 2048 and
// 1024 are multiples of the tiles and 512 of BK: no predication.

// CHECK-DAG:   memref.global "private" @mm_tile_a : memref<8x132xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_tile_b : memref<8x128xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {kernel = "simt_contraction", stages = 1 : i64, thread_tile = array<i64: 8, 8>, workgroup_tile = array<i64: 128, 128, 8>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 2048, 1024) step (1, 128, 128)
// CHECK:           gpu.thread_id x
// CHECK-COUNT-4:   memref.load %arg0
// CHECK-COUNT-4:   memref.load %arg1
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (f32, f32,
// CHECK-COUNT-4:     memref.store {{.*}} : memref<8x132xf32, 3>
// CHECK-COUNT-4:     memref.store {{.*}} : memref<8x128xf32, 3>
// CHECK:             gpu.barrier
// CHECK:             arith.minui
// CHECK-COUNT-4:     memref.load %arg0
// CHECK-COUNT-4:     memref.load %arg1
// CHECK:             memref.load {{.*}} : memref<8x132xf32, 3>
// CHECK:             arith.mulf {{.*}} fastmath<contract> : f32
// CHECK:             arith.addf {{.*}} fastmath<contract> : f32
// CHECK:             gpu.barrier
// CHECK:             scf.yield
// CHECK-NOT:       scf.if
// CHECK:           memref.load %arg2
// CHECK:           arith.addf
// CHECK:           arith.maximumf
// CHECK:           memref.store {{.*}}, %arg3
// CHECK-NOT:     linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @mm(%a: memref<2048x512xf32>, %b: memref<512x1024xf32>, %bias: memref<1024xf32>, %out: memref<2048x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2048x512xf32> to tensor<2048x512xf32>
  %1 = bufferization.to_tensor %b restrict : memref<512x1024xf32> to tensor<512x1024xf32>
  %2 = bufferization.to_tensor %bias restrict : memref<1024xf32> to tensor<1024xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<2048x512xf32>, tensor<512x1024xf32>) outs(%f : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %2 : tensor<2048x1024xf32>, tensor<1024xf32>) outs(%e : tensor<2048x1024xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %x = arith.maximumf %s, %z : f32
    linalg.yield %x : f32
  } -> tensor<2048x1024xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<2048x1024xf32>, memref<2048x1024xf32>) -> ()
  return
}

// -----

// The same matmul at 256 x 384: 6 workgroups of 128 x 128 would leave most
// of the GPU idle, so the tiles shrink to 32 x 32 (2 x 2 outputs per
// thread, 96 workgroups) and K steps deepen to 16.

// CHECK-LABEL: func.func private @small(
// CHECK-SAME:    kiln.lowering_config = {kernel = "simt_contraction", stages = 1 : i64, thread_tile = array<i64: 2, 2>, workgroup_tile = array<i64: 32, 32, 16>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 256, 384) step (1, 32, 32)
func.func private @small(%a: memref<256x512xf32>, %b: memref<512x384xf32>, %out: memref<256x384xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<256x512xf32> to tensor<256x512xf32>
  %1 = bufferization.to_tensor %b restrict : memref<512x384xf32> to tensor<512x384xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<256x512xf32>, tensor<512x384xf32>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<256x384xf32>, memref<256x384xf32>) -> ()
  return
}

// -----

// A small batch matmul accumulating into an argument (materialize-inits'
// copy): 1x1 outputs per thread for 5 rows (more than the matrix-vector kernel takes), 2 per thread for 20 columns,
// BK = K = 3; the accumulator and every edge are predicated, and the batch
// is a workgroup loop.

// CHECK-LABEL: func.func private @bmm(
// CHECK-SAME:    kiln.lowering_config = {kernel = "simt_contraction", stages = 1 : i64, thread_tile = array<i64: 1, 2>, workgroup_tile = array<i64: 16, 32, 3>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (2, 5, 20) step (1, 16, 32)
// CHECK:           arith.cmpi ult
// CHECK:           scf.if
// CHECK:             memref.load %arg2
// CHECK:           scf.for
// CHECK:           scf.if
// CHECK:             memref.store {{.*}}, %arg3
func.func private @bmm(%a: memref<2x5x3xf32>, %b: memref<2x3x20xf32>, %c: memref<2x5x20xf32>, %out: memref<2x5x20xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2x5x3xf32> to tensor<2x5x3xf32>
  %1 = bufferization.to_tensor %b restrict : memref<2x3x20xf32> to tensor<2x3x20xf32>
  %2 = bufferization.to_tensor %c restrict : memref<2x5x20xf32> to tensor<2x5x20xf32>
  %e = tensor.empty() : tensor<2x5x20xf32>
  %init = linalg.copy ins(%2 : tensor<2x5x20xf32>) outs(%e : tensor<2x5x20xf32>) -> tensor<2x5x20xf32>
  %m = linalg.batch_matmul ins(%0, %1 : tensor<2x5x3xf32>, tensor<2x3x20xf32>) outs(%init : tensor<2x5x20xf32>) -> tensor<2x5x20xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<2x5x20xf32>, memref<2x5x20xf32>) -> ()
  return
}

// -----

// Anything else (here a reduction that is not a contraction) is left for
// kiln-gpu-tile.

// CHECK-LABEL: func.func private @sum(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.generic
func.func private @sum(%a: memref<4x8xf32>, %out: memref<4xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}
