func.func @main(%c: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.cond_if %c (%x = %a, %y = %b) : tensor<i1> (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):
    %s = tosa.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %s : tensor<2xf32>
  } else {
  ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):
    %d = tosa.sub %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %d : tensor<2xf32>
  }
  return %0 : tensor<2xf32>
}
