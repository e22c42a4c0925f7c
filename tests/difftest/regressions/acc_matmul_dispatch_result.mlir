// Wrong answer: a matmul whose accumulator is another dispatch's result (a
// transpose) loses the product in every workgroup but the last: the first
// 64 columns hold the accumulator alone. Found by run_difftest.py --seed 1
// (s1_p163, acc=dispatch).
//
//   build/bin/kiln-compile tests/difftest/regressions/acc_matmul_dispatch_result.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input="7x1xf32=1" --input="1x71xf32=1" --input="71x7xf32=1"
//
// want: 7x71xf32 all 2;  got: columns 0-63 are 1, columns 64-70 are 2.
func.func @matmul_dispatch_acc(%a: tensor<7x1xf32>, %b: tensor<1x71xf32>, %c: tensor<71x7xf32>) -> tensor<7x71xf32> {
  %e = tensor.empty() : tensor<7x71xf32>
  %acc = linalg.transpose ins(%c : tensor<71x7xf32>) outs(%e : tensor<7x71xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%a, %b : tensor<7x1xf32>, tensor<1x71xf32>) outs(%acc : tensor<7x71xf32>) -> tensor<7x71xf32>
  return %0 : tensor<7x71xf32>
}
