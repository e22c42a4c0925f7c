// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-contraction-kernels --kiln-gpu-reduction-kernels %s | FileCheck %s

// The kernels written whole size tiles, shared buffers and grids from
// static extents: a dispatch with dynamic shapes (issue 19) is left for the
// generic tiling (here: M, N and K all dynamic), while its static twin
// becomes a kernel. The pipelined GEMM kernels take one dynamic loop, the
// outermost m loop (@rows_dynamic, below).

// CHECK-LABEL: func.func private @matmul_dynamic(
// CHECK-NOT:     kiln.workgroup_size
// CHECK:         linalg.matmul
// CHECK:         bufferization.materialize_in_destination
func.func private @matmul_dynamic(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: memref<1xf32>, %arg3: i64, %arg4: i64, %arg5: i64) attributes {kiln.dispatch} {
  %m = arith.index_cast %arg3 : i64 to index
  %k = arith.index_cast %arg4 : i64 to index
  %n = arith.index_cast %arg5 : i64 to index
  %a = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%m, %k], strides: [%k, 1] : memref<1xf32> to memref<?x?xf32>
  %0 = bufferization.to_tensor %a restrict : memref<?x?xf32> to tensor<?x?xf32>
  %b = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%k, %n], strides: [%n, 1] : memref<1xf32> to memref<?x?xf32>
  %1 = bufferization.to_tensor %b restrict : memref<?x?xf32> to tensor<?x?xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%m, %n], strides: [%n, 1] : memref<1xf32> to memref<?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %4 = linalg.matmul ins(%0, %1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%3 : tensor<?x?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @matmul_static(
// CHECK-SAME:    kiln.workgroup_size
// CHECK-NOT:     linalg.matmul
func.func private @matmul_static(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64x64xf32> to tensor<64x64xf32>
  %1 = bufferization.to_tensor %b restrict : memref<64x64xf32> to tensor<64x64xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<64x64xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = linalg.matmul ins(%0, %1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<64x64xf32>, memref<64x64xf32>) -> ()
  return
}

// -----

// A row sum over dynamic rows and columns gets the reduction kernel too: a
// workgroup per row, as many as the output binding has rows this call (the
// grid is computed per call), each walking the columns this call has; the
// threads of a workgroup past the last row store nothing.

// CHECK-LABEL: func.func private @row_sum_dynamic(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows", outputs_per_workgroup = 1 : i64, threads_per_output = 256 : i64}
// CHECK:         %[[COLS:.+]] = tensor.dim %{{.+}}, %c1
// CHECK:         %[[ROWS:.+]] = memref.dim %{{.+}}, %c0
// CHECK:         scf.forall (%{{.+}}) in (%[[ROWS]])
// CHECK:           arith.cmpi ult, %{{.+}}, %[[ROWS]]
// CHECK:           scf.for {{.+}} to %[[COLS]] step %c256
func.func private @row_sum_dynamic(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: i64, %arg3: i64) attributes {kiln.dispatch} {
  %m = arith.index_cast %arg2 : i64 to index
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%m, %n], strides: [%n, 1] : memref<1xf32> to memref<?x?xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x?xf32> to tensor<?x?xf32>
  %out = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%m], strides: [1] : memref<1xf32> to memref<?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %1 = tensor.empty(%m) : tensor<?xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%1 : tensor<?xf32>) -> tensor<?xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<?x?xf32>) outs(%2 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @row_sum_static(
// CHECK-SAME:    kiln.workgroup_size
func.func private @row_sum_static(%x: memref<64x512xf32>, %out: memref<64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<64x512xf32> to tensor<64x512xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %1 = tensor.empty() : tensor<64xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%1 : tensor<64xf32>) -> tensor<64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<64x512xf32>) outs(%2 : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

// Rows known per call only (a batch, a prompt's tokens): the FMA pipeline
// reads M off the output's view (affine, for the grid program), bounds the
// workgroup loop and the rows with it, and records `dynamic_rows`.

// CHECK-LABEL: func.func private @rows_dynamic(
// CHECK-SAME:    dynamic_rows
// CHECK-SAME:    kernel = "fma_contraction"
// CHECK:         %[[OUT:.+]] = memref.reinterpret_cast %arg2
// CHECK:         %[[DIM:.+]] = memref.dim %[[OUT]], %c0
// CHECK:         %[[ROWS:.+]] = affine.apply #{{.+}}()[%[[DIM]]]
// CHECK:         scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) = (0, 0, 0) to (1, %[[ROWS]], 96) step (1, {{[0-9]+}}, {{[0-9]+}})
// CHECK:           arith.cmpi ult, %{{.+}}, %[[ROWS]]
// CHECK-NOT:     linalg.matmul
func.func private @rows_dynamic(%arg0: memref<1xf32>, %arg1: memref<64x96xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %m = arith.index_cast %arg3 : i64 to index
  %a = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%m, 64], strides: [64, 1] : memref<1xf32> to memref<?x64xf32>
  %0 = bufferization.to_tensor %a restrict : memref<?x64xf32> to tensor<?x64xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<64x96xf32> to tensor<64x96xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%m, 96], strides: [96, 1] : memref<1xf32> to memref<?x96xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty(%m) : tensor<?x96xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x96xf32>) -> tensor<?x96xf32>
  %4 = linalg.matmul ins(%0, %1 : tensor<?x64xf32>, tensor<64x96xf32>) outs(%3 : tensor<?x96xf32>) -> tensor<?x96xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x96xf32>, memref<?x96xf32>) -> ()
  return
}

// -----

// A convolution over a batch known per call, its zero padding in its
// dispatch: the bindings are row-major past the batch, so A is still copied
// through flat addresses (split A: the binding collapsed to one dimension)
// and the output stored a run of columns at a time, as for a static batch.

// CHECK-LABEL: func.func private @conv_rows_dynamic(
// CHECK-SAME:    dynamic_rows
// CHECK-SAME:    implicit_gemm = array<i64: -1, 32, 144>
// CHECK-SAME:    kernel = "fma_contraction"
// CHECK:         memref.collapse_shape %{{.+}} {{\[\[}}0, 1, 2, 3]] : memref<?x8x8x16xf32> into memref<?xf32>
// CHECK:         nvgpu.device_async_copy
// CHECK:         vector.store
// CHECK-NOT:     linalg.conv_2d_nhwc_hwcf
func.func private @conv_rows_dynamic(%arg0: memref<1xf32>, %arg1: memref<3x3x16x32xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 8, 8, 16], strides: [1024, 128, 16, 1] : memref<1xf32> to memref<?x8x8x16xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x8x8x16xf32> to tensor<?x8x8x16xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<3x3x16x32xf32> to tensor<3x3x16x32xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%n, 8, 8, 32], strides: [2048, 256, 32, 1] : memref<1xf32> to memref<?x8x8x32xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %p = tensor.pad %0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x8x8x16xf32> to tensor<?x10x10x16xf32>
  %2 = tensor.empty(%n) : tensor<?x8x8x32xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %1 : tensor<?x10x10x16xf32>, tensor<3x3x16x32xf32>) outs(%3 : tensor<?x8x8x32xf32>) -> tensor<?x8x8x32xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x8x8x32xf32>, memref<?x8x8x32xf32>) -> ()
  return
}

// -----

// A variant of a dispatch for calls of at most one image (kiln-row-variants):
// its tiles are chosen for the rows of one image, 32 x 32 sliced along K
// in 32 workgroups, where the dispatch's own kernel (tiles for 32 images)
// takes 64 x 64.

// CHECK-LABEL: func.func private @conv_rows_assumed(
// CHECK-SAME:    k_slices = 4
// CHECK-SAME:    workgroup_tile = array<i64: 32, 32, 32>
// CHECK-LABEL: func.func private @conv_rows_default(
// CHECK-NOT:     k_slices
// CHECK-SAME:    workgroup_tile = array<i64: 64, 64, 16>
func.func private @conv_rows_assumed(%arg0: memref<1xf32>, %arg1: memref<1x1x64x128xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.assumed_outer_rows = 1 : i64, kiln.dispatch} {
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 16, 16, 64], strides: [16384, 1024, 64, 1] : memref<1xf32> to memref<?x16x16x64xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x16x16x64xf32> to tensor<?x16x16x64xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<1x1x64x128xf32> to tensor<1x1x64x128xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%n, 16, 16, 128], strides: [32768, 2048, 128, 1] : memref<1xf32> to memref<?x16x16x128xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty(%n) : tensor<?x16x16x128xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x16x16x128xf32>) -> tensor<?x16x16x128xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<?x16x16x64xf32>, tensor<1x1x64x128xf32>) outs(%3 : tensor<?x16x16x128xf32>) -> tensor<?x16x16x128xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x16x16x128xf32>, memref<?x16x16x128xf32>) -> ()
  return
}

func.func private @conv_rows_default(%arg0: memref<1xf32>, %arg1: memref<1x1x64x128xf32>, %arg2: memref<1xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg3 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 16, 16, 64], strides: [16384, 1024, 64, 1] : memref<1xf32> to memref<?x16x16x64xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x16x16x64xf32> to tensor<?x16x16x64xf32>
  %1 = bufferization.to_tensor %arg1 restrict : memref<1x1x64x128xf32> to tensor<1x1x64x128xf32>
  %c = memref.reinterpret_cast %arg2 to offset: [0], sizes: [%n, 16, 16, 128], strides: [32768, 2048, 128, 1] : memref<1xf32> to memref<?x16x16x128xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty(%n) : tensor<?x16x16x128xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%2 : tensor<?x16x16x128xf32>) -> tensor<?x16x16x128xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<?x16x16x64xf32>, tensor<1x1x64x128xf32>) outs(%3 : tensor<?x16x16x128xf32>) -> tensor<?x16x16x128xf32>
  bufferization.materialize_in_destination %4 in restrict writable %c : (tensor<?x16x16x128xf32>, memref<?x16x16x128xf32>) -> ()
  return
}
