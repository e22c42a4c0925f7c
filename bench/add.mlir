// Elementwise add of two 2^26-element f32 vectors (bench/README.md): 256 MiB
// per operand, 768 MiB read and written per call. One dimension, so the
// shape is the 2^26 floats themselves and the PyTorch reference is a flat
// tensor; 8192x8192 would tile the same way (1024-element tiles from the
// innermost dimension out) into the same 65536 workgroups.
func.func @add(%a: tensor<67108864xf32>, %b: tensor<67108864xf32>) -> tensor<67108864xf32> {
  %0 = tosa.add %a, %b : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  return %0 : tensor<67108864xf32>
}
