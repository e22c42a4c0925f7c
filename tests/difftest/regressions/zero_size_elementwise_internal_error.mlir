// Internal error on a zero-size tensor: an elementwise op over
// tensor<3x0xf32> ends in "error: lowered dispatch not found:
// zero_size_exp_dispatch_0" (no file, line or op), exit 1. The same for a
// tensor.pad of an empty source, a reduction or convolution whose output is
// empty, ... (10 of the first 200 programs of --seed 1).
//
//   build/bin/kiln-compile tests/difftest/regressions/zero_size_elementwise_internal_error.mlir --target-device=cpu -o /tmp/r.kiln
//
// want: a module whose function returns an empty 3x0xf32.
func.func @zero_size_exp(%a: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %e = tensor.empty() : tensor<3x0xf32>
  %0 = linalg.exp ins(%a : tensor<3x0xf32>) outs(%e : tensor<3x0xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
