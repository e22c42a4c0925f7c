// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-tile))' %s | FileCheck %s

// A matmul over three dynamic extents (issue 19), its bindings viewed at
// extents from push constants: a dynamic extent is taken as a long one, so
// the columns fill the 256 outputs a workgroup takes (one a thread: each
// loops over a reduction) and the rows get 1, the last column tile partial
// (its size an affine.min); threads reduce along the whole dynamic K, the
// loop unrolled by 8 later (`unroll_reductions`). Not
// vectorized: the thread tile's extents are not known to divide.

// CHECK-LABEL: func.func private @matmul(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", unroll_reductions = 8 : i64, workgroup_tile = array<i64: 1, 256>}
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (%{{.+}}, %{{.+}}) step (1, 256)
// CHECK:           affine.min
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (1, %{{.+}})
// CHECK:             linalg.fill {{.*}} -> tensor<1x1xf32>
// CHECK:             linalg.matmul {{.*}} -> tensor<1x1xf32>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK-NOT:     vector.
func.func private @matmul(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: memref<1xf32>, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: i64, %arg8: i64, %arg9: i64, %arg10: i64) attributes {kiln.dispatch} {
  %0 = arith.index_cast %arg5 : i64 to index
  %1 = arith.index_cast %arg6 : i64 to index
  %2 = arith.index_cast %arg7 : i64 to index
  %3 = arith.index_cast %arg8 : i64 to index
  %4 = arith.index_cast %arg9 : i64 to index
  %5 = arith.index_cast %arg10 : i64 to index
  %a = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, %1], strides: [%1, 1] : memref<1xf32> to memref<?x?xf32>
  %6 = bufferization.to_tensor %a restrict : memref<?x?xf32> to tensor<?x?xf32>
  %b = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%2, %3], strides: [%3, 1] : memref<1xf32> to memref<?x?xf32>
  %7 = bufferization.to_tensor %b restrict : memref<?x?xf32> to tensor<?x?xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%4, %5], strides: [%5, 1] : memref<1xf32> to memref<?x?xf32>
  %m = arith.index_cast %arg3 : i64 to index
  %n = arith.index_cast %arg4 : i64 to index
  %zero = arith.constant 0.000000e+00 : f32
  %8 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %9 = linalg.fill ins(%zero : f32) outs(%8 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %10 = linalg.matmul ins(%6, %7 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%9 : tensor<?x?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %10 in restrict writable %c : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// -----

// A pad over a dynamic batch (the batch copied, the image padded) becomes
// a gather over the result, its empty sized by the pad's own extents; the
// batch needs no bounds check, the padded dimensions one each.

// CHECK-LABEL: func.func private @pad_batch(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 3, 3, 10, 10>}
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0, 0) to (%{{.+}}, 3, 10, 10) step (3, 3, 10, 10)
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK:               arith.cmpi ult
// CHECK:               scf.if
// CHECK:                 tensor.extract
// CHECK-NOT:     tensor.pad
func.func private @pad_batch(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: i64, %arg3: i64) attributes {kiln.dispatch} {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = arith.index_cast %arg2 : i64 to index
  %1 = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0, 3, 9, 9], strides: [243, 81, 9, 1] : memref<1xf32> to memref<?x3x9x9xf32>
  %2 = bufferization.to_tensor %x restrict : memref<?x3x9x9xf32> to tensor<?x3x9x9xf32>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%1, 3, 10, 10], strides: [300, 100, 10, 1] : memref<1xf32> to memref<?x3x10x10xf32>
  %p = tensor.pad %2 low[0, 0, 1, 1] high[0, 0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x9x9xf32> to tensor<?x3x10x10xf32>
  bufferization.materialize_in_destination %p in restrict writable %out : (tensor<?x3x10x10xf32>, memref<?x3x10x10xf32>) -> ()
  return
}

// -----

// A strided slice with dynamic rows, taken whole: row i of the result is
// row i of the source.

// CHECK-LABEL: func.func private @slice_rows(
// CHECK-SAME:    workgroup_tile = array<i64: 341, 3>
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.+}}, 3) step (341, 3)
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK:               linalg.index 1
// CHECK:               %[[COL:.+]] = arith.muli %{{.+}}, %c2
// CHECK:               %[[COL1:.+]] = arith.addi %[[COL]], %c1
// CHECK:               tensor.extract %{{.+}}[%{{.+}}, %[[COL1]]] : tensor<?x6xf32>
// CHECK-NOT:     tensor.extract_slice %{{.*}} : tensor<?x6xf32>
func.func private @slice_rows(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg2 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 6], strides: [6, 1] : memref<1xf32> to memref<?x6xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x6xf32> to tensor<?x6xf32>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%n, 3], strides: [3, 1] : memref<1xf32> to memref<?x3xf32>
  %s = tensor.extract_slice %0[0, 1] [%n, 3] [1, 2] : tensor<?x6xf32> to tensor<?x3xf32>
  bufferization.materialize_in_destination %s in restrict writable %out : (tensor<?x3xf32>, memref<?x3xf32>) -> ()
  return
}

// -----

// A concat along a static dimension of operands with dynamic rows: each
// element loads from the operand holding its column.

// CHECK-LABEL: func.func private @concat_rows(
// CHECK-SAME:    workgroup_tile = array<i64: 204, 5>
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (%{{.+}}, 5) step (204, 5)
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK:               arith.cmpi ult, %{{.+}}, %c3
// CHECK:               scf.if
// CHECK:                 tensor.extract %{{.+}} : tensor<?x3xf32>
// CHECK:                 tensor.extract %{{.+}} : tensor<?x2xf32>
// CHECK-NOT:     tensor.concat
func.func private @concat_rows(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 3], strides: [3, 1] : memref<1xf32> to memref<?x3xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x3xf32> to tensor<?x3xf32>
  %y = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%n, 2], strides: [2, 1] : memref<1xf32> to memref<?x2xf32>
  %1 = bufferization.to_tensor %y restrict : memref<?x2xf32> to tensor<?x2xf32>
  %out = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%n, 5], strides: [5, 1] : memref<1xf32> to memref<?x5xf32>
  %c = tensor.concat dim(1) %0, %1 : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
  bufferization.materialize_in_destination %c in restrict writable %out : (tensor<?x5xf32>, memref<?x5xf32>) -> ()
  return
}

// -----

// Padding a dynamic dimension needs its extent in the gather's bounds
// check, which is not written yet: an error at the pad.
func.func private @pad_dynamic_dim(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: i64, %arg3: i64) attributes {kiln.dispatch} {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = arith.index_cast %arg2 : i64 to index
  %1 = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%0], strides: [1] : memref<1xf32> to memref<?xf32>
  %2 = bufferization.to_tensor %x restrict : memref<?xf32> to tensor<?xf32>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%1], strides: [1] : memref<1xf32> to memref<?xf32>
  // expected-error @+1 {{GPU kernels need static offsets, sizes and strides here, and static shapes along the dimensions padded, joined or sliced}}
  %p = tensor.pad %2 low[1] high[0] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<?xf32> to tensor<?xf32>
  bufferization.materialize_in_destination %p in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

// A slice at offsets known per call (a decoder's causal-bias rows): each
// element reads the source at its index plus the offset, clamped to the
// source's last row so no read leaves it.

// CHECK-LABEL: func.func private @rows_at(
// CHECK:         %[[LAST:.+]] = arith.subi %c64, %c1
// CHECK:         linalg.generic
// CHECK:           %[[AT:.+]] = arith.addi %{{.+}}, %[[OFF:.+]] : index
// CHECK:           arith.minui %[[AT]], %[[LAST]]
// CHECK:           tensor.extract %{{.+}} : tensor<64x64xf32>
// CHECK-NOT:     tensor.extract_slice
func.func private @rows_at(%arg0: memref<64x64xf32>, %arg1: memref<1xf32>, %arg2: i64, %arg3: i64, %arg4: i64) attributes {kiln.dispatch} {
  %off = arith.index_cast %arg2 : i64 to index
  %n = arith.index_cast %arg3 : i64 to index
  %m = arith.index_cast %arg4 : i64 to index
  %0 = bufferization.to_tensor %arg0 restrict : memref<64x64xf32> to tensor<64x64xf32>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<1xf32> to memref<?x?xf32>
  %s = tensor.extract_slice %0[%off, 0] [%n, %m] [1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
  bufferization.materialize_in_destination %s in restrict writable %out : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// -----

// A dispatch that only stores an input reshaped (a phase passing on a
// detector's flags, collapsed): stored through an elementwise copy, tiled
// as any elementwise dispatch, instead of a loop on one thread.

// CHECK-LABEL: func.func private @copy_through(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 1, 1024>}
// CHECK:         scf.forall
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK-SAME:          iterator_types = ["parallel", "parallel"]
// CHECK:         bufferization.materialize_in_destination
func.func private @copy_through(%arg0: memref<1xi8>, %arg1: memref<1xi8>, %arg2: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg2 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [1, 1, %n], strides: [%n, %n, 1] : memref<1xi8> to memref<1x1x?xi8>
  %0 = bufferization.to_tensor %x restrict : memref<1x1x?xi8> to tensor<1x1x?xi8>
  %1 = tensor.collapse_shape %0 [[0, 1], [2]] : tensor<1x1x?xi8> into tensor<1x?xi8>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [1, %n], strides: [%n, 1] : memref<1xi8> to memref<1x?xi8>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<1x?xi8>, memref<1x?xi8>) -> ()
  return
}
