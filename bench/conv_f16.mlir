// The ResNet convolutions of conv.mlir on f16 inputs, accumulated in f32
// and rounded to f16 as torch's f16 conv2d returns (bench/README.md).
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv56(%x: tensor<1x58x58x64xf16>, %w: tensor<3x3x64x64xf16>) -> tensor<1x56x56x64xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x56x56x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x58x58x64xf16>, tensor<3x3x64x64xf16>) outs(%f : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %h = tensor.empty() : tensor<1x56x56x64xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x56x56x64xf32>) outs(%h : tensor<1x56x56x64xf16>) {
  ^bb0(%v: f32, %o: f16):
    %y = arith.truncf %v : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x56x56x64xf16>
  return %t : tensor<1x56x56x64xf16>
}

func.func @conv14(%x: tensor<1x16x16x256xf16>, %w: tensor<3x3x256x256xf16>) -> tensor<1x14x14x256xf16> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x16x256xf16>, tensor<3x3x256x256xf16>) outs(%f : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  %h = tensor.empty() : tensor<1x14x14x256xf16>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x14x14x256xf32>) outs(%h : tensor<1x14x14x256xf16>) {
  ^bb0(%v: f32, %o: f16):
    %y = arith.truncf %v : f32 to f16
    linalg.yield %y : f16
  } -> tensor<1x14x14x256xf16>
  return %t : tensor<1x14x14x256xf16>
}
