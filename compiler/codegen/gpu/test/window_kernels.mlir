// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-window-kernels --canonicalize --cse %s | FileCheck %s

// The target: an H100 (32-lane subgroups, 48 KiB of static shared memory).

// A depthwise 3x3 convolution with a bias + relu epilogue. A workgroup
// computes 2 rows x 16 columns x 32 channels: 32 consecutive threads on the
// channels, 2 x 4 groups of them on the rows and columns, each thread 4
// consecutive outputs of a row. The workgroup first copies the input box
// its windows read, (2 + 2) x (16 + 2) x 32, to shared memory (consecutive
// threads on consecutive channels; 2304 elements, 9 per thread, all 9
// loads before the 9 stores), then each thread loads one filter
// element per window position and 4 input elements from shared memory.
// 32 divides every tile: no predication.

// CHECK:       memref.global "private" @depthwise_bias_relu_window : memref<1x4x18x32xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @depthwise_bias_relu(
// CHECK-SAME:    kiln.lowering_config = {kernel = "window", stages = 1 : i64, thread_tile = array<i64: 4>, workgroup_tile = array<i64: 1, 2, 16, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0, 0, 0, 0) to (1, 32, 32, 32, 1, 1) step (1, 2, 16, 32, 1, 1)
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK-NOT:       scf.if
// CHECK-COUNT-9:   memref.load %arg0
// CHECK-NOT:       memref.load
// CHECK-COUNT-9:   memref.store {{.*}} : memref<1x4x18x32xf32, 3>
// CHECK-NEXT:      gpu.barrier
// CHECK:           scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK:             scf.for {{.*}} -> (f32, f32, f32, f32)
// CHECK:               memref.load %arg1
// CHECK-COUNT-4:       memref.load {{.*}} : memref<1x4x18x32xf32, 3>
// CHECK-NOT:           memref.load
// CHECK:               scf.yield
// CHECK-COUNT-4:   arith.maximumf
// CHECK-NOT:       linalg.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func private @depthwise_bias_relu(%arg0: memref<1x34x34x32xf32>, %arg1: memref<3x3x32xf32>, %arg2: memref<32xf32>, %arg3: memref<1x32x32x32xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x34x34x32xf32> to tensor<1x34x34x32xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x32xf32> to tensor<3x3x32xf32>
  %2 = bufferization.to_tensor %arg2 restrict : memref<32xf32> to tensor<32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x34x34x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %2 : tensor<1x32x32x32xf32>, tensor<32xf32>) outs(%e : tensor<1x32x32x32xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x32x32x32xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg3 : (tensor<1x32x32x32xf32>, memref<1x32x32x32xf32>) -> ()
  return
}

// -----

// A 3x3 stride-2 max pooling of 8 channels (the window operand is only a
// shape: nothing is loaded for it). 7 x 7 outputs: a 7 x 8 tile, 14
// groups of 8 channel threads; its box, (7 - 1) * 2 + 3 rows by
// (8 - 1) * 2 + 3 columns, reaches past the 15 input columns (read as 0,
// used by no stored output), and the eighth column's outputs are not
// stored.

// CHECK:       memref.global "private" @maxpool_window : memref<1x15x17x8xf32, 3>
// CHECK-LABEL: func.func private @maxpool(
// CHECK-SAME:    workgroup_tile = array<i64: 1, 7, 8, 8>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 112, 1, 1>
// 2040 box elements over 112 threads: 19 rounds, the last one's threads
// past the box (2040 - 18 * 112 = 24 of them) copying nothing.
// CHECK:           %[[COL:.+]] = arith.remui %{{.*}}, %c17
// CHECK:           %[[IN:.+]] = arith.cmpi ult, %[[COL]], %c15
// CHECK:           scf.if %[[IN]]
// CHECK-NEXT:        memref.load %arg0
// CHECK:           %[[LAST:.+]] = arith.cmpi ult, %{{.*}}, %c2040
// CHECK:           scf.if %[[LAST]]
// CHECK-NEXT:        memref.store {{.*}} : memref<1x15x17x8xf32, 3>
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           memref.load %arg
// CHECK:               arith.muli %{{.*}}, %c2
// CHECK:               memref.load {{.*}} : memref<1x15x17x8xf32, 3>
// CHECK-NEXT:          arith.maximumf
// CHECK:           arith.cmpi ult, %{{.*}}, %c7
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        memref.store {{.*}}, %arg1
func.func private @maxpool(%arg0: memref<1x15x15x8xf32>, %arg1: memref<1x7x7x8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x15x15x8xf32> to tensor<1x15x15x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x7x7x8xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%0, %win : tensor<1x15x15x8xf32>, tensor<3x3xf32>) outs(%f : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  bufferization.materialize_in_destination %p in restrict writable %arg1 : (tensor<1x7x7x8xf32>, memref<1x7x7x8xf32>) -> ()
  return
}

// -----

// Average pooling as tosa gives it: a sum, then a divide by the number of
// in-bounds elements computed from linalg.index; in the kernel the index is
// the output's own.

// CHECK-LABEL: func.func private @avgpool(
// CHECK-SAME:    kernel = "window"
// CHECK-NOT:     linalg.index
// CHECK:         arith.divf
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @avgpool(%arg0: memref<1x10x10x3xf32>, %arg1: memref<1x8x8x3xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x10x10x3xf32> to tensor<1x10x10x3xf32>
  %c6 = arith.constant 6 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x8x8x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%0, %win : tensor<1x10x10x3xf32>, tensor<3x3xf32>) outs(%f : tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x8x3xf32>) outs(%e : tensor<1x8x8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %a = arith.subi %c6, %i : index
    %b = arith.subi %c6, %j : index
    %n = arith.muli %a, %b : index
    %n32 = arith.index_cast %n : index to i32
    %nf = arith.sitofp %n32 : i32 to f32
    %d = arith.divf %in, %nf : f32
    linalg.yield %d : f32
  } -> tensor<1x8x8x3xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg1 : (tensor<1x8x8x3xf32>, memref<1x8x8x3xf32>) -> ()
  return
}

// -----

// A channel multiplier (output channel c * 2 + m): the lanes cover both
// channel loops, 16 x 2.

// CHECK-LABEL: func.func private @multiplier(
// CHECK-SAME:    workgroup_tile = array<i64: 1, 4, 8, 16, 2>}
func.func private @multiplier(%arg0: memref<1x10x10x16xf32>, %arg1: memref<3x3x16x2xf32>, %arg2: memref<1x8x8x16x2xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x10x10x16xf32> to tensor<1x10x10x16xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x16x2xf32> to tensor<3x3x16x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8x8x16x2xf32>) -> tensor<1x8x8x16x2xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x10x10x16xf32>, tensor<3x3x16x2xf32>) outs(%f : tensor<1x8x8x16x2xf32>) -> tensor<1x8x8x16x2xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<1x8x8x16x2xf32>, memref<1x8x8x16x2xf32>) -> ()
  return
}

// -----

// A global pooling over 64 x 64 pixels: even one output row of 32 channels
// needs a 512 KiB box, so it is left for kiln-gpu-tile.

// CHECK-LABEL: func.func private @global_pool(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.pooling_nhwc_sum
func.func private @global_pool(%arg0: memref<1x64x64x64xf32>, %arg1: memref<1x1x1x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x64x64x64xf32> to tensor<1x64x64x64xf32>
  %z = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<64x64xf32>
  %e = tensor.empty() : tensor<1x1x1x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x1x1x64xf32>) -> tensor<1x1x1x64xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %win : tensor<1x64x64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<1x1x1x64xf32>) -> tensor<1x1x1x64xf32>
  bufferization.materialize_in_destination %s in restrict writable %arg1 : (tensor<1x1x1x64xf32>, memref<1x1x1x64xf32>) -> ()
  return
}


// -----

// A pad by -inf in the dispatch (kiln-form-dispatches fuse-input-pads)
// feeding a 3x3 stride-2 max pooling: the box is copied from the unpadded
// binding, each index shifted by the low padding and checked against the
// binding (unsigned: left of the padding wraps past it), -inf outside; no
// padded tensor is stored.

// CHECK:       memref.global "private" @padded_maxpool_window : memref<1x9x9x16xf32, 3>
// CHECK-LABEL: func.func private @padded_maxpool(
// CHECK-SAME:    kernel = "window"
// CHECK:         %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[H:.+]] = arith.subi %{{.*}}, %c1 : index
// CHECK:         %[[HIN:.+]] = arith.cmpi ult, %[[H]], %c8 : index
// CHECK:         %[[W:.+]] = arith.subi %{{.*}}, %c1 : index
// CHECK:         %[[WIN:.+]] = arith.cmpi ult, %[[W]], %c8 : index
// CHECK:         %[[IN:.+]] = arith.andi %[[HIN]], %[[WIN]] : i1
// CHECK:         scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:      memref.load %arg0[%{{.*}}, %[[H]], %[[W]], %{{.*}}] : memref<1x8x8x16xf32>
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[NINF]] : f32
// CHECK-NOT:     tensor.pad
func.func private @padded_maxpool(%x: memref<1x8x8x16xf32>, %out: memref<1x4x4x16xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x8x8x16xf32> to tensor<1x8x8x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x10x10x16xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  bufferization.materialize_in_destination %m in restrict writable %out : (tensor<1x4x4x16xf32>, memref<1x4x4x16xf32>) -> ()
  return
}

// -----

// ResNet50's max pooling at batch 32 in f16 (3x3, stride 2, a pad of -inf
// fused): 64 channels innermost, 6.4 M outputs, so each thread takes 8
// channels as one 16-byte vector (802,816 threads, more than a quarter of
// the H100's resident 270,336; the small poolings above stay scalar). A
// subgroup's worth of vectors spans 32 channels (4 threads), the rest of
// the 256 threads the rows and columns; one output a thread (R = 1: no
// filter load to share). Box copies, window reads and maxima are on
// vectors of 8, -inf outside the input a splat.

// CHECK:       memref.global "private" @maxpool_f16_window : memref<1x17x17x32xf16, 3>
// CHECK-LABEL: func.func private @maxpool_f16(
// CHECK-SAME:    kiln.lowering_config = {kernel = "window", stages = 1 : i64, thread_tile = array<i64: 1>, vector_width = 8 : i64, workgroup_tile = array<i64: 1, 8, 8, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         %[[NINF:.+]] = arith.constant dense<0xFC00> : vector<8xf16>
// CHECK:         scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK-NEXT:      vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<32x112x112x64xf16>, vector<8xf16>
// CHECK:         } else {
// CHECK-NEXT:      scf.yield %[[NINF]] : vector<8xf16>
// CHECK:         vector.store {{.*}} {alignment = 16 : i64} : memref<1x17x17x32xf16, 3>, vector<8xf16>
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             vector.load {{.*}} : memref<1x17x17x32xf16, 3>, vector<8xf16>
// CHECK-NEXT:        arith.maximumf {{.*}} : vector<8xf16>
// CHECK:         vector.store {{.*}}, %arg1[{{.*}}] {alignment = 16 : i64} : memref<32x56x56x64xf16>, vector<8xf16>
func.func private @maxpool_f16(%x: memref<32x112x112x64xf16>, %out: memref<32x56x56x64xf16>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<32x112x112x64xf16> to tensor<32x112x112x64xf16>
  %ninf = arith.constant 0xFC00 : f16
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f16
  } : tensor<32x112x112x64xf16> to tensor<32x114x114x64xf16>
  %win = tensor.empty() : tensor<3x3xf16>
  %e = tensor.empty() : tensor<32x56x56x64xf16>
  %f = linalg.fill ins(%ninf : f16) outs(%e : tensor<32x56x56x64xf16>) -> tensor<32x56x56x64xf16>
  %c = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<32x114x114x64xf16>, tensor<3x3xf16>) outs(%f : tensor<32x56x56x64xf16>) -> tensor<32x56x56x64xf16>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<32x56x56x64xf16>, memref<32x56x56x64xf16>) -> ()
  return
}

// -----

// A wide depthwise convolution with a bias + relu epilogue (112 x 112 x
// 256 outputs in f32): 4 channels a thread as one vector, 4 outputs of a
// row each (sharing each filter vector). Multiplies and adds on vectors;
// the epilogue lane by lane, its bias loaded as one vector; each output's
// 4 channels stored as one.

// CHECK-LABEL: func.func private @depthwise_wide(
// CHECK-SAME:    kiln.lowering_config = {kernel = "window", stages = 1 : i64, thread_tile = array<i64: 4>, vector_width = 4 : i64, workgroup_tile = array<i64: 1, 2, 32, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         vector.store {{.*}} : memref<1x4x34x32xf32, 3>, vector<4xf32>
// CHECK:         gpu.barrier
// CHECK:         scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:           scf.for {{.*}} -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:             vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<3x3x256xf32>, vector<4xf32>
// CHECK:             vector.load {{.*}} : memref<1x4x34x32xf32, 3>, vector<4xf32>
// CHECK-NEXT:        arith.mulf {{.*}} : vector<4xf32>
// CHECK-NEXT:        arith.addf {{.*}} : vector<4xf32>
// CHECK:         vector.load %arg2[{{.*}}] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK:         arith.maximumf {{.*}} : f32
// CHECK:         vector.store {{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<1x112x112x256xf32>, vector<4xf32>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func private @depthwise_wide(%arg0: memref<1x114x114x256xf32>, %arg1: memref<3x3x256xf32>, %arg2: memref<256xf32>, %arg3: memref<1x112x112x256xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<1x114x114x256xf32> to tensor<1x114x114x256xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x256xf32> to tensor<3x3x256xf32>
  %2 = bufferization.to_tensor %arg2 restrict : memref<256xf32> to tensor<256xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x112x112x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x112x112x256xf32>) -> tensor<1x112x112x256xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x114x114x256xf32>, tensor<3x3x256xf32>) outs(%f : tensor<1x112x112x256xf32>) -> tensor<1x112x112x256xf32>
  %r = linalg.generic {indexing_maps = [#id, #chan, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %2 : tensor<1x112x112x256xf32>, tensor<256xf32>) outs(%e : tensor<1x112x112x256xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x112x112x256xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg3 : (tensor<1x112x112x256xf32>, memref<1x112x112x256xf32>) -> ()
  return
}

// -----

// A 7x7 depthwise convolution (ConvNeXt-T's first stage, f32 at batch 32):
// its halo of 6 would make a box of half the static shared memory hold 16
// outputs of a row for 22 columns read (1 x 16 tiles), so a window of 5 or
// more a side takes all 48 KiB: 4 rows of 32 outputs, a box of 10 x 38
// positions of 32 channels (48,640 bytes), 256 threads.

// CHECK-LABEL: func.func private @depthwise_7x7(
// CHECK-SAME:    kiln.lowering_config = {kernel = "window", stages = 1 : i64, thread_tile = array<i64: 4>, vector_width = 4 : i64, workgroup_tile = array<i64: 1, 4, 32, 32>}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         vector.store {{.*}} : memref<1x10x38x32xf32, 3>, vector<4xf32>
func.func private @depthwise_7x7(%arg0: memref<32x62x62x96xf32>, %arg1: memref<7x7x96xf32>, %arg2: memref<32x56x56x96xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<32x62x62x96xf32> to tensor<32x62x62x96xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<7x7x96xf32> to tensor<7x7x96xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x56x56x96xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x56x56x96xf32>) -> tensor<32x56x56x96xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<32x62x62x96xf32>, tensor<7x7x96xf32>) outs(%f : tensor<32x56x56x96xf32>) -> tensor<32x56x56x96xf32>
  bufferization.materialize_in_destination %c in restrict writable %arg2 : (tensor<32x56x56x96xf32>, memref<32x56x56x96xf32>) -> ()
  return
}

// -----

// A batch known per call (issue 19): the window kernel over it, its
// padding read in place (the box's rows and columns checked, not the
// batch), the workgroup loop bounded by the output view's batch, an affine
// value the grid program evaluates; `dynamic_rows` recorded.
// CHECK-LABEL: func.func private @depthwise_dynamic_batch(
// CHECK-SAME:    dynamic_rows
// CHECK-SAME:    kernel = "window"
// CHECK:         %[[OUT:.+]] = memref.reinterpret_cast %arg2
// CHECK:         %[[N:.+]] = memref.dim %[[OUT]], %c0
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0, 0, 0, 0) to (%[[N]], 9, 9, 32, 1, 1)
// CHECK-NOT:     linalg.depthwise_conv_2d_nhwc_hwc
func.func private @depthwise_dynamic_batch(%arg0: memref<1xf32>, %arg1: memref<3x3x32xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 9, 9, 32], strides: [2592, 288, 32, 1] : memref<1xf32> to memref<?x9x9x32xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x9x9x32xf32> to tensor<?x9x9x32xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x32xf32> to tensor<3x3x32xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%n, 9, 9, 32], strides: [2592, 288, 32, 1] : memref<1xf32> to memref<?x9x9x32xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x9x9x32xf32> to tensor<?x11x11x32xf32>
  %2 = tensor.empty(%n) : tensor<?x9x9x32xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x9x9x32xf32>) -> tensor<?x9x9x32xf32>
  %4 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %1 : tensor<?x11x11x32xf32>, tensor<3x3x32xf32>) outs(%3 : tensor<?x9x9x32xf32>) -> tensor<?x9x9x32xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x9x9x32xf32>, memref<?x9x9x32xf32>) -> ()
  return
}
