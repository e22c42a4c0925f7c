// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-distribute-to-workgroups %s | FileCheck %s

// The workgroup loop is replaced by its body, indexed by the workgroup id
// (x, the first of three appended index arguments); the grid is recorded.

// CHECK-LABEL: func.func private @one_d(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<8xf32>, %[[OUT:[^:]+]]: memref<8xf32>, %[[WGX:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    kiln.workgroup_count = array<i64: 2, 1, 1>
// CHECK-NOT:   scf.forall
// CHECK:       %[[ID:.+]] = affine.delinearize_index %[[WGX]] into (2) : index
// CHECK:       %[[SCALED:.+]] = arith.muli %[[ID]], %[[C4:.+]] : index
// CHECK:       %[[OFF:.+]] = arith.addi %[[SCALED]], %{{.+}} : index
// CHECK:       memref.subview %[[IN]][%[[OFF]]] [4] [1]
// CHECK:       memref.subview %[[OUT]][%[[OFF]]] [4] [1]
// CHECK:       linalg.exp
// CHECK-NOT:   scf.forall
// CHECK:       return
func.func private @one_d(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  scf.forall (%i) = (0) to (8) step (4) {
    %s = memref.subview %a[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.exp ins(%s : memref<4xf32, strided<[1], offset: ?>>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  }
  return
}

// -----

// 2-D: ceil(128/64) x ceil((256-2)/127) = 2 x 2 workgroups, linearized
// row-major into x; each induction variable is id * step + lower bound.

// CHECK-LABEL: func.func private @two_d(
// CHECK-SAME:    %[[WGX:[^:]+]]: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    kiln.workgroup_count = array<i64: 4, 1, 1>
// CHECK-NOT:   scf.forall
// CHECK:       %[[ID:.+]]:2 = affine.delinearize_index %[[WGX]] into (2, 2) : index, index
// CHECK-DAG:   %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:   %[[C127:.+]] = arith.constant 127 : index
// CHECK-DAG:   %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG:   %[[I64:.+]] = arith.muli %[[ID]]#0, %[[C64]] : index
// CHECK-DAG:   %[[I:.+]] = arith.addi %[[I64]], %{{.+}} : index
// CHECK-DAG:   %[[J127:.+]] = arith.muli %[[ID]]#1, %[[C127]] : index
// CHECK-DAG:   %[[J:.+]] = arith.addi %[[J127]], %[[C2]] : index
// CHECK:       memref.subview %{{.+}}[%[[I]], %[[J]]] [64, 127] [1, 1]
// CHECK-NOT:   scf.forall
func.func private @two_d(%a: memref<128x256xf32>, %out: memref<128x256xf32>) attributes {kiln.dispatch} {
  scf.forall (%i, %j) = (0, 2) to (128, 256) step (64, 127) {
    %s = memref.subview %a[%i, %j] [64, 127] [1, 1] : memref<128x256xf32> to memref<64x127xf32, strided<[256, 1], offset: ?>>
    %o = memref.subview %out[%i, %j] [64, 127] [1, 1] : memref<128x256xf32> to memref<64x127xf32, strided<[256, 1], offset: ?>>
    linalg.exp ins(%s : memref<64x127xf32, strided<[256, 1], offset: ?>>) outs(%o : memref<64x127xf32, strided<[256, 1], offset: ?>>)
  }
  return
}

// -----

// Without a workgroup loop the dispatch runs as one workgroup; it still gets
// the three id arguments. Host functions are left alone.

// CHECK-LABEL: func.func private @single(
// CHECK-SAME:    %{{[^:]+}}: memref<8xf32>, %{{[^:]+}}: memref<8xf32>, %{{[^:]+}}: index, %{{[^:]+}}: index, %{{[^:]+}}: index)
// CHECK-SAME:    kiln.workgroup_count = array<i64: 1, 1, 1>
// CHECK-NEXT:  linalg.exp
func.func private @single(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  linalg.exp ins(%a : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

// CHECK-LABEL: func.func @host(
// CHECK-SAME:    %{{[^:]+}}: memref<8xf32>) {
func.func @host(%a: memref<8xf32>) {
  return
}

// -----

// expected-error @+1 {{expected at most one workgroup loop, found 2}}
func.func private @two_loops(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  scf.forall (%i) = (0) to (8) step (4) {
  }
  scf.forall (%i) = (0) to (8) step (4) {
  }
  return
}

// -----

func.func private @tensor_results(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{workgroup loop still has tensor results}}
  %r = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %e) -> (tensor<8xf32>) {
  }
  return
}

// -----

// A dynamic bound must come from a push constant (an i64 argument cast to
// index: distribute_to_workgroups_dynamic.mlir).
func.func private @dynamic_bounds(%a: memref<8xf32>, %n: index) attributes {kiln.dispatch} {
  // expected-error @+1 {{the workgroup loop's trip count is not computable from the push constants}}
  scf.forall (%i) = (0) to (%n) step (4) {
  }
  return
}

// -----

// A write to a binding outside the workgroup loop (here the whole-tensor copy
// of a temporary into the output) would run once per workgroup and overwrite
// the tiles other workgroups wrote. The loop then runs in sequence in one
// workgroup instead.

// CHECK-LABEL: func.func private @writes_binding_outside(
// CHECK-SAME:    kiln.workgroup_count = array<i64: 1, 1, 1>
// CHECK-NOT:   scf.forall
// CHECK-NOT:   affine.delinearize_index
// CHECK:       linalg.copy
// CHECK:       scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:         linalg.exp
// CHECK:       }
// CHECK:       linalg.copy
func.func private @writes_binding_outside(%a: memref<8xf32>, %c: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %tmp = memref.alloca() : memref<8xf32>
  linalg.copy ins(%c : memref<8xf32>) outs(%tmp : memref<8xf32>)
  scf.forall (%i) = (0) to (8) step (4) {
    %s = memref.subview %a[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %tmp[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.exp ins(%s : memref<4xf32, strided<[1], offset: ?>>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  }
  linalg.copy ins(%tmp : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

// -----

// Writes outside the loop to workgroup-private memory are repeated by each
// workgroup but harmless: the loop is still distributed.

// CHECK-LABEL: func.func private @writes_private_outside(
// CHECK-SAME:    kiln.workgroup_count = array<i64: 2, 1, 1>
// CHECK:       affine.delinearize_index
func.func private @writes_private_outside(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloca() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%tmp : memref<4xf32>)
  scf.forall (%i) = (0) to (8) step (4) {
    %s = memref.subview %a[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.add ins(%s, %tmp : memref<4xf32, strided<[1], offset: ?>>, memref<4xf32>) outs(%o : memref<4xf32, strided<[1], offset: ?>>)
  }
  return
}
