// Internal error on a zero-size result of pure data movement: an
// extract_slice (likewise a tensor.concat of empty operands) whose result has
// a 0 dimension ends in "error: lowered dispatch not found:
// slice_empty_dispatch_0", exit 1. Same class as
// zero_size_elementwise_internal_error.mlir.
//
//   build/bin/kiln-compile tests/difftest/regressions/zero_size_slice_internal_error.mlir --target-device=cpu -o /tmp/r.kiln
//
// want: a module whose function returns an empty 1x11x0xf32.
func.func @slice_empty(%x: tensor<1x14x2xf32>) -> tensor<1x11x0xf32> {
  %0 = tensor.extract_slice %x[0, 1, 0] [1, 11, 0] [3, 1, 1] : tensor<1x14x2xf32> to tensor<1x11x0xf32>
  return %0 : tensor<1x11x0xf32>
}
