// Dispatches that differ only in scalar constants share one entry point
// (kiln-hoist-dispatch-scalars): the scalars become push constants each
// step passes. Every case calls one entry point several times with
// different values over random data, so a driver or back end that ignored
// push constants (zeros), mixed them up between steps or words, or decoded
// one wrongly gives wrong results.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Three clamps, two f32 words each.
func.func @three_clamps(%a: tensor<64x33xf32>, %b: tensor<64x33xf32>, %c: tensor<64x33xf32>) -> (tensor<64x33xf32>, tensor<64x33xf32>, tensor<64x33xf32>) {
  %0 = tosa.clamp %a {min_val = -0.5 : f32, max_val = 0.25 : f32} : (tensor<64x33xf32>) -> tensor<64x33xf32>
  %1 = tosa.clamp %b {min_val = -0.125 : f32, max_val = 0.75 : f32} : (tensor<64x33xf32>) -> tensor<64x33xf32>
  %2 = tosa.clamp %c {min_val = 0.0 : f32, max_val = 0.5 : f32} : (tensor<64x33xf32>) -> tensor<64x33xf32>
  return %0, %1, %2 : tensor<64x33xf32>, tensor<64x33xf32>, tensor<64x33xf32>
}

// Leaky ReLU with three slopes: one f16 in the low half of a word.
func.func @leaky_relu_f16(%a: tensor<16x40xf16>, %b: tensor<16x40xf16>) -> (tensor<16x40xf16>, tensor<16x40xf16>, tensor<16x40xf16>) {
  %zero = arith.constant 0.0 : f16
  %s0 = arith.constant 0.125 : f16
  %s1 = arith.constant 0.5 : f16
  %s2 = arith.constant -0.25 : f16
  %e = tensor.empty() : tensor<16x40xf16>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x40xf16>) outs(%e : tensor<16x40xf16>) {
  ^bb0(%x: f16, %o: f16):
    %p = arith.cmpf ogt, %x, %zero : f16
    %m = arith.mulf %x, %s0 : f16
    %r = arith.select %p, %x, %m : f16
    linalg.yield %r : f16
  } -> tensor<16x40xf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x40xf16>) outs(%e : tensor<16x40xf16>) {
  ^bb0(%x: f16, %o: f16):
    %p = arith.cmpf ogt, %x, %zero : f16
    %m = arith.mulf %x, %s1 : f16
    %r = arith.select %p, %x, %m : f16
    linalg.yield %r : f16
  } -> tensor<16x40xf16>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<16x40xf16>) outs(%e : tensor<16x40xf16>) {
  ^bb0(%x: f16, %o: f16):
    %p = arith.cmpf ogt, %x, %zero : f16
    %m = arith.mulf %x, %s2 : f16
    %r = arith.select %p, %x, %m : f16
    linalg.yield %r : f16
  } -> tensor<16x40xf16>
  return %0, %1, %2 : tensor<16x40xf16>, tensor<16x40xf16>, tensor<16x40xf16>
}

// x * k + m in i32, three (k, m) pairs.
func.func @affine_i32(%a: tensor<24x17xi32>, %b: tensor<24x17xi32>, %c: tensor<24x17xi32>) -> (tensor<24x17xi32>, tensor<24x17xi32>, tensor<24x17xi32>) {
  %k0 = arith.constant 3 : i32
  %m0 = arith.constant -7 : i32
  %k1 = arith.constant -5 : i32
  %m1 = arith.constant 11 : i32
  %k2 = arith.constant 7 : i32
  %m2 = arith.constant 100000 : i32
  %e = tensor.empty() : tensor<24x17xi32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<24x17xi32>) outs(%e : tensor<24x17xi32>) {
  ^bb0(%x: i32, %o: i32):
    %p = arith.muli %x, %k0 : i32
    %r = arith.addi %p, %m0 : i32
    linalg.yield %r : i32
  } -> tensor<24x17xi32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<24x17xi32>) outs(%e : tensor<24x17xi32>) {
  ^bb0(%x: i32, %o: i32):
    %p = arith.muli %x, %k1 : i32
    %r = arith.addi %p, %m1 : i32
    linalg.yield %r : i32
  } -> tensor<24x17xi32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<24x17xi32>) outs(%e : tensor<24x17xi32>) {
  ^bb0(%x: i32, %o: i32):
    %p = arith.muli %x, %k2 : i32
    %r = arith.addi %p, %m2 : i32
    linalg.yield %r : i32
  } -> tensor<24x17xi32>
  return %0, %1, %2 : tensor<24x17xi32>, tensor<24x17xi32>, tensor<24x17xi32>
}

// 64-bit values take two words, low half first: offsets whose halves both
// matter (i64), and f64 scales.
func.func @wide_i64_f64(%a: tensor<10x12xi64>, %b: tensor<10x12xi64>, %x: tensor<10x12xf64>, %y: tensor<10x12xf64>) -> (tensor<10x12xi64>, tensor<10x12xi64>, tensor<10x12xf64>, tensor<10x12xf64>) {
  %o0 = arith.constant 4294967299 : i64
  %o1 = arith.constant -8589934593 : i64
  %s0 = arith.constant 1.5e10 : f64
  %s1 = arith.constant -3.25e-7 : f64
  %ei = tensor.empty() : tensor<10x12xi64>
  %ef = tensor.empty() : tensor<10x12xf64>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<10x12xi64>) outs(%ei : tensor<10x12xi64>) {
  ^bb0(%v: i64, %o: i64):
    %r = arith.addi %v, %o0 : i64
    linalg.yield %r : i64
  } -> tensor<10x12xi64>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<10x12xi64>) outs(%ei : tensor<10x12xi64>) {
  ^bb0(%v: i64, %o: i64):
    %r = arith.addi %v, %o1 : i64
    linalg.yield %r : i64
  } -> tensor<10x12xi64>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<10x12xf64>) outs(%ef : tensor<10x12xf64>) {
  ^bb0(%v: f64, %o: f64):
    %r = arith.mulf %v, %s0 : f64
    linalg.yield %r : f64
  } -> tensor<10x12xf64>
  %3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<10x12xf64>) outs(%ef : tensor<10x12xf64>) {
  ^bb0(%v: f64, %o: f64):
    %r = arith.mulf %v, %s1 : f64
    linalg.yield %r : f64
  } -> tensor<10x12xf64>
  return %0, %1, %2, %3 : tensor<10x12xi64>, tensor<10x12xi64>, tensor<10x12xf64>, tensor<10x12xf64>
}

// Convolutions with a ReLU6 and a [-1, 1] clamp epilogue (MobileNet's and
// others' activations): one convolution kernel (the GPU's implicit GEMM)
// whose epilogue reads its bounds from push constants.
func.func @conv_clamps(%x: tensor<1x10x10x16xf32>, %w0: tensor<24x3x3x16xf32>, %b0: tensor<24xf32>, %w1: tensor<24x3x3x16xf32>, %b1: tensor<24xf32>) -> (tensor<1x10x10x24xf32>, tensor<1x10x10x24xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c0 = tosa.conv2d %x, %w0, %b0, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x10x10x16xf32>, tensor<24x3x3x16xf32>, tensor<24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x24xf32>
  %r0 = tosa.clamp %c0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x10x10x24xf32>) -> tensor<1x10x10x24xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x10x10x16xf32>, tensor<24x3x3x16xf32>, tensor<24xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x10x10x24xf32>
  %r1 = tosa.clamp %c1 {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<1x10x10x24xf32>) -> tensor<1x10x10x24xf32>
  return %r0, %r1 : tensor<1x10x10x24xf32>, tensor<1x10x10x24xf32>
}

// Row sums of x * s for two scales: a reduction (the GPU's reduction
// kernel) whose input is scaled by a push constant.
func.func @scaled_row_sums(%a: tensor<8x1000xf32>, %b: tensor<8x1000xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %s0 = arith.constant 0.75 : f32
  %s1 = arith.constant -2.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.mulf %v, %s0 : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.mulf %v, %s1 : f32
    %r = arith.addf %m, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// Two ResNet bottleneck blocks (1x1, 3x3, 1x1 convolutions, ReLUs, a residual
// add) whose weights are bindings: block 1 runs block 0's seven entry points,
// the last of them (add + clamp) with another upper bound (6, then 1) as a
// push constant.
func.func @bottleneck_blocks(%x: tensor<1x6x6x16xf32>, %w0a: tensor<8x1x1x16xf32>, %b0a: tensor<8xf32>, %w0b: tensor<8x3x3x8xf32>, %b0b: tensor<8xf32>, %w0c: tensor<16x1x1x8xf32>, %b0c: tensor<16xf32>, %w1a: tensor<8x1x1x16xf32>, %b1a: tensor<8xf32>, %w1b: tensor<8x3x3x8xf32>, %b1b: tensor<8xf32>, %w1c: tensor<16x1x1x8xf32>, %b1c: tensor<16xf32>) -> tensor<1x6x6x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c0a = tosa.conv2d %x, %w0a, %b0a, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r0a = tosa.clamp %c0a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c0b = tosa.conv2d %r0a, %w0b, %b0b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r0b = tosa.clamp %c0b {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c0c = tosa.conv2d %r0b, %w0c, %b0c, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %s0 = tosa.add %c0c, %x : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %o0 = tosa.clamp %s0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %c1a = tosa.conv2d %o0, %w1a, %b1a, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x16xf32>, tensor<8x1x1x16xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r1a = tosa.clamp %c1a {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c1b = tosa.conv2d %r1a, %w1b, %b1b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<8x3x3x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %r1b = tosa.clamp %c1b {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c1c = tosa.conv2d %r1b, %w1c, %b1c, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x8xf32>, tensor<16x1x1x8xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x16xf32>
  %s1 = tosa.add %c1c, %o0 : (tensor<1x6x6x16xf32>, tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %o1 = tosa.clamp %s1 {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %o1 : tensor<1x6x6x16xf32>
}
