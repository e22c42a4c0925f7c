// RUN: kiln-opt --split-input-file --pass-pipeline='builtin.module(func.func(kiln-split-reduction{min-split-size=128}))' %s | FileCheck %s
// RUN: kiln-opt --split-input-file --pass-pipeline='builtin.module(func.func(kiln-split-reduction))' %s | FileCheck %s --check-prefix=DEFAULT

// The cases below but the last keep at least 128 steps a part; the default
// is 256 (the last case).

// ResNet50's 3x3 convolution at 7x7 (channels first, as ONNX writes it):
// 49 x 512 outputs are 2 x 16 = 32 tiles of 32 x 32, K = 512 * 9 = 4608.
// S = 32 (32 * 32 = 1024 tiles, 144 reduction steps a part): the input
// channels become (32, 16) in the input and the filter, the partial sums
// have the part as their outermost dimension and start from zero, and the
// sum over parts accumulates into the bias broadcast, before the relu.

// CHECK-DAG:   #[[$A:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d7, d4, d2 + d5, d3 + d6)>
// CHECK-DAG:   #[[$B:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d7, d4, d5, d6)>
// CHECK-DAG:   #[[$P:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d7, d0, d1, d2, d3)>
// CHECK-DAG:   #[[$SUMIN:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d4, d0, d1, d2, d3)>
// CHECK-DAG:   #[[$SUMOUT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv3x3_7x7(
// CHECK:         %[[BIAS:.+]] = linalg.generic {{.*}} ins(%arg2 : tensor<512x1x1xf32>)
// CHECK-DAG:     %[[X:.+]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 32, 16, 9, 9]
// CHECK-DAG:     %[[W:.+]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2], [3], [4]] output_shape [512, 32, 16, 3, 3]
// CHECK:         %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<32x1x512x7x7xf32>)
// CHECK:         %[[PART:.+]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$P]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[W]] : tensor<1x32x16x9x9xf32>, tensor<512x32x16x3x3xf32>) outs(%[[ZEROS]] : tensor<32x1x512x7x7xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$SUMIN]], #[[$SUMOUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[PART]] : tensor<32x1x512x7x7xf32>) outs(%[[BIAS]] : tensor<1x512x7x7xf32>)
// CHECK:         ^bb0(%[[IN:.+]]: f32, %[[OUT:.+]]: f32):
// CHECK-NEXT:      arith.addf %[[OUT]], %[[IN]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x512x7x7xf32>)
// CHECK:           arith.maximumf
#bias_c11 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv3x3_7x7(%x: tensor<1x512x9x9xf32>, %w: tensor<512x512x3x3xf32>, %b: tensor<512x1x1xf32>) -> tensor<1x512x7x7xf32> {
  %e = tensor.empty() : tensor<1x512x7x7xf32>
  %acc = linalg.generic {indexing_maps = [#bias_c11, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<512x1x1xf32>) outs(%e : tensor<1x512x7x7xf32>) {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  } -> tensor<1x512x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%acc : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  %z = arith.constant 0.0 : f32
  %1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<1x512x7x7xf32>) outs(%e : tensor<1x512x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %z : f32
    linalg.yield %r : f32
  } -> tensor<1x512x7x7xf32>
  return %1 : tensor<1x512x7x7xf32>
}

// -----

// A matmul with one row (a classifier's Gemm): 1 x 1000 is 32 tiles, K =
// 2048: S = 16, 128 steps a part (the fewest allowed); the reduction loop k
// becomes (16, 128) in A's columns and B's rows.

// CHECK-LABEL: func.func @gemv(
// CHECK:         tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [1, 16, 128]
// CHECK:         tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [16, 128, 1000]
// CHECK:         linalg.generic {{.*}} outs(%{{.+}} : tensor<16x1x1000xf32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.+}} : tensor<16x1x1000xf32>) outs(%arg2 : tensor<1x1000xf32>)
func.func @gemv(%a: tensor<1x2048xf32>, %b: tensor<2048x1000xf32>, %c: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x2048xf32>, tensor<2048x1000xf32>) outs(%c : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %0 : tensor<1x1000xf32>
}

// -----

// Left whole: a large output (3136 x 256 at 56x56 is 98 x 8 = 784 tiles:
// two parts would be over the 1024 aimed at) and a short reduction (196 x 64
// outputs are 14 tiles, but K = 192 cannot make two parts of 128 steps).

// CHECK-LABEL: func.func @whole(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK:         linalg.conv_2d_nchw_fchw
// CHECK-NOT:     tensor.expand_shape
func.func @whole(%x: tensor<1x64x56x56xf32>, %w: tensor<256x64x1x1xf32>, %c: tensor<1x256x56x56xf32>, %y: tensor<1x192x14x14xf32>, %v: tensor<64x192x1x1xf32>, %d: tensor<1x64x14x14xf32>) -> (tensor<1x256x56x56xf32>, tensor<1x64x14x14xf32>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x56x56xf32>, tensor<256x64x1x1xf32>) outs(%c : tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32>
  %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<1x192x14x14xf32>, tensor<64x192x1x1xf32>) outs(%d : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  return %0, %1 : tensor<1x256x56x56xf32>, tensor<1x64x14x14xf32>
}

// -----

// f16 operands go to the tensor-core kernel, which steps through K 32 at a
// time: 3x3 x 32 channels (K = 288) cannot make two parts of a whole number
// of 32-step blocks and stays whole, where f32 would make two of 144.

// CHECK-LABEL: func.func @f16_conv_whole(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.conv_2d_nhwc_hwcf
func.func @f16_conv_whole(%x: tensor<1x5x5x32xf16>, %w: tensor<3x3x32x64xf16>, %c: tensor<1x3x3x64xf32>) -> tensor<1x3x3x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x32xf16>, tensor<3x3x32x64xf16>) outs(%c : tensor<1x3x3x64xf32>) -> tensor<1x3x3x64xf32>
  return %0 : tensor<1x3x3x64xf32>
}

// -----

// A ViT's QKV projection at batch 1: 197 x 1152 outputs are 7 x 36 = 252
// tiles, K = 384. With parts of at least 128 steps it splits in two (its sum
// a dispatch of its own, which costs more than the parallelism gains); by
// default (256) it stays whole.

// CHECK-LABEL:   func.func @qkv(
// CHECK:           tensor.expand_shape %arg0 {{\[}}[0], [1], [2, 3]] output_shape [1, 197, 2, 192]
// DEFAULT-LABEL: func.func @qkv(
// DEFAULT-NOT:     tensor.expand_shape
// DEFAULT:         linalg.batch_matmul
// DEFAULT-NOT:     tensor.expand_shape
func.func @qkv(%x: tensor<1x197x384xf16>, %w: tensor<1x384x1152xf16>) -> tensor<1x197x1152xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x197x1152xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x197x1152xf32>) -> tensor<1x197x1152xf32>
  %0 = linalg.batch_matmul ins(%x, %w : tensor<1x197x384xf16>, tensor<1x384x1152xf16>) outs(%f : tensor<1x197x1152xf32>) -> tensor<1x197x1152xf32>
  return %0 : tensor<1x197x1152xf32>
}
