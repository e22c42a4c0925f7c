// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-tile))' %s | FileCheck %s

// 8x300: the innermost loop fits whole (300 of the 1024 elements a
// workgroup takes), the outer one gets 1024/300 = 3 rows, leaving a partial
// last tile. The dispatch is elementwise and 4 floats (16 bytes) divide
// 300, so each workgroup tile is split into 1x4 thread tiles; the exp
// producer is fused at both levels and each thread tile is vectorized.

// CHECK-LABEL: func.func private @add_exp(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", vector_width = 4 : i64
// CHECK:         scf.forall (%[[I:.+]], %[[J:.+]]) = (0, 0) to (8, 300) step (3, 300)
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (%{{.+}}, 300) step (1, 4)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x4xf32>, vector<4xf32>
// CHECK:             math.exp {{.*}} : vector<4xf32>
// CHECK:             vector.transfer_read {{.*}} : tensor<1x4xf32>, vector<4xf32>
// CHECK:             arith.addf {{.*}} : vector<4xf32>
// CHECK:             vector.transfer_write {{.*}} : vector<4xf32>, tensor<1x4xf32>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK:         bufferization.materialize_in_destination
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func private @add_exp(%a: memref<8x300xf32>, %b: memref<8x300xf32>, %out: memref<8x300xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<8x300xf32> to tensor<8x300xf32>
  %1 = bufferization.to_tensor %b restrict : memref<8x300xf32> to tensor<8x300xf32>
  %e = tensor.empty() : tensor<8x300xf32>
  %2 = linalg.exp ins(%0 : tensor<8x300xf32>) outs(%e : tensor<8x300xf32>) -> tensor<8x300xf32>
  %e2 = tensor.empty() : tensor<8x300xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %1 : tensor<8x300xf32>, tensor<8x300xf32>) outs(%e2 : tensor<8x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x300xf32>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<8x300xf32>, memref<8x300xf32>) -> ()
  return
}

// -----

// f16 with a bias along the rows and a scalar per row: 8 halves make 16
// bytes, so workgroups take 256 x 8 elements (the whole 4x64) and threads
// 1x8 tiles; the bias is read as a vector, the per-row scalar broadcast.

// CHECK-LABEL: func.func private @f16_broadcasts(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", vector_width = 8 : i64
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (4, 64) step (4, 64)
// CHECK:           scf.forall ({{.*}}) = (0, 0) to (4, 64) step (1, 8)
// CHECK:             vector.transfer_read {{.*}} : tensor<1x8xf16>, vector<8xf16>
// CHECK:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<8xf16>, vector<8xf16>
// CHECK:             vector.transfer_read {{.*}} permutation_map = #{{.+}}} : tensor<1xf16>, vector<8xf16>
// CHECK:             vector.transfer_write {{.*}} : vector<8xf16>, tensor<1x8xf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @f16_broadcasts(%a: memref<4x64xf16>, %b: memref<64xf16>, %c: memref<4xf16>, %out: memref<4x64xf16>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<4x64xf16> to tensor<4x64xf16>
  %1 = bufferization.to_tensor %b restrict : memref<64xf16> to tensor<64xf16>
  %2 = bufferization.to_tensor %c restrict : memref<4xf16> to tensor<4xf16>
  %e = tensor.empty() : tensor<4x64xf16>
  %3 = linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %1, %2 : tensor<4x64xf16>, tensor<64xf16>, tensor<4xf16>) outs(%e : tensor<4x64xf16>) {
  ^bb0(%x: f16, %y: f16, %z: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %m = arith.mulf %s, %z : f16
    linalg.yield %m : f16
  } -> tensor<4x64xf16>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<4x64xf16>, memref<4x64xf16>) -> ()
  return
}

// -----

// Elementwise dispatches that stay one element per thread: an operand read
// across the innermost loop (a transpose: its vector would be a strided
// gather), and an innermost extent (30) that 4 does not divide.

// CHECK-LABEL: func.func private @transposed(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 8, 8>}
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (8, 8)
// CHECK-NOT:       vector.
func.func private @transposed(%a: memref<8x8xf32>, %out: memref<8x8xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<8x8xf32> to tensor<8x8xf32>
  %e = tensor.empty() : tensor<8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<8x8xf32>, memref<8x8xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @odd_rows(
// CHECK-SAME:    kiln.lowering_config = {kernel = "tiled", workgroup_tile = array<i64: 5, 30>}
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (5, 30)
// CHECK-NOT:       vector.
func.func private @odd_rows(%a: memref<5x30xf32>, %out: memref<5x30xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<5x30xf32> to tensor<5x30xf32>
  %e = tensor.empty() : tensor<5x30xf32>
  %1 = linalg.exp ins(%0 : tensor<5x30xf32>) outs(%e : tensor<5x30xf32>) -> tensor<5x30xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<5x30xf32>, memref<5x30xf32>) -> ()
  return
}

// -----

// A 0-d root has nothing to divide: it is left for one thread.

// CHECK-LABEL: func.func private @scalar(
// CHECK-NOT:     scf.forall
// CHECK:         linalg.generic
func.func private @scalar(%a: memref<f32>, %out: memref<f32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<f32> to tensor<f32>
  %e = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%0 : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<f32>, memref<f32>) -> ()
  return
}

// -----

// A reduction's parallel loops are divided among workgroups and threads;
// each thread runs the reduction loop of its output, and the fill is fused
// into every thread's tile.

// CHECK-LABEL: func.func private @matmul(
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (4, 4) step (4, 4)
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (4, 4)
// CHECK:             linalg.fill {{.*}} -> tensor<1x1xf32>
// CHECK:             linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<1x8xf32>, tensor<8x1xf32>)
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
func.func private @matmul(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %out: memref<4x4xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
  %1 = bufferization.to_tensor %b restrict : memref<8x4xf32> to tensor<8x4xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = linalg.matmul ins(%0, %1 : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<4x4xf32>, memref<4x4xf32>) -> ()
  return
}

// -----

// A pad becomes an elementwise gather (source element inside, padding value
// outside, one unsigned compare per padded dimension), tiled like any
// elementwise op, so no tile needs a temporary.

// CHECK-LABEL: func.func private @pad(
// CHECK:         scf.forall
// CHECK:           scf.forall
// CHECK:             linalg.generic
// CHECK:               linalg.index 0
// CHECK:               %[[S:.+]] = arith.subi %{{.+}}, %c1
// CHECK:               %[[IN:.+]] = arith.cmpi ult, %[[S]], %c4
// CHECK:               scf.if %[[IN]]
// CHECK:                 tensor.extract %{{.+}}[%[[S]]]
// CHECK:               } else {
// CHECK:                 scf.yield %cst
// CHECK-NOT:     tensor.pad
func.func private @pad(%a: memref<4xf32>, %out: memref<6xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<4xf32> to tensor<4xf32>
  %c0 = arith.constant 0.0 : f32
  %1 = tensor.pad %0 low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %c0 : f32
  } : tensor<4xf32> to tensor<6xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<6xf32>, memref<6xf32>) -> ()
  return
}

// -----

// One op with two results (a compare and a select) is the root of both
// stores: both results are tiled and written by the same threads (before,
// a dispatch with several stores ran as one thread).

// CHECK-LABEL: func.func private @two_results(
// CHECK:         %[[WG:.+]]:2 = scf.forall
// CHECK:           %[[T:.+]]:2 = scf.forall
// CHECK:             linalg.generic
// CHECK:             tensor.parallel_insert_slice
// CHECK:             tensor.parallel_insert_slice
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>, #gpu.thread<linear_dim_1>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>, #gpu.block<linear_dim_1>]}
// CHECK:         bufferization.materialize_in_destination %[[WG]]#0
// CHECK:         bufferization.materialize_in_destination %[[WG]]#1
func.func private @two_results(%a: memref<32x16xf32>, %b: memref<32x16xf32>, %o1: memref<32x16xi1>, %o2: memref<32x16xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<32x16xf32> to tensor<32x16xf32>
  %1 = bufferization.to_tensor %b restrict : memref<32x16xf32> to tensor<32x16xf32>
  %e1 = tensor.empty() : tensor<32x16xi1>
  %e = tensor.empty() : tensor<32x16xf32>
  %2:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0, %1 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e1, %e : tensor<32x16xi1>, tensor<32x16xf32>) {
  ^bb0(%x: f32, %y: f32, %p: i1, %q: f32):
    %gt = arith.cmpf ogt, %x, %y : f32
    %sel = arith.select %gt, %x, %y : f32
    linalg.yield %gt, %sel : i1, f32
  } -> (tensor<32x16xi1>, tensor<32x16xf32>)
  bufferization.materialize_in_destination %2#0 in restrict writable %o1 : (tensor<32x16xi1>, memref<32x16xi1>) -> ()
  bufferization.materialize_in_destination %2#1 in restrict writable %o2 : (tensor<32x16xf32>, memref<32x16xf32>) -> ()
  return
}

// -----

// A sum returned and also consumed (by a transposing exp) is fused into
// the exp's tiles, and its tiles are yielded and stored too, so each is
// computed once.

// CHECK-LABEL: func.func private @returned_and_consumed(
// CHECK:         %[[WG:.+]]:2 = scf.forall
// CHECK:           scf.forall
// CHECK:             linalg.add
// CHECK:             linalg.generic
// CHECK:             tensor.parallel_insert_slice
// CHECK:             tensor.parallel_insert_slice
// CHECK-NOT:     linalg.add
// CHECK:         bufferization.materialize_in_destination %[[WG]]#{{[01]}} in restrict writable %arg2
// CHECK:         bufferization.materialize_in_destination %[[WG]]#{{[01]}} in restrict writable %arg3
func.func private @returned_and_consumed(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %sum: memref<64x32xf32>, %out: memref<32x64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64x32xf32> to tensor<64x32xf32>
  %1 = bufferization.to_tensor %b restrict : memref<64x32xf32> to tensor<64x32xf32>
  %e = tensor.empty() : tensor<64x32xf32>
  %2 = linalg.add ins(%0, %1 : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %et = tensor.empty() : tensor<32x64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x32xf32>) outs(%et : tensor<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<32x64xf32>
  bufferization.materialize_in_destination %2 in restrict writable %sum : (tensor<64x32xf32>, memref<64x32xf32>) -> ()
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<32x64xf32>, memref<32x64xf32>) -> ()
  return
}

// -----

// A stored value read twice (two readers would each fuse a copy of it) is
// not tiled: one thread runs the dispatch.

// CHECK-LABEL: func.func private @two_readers(
// CHECK-NOT:     scf.forall
func.func private @two_readers(%a: memref<64xf32>, %sum: memref<64xf32>, %out: memref<64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %a restrict : memref<64xf32> to tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %1 = linalg.exp ins(%0 : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %2 = linalg.mul ins(%1, %1 : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  bufferization.materialize_in_destination %1 in restrict writable %sum : (tensor<64xf32>, memref<64xf32>) -> ()
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

// A 0-d operand broadcast over the vectorized thread tile (ONNX
// DequantizeLinear's per-tensor scale and zero point) is read once as an
// element and broadcast, not as a transfer of a 0-d tensor into a vector,
// which nothing lowers to LLVM.

// CHECK-LABEL: func.func private @scalar_operands(
// CHECK:         scf.forall
// CHECK:           scf.forall
// CHECK-NOT:         vector.transfer_read {{.*}} : tensor<f32>
// CHECK-DAG:         %[[S:.+]] = tensor.extract %{{.+}}[] : tensor<f32>
// CHECK-DAG:         vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK-DAG:         %[[Z:.+]] = tensor.extract %{{.+}}[] : tensor<i8>
// CHECK-DAG:         vector.broadcast %[[Z]] : i8 to vector<4xi8>
// CHECK:             arith.mulf {{.*}} : vector<4xf32>
func.func private @scalar_operands(%x: memref<64xi8>, %s: memref<f32>, %z: memref<i8>, %out: memref<64xf32>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<64xi8> to tensor<64xi8>
  %1 = bufferization.to_tensor %s restrict : memref<f32> to tensor<f32>
  %2 = bufferization.to_tensor %z restrict : memref<i8> to tensor<i8>
  %e = tensor.empty() : tensor<64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0, %1, %2 : tensor<64xi8>, tensor<f32>, tensor<i8>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: i8, %sc: f32, %zp: i8, %o: f32):
    %af = arith.sitofp %a : i8 to f32
    %zf = arith.sitofp %zp : i8 to f32
    %d = arith.subf %af, %zf : f32
    %m = arith.mulf %d, %sc : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
  return
}

// -----

// An argmax over 21 classes of a 64 x 96 map: the running maximum is a
// second result nothing stores. Its shared outputs are dropped from both
// tile loops, so each thread's maximum is a one-element slice of its empty
// tensor, which bufferization makes a one-element temporary (it was a
// temporary of the whole map per thread, which no kernel can allocate);
// only the index leaves the loops.

// CHECK-LABEL: func.func private @argmax_map(
// CHECK:         %[[MAX:.+]] = tensor.empty() : tensor<64x96xf32>
// CHECK:         %[[IDX:.+]] = scf.forall ({{.*}}) = (0, 0) to (64, 96) step (10, 96) shared_outs(%{{[^,]+}}) -> (tensor<64x96xi64>)
// CHECK:           tensor.extract_slice %[[MAX]]
// CHECK:           scf.forall ({{.*}}) in ({{.*}}) shared_outs(%{{[^,]+}}) -> (tensor<?x96xi64>)
// CHECK:             linalg.generic
// CHECK:             } -> (tensor<1x1xf32>, tensor<1x1xi64>)
// CHECK:               tensor.parallel_insert_slice %{{.+}}#1
// CHECK-NEXT:          }
// CHECK:         bufferization.materialize_in_destination %[[IDX]]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func private @argmax_map(%x: memref<21x64x96xf32>, %out: memref<64x96xi64>) attributes {kiln.dispatch} {
  %0 = bufferization.to_tensor %x restrict : memref<21x64x96xf32> to tensor<21x64x96xf32>
  %none = arith.constant -1 : i64
  %zero = arith.constant 0 : i64
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %max = linalg.fill ins(%lowest : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %ei = tensor.empty() : tensor<64x96xi64>
  %idx = linalg.fill ins(%none : i64) outs(%ei : tensor<64x96xi64>) -> tensor<64x96xi64>
  %r:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["reduction", "parallel", "parallel"]} ins(%0 : tensor<21x64x96xf32>) outs(%max, %idx : tensor<64x96xf32>, tensor<64x96xi64>) {
  ^bb0(%in: f32, %m: f32, %i: i64):
    %k = linalg.index 0 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %in, %m : f32
    %first = arith.cmpi slt, %i, %zero : i64
    %take = arith.ori %gt, %first : i1
    %nm = arith.select %take, %in, %m : f32
    %ni = arith.select %take, %ki, %i : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<64x96xf32>, tensor<64x96xi64>)
  bufferization.materialize_in_destination %r#1 in restrict writable %out : (tensor<64x96xi64>, memref<64x96xi64>) -> ()
  return
}
