// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-distribute-to-workgroups %s | FileCheck %s

// A workgroup loop over a dynamic extent (issue 19): the trip count is
// computed in the body for the delinearization, and the grid is recorded as
// a program over the push constants the extent comes from (op, a, b per
// node; 0 constant, 2 push constant naming the i64 argument, 5 mul, 7
// ceildiv), its x, y, z nodes, and a 1x1x1 placeholder count.

// CHECK-LABEL: func.func private @dynamic(
// CHECK-SAME:    kiln.workgroup_count = array<i64: 1, 1, 1>
// CHECK-SAME:    kiln.workgroup_count_nodes = array<i64: 3, 0, 0>
// CHECK-SAME:    kiln.workgroup_count_program = array<i64: 0, 1, 0, 2, 2, 0, 0, 64, 0, 7, 1, 2>
// CHECK-NOT:   scf.forall
// CHECK:       %[[N:.+]] = arith.index_cast %arg2 : i64 to index
// CHECK:       %[[COUNT:.+]] = affine.apply #{{.+}}()[%[[N]]]
// CHECK:       affine.delinearize_index %arg3 into (%[[COUNT]]) : index
func.func private @dynamic(%a: memref<1xf32>, %out: memref<1xf32>, %n64: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %n64 : i64 to index
  %va = memref.reinterpret_cast %a to offset: [0], sizes: [%n], strides: [1] : memref<1xf32> to memref<?xf32>
  %vo = memref.reinterpret_cast %out to offset: [0], sizes: [%n], strides: [1] : memref<1xf32> to memref<?xf32>
  scf.forall (%i) = (0) to (%n) step (64) {
    %s = memref.subview %va[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %o = memref.subview %vo[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.exp ins(%s : memref<1xf32, strided<[1], offset: ?>>) outs(%o : memref<1xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// The extent read off a binding's view (memref.dim of its reinterpret_cast)
// leads to the same push constant.
// CHECK-LABEL: func.func private @through_dim(
// CHECK-SAME:    kiln.workgroup_count_program = array<i64: 0, 1, 0, 2, 1, 0, 0, 16, 0, 7, 1, 2>
func.func private @through_dim(%a: memref<1xf32>, %n64: i64) attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %n = arith.index_cast %n64 : i64 to index
  %va = memref.reinterpret_cast %a to offset: [0], sizes: [%n], strides: [1] : memref<1xf32> to memref<?xf32>
  %d = memref.dim %va, %c0 : memref<?xf32>
  scf.forall (%i) = (0) to (%d) step (16) {
    %s = memref.subview %va[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.exp ins(%s : memref<1xf32, strided<[1], offset: ?>>) outs(%s : memref<1xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// A trip count the push constants do not give is an error.
func.func private @unknown(%a: memref<?xf32>) attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  // expected-error @+1 {{the workgroup loop's trip count is not computable from the push constants}}
  scf.forall (%i) = (0) to (%d) step (16) {
    %s = memref.subview %a[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.exp ins(%s : memref<1xf32, strided<[1], offset: ?>>) outs(%s : memref<1xf32, strided<[1], offset: ?>>)
  }
  return
}
