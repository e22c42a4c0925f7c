// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-bind-dispatch %s | FileCheck %s

// Dynamic shapes (issue 19): a binding of dynamic shape is a pointer
// (memref<1xT>, which lowers to a bare pointer) viewed at its extents; the
// `index` operands the host computes and then every binding's dynamic
// extents, in binding and dimension order, are i64 push constant arguments
// cast to index.

// CHECK-LABEL: func.func private @add(
// CHECK-SAME:    %[[A:[^:]+]]: memref<1xf32>, %[[B:[^:]+]]: memref<1xf32>, %[[OUT:[^:]+]]: memref<1xf32>,
// CHECK-SAME:    %[[N:[^:]+]]: i64, %[[AN:[^:]+]]: i64, %[[BN:[^:]+]]: i64, %[[ON:[^:]+]]: i64)
// CHECK-DAG:   %[[AI:.+]] = arith.index_cast %[[AN]] : i64 to index
// CHECK-DAG:   %[[BI:.+]] = arith.index_cast %[[BN]] : i64 to index
// CHECK-DAG:   %[[OI:.+]] = arith.index_cast %[[ON]] : i64 to index
// CHECK:       %[[AV:.+]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[AI]]], strides: [1] : memref<1xf32> to memref<?xf32>
// CHECK:       bufferization.to_tensor %[[AV]] restrict : memref<?xf32> to tensor<?xf32>
// CHECK:       memref.reinterpret_cast %[[B]] to offset: [0], sizes: [%[[BI]]], strides: [1]
// CHECK:       %[[OV:.+]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [%[[OI]]], strides: [1]
// CHECK:       %[[NI:.+]] = arith.index_cast %[[N]] : i64 to index
// CHECK:       tensor.empty(%[[NI]]) : tensor<?xf32>
// CHECK:       bufferization.materialize_in_destination %{{.+}} in restrict writable %[[OV]] : (tensor<?xf32>, memref<?xf32>) -> ()
func.func private @add(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: index) -> tensor<?xf32> attributes {kiln.dispatch} {
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.add ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Strides are the row-major suffix products of the extents: a static inner
// dimension gives a static stride, a dynamic one a product.
// CHECK-LABEL: func.func private @rows(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1xf32>, %[[OUT:[^:]+]]: memref<1xf32>, %[[M:[^:]+]]: i64, %[[OM:[^:]+]]: i64)
// CHECK:       %[[MI:.+]] = arith.index_cast %[[M]] : i64 to index
// CHECK:       memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[MI]], 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
func.func private @rows(%x: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%m) : tensor<?x4xf32>
  %0 = linalg.exp ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func private @matrix(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1xf32>, %{{[^:]+}}: memref<1xf32>, %[[M:[^:]+]]: i64, %[[N:[^:]+]]: i64, %{{[^:]+}}: i64, %{{[^:]+}}: i64)
// CHECK-DAG:   %[[MI:.+]] = arith.index_cast %[[M]] : i64 to index
// CHECK-DAG:   %[[NI:.+]] = arith.index_cast %[[N]] : i64 to index
// CHECK:       memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[MI]], %[[NI]]], strides: [%[[NI]], 1] : memref<1xf32> to memref<?x?xf32>
func.func private @matrix(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %0 = linalg.exp ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Booleans of dynamic shape are bytes too: viewed at their extents as i8,
// truncated after the load and zero-extended before the store, the
// conversions sized by the tensor's own extents.
// CHECK-LABEL: func.func private @booleans(
// CHECK-SAME:    %[[X:[^:]+]]: memref<1xi8>, %[[OUT:[^:]+]]: memref<1xi8>, %[[N:[^:]+]]: i64, %[[M:[^:]+]]: i64)
// CHECK:       %[[VIEW:.+]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%{{.+}}], strides: [1] : memref<1xi8> to memref<?xi8>
// CHECK:       %[[T8:.+]] = bufferization.to_tensor %[[VIEW]] restrict : memref<?xi8> to tensor<?xi8>
// CHECK:       %[[D:.+]] = tensor.dim %[[T8]], %{{.+}} : tensor<?xi8>
// CHECK:       tensor.empty(%[[D]]) : tensor<?xi1>
// CHECK:       arith.trunci %{{.+}} : i8 to i1
// CHECK:       arith.extui %{{.+}} : i1 to i8
// CHECK:       bufferization.materialize_in_destination %{{.+}} in restrict writable %{{.+}} : (tensor<?xi8>, memref<?xi8>) -> ()
func.func private @booleans(%x: tensor<?xi1>) -> tensor<?xi1> attributes {kiln.dispatch} {
  return %x : tensor<?xi1>
}

// -----

// A boolean input of dynamic shape read by a generic takes its bytes,
// truncated in the body: no separate conversion over a per-call extent.
// CHECK-LABEL: func.func private @bool_operand(
// CHECK:       %[[T8:.+]] = bufferization.to_tensor %{{.+}} restrict : memref<?xi8> to tensor<?xi8>
// CHECK-NOT:   tensor<?xi1>
// CHECK:       linalg.generic {{.*}} ins(%[[T8]], %{{.+}} : tensor<?xi8>, tensor<?xf32>)
// CHECK-NEXT:  ^bb0(%[[B:.+]]: i8, %[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:    %[[T:.+]] = arith.trunci %[[B]] : i8 to i1
// CHECK-NEXT:    arith.select %[[T]], %[[V]], %{{.+}} : f32
func.func private @bool_operand(%m: tensor<?xi1>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%m, %x : tensor<?xi1>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%b: i1, %v: f32, %o: f32):
    %s = arith.select %b, %v, %zero : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
