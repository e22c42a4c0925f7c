// RUN: kiln-opt --split-input-file --kiln-demote-contractions %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-demote-contractions=type=bf16 %s | FileCheck %s --check-prefix=BF16

// An f32 matmul by a constant weight: the weight is rounded at compile
// time, the activation by a truncf; the product accumulates in f32 into the
// same f32 result.

// CHECK-LABEL: func.func @matmul_weight(
// CHECK:         %[[A:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<3x2xf32>) outs(%{{.+}} : tensor<3x2xf16>)
// CHECK:           arith.truncf %{{.+}} : f32 to f16
// CHECK:         %[[W:.+]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.332520e-01], [-2.500000e+00, 6.550400e+04]]> : tensor<2x2xf16>
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[W]] : tensor<3x2xf16>, tensor<2x2xf16>) outs(%{{.+}} : tensor<3x2xf32>)
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.extf %{{.+}} : f16 to f32
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.matmul
// BF16-LABEL:  func.func @matmul_weight(
// BF16:          arith.constant dense<{{.*}}> : tensor<2x2xbf16>
// BF16:          arith.truncf %{{.+}} : f32 to bf16
func.func @matmul_weight(%a: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 0.333333], [-2.5, 65504.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.matmul ins(%a, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Attention's operands are slices of one tensor, K read through a
// transpose: the tensor is rounded once, before the slices and the
// transpose, which are applied to it (so the transpose still folds into
// the contraction); the f32 ones are left dead.

// CHECK-LABEL: func.func @sliced_heads(
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x4x8xf32>) outs(%{{.+}} : tensor<2x4x8xf16>)
// CHECK:           arith.truncf
// CHECK-NOT:     arith.truncf
// CHECK-DAG:     %[[Q:.+]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<2x4x8xf16> to tensor<4x8xf16>
// CHECK-DAG:     %[[K:.+]] = tensor.extract_slice %[[R]][1, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<2x4x8xf16> to tensor<4x8xf16>
// CHECK-DAG:     %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<4x8xf16>) outs(%{{.+}} : tensor<8x4xf16>) permutation = [1, 0]
// CHECK:         linalg.generic {{.*}} ins(%[[Q]], %[[KT]] : tensor<4x8xf16>, tensor<8x4xf16>)
func.func @sliced_heads(%qk: tensor<2x4x8xf32>) -> tensor<4x4xf32> {
  %q = tensor.extract_slice %qk[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<2x4x8xf32> to tensor<4x8xf32>
  %k = tensor.extract_slice %qk[1, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<2x4x8xf32> to tensor<4x8xf32>
  %et = tensor.empty() : tensor<8x4xf32>
  %kt = linalg.transpose ins(%k : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%q, %kt : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A convolution of a padded input: the input is rounded before the pad,
// which pads by the rounded constant; f16 operands already and integer
// contractions are left alone.

// CHECK-LABEL: func.func @conv_padded(
// CHECK:         %[[R:.+]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x6x6x8xf32>) outs(%{{.+}} : tensor<1x6x6x8xf16>)
// CHECK:         %[[P:.+]] = tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:           tensor.yield %{{.+}} : f16
// CHECK:         linalg.generic {{.*}} ins(%[[P]], %{{.+}} : tensor<1x8x8x8xf16>, tensor<3x3x8x4xf16>)
// CHECK:         linalg.matmul ins(%arg2, %arg2 : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK:         linalg.matmul ins(%arg3, %arg3 : tensor<4x4xi32>, tensor<4x4xi32>)
func.func @conv_padded(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8x4xf32>, %h: tensor<4x4xf16>, %i: tensor<4x4xi32>) -> (tensor<1x6x6x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x8x8xf32>, tensor<3x3x8x4xf32>) outs(%f : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %e2 = tensor.empty() : tensor<4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%h, %h : tensor<4x4xf16>, tensor<4x4xf16>) outs(%f2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = arith.constant 0 : i32
  %e3 = tensor.empty() : tensor<4x4xi32>
  %f3 = linalg.fill ins(%z : i32) outs(%e3 : tensor<4x4xi32>) -> tensor<4x4xi32>
  %n = linalg.matmul ins(%i, %i : tensor<4x4xi32>, tensor<4x4xi32>) outs(%f3 : tensor<4x4xi32>) -> tensor<4x4xi32>
  return %c, %m, %n : tensor<1x6x6x4xf32>, tensor<4x4xf32>, tensor<4x4xi32>
}

// -----

// Dynamic dimensions (issue 19): each rounded tensor is sized from the
// value it rounds, a transposed one from the transpose's input, permuted.

// CHECK-LABEL: func.func @dynamic_transposed(
// CHECK:         %[[N:.+]] = tensor.dim %arg1, %{{.+}} : tensor<?x8xf32>
// CHECK:         %[[EB:.+]] = tensor.empty(%[[N]]) : tensor<?x8xf16>
// CHECK:         %[[B:.+]] = linalg.generic {{.*}} ins(%arg1 : tensor<?x8xf32>) outs(%[[EB]] : tensor<?x8xf16>)
// CHECK:         %[[M:.+]] = tensor.dim %arg0, %{{.+}} : tensor<?x8xf32>
// CHECK:         %[[EA:.+]] = tensor.empty(%[[M]]) : tensor<?x8xf16>
// CHECK:         linalg.generic {{.*}} ins(%arg0 : tensor<?x8xf32>) outs(%[[EA]] : tensor<?x8xf16>)
// CHECK:         %[[NB:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x8xf16>
// CHECK:         %[[ET:.+]] = tensor.empty(%[[NB]]) : tensor<8x?xf16>
// CHECK:         linalg.transpose ins(%[[B]] : tensor<?x8xf16>) outs(%[[ET]] : tensor<8x?xf16>)
func.func @dynamic_transposed(%a: tensor<?x8xf32>, %bt: tensor<?x8xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x8xf32>
  %n = tensor.dim %bt, %c0 : tensor<?x8xf32>
  %te = tensor.empty(%n) : tensor<8x?xf32>
  %b = linalg.transpose ins(%bt : tensor<?x8xf32>) outs(%te : tensor<8x?xf32>) permutation = [1, 0]
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
