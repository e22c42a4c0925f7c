// A loop phase (module format 1.11): the body doubles v and adds x, carrying
// v and scanning it; its condition is the loop's, passed through
// (PhaseLoop.outputs), and its scan output is the carried value again.
func.func @repeat(%n: tensor<i64>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %true = arith.constant dense<true> : tensor<i1>
  %last:2 = func.call @repeat_run(%n, %true, %x, %x) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  return %last#0, %last#1 : tensor<2xf32>, tensor<?x2xf32>
}
func.func @step(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> attributes {kiln.phase_of = "repeat"} {
  %e = tensor.empty() : tensor<2xf32>
  %d = linalg.add ins(%v, %v : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %e2 = tensor.empty() : tensor<2xf32>
  %w = linalg.add ins(%d, %x : tensor<2xf32>, tensor<2xf32>) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  return %w : tensor<2xf32>
}
func.func private @repeat_run(tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) attributes {kiln.loop_body = @step, kiln.loop_carried = 1 : i64, kiln.loop_outputs = array<i64: -2, 0, 0>}
