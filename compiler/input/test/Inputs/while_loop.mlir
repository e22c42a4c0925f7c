// i = 0, acc = x; while (i < 3) { i += 1; acc = acc * 2 + x } -> (i, acc)
func.func @counted(%x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %limit = "tosa.const"() <{values = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %d = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %s = tosa.add %d, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<i32>, tensor<2xf32>
}
