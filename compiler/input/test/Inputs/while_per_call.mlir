// A tosa.while_loop whose limit is an input: the runtime repeats its body
// (kiln-tosa-outline-control-flow), doubling acc `limit` times.
func.func @doubling(%x: tensor<2xf32>, %limit: tensor<i32>) -> (tensor<i32>, tensor<2xf32>) {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %acc : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2xf32>
  }
  return %0#0, %0#1 : tensor<i32>, tensor<2xf32>
}
