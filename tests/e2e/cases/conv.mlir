// 2-D convolutions, NHWC: tosa.conv2d (weights OHWI, with bias),
// tosa.depthwise_conv2d (weights HWCM), linalg conv and depthwise ops.
// tosa pad is [top, bottom, left, right].

func.func @tosa_conv3x3_pad1_bias(%x: tensor<1x16x16x8xf32>, %w: tensor<16x3x3x8xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<16x3x3x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

func.func @tosa_conv3x3_stride2_pad1(%x: tensor<2x17x17x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<2x9x9x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<2x17x17x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x9x9x8xf32>
  return %0 : tensor<2x9x9x8xf32>
}

// Asymmetric padding (bottom/right only), as TF "SAME" with stride 2 produces.
func.func @tosa_conv3x3_stride2_asym_pad(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

func.func @tosa_conv1x1_bias(%x: tensor<1x14x14x32xf32>, %w: tensor<64x1x1x32xf32>, %b: tensor<64xf32>) -> tensor<1x14x14x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x14x14x32xf32>, tensor<64x1x1x32xf32>, tensor<64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x14x14x64xf32>
  return %0 : tensor<1x14x14x64xf32>
}

func.func @tosa_conv3x3_dilation2(%x: tensor<1x12x12x3xf32>, %w: tensor<5x3x3x3xf32>, %b: tensor<5xf32>) -> tensor<1x12x12x5xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 2, 2, 2, 2>, stride = array<i64: 1, 1>, dilation = array<i64: 2, 2>} : (tensor<1x12x12x3xf32>, tensor<5x3x3x3xf32>, tensor<5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x12x12x5xf32>
  return %0 : tensor<1x12x12x5xf32>
}

// Non-square kernel and stride, no padding: 5x3 kernel, stride (1, 2).
func.func @tosa_conv5x3_stride1x2(%x: tensor<1x11x13x6xf32>, %w: tensor<7x5x3x6xf32>, %b: tensor<7xf32>) -> tensor<1x7x6x7xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 2>, dilation = array<i64: 1, 1>} : (tensor<1x11x13x6xf32>, tensor<7x5x3x6xf32>, tensor<7xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x7x6x7xf32>
  return %0 : tensor<1x7x6x7xf32>
}

// conv + bias + relu6, the usual mobile block.
func.func @tosa_conv_relu6(%x: tensor<1x10x10x16xf32>, %w: tensor<24x3x3x16xf32>, %b: tensor<24xf32>) -> tensor<1x10x10x24xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x10x10x16xf32>, tensor<24x3x3x16xf32>, tensor<24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x24xf32>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x10x10x24xf32>) -> tensor<1x10x10x24xf32>
  return %1 : tensor<1x10x10x24xf32>
}

func.func @tosa_depthwise3x3_pad1(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x1xf32>, %b: tensor<8xf32>) -> tensor<1x10x10x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x10x10x8xf32>, tensor<3x3x8x1xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x8xf32>
  return %0 : tensor<1x10x10x8xf32>
}

// Channel multiplier 2 (output channel c*2+m) with stride 2.
func.func @tosa_depthwise_mult2_stride2(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x2xf32>, %b: tensor<8xf32>) -> tensor<1x5x5x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x9x9x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x8xf32>
  return %0 : tensor<1x5x5x8xf32>
}

func.func @linalg_conv_nhwc_hwcf(%x: tensor<2x9x10x5xf32>, %w: tensor<3x3x5x12xf32>) -> tensor<2x7x8x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x8x12xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x8x12xf32>) -> tensor<2x7x8x12xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x9x10x5xf32>, tensor<3x3x5x12xf32>) outs(%c : tensor<2x7x8x12xf32>) -> tensor<2x7x8x12xf32>
  return %0 : tensor<2x7x8x12xf32>
}

// Explicit tensor.pad then a stride-2 conv.
func.func @linalg_conv_pad_stride2(%x: tensor<1x15x15x6xf32>, %w: tensor<3x3x6x10xf32>) -> tensor<1x8x8x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x15x15x6xf32> to tensor<1x17x17x6xf32>
  %e = tensor.empty() : tensor<1x8x8x10xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x10xf32>) -> tensor<1x8x8x10xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<1x17x17x6xf32>, tensor<3x3x6x10xf32>) outs(%c : tensor<1x8x8x10xf32>) -> tensor<1x8x8x10xf32>
  return %0 : tensor<1x8x8x10xf32>
}

func.func @linalg_conv1x1(%x: tensor<1x7x7x48xf32>, %w: tensor<1x1x48x40xf32>) -> tensor<1x7x7x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x7x7x48xf32>, tensor<1x1x48x40xf32>) outs(%c : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  return %0 : tensor<1x7x7x40xf32>
}

func.func @linalg_depthwise_hwc(%x: tensor<1x12x12x16xf32>, %w: tensor<3x3x16xf32>) -> tensor<1x10x10x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10x10x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x12x12x16xf32>, tensor<3x3x16xf32>) outs(%c : tensor<1x10x10x16xf32>) -> tensor<1x10x10x16xf32>
  return %0 : tensor<1x10x10x16xf32>
}

func.func @linalg_depthwise_hwc_pad_stride2(%x: tensor<2x11x11x6xf32>, %w: tensor<3x3x6xf32>) -> tensor<2x6x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x11x11x6xf32> to tensor<2x13x13x6xf32>
  %e = tensor.empty() : tensor<2x6x6x6xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6x6xf32>) -> tensor<2x6x6x6xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p, %w : tensor<2x13x13x6xf32>, tensor<3x3x6xf32>) outs(%c : tensor<2x6x6x6xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}

// Grouped convolution: 2 groups of 4 input -> 3 output channels (NHWGC, GFHWC).
func.func @linalg_grouped_conv(%x: tensor<1x8x8x2x4xf32>, %w: tensor<2x3x3x3x4xf32>) -> tensor<1x6x6x2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x2x3xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x2x3xf32>) -> tensor<1x6x6x2x3xf32>
  %0 = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x8x2x4xf32>, tensor<2x3x3x3x4xf32>) outs(%c : tensor<1x6x6x2x3xf32>) -> tensor<1x6x6x2x3xf32>
  return %0 : tensor<1x6x6x2x3xf32>
}

// f16 inputs accumulating in f32 with a bias + relu epilogue, 32 input
// channels: the tensor-core kernel on sm_80 and later, 64 x 64 tiles over
// M = 2 * 9 * 9 = 162 rows (the last tile partly past M).
#bias4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @linalg_conv_f16_tensor_cores(%x: tensor<2x11x11x32xf16>, %w: tensor<3x3x32x64xf16>, %b: tensor<64xf32>) -> tensor<2x9x9x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x9x9x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x9x9x64xf32>) -> tensor<2x9x9x64xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x11x11x32xf16>, tensor<3x3x32x64xf16>) outs(%c : tensor<2x9x9x64xf32>) -> tensor<2x9x9x64xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %b : tensor<2x9x9x64xf32>, tensor<64xf32>) outs(%e : tensor<2x9x9x64xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %s = arith.addf %v, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x9x9x64xf32>
  return %1 : tensor<2x9x9x64xf32>
}

// MobileNetV2's shapes of a 1x1 convolution: 24 input channels (K past one
// 32-deep step) to 144 outputs (N past two 64-wide tiles), and a 3x3 one
// with K = 3 * 3 * 24 = 216, each rounded to f16 as the ONNX importer
// writes f16 models.
func.func @linalg_conv_f16_tensor_cores_tails(%x: tensor<2x7x7x24xf16>, %w: tensor<1x1x24x144xf16>, %w3: tensor<3x3x24x40xf16>) -> (tensor<2x7x7x144xf16>, tensor<2x5x5x40xf16>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x144xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x144xf32>) -> tensor<2x7x7x144xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x7x7x24xf16>, tensor<1x1x24x144xf16>) outs(%c : tensor<2x7x7x144xf32>) -> tensor<2x7x7x144xf32>
  %h = tensor.empty() : tensor<2x7x7x144xf16>
  %1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<2x7x7x144xf32>) outs(%h : tensor<2x7x7x144xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x7x7x144xf16>
  %e3 = tensor.empty() : tensor<2x5x5x40xf32>
  %c3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x5x5x40xf32>) -> tensor<2x5x5x40xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w3 : tensor<2x7x7x24xf16>, tensor<3x3x24x40xf16>) outs(%c3 : tensor<2x5x5x40xf32>) -> tensor<2x5x5x40xf32>
  %h3 = tensor.empty() : tensor<2x5x5x40xf16>
  %3 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2 : tensor<2x5x5x40xf32>) outs(%h3 : tensor<2x5x5x40xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x5x5x40xf16>
  return %1, %3 : tensor<2x7x7x144xf16>, tensor<2x5x5x40xf16>
}

// A network's first convolution in f16: 3 input channels, 7x7, stride 2
// (ResNet's stem, smaller). On cuda the tensor-core kernel gathers A an
// element at a time; K = 7 * 7 * 3 = 147 is past four 32-deep steps and M =
// 2 * 9 * 9 = 162 past two 64-row tiles.
func.func @linalg_conv_f16_tensor_cores_three_channels(%x: tensor<2x23x23x3xf16>, %w: tensor<7x7x3x64xf16>, %b: tensor<64xf32>) -> tensor<2x9x9x64xf32> {
  %e = tensor.empty() : tensor<2x9x9x64xf32>
  %c = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<64xf32>) outs(%e : tensor<2x9x9x64xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<2x9x9x64xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x23x23x3xf16>, tensor<7x7x3x64xf16>) outs(%c : tensor<2x9x9x64xf32>) -> tensor<2x9x9x64xf32>
  return %0 : tensor<2x9x9x64xf32>
}

// Padded f16 convolutions: on a GPU-only target each pad joins its
// convolution's dispatch and the tensor-core kernel reads zero outside the
// unpadded input: a 3x3 one over 16 channels (A copied 16 bytes at a
// time, windows at every edge) and a 7x7 stride-2 one over 3 channels
// padded by 3 (ResNet's stem: A gathered element by element).
func.func @linalg_conv_f16_tensor_cores_padded(%x: tensor<2x14x14x16xf16>, %w: tensor<3x3x16x32xf16>, %x3: tensor<2x21x21x3xf16>, %w7: tensor<7x7x3x64xf16>) -> (tensor<2x14x14x32xf32>, tensor<2x11x11x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %hzero = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %hzero : f16
  } : tensor<2x14x14x16xf16> to tensor<2x16x16x16xf16>
  %e = tensor.empty() : tensor<2x14x14x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x14x14x32xf32>) -> tensor<2x14x14x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<2x16x16x16xf16>, tensor<3x3x16x32xf16>) outs(%f : tensor<2x14x14x32xf32>) -> tensor<2x14x14x32xf32>
  %p3 = tensor.pad %x3 low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %hzero : f16
  } : tensor<2x21x21x3xf16> to tensor<2x27x27x3xf16>
  %e3 = tensor.empty() : tensor<2x11x11x64xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x11x11x64xf32>) -> tensor<2x11x11x64xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%p3, %w7 : tensor<2x27x27x3xf16>, tensor<7x7x3x64xf16>) outs(%f3 : tensor<2x11x11x64xf32>) -> tensor<2x11x11x64xf32>
  return %0, %1 : tensor<2x14x14x32xf32>, tensor<2x11x11x64xf32>
}

// The form the ONNX importer writes for Conv with a bias followed by a
// residual Add (ResNet's and MobileNetV2's projections): channels first, the
// accumulator a broadcast of the Fx1x1 bias read at index 0 of its size-1
// dimensions, then the add. On cuda the contraction kernel takes it (M = 8 *
// 8, N = 24, K = 16 * 3 * 3).
#bias_c11 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @conv_nchw_bias_residual(%x: tensor<1x16x10x10xf32>, %w: tensor<24x16x3x3xf32>, %b: tensor<24x1x1xf32>, %r: tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32> {
  %e = tensor.empty() : tensor<1x24x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#bias_c11, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<24x1x1xf32>) outs(%e : tensor<1x24x8x8xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<1x24x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x10x10xf32>, tensor<24x16x3x3xf32>) outs(%acc : tensor<1x24x8x8xf32>) -> tensor<1x24x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %0 : tensor<1x24x8x8xf32>, tensor<1x24x8x8xf32>) outs(%e : tensor<1x24x8x8xf32>) {
  ^bb0(%rv: f32, %v: f32, %o: f32):
    %s = arith.addf %rv, %v : f32
    linalg.yield %s : f32
  } -> tensor<1x24x8x8xf32>
  return %1 : tensor<1x24x8x8xf32>
}

// A small output over a long reduction (7x7 x 64 outputs, K = 256 * 9): on
// cuda kiln-split-reduction computes it as 16 partial convolutions over 16
// input channels each, summed into the bias before the relu.
func.func @conv_split_reduction(%x: tensor<1x256x9x9xf32>, %w: tensor<64x256x3x3xf32>, %b: tensor<64x1x1xf32>) -> tensor<1x64x7x7xf32> {
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %acc = linalg.generic {indexing_maps = [#bias_c11, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<64x1x1xf32>) outs(%e : tensor<1x64x7x7xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<1x64x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x256x9x9xf32>, tensor<64x256x3x3xf32>) outs(%acc : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %z = arith.constant 0.0 : f32
  %1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<1x64x7x7xf32>) outs(%e : tensor<1x64x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x64x7x7xf32>
  return %1 : tensor<1x64x7x7xf32>
}
