// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-tile))' %s | FileCheck %s

// tensor.pad, concat, extract_slice and insert_slice become elementwise
// gathers (GatherOps.cpp) before tiling.

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

// -----

// A strided slice stored by a dispatch becomes a gather over the slice:
// element (i, j) loads source element (1 + 2i, 2 + 3j). Before, nothing
// tiled it and one thread copied the whole slice.

// CHECK-LABEL: func.func private @strided_slice(
// CHECK-NOT:     tensor.extract_slice %{{.+}}[1, 2]
// CHECK:         scf.forall
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK:               %[[TWO:.+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[I2:.+]] = arith.muli %{{.+}}, %[[TWO]]
// CHECK-NEXT:          %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT:          %[[ROW:.+]] = arith.addi %[[I2]], %[[ONE]]
// CHECK-NEXT:          %[[THREE:.+]] = arith.constant 3 : index
// CHECK-NEXT:          %[[J3:.+]] = arith.muli %{{.+}}, %[[THREE]]
// CHECK-NEXT:          %[[TWO2:.+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[COL:.+]] = arith.addi %[[J3]], %[[TWO2]]
// CHECK-NEXT:          tensor.extract %{{.+}}[%[[ROW]], %[[COL]]] : tensor<10x12xf32>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func private @strided_slice(%a: memref<10x12xf32>, %out: memref<4x3xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<10x12xf32> to tensor<10x12xf32>
  %1 = tensor.extract_slice %0[1, 2] [4, 3] [2, 3] : tensor<10x12xf32> to tensor<4x3xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<4x3xf32>, memref<4x3xf32>) -> ()
  return
}

// -----

// A rank-reducing slice keeps the dropped dimension at its offset (3).

// CHECK-LABEL: func.func private @rank_reducing_slice(
// CHECK:             linalg.generic
// CHECK:               %[[ROW:.+]] = arith.constant 3 : index
// CHECK-NEXT:          tensor.extract %{{.+}}[%[[ROW]], %{{.+}}] : tensor<5x16xf32>
func.func private @rank_reducing_slice(%a: memref<5x16xf32>, %out: memref<16xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<5x16xf32> to tensor<5x16xf32>
  %1 = tensor.extract_slice %0[3, 0] [1, 16] [1, 1] : tensor<5x16xf32> to tensor<16xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<16xf32>, memref<16xf32>) -> ()
  return
}

// -----

// An insert becomes a gather over the destination, read as an input of the
// generic: inside the slice (rows 3..4, columns 2..4: one unsigned compare
// per dimension) the source element, elsewhere the destination's.

// CHECK-LABEL: func.func private @insert_slice(
// CHECK-NOT:     tensor.insert_slice
// CHECK:             linalg.generic
// CHECK-SAME:          ins(%{{.+}} : tensor<1x1xf32>)
// CHECK-NEXT:        ^bb0(%[[DEST:.+]]: f32, %{{.+}}: f32):
// CHECK:               %[[C3:.+]] = arith.constant 3 : index
// CHECK-NEXT:          %[[R:.+]] = arith.subi %{{.+}}, %[[C3]]
// CHECK-NEXT:          %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[RIN:.+]] = arith.cmpi ult, %[[R]], %[[C2]]
// CHECK-NEXT:          %[[C2B:.+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[C:.+]] = arith.subi %{{.+}}, %[[C2B]]
// CHECK-NEXT:          %[[C3B:.+]] = arith.constant 3 : index
// CHECK-NEXT:          %[[CIN:.+]] = arith.cmpi ult, %[[C]], %[[C3B]]
// CHECK-NEXT:          %[[IN:.+]] = arith.andi %[[RIN]], %[[CIN]]
// CHECK-NEXT:          scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:            tensor.extract %{{.+}}[%[[R]], %[[C]]] : tensor<2x3xf32>
// CHECK:               } else {
// CHECK-NEXT:            scf.yield %[[DEST]] : f32
func.func private @insert_slice(%a: memref<6x7xf32>, %b: memref<2x3xf32>, %out: memref<6x7xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<6x7xf32> to tensor<6x7xf32>
  %1 = bufferization.to_tensor %b restrict : memref<2x3xf32> to tensor<2x3xf32>
  %2 = tensor.insert_slice %1 into %0[3, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<6x7xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<6x7xf32>, memref<6x7xf32>) -> ()
  return
}

// -----

// A strided insert also checks that the index lies on the stride: elements
// 1, 3 and 5 come from the source (span 5 from offset 1, step 2).

// CHECK-LABEL: func.func private @strided_insert(
// CHECK:               %[[C1:.+]] = arith.constant 1 : index
// CHECK-NEXT:          %[[S:.+]] = arith.subi %{{.+}}, %[[C1]]
// CHECK-NEXT:          %[[C5:.+]] = arith.constant 5 : index
// CHECK-NEXT:          %[[IN:.+]] = arith.cmpi ult, %[[S]], %[[C5]]
// CHECK-NEXT:          %[[C2:.+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:          %[[REM:.+]] = arith.remui %[[S]], %[[C2]]
// CHECK-NEXT:          %[[ON:.+]] = arith.cmpi eq, %[[REM]], %[[C0]]
// CHECK-NEXT:          %[[Q:.+]] = arith.divui %[[S]], %[[C2]]
// CHECK-NEXT:          %[[BOTH:.+]] = arith.andi %[[IN]], %[[ON]]
// CHECK-NEXT:          scf.if %[[BOTH]] -> (f32) {
// CHECK-NEXT:            tensor.extract %{{.+}}[%[[Q]]] : tensor<3xf32>
func.func private @strided_insert(%a: memref<8xf32>, %b: memref<3xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<8xf32> to tensor<8xf32>
  %1 = bufferization.to_tensor %b restrict : memref<3xf32> to tensor<3xf32>
  %2 = tensor.insert_slice %1 into %0[1] [3] [2] : tensor<3xf32> into tensor<8xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// A concat of filled operands of extents known per call (a detector's
// label per class, each a splat over that class's candidates): each filled
// operand's element is its fill value, so no fill is left to need a
// temporary the kernel cannot allocate.

// CHECK-LABEL: func.func private @concat_fills(
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     tensor.concat
// CHECK-DAG:     %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-DAG:     %[[TWO:.+]] = arith.constant 2 : i64
// CHECK:         scf.forall
// CHECK:             scf.if
// CHECK-NEXT:          scf.yield %[[ONE]] : i64
// CHECK-NEXT:        } else {
// CHECK-NEXT:          scf.yield %[[TWO]] : i64
// CHECK-NOT:     linalg.fill
func.func private @concat_fills(%n: index, %m: index, %out: memref<?xi64>) attributes {kiln.dispatch} {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %e1 = tensor.empty(%n) : tensor<?xi64>
  %f1 = linalg.fill ins(%one : i64) outs(%e1 : tensor<?xi64>) -> tensor<?xi64>
  %e2 = tensor.empty(%m) : tensor<?xi64>
  %f2 = linalg.fill ins(%two : i64) outs(%e2 : tensor<?xi64>) -> tensor<?xi64>
  %c = tensor.concat dim(0) %f1, %f2 : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<?xi64>, memref<?xi64>) -> ()
  return
}

// -----

// Slices read only by a concatenation (torch.roll's halves, put in its
// dispatch by kiln-form-dispatches) are not copied out: the concatenation's
// gather reads their source, the second half's columns shifted by 5 back
// to the first 5, the first half's by 3 forward to the last 3.

// CHECK-LABEL: func.func private @roll(
// CHECK-NOT:     tensor.extract_slice
// CHECK:         scf.forall
// CHECK:           %[[C3:.+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[FIRST:.+]] = arith.cmpi ult, %[[W:.+]], %[[C3]]
// CHECK-NEXT:      scf.if %[[FIRST]] -> (f32) {
// CHECK-NEXT:        %[[C5:.+]] = arith.constant 5 : index
// CHECK-NEXT:        %[[FROM:.+]] = arith.addi %[[W]], %[[C5]]
// CHECK-NEXT:        tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %[[FROM]], %{{.+}}] : tensor<1x8x8x4xf32>
// CHECK:           } else {
// CHECK-NEXT:        %[[C3B:.+]] = arith.constant 3 : index
// CHECK-NEXT:        %[[BACK:.+]] = arith.subi %[[W]], %[[C3B]]
// CHECK-NEXT:        tensor.extract %{{.+}}[%{{.+}}, %{{.+}}, %[[BACK]], %{{.+}}] : tensor<1x8x8x4xf32>
// CHECK-NOT:     tensor.extract_slice
func.func private @roll(%x: memref<1x8x8x4xf32>, %out: memref<1x8x8x4xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<1x8x8x4xf32> to tensor<1x8x8x4xf32>
  %a = tensor.extract_slice %0[0, 0, 5, 0] [1, 8, 3, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x3x4xf32>
  %b = tensor.extract_slice %0[0, 0, 0, 0] [1, 8, 5, 4] [1, 1, 1, 1] : tensor<1x8x8x4xf32> to tensor<1x8x5x4xf32>
  %r = tensor.concat dim(2) %a, %b : (tensor<1x8x3x4xf32>, tensor<1x8x5x4xf32>) -> tensor<1x8x8x4xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<1x8x8x4xf32>, memref<1x8x8x4xf32>) -> ()
  return
}
