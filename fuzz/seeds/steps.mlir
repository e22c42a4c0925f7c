// Seeds the module_loader corpus with what add.mlir and the classifier do
// not have: copy and fill steps, a non-splat constant, several functions
// and element types other than f32.
func.func @copy_fill(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<8xi32>) {
  %c = arith.constant dense<7> : tensor<8xi32>
  return %a, %c : tensor<4xf32>, tensor<8xi32>
}

func.func @scale(%a: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %0 = tosa.add %a, %c : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

func.func @sum(%a: tensor<3x5xi8>) -> tensor<3xi8> {
  %zero = arith.constant 0 : i8
  %init = tensor.empty() : tensor<3xi8>
  %acc = linalg.fill ins(%zero : i8) outs(%init : tensor<3xi8>) -> tensor<3xi8>
  %0 = linalg.reduce ins(%a : tensor<3x5xi8>) outs(%acc : tensor<3xi8>) dimensions = [1]
    (%x: i8, %y: i8) {
      %s = arith.addi %x, %y : i8
      linalg.yield %s : i8
    }
  return %0 : tensor<3xi8>
}
