// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=mi300x --kiln-gpu-contraction-kernels %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=mi100 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=MI100
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=rdna3 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=RDNA3
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=rdna4 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=RDNA4

// f16 and bf16 multiply-adds on AMD CDNA's MFMA m16n16k16 (an MI300X,
// gfx942: 304 compute units, 64-lane wavefronts): the SIMT kernel's 256
// threads, shared tiles and software-pipelined copies, its four wavefronts
// as 2 x 2 each computing 2 x 2 blocks of 16 x 16 (64 x 64 tiles) with one
// amdgpu.mfma a block and K step of 16, from fragments of four k read from
// the shared tiles, and the epilogue applied to each fragment element.
// 2048 x 1024 outputs: 512 tiles of 64 x 64, enough for the chip.

// CHECK-DAG:   memref.global "private" @mm_tile_a : memref<16x72xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_tile_b : memref<16x64xf16, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mfma.m16n16k16.f16.f32", kernel = "matrix_contraction", stages = 1 : i64, wave_tile = array<i64: 32, 32>, workgroup_tile = array<i64: 64, 64, 16>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 2048, 1024) step (1, 64, 64)
// CHECK:           scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, f16, f16, f16, f16, f16, f16, f16, f16)
// CHECK:             gpu.barrier
// CHECK-COUNT-4:     amdgpu.mfma 16x16x16 {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK:             gpu.barrier
// CHECK-COUNT-16:  vector.extract {{.*}} : f32 from vector<4xf32>
// CHECK-NOT:       nvgpu.

// On an MI100 (gfx908, 120 compute units) f16 takes MFMA too; its bf16
// MFMA reads two bf16 a lane (m16n16k8), which this kernel does not issue,
// so bf16 stays on the SIMT kernel.

// MI100-LABEL: func.func private @mm(
// MI100-SAME:    instruction = "mfma.m16n16k16.f16.f32", kernel = "matrix_contraction"
// MI100-LABEL: func.func private @mm_bf16(
// MI100-SAME:    kernel = "simt_contraction"

// RDNA's WMMA in 32-lane wavefronts: the 256 threads are 8 wavefronts as
// 2 x 4, so the tiles are 64 x 128 (2 x 2 blocks a wavefront) or 32 x 64.
// RDNA3 (gfx1100) repeats each operand in both half-waves, all 16 k a lane
// (vector<16xf16>), RDNA4 (gfx1201) gives each half-wave 8 of them; both
// hold 8 rows of the result a lane.

// RDNA3-DAG:   memref.global "private" @mm_tile_b : memref<16x128xf16, 3> {alignment = 16 : i64}
// RDNA3-LABEL: func.func private @mm(
// RDNA3-SAME:    instruction = "wmma.m16n16k16.f16.f32", kernel = "matrix_contraction", stages = 1 : i64, wave_tile = array<i64: 32, 32>, workgroup_tile = array<i64: 64, 128, 16>
// RDNA3:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 2048, 1024) step (1, 64, 128)
// RDNA3-COUNT-4:     amdgpu.wmma 16x16x16 {{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// RDNA3-COUNT-32:  vector.extract {{.*}} : f32 from vector<8xf32>
// RDNA3-LABEL: func.func private @mm_bf16(
// RDNA3-SAME:    instruction = "wmma.m16n16k16.bf16.f32", kernel = "matrix_contraction", stages = 1 : i64, wave_tile = array<i64: 16, 16>, workgroup_tile = array<i64: 32, 64, 16>
// RDNA3:             amdgpu.wmma 16x16x16 {{.*}} : vector<16xbf16>, vector<16xbf16>, vector<8xf32>

// RDNA4-LABEL: func.func private @mm(
// RDNA4-SAME:    instruction = "wmma_r4.m16n16k16.f16.f32", kernel = "matrix_contraction"
// RDNA4-COUNT-4:     amdgpu.wmma 16x16x16 {{.*}} : vector<8xf16>, vector<8xf16>, vector<8xf32>
// RDNA4-LABEL: func.func private @mm_bf16(
// RDNA4:             amdgpu.wmma 16x16x16 {{.*}} : vector<8xbf16>, vector<8xbf16>, vector<8xf32>

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

// bf16, and a problem the tiles do not divide (100 x 60, K = 40): few
// workgroups, so 32 x 32 tiles of one block a wavefront; A's and B's copies
// zero past M, N and K, the stores predicated.

// CHECK-LABEL: func.func private @mm_bf16(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mfma.m16n16k16.bf16.f32", kernel = "matrix_contraction", stages = 1 : i64, wave_tile = array<i64: 16, 16>, workgroup_tile = array<i64: 32, 32, 16>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 100, 60) step (1, 32, 32)
// CHECK:           scf.for {{.*}} -> (vector<4xf32>, bf16, bf16, bf16, bf16)
// CHECK:             amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-COUNT-4:   scf.if

func.func private @mm_bf16(%a: memref<100x40xbf16>, %b: memref<40x60xbf16>, %out: memref<100x60xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<100x40xbf16> to tensor<100x40xbf16>
  %1 = bufferization.to_tensor %b restrict : memref<40x60xbf16> to tensor<40x60xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x60xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<100x60xf32>) -> tensor<100x60xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<100x40xbf16>, tensor<40x60xbf16>) outs(%f : tensor<100x60xf32>) -> tensor<100x60xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<100x60xf32>, memref<100x60xf32>) -> ()
  return
}
