// RUN: kiln-opt --pass-pipeline='builtin.module(func.func(kiln-tosa-concat-to-tensor))' %s | FileCheck %s

// tosa.concat becomes one tensor.concat along the same axis, operands in
// order (upstream's tosa-to-tensor would write insert_slices instead).
// CHECK-LABEL: func.func @concat3(
// CHECK-SAME:    %[[A:.+]]: tensor<1x4x4x3xf32>, %[[B:.+]]: tensor<1x4x4x5xf32>, %[[C:.+]]: tensor<1x4x4x1xf32>
// CHECK-NEXT:    %[[R:.+]] = tensor.concat dim(3) %[[A]], %[[B]], %[[C]] : (tensor<1x4x4x3xf32>, tensor<1x4x4x5xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x9xf32>
// CHECK-NEXT:    return %[[R]]
func.func @concat3(%a: tensor<1x4x4x3xf32>, %b: tensor<1x4x4x5xf32>, %c: tensor<1x4x4x1xf32>) -> tensor<1x4x4x9xf32> {
  %0 = tosa.concat %a, %b, %c {axis = 3 : i32} : (tensor<1x4x4x3xf32>, tensor<1x4x4x5xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x9xf32>
  return %0 : tensor<1x4x4x9xf32>
}

// Axis 0 of integers.
// CHECK-LABEL: func.func @concat_axis0(
// CHECK:         tensor.concat dim(0) %{{.+}}, %{{.+}} : (tensor<2x6xi32>, tensor<5x6xi32>) -> tensor<7x6xi32>
// CHECK-NOT:     tosa.concat
func.func @concat_axis0(%a: tensor<2x6xi32>, %b: tensor<5x6xi32>) -> tensor<7x6xi32> {
  %0 = tosa.concat %a, %b {axis = 0 : i32} : (tensor<2x6xi32>, tensor<5x6xi32>) -> tensor<7x6xi32>
  return %0 : tensor<7x6xi32>
}
