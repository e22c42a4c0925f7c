// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-contraction-kernels %s | FileCheck %s

// The tensor-core kernel on an H100 (sm_90a: wgmma, 132 multiprocessors,
// 227 KiB of shared memory a workgroup when the kernel opts in).

// f16 x f16 -> f32 plus a bias and a ReLU, M = 67584, N = 64, K = 1056:
// a long, large GEMM (K of at least 1024, 528 workgroups of 128 x 64,
// four a processor), so the two-warpgroup tiles come first, and 128 x 64
// leaves as much work on the busiest processor as 64 x 64: two
// warpgroups (256 threads) of an m64n64 instruction each. Four stages of
// K = 64 (17 steps, the last half past K) live in dynamic shared memory
// (97 KiB plus 1 KiB to align them to a swizzle atom: two such
// workgroups fit a multiprocessor, which the kernel asks for, so ptxas
// keeps its registers to half the file), viewed in NVVM's shared space:
// A as 128 rows of 64 k, B as one block of 64 columns, 64 rows of k; the
// epilogue's staging reuses the start. Copies go to swizzled columns (the
// 16-byte chunk exchanged by the row modulo 8); two steps' copies are in
// flight before the loop. Each step waits for its copies (one newer group
// may be pending), fences them for the async proxy, barriers, issues the
// copies two steps ahead (the stage read two steps before), pins the
// accumulator, issues 4 wgmmas (one per 16 of K) and waits for the
// previous step's. After the loop the last group is waited for and a
// barrier lets the staging overwrite the stages; the epilogue stages the
// whole 128 x 64 tile in f32 (each warp its 16 rows, 8-byte pairs into
// rows padded by 32 bytes), then each thread takes 4 runs of 8 columns,
// their bias loads (a vector of 8 for each) issued together, and stores
// them.

// CHECK-LABEL: func.func private @mm(
// CHECK-SAME:    kiln.lowering_config = {instruction = "wgmma.m64n0k16.f16.f32", kernel = "mma_contraction", stages = 4 : i64, warp_tile = array<i64: 16, 64>, workgroup_tile = array<i64: 128, 64, 64>, workgroups_per_processor = 2 : i64}
// CHECK-SAME:    kiln.shared_memory_bytes = 99328 : i64
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK-SAME:    kiln.workgroups_per_processor = 2 : i64
// CHECK:         %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         %[[SHARED:.*]] = memref.memory_space_cast %[[DYN]] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xi8, 3>
// CHECK:         %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[SHARED]]
// CHECK:         arith.remui %[[BASE]], %c1024
// CHECK:         memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8, 3> to memref<4x128x64xf16, 3>
// CHECK:         memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8, 3> to memref<4x1x64x64xf16, 3>
// CHECK:         memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8, 3> to memref<128x72xf32, 3>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 67584, 64) step (1, 128, 64)
// CHECK:           arith.xori
// CHECK:           nvgpu.device_async_copy %arg0{{.*}} : memref<67584x1056xf16> to memref<4x128x64xf16, 3>
// CHECK:         scf.for {{.*}} -> (!llvm.struct<(f32, f32,
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:      gpu.barrier
// CHECK-COUNT-6:   nvgpu.device_async_copy
// CHECK:           nvgpu.device_async_create_group
// CHECK:           llvm.inline_asm has_side_effects "", "=f,
// CHECK-NEXT:      nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK-NEXT:      nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-COUNT-32:  llvm.extractvalue
// CHECK-NEXT:      llvm.inline_asm has_side_effects "", "=f,
// CHECK:           scf.yield
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-32: llvm.extractvalue
// CHECK-NEXT:    llvm.inline_asm has_side_effects
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.if
// CHECK-COUNT-128: vector.store {{.*}} {alignment = 8 : i64} : memref<128x72xf32, 3>, vector<2xf32>
// CHECK:         gpu.barrier
// CHECK-COUNT-4: vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<67584x64xf32>, vector<8xf32>
// CHECK:         gpu.barrier
// CHECK-NOT:     memref.global
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func private @mm(%a: memref<67584x1056xf16>, %b: memref<1056x64xf16>, %bias: memref<64xf32>, %out: memref<67584x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<67584x1056xf16> to tensor<67584x1056xf16>
  %1 = bufferization.to_tensor %b restrict : memref<1056x64xf16> to tensor<1056x64xf16>
  %2 = bufferization.to_tensor %bias restrict : memref<64xf32> to tensor<64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67584x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<67584x64xf32>) -> tensor<67584x64xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<67584x1056xf16>, tensor<1056x64xf16>) outs(%f : tensor<67584x64xf32>) -> tensor<67584x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %2 : tensor<67584x64xf32>, tensor<64xf32>) outs(%e : tensor<67584x64xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %x = arith.maximumf %s, %z : f32
    linalg.yield %x : f32
  } -> tensor<67584x64xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<67584x64xf32>, memref<67584x64xf32>) -> ()
  return
}

// -----

// A convolution over 3 input channels: A is gathered an element at a time
// into registers (each thread keeps one k of the 64 of a step) and stored
// into its stage's swizzled columns; B still comes by cp.async. 4356
// outputs of 64 channels: 69 tiles of 64 x 64 (a warpgroup each; enough to
// keep wgmma rather than mma.sync's 32 x 32). One step of K: one stage,
// filled before the loop and waited for once (copies, a proxy fence, a
// barrier); the loop issues the wgmmas only. The dynamic shared memory is
// then the epilogue's staging (64 rows of 64 + 8 f32: 18 KiB) plus the
// atom's 1 KiB, not three stages' 48 KiB.

// CHECK-LABEL: func.func private @three_channels(
// CHECK-SAME:    gather_a
// CHECK-SAME:    implicit_gemm = array<i64: 4356, 64, 27>
// CHECK-SAME:    instruction = "wgmma.m64n0k16.f16.f32"
// CHECK-SAME:    stages = 1
// CHECK-SAME:    workgroup_tile = array<i64: 64, 64, 64>
// CHECK-SAME:    kiln.shared_memory_bytes = 19456 : i64
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         nvgpu.device_async_copy %arg1
// CHECK:         arith.cmpi ult, %{{.*}}, %c27
// CHECK:         scf.if %{{.*}} -> (f16)
// CHECK:           memref.load %arg0
// CHECK:         arith.xori
// CHECK:         memref.store %{{.*}}, %{{.*}} : memref<1x64x64xf16, 3>
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:    nvvm.fence.proxy
// CHECK-NEXT:    gpu.barrier
// CHECK:         scf.for
// CHECK-NOT:       nvgpu.device_async_copy
// CHECK-NOT:       gpu.barrier
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           scf.yield
func.func private @three_channels(%x: memref<1x68x68x3xf16>, %w: memref<3x3x3x64xf16>, %out: memref<1x66x66x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x68x68x3xf16> to tensor<1x68x68x3xf16>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x3x64xf16> to tensor<3x3x3x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x66x66x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x66x66x64xf32>) -> tensor<1x66x66x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x68x68x3xf16>, tensor<3x3x3x64xf16>) outs(%f : tensor<1x66x66x64xf32>) -> tensor<1x66x66x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x66x66x64xf32>, memref<1x66x66x64xf32>) -> ()
  return
}

// -----

// A convolution whose input is padded by zero in the dispatch (kiln-form-
// dispatches' fuse-input-pads): A's copies read the unpadded binding as one
// dimension. A K step of 64 spans 4 window positions of 16 channels, but
// each of the 128 threads copies A at one column of the tile (a row is 8
// copies): its k, once a step, is checked against K, and its window
// position added to each copy's origin along the padded rows and columns
// (kept from before the loop, shifted by the low padding) and checked
// against the unpadded size (unsigned: left of the padding wraps past it);
// outside, a copy of 0 source bytes from index 0, as one past M or K.

// CHECK-LABEL: func.func private @padded_conv(
// CHECK-SAME:    implicit_gemm = array<i64: 196, 32, 144>
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x14x14x16xf16> into memref<3136xf16>
// CHECK:         arith.cmpi ult, %{{.*}}, %c144{{.*}} : index
// CHECK:         arith.cmpi ult, %{{.*}}, %c14{{.*}} : index
// CHECK:         arith.cmpi ult, %{{.*}}, %c14{{.*}} : index
// CHECK:         %[[INDEX:.+]] = arith.select %[[IN:.+]], %{{.*}}, %c0{{.*}} : index
// CHECK:         %[[BYTES:.+]] = arith.select %[[IN]], %c8{{.*}}, %c0{{.*}} : index
// CHECK:         nvgpu.device_async_copy %[[FLAT]][%[[INDEX]]], %{{.*}}, 8, %[[BYTES]] {bypassL1} : memref<3136xf16> to memref<3x64x64xf16, 3>
// CHECK-NOT:     tensor.pad
func.func private @padded_conv(%x: memref<1x14x14x16xf16>, %w: memref<3x3x16x32xf16>, %out: memref<1x14x14x32xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x14x14x16xf16> to tensor<1x14x14x16xf16>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x16x32xf16> to tensor<3x3x16x32xf16>
  %z = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %hz : f16
  } : tensor<1x14x14x16xf16> to tensor<1x16x16x16xf16>
  %e = tensor.empty() : tensor<1x14x14x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %1 : tensor<1x16x16x16xf16>, tensor<3x3x16x32xf16>) outs(%f : tensor<1x14x14x32xf32>) -> tensor<1x14x14x32xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x14x14x32xf32>, memref<1x14x14x32xf32>) -> ()
  return
}

// -----

// bf16 operands (what --precision=bf16 makes of an f32 matmul) take the
// same kernel with bf16 stages and wgmma's bf16 form; the 64 x 64 result
// is one tile of one warpgroup.

// CHECK-LABEL: func.func private @mm_bf16(
// CHECK-SAME:    instruction = "wgmma.m64n0k16.bf16.f32"
// CHECK:         memref.view %{{.*}} : memref<?xi8, 3> to memref<1x64x64xbf16, 3>
// CHECK:         nvgpu.device_async_copy %arg0{{.*}} : memref<64x64xbf16> to memref<1x64x64xbf16, 3>
// CHECK:         nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
func.func private @mm_bf16(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %out: memref<64x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64x64xbf16> to tensor<64x64xbf16>
  %1 = bufferization.to_tensor %b restrict : memref<64x64xbf16> to tensor<64x64xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%f : tensor<64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<64x64xf32>, memref<64x64xf32>) -> ()
  return
}

// -----

// 64 tokens of a small encoder's projection (64 x 256 by 256 x 768): wgmma's
// smallest tile, 64 x 64, gives 12 workgroups for 132 processors, so
// mma.sync's 32 x 32 tiles of 4 warps (48 workgroups) instead.

// CHECK-LABEL: func.func private @tokens(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k16.f16.f32", kernel = "mma_contraction", stages = 4 : i64, warp_tile = array<i64: 16, 16>, workgroup_tile = array<i64: 32, 32, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 64, 768) step (1, 32, 32)
// CHECK:           nvgpu.mma.sync
// CHECK-NOT:       nvvm.wgmma
func.func private @tokens(%a: memref<64x256xf16>, %b: memref<256x768xf16>, %out: memref<64x768xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64x256xf16> to tensor<64x256xf16>
  %1 = bufferization.to_tensor %b restrict : memref<256x768xf16> to tensor<256x768xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x768xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x768xf32>) -> tensor<64x768xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<64x256xf16>, tensor<256x768xf16>) outs(%f : tensor<64x768xf32>) -> tensor<64x768xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<64x768xf32>, memref<64x768xf32>) -> ()
  return
}

// -----

// A 1x1 convolution's GEMM, K = 256 (four steps of 64), M = 32768, N =
// 256: 64 x 128 tiles (as much work on the busiest processor as 128 x 128,
// one warpgroup first), three stages (the fewest the pipeline takes, not
// one per step plus two: a short K's workgroups overlap each other's
// copies and epilogues, three a multiprocessor in 73 KiB each). A
// one-warpgroup tile's registers fit them without asking.

// CHECK-LABEL: func.func private @short_k(
// CHECK-SAME:    kiln.lowering_config = {instruction = "wgmma.m64n0k16.f16.f32", kernel = "mma_contraction", stages = 3 : i64, warp_tile = array<i64: 16, 128>, workgroup_tile = array<i64: 64, 128, 64>}
// CHECK-SAME:    kiln.shared_memory_bytes = 74752 : i64
// CHECK-NOT:     workgroups_per_processor
// CHECK:         memref.view %{{.*}} : memref<?xi8, 3> to memref<3x64x64xf16, 3>
// CHECK:         memref.view %{{.*}} : memref<?xi8, 3> to memref<3x2x64x64xf16, 3>
func.func private @short_k(%a: memref<32768x256xf16>, %b: memref<256x256xf16>, %out: memref<32768x256xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<32768x256xf16> to tensor<32768x256xf16>
  %1 = bufferization.to_tensor %b restrict : memref<256x256xf16> to tensor<256x256xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32768x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32768x256xf32>) -> tensor<32768x256xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<32768x256xf16>, tensor<256x256xf16>) outs(%f : tensor<32768x256xf32>) -> tensor<32768x256xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<32768x256xf32>, memref<32768x256xf32>) -> ()
  return
}

// -----

// M = 2048, N = 512, K = 2048: 64 x 128 tiles, 128 workgroups of one
// warpgroup issuing an m64n128 per 16 of K, at most one a processor. Such
// a grid has no other workgroup to overlap a copy's latency with, so its
// long K loop (32 steps) takes as many stages as shared memory holds, up
// to eight (193 KiB), its copies six steps ahead.

// CHECK-LABEL: func.func private @one_a_processor(
// CHECK-SAME:    kiln.lowering_config = {instruction = "wgmma.m64n0k16.f16.f32", kernel = "mma_contraction", stages = 8 : i64, warp_tile = array<i64: 16, 128>, workgroup_tile = array<i64: 64, 128, 64>}
// CHECK-SAME:    kiln.shared_memory_bytes = 197632 : i64
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         memref.view %{{.*}} : memref<?xi8, 3> to memref<8x64x64xf16, 3>
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 5 : i32}
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>
func.func private @one_a_processor(%a: memref<2048x2048xf16>, %b: memref<2048x512xf16>, %out: memref<2048x512xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<2048x2048xf16> to tensor<2048x2048xf16>
  %1 = bufferization.to_tensor %b restrict : memref<2048x512xf16> to tensor<2048x512xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x512xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2048x512xf32>) -> tensor<2048x512xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<2048x2048xf16>, tensor<2048x512xf16>) outs(%f : tensor<2048x512xf32>) -> tensor<2048x512xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<2048x512xf32>, memref<2048x512xf32>) -> ()
  return
}

// -----

// Four K steps (K = 256, a 1x1 convolution at 56x56 over 256 channels) on
// 64 x 64 tiles: a stage for each step (64 KiB plus the atom's 1 KiB)
// still leaves three workgroups a processor, so all four are copied before
// the loop, which then waits for nothing.

// CHECK-LABEL: func.func private @k256_n64(
// CHECK-SAME:    stages = 4
// CHECK-SAME:    workgroup_tile = array<i64: 64, 64, 64>
// CHECK-SAME:    kiln.shared_memory_bytes = 66560 : i64
// CHECK-COUNT-4: nvgpu.device_async_create_group
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         scf.for
// CHECK-NOT:       nvgpu.device_async_wait
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           scf.yield
func.func private @k256_n64(%a: memref<100352x256xf16>, %b: memref<256x64xf16>, %out: memref<100352x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<100352x256xf16> to tensor<100352x256xf16>
  %1 = bufferization.to_tensor %b restrict : memref<256x64xf16> to tensor<256x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100352x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<100352x64xf32>) -> tensor<100352x64xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<100352x256xf16>, tensor<256x64xf16>) outs(%f : tensor<100352x64xf32>) -> tensor<100352x64xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<100352x64xf32>, memref<100352x64xf32>) -> ()
  return
}

// -----

// The same K on 64 x 128 tiles: four stages (96 KiB) would leave two
// workgroups a processor, so the pipeline's three stages stay, one step
// copied ahead, each step waiting for its own copies.

// CHECK-LABEL: func.func private @k256_n1024(
// CHECK-SAME:    stages = 3
// CHECK-SAME:    workgroup_tile = array<i64: 64, 128, 64>
// CHECK-SAME:    kiln.shared_memory_bytes = 74752 : i64
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:           nvgpu.device_async_copy
// CHECK:           nvvm.wgmma.mma_async
func.func private @k256_n1024(%a: memref<6272x256xf16>, %b: memref<256x1024xf16>, %out: memref<6272x1024xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6272x256xf16> to tensor<6272x256xf16>
  %1 = bufferization.to_tensor %b restrict : memref<256x1024xf16> to tensor<256x1024xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6272x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6272x1024xf32>) -> tensor<6272x1024xf32>
  %m = linalg.matmul ins(%0, %1 : tensor<6272x256xf16>, tensor<256x1024xf16>) outs(%f : tensor<6272x1024xf32>) -> tensor<6272x1024xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<6272x1024xf32>, memref<6272x1024xf32>) -> ()
  return
}
