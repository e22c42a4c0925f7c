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

// -----

// A vectorized elementwise thread loop (kiln-gpu-tile recorded 4-float
// vectors): transfers become vector loads and stores, and the loop is
// versioned on every binding being 16-byte aligned. In that version the
// 4-element accesses to bindings are declared 16-byte aligned (single
// ld.global.v4 / st.global.v4); the broadcast scalar, and everything in the
// other version, keep element alignment.

// CHECK-LABEL: func.func private @vectors(
// CHECK-DAG:     %[[PA:.+]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK-DAG:     %[[PR:.+]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK-DAG:     %[[PO:.+]] = memref.extract_aligned_pointer_as_index %arg2
// CHECK:         %[[LOW:.+]] = arith.andi %{{.+}}, %c15
// CHECK:         %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %c0
// CHECK:         scf.if %[[ALIGNED]] {
// CHECK:           scf.for
// CHECK:             vector.load {{.*}} {alignment = 16 : i64} : memref<1x4xf32, {{.*}}>, vector<4xf32>
// CHECK:             vector.load {{[^{]*}} : memref<1xf32, {{.*}}>, vector<1xf32>
// CHECK:             vector.broadcast
// CHECK:             vector.store {{.*}} {alignment = 16 : i64} : memref<1x4xf32, {{.*}}>, vector<4xf32>
// CHECK:         } else {
// CHECK:           scf.for
// CHECK:             vector.load {{[^{]*}} : memref<1x4xf32, {{.*}}>, vector<4xf32>
// CHECK:             vector.load {{[^{]*}} : memref<1xf32, {{.*}}>, vector<1xf32>
// CHECK:             vector.store {{[^{]*}} : memref<1x4xf32, {{.*}}>, vector<4xf32>
// CHECK-NOT:     vector.transfer
func.func private @vectors(%a: memref<8x1024xf32>, %r: memref<8xf32>, %out: memref<8x1024xf32>, %x: index, %y: index, %z: index) attributes {kiln.dispatch, kiln.lowering_config = {kernel = "tiled", vector_width = 4 : i64}, kiln.workgroup_count = array<i64: 8, 1, 1>} {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  scf.forall (%i, %j) = (0, 0) to (1, 1024) step (1, 4) {
    %sa = memref.subview %a[%x, %j] [1, 4] [1, 1] : memref<8x1024xf32> to memref<1x4xf32, strided<[1024, 1], offset: ?>>
    %sr = memref.subview %r[%x] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: ?>>
    %so = memref.subview %out[%x, %j] [1, 4] [1, 1] : memref<8x1024xf32> to memref<1x4xf32, strided<[1024, 1], offset: ?>>
    %v = vector.transfer_read %sa[%c0, %c0], %pad {in_bounds = [true]} : memref<1x4xf32, strided<[1024, 1], offset: ?>>, vector<4xf32>
    %s = vector.transfer_read %sr[%c0], %pad {in_bounds = [true], permutation_map = affine_map<(d0) -> (0)>} : memref<1xf32, strided<[1], offset: ?>>, vector<4xf32>
    %d = arith.subf %v, %s : vector<4xf32>
    vector.transfer_write %d, %so[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<1x4xf32, strided<[1024, 1], offset: ?>>
  } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
  return
}
