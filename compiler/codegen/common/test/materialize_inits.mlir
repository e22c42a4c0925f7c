// RUN: kiln-opt --split-input-file --kiln-materialize-inits %s | FileCheck %s

// An accumulator read from an input binding is copied into a fresh tensor,
// so tiling copies each tile's slice instead of bufferization copying the
// whole accumulator in every workgroup.

// CHECK-LABEL: func.func private @acc_from_input(
// CHECK-SAME:    %[[A:[^:]+]]: memref<2x3x4xf32>, %[[B:[^:]+]]: memref<2x4x1xf32>, %[[C:[^:]+]]: memref<2x3x1xf32>
// CHECK:       %[[ACC:.+]] = bufferization.to_tensor %[[C]]
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<2x3x1xf32>
// CHECK:       %[[COPY:.+]] = linalg.copy ins(%[[ACC]] : tensor<2x3x1xf32>) outs(%[[E]] : tensor<2x3x1xf32>)
// CHECK:       linalg.batch_matmul {{.*}} outs(%[[COPY]] : tensor<2x3x1xf32>)
func.func private @acc_from_input(%a: memref<2x3x4xf32>, %b: memref<2x4x1xf32>, %c: memref<2x3x1xf32>, %out: memref<2x3x1xf32>) attributes {kiln.dispatch} {
  %ta = bufferization.to_tensor %a restrict : memref<2x3x4xf32> to tensor<2x3x4xf32>
  %tb = bufferization.to_tensor %b restrict : memref<2x4x1xf32> to tensor<2x4x1xf32>
  %tc = bufferization.to_tensor %c restrict : memref<2x3x1xf32> to tensor<2x3x1xf32>
  %r = linalg.batch_matmul ins(%ta, %tb : tensor<2x3x4xf32>, tensor<2x4x1xf32>) outs(%tc : tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<2x3x1xf32>, memref<2x3x1xf32>) -> ()
  return
}

// -----

// A constant accumulator is copied too.

// CHECK-LABEL: func.func private @acc_from_constant(
// CHECK:       %[[CST:.+]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK:       %[[COPY:.+]] = linalg.copy ins(%[[CST]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK:       linalg.generic {{.*}} outs(%[[COPY]] : tensor<4xf32>)
func.func private @acc_from_constant(%a: memref<3x4xf32>, %out: memref<4xf32>) attributes {kiln.dispatch} {
  %ta = bufferization.to_tensor %a restrict : memref<3x4xf32> to tensor<3x4xf32>
  %acc = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%ta : tensor<3x4xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// An init the payload never reads becomes an empty tensor: nothing to copy.

// CHECK-LABEL: func.func private @unread_init(
// CHECK-NOT:   linalg.copy
// CHECK:       %[[E:.+]] = tensor.empty() : tensor<8xf32>
// CHECK:       linalg.exp {{.*}} outs(%[[E]] : tensor<8xf32>)
func.func private @unread_init(%a: memref<8xf32>, %c: memref<8xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %ta = bufferization.to_tensor %a restrict : memref<8xf32> to tensor<8xf32>
  %tc = bufferization.to_tensor %c restrict : memref<8xf32> to tensor<8xf32>
  %r = linalg.exp ins(%ta : tensor<8xf32>) outs(%tc : tensor<8xf32>) -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Fresh destinations stay as they are: a fill of an empty tensor, and the
// result of another linalg op.

// CHECK-LABEL: func.func private @fresh(
// CHECK-NOT:   linalg.copy
// CHECK:       %[[FILL:.+]] = linalg.fill
// CHECK:       %[[MM:.+]] = linalg.matmul {{.*}} outs(%[[FILL]] :
// CHECK:       linalg.matmul {{.*}} outs(%[[MM]] :
func.func private @fresh(%a: memref<4x4xf32>, %out: memref<4x4xf32>) attributes {kiln.dispatch} {
  %ta = bufferization.to_tensor %a restrict : memref<4x4xf32> to tensor<4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%ta, %ta : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%ta, %ta : tensor<4x4xf32>, tensor<4x4xf32>) outs(%m : tensor<4x4xf32>) -> tensor<4x4xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

// A dynamic accumulator's fresh tensor takes its sizes from the
// accumulator (issue 19: a convolution over a dynamic batch reading its
// bias from a binding).

// CHECK-LABEL: func.func private @dynamic_acc(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<?x3xf32>, %[[ACC:[^:]+]]: tensor<?x3xf32>
// CHECK:       %[[C0:.+]] = arith.constant 0 : index
// CHECK:       %[[N:.+]] = tensor.dim %[[ACC]], %[[C0]] : tensor<?x3xf32>
// CHECK:       %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK:       %[[COPY:.+]] = linalg.copy ins(%[[ACC]] : tensor<?x3xf32>) outs(%[[E]] : tensor<?x3xf32>)
// CHECK:       linalg.generic {{.*}} outs(%[[COPY]] : tensor<?x3xf32>)
func.func private @dynamic_acc(%a: tensor<?x3xf32>, %acc: tensor<?x3xf32>) -> tensor<?x3xf32> attributes {kiln.dispatch} {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x3xf32>) outs(%acc : tensor<?x3xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
