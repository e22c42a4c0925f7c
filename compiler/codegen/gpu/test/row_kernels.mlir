// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-row-kernels %s | FileCheck %s

// The target: an H100 (32-lane subgroups).

// LayerNorm over rows of 384 (x f16, math in f32), 197 rows: 256 threads a
// row (2 elements each, rounded up to a power of two), a row a workgroup
// (two would leave 33 of the 132 processors idle), 197 workgroups. Each
// sum: a loop of 1 and the element the first 128 threads have left,
// shuffles 16 ... 1, one partial per warp to a shared buffer of its own, a
// barrier, and every thread adds the 8 partials. Then each thread stores
// its elements of the row (the second only for the first 128), computed
// again from the input; nothing else is stored.

// CHECK-DAG:   memref.global "private" @layernorm_row_partials_0 : memref<8x1xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @layernorm_row_partials_1 : memref<8x1xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @layernorm(
// CHECK-SAME:    kiln.lowering_config = {kernel = "row", reductions = 2 : i64, rows_per_workgroup = 1 : i64, threads_per_row = 256 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall (%[[B:.+]]) in (197)
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           arith.remui %[[TID]], %c256
// CHECK-NOT:       arith.minui
// CHECK:           %[[R1:.+]] = arith.remui %{{.+}}, %c197
// CHECK:           scf.for %{{.+}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}} step %{{.+}} iter_args
// CHECK:             memref.load %arg0[%{{.+}}, %[[R1]], %{{.+}}] : memref<1x197x384xf16>
// CHECK:             arith.extf
// CHECK:             arith.addf
// CHECK:           scf.if
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           memref.store %{{.+}} : memref<8x1xf32, 3>
// CHECK:           gpu.barrier
// CHECK-COUNT-8:   memref.load %{{.+}} : memref<8x1xf32, 3>
// CHECK:           scf.for %{{.+}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}} step %{{.+}} iter_args
// CHECK:             arith.subf
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           gpu.barrier
// CHECK-COUNT-8:   memref.load %{{.+}} : memref<8x1xf32, 3>
// CHECK:           scf.for %{{.+}} = %c0{{[_0-9]*}} to %c2{{[_0-9]*}}
// CHECK:             scf.if
// CHECK:               math.rsqrt
// CHECK:               arith.truncf
// CHECK:               memref.store %{{.+}}, %arg2[%{{.+}}, %[[R1]], %{{.+}}] : memref<1x197x384xf16>
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT:     linalg.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func private @layernorm(%xb: memref<1x197x384xf16>, %gb: memref<384xf16>, %yb: memref<1x197x384xf16>) attributes {kiln.dispatch} {
  %x = bufferization.to_tensor %xb restrict : memref<1x197x384xf16> to tensor<1x197x384xf16>
  %g = bufferization.to_tensor %gb restrict : memref<384xf16> to tensor<384xf16>
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 384.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e32 = tensor.empty() : tensor<1x197x384xf32>
  %xf = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<1x197x384xf16>) outs(%e32 : tensor<1x197x384xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  } -> tensor<1x197x384xf32>
  %er = tensor.empty() : tensor<1x197x1xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<1x197x1xf32>) -> tensor<1x197x1xf32>
  %xv = tensor.expand_shape %xf [[0], [1, 2], [3]] output_shape [1, 197, 1, 384] : tensor<1x197x384xf32> into tensor<1x197x1x384xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%xv : tensor<1x197x1x384xf32>) outs(%fr : tensor<1x197x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<1x197x1xf32>
  %d = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xf, %sum : tensor<1x197x384xf32>, tensor<1x197x1xf32>) outs(%e32 : tensor<1x197x384xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<1x197x384xf32>
  %dv = tensor.expand_shape %d [[0], [1, 2], [3]] output_shape [1, 197, 1, 384] : tensor<1x197x384xf32> into tensor<1x197x1x384xf32>
  %sq = linalg.generic {indexing_maps = [#id4, #out4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%dv : tensor<1x197x1x384xf32>) outs(%fr : tensor<1x197x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %out : f32
    linalg.yield %1 : f32
  } -> tensor<1x197x1xf32>
  %e16 = tensor.empty() : tensor<1x197x384xf16>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%d, %sq, %g : tensor<1x197x384xf32>, tensor<1x197x1xf32>, tensor<384xf16>) outs(%e16 : tensor<1x197x384xf16>) {
  ^bb0(%in: f32, %v: f32, %w: f16, %out: f16):
    %0 = arith.divf %v, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    %4 = arith.extf %w : f16 to f32
    %5 = arith.mulf %3, %4 : f32
    %6 = arith.truncf %5 : f32 to f16
    linalg.yield %6 : f16
  } -> tensor<1x197x384xf16>
  bufferization.materialize_in_destination %y in restrict writable %yb : (tensor<1x197x384xf16>, memref<1x197x384xf16>) -> ()
  return
}

// -----

// Softmax over 2001 rows of 19 in f16: a warp a row, 8 rows a workgroup
// (251 workgroups, enough for the 132 processors), no shared memory or
// barrier; f16 partials travel through 32-bit shuffles. Elements past 19,
// and the rows past the last that the last workgroup's warps copy, are
// stored by no one.

// CHECK-LABEL: func.func private @softmax(
// CHECK-SAME:    kiln.lowering_config = {kernel = "row", reductions = 2 : i64, rows_per_workgroup = 8 : i64, threads_per_row = 32 : i64}
// CHECK-NOT:     memref.global
// CHECK-NOT:     gpu.barrier
// CHECK:         scf.forall (%{{.+}}) in (251)
// CHECK:           arith.minui %{{.+}}, %c2000
// CHECK:           arith.cmpi ult, %{{.+}}, %c19
// CHECK:           arith.maxnumf
// CHECK:           gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32{{.*}} : i32
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:           scf.for %{{.+}} = %c0{{[_0-9]*}} to %c1{{[_0-9]*}}
// CHECK:             arith.andi
// CHECK:             scf.if
// CHECK:               arith.divf
// CHECK:               memref.store %{{.+}}, %arg1
#sid = affine_map<(d0, d1) -> (d0, d1)>
#srow = affine_map<(d0, d1) -> (d0)>
func.func private @softmax(%xb: memref<2001x19xf16>, %yb: memref<2001x19xf16>) attributes {kiln.dispatch} {
  %h = bufferization.to_tensor %xb restrict : memref<2001x19xf16> to tensor<2001x19xf16>
  %zh = arith.constant 0.0 : f16
  %ninf = arith.constant 0xFC00 : f16
  %e16 = tensor.empty() : tensor<2001x19xf16>
  %er = tensor.empty() : tensor<2001xf16>
  %fm = linalg.fill ins(%ninf : f16) outs(%er : tensor<2001xf16>) -> tensor<2001xf16>
  %m = linalg.generic {indexing_maps = [#sid, #srow], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<2001x19xf16>) outs(%fm : tensor<2001xf16>) {
  ^bb0(%in: f16, %out: f16):
    %0 = arith.maxnumf %in, %out : f16
    linalg.yield %0 : f16
  } -> tensor<2001xf16>
  %fs = linalg.fill ins(%zh : f16) outs(%er : tensor<2001xf16>) -> tensor<2001xf16>
  %sum = linalg.generic {indexing_maps = [#sid, #srow, #srow], iterator_types = ["parallel", "reduction"]} ins(%h, %m : tensor<2001x19xf16>, tensor<2001xf16>) outs(%fs : tensor<2001xf16>) {
  ^bb0(%in: f16, %mx: f16, %out: f16):
    %0 = arith.subf %in, %mx : f16
    %1 = math.exp %0 : f16
    %2 = arith.addf %1, %out : f16
    linalg.yield %2 : f16
  } -> tensor<2001xf16>
  %y = linalg.generic {indexing_maps = [#sid, #srow, #srow, #sid], iterator_types = ["parallel", "parallel"]} ins(%h, %m, %sum : tensor<2001x19xf16>, tensor<2001xf16>, tensor<2001xf16>) outs(%e16 : tensor<2001x19xf16>) {
  ^bb0(%in: f16, %mx: f16, %sm: f16, %out: f16):
    %0 = arith.subf %in, %mx : f16
    %1 = math.exp %0 : f16
    %2 = arith.divf %1, %sm : f16
    linalg.yield %2 : f16
  } -> tensor<2001x19xf16>
  bufferization.materialize_in_destination %y in restrict writable %yb : (tensor<2001x19xf16>, memref<2001x19xf16>) -> ()
  return
}

// -----

// A LayerNorm of x = bias + the 4 partial sums of a split-K GEMM + the
// residual r (form-dispatches' inline reduction), x stored beside the
// result: wherever the program reads an element of x it adds the bias and
// the 4 partials in order, then r; the sink's loop stores x's element and
// then the result's.

// CHECK-LABEL: func.func private @split_sum_layernorm(
// CHECK-SAME:    kiln.lowering_config = {kernel = "row", reductions = 2 : i64
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             %[[BIAS:.+]] = memref.load %arg2[%{{.+}}] : memref<64xf32>
// CHECK:             %[[P0:.+]] = memref.load %arg0[%c0{{[_0-9]*}}, %{{.+}}, %{{.+}}] : memref<4x8x64xf32>
// CHECK:             %[[S0:.+]] = arith.addf %[[P0]], %[[BIAS]]
// CHECK:             %[[P1:.+]] = memref.load %arg0[%c1{{[_0-9]*}}, %{{.+}}, %{{.+}}] : memref<4x8x64xf32>
// CHECK:             %[[S1:.+]] = arith.addf %[[P1]], %[[S0]]
// CHECK:             memref.load %arg0[%c2{{[_0-9]*}}, %{{.+}}, %{{.+}}] : memref<4x8x64xf32>
// CHECK:             %[[P3:.+]] = memref.load %arg0[%c3{{[_0-9]*}}, %{{.+}}, %{{.+}}] : memref<4x8x64xf32>
// CHECK:             %[[S3:.+]] = arith.addf %[[P3]], %{{.+}}
// CHECK:             %[[R:.+]] = memref.load %arg1[%{{.+}}, %{{.+}}] : memref<8x64xf32>
// CHECK:             arith.addf %[[S3]], %[[R]]
// CHECK:           gpu.shuffle  xor
// CHECK:           scf.for
// CHECK:             math.rsqrt
// CHECK:             memref.store %{{.+}}, %arg4[%[[I:.+]], %[[J:.+]]] : memref<8x64xf32>
// CHECK:             memref.store %{{.+}}, %arg3[%[[I]], %[[J]]] : memref<8x64xf32>
// CHECK-NOT:     linalg.
#p3 = affine_map<(s, i, j) -> (s, i, j)>
#o3 = affine_map<(s, i, j) -> (i, j)>
#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#row2 = affine_map<(i, j) -> (i)>
func.func private @split_sum_layernorm(%pb: memref<4x8x64xf32>, %rb: memref<8x64xf32>, %bb: memref<64xf32>, %yb: memref<8x64xf32>, %xb: memref<8x64xf32>) attributes {kiln.dispatch} {
  %p = bufferization.to_tensor %pb restrict : memref<4x8x64xf32> to tensor<4x8x64xf32>
  %r = bufferization.to_tensor %rb restrict : memref<8x64xf32> to tensor<8x64xf32>
  %bias = bufferization.to_tensor %bb restrict : memref<64xf32> to tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %init = linalg.generic {indexing_maps = [#col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%b: f32, %o: f32):
    linalg.yield %b : f32
  } -> tensor<8x64xf32>
  %sum = linalg.generic {indexing_maps = [#p3, #o3], iterator_types = ["reduction", "parallel", "parallel"]} ins(%p : tensor<4x8x64xf32>) outs(%init : tensor<8x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  %x = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %r : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  %er = tensor.empty() : tensor<8xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<8xf32>) -> tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %mean : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %0 = arith.divf %s, %n : f32
    %1 = arith.subf %in, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x64xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<8x64xf32>) outs(%fr : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %0, %acc : f32
    linalg.yield %1 : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%d, %sq : tensor<8x64xf32>, tensor<8xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %v: f32, %o: f32):
    %0 = arith.divf %v, %n : f32
    %1 = arith.addf %0, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %in, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x64xf32>
  bufferization.materialize_in_destination %y in restrict writable %yb : (tensor<8x64xf32>, memref<8x64xf32>) -> ()
  bufferization.materialize_in_destination %x in restrict writable %xb : (tensor<8x64xf32>, memref<8x64xf32>) -> ()
  return
}
