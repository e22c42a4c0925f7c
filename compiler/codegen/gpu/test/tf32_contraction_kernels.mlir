// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 "--kiln-gpu-contraction-kernels=allow-tf32" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=IEEE

// --precision=tf32 on an H100: f32 x f32 -> f32 on the tensor cores, with
// mma.sync m16n8k8 (not wgmma, which reads a tf32 B only K-innermost).
// 64x64 tiles (256 workgroups for 132 processors) with K steps of 16 f32
// (64-byte rows, as f16's 32) in 4 stages: A's rows padded by 4 f32 (16
// bytes, for ldmatrix), B's by 8 (the four k rows of a fragment load 8
// banks apart). Each step: 2 x (2 ldmatrix x4 of A as 32-bit elements, 4 x
// 2 shared loads of B, every element rounded to tf32, 8 mma.sync
// m16n8k8). Without allow-tf32 (IEEE f32) the same pipeline feeds the CUDA
// cores' FMAs (fma_contraction_kernels.mlir).

// CHECK-DAG:   memref.global "private" @mm_mma_a : memref<4x64x20xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_mma_b : memref<4x16x72xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k8.tf32.f32", kernel = "mma_contraction", stages = 4 : i64, warp_tile = array<i64: 32, 32>, workgroup_tile = array<i64: 64, 64, 16>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:           nvgpu.device_async_copy {{.*}} : memref<1024x96xf32> to memref<4x64x20xf32, 3>
// CHECK:           nvgpu.device_async_copy {{.*}} : memref<96x1024xf32> to memref<4x16x72xf32, 3>
// CHECK-COUNT-2:   nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<4x64x20xf32, 3> -> vector<4x1xf32>
// CHECK:           nvvm.convert.float.to.tf32 {{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK:           memref.load {{.*}} : memref<4x16x72xf32, 3>
// CHECK:           memref.load {{.*}} : memref<4x16x72xf32, 3>
// CHECK:           vector.from_elements {{.*}} : vector<2x1xf32>
// CHECK-COUNT-8:   nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT:       wgmma
// CHECK:           scf.yield
// IEEE-LABEL:  func.func private @mm(
// IEEE-SAME:     kernel = "fma_contraction"
// IEEE-NOT:      nvgpu.mma.sync
func.func private @mm(%a: memref<1024x96xf32>, %b: memref<96x1024xf32>, %out: memref<1024x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1024x96xf32> to tensor<1024x96xf32>
  %1 = bufferization.to_tensor %b restrict : memref<96x1024xf32> to tensor<96x1024xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1024x96xf32>, tensor<96x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  return
}

// -----

// A convolution over 3 channels (a network's first, channels-last, as
// kiln-pad-conv-channels leaves none): A is copied an element (4 bytes) at
// a time, as its k runs are not 8 or 16 bytes, from the input read as one
// dimension (each thread's copies at one k a step), B 4 f32 at a time;
// tf32 as above.

// CHECK-LABEL: func.func private @stem(
// CHECK-SAME:    implicit_gemm = array<i64: 12544, 64, 147>, instruction = "mma_sync.m16n8k8.tf32.f32", kernel = "mma_contraction"
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x230x230x3xf32> into memref<158700xf32>
// CHECK:         nvgpu.device_async_copy %[[FLAT]][%{{.*}}], %{{.*}}, 1, %{{.*}} : memref<158700xf32> to memref<4x64x20xf32, 3>
// CHECK:         nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// IEEE-LABEL:  func.func private @stem(
// IEEE-SAME:     implicit_gemm = array<i64: 12544, 64, 147>, k_slices = 2 : i64, kernel = "fma_contraction"
func.func private @stem(%x: memref<1x230x230x3xf32>, %w: memref<7x7x3x64xf32>, %out: memref<1x112x112x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x230x230x3xf32> to tensor<1x230x230x3xf32>
  %1 = bufferization.to_tensor %w restrict : memref<7x7x3x64xf32> to tensor<7x7x3x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x112x112x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%0, %1 : tensor<1x230x230x3xf32>, tensor<7x7x3x64xf32>) outs(%f : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x112x112x64xf32>, memref<1x112x112x64xf32>) -> ()
  return
}
