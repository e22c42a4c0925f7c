// Contractions of a few rows (at most 4): on cuda and hip the matrix-vector
// kernel (MatvecKernel.cpp), each thread streaming a share of B. B stored
// K x N (weights as a ViT's classifier keeps them) and N x K (a tied LM
// head's transposed embedding), widths no thread share divides, f16
// operands, a batch, a K long enough for several rounds of loads, and
// epilogues.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// A classifier over one token: the bias broadcast into the accumulator.
func.func @matvec_classifier(%x: tensor<1x384xf32>, %w: tensor<384x1000xf32>, %bias: tensor<1000xf32>) -> tensor<1x1000xf32> {
  %e = tensor.empty() : tensor<1x1000xf32>
  %i = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<1000xf32>) outs(%e : tensor<1x1000xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<1x1000xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x384xf32>, tensor<384x1000xf32>) outs(%i : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %m : tensor<1x1000xf32>
}

// Three rows, K and N that no share divides, a residual add and a relu.
func.func @matvec_odd_residual_relu(%a: tensor<3x250xf32>, %b: tensor<250x77xf32>, %r: tensor<3x77xf32>) -> tensor<3x77xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x77xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x77xf32>) -> tensor<3x77xf32>
  %m = linalg.matmul ins(%a, %b : tensor<3x250xf32>, tensor<250x77xf32>) outs(%f : tensor<3x77xf32>) -> tensor<3x77xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %r : tensor<3x77xf32>, tensor<3x77xf32>) outs(%e : tensor<3x77xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    %x = arith.maximumf %s, %zero : f32
    linalg.yield %x : f32
  } -> tensor<3x77xf32>
  return %y : tensor<3x77xf32>
}

// B stored N x K: a subgroup a column; 300 is no multiple of a subgroup's
// 128 k a step; a tanh epilogue.
func.func @matvec_transposed_b_tanh(%a: tensor<2x300xf32>, %b: tensor<77x300xf32>) -> tensor<2x77xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x77xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x77xf32>) -> tensor<2x77xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x300xf32>, tensor<77x300xf32>) outs(%f : tensor<2x77xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x77xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<2x77xf32>) outs(%e : tensor<2x77xf32>) {
  ^bb0(%v: f32, %o: f32):
    %x = math.tanh %v : f32
    linalg.yield %x : f32
  } -> tensor<2x77xf32>
  return %t : tensor<2x77xf32>
}

// f16 operands accumulating in f32, B K x N: 8 columns a thread.
func.func @matvec_f16_acc_f32(%a: tensor<1x520xf16>, %b: tensor<520x136xf16>) -> tensor<1x136xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x136xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x136xf32>) -> tensor<1x136xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x520xf16>, tensor<520x136xf16>) outs(%f : tensor<1x136xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x136xf32>
  return %m : tensor<1x136xf32>
}

// f16 operands, B N x K (8 k a lane), K no multiple of a step's 256.
func.func @matvec_f16_transposed_b(%a: tensor<1x600xf16>, %b: tensor<200x600xf16>) -> tensor<1x200xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x200xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x200xf32>) -> tensor<1x200xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x600xf16>, tensor<200x600xf16>) outs(%f : tensor<1x200xf32>) {
  ^bb0(%x: f16, %y: f16, %o: f32):
    %xe = arith.extf %x : f16 to f32
    %ye = arith.extf %y : f16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x200xf32>
  return %m : tensor<1x200xf32>
}

// Four rows over an odd K that kiln-split-reduction leaves whole: rounds
// of loads a thread (17 steps, 8 a round), the last partly outside K.
func.func @matvec_long_k(%a: tensor<4x2053xf32>, %b: tensor<2053x40xf32>) -> tensor<4x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x40xf32>) -> tensor<4x40xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x2053xf32>, tensor<2053x40xf32>) outs(%f : tensor<4x40xf32>) -> tensor<4x40xf32>
  return %m : tensor<4x40xf32>
}

// The same rounds with B stored N x K.
func.func @matvec_long_k_transposed_b(%a: tensor<2x2053xf32>, %b: tensor<40x2053xf32>) -> tensor<2x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40xf32>) -> tensor<2x40xf32>
  %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<2x2053xf32>, tensor<40x2053xf32>) outs(%f : tensor<2x40xf32>) -> tensor<2x40xf32>
  return %m : tensor<2x40xf32>
}

// One row of each of 6 matrices.
func.func @matvec_batch(%a: tensor<6x1x64xf32>, %b: tensor<6x64x96xf32>) -> tensor<6x1x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x1x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x1x96xf32>) -> tensor<6x1x96xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<6x1x64xf32>, tensor<6x64x96xf32>) outs(%f : tensor<6x1x96xf32>) -> tensor<6x1x96xf32>
  return %m : tensor<6x1x96xf32>
}
