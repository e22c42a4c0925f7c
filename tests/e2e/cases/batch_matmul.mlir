// Batched matrix multiplication.

func.func @tosa_batch_matmul(%a: tensor<4x33x17xf32>, %b: tensor<4x17x45xf32>) -> tensor<4x33x45xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<4x33x17xf32>, tensor<4x17x45xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x33x45xf32>
  return %0 : tensor<4x33x45xf32>
}

func.func @linalg_batch_matmul(%a: tensor<8x64x32xf32>, %b: tensor<8x32x48xf32>) -> tensor<8x64x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x64x48xf32>) -> tensor<8x64x48xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<8x64x32xf32>, tensor<8x32x48xf32>) outs(%c : tensor<8x64x48xf32>) -> tensor<8x64x48xf32>
  return %0 : tensor<8x64x48xf32>
}

func.func @linalg_batch_matmul_odd(%a: tensor<3x7x13xf32>, %b: tensor<3x13x5xf32>) -> tensor<3x7x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x7x5xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x7x5xf32>) -> tensor<3x7x5xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x7x13xf32>, tensor<3x13x5xf32>) outs(%c : tensor<3x7x5xf32>) -> tensor<3x7x5xf32>
  return %0 : tensor<3x7x5xf32>
}

// Attention-style scores: softmax-free q @ k^T via transpose, then scale.
func.func @tosa_batch_matmul_transposed(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>) -> tensor<2x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %scale = "tosa.const"() <{values = dense<0.353553385> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %0 = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %1 = tosa.mul %0, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  return %1 : tensor<2x16x16xf32>
}

// The accumulator is an argument (issue 6's report): every batch adds its
// product to its own slice of it.
func.func @batch_matmul_acc_arg_small(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x1xf32>, %acc: tensor<2x3x1xf32>) -> tensor<2x3x1xf32> {
  %r = linalg.batch_matmul ins(%lhs, %rhs : tensor<2x3x4xf32>, tensor<2x4x1xf32>) outs(%acc : tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  return %r : tensor<2x3x1xf32>
}

func.func @batch_matmul_acc_arg_i32(%lhs: tensor<3x8x16xi32>, %rhs: tensor<3x16x8xi32>, %acc: tensor<3x8x8xi32>) -> tensor<3x8x8xi32> {
  %r = linalg.batch_matmul ins(%lhs, %rhs : tensor<3x8x16xi32>, tensor<3x16x8xi32>) outs(%acc : tensor<3x8x8xi32>) -> tensor<3x8x8xi32>
  return %r : tensor<3x8x8xi32>
}

func.func @batch_matmul_acc_arg_i8(%lhs: tensor<3x8x16xi8>, %rhs: tensor<3x16x8xi8>, %acc: tensor<3x8x8xi32>) -> tensor<3x8x8xi32> {
  %r = linalg.batch_matmul ins(%lhs, %rhs : tensor<3x8x16xi8>, tensor<3x16x8xi8>) outs(%acc : tensor<3x8x8xi32>) -> tensor<3x8x8xi32>
  return %r : tensor<3x8x8xi32>
}

// f16 batch matmul accumulating into an f32 argument, tiles dividing the
// problem: the tensor-core kernel on cuda, its accumulators loaded from the
// argument.
func.func @batch_matmul_f16_tensor_cores_acc(%a: tensor<2x128x64xf16>, %b: tensor<2x64x128xf16>, %c: tensor<2x128x128xf32>) -> tensor<2x128x128xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x128x64xf16>, tensor<2x64x128xf16>) outs(%c : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  return %0 : tensor<2x128x128xf32>
}
