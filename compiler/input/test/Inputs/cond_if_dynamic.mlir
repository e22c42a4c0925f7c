// A tosa.cond_if whose branches give results of different extents: the
// runtime runs only the branch taken (kiln-tosa-outline-control-flow).
func.func @pick(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<?xf32> {
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<?xf32> {
    %s = tosa.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %x = tensor.cast %s : tensor<2xf32> to tensor<?xf32>
    tosa.yield %x : tensor<?xf32>
  } else {
    %n = tosa.add %b, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %y = tensor.cast %n : tensor<3xf32> to tensor<?xf32>
    tosa.yield %y : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}
