// The acceptance example: `kiln-run-module --function=add
// --input="4xf32=[1 2 3 4]" --input="4xf32=[2 2 2 2]"` prints
// `EXEC @add` and `4xf32=3 4 5 6`.
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
