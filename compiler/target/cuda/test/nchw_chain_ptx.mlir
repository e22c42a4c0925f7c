// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a -o %t.kiln
// RUN: strings %t.kiln | FileCheck %s
// RUN: kiln-compile %s --target-device=cuda --cuda-target=sm_90a --conv-layout=nchw -o %t.nchw.kiln
// RUN: strings %t.nchw.kiln | FileCheck %s --check-prefix=NCHW

// Two f16 convolutions in the form the ONNX importer writes them
// (channels first, f32 accumulators started from the bias, rounded to f16,
// a ReLU and the next convolution's padding between them). For a GPU target
// the chain runs channels-last, so both convolutions reach the tensor
// cores; as written (--conv-layout=nchw) neither does: the input is not
// K-innermost.

// Two kernels (an .entry between them) on the tensor cores (mma.sync's
// 32 x 32 tiles on sm_90a too: 128 outputs a channel are too few for
// wgmma's to fill the chip):
// CHECK:     .entry chain_dispatch_{{[0-9]+}}
// CHECK:     mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK:     .entry chain_dispatch_{{[0-9]+}}
// CHECK:     mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// NCHW-NOT:  mma

#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @chain(%x: tensor<2x16x10x10xf16>, %w1: tensor<32x16x3x3xf16>, %b1: tensor<32xf16>, %w2: tensor<64x32x1x1xf16>, %b2: tensor<64xf16>) -> tensor<2x64x8x8xf16> {
  %zero = arith.constant 0.0 : f16
  %e1 = tensor.empty() : tensor<2x32x8x8xf32>
  %i1 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<32xf16>) outs(%e1 : tensor<2x32x8x8xf32>) {
  ^bb0(%in: f16, %out: f32):
    %v = arith.extf %in : f16 to f32
    linalg.yield %v : f32
  } -> tensor<2x32x8x8xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<2x16x10x10xf16>, tensor<32x16x3x3xf16>) outs(%i1 : tensor<2x32x8x8xf32>) -> tensor<2x32x8x8xf32>
  %h1 = tensor.empty() : tensor<2x32x8x8xf16>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<2x32x8x8xf32>) outs(%h1 : tensor<2x32x8x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    %m = arith.maximumf %t, %zero : f16
    linalg.yield %m : f16
  } -> tensor<2x32x8x8xf16>
  %e2 = tensor.empty() : tensor<2x64x8x8xf32>
  %i2 = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<64xf16>) outs(%e2 : tensor<2x64x8x8xf32>) {
  ^bb0(%in: f16, %out: f32):
    %v = arith.extf %in : f16 to f32
    linalg.yield %v : f32
  } -> tensor<2x64x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%r1, %w2 : tensor<2x32x8x8xf16>, tensor<64x32x1x1xf16>) outs(%i2 : tensor<2x64x8x8xf32>) -> tensor<2x64x8x8xf32>
  %h2 = tensor.empty() : tensor<2x64x8x8xf16>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<2x64x8x8xf32>) outs(%h2 : tensor<2x64x8x8xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x64x8x8xf16>
  return %r2 : tensor<2x64x8x8xf16>
}
