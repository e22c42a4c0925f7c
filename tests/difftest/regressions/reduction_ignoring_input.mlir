// Wrong answer: a reduction whose body does not read its input element
// (here: count the rows, out + 1) runs its reduction loop once instead of
// 11 times, whatever the reduction dimension. Found by run_difftest.py
// --seed 2 (s2_p91) as tosa.reduce_sum of a linalg.fill: elementwise fusion
// folds the fill into the body as a constant, leaving `out + 0.375`, and
// the result is 0.375 instead of 11 * 0.375. With a fill accumulator, so not
// the accumulator class.
//
//   build/bin/kiln-compile tests/difftest/regressions/reduction_ignoring_input.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input="11x3xf32=5"
//
// want: 3xf32=11 11 11;  got: 3xf32=1 1 1 (local-sync and local-task).
func.func @count_rows(%x: tensor<11x3xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<11x3xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %one : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// The form the generator found: tosa.reduce_sum of a fill.
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --function=reduce_sum_of_fill
// want: 1x3xf32=[4.125 4.125 4.125];  got: [0.375 0.375 0.375].
func.func @reduce_sum_of_fill() -> tensor<1x3xf32> {
  %c = arith.constant 0.375 : f32
  %e = tensor.empty() : tensor<11x3xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<11x3xf32>) -> tensor<11x3xf32>
  %r = tosa.reduce_sum %f {axis = 0 : i32} : (tensor<11x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}
