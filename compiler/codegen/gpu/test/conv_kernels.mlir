// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=rtx4090 --kiln-gpu-contraction-kernels --canonicalize --cse %s | FileCheck %s

// The target: an RTX 4090 (128 multiprocessors, mma.sync m16n8k16).

// Convolutions are implicit GEMMs in the contraction kernels: M = N * OH *
// OW, N = F, K = KH * KW * C. A 3x3 stride-2 convolution (as tosa.conv2d
// gives: the accumulator a bias broadcast, then relu): M = 2 * 9 * 9 = 162,
// N = 8, K = 3 * 3 * 4 = 36. A's elements are gathered from the input: the
// linear m and k are delinearized into (n, oh, ow) and (kh, kw, c) and the
// input is read at (n, oh * 2 + kh, ow * 2 + kw, c); B is the filter read
// as a K x N matrix. Every edge is predicated (162, 8 and 36 are not
// multiples of 32, 32 and 16); each output starts from its bias element
// and gets relu before its store.

// CHECK-LABEL: func.func private @conv_bias_relu(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 162, 8, 36>, kernel = "simt_contraction", stages = 1 : i64, thread_tile = array<i64: 2, 1>, workgroup_tile = array<i64: 32, 16, 16>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (1, 162, 8) step (1, 32, 16)
// CHECK:           scf.if
// CHECK-NEXT:        memref.load %arg0[
// CHECK:             arith.remui %{{.*}}, %c9
// CHECK-NEXT:        arith.divui %{{.*}}, %c9
// CHECK-NEXT:        %[[OW:.+]] = arith.remui %{{.*}}, %c9
// CHECK-NEXT:        %[[N:.+]] = arith.divui %{{.*}}, %c9
// CHECK-NEXT:        %[[C:.+]] = arith.remui %{{.*}}, %c4
// CHECK-NEXT:        %[[KK:.+]] = arith.divui %{{.*}}, %c4
// CHECK-NEXT:        %[[KW:.+]] = arith.remui %[[KK]], %c3
// CHECK-NEXT:        %[[KH:.+]] = arith.divui %[[KK]], %c3
// CHECK-NEXT:        %[[OH2:.+]] = arith.muli %[[OW]], %c2
// CHECK-NEXT:        %[[H:.+]] = arith.addi %[[OH2]], %[[KH]]
// CHECK-NEXT:        %[[OW2:.+]] = arith.muli %{{.*}}, %c2
// CHECK-NEXT:        %[[W:.+]] = arith.addi %[[OW2]], %[[KW]]
// CHECK-NEXT:        memref.load %arg1[%[[N]], %[[H]], %[[W]], %[[C]]] : memref<2x19x19x4xf32>
// CHECK:           memref.load %arg2[{{.*}}] : memref<3x3x4x8xf32>
// CHECK:           scf.for {{.*}} step %c16
// CHECK:             memref.store {{.*}} : memref<16x36xf32, 3>
// CHECK:             memref.store {{.*}} : memref<16x16xf32, 3>
// CHECK:             gpu.barrier
// CHECK:             memref.load %arg1
// CHECK:             arith.mulf {{.*}} fastmath<contract>
// CHECK:             gpu.barrier
// CHECK:           arith.maximumf
// CHECK:           memref.store {{.*}}, %arg3
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func private @conv_bias_relu(%arg0: memref<8xf32>, %arg1: memref<2x19x19x4xf32>, %arg2: memref<3x3x4x8xf32>, %arg3: memref<2x9x9x8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<8xf32> to tensor<8xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<2x19x19x4xf32> to tensor<2x19x19x4xf32>
  %2 = bufferization.to_tensor %arg2 restrict : memref<3x3x4x8xf32> to tensor<3x3x4x8xf32>
  %z = arith.constant 0.0 : f32
  %3 = tensor.empty() : tensor<2x9x9x8xf32>
  %4 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<8xf32>) outs(%3 : tensor<2x9x9x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x9x9x8xf32>
  %5 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%1, %2 : tensor<2x19x19x4xf32>, tensor<3x3x4x8xf32>) outs(%4 : tensor<2x9x9x8xf32>) -> tensor<2x9x9x8xf32>
  %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<2x9x9x8xf32>) outs(%3 : tensor<2x9x9x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %7 = arith.maximumf %in, %z : f32
    linalg.yield %7 : f32
  } -> tensor<2x9x9x8xf32>
  bufferization.materialize_in_destination %6 in restrict writable %arg3 : (tensor<2x9x9x8xf32>, memref<2x9x9x8xf32>) -> ()
  return
}

// -----

// Dilation 2 scales the window loops: the input is read at
// (n, oh + kh * 2, ow + kw * 2, c).

// CHECK-LABEL: func.func private @dilated(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 144, 5, 27>
// CHECK:         scf.for
// CHECK:           %[[KH2:.+]] = arith.muli %{{.*}}, %c2
// CHECK:           arith.addi %{{.*}}, %[[KH2]]
// CHECK:           memref.load %arg0{{.*}} : memref<1x16x16x3xf32>
func.func private @dilated(%arg0: memref<1x16x16x3xf32>, %arg1: memref<3x3x3x5xf32>, %arg2: memref<1x12x12x5xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x16x16x3xf32> to tensor<1x16x16x3xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x3x5xf32> to tensor<3x3x3x5xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x12x12x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x12x12x5xf32>) -> tensor<1x12x12x5xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x16x16x3xf32>, tensor<3x3x3x5xf32>) outs(%f : tensor<1x12x12x5xf32>) -> tensor<1x12x12x5xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x12x12x5xf32>, memref<1x12x12x5xf32>) -> ()
  return
}

// -----

// A grouped convolution: the group is the GEMM's batch (a workgroup loop),
// M = N * OH * OW = 36, N = F = 3, K = KH * KW * C = 36.

// CHECK-LABEL: func.func private @grouped(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 36, 3, 36>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0) to (2, 36, 3)
func.func private @grouped(%arg0: memref<1x8x8x2x4xf32>, %arg1: memref<2x3x3x3x4xf32>, %arg2: memref<1x6x6x2x3xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x8x8x2x4xf32> to tensor<1x8x8x2x4xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<2x3x3x3x4xf32> to tensor<2x3x3x3x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x6x6x2x3xf32>) -> tensor<1x6x6x2x3xf32>
  %c = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x8x8x2x4xf32>, tensor<2x3x3x3x4xf32>) outs(%f : tensor<1x6x6x2x3xf32>) -> tensor<1x6x6x2x3xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x6x6x2x3xf32>, memref<1x6x6x2x3xf32>) -> ()
  return
}

// -----

// f16 inputs accumulating in f32, 32 input channels (a 16-byte copy is 8
// channels of one window position): the tensor-core kernel with the A tile
// gathered by cp.async. M = 7 * 7 = 49 rows, N = 64: one 64 x 64 tile
// would be one workgroup, so 32 x 32 tiles of 4 warps (each 16 x 16), the
// second row of tiles' 15 rows past M zero-filled. A K step of 32 is one
// window position's 32 channels, so A's copies read the input as one
// dimension, at the row's offset (computed before the K loop) plus the
// step's (the same for every copy of the step).

// CHECK-LABEL: func.func private @conv_f16(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 49, 64, 288>, instruction = "mma_sync.m16n8k16.f16.f32", kernel = "mma_contraction", stages = 4 : i64, warp_tile = array<i64: 16, 16>, workgroup_tile = array<i64: 32, 32, 32>}
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x9x9x32xf16> into memref<2592xf16>
// CHECK:         arith.select
// CHECK:         nvgpu.device_async_copy %[[FLAT]][%{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1} : memref<2592xf16>
// CHECK:         scf.for
// CHECK:           nvgpu.device_async_copy %[[FLAT]][%{{.*}}], %{{.*}}[{{.*}}], 8, %{{.*}} {bypassL1} : memref<2592xf16>
// CHECK:           nvgpu.mma.sync
func.func private @conv_f16(%arg0: memref<1x9x9x32xf16>, %arg1: memref<3x3x32x64xf16>, %arg2: memref<1x7x7x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x9x9x32xf16> to tensor<1x9x9x32xf16>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x32x64xf16> to tensor<3x3x32x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x9x9x32xf16>, tensor<3x3x32x64xf16>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x7x7x64xf32>, memref<1x7x7x64xf32>) -> ()
  return
}

// -----

// The same through a pad of 1 (kiln-form-dispatches' fuse-input-pads): each
// copy's window origin along the padded rows and columns is kept from
// before the loop (shifted by the padding), the step's window position
// added to it and checked against the unpadded size (unsigned: left of the
// padding wraps past it); outside, a copy of nothing from index 0.

// CHECK-LABEL: func.func private @conv_f16_padded(
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x7x7x32xf16> into memref<1568xf16>
// CHECK:         scf.for
// CHECK:           arith.cmpi ult, %{{.*}}, %c7 : index
// CHECK:           arith.cmpi ult, %{{.*}}, %c7 : index
// CHECK-NEXT:      %[[IN:.+]] = arith.andi
// CHECK:           %[[INDEX:.+]] = arith.select %[[IN]], %{{.*}}, %c0
// CHECK:           %[[BYTES:.+]] = arith.select %[[IN]], %c8, %c0
// CHECK:           nvgpu.device_async_copy %[[FLAT]][%[[INDEX]]], %{{.*}}[{{.*}}], 8, %[[BYTES]] {bypassL1} : memref<1568xf16>
// CHECK-NOT:     tensor.pad
func.func private @conv_f16_padded(%arg0: memref<1x7x7x32xf16>, %arg1: memref<3x3x32x64xf16>, %arg2: memref<1x7x7x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x7x7x32xf16> to tensor<1x7x7x32xf16>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x32x64xf16> to tensor<3x3x32x64xf16>
  %z = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %hz : f16
  } : tensor<1x7x7x32xf16> to tensor<1x9x9x32xf16>
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %1 : tensor<1x9x9x32xf16>, tensor<3x3x32x64xf16>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x7x7x64xf32>, memref<1x7x7x64xf32>) -> ()
  return
}

// -----

// Two input channels: a 16-byte copy of A would span window positions, so
// A is copied 4 bytes (one window position) at a time, through L1 (only
// 16-byte copies bypass it); B 16 bytes at a time. A K step of 32 spans 16
// window positions, but each of the 128 threads copies A at one column of
// the tile (a row is 16 copies), so its copies' addresses still split:
// the row's part before the K loop, the part of the thread's k once a
// step.

// CHECK-LABEL: func.func private @conv_f16_narrow(
// CHECK-NOT:     gather_a
// CHECK-SAME:    kernel = "mma_contraction"
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x11x11x2xf16> into memref<242xf16>
// CHECK:         nvgpu.device_async_copy %[[FLAT]][%{{.*}}], %{{.*}}[{{.*}}], 2 : memref<242xf16> to memref<4x32x40xf16, 3>
// CHECK:         nvgpu.device_async_copy %arg1{{.*}}, 8 {bypassL1} : memref<4x4x2x64xf16> to memref<4x32x40xf16, 3>
// CHECK:         nvgpu.mma.sync
func.func private @conv_f16_narrow(%arg0: memref<1x11x11x2xf16>, %arg1: memref<4x4x2x64xf16>, %arg2: memref<1x8x8x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x11x11x2xf16> to tensor<1x11x11x2xf16>
  %1 = bufferization.to_tensor %arg1 restrict : memref<4x4x2x64xf16> to tensor<4x4x2x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x11x11x2xf16>, tensor<4x4x2x64xf16>) outs(%f : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x8x8x64xf32>, memref<1x8x8x64xf32>) -> ()
  return
}

// -----

// A network's first convolution after kiln-pad-conv-channels: 7x7, stride
// 2, padded by 3, over 4 channels, so K = 196 is not a multiple of the K
// step of 32 (8 window positions). Each thread's copies of A share a
// column: once a step, its k is checked against K and its window position
// added to each copy's origin along the padded rows and columns, checked
// against the unpadded size; outside, a copy of nothing from index 0.

// CHECK-LABEL: func.func private @conv_f16_stem(
// CHECK-SAME:    implicit_gemm = array<i64: 64, 64, 196>
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x16x16x4xf16> into memref<1024xf16>
// CHECK:         scf.for
// CHECK:           arith.cmpi ult, %{{.*}}, %c196 : index
// CHECK:           arith.cmpi ult, %{{.*}}, %c16 : index
// CHECK:           arith.cmpi ult, %{{.*}}, %c16 : index
// CHECK:           %[[IN:.+]] = arith.andi
// CHECK:           %[[INDEX:.+]] = arith.select %[[IN]], %{{.*}}, %c0
// CHECK:           %[[COUNT:.+]] = arith.select %[[IN]], %c4, %c0
// CHECK:           nvgpu.device_async_copy %[[FLAT]][%[[INDEX]]], %{{.*}}[{{.*}}], 4, %[[COUNT]] : memref<1024xf16>
// CHECK-NOT:     tensor.pad
func.func private @conv_f16_stem(%arg0: memref<1x16x16x4xf16>, %arg1: memref<7x7x4x64xf16>, %arg2: memref<1x8x8x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x16x16x4xf16> to tensor<1x16x16x4xf16>
  %1 = bufferization.to_tensor %arg1 restrict : memref<7x7x4x64xf16> to tensor<7x7x4x64xf16>
  %z = arith.constant 0.0 : f32
  %hz = arith.constant 0.0 : f16
  %p = tensor.pad %0 low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %hz : f16
  } : tensor<1x16x16x4xf16> to tensor<1x22x22x4xf16>
  %e = tensor.empty() : tensor<1x8x8x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %1 : tensor<1x22x22x4xf16>, tensor<7x7x4x64xf16>) outs(%f : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x8x8x64xf32>, memref<1x8x8x64xf32>) -> ()
  return
}

// -----

// Three input channels (kiln-pad-conv-channels pads a network's to 4): not
// even 4 bytes a copy, so the tensor-core kernel gathers A element by
// element (B still by cp.async).

// CHECK-LABEL: func.func private @conv_f16_three(
// CHECK-SAME:    gather_a
// CHECK-SAME:    kernel = "mma_contraction"
// CHECK-NOT:     nvgpu.device_async_copy %arg0
// CHECK:         nvgpu.mma.sync
func.func private @conv_f16_three(%arg0: memref<1x11x11x3xf16>, %arg1: memref<4x4x3x64xf16>, %arg2: memref<1x8x8x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x11x11x3xf16> to tensor<1x11x11x3xf16>
  %1 = bufferization.to_tensor %arg1 restrict : memref<4x4x3x64xf16> to tensor<4x4x3x64xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x11x11x3xf16>, tensor<4x4x3x64xf16>) outs(%f : tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x8x8x64xf32>, memref<1x8x8x64xf32>) -> ()
  return
}

// -----

// A depthwise convolution reduces over no input channel: not a GEMM, left
// for kiln-gpu-window-kernels.

// CHECK-LABEL: func.func private @depthwise(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc
func.func private @depthwise(%arg0: memref<1x12x12x16xf32>, %arg1: memref<3x3x16xf32>, %arg2: memref<1x10x10x16xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x12x12x16xf32> to tensor<1x12x12x16xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x16xf32> to tensor<3x3x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10x10x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x12x12x16xf32>, tensor<3x3x16xf32>) outs(%f : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x10x10x16xf32>, memref<1x10x10x16xf32>) -> ()
  return
}

// -----

// ONNX's Conv with a bias: channels first, the accumulator a broadcast of
// the Fx1x1 bias read at index 0 of its size-1 dimensions, then a residual
// add. The bias map is a projected permutation with zeros; the kernel takes
// the dispatch (before, it was left to the per-output tiling, 10 to 40 times
// slower in MobileNetV2) and each output starts from bias[f, 0, 0].
// M = 8 * 8, N = 24, K = 16 * 3 * 3. The output's innermost dimension is
// ow, an m loop, so consecutive threads take consecutive rows (tid % 16),
// and a warp's stores fall in one channel plane.

// CHECK-LABEL: func.func private @conv_nchw_bias_residual(
// CHECK-SAME:    kiln.lowering_config = {implicit_gemm = array<i64: 64, 24, 144>
// CHECK:         %[[TID:.+]] = gpu.thread_id  x
// CHECK-NEXT:    %[[ROW:.+]] = arith.remui %[[TID]], %c16
// CHECK-NEXT:    %[[COL:.+]] = arith.divui %[[TID]], %c16
// CHECK:         memref.load %arg0[%{{.+}}, %c0, %c0] : memref<24x1x1xf32>
// CHECK:         arith.addf
// CHECK:         memref.store {{.*}}, %arg4
#bias_c11 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @conv_nchw_bias_residual(%arg0: memref<24x1x1xf32>, %arg1: memref<1x16x10x10xf32>, %arg2: memref<24x16x3x3xf32>, %arg3: memref<1x24x8x8xf32>, %arg4: memref<1x24x8x8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<24x1x1xf32> to tensor<24x1x1xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<1x16x10x10xf32> to tensor<1x16x10x10xf32>
  %2 = bufferization.to_tensor %arg2 restrict : memref<24x16x3x3xf32> to tensor<24x16x3x3xf32>
  %3 = bufferization.to_tensor %arg3 restrict : memref<1x24x8x8xf32> to tensor<1x24x8x8xf32>
  %e = tensor.empty() : tensor<1x24x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#bias_c11, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<24x1x1xf32>) outs(%e : tensor<1x24x8x8xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<1x24x8x8xf32>
  %4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%1, %2 : tensor<1x16x10x10xf32>, tensor<24x16x3x3xf32>) outs(%acc : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %5 = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %4 : tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) outs(%e : tensor<1x24x8x8xf32>) {
  ^bb0(%rv: f32, %v: f32, %o: f32):
    %s = arith.addf %rv, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x24x8x8xf32>
  bufferization.materialize_in_destination %5 in restrict writable %arg4 : (tensor<1x24x8x8xf32>, memref<1x24x8x8xf32>) -> ()
  return
}

// -----

// An f32 convolution whose input is padded by zero in the dispatch
// (kiln-form-dispatches' fuse-input-pads): the SIMT kernel loads A from
// the unpadded binding, each window index shifted by the low padding and
// checked against it (unsigned), zero outside.

// CHECK-LABEL: func.func private @padded_conv32(
// CHECK-SAME:    kernel = "simt_contraction"
// CHECK:         %[[H:.+]] = arith.subi %{{.*}}, %c1 : index
// CHECK-NEXT:    %[[HIN:.+]] = arith.cmpi ult, %[[H]], %c15 : index
// CHECK-NEXT:    %[[HC:.+]] = arith.select %[[HIN]], %[[H]], %c0 : index
// CHECK-NEXT:    %[[W:.+]] = arith.subi %{{.*}}, %c1 : index
// CHECK-NEXT:    %[[WIN:.+]] = arith.cmpi ult, %[[W]], %c15 : index
// CHECK-NEXT:    %[[WC:.+]] = arith.select %[[WIN]], %[[W]], %c0 : index
// CHECK-NEXT:    %[[IN:.+]] = arith.andi %[[HIN]], %[[WIN]] : i1
// CHECK-NEXT:    scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:      memref.load %arg0[%{{.*}}, %[[HC]], %[[WC]], %{{.*}}] : memref<1x15x15x6xf32>
// CHECK-NOT:     tensor.pad
func.func private @padded_conv32(%x: memref<1x15x15x6xf32>, %w: memref<3x3x6x10xf32>, %out: memref<1x8x8x10xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x15x15x6xf32> to tensor<1x15x15x6xf32>
  %1 = bufferization.to_tensor %w restrict : memref<3x3x6x10xf32> to tensor<3x3x6x10xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %z : f32
  } : tensor<1x15x15x6xf32> to tensor<1x17x17x6xf32>
  %e = tensor.empty() : tensor<1x8x8x10xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x10xf32>) -> tensor<1x8x8x10xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %1 : tensor<1x17x17x6xf32>, tensor<3x3x6x10xf32>) outs(%f : tensor<1x8x8x10xf32>) -> tensor<1x8x8x10xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<1x8x8x10xf32>, memref<1x8x8x10xf32>) -> ()
  return
}
