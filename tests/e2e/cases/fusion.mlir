// Dispatch formation: which ops share a dispatch, and every op computed
// exactly once.

// Both operands of the mul are produced by elementwise roots; the mul joins
// the first one's dispatch only.
func.func @consumer_of_two_roots(%a: tensor<4x33xf32>, %b: tensor<4x33xf32>) -> tensor<4x33xf32> {
  %e = tensor.empty() : tensor<4x33xf32>
  %t = linalg.exp ins(%a : tensor<4x33xf32>) outs(%e : tensor<4x33xf32>) -> tensor<4x33xf32>
  %n = linalg.negf ins(%b : tensor<4x33xf32>) outs(%e : tensor<4x33xf32>) -> tensor<4x33xf32>
  %m = linalg.mul ins(%t, %n : tensor<4x33xf32>, tensor<4x33xf32>) outs(%e : tensor<4x33xf32>) -> tensor<4x33xf32>
  return %m : tensor<4x33xf32>
}

func.func @max_of_two_reductions(%a: tensor<3x4xf32>, %b: tensor<7x4xf32>) -> tensor<1x4xf32> {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  %1 = tosa.reduce_sum %b {axis = 0 : i32} : (tensor<7x4xf32>) -> tensor<1x4xf32>
  %2 = tosa.maximum %0, %1 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %2 : tensor<1x4xf32>
}

// A consumer of a transpose that also reads a broadcast reduction.
func.func @consumer_reads_other_dispatch(%a: tensor<3x2xf32>, %x: tensor<4x2xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %t = linalg.transpose ins(%a : tensor<3x2xf32>) outs(%e : tensor<2x3xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%acc : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %b = linalg.broadcast ins(%r : tensor<2xf32>) outs(%e : tensor<2x3xf32>) dimensions = [1]
  %m = linalg.mul ins(%t, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}

// An elementwise op whose init is an input it ignores still writes every
// element (the init becomes a fresh tensor, not a copy of the input).
func.func @elementwise_into_input(%a: tensor<130x70xf32>, %c: tensor<130x70xf32>) -> tensor<130x70xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<130x70xf32>) outs(%c : tensor<130x70xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %x : f32
    linalg.yield %t : f32
  } -> tensor<130x70xf32>
  return %0 : tensor<130x70xf32>
}

// A projection whose heads are moved apart, as attention layers write it:
// x . W + b reshaped to (tokens, 3, heads, dim) and transposed to (3,
// heads, tokens, dim). On GPUs the transpose is the GEMM's last epilogue
// (kiln-form-dispatches' fuse-permuted-epilogues): the kernel stores each
// element where the transpose puts it. 40 tokens take the tiled GEMM
// kernels in f32 and f16, 6 the SIMT one; a permutation that moves the
// innermost dimension stays a dispatch of its own.
func.func @projection_heads_f32(%x: tensor<1x40x96xf32>, %w: tensor<96x3x2x32xf32>, %b: tensor<3x2x32xf32>) -> tensor<3x1x2x40x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x3x2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x3x2x32xf32>) -> tensor<1x40x3x2x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d, k) -> (n, t, k)>, affine_map<(n, t, s, h, d, k) -> (k, s, h, d)>, affine_map<(n, t, s, h, d, k) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x40x96xf32>, tensor<96x3x2x32xf32>) outs(%f : tensor<1x40x3x2x32xf32>) {
  ^bb0(%a: f32, %v: f32, %c: f32):
    %m = arith.mulf %a, %v : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x40x3x2x32xf32>
  %eb = tensor.empty() : tensor<1x40x3x2x32xf32>
  %yb = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>, affine_map<(n, t, s, h, d) -> (s, h, d)>, affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<1x40x3x2x32xf32>, tensor<3x2x32xf32>) outs(%eb : tensor<1x40x3x2x32xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %r = arith.addf %v, %bias : f32
    linalg.yield %r : f32
  } -> tensor<1x40x3x2x32xf32>
  %et = tensor.empty() : tensor<3x1x2x40x32xf32>
  %tr = linalg.transpose ins(%yb : tensor<1x40x3x2x32xf32>) outs(%et : tensor<3x1x2x40x32xf32>) permutation = [2, 0, 3, 1, 4]
  return %tr : tensor<3x1x2x40x32xf32>
}

func.func @projection_heads_f16(%x: tensor<1x40x96xf16>, %w: tensor<96x3x2x32xf16>, %b: tensor<3x2x32xf16>) -> tensor<3x1x2x40x32xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x3x2x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x3x2x32xf32>) -> tensor<1x40x3x2x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d, k) -> (n, t, k)>, affine_map<(n, t, s, h, d, k) -> (k, s, h, d)>, affine_map<(n, t, s, h, d, k) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x40x96xf16>, tensor<96x3x2x32xf16>) outs(%f : tensor<1x40x3x2x32xf32>) {
  ^bb0(%a: f16, %v: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %m = arith.mulf %a32, %v32 : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x40x3x2x32xf32>
  %eb = tensor.empty() : tensor<1x40x3x2x32xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>, affine_map<(n, t, s, h, d) -> (s, h, d)>, affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<1x40x3x2x32xf32>, tensor<3x2x32xf16>) outs(%eb : tensor<1x40x3x2x32xf16>) {
  ^bb0(%v: f32, %bias: f16, %o: f16):
    %v16 = arith.truncf %v : f32 to f16
    %r = arith.addf %v16, %bias : f16
    linalg.yield %r : f16
  } -> tensor<1x40x3x2x32xf16>
  %et = tensor.empty() : tensor<3x1x2x40x32xf16>
  %tr = linalg.transpose ins(%yb : tensor<1x40x3x2x32xf16>) outs(%et : tensor<3x1x2x40x32xf16>) permutation = [2, 0, 3, 1, 4]
  return %tr : tensor<3x1x2x40x32xf16>
}

// 2048 tokens and 12 heads' q, k and v: on an H100 the wgmma kernel, whose
// epilogue stores its staged tile through the permutation.
func.func @projection_heads_f16_wide(%x: tensor<1x2048x128xf16>, %w: tensor<128x3x4x64xf16>, %b: tensor<3x4x64xf16>) -> tensor<3x1x4x2048x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2048x3x4x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2048x3x4x64xf32>) -> tensor<1x2048x3x4x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d, k) -> (n, t, k)>, affine_map<(n, t, s, h, d, k) -> (k, s, h, d)>, affine_map<(n, t, s, h, d, k) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x2048x128xf16>, tensor<128x3x4x64xf16>) outs(%f : tensor<1x2048x3x4x64xf32>) {
  ^bb0(%a: f16, %v: f16, %c: f32):
    %a32 = arith.extf %a : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %m = arith.mulf %a32, %v32 : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2048x3x4x64xf32>
  %eb = tensor.empty() : tensor<1x2048x3x4x64xf16>
  %yb = linalg.generic {indexing_maps = [affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>, affine_map<(n, t, s, h, d) -> (s, h, d)>, affine_map<(n, t, s, h, d) -> (n, t, s, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<1x2048x3x4x64xf32>, tensor<3x4x64xf16>) outs(%eb : tensor<1x2048x3x4x64xf16>) {
  ^bb0(%v: f32, %bias: f16, %o: f16):
    %v16 = arith.truncf %v : f32 to f16
    %r = arith.addf %v16, %bias : f16
    linalg.yield %r : f16
  } -> tensor<1x2048x3x4x64xf16>
  %et = tensor.empty() : tensor<3x1x4x2048x64xf16>
  %tr = linalg.transpose ins(%yb : tensor<1x2048x3x4x64xf16>) outs(%et : tensor<3x1x4x2048x64xf16>) permutation = [2, 0, 3, 1, 4]
  return %tr : tensor<3x1x4x2048x64xf16>
}

func.func @projection_heads_small(%x: tensor<1x6x24xf32>, %w: tensor<1x24x48xf32>) -> tensor<2x4x6x6xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x6x24xf32>, tensor<1x24x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x48xf32>
  %s = tosa.const_shape {values = dense<[6, 2, 4, 6]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %r = tosa.reshape %y, %s : (tensor<1x6x48xf32>, !tosa.shape<4>) -> tensor<6x2x4x6xf32>
  %t = tosa.transpose %r {perms = array<i32: 1, 2, 0, 3>} : (tensor<6x2x4x6xf32>) -> tensor<2x4x6x6xf32>
  return %t : tensor<2x4x6x6xf32>
}

func.func @projection_innermost_moved(%x: tensor<1x40x96xf32>, %w: tensor<1x96x64xf32>) -> tensor<1x64x40xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x40x96xf32>, tensor<1x96x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x40x64xf32>
  %t = tosa.transpose %y {perms = array<i32: 0, 2, 1>} : (tensor<1x40x64xf32>) -> tensor<1x64x40xf32>
  return %t : tensor<1x64x40xf32>
}
