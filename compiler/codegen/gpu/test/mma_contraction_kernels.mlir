// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=a100 --kiln-gpu-contraction-kernels %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=t4 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=SIMT

// Targets: an A100 (108 multiprocessors, mma.sync and cp.async) and a T4
// (sm_75: neither).

// f16 x f16 -> f32 with 128x128x32 tiles dividing the problem into 128
// workgroups: on sm_80 and later the tensor-core kernel. Two shared stages
// padded by 8 f16 a row; the first stage's copies before the K loop; each
// step waits for all its copies (no newer group), barriers, issues the next
// stage's copies and then does 2 x (4 ldmatrix x4 of A, 4 ldmatrix x2
// transposed of B, 16 mma.sync). Before sm_80 (no cp.async), the SIMT
// kernel.

// CHECK-DAG:   memref.global "private" @mm_mma_a : memref<2x128x40xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_mma_b : memref<2x32x136xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_mma_out : memref<16x132xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k16.f16.f32", kernel = "mma_contraction", stages = 2 : i64, warp_tile = array<i64: 64, 32>, workgroup_tile = array<i64: 128, 128, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 2048, 1024) step (1, 128, 128)
// CHECK-COUNT-4: nvgpu.device_async_copy
// CHECK:         nvgpu.device_async_create_group
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:           gpu.barrier
// CHECK-COUNT-4:   nvgpu.device_async_copy
// CHECK:           nvgpu.device_async_create_group
// CHECK-COUNT-4:   nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<2x128x40xf16, 3> -> vector<4x2xf16>
// CHECK-COUNT-4:   nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<2x32x136xf16, 3> -> vector<2x2xf16>
// CHECK-COUNT-16:  nvgpu.mma.sync
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.yield
// CHECK:         nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// The epilogue, staged 16 rows at a time: the owning warps store their
// fragments' row pairs, then each thread computes a run of 8 consecutive
// columns of the 16 x 128 rows (consecutive threads on consecutive runs),
// its 8 biases loaded as one vector, and stores it as one aligned vector
// after its loads.
// CHECK:         scf.if
// CHECK-COUNT-8:   vector.store {{.*}} : memref<16x132xf32, 3>, vector<2xf32>
// CHECK:         gpu.barrier
// CHECK:         vector.load %arg2[%{{.*}}] {alignment = 32 : i64} : memref<1024xf32>, vector<8xf32>
// CHECK-COUNT-8: vector.extract %{{.*}}[{{[0-7]}}] : f32 from vector<8xf32>
// CHECK-NOT:     memref.store
// CHECK:         arith.maximumf
// CHECK:         vector.from_elements {{.*}} : vector<8xf32>
// CHECK:         vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<2048x1024xf32>, vector<8xf32>
// CHECK:         gpu.barrier
// SIMT-LABEL:  func.func private @mm(
// SIMT-SAME:     kernel = "simt_contraction"
// SIMT-NOT:      nvgpu
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @mm(%a: memref<2048x96xf16>, %b: memref<96x1024xf16>, %bias: memref<1024xf32>, %out: memref<2048x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2048x96xf16> to tensor<2048x96xf16>
  %1 = bufferization.to_tensor %b restrict : memref<96x1024xf16> to tensor<96x1024xf16>
  %2 = bufferization.to_tensor %bias restrict : memref<1024xf32> to tensor<1024xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<2048x96xf16>, tensor<96x1024xf16>) outs(%f : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
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

// 1000 rows, 512 columns: 128 x 128 tiles would give 32 workgroups (of 108
// processors), 128 x 64 ones 64, so 64 x 64 tiles (128 workgroups) with 4
// warps as 2 x 2 (each 32 x 32: 2 x 4 mma tiles) and 4 stages, three of
// them filled before the loop, each step waiting for all but the newest 2
// groups. 64 does not divide 1000: an A row past M is copied with 0 source
// bytes (zero-filled) from a row clamped into A, and its outputs are not
// stored.

// CHECK-LABEL: func.func private @edge(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k16.f16.f32", kernel = "mma_contraction", stages = 4 : i64, warp_tile = array<i64: 32, 32>, workgroup_tile = array<i64: 64, 64, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 1000, 512) step (1, 64, 64)
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %{{.*}}, %c1000
// CHECK:           arith.minui %{{.*}}, %c999
// CHECK:           %[[N:.+]] = arith.select %[[IN]], %c8{{.*}}, %c0
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %{{.*}}[{{.*}}], 8, %[[N]] {bypassL1}
// CHECK-COUNT-2:   nvgpu.device_async_create_group
// CHECK:           scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:             nvgpu.device_async_wait %{{.*}} {numGroups = 2 : i32}
// CHECK-COUNT-2:     nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<4x64x40xf16, 3> -> vector<4x2xf16>
// CHECK-COUNT-4:     nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<4x32x72xf16, 3> -> vector<2x2xf16>
// CHECK-COUNT-8:     nvgpu.mma.sync
// CHECK:           %[[ROW:.+]] = arith.cmpi ult, %{{.*}}, %c1000
// CHECK:           scf.if %[[ROW]] -> (vector<8xf32>)
// CHECK:           scf.if %[[ROW]] {
// CHECK-NEXT:        vector.store {{.*}}, %arg2
func.func private @edge(%a: memref<1000x64xf16>, %b: memref<64x512xf16>, %out: memref<1000x512xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1000x64xf16> to tensor<1000x64xf16>
  %1 = bufferization.to_tensor %b restrict : memref<64x512xf16> to tensor<64x512xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1000x512xf32>) -> tensor<1000x512xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1000x64xf16>, tensor<64x512xf16>) outs(%f : tensor<1000x512xf32>) -> tensor<1000x512xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1000x512xf32>, memref<1000x512xf32>) -> ()
  return
}

// -----

// A column count that is not a multiple of 8 cannot be copied 16 bytes at a
// time: the SIMT kernel, which predicates its edges.

// CHECK-LABEL: func.func private @columns(
// CHECK-SAME:    kernel = "simt_contraction"
// CHECK-NOT:     nvgpu.mma.sync
func.func private @columns(%a: memref<128x64xf16>, %b: memref<64x100xf16>, %out: memref<128x100xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<128x64xf16> to tensor<128x64xf16>
  %1 = bufferization.to_tensor %b restrict : memref<64x100xf16> to tensor<64x100xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x100xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x100xf32>) -> tensor<128x100xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<128x64xf16>, tensor<64x100xf16>) outs(%f : tensor<128x100xf32>) -> tensor<128x100xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<128x100xf32>, memref<128x100xf32>) -> ()
  return
}

// -----

// N = 72 and K = 40 (M = 4096): 64 x 64 tiles (128-wide ones would
// compute 128 of every 72 columns), two K steps. Copies past N or K copy 0 source bytes
// from addresses clamped into the operand (A's k to K - 8 = 32, B's k to
// K - 1 = 39 and n to N - 8 = 64); stores past N are skipped, a run of 8
// columns at a time.

// CHECK-LABEL: func.func private @tails(
// CHECK-SAME:    workgroup_tile = array<i64: 64, 64, 32>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 4096, 72) step (1, 64, 64)
// CHECK:           %[[KA:.+]] = arith.cmpi ult, %{{.*}}, %c40
// CHECK:           arith.minui %{{.*}}, %c32
// CHECK:           %[[NA:.+]] = arith.select %[[KA]], %c8{{.*}}, %c0
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %{{.*}}[{{.*}}], 8, %[[NA]] {bypassL1}
// CHECK:           arith.cmpi ult, %{{.*}}, %c72
// CHECK:           %[[KN:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK:           arith.minui %{{.*}}, %c39
// CHECK:           arith.minui %{{.*}}, %c64
// CHECK:           %[[CB:.+]] = arith.select %[[KN]], %c8{{.*}}, %c0
// CHECK:           nvgpu.device_async_copy %arg1[{{.*}}], %{{.*}}[{{.*}}], 8, %[[CB]] {bypassL1}
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args
// CHECK:           vector.store {{.*}} : memref<16x68xf32, 3>, vector<2xf32>
// CHECK:           gpu.barrier
// CHECK:           %[[COL:.+]] = arith.cmpi ult, %{{.*}}, %c72
// CHECK:           scf.if %[[COL]] -> (vector<8xf32>)
// CHECK:           scf.if %[[COL]] {
// CHECK-NEXT:        vector.store {{.*}}, %arg2
func.func private @tails(%a: memref<4096x40xf16>, %b: memref<40x72xf16>, %out: memref<4096x72xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<4096x40xf16> to tensor<4096x40xf16>
  %1 = bufferization.to_tensor %b restrict : memref<40x72xf16> to tensor<40x72xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x72xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4096x72xf32>) -> tensor<4096x72xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<4096x40xf16>, tensor<40x72xf16>) outs(%f : tensor<4096x72xf32>) -> tensor<4096x72xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<4096x72xf32>, memref<4096x72xf32>) -> ()
  return
}

// -----

// A convolution over 3 input channels (a network's first): A's rows are
// not 16-byte runs, so A is gathered an element at a time (zero past K =
// 27) into registers, stored into the next stage after the step's
// mma.syncs; B still comes by cp.async. 256 rows of 64 channels: 32 x 32
// tiles (16 workgroups; 64 x 64 ones would be 4).

// CHECK-LABEL: func.func private @three_channels(
// CHECK-SAME:    gather_a
// CHECK-SAME:    implicit_gemm = array<i64: 256, 64, 27>
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:           nvgpu.device_async_wait
// CHECK:           gpu.barrier
// CHECK:           nvgpu.device_async_copy %arg1
// CHECK:           arith.cmpi ult, %{{.*}}, %c27
// CHECK:           scf.if %{{.*}} -> (f16)
// CHECK:             memref.load %arg0
// CHECK:           nvgpu.mma.sync
// CHECK:           memref.store %{{.*}}, %{{.*}} : memref<4x32x40xf16, 3>
// CHECK:           scf.yield
func.func private @three_channels(%x: memref<1x18x18x3xf16>, %w: memref<3x3x3x64xf16>, %out: memref<1x16x16x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x18x18x3xf16> to tensor<1x18x18x3xf16>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x3x64xf16> to tensor<3x3x3x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x18x18x3xf16>, tensor<3x3x3x64xf16>) outs(%f : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x16x16x64xf32>, memref<1x16x16x64xf32>) -> ()
  return
}

// -----

// M = 6272, N = 256 on an A100 (108 multiprocessors): 128 x 128 tiles give
// 98 workgroups, 128 x 64 ones 196, with 4 warps of 64 x 32 and 3 stages.

// CHECK-LABEL: func.func private @tall(
// CHECK-SAME:    stages = 3 : i64, warp_tile = array<i64: 64, 32>, workgroup_tile = array<i64: 128, 64, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 6272, 256) step (1, 128, 64)
func.func private @tall(%a: memref<6272x64xf16>, %b: memref<64x256xf16>, %out: memref<6272x256xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6272x64xf16> to tensor<6272x64xf16>
  %1 = bufferization.to_tensor %b restrict : memref<64x256xf16> to tensor<64x256xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6272x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6272x256xf32>) -> tensor<6272x256xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<6272x64xf16>, tensor<64x256xf16>) outs(%f : tensor<6272x256xf32>) -> tensor<6272x256xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<6272x256xf32>, memref<6272x256xf32>) -> ()
  return
}

// -----

// An f16 matmul accumulating in f32 with a chain of epilogues: the rounding
// to f16, then a residual add of another binding and a ReLU, applied in
// turn to each output (here on the tensor cores) before its f16 store (8
// consecutive outputs as one 16-byte vector).

// CHECK-LABEL: func.func private @rounded_residual(
// CHECK-SAME:    kernel = "mma_contraction"
// CHECK:           scf.for
// CHECK:             nvgpu.mma.sync
// CHECK:           arith.truncf {{.*}} : f32 to f16
// CHECK:           vector.load %arg2[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x128xf16>, vector<8xf16>
// CHECK:           arith.addf {{.*}} : f16
// CHECK:           arith.maximumf {{.*}} : f16
// CHECK:           vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<256x128xf16>, vector<8xf16>
// CHECK-NOT:     linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @rounded_residual(%a: memref<256x64xf16>, %b: memref<64x128xf16>, %res: memref<256x128xf16>, %out: memref<256x128xf16>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<256x64xf16> to tensor<256x64xf16>
  %1 = bufferization.to_tensor %b restrict : memref<64x128xf16> to tensor<64x128xf16>
  %2 = bufferization.to_tensor %res restrict : memref<256x128xf16> to tensor<256x128xf16>
  %z = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<256x64xf16>, tensor<64x128xf16>) outs(%f : tensor<256x128xf32>) -> tensor<256x128xf32>
  %eh = tensor.empty() : tensor<256x128xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x128xf32>) outs(%eh : tensor<256x128xf16>) {
  ^bb0(%v: f32, %o: f16):
    %h = arith.truncf %v : f32 to f16
    linalg.yield %h : f16
  } -> tensor<256x128xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%t, %2 : tensor<256x128xf16>, tensor<256x128xf16>) outs(%eh : tensor<256x128xf16>) {
  ^bb0(%v: f16, %w: f16, %o: f16):
    %s = arith.addf %v, %w : f16
    %x = arith.maximumf %s, %zh : f16
    linalg.yield %x : f16
  } -> tensor<256x128xf16>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<256x128xf16>, memref<256x128xf16>) -> ()
  return
}
