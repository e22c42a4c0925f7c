// Compiler crash (issue 6, item 5): a matmul with a zero-size reduction
// dimension (3x0 @ 0x2) and a filled accumulator dies by SIGSEGV in tiling
// (mlir::linalg::computeTileSizes / computeAllSliceParameters under
// scf::tileUsingSCF).
//
//   build/bin/kiln-compile tests/difftest/regressions/zero_size_matmul_crash.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input=@tests/difftest/regressions/empty_3x0xf32.npy --input=@tests/difftest/regressions/empty_0x2xf32.npy
//
// want: 3x2xf32 all 0 (the accumulator).  got: exit 139.
func.func @matmul_zero_k(%a: tensor<3x0xf32>, %b: tensor<0x2xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<3x0xf32>, tensor<0x2xf32>) outs(%acc : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
