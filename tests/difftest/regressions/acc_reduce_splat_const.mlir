// Wrong answer: a generic reduction whose accumulator (outs) is a splat
// arith.constant returns the accumulator unchanged once the dispatch spans
// several workgroups (47x8 outputs; 4x8 is right, and so is a linalg.fill
// accumulator). Found by run_difftest.py --seed 1 (s1_p190, acc=const).
//
//   build/bin/kiln-compile tests/difftest/regressions/acc_reduce_splat_const.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input="2x47x8xf32=1"
//
// want: 47x8xf32 all 3;  got (local-sync and local-task): all 1.
func.func @reduce_splat_const_acc(%x: tensor<2x47x8xf32>) -> tensor<47x8xf32> {
  %acc = arith.constant dense<1.0> : tensor<47x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%x : tensor<2x47x8xf32>) outs(%acc : tensor<47x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<47x8xf32>
  return %0 : tensor<47x8xf32>
}
