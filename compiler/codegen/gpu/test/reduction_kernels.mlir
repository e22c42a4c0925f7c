// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-reduction-kernels %s | FileCheck %s

// The target: an H100 (32-lane subgroups, 132 x 2048 resident threads).

// Softmax's row max over 1000 elements (NaN-initialized maxnumf): a whole
// workgroup per row. Each of 256 threads reduces elements tid, tid + 256,
// tid + 512 (a constant trip count) and, for tid < 232, tid + 768; the lanes
// of each warp combine with xor shuffles 16 ... 1; the 8 warps' partials
// meet in shared memory after a barrier, and thread 0 combines them with
// the NaN init and stores.

// CHECK-DAG:   memref.global "private" @row_max_partials : memref<8x1xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @row_max(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows", outputs_per_workgroup = 1 : i64, threads_per_output = 256 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall (%{{.+}}) in (8)
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           %[[S:.+]] = arith.remui %[[TID]], %c256
// CHECK:           %[[NEUTRAL:.+]] = arith.constant 0xFFC00000 : f32
// CHECK:           scf.for %{{.+}} = %c0 to %c3 step %{{.+}} iter_args(%[[ACC:.+]] = %[[NEUTRAL]])
// CHECK:             memref.load %arg0
// CHECK:             arith.maxnumf %{{.+}}, %[[ACC]]
// CHECK:           arith.cmpi ult, %{{.+}}, %c1000
// CHECK:           scf.if
// CHECK:           gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c8_i32, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c4_i32, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK:           scf.if
// CHECK:             memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<8x1xf32, 3>
// CHECK:           gpu.barrier
// CHECK:           %[[FIRST:.+]] = arith.cmpi eq, %[[S]], %c0
// CHECK:           scf.if %[[FIRST]]
// CHECK-COUNT-7:     memref.load %{{.+}} : memref<8x1xf32, 3>
// CHECK:             arith.maxnumf %{{.+}}, %cst :
// CHECK:             memref.store %{{.+}}, %arg1[%{{.+}}] : memref<8xf32>
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT:     linalg.
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @row_max(%x: memref<8x1000xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<8x1000xf32> to tensor<8x1000xf32>
  %cst = arith.constant 0xFFC00000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<8x1000xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maxnumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Short rows (33 elements: 16 threads each, so a warp takes two rows) with
// the square fused into the payload and a sqrt consumer: shuffles 8 ... 1
// only, no shared memory or barrier; 16 rows a workgroup, 48 / 16 = 3
// workgroups; the consumer is applied to the reduced value before the
// store.

// CHECK-LABEL: func.func private @l2_norm(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows", outputs_per_workgroup = 16 : i64, threads_per_output = 16 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall (%{{.+}}) in (3)
// CHECK:           scf.for {{.*}} = %c0 to %c2 step %{{.+}}
// CHECK:             arith.mulf
// CHECK:             arith.addf
// CHECK-NOT:       gpu.shuffle  xor %{{.+}}, %c16_i32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c8_i32, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.if
// CHECK:             arith.addf %{{.+}}, %cst :
// CHECK:             math.sqrt
// CHECK:             memref.store %{{.+}}, %arg1
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0) -> (d0)>
func.func private @l2_norm(%x: memref<48x33xf32>, %out: memref<48xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<48x33xf32> to tensor<48x33xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<48xf32>) -> tensor<48xf32>
  %ss = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<48x33xf32>) outs(%f : tensor<48xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<48xf32>
  %e2 = tensor.empty() : tensor<48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%ss : tensor<48xf32>) outs(%e2 : tensor<48xf32>) {
  ^bb0(%v: f32, %o: f32):
    %q = math.sqrt %v : f32
    linalg.yield %q : f32
  } -> tensor<48xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<48xf32>, memref<48xf32>) -> ()
  return
}

// -----

// A sum over the leading axis (the reduced dimension is outermost in
// memory): 32 consecutive threads take 32 consecutive columns, and the
// workgroup's 8 warps split the 64 rows (8 each, a constant trip count).
// Lanes of a warp hold different columns, so there is no shuffle; the 8
// partials of a column meet in shared memory.

// CHECK-DAG:   memref.global "private" @column_sum_partials : memref<8x32xf32, 3>
// CHECK-LABEL: func.func private @column_sum(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "columns", outputs_per_workgroup = 32 : i64, threads_per_output = 8 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
// CHECK:         scf.forall (%{{.+}}) in (1)
// CHECK:           %[[TID:.+]] = gpu.thread_id x
// CHECK:           arith.remui %[[TID]], %c32
// CHECK:           %[[S:.+]] = arith.divui %[[TID]], %c32
// CHECK:           scf.for {{.*}} = %c0 to %c8 step %{{.+}}
// CHECK-NOT:       gpu.shuffle
// CHECK:           memref.store %{{.+}} : memref<8x32xf32, 3>
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi eq, %[[S]], %c0
// CHECK-COUNT-7:     memref.load %{{.+}} : memref<8x32xf32, 3>
// CHECK:             memref.store %{{.+}}, %arg1
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @column_sum(%x: memref<64x32xf32>, %out: memref<32xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<64x32xf32> to tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.reduce ins(%0 : tensor<64x32xf32>) outs(%f : tensor<32xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<32xf32>, memref<32xf32>) -> ()
  return
}

// -----

// A long column reduction over few outputs (a squeeze-and-excitation's
// pooling: 96 outputs of 4096 elements each): with 32 outputs a workgroup
// it would be 3 workgroups for 132 processors, so a workgroup takes 8
// outputs (12 workgroups), each output 32 threads.

// CHECK-LABEL: func.func private @long_columns(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "columns", outputs_per_workgroup = 8 : i64, threads_per_output = 32 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 256, 1, 1>
func.func private @long_columns(%x: memref<4096x96xf32>, %out: memref<96xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<4096x96xf32> to tensor<4096x96xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<96xf32>) -> tensor<96xf32>
  %r = linalg.reduce ins(%0 : tensor<4096x96xf32>) outs(%f : tensor<96xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<96xf32>, memref<96xf32>) -> ()
  return
}

// -----

// Fewer columns than a warp (15 outputs: 16 a workgroup, the last thread of
// each 16 reading a copy of output 14 and storing nothing), and an
// accumulator read from an argument: a warp holds two shares of each
// column, combined by the shuffle across 16 lanes; 4 warps leave 4
// partials. Integer max.

// CHECK-LABEL: func.func private @column_max_i32(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "columns", outputs_per_workgroup = 16 : i64, threads_per_output = 8 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         %[[OUT:.+]] = arith.addi
// CHECK:         %[[IN:.+]] = arith.cmpi ult, %[[OUT]], %c15
// CHECK:         arith.minui %[[OUT]], %c14
// CHECK:         %[[NEUTRAL:.+]] = arith.constant -2147483648 : i32
// CHECK:         scf.for {{.*}} = %c0 to %c3 step %{{.+}} iter_args(%{{.+}} = %[[NEUTRAL]])
// CHECK:           arith.maxsi
// CHECK:         scf.if
// CHECK:         gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32{{.*}} : i32
// CHECK-NOT:     gpu.shuffle
// CHECK:         memref.store %{{.+}} : memref<4x16xi32, 3>
// CHECK:         gpu.barrier
// CHECK:         arith.andi %{{.+}}, %[[IN]]
// CHECK:         scf.if
// CHECK-COUNT-3:   memref.load %{{.+}} : memref<4x16xi32, 3>
// CHECK:           memref.load %arg1
// CHECK:           arith.maxsi
// CHECK:           memref.store %{{.+}}, %arg2
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func private @column_max_i32(%x: memref<29x15xi32>, %acc: memref<15xi32>, %out: memref<15xi32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<29x15xi32> to tensor<29x15xi32>
  %1 = bufferization.to_tensor %acc restrict : memref<15xi32> to tensor<15xi32>
  %e = tensor.empty() : tensor<15xi32>
  %c = linalg.copy ins(%1 : tensor<15xi32>) outs(%e : tensor<15xi32>) -> tensor<15xi32>
  %r = linalg.generic {indexing_maps = [#in, #col], iterator_types = ["reduction", "parallel"]} ins(%0 : tensor<29x15xi32>) outs(%c : tensor<15xi32>) {
  ^bb0(%in: i32, %a: i32):
    %m = arith.maxsi %in, %a : i32
    linalg.yield %m : i32
  } -> tensor<15xi32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<15xi32>, memref<15xi32>) -> ()
  return
}

// -----

// A logical all over 300-element rows of bytes (i1 in registers, bytes in
// memory): the byte producer is evaluated per element, shuffles carry the
// i1 zero-extended to 32 bits, shared memory holds bytes, and the stored
// value is extended back to a byte.

// CHECK-DAG:   memref.global "private" @all_rows_partials : memref<4x2xi8, 3>
// CHECK-LABEL: func.func private @all_rows(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows", outputs_per_workgroup = 2 : i64, threads_per_output = 128 : i64}
// CHECK:         memref.load %arg0{{.*}} : memref<2x300xi8>
// CHECK:         arith.trunci %{{.+}} : i8 to i1
// CHECK:         arith.andi
// CHECK:         %[[WIDE:.+]] = arith.extui %{{.+}} : i1 to i32
// CHECK:         gpu.shuffle  xor %[[WIDE]], %c16_i32, %c32_i32{{.*}} : i32
// CHECK:         arith.trunci %{{.+}} : i32 to i1
// CHECK:         arith.extui %{{.+}} : i1 to i8
// CHECK:         memref.store %{{.+}} : memref<4x2xi8, 3>
// CHECK:         arith.trunci %{{.+}} : i8 to i1
// CHECK:         arith.extui %{{.+}} : i1 to i8
// CHECK:         memref.store %{{.+}}, %arg1
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0) -> (d0)>
func.func private @all_rows(%x: memref<2x300xi8>, %out: memref<2xi8>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<2x300xi8> to tensor<2x300xi8>
  %e0 = tensor.empty() : tensor<2x300xi1>
  %bits = linalg.generic {indexing_maps = [#in, #in], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<2x300xi8>) outs(%e0 : tensor<2x300xi1>) {
  ^bb0(%v: i8, %o: i1):
    %t = arith.trunci %v : i8 to i1
    linalg.yield %t : i1
  } -> tensor<2x300xi1>
  %true = arith.constant true
  %e = tensor.empty() : tensor<2xi1>
  %f = linalg.fill ins(%true : i1) outs(%e : tensor<2xi1>) -> tensor<2xi1>
  %all = linalg.reduce ins(%bits : tensor<2x300xi1>) outs(%f : tensor<2xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %a = arith.andi %in, %acc : i1
      linalg.yield %a : i1
    }
  %e2 = tensor.empty() : tensor<2xi8>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%all : tensor<2xi1>) outs(%e2 : tensor<2xi8>) {
  ^bb0(%v: i1, %o: i8):
    %w = arith.extui %v : i1 to i8
    linalg.yield %w : i8
  } -> tensor<2xi8>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<2xi8>, memref<2xi8>) -> ()
  return
}

// -----

// An f16 sum: shuffles move the bits zero-extended to 32.

// CHECK-LABEL: func.func private @sum_f16(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows"
// CHECK:         %[[BITS:.+]] = arith.bitcast %{{.+}} : f16 to i16
// CHECK:         %[[WIDE:.+]] = arith.extui %[[BITS]] : i16 to i32
// CHECK:         gpu.shuffle  xor %[[WIDE]], %c16_i32, %c32_i32{{.*}} : i32
// CHECK:         arith.trunci %{{.+}} : i32 to i16
// CHECK:         arith.bitcast %{{.+}} : i16 to f16
func.func private @sum_f16(%x: memref<4x512xf16>, %out: memref<4xf16>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<4x512xf16> to tensor<4x512xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  %r = linalg.reduce ins(%0 : tensor<4x512xf16>) outs(%f : tensor<4xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %s = arith.addf %in, %acc : f16
      linalg.yield %s : f16
    }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<4xf16>, memref<4xf16>) -> ()
  return
}

// -----

// Left for kiln-gpu-tile's thread per output: an argmax (two results), a
// combination without a neutral element (a running average), and rows of
// 4 elements.

// CHECK-LABEL: func.func private @argmax(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.generic
func.func private @argmax(%x: memref<8x100xf32>, %out: memref<8xi32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<8x100xf32> to tensor<8x100xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<8xf32>
  %ei = tensor.empty() : tensor<8xi32>
  %fv = linalg.fill ins(%ninf : f32) outs(%ev : tensor<8xf32>) -> tensor<8xf32>
  %fi = linalg.fill ins(%c0 : i32) outs(%ei : tensor<8xi32>) -> tensor<8xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<8x100xf32>) outs(%fv, %fi : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%in: f32, %best: f32, %at: i32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %gt = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %gt, %in, %best : f32
    %j = arith.select %gt, %ii, %at : i32
    linalg.yield %v, %j : f32, i32
  } -> (tensor<8xf32>, tensor<8xi32>)
  bufferization.materialize_in_destination %r#1 in restrict writable %out : (tensor<8xi32>, memref<8xi32>) -> ()
  return
}

// CHECK-LABEL: func.func private @running_average(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.generic
func.func private @running_average(%x: memref<8x100xf32>, %out: memref<8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<8x100xf32> to tensor<8x100xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<8x100xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    %h = arith.mulf %s, %half : f32
    linalg.yield %h : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @short_rows(
// CHECK-NOT:     kiln.lowering_config
// CHECK:         linalg.reduce
func.func private @short_rows(%x: memref<64x4xf32>, %out: memref<64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<64x4xf32> to tensor<64x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.reduce ins(%0 : tensor<64x4xf32>) outs(%f : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

// A dynamic reduced extent (issue 19), read per call from the binding's
// view: elements s, s + 256, s + 512, s + 768 a step up to the largest
// multiple of 1024 below it, then the rest one by one; outputs stay static
// (a grid of 4). A contraction over a dynamic extent takes this kernel too.

// CHECK-LABEL: func.func private @dynamic_row_sum(
// CHECK-SAME:    kernel = "reduction", layout = "rows", outputs_per_workgroup = 1 : i64, threads_per_output = 256 : i64
// CHECK:         %[[VIEW:.+]] = memref.reinterpret_cast %arg0
// CHECK:         %[[N:.+]] = tensor.dim %{{.+}}, %c1 : tensor<4x?xf32>
// CHECK:         scf.forall (%{{.+}}) in (4)
// CHECK:           %[[STEPS:.+]] = arith.divui %[[N]], %c1024
// CHECK:           %[[FOUR:.+]] = arith.muli %[[STEPS]], %c1024
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[FOUR]] step %c1024
// CHECK-COUNT-4:     memref.load %[[VIEW]]
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[N]] step %c256
// CHECK:             memref.load %[[VIEW]]
// CHECK:           gpu.shuffle  xor
func.func private @dynamic_row_sum(%arg0: memref<1xf32>, %arg1: memref<4xf32>, %arg2: i64) attributes {kiln.dispatch} {
  %0 = arith.index_cast %arg2 : i64 to index
  %view = memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, %0], strides: [%0, 1] : memref<1xf32> to memref<4x?xf32>
  %x = bufferization.to_tensor %view restrict : memref<4x?xf32> to tensor<4x?xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x?xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg1 : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func private @dynamic_k_matmul(
// CHECK-SAME:    kernel = "reduction", layout = "rows"
// CHECK:         arith.mulf
// CHECK:         arith.addf
func.func private @dynamic_k_matmul(%arg0: memref<1xf32>, %arg1: memref<1xf32>, %arg2: memref<2x8xf32>, %arg3: i64) attributes {kiln.dispatch} {
  %k = arith.index_cast %arg3 : i64 to index
  %pv = memref.reinterpret_cast %arg0 to offset: [0], sizes: [2, %k], strides: [%k, 1] : memref<1xf32> to memref<2x?xf32>
  %vv = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%k, 8], strides: [8, 1] : memref<1xf32> to memref<?x8xf32>
  %p = bufferization.to_tensor %pv restrict : memref<2x?xf32> to tensor<2x?xf32>
  %v = bufferization.to_tensor %vv restrict : memref<?x8xf32> to tensor<?x8xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.matmul ins(%p, %v : tensor<2x?xf32>, tensor<?x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  bufferization.materialize_in_destination %r in restrict writable %arg2 : (tensor<2x8xf32>, memref<2x8xf32>) -> ()
  return
}

// -----

// The largest coordinate of a count of boxes known per call (? x 4 to a
// scalar, as torchvision's batched_nms offsets classes apart): both reduced
// loops, linearized over this call's extents, split across a workgroup of
// 256 threads (a loop on one thread took 5.5 ms over a detector's 23,000
// candidates).

// CHECK-LABEL: func.func private @max_dynamic_boxes(
// CHECK-SAME:    kiln.lowering_config = {kernel = "reduction", layout = "rows", outputs_per_workgroup = 1 : i64, threads_per_output = 256 : i64}
// CHECK:         %[[N:.+]] = tensor.dim %{{.+}}, %c0
// CHECK:         %[[ALL:.+]] = arith.muli %[[N]], %c4
// CHECK:         scf.forall (%{{.+}}) in (1)
// CHECK:           scf.for
// CHECK:             affine.delinearize_index %{{.+}} into (%[[N]], 4)
// CHECK:           scf.for %{{.+}} = %{{.+}} to %[[ALL]] step %c256
func.func private @max_dynamic_boxes(%arg0: memref<1xf32>, %arg1: memref<f32>, %arg2: i64) attributes {kiln.dispatch} {
  %n = arith.index_cast %arg2 : i64 to index
  %x = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<1xf32> to memref<?x4xf32>
  %0 = bufferization.to_tensor %x restrict : memref<?x4xf32> to tensor<?x4xf32>
  %low = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%low : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%0 : tensor<?x4xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  bufferization.materialize_in_destination %r in restrict writable %arg1 : (tensor<f32>, memref<f32>) -> ()
  return
}
