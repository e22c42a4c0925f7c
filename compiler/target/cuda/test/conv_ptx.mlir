// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_80 -o %t.sm80.kiln
// RUN: strings %t.sm80.kiln | FileCheck %s --check-prefix=SM80

// The PTX of the convolution kernels. An f32 convolution (implicit GEMM on
// the CUDA cores): its input rows copied into shared memory by cp.async, 4
// channels at a time, FMAs on 16-byte shared loads.
// An f16 one on the tensor cores: its input rows gathered by cp.async, rows
// past M (66 * 66 = 4356, 4 past the last whole 64-row tile) copied with a
// run-time source size of 0 bytes, then wgmma on sm_90a and ldmatrix into
// mma.sync on sm_80. A depthwise convolution and a max pooling (window kernels):
// the input box stored to shared memory, then shared loads into FMAs and
// maxima.

// SM80-LABEL: .entry conv_f16_dispatch_0
// SM80-DAG:   cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// SM80-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// SM80-NOT:   wgmma
// SM80-LABEL: .entry depthwise_dispatch_0

// CHECK-LABEL: .entry conv_f32_dispatch_0
// CHECK-DAG:   cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-DAG:   ld.shared.v4.b32
// CHECK-DAG:   fma.rn.f32
// CHECK-LABEL: .entry conv_f16_dispatch_0
// CHECK-DAG:   cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// CHECK-DAG:   fence.proxy.async.shared::cta
// CHECK-DAG:   wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT:   mma.sync
// CHECK-LABEL: .entry depthwise_dispatch_0
// CHECK-DAG:   st.shared.b32
// CHECK-DAG:   ld.shared.b32
// CHECK-DAG:   fma.rn.f32
// CHECK-LABEL: .entry maxpool_dispatch_0
// CHECK-DAG:   st.shared.b32
// CHECK-DAG:   ld.shared.b32
// CHECK-DAG:   max.NaN.f32

func.func @conv_f32(%x: tensor<1x18x18x32xf32>, %w: tensor<3x3x32x64xf32>) -> tensor<1x16x16x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x16x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x18x18x32xf32>, tensor<3x3x32x64xf32>) outs(%f : tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
  return %c : tensor<1x16x16x64xf32>
}

func.func @conv_f16(%x: tensor<1x68x68x32xf16>, %w: tensor<3x3x32x64xf16>) -> tensor<1x66x66x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x66x66x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x66x66x64xf32>) -> tensor<1x66x66x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x68x68x32xf16>, tensor<3x3x32x64xf16>) outs(%f : tensor<1x66x66x64xf32>) -> tensor<1x66x66x64xf32>
  return %c : tensor<1x66x66x64xf32>
}

func.func @depthwise(%x: tensor<1x34x34x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x32x32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x34x34x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32>
  return %c : tensor<1x32x32x32xf32>
}

func.func @maxpool(%x: tensor<1x33x33x32xf32>) -> tensor<1x16x16x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  %c = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : tensor<1x33x33x32xf32>, tensor<3x3xf32>) outs(%f : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  return %c : tensor<1x16x16x32xf32>
}
