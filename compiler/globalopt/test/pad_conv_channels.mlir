// RUN: kiln-opt --split-input-file --kiln-pad-conv-channels %s | FileCheck %s

// An f16 stem over 3 channels with a spatial pad by zero: the input is
// padded to 4 channels (one 8-byte copy a window position) and then
// spatially, as before; the constant filter gets zero weights for channel
// 3 at compile time.

// CHECK-LABEL: func.func @stem(
// CHECK:         %[[CH:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 0, 1]
// CHECK:         } : tensor<2x21x21x3xf16> to tensor<2x21x21x4xf16>
// CHECK:         %[[SP:.*]] = tensor.pad %[[CH]] low[0, 3, 3, 0] high[0, 3, 3, 0]
// CHECK:         } : tensor<2x21x21x4xf16> to tensor<2x27x27x4xf16>
// CHECK:         %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00], [0.000000e+00, 0.000000e+00]], {{\[\[}}7.000000e+00, 8.000000e+00], [9.000000e+00, 1.000000e+01], [1.100000e+01, 1.200000e+01], [0.000000e+00, 0.000000e+00]]]]> : tensor<1x2x4x2xf16>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[SP]], %[[W]] : tensor<2x27x27x4xf16>, tensor<1x2x4x2xf16>)
func.func @stem(%x: tensor<2x21x21x3xf16>) -> tensor<2x11x13x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]]]> : tensor<1x2x3x2xf16>
  %zero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f16
  } : tensor<2x21x21x3xf16> to tensor<2x27x27x3xf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x11x13x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x11x13x2xf32>) -> tensor<2x11x13x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<2x27x27x3xf16>, tensor<1x2x3x2xf16>) outs(%f : tensor<2x11x13x2xf32>) -> tensor<2x11x13x2xf32>
  return %c : tensor<2x11x13x2xf32>
}

// -----

// The channels-last rewrite of an ONNX stem: the NCHW spatial pad before
// the transpose to NHWC. The pad moves after the transpose (its amounts
// permuted), around the channel pad; the f32 input gets a fourth channel
// too (16-byte copies).

// CHECK-LABEL: func.func @edge(
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x3x8x10xf32>) outs({{.*}} : tensor<1x8x10x3xf32>)
// CHECK:         %[[CH:.*]] = tensor.pad %[[T]] low[0, 0, 0, 0] high[0, 0, 0, 1]
// CHECK:         } : tensor<1x8x10x3xf32> to tensor<1x8x10x4xf32>
// CHECK:         %[[SP:.*]] = tensor.pad %[[CH]] low[0, 1, 2, 0] high[0, 1, 2, 0]
// CHECK:         } : tensor<1x8x10x4xf32> to tensor<1x10x14x4xf32>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[SP]], %{{.*}} : tensor<1x10x14x4xf32>, tensor<3x3x4x8xf32>)
func.func @edge(%x: tensor<1x3x8x10xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x12x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 1, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x8x10xf32> to tensor<1x3x10x14xf32>
  %e0 = tensor.empty() : tensor<1x10x14x3xf32>
  %t = linalg.transpose ins(%p : tensor<1x3x10x14xf32>) outs(%e0 : tensor<1x10x14x3xf32>) permutation = [0, 2, 3, 1]
  %e = tensor.empty() : tensor<1x8x12x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x12x8xf32>) -> tensor<1x8x12x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%t, %w : tensor<1x10x14x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<1x8x12x8xf32>) -> tensor<1x8x12x8xf32>
  return %c : tensor<1x8x12x8xf32>
}

// -----

// A filter that is not a constant is padded by a tensor.pad of its
// channel dimension; an input without a pad is padded alone.

// CHECK-LABEL: func.func @filter_argument(
// CHECK:         %[[X:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 0, 2]
// CHECK:         } : tensor<1x9x9x2xbf16> to tensor<1x9x9x4xbf16>
// CHECK:         %[[W:.*]] = tensor.pad %arg1 low[0, 0, 0, 0] high[0, 0, 2, 0]
// CHECK:         } : tensor<3x3x2x16xbf16> to tensor<3x3x4x16xbf16>
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[W]] : tensor<1x9x9x4xbf16>, tensor<3x3x4x16xbf16>)
func.func @filter_argument(%x: tensor<1x9x9x2xbf16>, %w: tensor<3x3x2x16xbf16>) -> tensor<1x7x7x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x2xbf16>, tensor<3x3x2x16xbf16>) outs(%f : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  return %c : tensor<1x7x7x16xf32>
}

// -----

// Left alone: 4 channels and more are copied whole already.

// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     tensor.pad
// CHECK:         linalg.conv_2d_nhwc_hwcf {{.*}} ins(%arg0, %arg1 : tensor<1x9x9x4xf16>, tensor<3x3x4x16xf16>)
func.func @left_alone(%x: tensor<1x9x9x4xf16>, %w: tensor<3x3x4x16xf16>) -> tensor<1x7x7x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x4xf16>, tensor<3x3x4x16xf16>) outs(%f : tensor<1x7x7x16xf32>) -> tensor<1x7x7x16xf32>
  return %c : tensor<1x7x7x16xf32>
}
