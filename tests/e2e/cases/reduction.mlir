// Reductions: tosa.reduce_* (keep the reduced dim as size 1), linalg.reduce
// (drops it) and a linalg.generic with a reduction iterator.

func.func @tosa_reduce_sum_axis0(%x: tensor<64x32xf32>) -> tensor<1x32xf32> {
  %0 = tosa.reduce_sum %x {axis = 0 : i32} : (tensor<64x32xf32>) -> tensor<1x32xf32>
  return %0 : tensor<1x32xf32>
}

func.func @tosa_reduce_sum_axis1(%x: tensor<48x33xf32>) -> tensor<48x1xf32> {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<48x33xf32>) -> tensor<48x1xf32>
  return %0 : tensor<48x1xf32>
}

func.func @tosa_reduce_sum_middle(%x: tensor<4x37x6xf32>) -> tensor<4x1x6xf32> {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x37x6xf32>) -> tensor<4x1x6xf32>
  return %0 : tensor<4x1x6xf32>
}

func.func @tosa_reduce_max_axis2(%x: tensor<4x8x100xf32>) -> tensor<4x8x1xf32> {
  %0 = tosa.reduce_max %x {axis = 2 : i32} : (tensor<4x8x100xf32>) -> tensor<4x8x1xf32>
  return %0 : tensor<4x8x1xf32>
}

func.func @tosa_reduce_max_axis0(%x: tensor<29x3x5xf32>) -> tensor<1x3x5xf32> {
  %0 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<29x3x5xf32>) -> tensor<1x3x5xf32>
  return %0 : tensor<1x3x5xf32>
}

func.func @tosa_reduce_min_prod(%x: tensor<6x10xf32>) -> (tensor<6x1xf32>, tensor<1x10xf32>) {
  %0 = tosa.reduce_min %x {axis = 1 : i32} : (tensor<6x10xf32>) -> tensor<6x1xf32>
  %1 = tosa.reduce_product %x {axis = 0 : i32} : (tensor<6x10xf32>) -> tensor<1x10xf32>
  return %0, %1 : tensor<6x1xf32>, tensor<1x10xf32>
}

func.func @tosa_reduce_sum_i32(%x: tensor<16x50xi32>) -> tensor<16x1xi32> {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<16x50xi32>) -> tensor<16x1xi32>
  return %0 : tensor<16x1xi32>
}

// Two chained reductions (sum over axis 2, then max over axis 0).
func.func @tosa_reduce_chain(%x: tensor<5x7x9xf32>) -> tensor<1x7x1xf32> {
  %0 = tosa.reduce_sum %x {axis = 2 : i32} : (tensor<5x7x9xf32>) -> tensor<5x7x1xf32>
  %1 = tosa.reduce_max %0 {axis = 0 : i32} : (tensor<5x7x1xf32>) -> tensor<1x7x1xf32>
  return %1 : tensor<1x7x1xf32>
}

// Sum over dims 0 and 2 at once.
func.func @linalg_reduce_sum_dims02(%x: tensor<8x16x32xf32>) -> tensor<16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %0 = linalg.reduce ins(%x : tensor<8x16x32xf32>) outs(%c : tensor<16xf32>) dimensions = [0, 2]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<16xf32>
}

func.func @linalg_reduce_max_rows(%x: tensor<50x70xf32>) -> tensor<50xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<50xf32>
  %c = linalg.fill ins(%ninf : f32) outs(%e : tensor<50xf32>) -> tensor<50xf32>
  %0 = linalg.reduce ins(%x : tensor<50x70xf32>) outs(%c : tensor<50xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  return %0 : tensor<50xf32>
}

// One long row: 65536 elements into one.
func.func @linalg_reduce_sum_long(%x: tensor<65536xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %0 = linalg.reduce ins(%x : tensor<65536xf32>) outs(%c : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<f32>
}

func.func @linalg_reduce_i64(%x: tensor<9x31xi64>) -> tensor<31xi64> {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<31xi64>
  %c = linalg.fill ins(%zero : i64) outs(%e : tensor<31xi64>) -> tensor<31xi64>
  %0 = linalg.reduce ins(%x : tensor<9x31xi64>) outs(%c : tensor<31xi64>) dimensions = [0]
    (%in: i64, %acc: i64) {
      %s = arith.addi %in, %acc : i64
      linalg.yield %s : i64
    }
  return %0 : tensor<31xi64>
}

// Row L2 norm: sqrt(sum(x*x)) with the square fused into the reduction body.
func.func @generic_l2_norm(%x: tensor<24x80xf32>) -> tensor<24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<24xf32>) -> tensor<24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<24x80xf32>) outs(%c : tensor<24xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<24xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%ss : tensor<24xf32>) outs(%e : tensor<24xf32>) {
  ^bb0(%v: f32, %out: f32):
    %r = math.sqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<24xf32>
  return %0 : tensor<24xf32>
}

// A reduction whose body ignores the reduced input repeats its update once
// per step: counting rows gives the row count, not 1.
func.func @count_rows(%x: tensor<11x3xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<11x3xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %one : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// The form it takes in practice: a sum of a fill, folded to `out + c`.
func.func @reduce_sum_of_fill() -> tensor<1x3xf32> {
  %c = arith.constant 0.375 : f32
  %e = tensor.empty() : tensor<11x3xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<11x3xf32>) -> tensor<11x3xf32>
  %r = tosa.reduce_sum %f {axis = 0 : i32} : (tensor<11x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// A boolean input read one element at a time by a reduction that gathers
// (it is not vectorized), after the i8 -> i1 conversion of the binding was:
// bytes and bit-packed i1 vectors must not meet in one buffer (the ONNX
// NegativeLogLikelihoodLoss expansion summed one column of two).
func.func @masked_gather_sum(%x: tensor<3x5x2xf32>, %m: tensor<3x1x2xi1>, %t: tensor<3x1x2xi32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%m, %t : tensor<3x1x2xi1>, tensor<3x1x2xi32>) outs(%acc : tensor<f32>) {
  ^bb0(%mask: i1, %ti: i32, %out: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 2 : index
    %j0 = arith.index_cast %ti : i32 to index
    %j1 = arith.maxsi %j0, %c0 : index
    %j = arith.minsi %j1, %c4 : index
    %v = tensor.extract %x[%i, %j, %k] : tensor<3x5x2xf32>
    %s = arith.select %mask, %zero, %v : f32
    %sum = arith.addf %s, %out : f32
    linalg.yield %sum : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
