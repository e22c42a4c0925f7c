// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=sm_90 --kiln-gpu-contraction-kernels %s | FileCheck %s

// IEEE f32 on sm_90 (an H100's multiprocessors and shared memory without
// sm_90a's wgmma, with which matmuls of 1024 rows or more take 3xTF32:
// wgmma_contraction_kernels.mlir): the CUDA cores' FMAs, fed by the tensor-core
// kernels' pipeline (cp.async into shared stages, tails past M
// zero-filled). A transformer's MLP up-projection over 128 tokens into
// 2112 columns: 64 x 32 tiles (132 workgroups for 132 processors) of 128
// threads, each 4 x 4 outputs, would leave a processor fewer than 256
// threads, so the tile is sliced along K in two (32 x 32 tiles, 264
// workgroups, would leave the busiest processor as many outputs): 256 threads, K steps of 32 through 3 stages, each
// slice's threads the first or second 16 k of every step; every 4 k a
// thread reads a 16-byte run of A for each of its 4 rows and one of B for
// each k, for 64 multiply-adds. After the K loop every thread stores its
// partial sums into the A stages (a barrier before, once no thread reads
// them; one after), and each slice finishes half of each thread's rows:
// the two slices' sums (slice order), then the bias, stored 4 columns at
// a time. No staging buffer.

// CHECK-DAG:   memref.global "private" @mlp_mma_a : memref<3x64x36xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @mlp_mma_b : memref<3x32x40xf32, 3> {alignment = 16 : i64}
// CHECK-NOT:   @mlp_mma_out
// CHECK-LABEL: func.func private @mlp(
// CHECK-SAME:    kiln.lowering_config = {k_slices = 2 : i64, kernel = "fma_contraction", stages = 3 : i64, thread_tile = array<i64: 4, 4>, workgroup_tile = array<i64: 64, 32, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 128, 2112) step (1, 64, 32)
// CHECK:           %[[TID:.*]] = gpu.thread_id x
// CHECK:           %[[SLICE:.*]] = arith.divui %[[TID]], %c128
// CHECK:           arith.remui %[[TID]], %c128
// CHECK-COUNT-2:   nvgpu.device_async_copy %arg0{{.*}} : memref<128x384xf32> to memref<3x64x36xf32, 3>
// CHECK:           nvgpu.device_async_copy %arg1{{.*}} : memref<384x2112xf32> to memref<3x32x40xf32, 3>
// CHECK:           scf.for {{.*}} to %c12 {{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:             nvgpu.device_async_wait
// CHECK:             gpu.barrier
// CHECK:             nvgpu.device_async_copy
// CHECK:             %[[K0:.*]] = arith.muli %[[SLICE]], %c16
// CHECK:             %[[K:.*]] = arith.addi %[[K0]], %c0
// CHECK:             vector.load %{{.*}}[%{{.*}}, %{{.*}}, %[[K]]] {alignment = 16 : i64} : memref<3x64x36xf32, 3>, vector<4xf32>
// CHECK-COUNT-3:     vector.load {{.*}} {alignment = 16 : i64} : memref<3x64x36xf32, 3>, vector<4xf32>
// CHECK:             vector.load {{.*}} {alignment = 16 : i64} : memref<3x32x40xf32, 3>, vector<4xf32>
// CHECK-COUNT-16:    arith.mulf
// CHECK-NOT:         nvgpu.mma.sync
// CHECK:             scf.yield
// CHECK:           nvgpu.device_async_wait
// CHECK:           gpu.barrier
// CHECK:           %[[PARTIALS:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<3x64x36xf32, 3> into memref<6912xf32, 3>
// CHECK:           %[[BASE:.*]] = arith.muli %[[SLICE]], %c64
// CHECK-COUNT-4:   vector.store {{.*}}, %[[PARTIALS]][%{{.*}}] {alignment = 16 : i64} : memref<6912xf32, 3>, vector<4xf32>
// CHECK:           gpu.barrier
// CHECK:           %[[OWN:.*]] = vector.load %[[PARTIALS]][%{{.*}}] {alignment = 16 : i64} : memref<6912xf32, 3>, vector<4xf32>
// CHECK:           %[[OTHER:.*]] = vector.load %[[PARTIALS]][%{{.*}}] {alignment = 16 : i64} : memref<6912xf32, 3>, vector<4xf32>
// CHECK:           arith.addf %[[OWN]], %[[OTHER]] : vector<4xf32>
// CHECK:           vector.load %arg2[%{{.*}}] {alignment = 16 : i64} : memref<2112xf32>, vector<4xf32>
// CHECK:           arith.addf
// CHECK:           vector.store {{.*}}, %arg3{{.*}} {alignment = 16 : i64} : memref<128x2112xf32>, vector<4xf32>
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @mlp(%a: memref<128x384xf32>, %b: memref<384x2112xf32>, %bias: memref<2112xf32>, %out: memref<128x2112xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<128x384xf32> to tensor<128x384xf32>
  %1 = bufferization.to_tensor %b restrict : memref<384x2112xf32> to tensor<384x2112xf32>
  %2 = bufferization.to_tensor %bias restrict : memref<2112xf32> to tensor<2112xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x2112xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128x2112xf32>) -> tensor<128x2112xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<128x384xf32>, tensor<384x2112xf32>) outs(%f : tensor<128x2112xf32>) -> tensor<128x2112xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %2 : tensor<128x2112xf32>, tensor<2112xf32>) outs(%e : tensor<128x2112xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<128x2112xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<128x2112xf32>, memref<128x2112xf32>) -> ()
  return
}

// -----

// The same over 197 tokens (a ViT's): 64 x 32 tiles would be 192
// workgroups, two on 60 processors (4096 outputs on the busiest, 256 rows
// for 197); 32 x 32 tiles sliced in four, 336 workgroups, leave it 3072
// (224 rows), so they are taken.

// CHECK-LABEL: func.func private @vit_mlp(
// CHECK-SAME:    kiln.lowering_config = {k_slices = 4 : i64, kernel = "fma_contraction", stages = 4 : i64, thread_tile = array<i64: 4, 4>, workgroup_tile = array<i64: 32, 32, 32>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 197, 1536) step (1, 32, 32)
func.func private @vit_mlp(%a: memref<197x384xf32>, %b: memref<384x1536xf32>, %out: memref<197x1536xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<197x384xf32> to tensor<197x384xf32>
  %1 = bufferization.to_tensor %b restrict : memref<384x1536xf32> to tensor<384x1536xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<197x1536xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<197x1536xf32>) -> tensor<197x1536xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<197x384xf32>, tensor<384x1536xf32>) outs(%f : tensor<197x1536xf32>) -> tensor<197x1536xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<197x1536xf32>, memref<197x1536xf32>) -> ()
  return
}

// -----

// A large output: 128 x 128 tiles of 256 threads, 8 x 8 outputs each in
// two runs of 4 columns half the tile apart (so a quarter warp's B reads
// are 8 consecutive runs), 2 stages; 256 workgroups fill the chip, so no
// K slices (nor 128 x 64 tiles, whose 512 workgroups are fewer than four
// a processor). Two workgroups a processor: the back end keeps a thread to
// 128 registers (129 otherwise, one workgroup of 8 warps a processor).

// CHECK-LABEL: func.func private @large(
// CHECK-SAME:    kiln.lowering_config = {kernel = "fma_contraction", stages = 2 : i64, thread_tile = array<i64: 8, 8>, workgroup_tile = array<i64: 128, 128, 16>, workgroups_per_processor = 2 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK-SAME:    kiln.workgroups_per_processor = 2
// CHECK:         scf.for
// CHECK-COUNT-8:     vector.load {{.*}} : memref<2x128x20xf32, 3>, vector<4xf32>
// CHECK-COUNT-2:     vector.load {{.*}} : memref<2x16x136xf32, 3>, vector<4xf32>
// CHECK-COUNT-64:    arith.mulf
func.func private @large(%a: memref<2048x256xf32>, %b: memref<256x2048xf32>, %out: memref<2048x2048xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2048x256xf32> to tensor<2048x256xf32>
  %1 = bufferization.to_tensor %b restrict : memref<256x2048xf32> to tensor<256x2048xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<2048x256xf32>, tensor<256x2048xf32>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<2048x2048xf32>, memref<2048x2048xf32>) -> ()
  return
}

// -----

// ConvNeXt-T's MLP up-projection at batch 32 (6272 rows, 384 to 1536):
// 588 workgroups of 128 x 128, four and a half waves. A sliced 64 x 32
// tile would leave the busiest processor fewer outputs (36 of its
// workgroups, 73728, against 81920), but past two waves a tile's own rate
// decides: no K slices, and with 1176 workgroups of 128 x 64 (at least
// four a processor) that tile, 8 x 4 outputs a thread, 3 stages, two
// workgroups a processor.

// CHECK-LABEL: func.func private @waves(
// CHECK-SAME:    kiln.lowering_config = {kernel = "fma_contraction", stages = 3 : i64, thread_tile = array<i64: 8, 4>, workgroup_tile = array<i64: 128, 64, 16>, workgroups_per_processor = 2 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
func.func private @waves(%a: memref<6272x384xf32>, %b: memref<384x1536xf32>, %out: memref<6272x1536xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6272x384xf32> to tensor<6272x384xf32>
  %1 = bufferization.to_tensor %b restrict : memref<384x1536xf32> to tensor<384x1536xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6272x1536xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6272x1536xf32>) -> tensor<6272x1536xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<6272x384xf32>, tensor<384x1536xf32>) outs(%f : tensor<6272x1536xf32>) -> tensor<6272x1536xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<6272x1536xf32>, memref<6272x1536xf32>) -> ()
  return
}

// -----

// 64 tokens of a small encoder's QKV projection: no tile gives 132
// workgroups, so the one giving the most, 32 x 32 (48 workgroups of 64
// threads, each still 4 x 4 outputs), sliced along K in four: 256
// threads, K steps of 32 (8 a slice) through 4 stages, four partial sums
// exchanged through the A stages (4 x 32 rows of 36 f32 fill them).

// CHECK-NOT:   @tokens_mma_out
// CHECK-LABEL: func.func private @tokens(
// CHECK-SAME:    kiln.lowering_config = {k_slices = 4 : i64, kernel = "fma_contraction", stages = 4 : i64, thread_tile = array<i64: 4, 4>, workgroup_tile = array<i64: 32, 32, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 64, 768) step (1, 32, 32)
func.func private @tokens(%a: memref<64x256xf32>, %b: memref<256x768xf32>, %out: memref<64x768xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64x256xf32> to tensor<64x256xf32>
  %1 = bufferization.to_tensor %b restrict : memref<256x768xf32> to tensor<256x768xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<64x256xf32>, tensor<256x768xf32>) outs(%f : tensor<64x768xf32>) -> tensor<64x768xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<64x768xf32>, memref<64x768xf32>) -> ()
  return
}

// -----

// A matrix-vector product (one row): FMA tiles would be mostly empty, so
// the matrix-vector kernel (matvec_kernels.mlir).

// CHECK-LABEL: func.func private @matvec(
// CHECK-SAME:    kernel = "matvec"
func.func private @matvec(%a: memref<1x256xf32>, %b: memref<256x1000xf32>, %out: memref<1x1000xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1x256xf32> to tensor<1x256xf32>
  %1 = bufferization.to_tensor %b restrict : memref<256x1000xf32> to tensor<256x1000xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<1x256xf32>, tensor<256x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1x1000xf32>, memref<1x1000xf32>) -> ()
  return
}

// -----

// A projection whose heads are moved apart (q, k and v of 2 heads over 40
// tokens, kiln-form-dispatches' fuse-permuted-epilogues): the kernel
// computes at the contraction's indices (n, t, s, h, d) and stores each run
// of 4 columns where the transpose puts it, at (s, n, h, t, d) of the
// output; the innermost dimension stays innermost, so the runs stay runs.

// CHECK-LABEL: func.func private @qkv(
// CHECK-SAME:    kiln.lowering_config = {{{.*}}kernel = "fma_contraction"
// CHECK:           vector.from_elements {{.*}} : vector<4xf32>
// CHECK:           %[[T:.*]] = arith.remui %{{.*}}, %c40
// CHECK:           %[[N:.*]] = arith.divui %{{.*}}, %c40
// CHECK:           %[[D:.*]] = arith.remui %{{.*}}, %c32
// CHECK:           %[[HS:.*]] = arith.divui %{{.*}}, %c32
// CHECK:           %[[H:.*]] = arith.remui %[[HS]], %c2
// CHECK:           %[[S:.*]] = arith.divui %[[HS]], %c2
// CHECK:           vector.store %{{.*}}, %arg2[%[[S]], %[[N]], %[[H]], %[[T]], %[[D]]] {alignment = 16 : i64} : memref<2x1x2x40x32xf32>, vector<4xf32>
// CHECK-NOT:     linalg.
#x = affine_map<(n, t, s, h, d, k) -> (n, t, k)>
#w = affine_map<(n, t, s, h, d, k) -> (k, s, h, d)>
#y = affine_map<(n, t, s, h, d, k) -> (n, t, s, h, d)>
#id = affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>
#heads = affine_map<(s, n, h, t, d) -> (n, t, s, h, d)>
#out = affine_map<(s, n, h, t, d) -> (s, n, h, t, d)>
func.func private @qkv(%x: memref<1x40x64xf32>, %w: memref<64x2x2x32xf32>, %out: memref<2x1x2x40x32xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x40x64xf32> to tensor<1x40x64xf32>
  %1 = bufferization.to_tensor %w restrict : memref<64x2x2x32xf32> to tensor<64x2x2x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x2x2x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x40x2x2x32xf32>) -> tensor<1x40x2x2x32xf32>
  %m = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<1x40x64xf32>, tensor<64x2x2x32xf32>) outs(%f : tensor<1x40x2x2x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x40x2x2x32xf32>
  %et = tensor.empty() : tensor<2x1x2x40x32xf32>
  %t = linalg.generic {indexing_maps = [#heads, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%m : tensor<1x40x2x2x32xf32>) outs(%et : tensor<2x1x2x40x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<2x1x2x40x32xf32>
  bufferization.materialize_in_destination %t in restrict writable %out : (tensor<2x1x2x40x32xf32>, memref<2x1x2x40x32xf32>) -> ()
  return
}

// -----

// An unsliced FMA tile's epilogue (here a bias and erf, as a GELU's) runs
// in each thread on its own 8 x 4 outputs, straight from the accumulators:
// no staging buffer and no barriers after the K loop; the bias is read and
// the outputs stored in runs of 4 columns (16 bytes).

// CHECK-NOT:     @direct_mma_out
// CHECK-LABEL: func.func private @direct(
// CHECK-SAME:    thread_tile = array<i64: 8, 4>, workgroup_tile = array<i64: 128, 64, 16>
// CHECK:         scf.for
// CHECK:           gpu.barrier
// CHECK:           scf.yield
// CHECK-NOT:     gpu.barrier
// CHECK:         vector.load %arg2[%{{.*}}] {alignment = 16 : i64} : memref<1536xf32>, vector<4xf32>
// CHECK-COUNT-4: math.erf
// CHECK:         vector.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<6272x1536xf32>, vector<4xf32>
// CHECK-NOT:     gpu.barrier
// CHECK-NOT:     linalg.
func.func private @direct(%a: memref<6272x384xf32>, %b: memref<384x1536xf32>, %bias: memref<1536xf32>, %out: memref<6272x1536xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6272x384xf32> to tensor<6272x384xf32>
  %1 = bufferization.to_tensor %b restrict : memref<384x1536xf32> to tensor<384x1536xf32>
  %2 = bufferization.to_tensor %bias restrict : memref<1536xf32> to tensor<1536xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6272x1536xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6272x1536xf32>) -> tensor<6272x1536xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<6272x384xf32>, tensor<384x1536xf32>) outs(%f : tensor<6272x1536xf32>) -> tensor<6272x1536xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %2 : tensor<6272x1536xf32>, tensor<1536xf32>) outs(%e : tensor<6272x1536xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = math.erf %s : f32
    linalg.yield %r : f32
  } -> tensor<6272x1536xf32>
  bufferization.materialize_in_destination %g in restrict writable %out : (tensor<6272x1536xf32>, memref<6272x1536xf32>) -> ()
  return
}

// -----

// ResNet-18's 3x3 convolution at 14x14x256, batch 32 (M 6272, N 256, K
// 2304): 128 x 64 tiles would be 196 workgroups over 132 processors, two
// on some and one on others; 64 x 64 tiles (392) and the sliced 64 x 32
// (784) leave the busiest processor the same, fewer outputs, and of those
// the larger tile wins. No cap of two workgroups a processor: 4 x 4
// threads fit more without it.

// CHECK-LABEL: func.func private @conv3x3(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 6272, 256, 2304>, kernel = "fma_contraction", stages = 4 : i64, thread_tile = array<i64: 4, 4>, workgroup_tile = array<i64: 64, 64, 16>}
// CHECK-NOT:     workgroups_per_processor
func.func private @conv3x3(%x: memref<32x16x16x256xf32>, %w: memref<3x3x256x256xf32>, %out: memref<32x14x14x256xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<32x16x16x256xf32> to tensor<32x16x16x256xf32>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x256x256xf32> to tensor<3x3x256x256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x14x14x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x14x14x256xf32>) -> tensor<32x14x14x256xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<32x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%f : tensor<32x14x14x256xf32>) -> tensor<32x14x14x256xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<32x14x14x256xf32>, memref<32x14x14x256xf32>) -> ()
  return
}

// -----

// ResNet-34's 3x3 convolution at 28x28x128, batch 32 (M 25088, N 128, K
// 1152): 128 x 64, 64 x 64 and sliced 64 x 32 tiles leave the busiest
// processor the same outputs; the largest, 128 x 64, wins, and over fewer
// than four waves (392 workgroups) it runs two a processor.

// CHECK-LABEL: func.func private @conv3x3_28(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 25088, 128, 1152>, kernel = "fma_contraction", stages = 3 : i64, thread_tile = array<i64: 8, 4>, workgroup_tile = array<i64: 128, 64, 16>, workgroups_per_processor = 2 : i64}
func.func private @conv3x3_28(%x: memref<32x30x30x128xf32>, %w: memref<3x3x128x128xf32>, %out: memref<32x28x28x128xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<32x30x30x128xf32> to tensor<32x30x30x128xf32>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x128x128xf32> to tensor<3x3x128x128xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x28x28x128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x28x28x128xf32>) -> tensor<32x28x28x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<32x30x30x128xf32>, tensor<3x3x128x128xf32>) outs(%f : tensor<32x28x28x128xf32>) -> tensor<32x28x28x128xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<32x28x28x128xf32>, memref<32x28x28x128xf32>) -> ()
  return
}

// -----

// MobileNetV2's first 1x1 expansion at batch 1 (M 12544, N 96, K 16): 196
// tiles of 128 x 64, under two waves and one K step, run without the cap
// of two workgroups a processor (under it ptxas spilled its epilogue).

// CHECK-LABEL: func.func private @expand1x1(
// CHECK-SAME:    workgroup_tile = array<i64: 128, 64, 16>}
// CHECK-NOT:     workgroups_per_processor
func.func private @expand1x1(%x: memref<1x112x112x16xf32>, %w: memref<1x1x16x96xf32>, %out: memref<1x112x112x96xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x112x112x16xf32> to tensor<1x112x112x16xf32>
  %1 = bufferization.to_tensor %w restrict : memref<1x1x16x96xf32> to tensor<1x1x16x96xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x112x112x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x112x112x16xf32>, tensor<1x1x16x96xf32>) outs(%f : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x112x112x96xf32>, memref<1x112x112x96xf32>) -> ()
  return
}
