// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-input-pads fuse-dynamic-input-pads" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-input-pads" %s | FileCheck %s --check-prefix=STATICPADS
// RUN: kiln-opt --split-input-file --kiln-form-dispatches %s | FileCheck %s --check-prefix=DEFAULT

// With fuse-input-pads, a pad that only a depthwise convolution reads is
// computed in the convolution's dispatch: one dispatch, which takes the
// unpadded input. Without it the pad is a dispatch of its own.

// CHECK-LABEL: func.func @depthwise(
// CHECK:         call @depthwise_dispatch_0(%arg0, %arg1)
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @depthwise_dispatch_0(
// CHECK-SAME:    %{{.*}}: tensor<1x8x8x16xf16>
// CHECK:         tensor.pad
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwc
// DEFAULT-LABEL: func.func @depthwise(
// DEFAULT:         %[[P:.*]] = call @depthwise_dispatch_0(%arg0)
// DEFAULT:         call @depthwise_dispatch_1(%[[P]], %arg1)
// DEFAULT-LABEL: func.func private @depthwise_dispatch_0(
// DEFAULT:         tensor.pad
// DEFAULT-NOT:     linalg.depthwise_conv_2d_nhwc_hwc
// DEFAULT-LABEL: func.func private @depthwise_dispatch_1(
// DEFAULT-SAME:    %{{.*}}: tensor<1x10x10x16xf16>
func.func @depthwise(%x: tensor<1x8x8x16xf16>, %w: tensor<3x3x16xf16>) -> tensor<1x8x8x16xf16> {
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<1x8x8x16xf16> to tensor<1x10x10x16xf16>
  %e = tensor.empty() : tensor<1x8x8x16xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf16>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf16>, tensor<3x3x16xf16>) outs(%f : tensor<1x8x8x16xf16>) -> tensor<1x8x8x16xf16>
  return %c : tensor<1x8x8x16xf16>
}

// -----

// A pad with two readers (a convolution and a pooling) stays a dispatch of
// its own.

// CHECK-LABEL: func.func @conv(
// CHECK:         %[[P:.*]] = call @conv_dispatch_0(%arg0)
// CHECK:         call @conv_dispatch_1(%[[P]], %arg1)
// CHECK:         call @conv_dispatch_2(%[[P]])
func.func @conv(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e2 = tensor.empty() : tensor<1x8x8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %win : tensor<1x10x10x16xf32>, tensor<3x3xf32>) outs(%f2 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %c, %m : tensor<1x8x8x4xf32>, tensor<1x8x8x16xf32>
}

// -----

// A pad by zero of the window dimensions read only by a convolution over
// input channels (an implicit GEMM) joins its dispatch; a pad by another
// value, or of the channels, does not.

// CHECK-LABEL: func.func @conv_only(
// CHECK:         call @conv_only_dispatch_0(%arg0, %arg1)
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @conv_only_dispatch_0(
// CHECK-SAME:    %{{.*}}: tensor<1x8x8x16xf32>
// CHECK:         tensor.pad
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @conv_only(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %c : tensor<1x8x8x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv_pad_one(
// CHECK:         %[[P:.*]] = call @conv_pad_one_dispatch_0(%arg0)
// CHECK:         %[[Q:.*]] = call @conv_pad_one_dispatch_1(%arg0)
// CHECK:         call @conv_pad_one_dispatch_2(%[[P]], %arg1)
// CHECK:         call @conv_pad_one_dispatch_3(%[[Q]], %arg2)
func.func @conv_pad_one(%x: tensor<1x8x8x16xf32>, %w: tensor<3x3x16x4xf32>, %w2: tensor<1x1x18x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %one : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %q = tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x8x8x18xf32>
  %e = tensor.empty() : tensor<1x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x16xf32>, tensor<3x3x16x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %d = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%q, %w2 : tensor<1x8x8x18xf32>, tensor<1x1x18x4xf32>) outs(%f : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %c, %d : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// -----

// A batch known per call (issue 19): with fuse-dynamic-input-pads (targets
// whose GEMM kernels read it in place) the pad of a convolution's window
// joins its dispatch, and the extent the next op reads of the padded batch
// is read of the pad's source; with fuse-input-pads alone it stays apart.
// STATICPADS-LABEL: func.func @conv_pad_dynamic_batch(
// STATICPADS:         call @conv_pad_dynamic_batch_dispatch_0(%arg0)
// STATICPADS:         call @conv_pad_dynamic_batch_dispatch_1(
// CHECK-LABEL: func.func @conv_pad_dynamic_batch(
// CHECK:         %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK:         call @conv_pad_dynamic_batch_dispatch_0(%arg0, %arg1, %[[N]])
// CHECK-NOT:     call
// CHECK-LABEL: func.func private @conv_pad_dynamic_batch_dispatch_0(
// CHECK:         tensor.pad
// CHECK:         linalg.conv_2d_nhwc_hwcf
// DEFAULT-LABEL: func.func @conv_pad_dynamic_batch(
// DEFAULT:         call @conv_pad_dynamic_batch_dispatch_0(%arg0)
// DEFAULT:         call @conv_pad_dynamic_batch_dispatch_1(
func.func @conv_pad_dynamic_batch(%x: tensor<?x8x8x16xf32>, %w: tensor<3x3x16x4xf32>) -> tensor<?x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x8x8x16xf32> to tensor<?x10x10x16xf32>
  %n = tensor.dim %p, %c0 : tensor<?x10x10x16xf32>
  %e = tensor.empty(%n) : tensor<?x8x8x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x10x10x16xf32>, tensor<3x3x16x4xf32>) outs(%f : tensor<?x8x8x4xf32>) -> tensor<?x8x8x4xf32>
  return %c : tensor<?x8x8x4xf32>
}
