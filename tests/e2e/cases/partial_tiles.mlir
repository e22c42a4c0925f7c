// Shapes whose dimensions the CPU tile sizes do not divide (primes and
// near-primes): full tiles run as static vectors, partial ones are peeled, and
// the partial last workgroup of a dimension runs masked vectors.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// m = 131 and n = 67 leave partial workgroups; k = 509 a partial step.
func.func @pt_matmul_131x509x67(%a: tensor<131x509xf32>, %b: tensor<509x67xf32>) -> tensor<131x67xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<131x67xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<131x67xf32>) -> tensor<131x67xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<131x509xf32>, tensor<509x67xf32>) outs(%c : tensor<131x67xf32>) -> tensor<131x67xf32>
  return %0 : tensor<131x67xf32>
}

// The fused bias + relu consumer runs masked in the partial workgroups too.
func.func @pt_matmul_bias_relu_67x33x197(%a: tensor<67x33xf32>, %b: tensor<33x197xf32>, %bias: tensor<197xf32>) -> tensor<67x197xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x197xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<67x197xf32>) -> tensor<67x197xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<67x33xf32>, tensor<33x197xf32>) outs(%c : tensor<67x197xf32>) -> tensor<67x197xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<67x197xf32>, tensor<197xf32>) outs(%e : tensor<67x197xf32>) {
  ^bb0(%x: f32, %bv: f32, %out: f32):
    %s = arith.addf %x, %bv : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<67x197xf32>
  return %0 : tensor<67x197xf32>
}

func.func @pt_matmul_i32_67x19x71(%a: tensor<67x19xi32>, %b: tensor<19x71xi32>) -> tensor<67x71xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<67x71xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<67x71xi32>) -> tensor<67x71xi32>
  %0 = linalg.matmul ins(%a, %b : tensor<67x19xi32>, tensor<19x71xi32>) outs(%c : tensor<67x71xi32>) -> tensor<67x71xi32>
  return %0 : tensor<67x71xi32>
}

func.func @pt_matmul_f16_67x35x69(%a: tensor<67x35xf16>, %b: tensor<35x69xf16>) -> tensor<67x69xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x69xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<67x69xf32>) -> tensor<67x69xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<67x35xf16>, tensor<35x69xf16>) outs(%c : tensor<67x69xf32>) -> tensor<67x69xf32>
  return %0 : tensor<67x69xf32>
}

func.func @pt_batch_matmul_2x197x64x197(%a: tensor<2x197x64xf32>, %b: tensor<2x64x197xf32>) -> tensor<2x197x197xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x197x197xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x197x197xf32>) -> tensor<2x197x197xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x197x64xf32>, tensor<2x64x197xf32>) outs(%c : tensor<2x197x197xf32>) -> tensor<2x197x197xf32>
  return %0 : tensor<2x197x197xf32>
}

// 4099 = 17 x 241: a 4096-element workgroup tile and a 3-element last one.
func.func @pt_elementwise_3x4099(%a: tensor<3x4099xf32>, %b: tensor<3x4099xf32>) -> tensor<3x4099xf32> {
  %e = tensor.empty() : tensor<3x4099xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<3x4099xf32>, tensor<3x4099xf32>) outs(%e : tensor<3x4099xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %x : f32
    linalg.yield %m : f32
  } -> tensor<3x4099xf32>
  return %0 : tensor<3x4099xf32>
}

func.func @pt_reduce_sum_67x1031(%x: tensor<67x1031xf32>) -> tensor<67xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<67xf32>) -> tensor<67xf32>
  %0 = linalg.reduce ins(%x : tensor<67x1031xf32>) outs(%c : tensor<67xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<67xf32>
}

func.func @pt_softmax_197x197(%x: tensor<197x197xf32>) -> tensor<197x197xf32> {
  %e = tensor.empty() : tensor<197x197xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<197x197xf32>) outs(%e : tensor<197x197xf32>) -> tensor<197x197xf32>
  return %0 : tensor<197x197xf32>
}

// 113 output columns: 16-wide workgroups and a partial last one.
func.func @pt_conv_115x115x3_to_8(%x: tensor<1x115x115x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x113x113x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x113x113x8xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x113x113x8xf32>) -> tensor<1x113x113x8xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x115x115x3xf32>, tensor<3x3x3x8xf32>) outs(%c : tensor<1x113x113x8xf32>) -> tensor<1x113x113x8xf32>
  return %0 : tensor<1x113x113x8xf32>
}

func.func @pt_depthwise_69x69x17(%x: tensor<1x69x69x17xf32>, %w: tensor<3x3x17xf32>) -> tensor<1x67x67x17xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x67x67x17xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x67x67x17xf32>) -> tensor<1x67x67x17xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x69x69x17xf32>, tensor<3x3x17xf32>) outs(%c : tensor<1x67x67x17xf32>) -> tensor<1x67x67x17xf32>
  return %0 : tensor<1x67x67x17xf32>
}

func.func @pt_maxpool_35x35x19(%x: tensor<1x35x35x19xf32>) -> tensor<1x33x33x19xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x33x33x19xf32>
  %c = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x33x33x19xf32>) -> tensor<1x33x33x19xf32>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %win : tensor<1x35x35x19xf32>, tensor<3x3xf32>) outs(%c : tensor<1x33x33x19xf32>) -> tensor<1x33x33x19xf32>
  return %0 : tensor<1x33x33x19xf32>
}
