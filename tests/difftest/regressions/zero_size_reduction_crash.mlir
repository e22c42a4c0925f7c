// Compiler crash (issue 6, item 5): a reduction over a zero-size dimension
// dies by SIGSEGV in tiling (mlir::linalg::computeTileSizes under
// scf::tileConsumerAndFuseProducersUsingSCF, from kiln tileDispatch). In a
// larger program (s1_p11) the same crash printed no stack trace at all.
//
//   build/bin/kiln-compile tests/difftest/regressions/zero_size_reduction_crash.mlir --target-device=cpu -o /tmp/r.kiln
//   build/bin/kiln-run-module --device=local-sync --module=/tmp/r.kiln --input=@tests/difftest/regressions/empty_4x0xf32.npy --input="4xf32=[1 2 3 4]"
//
// want: 4xf32=1 2 3 4 (the accumulator).  got: exit 139.
func.func @reduce_empty_axis(%x: tensor<4x0xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.reduce ins(%x : tensor<4x0xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<4xf32>
}
