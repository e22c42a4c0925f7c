// RUN: kiln-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(kiln-gpu-tile))' %s | FileCheck %s

// 8x300: the innermost loop fits whole (300 of the 1024 elements a
// workgroup takes), the outer one gets 1024/300 = 3 rows, leaving a partial
// last tile. Each workgroup tile is split into one-element thread tiles and
// the exp producer is fused at both levels.

// CHECK-LABEL: func.func private @add_exp(
// CHECK:         scf.forall (%[[I:.+]], %[[J:.+]]) = (0, 0) to (8, 300) step (3, 300)
// CHECK:           scf.forall (%{{.+}}, %{{.+}}) in (%{{.+}}, 300)
// CHECK:             linalg.exp
// CHECK:             linalg.generic
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
