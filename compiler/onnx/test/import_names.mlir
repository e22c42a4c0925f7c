// The function takes the graph's (sanitized) name, its inputs and outputs in
// the graph's order with their ONNX names, weights as constants.
// RUN: /usr/bin/python3 %S/make_model.py names %t.onnx
// RUN: kiln-import-onnx %t.onnx | FileCheck %s

// CHECK-LABEL: func.func @torch_jit_export(
// CHECK-SAME: %[[X:.*]]: tensor<2x32xf32> {kiln.name = "input.1"}
// CHECK-SAME: %[[E:.*]]: tensor<3xf32> {kiln.name = "extra"}
// CHECK-SAME: -> (tensor<3xf32> {kiln.name = "relu_out"}, tensor<2x3xf32> {kiln.name = "logits"})
// CHECK: %[[W:.*]] = arith.constant dense_resource<fc_weight> : tensor<32x3xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X]], %[[W]] :
// CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[LOGITS:.*]] = linalg.generic {{.*}} ins(%[[MM]], %[[B]] :
// CHECK: arith.addf
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[E]] :
// CHECK: arith.maximumf
// CHECK: return %[[RELU]], %[[LOGITS]]
// CHECK: dialect_resources
// CHECK-NEXT: builtin
// CHECK-NEXT: fc_weight: "0x40000000
