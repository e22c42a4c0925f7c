// RUN: kiln-opt --split-input-file --kiln-bufferize %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-bufferize %s | FileCheck %s --check-prefix=NOTENSOR
// Nothing of the tensor world survives, and copies are linalg.copy (memref.copy
// of strided views would need a runtime library).
// NOTENSOR-NOT: tensor<
// NOTENSOR-NOT: bufferization.
// NOTENSOR-NOT: memref.copy

// A result is computed straight into its output binding: the empty init is
// eliminated, nothing is allocated.

// CHECK-LABEL: func.func private @into_output(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<2x4xf32>, %[[OUT:[^:]+]]: memref<2x4xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       linalg.exp ins(%[[IN]] : memref<2x4xf32>) outs(%[[OUT]] : memref<2x4xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       return
func.func private @into_output(%a: memref<2x4xf32>, %out: memref<2x4xf32>) attributes {kiln.dispatch} {
  %t = bufferization.to_tensor %a restrict : memref<2x4xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %0 = linalg.exp ins(%t : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// -----

// Two outputs: the second op reads the first result back from its output.

// CHECK-LABEL: func.func private @two_outputs(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<4xf32>, %[[O1:[^:]+]]: memref<4xf32>, %[[O2:[^:]+]]: memref<4xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       linalg.exp ins(%[[IN]] : memref<4xf32>) outs(%[[O1]] : memref<4xf32>)
// CHECK-NEXT:  linalg.negf ins(%[[O1]] : memref<4xf32>) outs(%[[O2]] : memref<4xf32>)
// CHECK-NOT:   memref.alloc
func.func private @two_outputs(%a: memref<4xf32>, %o1: memref<4xf32>, %o2: memref<4xf32>) attributes {kiln.dispatch} {
  %t = bufferization.to_tensor %a restrict : memref<4xf32> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.exp ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %1 = linalg.negf ins(%0 : tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %o1 : (tensor<4xf32>, memref<4xf32>) -> ()
  bufferization.materialize_in_destination %1 in restrict writable %o2 : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// An intermediate that is not a result needs its own buffer.

// CHECK-LABEL: func.func private @intermediate(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<4x4xf32>, %[[OUT:[^:]+]]: memref<4x4xf32>)
// CHECK:       %[[TMP:.+]] = memref.alloc() {{.*}}: memref<4x4xf32>
// CHECK:       linalg.exp ins(%[[IN]] : memref<4x4xf32>) outs(%[[TMP]] : memref<4x4xf32>)
// CHECK:       linalg.transpose ins(%[[TMP]] : memref<4x4xf32>) outs(%[[OUT]] : memref<4x4xf32>) permutation = [1, 0]
func.func private @intermediate(%a: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.dispatch} {
  %t = bufferization.to_tensor %a restrict : memref<4x4xf32> to tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = linalg.exp ins(%t : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.transpose ins(%0 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) permutation = [1, 0]
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

// Input bindings are read-only: updating one in place means copying it
// first, with linalg.copy, including into a strided view.

// CHECK-LABEL: func.func private @update_input(
// CHECK-SAME:    %[[A:[^:]+]]: memref<2x4xf32>, %[[B:[^:]+]]: memref<1x4xf32>, %[[OUT:[^:]+]]: memref<2x4xf32>)
// CHECK:       %[[BUF:.+]] = memref.alloc() {{.*}}: memref<2x4xf32>
// CHECK:       linalg.copy ins(%[[A]] : memref<2x4xf32>) outs(%[[BUF]] : memref<2x4xf32>)
// CHECK:       %[[ROW:.+]] = memref.subview %[[BUF]][1, 0] [1, 4] [1, 1]
// CHECK:       linalg.copy ins(%[[B]] : memref<1x4xf32>) outs(%[[ROW]] : memref<1x4xf32, strided<[4, 1], offset: 4>>)
// CHECK:       linalg.copy ins(%[[BUF]] : memref<2x4xf32>) outs(%[[OUT]] : memref<2x4xf32>)
func.func private @update_input(%a: memref<2x4xf32>, %b: memref<1x4xf32>, %out: memref<2x4xf32>) attributes {kiln.dispatch} {
  %ta = bufferization.to_tensor %a restrict : memref<2x4xf32> to tensor<2x4xf32>
  %tb = bufferization.to_tensor %b restrict : memref<1x4xf32> to tensor<1x4xf32>
  %0 = tensor.insert_slice %tb into %ta[1, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<2x4xf32>
  bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
  return
}

// -----

// A workgroup loop keeps its shape but loses its tensor results: each
// iteration writes its tile straight into a view of the output binding.

// CHECK-LABEL: func.func private @workgroup_loop(
// CHECK-SAME:    %[[IN:[^:]+]]: memref<8xf32>, %[[OUT:[^:]+]]: memref<8xf32>)
// CHECK-NOT:   memref.alloc
// CHECK:       scf.forall (%[[I:.+]]) = (0) to (8) step (4) {
// CHECK-DAG:     %[[SIN:.+]] = memref.subview %[[IN]][%[[I]]] [4] [1]
// CHECK-DAG:     %[[SOUT:.+]] = memref.subview %[[OUT]][%[[I]]] [4] [1]
// CHECK:         linalg.exp ins(%[[SIN]] : {{.*}}) outs(%[[SOUT]] : {{.*}})
// CHECK-NOT:   memref.alloc
func.func private @workgroup_loop(%a: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %t = bufferization.to_tensor %a restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = scf.forall (%i) = (0) to (8) step (4) shared_outs(%o = %e) -> (tensor<8xf32>) {
    %s = tensor.extract_slice %t[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %so = tensor.extract_slice %o[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %y = linalg.exp ins(%s : tensor<4xf32>) outs(%so : tensor<4xf32>) -> tensor<4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    }
  }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// A temporary whose size depends on the loop (a partial tile) but is at most
// 16: allocated statically at the bound and viewed at its size.

// CHECK-LABEL: func.func private @bounded_temporary(
// CHECK:       scf.for %[[I:.+]] =
// CHECK:         %[[N:.+]] = affine.min
// CHECK:         %[[BUF:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x16xf32>
// CHECK:         memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [2, %[[N]]], strides: [%[[N]], 1] : memref<2x16xf32> to memref<2x?xf32>
// CHECK-NOT:   memref.alloc(%
#min = affine_map<(d0) -> (16, -d0 + 37)>
func.func private @bounded_temporary(%a: memref<2x37xf32>, %out: memref<2x37xf32>) attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c37 = arith.constant 37 : index
  %t = bufferization.to_tensor %a restrict : memref<2x37xf32> to tensor<2x37xf32>
  %init = tensor.empty() : tensor<2x37xf32>
  %r = scf.for %i = %c0 to %c37 step %c16 iter_args(%acc = %init) -> (tensor<2x37xf32>) {
    %n = affine.min #min(%i)
    %in = tensor.extract_slice %t[0, %i] [2, %n] [1, 1] : tensor<2x37xf32> to tensor<2x?xf32>
    %tmp = tensor.empty(%n) : tensor<2x?xf32>
    %e = linalg.exp ins(%in : tensor<2x?xf32>) outs(%tmp : tensor<2x?xf32>) -> tensor<2x?xf32>
    %l = linalg.log ins(%e : tensor<2x?xf32>) outs(%tmp : tensor<2x?xf32>) -> tensor<2x?xf32>
    %s = linalg.add ins(%e, %l : tensor<2x?xf32>, tensor<2x?xf32>) outs(%tmp : tensor<2x?xf32>) -> tensor<2x?xf32>
    %ins = tensor.insert_slice %s into %acc[0, %i] [2, %n] [1, 1] : tensor<2x?xf32> into tensor<2x37xf32>
    scf.yield %ins : tensor<2x37xf32>
  }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<2x37xf32>, memref<2x37xf32>) -> ()
  return
}
