// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-tile))' %s | FileCheck %s

// A concat along the channels of three operands becomes an elementwise
// gather over its result: channel c comes from the first operand below 8,
// the second below 12 (shifted by 8) and the third otherwise (shifted by
// 12), each load guarded by an scf.if so none reads outside its operand. It
// is then tiled like any elementwise op, with the exp consumer fused, and
// no tensor.concat (which bufferized to a whole-result temporary) is left.

// CHECK-LABEL: func.func private @concat3(
// CHECK-NOT:     tensor.concat
// CHECK:         scf.forall
// CHECK:           scf.forall
// CHECK:             linalg.generic
// The channel index: the thread tile's, offset by the workgroup tile's.
// CHECK:               linalg.index 3 : index
// CHECK-NEXT:          affine.apply
// CHECK-NEXT:          %[[C:.+]] = affine.apply
// CHECK-NEXT:          %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT:          %[[FIRST:.+]] = arith.cmpi ult, %[[C]], %[[C8]]
// CHECK-NEXT:          scf.if %[[FIRST]] -> (f32) {
// CHECK-NEXT:            tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[C]]] : tensor<1x16x16x8xf32>
// CHECK:               } else {
// CHECK-NEXT:            %[[C12:.+]] = arith.constant 12 : index
// CHECK-NEXT:            %[[SECOND:.+]] = arith.cmpi ult, %[[C]], %[[C12]]
// CHECK-NEXT:            scf.if %[[SECOND]] -> (f32) {
// CHECK-NEXT:              %[[C8B:.+]] = arith.constant 8 : index
// CHECK-NEXT:              %[[C1:.+]] = arith.subi %[[C]], %[[C8B]]
// CHECK-NEXT:              tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[C1]]] : tensor<1x16x16x4xf32>
// CHECK:                 } else {
// CHECK-NEXT:              %[[C12B:.+]] = arith.constant 12 : index
// CHECK-NEXT:              %[[C2:.+]] = arith.subi %[[C]], %[[C12B]]
// CHECK-NEXT:              tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}, %[[C2]]] : tensor<1x16x16x20xf32>
// CHECK:             linalg.exp
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>
func.func private @concat3(%a: memref<1x16x16x8xf32>, %b: memref<1x16x16x4xf32>, %c: memref<1x16x16x20xf32>, %out: memref<1x16x16x32xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<1x16x16x8xf32> to tensor<1x16x16x8xf32>
  %1 = bufferization.to_tensor %b restrict : memref<1x16x16x4xf32> to tensor<1x16x16x4xf32>
  %2 = bufferization.to_tensor %c restrict : memref<1x16x16x20xf32> to tensor<1x16x16x20xf32>
  %3 = tensor.concat dim(3) %0, %1, %2 : (tensor<1x16x16x8xf32>, tensor<1x16x16x4xf32>, tensor<1x16x16x20xf32>) -> tensor<1x16x16x32xf32>
  %e = tensor.empty() : tensor<1x16x16x32xf32>
  %4 = linalg.exp ins(%3 : tensor<1x16x16x32xf32>) outs(%e : tensor<1x16x16x32xf32>) -> tensor<1x16x16x32xf32>
  bufferization.materialize_in_destination %4 in restrict writable %out : (tensor<1x16x16x32xf32>, memref<1x16x16x32xf32>) -> ()
  return
}
