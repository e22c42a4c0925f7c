// Softmax: composed from tosa ops (max-subtracted, as frontends emit it) and
// linalg.softmax.

func.func @tosa_softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<4x128xf32>) -> tensor<4x1xf32>
  %d = tosa.sub %x, %m : (tensor<4x128xf32>, tensor<4x1xf32>) -> tensor<4x128xf32>
  %e = tosa.exp %d : (tensor<4x128xf32>) -> tensor<4x128xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<4x128xf32>) -> tensor<4x1xf32>
  %r = tosa.reciprocal %s : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %0 = tosa.mul %e, %r, %shift : (tensor<4x128xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// Over the leading axis of a 3-D tensor.
func.func @tosa_softmax_axis0(%x: tensor<10x3x7xf32>) -> tensor<10x3x7xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.reduce_max %x {axis = 0 : i32} : (tensor<10x3x7xf32>) -> tensor<1x3x7xf32>
  %d = tosa.sub %x, %m : (tensor<10x3x7xf32>, tensor<1x3x7xf32>) -> tensor<10x3x7xf32>
  %e = tosa.exp %d : (tensor<10x3x7xf32>) -> tensor<10x3x7xf32>
  %s = tosa.reduce_sum %e {axis = 0 : i32} : (tensor<10x3x7xf32>) -> tensor<1x3x7xf32>
  %r = tosa.reciprocal %s : (tensor<1x3x7xf32>) -> tensor<1x3x7xf32>
  %0 = tosa.mul %e, %r, %shift : (tensor<10x3x7xf32>, tensor<1x3x7xf32>, tensor<1xi8>) -> tensor<10x3x7xf32>
  return %0 : tensor<10x3x7xf32>
}

func.func @linalg_softmax_last(%x: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  %e = tensor.empty() : tensor<8x1000xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<8x1000xf32>) outs(%e : tensor<8x1000xf32>) -> tensor<8x1000xf32>
  return %0 : tensor<8x1000xf32>
}

func.func @linalg_softmax_middle(%x: tensor<2x16x5xf32>) -> tensor<2x16x5xf32> {
  %e = tensor.empty() : tensor<2x16x5xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<2x16x5xf32>) outs(%e : tensor<2x16x5xf32>) -> tensor<2x16x5xf32>
  return %0 : tensor<2x16x5xf32>
}
