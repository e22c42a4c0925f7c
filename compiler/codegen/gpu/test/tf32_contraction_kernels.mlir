// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 "--kiln-gpu-contraction-kernels=allow-tf32" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-contraction-kernels %s | FileCheck %s --check-prefix=IEEE

// --precision=tf32 on an H100: f32 x f32 -> f32 on the tensor cores, with
// mma.sync m16n8k8 (not wgmma, which reads a tf32 B only K-innermost).
// 64x64 tiles (256 workgroups for 132 processors) with K steps of 16 f32
// (64-byte rows, as f16's 32) in 4 stages: A's rows padded by 4 f32 (16
// bytes, for ldmatrix), B's by 8 (the four k rows of a fragment load 8
// banks apart). Each step: 2 x (2 ldmatrix x4 of A as 32-bit elements, 4 x
// 2 shared loads of B, every element rounded to tf32, 8 mma.sync
// m16n8k8). Without allow-tf32 (IEEE f32), K of 64 (two steps) is too
// short for 3xTF32 on wgmma (@mm_ieee below): the same pipeline feeds the
// CUDA cores' FMAs (fma_contraction_kernels.mlir).

// CHECK-DAG:   memref.global "private" @mm_mma_a : memref<4x64x20xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mm_mma_b : memref<4x16x72xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k8.tf32.f32", kernel = "mma_contraction", stages = 4 : i64, tf32_passes = 1 : i64, warp_tile = array<i64: 32, 32>, workgroup_tile = array<i64: 64, 64, 16>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>,
// CHECK:           nvgpu.device_async_copy {{.*}} : memref<1024x64xf32> to memref<4x64x20xf32, 3>
// CHECK:           nvgpu.device_async_copy {{.*}} : memref<64x1024xf32> to memref<4x16x72xf32, 3>
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
func.func private @mm(%a: memref<1024x64xf32>, %b: memref<64x1024xf32>, %out: memref<1024x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1024x64xf32> to tensor<1024x64xf32>
  %1 = bufferization.to_tensor %b restrict : memref<64x1024xf32> to tensor<64x1024xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1024x64xf32>, tensor<64x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  return
}

// -----

// Without allow-tf32 (IEEE f32), 1024 rows with K of 96 or more and N of
// 64 or more take 3xTF32 on wgmma (Wgmma.h's tf32 form: A and B both
// K-innermost): 128 x 64 tiles of two
// warpgroups (128 workgroups), K steps of 32 f32 (one 128-byte row), 4
// stages. Dynamic shared memory, each part aligned to a swizzle atom: A's
// stages, B's two transposed buffers (rounded and remainders), A's two
// remainder buffers, B's stages as stored (rows of 64 padded by 4), the
// epilogue's staging over the start (165,888 bytes, plus an atom). Each
// step waits for its copies and issues those two steps ahead, as the f16
// kernel, then rounds its stage: A's 16-byte chunks in place (the low 13
// bits cleared) with their remainders (cleared too, zero where the chunk
// was exact) beside, B transposed a column at a time into swizzled rows of
// k, both parts; fences the async proxy, barriers, and issues three
// wgmmas a k8 (remainder of A by B, A by B's remainder, A by B) into a
// fresh accumulator (the first ignores what its registers hold), waits
// for the previous step's and adds those 32 sums a thread into the
// tile's accumulator in f32; the last step's are added after the loop.
// IEEE-LABEL:  func.func private @mm_ieee(
// IEEE-SAME:     kiln.lowering_config = {instruction = "wgmma.m64n0k8.tf32.f32", kernel = "mma_contraction", stages = 4 : i64, tf32_passes = 3 : i64, warp_tile = array<i64: 16, 64>, workgroup_tile = array<i64: 128, 64, 32>}
// IEEE-SAME:     kiln.shared_memory_bytes = 166912 : i64
// IEEE-SAME:     kiln.workgroup_size = array<i64: 256, 1, 1>
// IEEE:          memref.view {{.*}} to memref<4x128x32xf32, 3>
// IEEE:          memref.view {{.*}} to memref<2x2x64x32xf32, 3>
// IEEE:          memref.view {{.*}} to memref<2x128x32xf32, 3>
// IEEE:          memref.view {{.*}} to memref<4x32x68xf32, 3>
// IEEE:          memref.view {{.*}} to memref<128x72xf32, 3>
// IEEE:          scf.for {{.*}} -> (!llvm.struct<(f32,
// IEEE:            nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// IEEE-NEXT:       nvvm.fence.proxy
// IEEE-NEXT:       gpu.barrier
// IEEE:            nvgpu.device_async_create_group
// IEEE:            %[[A:[0-9]+]] = vector.load {{.*}} : memref<4x128x32xf32, 3>, vector<4xf32>
// IEEE:            arith.andi %{{.*}}, %{{.*}} : vector<4xi32>
// IEEE:            vector.store %[[BIG:[0-9]+]], {{.*}} : memref<4x128x32xf32, 3>, vector<4xf32>
// IEEE-NEXT:       %[[EXACT:[0-9]+]] = arith.cmpf oeq, %[[A]], %[[BIG]] : vector<4xf32>
// IEEE:            arith.select %[[EXACT]]
// IEEE-NEXT:       vector.store {{.*}} : memref<2x128x32xf32, 3>, vector<4xf32>
// IEEE:            vector.load {{.*}} : memref<4x32x68xf32, 3>, vector<4xf32>
// IEEE:            arith.xori
// IEEE:            memref.store {{.*}} : memref<2x2x64x32xf32, 3>
// IEEE:            memref.store {{.*}} : memref<2x2x64x32xf32, 3>
// IEEE:            nvvm.fence.proxy
// IEEE-NEXT:       gpu.barrier
// IEEE:            nvvm.wgmma.fence.aligned
// IEEE:            nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// IEEE-COUNT-11:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// IEEE-NEXT:       nvvm.wgmma.commit.group.sync.aligned
// IEEE-NEXT:       nvvm.wgmma.wait.group.sync.aligned 1
// IEEE:            llvm.inline_asm has_side_effects "", "=f,
// IEEE-COUNT-32:   arith.addf %{{.*}}, %{{.*}} : f32
// IEEE-NOT:        nvgpu.mma.sync
// IEEE:            scf.yield
// IEEE:          nvvm.wgmma.wait.group.sync.aligned 0
// IEEE:          llvm.inline_asm has_side_effects "", "=f,
// IEEE-COUNT-32: arith.addf %{{.*}}, %{{.*}} : f32
func.func private @mm_ieee(%a: memref<1024x256xf32>, %b: memref<256x1024xf32>, %out: memref<1024x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1024x256xf32> to tensor<1024x256xf32>
  %1 = bufferization.to_tensor %b restrict : memref<256x1024xf32> to tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1024x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
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

// -----

// A 3x3 convolution (channels-last, 4608 rows, K = 576, N = 128) keeps the
// CUDA cores' FMA tiles in IEEE f32: 3xTF32 ran ResNets' 3x3 convolutions
// faster, but a ResNet50's stem on it missed f32's tolerance. With
// allow-tf32, mma.sync's tf32 tiles.

// CHECK-LABEL: func.func private @conv_ieee(
// CHECK-SAME:    instruction = "mma_sync.m16n8k8.tf32.f32"
// IEEE-LABEL:  func.func private @conv_ieee(
// IEEE-SAME:     implicit_gemm = array<i64: 4608, 128, 576>
// IEEE-SAME:     kernel = "fma_contraction"
// IEEE-NOT:      nvvm.wgmma
func.func private @conv_ieee(%x: memref<2x50x50x64xf32>, %w: memref<3x3x64x128xf32>, %out: memref<2x48x48x128xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<2x50x50x64xf32> to tensor<2x50x50x64xf32>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x64x128xf32> to tensor<3x3x64x128xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x48x48x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x48x48x128xf32>) -> tensor<2x48x48x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<2x50x50x64xf32>, tensor<3x3x64x128xf32>) outs(%f : tensor<2x48x48x128xf32>) -> tensor<2x48x48x128xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<2x48x48x128xf32>, memref<2x48x48x128xf32>) -> ()
  return
}

// -----

// 1568 x 960 by 160 split along K before code generation (6 batches of K
// 160, by kiln-split-reduction): a batched contraction takes 3xTF32 only
// with K and N of 256 or more (this split ran 20% slower on it).

// IEEE-LABEL:  func.func private @batched(
// IEEE-SAME:     kernel = "fma_contraction"
// IEEE-NOT:      nvvm.wgmma
func.func private @batched(%a: memref<6x1568x160xf32>, %b: memref<6x160x160xf32>, %out: memref<6x1568x160xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6x1568x160xf32> to tensor<6x1568x160xf32>
  %1 = bufferization.to_tensor %b restrict : memref<6x160x160xf32> to tensor<6x160x160xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x1568x160xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x1568x160xf32>) -> tensor<6x1568x160xf32>
  %m = linalg.batch_matmul ins(%0, %1 : tensor<6x1568x160xf32>, tensor<6x160x160xf32>) outs(%f : tensor<6x1568x160xf32>) -> tensor<6x1568x160xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<6x1568x160xf32>, memref<6x1568x160xf32>) -> ()
  return
}

// -----

// 1030 rows over K = 3: A's rows are not 16-byte runs (it would be
// gathered an element at a time), which the 3xTF32 kernel has not run on
// a GPU with: the CUDA cores' FMAs instead.

// IEEE-LABEL:  func.func private @gathered(
// IEEE-SAME:     kernel = "fma_contraction"
// IEEE-NOT:      wgmma
func.func private @gathered(%a: memref<1030x3xf32>, %b: memref<3x36xf32>, %out: memref<1030x36xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1030x3xf32> to tensor<1030x3xf32>
  %1 = bufferization.to_tensor %b restrict : memref<3x36xf32> to tensor<3x36xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1030x36xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1030x36xf32>) -> tensor<1030x36xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1030x3xf32>, tensor<3x36xf32>) outs(%f : tensor<1030x36xf32>) -> tensor<1030x36xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1030x36xf32>, memref<1030x36xf32>) -> ()
  return
}
