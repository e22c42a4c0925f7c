// Elementwise chains: tosa ops, linalg named elementwise ops, and
// arith/math inside linalg.generic, over f32, f16, i32, i64 and i1.

func.func @tosa_chain_f32(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.add %a, %b : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %1 = tosa.mul %0, %a, %shift : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<1xi8>) -> tensor<8x64xf32>
  %2 = tosa.sub %1, %b : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %3 = tosa.abs %2 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %4 = tosa.negate %3, %zp, %zp : (tensor<8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x64xf32>
  %5 = tosa.maximum %4, %a : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %6 = tosa.clamp %5 {min_val = -0.5 : f32, max_val = 0.75 : f32} : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %6 : tensor<8x64xf32>
}

func.func @tosa_transcendental_f32(%a: tensor<4x100xf32>) -> (tensor<4x100xf32>, tensor<4x100xf32>, tensor<4x100xf32>) {
  %0 = tosa.exp %a : (tensor<4x100xf32>) -> tensor<4x100xf32>
  %1 = tosa.tanh %a : (tensor<4x100xf32>) -> tensor<4x100xf32>
  %2 = tosa.sigmoid %a : (tensor<4x100xf32>) -> tensor<4x100xf32>
  return %0, %1, %2 : tensor<4x100xf32>, tensor<4x100xf32>, tensor<4x100xf32>
}

// exp feeding tanh feeding sigmoid, then a reciprocal: one fused chain.
func.func @tosa_transcendental_chain_f32(%a: tensor<3x7x11xf32>) -> tensor<3x7x11xf32> {
  %0 = tosa.exp %a : (tensor<3x7x11xf32>) -> tensor<3x7x11xf32>
  %1 = tosa.tanh %0 : (tensor<3x7x11xf32>) -> tensor<3x7x11xf32>
  %2 = tosa.sigmoid %1 : (tensor<3x7x11xf32>) -> tensor<3x7x11xf32>
  %3 = tosa.reciprocal %2 : (tensor<3x7x11xf32>) -> tensor<3x7x11xf32>
  return %3 : tensor<3x7x11xf32>
}

// Rank-equal broadcasting of size-1 dims, and a splat constant operand.
func.func @tosa_broadcast_f32(%a: tensor<16x32xf32>, %b: tensor<1x32xf32>, %c: tensor<16x1xf32>) -> tensor<16x32xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %k = "tosa.const"() <{values = dense<1.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %0 = tosa.add %a, %b : (tensor<16x32xf32>, tensor<1x32xf32>) -> tensor<16x32xf32>
  %1 = tosa.mul %0, %c, %shift : (tensor<16x32xf32>, tensor<16x1xf32>, tensor<1xi8>) -> tensor<16x32xf32>
  %2 = tosa.sub %1, %k : (tensor<16x32xf32>, tensor<1x1xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

func.func @tosa_chain_i32(%a: tensor<64xi32>, %b: tensor<64xi32>) -> tensor<64xi32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.add %a, %b : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %1 = tosa.mul %0, %b, %shift : (tensor<64xi32>, tensor<64xi32>, tensor<1xi8>) -> tensor<64xi32>
  %2 = tosa.sub %1, %a : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %3 = tosa.abs %2 : (tensor<64xi32>) -> tensor<64xi32>
  %4 = tosa.negate %3, %zp, %zp : (tensor<64xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<64xi32>
  %5 = tosa.maximum %4, %a : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi32>
  %6 = tosa.clamp %5 {min_val = -1000 : i32, max_val = 40 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return %6 : tensor<64xi32>
}

func.func @tosa_chain_f16(%a: tensor<8x32xf16>, %b: tensor<8x32xf16>) -> tensor<8x32xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.add %a, %b : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %1 = tosa.mul %0, %b, %shift : (tensor<8x32xf16>, tensor<8x32xf16>, tensor<1xi8>) -> tensor<8x32xf16>
  %2 = tosa.maximum %1, %a : (tensor<8x32xf16>, tensor<8x32xf16>) -> tensor<8x32xf16>
  %3 = tosa.clamp %2 {min_val = -1.0 : f16, max_val = 2.5 : f16} : (tensor<8x32xf16>) -> tensor<8x32xf16>
  return %3 : tensor<8x32xf16>
}

// f16 <-> f32 and i32 -> f32 conversions around f32 math.
func.func @tosa_cast_mixed(%a: tensor<5x24xf16>, %b: tensor<5x24xi32>) -> (tensor<5x24xf32>, tensor<5x24xf16>) {
  %0 = tosa.cast %a : (tensor<5x24xf16>) -> tensor<5x24xf32>
  %1 = tosa.cast %b : (tensor<5x24xi32>) -> tensor<5x24xf32>
  %2 = tosa.add %0, %1 : (tensor<5x24xf32>, tensor<5x24xf32>) -> tensor<5x24xf32>
  %3 = tosa.cast %2 : (tensor<5x24xf32>) -> tensor<5x24xf16>
  return %2, %3 : tensor<5x24xf32>, tensor<5x24xf16>
}

// i1 compare + select in tosa.
func.func @tosa_compare_select(%a: tensor<6x40xf32>, %b: tensor<6x40xf32>) -> (tensor<6x40xi1>, tensor<6x40xf32>) {
  %0 = tosa.greater %a, %b : (tensor<6x40xf32>, tensor<6x40xf32>) -> tensor<6x40xi1>
  %1 = tosa.select %0, %a, %b : (tensor<6x40xi1>, tensor<6x40xf32>, tensor<6x40xf32>) -> tensor<6x40xf32>
  return %0, %1 : tensor<6x40xi1>, tensor<6x40xf32>
}

// An i1 input: select between two tensors by a mask the caller passes.
func.func @tosa_select_mask_input(%m: tensor<33xi1>, %a: tensor<33xi32>, %b: tensor<33xi32>) -> tensor<33xi32> {
  %0 = tosa.select %m, %a, %b : (tensor<33xi1>, tensor<33xi32>, tensor<33xi32>) -> tensor<33xi32>
  return %0 : tensor<33xi32>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// arith + math in one linalg.generic body: sqrt(a^2 + b^2) + exp(-|a|) * tanh(b) - log(1 + a^2) / 2.
func.func @generic_arith_math_f32(%a: tensor<16x48xf32>, %b: tensor<16x48xf32>) -> tensor<16x48xf32> {
  %e = tensor.empty() : tensor<16x48xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<16x48xf32>, tensor<16x48xf32>) outs(%e : tensor<16x48xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %xx = arith.mulf %x, %x : f32
    %yy = arith.mulf %y, %y : f32
    %s = arith.addf %xx, %yy : f32
    %r = math.sqrt %s : f32
    %ax = math.absf %x : f32
    %nax = arith.negf %ax : f32
    %ex = math.exp %nax : f32
    %ty = math.tanh %y : f32
    %p = arith.mulf %ex, %ty : f32
    %t0 = arith.addf %r, %p : f32
    %lp = arith.addf %one, %xx : f32
    %l = math.log %lp : f32
    %h = arith.divf %l, %two : f32
    %t1 = arith.subf %t0, %h : f32
    linalg.yield %t1 : f32
  } -> tensor<16x48xf32>
  return %0 : tensor<16x48xf32>
}

// Polynomial-free arithmetic only (exact-ish): fma-like chains, min/max, division.
func.func @generic_arith_f32(%a: tensor<31x17xf32>, %b: tensor<31x17xf32>) -> tensor<31x17xf32> {
  %e = tensor.empty() : tensor<31x17xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<31x17xf32>, tensor<31x17xf32>) outs(%e : tensor<31x17xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %c3 = arith.constant 3.0 : f32
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %m, %c3 : f32
    %d = arith.divf %s, %c3 : f32
    %mx = arith.maximumf %d, %x : f32
    %mn = arith.minimumf %mx, %y : f32
    %r = arith.subf %mn, %m : f32
    linalg.yield %r : f32
  } -> tensor<31x17xf32>
  return %0 : tensor<31x17xf32>
}

// i1 compare + select inside linalg.generic; also returns the mask.
func.func @generic_compare_select(%a: tensor<32x16xf32>, %b: tensor<32x16xf32>) -> (tensor<32x16xi1>, tensor<32x16xf32>) {
  %e1 = tensor.empty() : tensor<32x16xi1>
  %e = tensor.empty() : tensor<32x16xf32>
  %0:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e1, %e : tensor<32x16xi1>, tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o1: i1, %o2: f32):
    %c2 = arith.constant 2.0 : f32
    %c1 = arith.constant 1.0 : f32
    %gt = arith.cmpf ogt, %x, %y : f32
    %x2 = arith.mulf %x, %c2 : f32
    %y1 = arith.subf %y, %c1 : f32
    %sel = arith.select %gt, %x2, %y1 : f32
    linalg.yield %gt, %sel : i1, f32
  } -> (tensor<32x16xi1>, tensor<32x16xf32>)
  return %0#0, %0#1 : tensor<32x16xi1>, tensor<32x16xf32>
}

// i64 integer arithmetic, signed compare, signed division by a constant.
func.func @generic_i64(%a: tensor<40xi64>, %b: tensor<40xi64>) -> tensor<40xi64> {
  %e = tensor.empty() : tensor<40xi64>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<40xi64>, tensor<40xi64>) outs(%e : tensor<40xi64>) {
  ^bb0(%x: i64, %y: i64, %out: i64):
    %c7 = arith.constant 7 : i64
    %big = arith.constant 3000000000 : i64
    %m = arith.muli %x, %y : i64
    %s = arith.addi %m, %big : i64
    %d = arith.divsi %s, %c7 : i64
    %lt = arith.cmpi slt, %x, %y : i64
    %mx = arith.maxsi %d, %x : i64
    %r = arith.select %lt, %mx, %y : i64
    linalg.yield %r : i64
  } -> tensor<40xi64>
  return %0 : tensor<40xi64>
}

// i32 bit and shift ops with index-dependent values.
func.func @generic_i32_index(%a: tensor<12x20xi32>) -> tensor<12x20xi32> {
  %e = tensor.empty() : tensor<12x20xi32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<12x20xi32>) outs(%e : tensor<12x20xi32>) {
  ^bb0(%x: i32, %out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %c3 = arith.constant 3 : i32
    %c255 = arith.constant 255 : i32
    %t = arith.muli %ii, %c3 : i32
    %u = arith.addi %t, %jj : i32
    %v = arith.xori %x, %u : i32
    %w = arith.andi %v, %c255 : i32
    %s = arith.shli %w, %c3 : i32
    %r = arith.subi %s, %x : i32
    linalg.yield %r : i32
  } -> tensor<12x20xi32>
  return %0 : tensor<12x20xi32>
}

// f16 math with f32 compute inside the body: truncf(exp(extf(a)) * extf(b)).
func.func @generic_f16_extf(%a: tensor<10x30xf16>, %b: tensor<10x30xf16>) -> tensor<10x30xf16> {
  %e = tensor.empty() : tensor<10x30xf16>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<10x30xf16>, tensor<10x30xf16>) outs(%e : tensor<10x30xf16>) {
  ^bb0(%x: f16, %y: f16, %out: f16):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %ex = math.exp %xf : f32
    %p = arith.mulf %ex, %yf : f32
    %r = arith.truncf %p : f32 to f16
    linalg.yield %r : f16
  } -> tensor<10x30xf16>
  return %0 : tensor<10x30xf16>
}

// Pure f16 arithmetic in the body.
func.func @generic_f16_arith(%a: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<64xf16> {
  %e = tensor.empty() : tensor<64xf16>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<64xf16>, tensor<64xf16>) outs(%e : tensor<64xf16>) {
  ^bb0(%x: f16, %y: f16, %out: f16):
    %h = arith.constant 0.5 : f16
    %m = arith.mulf %x, %y : f16
    %s = arith.addf %m, %h : f16
    %r = arith.maximumf %s, %x : f16
    linalg.yield %r : f16
  } -> tensor<64xf16>
  return %0 : tensor<64xf16>
}

// linalg named elementwise ops.
func.func @linalg_named_elementwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.mul ins(%0, %a : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.exp ins(%1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = linalg.max ins(%2, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// Rank-0 tensors.
func.func @scalar_f32(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = tosa.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = tosa.maximum %0, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// Scalar tensors broadcast into a vectorized elementwise op (ONNX
// DequantizeLinear: (x - zero_point) * scale with per-tensor scale and
// zero point). On cuda each thread's loop is vectorized and reads the 0-d
// operands as vector<f32> and vector<i8>, whose broadcast needs lowering.
func.func @scalar_operands_broadcast(%x: tensor<64xi8>, %scale: tensor<f32>, %zp: tensor<i8>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %scale, %zp : tensor<64xi8>, tensor<f32>, tensor<i8>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: i8, %s: f32, %z: i8, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %zf = arith.sitofp %z : i8 to f32
    %d = arith.subf %af, %zf : f32
    %m = arith.mulf %d, %s : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// C's fmod (the sign of the dividend), as ONNX Mod with fmod=1 writes it.
// On cuda a call of libdevice's fmod: f32 vectorized four to a thread and
// unrolled into calls, f16 (through f32) and f64 one element a thread.
func.func @remf_f32(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x64xf32>, tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.remf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

func.func @remf_f16(%x: tensor<3x5xf16>, %y: tensor<3x5xf16>) -> tensor<3x5xf16> {
  %e = tensor.empty() : tensor<3x5xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<3x5xf16>, tensor<3x5xf16>) outs(%e : tensor<3x5xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %m = arith.remf %a, %b : f16
    linalg.yield %m : f16
  } -> tensor<3x5xf16>
  return %r : tensor<3x5xf16>
}

func.func @remf_f64(%x: tensor<37xf64>, %y: tensor<37xf64>) -> tensor<37xf64> {
  %e = tensor.empty() : tensor<37xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : tensor<37xf64>, tensor<37xf64>) outs(%e : tensor<37xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %m = arith.remf %a, %b : f64
    linalg.yield %m : f64
  } -> tensor<37xf64>
  return %r : tensor<37xf64>
}

// erf over [-5, 5] (both tails saturate to +-1), and GELU as the ONNX
// exporter writes it, x * 0.5 * (1 + erf(x / sqrt(2))): the GPU backends
// call their vendor library's erf.
func.func @generic_erf_gelu_f32(%a: tensor<64x1024xf32>) -> (tensor<64x1024xf32>, tensor<64x1024xf32>) {
  %e = tensor.empty() : tensor<64x1024xf32>
  %0:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x1024xf32>) outs(%e, %e : tensor<64x1024xf32>, tensor<64x1024xf32>) {
  ^bb0(%x: f32, %o0: f32, %o1: f32):
    %sqrt2 = arith.constant 1.41421354 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %erf = math.erf %x : f32
    %s = arith.divf %x, %sqrt2 : f32
    %es = math.erf %s : f32
    %p = arith.addf %es, %one : f32
    %xh = arith.mulf %x, %half : f32
    %g = arith.mulf %xh, %p : f32
    linalg.yield %erf, %g : f32, f32
  } -> (tensor<64x1024xf32>, tensor<64x1024xf32>)
  return %0#0, %0#1 : tensor<64x1024xf32>, tensor<64x1024xf32>
}
