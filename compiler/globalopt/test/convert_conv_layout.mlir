// RUN: kiln-opt --split-input-file --kiln-convert-conv-layout %s | FileCheck %s

// A filter argument is transposed FHWC -> HWCF at run time:
// hwcf[h, w, c, f] = fhwc[f, h, w, c].

// CHECK-DAG: #[[READ:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// CHECK-LABEL: func.func @filter_argument(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<1x5x5x2xf32>, %[[F:[^:]+]]: tensor<3x2x1x2xf32>, %[[ACC:[^:]+]]: tensor<1x4x5x3xf32>)
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<2x1x2x3xf32>
// CHECK:       %[[T:.+]] = linalg.generic
// CHECK-SAME:    indexing_maps = [#[[READ]], #[[ID]]]
// CHECK-SAME:    ins(%[[F]] : tensor<3x2x1x2xf32>) outs(%[[E]] : tensor<2x1x2x3xf32>)
// CHECK:       %[[R:.+]] = linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>
// CHECK-SAME:    ins(%[[X]], %[[T]] : tensor<1x5x5x2xf32>, tensor<2x1x2x3xf32>) outs(%[[ACC]] : tensor<1x4x5x3xf32>)
// CHECK-NOT:   linalg.conv_2d_nhwc_fhwc
// CHECK:       return %[[R]]
func.func @filter_argument(%x: tensor<1x5x5x2xf32>, %f: tensor<3x2x1x2xf32>, %acc: tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %f : tensor<1x5x5x2xf32>, tensor<3x2x1x2xf32>) outs(%acc : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}

// -----

// A constant filter is permuted at compile time: hwcf[h][w][c][f] =
// fhwc[f][h][w][c], with fhwc[f][h][0][c] = 4f + 2h + c.

// CHECK-LABEL: func.func @filter_constant(
// CHECK-NOT:   linalg.generic
// CHECK:       %[[CST:.+]] = arith.constant dense<
// CHECK-SAME:    {{\[\[\[\[}}0.000000e+00, 4.000000e+00, 8.000000e+00], [1.000000e+00, 5.000000e+00, 9.000000e+00]]],
// CHECK-SAME:    {{\[\[\[}}2.000000e+00, 6.000000e+00, 1.000000e+01], [3.000000e+00, 7.000000e+00, 1.100000e+01]]]]>
// CHECK-SAME:    : tensor<2x1x2x3xf32>
// CHECK-NOT:   tensor<3x2x1x2xf32>
// CHECK:       linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    ins(%{{.+}}, %[[CST]] : tensor<1x5x5x2xf32>, tensor<2x1x2x3xf32>)
// CHECK-NOT:   linalg.conv_2d_nhwc_fhwc
func.func @filter_constant(%x: tensor<1x5x5x2xf32>, %acc: tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32> {
  %f = arith.constant dense<[[[[0.0, 1.0]], [[2.0, 3.0]]],
                             [[[4.0, 5.0]], [[6.0, 7.0]]],
                             [[[8.0, 9.0]], [[10.0, 11.0]]]]> : tensor<3x2x1x2xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %f : tensor<1x5x5x2xf32>, tensor<3x2x1x2xf32>) outs(%acc : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}

// -----

// Integer filters too; strides and dilations are kept.
// fhwc[f][0][w][c] = 10f + 3w + c -> hwcf[0][w][c][f].

// CHECK-LABEL: func.func @filter_constant_i32_strided(
// CHECK:       %[[CST:.+]] = arith.constant dense<
// CHECK-SAME:    {{\[\[\[\[}}0, 10], [1, 11]], {{\[\[}}3, 13], [4, 14]]]]> : tensor<1x2x2x2xi32>
// CHECK:       linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>
// CHECK-SAME:    ins(%{{.+}}, %[[CST]] : tensor<1x5x5x2xi32>, tensor<1x2x2x2xi32>)
func.func @filter_constant_i32_strided(%x: tensor<1x5x5x2xi32>, %acc: tensor<1x3x2x2xi32>) -> tensor<1x3x2x2xi32> {
  %f = arith.constant dense<[[[[0, 1], [3, 4]]], [[[10, 11], [13, 14]]]]> : tensor<2x1x2x2xi32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%x, %f : tensor<1x5x5x2xi32>, tensor<2x1x2x2xi32>) outs(%acc : tensor<1x3x2x2xi32>) -> tensor<1x3x2x2xi32>
  return %0 : tensor<1x3x2x2xi32>
}

// -----

// A splat filter stays a splat of the new shape.

// CHECK-LABEL: func.func @filter_splat(
// CHECK:       %[[CST:.+]] = arith.constant dense<5.000000e-01> : tensor<2x1x2x3xf32>
// CHECK:       linalg.conv_2d_nhwc_hwcf
// CHECK-SAME:    ins(%{{.+}}, %[[CST]] : tensor<1x5x5x2xf32>, tensor<2x1x2x3xf32>)
func.func @filter_splat(%x: tensor<1x5x5x2xf32>, %acc: tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32> {
  %f = arith.constant dense<0.5> : tensor<3x2x1x2xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
       ins(%x, %f : tensor<1x5x5x2xf32>, tensor<3x2x1x2xf32>) outs(%acc : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}

// -----

// Convolutions already in NHWC/HWCF are left alone.

// CHECK-LABEL: func.func @already_hwcf(
// CHECK-NOT:   linalg.generic
// CHECK:       linalg.conv_2d_nhwc_hwcf ins(%{{.+}}, %{{.+}} : tensor<1x5x5x2xf32>, tensor<2x1x2x3xf32>)
func.func @already_hwcf(%x: tensor<1x5x5x2xf32>, %f: tensor<2x1x2x3xf32>, %acc: tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%x, %f : tensor<1x5x5x2xf32>, tensor<2x1x2x3xf32>) outs(%acc : tensor<1x4x5x3xf32>) -> tensor<1x4x5x3xf32>
  return %0 : tensor<1x4x5x3xf32>
}
