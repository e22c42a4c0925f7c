// Zero-size dimensions are legal: a reduction over one yields its
// accumulator, and a value without elements is computed by nothing.

func.func @matmul_k0_fill(%a: tensor<3x0xf32>, %b: tensor<0x2xf32>) -> tensor<3x2xf32> {
  %v = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%v : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x0xf32>, tensor<0x2xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

func.func @matmul_k0_arg(%a: tensor<70x0xf32>, %b: tensor<0x66xf32>, %c: tensor<70x66xf32>) -> tensor<70x66xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<70x0xf32>, tensor<0x66xf32>) outs(%c : tensor<70x66xf32>) -> tensor<70x66xf32>
  return %0 : tensor<70x66xf32>
}

func.func @reduce_empty_axis(%x: tensor<4x0xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.reduce ins(%x : tensor<4x0xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}

func.func @exp_empty(%a: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %e = tensor.empty() : tensor<3x0xf32>
  %0 = linalg.exp ins(%a : tensor<3x0xf32>) outs(%e : tensor<3x0xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}

func.func @slice_empty(%x: tensor<1x14x2xf32>) -> tensor<1x11x0xf32> {
  %0 = tensor.extract_slice %x[0, 1, 0] [1, 11, 0] [3, 1, 1] : tensor<1x14x2xf32> to tensor<1x11x0xf32>
  return %0 : tensor<1x11x0xf32>
}

func.func @concat_empty_part(%a: tensor<3x0xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tensor.concat dim(1) %a, %b : (tensor<3x0xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @pad_empty_source(%a: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %v = arith.constant 2.5 : f32
  %0 = tensor.pad %a low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<0x3xf32> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @batch_matmul_empty_batch(%a: tensor<0x3x5xf32>, %b: tensor<0x5x4xf32>, %c: tensor<0x3x4xf32>) -> tensor<0x3x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<0x3x5xf32>, tensor<0x5x4xf32>) outs(%c : tensor<0x3x4xf32>) -> tensor<0x3x4xf32>
  return %0 : tensor<0x3x4xf32>
}
