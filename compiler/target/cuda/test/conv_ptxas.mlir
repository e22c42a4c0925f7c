// REQUIRES: ptxas
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --cuda-use-ptxas -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s

// ptxas accepts the convolution kernels' PTX for sm_90a (the implicit GEMM
// on the tensor cores with zero-filled rows, and a depthwise window
// kernel): the module holds a cubin before the PTX.

// CHECK: format 'cuda-cubin', target 'sm_90a'
// CHECK: format 'cuda-ptx', target 'sm_90a'

func.func @conv_f16(%x: tensor<1x5x5x32xf16>, %w: tensor<3x3x32x64xf16>) -> tensor<1x3x3x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x64xf32>) -> tensor<1x3x3x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x32xf16>, tensor<3x3x32x64xf16>) outs(%f : tensor<1x3x3x64xf32>) -> tensor<1x3x3x64xf32>
  return %c : tensor<1x3x3x64xf32>
}

func.func @depthwise(%x: tensor<1x34x34x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x32x32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x34x34x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %c : tensor<1x32x32x32xf32>
}
