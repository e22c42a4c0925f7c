// RUN: kiln-opt --split-input-file --kiln-gpu-distribute-to-threads %s | FileCheck %s

// A thread loop over a (partial, dynamic) 2-D tile becomes one loop over its
// linearized iterations from the thread id, strided by the 256 threads.

// CHECK-LABEL: func.func private @tile(
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         %[[TID:.+]] = gpu.thread_id x
// CHECK:         %[[C256:.+]] = arith.constant 256 : index
// CHECK:         %[[N:.+]] = affine.apply #{{.+}}()[%[[ROWS:.+]]]
// CHECK:         scf.for %[[I:.+]] = %[[TID]] to %[[N]] step %[[C256]]
// CHECK:           %[[IDS:.+]]:2 = affine.delinearize_index %[[I]] into (%[[ROWS]], 300)
// CHECK:           memref.load %{{.+}}[%[[IDS]]#0, %[[IDS]]#1]
// CHECK-NOT:     scf.forall
func.func private @tile(%in: memref<8x300xf32>, %out: memref<8x300xf32>, %rows: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 3, 1, 1>} {
  scf.forall (%i, %j) in (%rows, 300) {
    %v = memref.load %in[%i, %j] : memref<8x300xf32>
    memref.store %v, %out[%i, %j] : memref<8x300xf32>
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}

// -----

// A binding written outside the thread loop would be written by every
// thread: the workgroup becomes one thread running everything.

// CHECK-LABEL: func.func private @write_outside(
// CHECK-SAME:    kiln.workgroup_size = array<i64: 1, 1, 1>
// CHECK-NOT:     gpu.thread_id
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[C1:.+]] = arith.constant 1 : index
// CHECK:         linalg.copy
// CHECK:         scf.for %{{.+}} = %[[C0]] to %{{.+}} step %[[C1]]
func.func private @write_outside(%in: memref<4xf32>, %out: memref<4xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.workgroup_count = array<i64: 1, 1, 1>} {
  linalg.copy ins(%in : memref<4xf32>) outs(%out : memref<4xf32>)
  scf.forall (%i) in (4) {
    %v = memref.load %out[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %out[%i] : memref<4xf32>
  } {mapping = [#gpu.thread<linear_dim_0>]}
  return
}
