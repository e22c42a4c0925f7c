// RUN: kiln-opt --split-input-file --kiln-row-variants %s | FileCheck %s

// A convolution over a batch known per call, 64 rows an image: a clone per
// bucket, each marked with the images its tiles assume, and the call lists
// them with their bounds on the result's outermost extent.

// CHECK-LABEL: func.func @batch(
// CHECK:         call @conv(%arg0, %arg1, %{{.+}}) {kiln.row_choices = {at_most = array<i64: 1, 4, 16>, callees = [@conv_rows_1, @conv_rows_4, @conv_rows_16]}}
// CHECK:         call @conv(%arg0, %arg1, %{{.+}}) {kiln.row_choices =
// CHECK-LABEL: func.func private @conv(
// CHECK-NOT:     kiln.assumed_outer_rows
// CHECK-DAG:   func.func private @conv_rows_16({{.*}} attributes {kiln.assumed_outer_rows = 8 : i64, kiln.dispatch}
// CHECK-DAG:   func.func private @conv_rows_4({{.*}} attributes {kiln.assumed_outer_rows = 2 : i64, kiln.dispatch}
// CHECK-DAG:   func.func private @conv_rows_1({{.*}} attributes {kiln.assumed_outer_rows = 1 : i64, kiln.dispatch}
func.func @batch(%x: tensor<?x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> (tensor<?x8x8x32xf32>, tensor<?x8x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8x8x16xf32>
  %0 = call @conv(%x, %w, %n) : (tensor<?x8x8x16xf32>, tensor<1x1x16x32xf32>, index) -> tensor<?x8x8x32xf32>
  %1 = call @conv(%x, %w, %n) : (tensor<?x8x8x16xf32>, tensor<1x1x16x32xf32>, index) -> tensor<?x8x8x32xf32>
  return %0, %1 : tensor<?x8x8x32xf32>, tensor<?x8x8x32xf32>
}
func.func private @conv(%x: tensor<?x8x8x16xf32>, %w: tensor<1x1x16x32xf32>, %n: index) -> tensor<?x8x8x32xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%f : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  return %c : tensor<?x8x8x32xf32>
}

// -----

// No variants: a matmul of one row per index of its dynamic extent (a
// token), a depthwise convolution (a window kernel's), and a static batch.

// CHECK-LABEL: func.func @none(
// CHECK-NOT:     kiln.row_choices
// CHECK-NOT:     _rows_
func.func @none(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %x: tensor<?x8x8x32xf32>, %d: tensor<3x3x32xf32>, %s: tensor<2x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> (tensor<?x32xf32>, tensor<?x6x6x32xf32>, tensor<2x8x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %a, %c0 : tensor<?x64xf32>
  %n = tensor.dim %x, %c0 : tensor<?x8x8x32xf32>
  %0 = call @matmul(%a, %b, %m) : (tensor<?x64xf32>, tensor<64x32xf32>, index) -> tensor<?x32xf32>
  %1 = call @depthwise(%x, %d, %n) : (tensor<?x8x8x32xf32>, tensor<3x3x32xf32>, index) -> tensor<?x6x6x32xf32>
  %2 = call @static(%s, %w) : (tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) -> tensor<2x8x8x32xf32>
  return %0, %1, %2 : tensor<?x32xf32>, tensor<?x6x6x32xf32>, tensor<2x8x8x32xf32>
}
func.func private @matmul(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %m: index) -> tensor<?x32xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %c : tensor<?x32xf32>
}
func.func private @depthwise(%x: tensor<?x8x8x32xf32>, %d: tensor<3x3x32xf32>, %n: index) -> tensor<?x6x6x32xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x6x6x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x6x6x32xf32>) -> tensor<?x6x6x32xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %d : tensor<?x8x8x32xf32>, tensor<3x3x32xf32>) outs(%f : tensor<?x6x6x32xf32>) -> tensor<?x6x6x32xf32>
  return %c : tensor<?x6x6x32xf32>
}
func.func private @static(%x: tensor<2x8x8x16xf32>, %w: tensor<1x1x16x32xf32>) -> tensor<2x8x8x32xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x8x8x16xf32>, tensor<1x1x16x32xf32>) outs(%f : tensor<2x8x8x32xf32>) -> tensor<2x8x8x32xf32>
  return %c : tensor<2x8x8x32xf32>
}
