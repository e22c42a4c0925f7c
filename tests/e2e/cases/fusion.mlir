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
