// Graphs whose steps can run at once: independent chains, a diamond, an
// inception-like block and a value that lives across branches to the end.
// Steps carry exact dependencies and runtimes run independent steps
// concurrently (local-task by levels, CUDA graphs with edges), so a missing
// edge or arena bytes reused across branches shows up here as a wrong value.
// run_cli_errors.py also checks the dependencies of @two_chains in the dump.

// Two chains of three matmuls that share only the weight: a3 = ((a w) w) w,
// b3 = ((b w) w) w. Neither chain waits for the other.
func.func @two_chains(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a1 = linalg.matmul ins(%a, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a2 = linalg.matmul ins(%a1, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %a3 = linalg.matmul ins(%a2, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b1 = linalg.matmul ins(%b, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b2 = linalg.matmul ins(%b1, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %b3 = linalg.matmul ins(%b2, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a3, %b3 : tensor<64x64xf32>, tensor<64x64xf32>
}

// A diamond: h = x w1 forks into relu(h w2) w4 and h w3, an add joins them,
// and one more matmul follows: y = (relu(h w2) w4 + h w3) w5. The add fuses
// into one branch's last matmul; the other branch (h w3) still runs beside
// the first steps of that one.
func.func @diamond(%x: tensor<1x64x64xf32>, %w1: tensor<1x64x64xf32>, %w2: tensor<1x64x64xf32>, %w3: tensor<1x64x64xf32>, %w4: tensor<1x64x64xf32>, %w5: tensor<1x64x64xf32>) -> tensor<1x64x64xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %l = tosa.matmul %h, %w2, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %lr = tosa.clamp %l {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %l2 = tosa.matmul %lr, %w4, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %r = tosa.matmul %h, %w3, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %j = tosa.add %l2, %r : (tensor<1x64x64xf32>, tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  %y = tosa.matmul %j, %w5, %zp, %zp : (tensor<1x64x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  return %y : tensor<1x64x64xf32>
}

// An inception-like block on 1x16x16x8: four branches from one input,
// concatenated along channels (8 + 12 + 4 + 8 = 32):
//   relu(conv1x1(x)), relu(conv3x3 pad 1(x)), conv1x1(maxpool3x3 pad 1(x)),
//   avgpool3x3 pad 1(x).
// The concatenation is written as each branch zero-padded to 32 channels at
// its offset, then summed (exact: every channel gets one value plus zeros):
// tosa.concat and tensor.concat of computed values do not compile for cuda
// yet ("GPU kernels cannot allocate a ... temporary yet"), and a file
// here must compile for every target.
func.func @inception(%x: tensor<1x16x16x8xf32>, %w1: tensor<8x1x1x8xf32>, %b1: tensor<8xf32>, %w3: tensor<12x3x3x8xf32>, %b3: tensor<12xf32>, %wp: tensor<4x1x1x8xf32>, %bp: tensor<4xf32>) -> tensor<1x16x16x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zero = arith.constant 0.0 : f32
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x8xf32>
  %r1 = tosa.clamp %c1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  %c3 = tosa.conv2d %x, %w3, %b3, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<12x3x3x8xf32>, tensor<12xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x12xf32>
  %r3 = tosa.clamp %c3 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x16x16x12xf32>) -> tensor<1x16x16x12xf32>
  %mp = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>) -> tensor<1x16x16x8xf32>
  %cp = tosa.conv2d %mp, %wp, %bp, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<4x1x1x8xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x4xf32>
  %ap = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x16x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x8xf32>
  %p1 = tensor.pad %r1 low[0, 0, 0, 0] high[0, 0, 0, 24] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x8xf32> to tensor<1x16x16x32xf32>
  %p3 = tensor.pad %r3 low[0, 0, 0, 8] high[0, 0, 0, 12] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x12xf32> to tensor<1x16x16x32xf32>
  %pp = tensor.pad %cp low[0, 0, 0, 20] high[0, 0, 0, 8] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x4xf32> to tensor<1x16x16x32xf32>
  %pa = tensor.pad %ap low[0, 0, 0, 24] high[0, 0, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x8xf32> to tensor<1x16x16x32xf32>
  %s0 = tosa.add %p1, %p3 : (tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %s1 = tosa.add %pp, %pa : (tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %0 = tosa.add %s0, %s1 : (tensor<1x16x16x32xf32>, tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %0 : tensor<1x16x16x32xf32>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// e = x w1 is made first and read again only by the last step, while two
// branches (p, q from e w2; r, s from e w3) and the matmul after their join
// make and drop temporaries of e's size: the arena must not hand e's bytes
// to any of them. y = ((q + s) w2) + e.
func.func @long_lived(%x: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %w3: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %em = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%em : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = linalg.matmul ins(%x, %w1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p = linalg.matmul ins(%e, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %q = linalg.matmul ins(%p, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%e, %w3 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%r, %w3 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %j = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q, %s : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em : tensor<64x64xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %t = arith.addf %u, %v : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  %k = linalg.matmul ins(%j, %w2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%k, %e : tensor<64x64xf32>, tensor<64x64xf32>) outs(%em : tensor<64x64xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %t = arith.addf %u, %v : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
