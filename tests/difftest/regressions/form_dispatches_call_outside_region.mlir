// Internal error in kiln-form-dispatches: "'func.call' op using value
// defined outside the region", exit 1. A reduction's consumer chain
// (broadcast, then a mul) also reads the result of an earlier dispatch (the
// transpose). Without the broadcast (mul of the transpose and the reduction
// directly) the same function crashes instead, as in
// form_dispatches_two_producers_crash.mlir: probably one cause. Found by
// run_difftest.py --seed 1 (s1_p228).
//
//   build/bin/kiln-compile tests/difftest/regressions/form_dispatches_call_outside_region.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input="3x2xf32=[[1 2][3 4][5 6]]" --input="4x2xf32=1"
//
// want: 2x3xf32=[4 12 20][8 16 24].
func.func @consumer_reads_other_dispatch(%a: tensor<3x2xf32>, %x: tensor<4x2xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %t = linalg.transpose ins(%a : tensor<3x2xf32>) outs(%e : tensor<2x3xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2xf32>) -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x2xf32>) outs(%acc : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %b = linalg.broadcast ins(%r : tensor<2xf32>) outs(%e : tensor<2x3xf32>) dimensions = [1]
  %m = linalg.mul ins(%t, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}
