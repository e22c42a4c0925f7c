// Softmax over one row of 1000 floats (bench/README.md): latency-bound,
// the size of a classifier's output.
func.func @softmax(%x: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %e = tensor.empty() : tensor<1x1000xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<1x1000xf32>) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}
