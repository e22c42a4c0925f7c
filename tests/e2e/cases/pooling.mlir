// Pooling, NHWC. tosa.max_pool2d pads with -inf; tosa.avg_pool2d divides by
// the number of in-bounds elements (padding is not counted).

func.func @tosa_maxpool2x2_stride2(%x: tensor<1x16x16x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x16x16x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

func.func @tosa_maxpool3x3_stride2_pad1(%x: tensor<2x17x17x4xf32>) -> tensor<2x9x9x4xf32> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x17x17x4xf32>) -> tensor<2x9x9x4xf32>
  return %0 : tensor<2x9x9x4xf32>
}

// Wide enough that the GPU's window kernel takes a 16-byte vector of
// channels a thread (4 f32, 8 f16): ResNet50's stem pooling, smaller.
func.func @tosa_maxpool3x3_stride2_pad1_wide(%x: tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x112x112x64xf32>) -> tensor<1x56x56x64xf32>
  return %0 : tensor<1x56x56x64xf32>
}

func.func @tosa_maxpool3x3_stride2_pad1_wide_f16(%x: tensor<4x56x56x64xf16>) -> tensor<4x28x28x64xf16> {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<4x56x56x64xf16>) -> tensor<4x28x28x64xf16>
  return %0 : tensor<4x28x28x64xf16>
}

func.func @tosa_avgpool3x3_pad1(%x: tensor<1x8x8x3xf32>) -> tensor<1x8x8x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

func.func @tosa_avgpool2x2_stride2(%x: tensor<2x12x12x6xf32>) -> tensor<2x6x6x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<2x12x12x6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}

// Global average pooling, as at the end of a classifier.
func.func @tosa_avgpool_global(%x: tensor<1x7x7x32xf32>) -> tensor<1x1x1x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 7, 7>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x7x7x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x32xf32>
  return %0 : tensor<1x1x1x32xf32>
}

func.func @linalg_pool_max3x3_stride2(%x: tensor<1x15x15x8xf32>) -> tensor<1x7x7x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x7x7x8xf32>
  %c = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : tensor<1x15x15x8xf32>, tensor<3x3xf32>) outs(%c : tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %0 : tensor<1x7x7x8xf32>
}

func.func @linalg_pool_sum2x2_stride2(%x: tensor<3x10x10x5xf32>) -> tensor<3x5x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<3x5x5x5xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5x5x5xf32>) -> tensor<3x5x5x5xf32>
  %0 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : tensor<3x10x10x5xf32>, tensor<2x2xf32>) outs(%c : tensor<3x5x5x5xf32>) -> tensor<3x5x5x5xf32>
  return %0 : tensor<3x5x5x5xf32>
}

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// Average = sum pooling then a divide, with a zero tensor.pad (padding counted).
func.func @linalg_pool_avg3x3_pad1(%x: tensor<1x9x9x4xf32>) -> tensor<1x9x9x4xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x9x9x4xf32> to tensor<1x11x11x4xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x9x9x4xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x9x9x4xf32>) -> tensor<1x9x9x4xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%p, %win : tensor<1x11x11x4xf32>, tensor<3x3xf32>) outs(%c : tensor<1x9x9x4xf32>) -> tensor<1x9x9x4xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s : tensor<1x9x9x4xf32>) outs(%e : tensor<1x9x9x4xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.constant 9.0 : f32
    %d = arith.divf %v, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x9x9x4xf32>
  return %0 : tensor<1x9x9x4xf32>
}

func.func @linalg_pool_max_i32(%x: tensor<1x8x8x2xi32>) -> tensor<1x4x4x2xi32> {
  %lowest = arith.constant -2147483648 : i32
  %win = tensor.empty() : tensor<2x2xi32>
  %e = tensor.empty() : tensor<1x4x4x2xi32>
  %c = linalg.fill ins(%lowest : i32) outs(%e : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : tensor<1x8x8x2xi32>, tensor<2x2xi32>) outs(%c : tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi32>
  return %0 : tensor<1x4x4x2xi32>
}
