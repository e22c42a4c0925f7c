// Wrong answer: the same reduction with the accumulator as a function
// argument (issue 6, item 1, beyond batch_matmul).
//
//   build/bin/kiln-compile tests/difftest/regressions/acc_reduce_arg.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input="2x47x8xf32=1" --input="47x8xf32=1"
//
// want: 47x8xf32 all 3;  got: all 1. With 4x8 outputs (one workgroup): 3.
func.func @reduce_arg_acc(%x: tensor<2x47x8xf32>, %acc: tensor<47x8xf32>) -> tensor<47x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%x : tensor<2x47x8xf32>) outs(%acc : tensor<47x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<47x8xf32>
  return %0 : tensor<47x8xf32>
}
