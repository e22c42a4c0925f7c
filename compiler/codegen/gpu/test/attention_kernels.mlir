// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 --kiln-gpu-attention-kernels %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=t4 --kiln-gpu-attention-kernels %s | FileCheck %s --check-prefix=T4
// RUN: kiln-opt --split-input-file --kiln-gpu-set-target=chip=h100 "--kiln-gpu-attention-kernels=allow-tf32" %s | FileCheck %s --check-prefix=TF32

// A decoder's attention dispatch (4 heads of 128 tokens and 64 dims, an
// additive mask read from a binding) on an H100: 4 x 128 / 16 = 32 query
// blocks, so one a workgroup (more would leave most processors idle), its
// four warps each taking 16 of a step's 64 keys, 2 steps. Shared: Q's 16
// rows and two stages of K's and V's 64, each row padded by 8 f16, and
// what the splits merge through. Each step waits for its copies, issues
// the next's, computes the warp's scores with 4 x 2 mma.syncs, loads the
// mask for each score, takes the rows' max across the quad (xor 1, 2),
// exponentiates (exp2) and multiplies P by V with 8 more. The splits then
// share their maxes and sums, add their scaled O into one buffer in turn,
// and the workgroup divides, rounds to f16 and stores each row.
// A T4 has no cp.async: the dispatch is left alone.

// CHECK-DAG:   memref.global "private" @attention_attn_q : memref<16x72xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_attn_k : memref<2x64x72xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_attn_v : memref<2x64x72xf16, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_attn_o : memref<16x64xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_attn_m : memref<4x16xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @attention(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k16.f16.f32", kernel = "attention", key_splits = 4 : i64, keys_per_step = 64 : i64, workgroup_rows = 16 : i64}
// CHECK-SAME:    kiln.workgroup_size = array<i64: 128, 1, 1>
// CHECK:         scf.forall ({{.*}}) = (0, 0) to (4, 128) step (1, 16)
// CHECK-COUNT-9: nvgpu.device_async_copy
// CHECK:         nvgpu.device_async_create_group
// CHECK:         scf.for %{{.+}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(
// CHECK:           gpu.barrier
// CHECK:           nvgpu.device_async_wait
// CHECK:           gpu.barrier
// CHECK-COUNT-8:   nvgpu.mma.sync
// CHECK:           memref.load %arg2
// CHECK:           gpu.shuffle xor
// CHECK:           math.exp2
// CHECK-COUNT-8:   nvgpu.mma.sync
// CHECK:           scf.yield
// CHECK:         gpu.shuffle xor
// CHECK:         memref.store {{.*}} : memref<4x16xf32, 3>
// CHECK:         gpu.barrier
// CHECK:         memref.store {{.*}} : memref<16x64xf32, 3>
// CHECK:         gpu.barrier
// CHECK:         arith.truncf {{.*}} : f32 to f16
// CHECK:         memref.store {{.*}}, %arg4
// CHECK-NOT:     linalg.
// T4-LABEL:    func.func private @attention(
// T4-NOT:        kiln.lowering_config
// T4:            linalg.batch_matmul
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map6 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map7 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#map8 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#map9 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map10 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
module {
  func.func private @attention(%arg0: memref<4x128x64xf16>, %arg1: memref<4x128x64xf16>, %arg2: memref<1x128x128xf16>, %arg3: memref<4x128x64xf16>, %arg4: memref<4x128x64xf16>) attributes {kiln.dispatch} {
    %0 = bufferization.to_tensor %arg0 restrict : memref<4x128x64xf16> to tensor<4x128x64xf16>
    %1 = bufferization.to_tensor %arg1 restrict : memref<4x128x64xf16> to tensor<4x128x64xf16>
    %2 = bufferization.to_tensor %arg2 restrict : memref<1x128x128xf16> to tensor<1x128x128xf16>
    %3 = bufferization.to_tensor %arg3 restrict : memref<4x128x64xf16> to tensor<4x128x64xf16>
    %cst = arith.constant 1.000000e+00 : f16
    %cst_0 = arith.constant 0.000000e+00 : f16
    %cst_1 = arith.constant -6.550400e+04 : f16
    %cst_2 = arith.constant 1.250000e-01 : f16
    %cst_3 = arith.constant 0.000000e+00 : f32
    %4 = tensor.empty() : tensor<4x128x128xf32>
    %5 = linalg.fill ins(%cst_3 : f32) outs(%4 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %6 = tensor.empty() : tensor<4x128x128xf16>
    %7 = tensor.empty() : tensor<4x128xf16>
    %expanded = tensor.expand_shape %7 [[0], [1, 2]] output_shape [4, 128, 1] : tensor<4x128xf16> into tensor<4x128x1xf16>
    %8 = tensor.empty() : tensor<4x128x1xf16>
    %9 = linalg.fill ins(%cst_1 : f16) outs(%8 : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %10 = tensor.empty() : tensor<4x128x1xf16>
    %11 = linalg.fill ins(%cst_0 : f16) outs(%10 : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %12 = tensor.empty() : tensor<4x128x64xf32>
    %13 = linalg.fill ins(%cst_3 : f32) outs(%12 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %14 = tensor.empty() : tensor<4x128x64xf16>
    %15 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%5 : tensor<4x128x128xf32>) {
    ^bb0(%in: f16, %in_6: f16, %out: f32):
      %24 = arith.extf %in : f16 to f32
      %25 = arith.extf %in_6 : f16 to f32
      %26 = arith.mulf %24, %25 : f32
      %27 = arith.addf %out, %26 : f32
      linalg.yield %27 : f32
    } -> tensor<4x128x128xf32>
    %16 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<4x128x128xf32>) outs(%6 : tensor<4x128x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %24 = arith.truncf %in : f32 to f16
      linalg.yield %24 : f16
    } -> tensor<4x128x128xf16>
    %17 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %2 : tensor<4x128x128xf16>, tensor<1x128x128xf16>) outs(%6 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %24 = arith.mulf %in, %cst_2 : f16
      %25 = arith.addf %24, %in_6 : f16
      linalg.yield %25 : f16
    } -> tensor<4x128x128xf16>
    %expanded_4 = tensor.expand_shape %17 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %18 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_4 : tensor<4x128x1x128xf16>) outs(%9 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %24 = arith.maximumf %in, %out : f16
      linalg.yield %24 : f16
    } -> tensor<4x128x1xf16>
    %19 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %18 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%6 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %24 = arith.subf %in, %in_6 : f16
      %25 = math.exp %24 : f16
      linalg.yield %25 : f16
    } -> tensor<4x128x128xf16>
    %expanded_5 = tensor.expand_shape %19 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %20 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_5 : tensor<4x128x1x128xf16>) outs(%11 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %24 = arith.addf %in, %out : f16
      linalg.yield %24 : f16
    } -> tensor<4x128x1xf16>
    %21 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%19, %20 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%6 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %24 = arith.divf %cst, %in_6 : f16
      %25 = arith.mulf %in, %24 : f16
      linalg.yield %25 : f16
    } -> tensor<4x128x128xf16>
    %22 = linalg.batch_matmul ins(%21, %3 : tensor<4x128x128xf16>, tensor<4x128x64xf16>) outs(%13 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%22 : tensor<4x128x64xf32>) outs(%14 : tensor<4x128x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %24 = arith.truncf %in : f32 to f16
      linalg.yield %24 : f16
    } -> tensor<4x128x64xf16>
    bufferization.materialize_in_destination %23 in restrict writable %arg4 : (tensor<4x128x64xf16>, memref<4x128x64xf16>) -> ()
    return
  }}

// -----

// The decoder's attention in f32 on the H100: the same kernel on mma.sync
// m16n8k8 tf32 with f32 tiles (16 bytes of padding a row), 32 keys a step
// (64 would not fit the static shared memory) split over the four warps,
// 8 keys each: 8 head steps of one score tile, then 8 value tiles, each
// product three mma.syncs on fragments split into tf32 parts and
// remainders (3xTF32); with allow-tf32, one. P goes from the scores'
// accumulators to the A fragment in registers, V's two elements a lane by
// shared loads.

// CHECK-DAG:   memref.global "private" @attention_f32_attn_q : memref<16x68xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_f32_attn_k : memref<2x32x68xf32, 3> {alignment = 16 : i64}
// CHECK-DAG:   memref.global "private" @attention_f32_attn_v : memref<2x32x68xf32, 3> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @attention_f32(
// CHECK-SAME:    kiln.lowering_config = {instruction = "mma_sync.m16n8k8.tf32.f32", kernel = "attention", key_splits = 4 : i64, keys_per_step = 32 : i64, tf32_passes = 3 : i64, workgroup_rows = 16 : i64}
// CHECK:         scf.for
// CHECK:           nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x68xf32, 3> -> vector<4x1xf32>
// CHECK:           nvvm.convert.float.to.tf32
// CHECK-COUNT-24:  nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK:           math.exp2
// CHECK:           memref.load {{.*}} : memref<2x32x68xf32, 3>
// CHECK-COUNT-24:  nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// CHECK-NOT:       nvgpu.mma.sync
// CHECK:           scf.yield
// TF32-LABEL:  func.func private @attention_f32(
// TF32-SAME:     tf32_passes = 1 : i64
// TF32-COUNT-16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
// TF32-NOT:      nvgpu.mma.sync
// TF32:          scf.yield
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
module {
  func.func private @attention_f32(%arg0: memref<4x128x64xf32>, %arg1: memref<4x128x64xf32>, %arg2: memref<1x128x128xf32>, %arg3: memref<4x128x64xf32>, %arg4: memref<4x128x64xf32>) attributes {kiln.dispatch} {
    %0 = bufferization.to_tensor %arg0 restrict : memref<4x128x64xf32> to tensor<4x128x64xf32>
    %1 = bufferization.to_tensor %arg1 restrict : memref<4x128x64xf32> to tensor<4x128x64xf32>
    %2 = bufferization.to_tensor %arg2 restrict : memref<1x128x128xf32> to tensor<1x128x128xf32>
    %3 = bufferization.to_tensor %arg3 restrict : memref<4x128x64xf32> to tensor<4x128x64xf32>
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant -3.40282347E+38 : f32
    %cst_1 = arith.constant 1.250000e-01 : f32
    %cst_2 = arith.constant 0.000000e+00 : f32
    %4 = tensor.empty() : tensor<4x128x128xf32>
    %5 = linalg.fill ins(%cst_2 : f32) outs(%4 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %6 = tensor.empty() : tensor<4x128xf32>
    %expanded = tensor.expand_shape %6 [[0], [1, 2]] output_shape [4, 128, 1] : tensor<4x128xf32> into tensor<4x128x1xf32>
    %7 = tensor.empty() : tensor<4x128x1xf32>
    %8 = linalg.fill ins(%cst_0 : f32) outs(%7 : tensor<4x128x1xf32>) -> tensor<4x128x1xf32>
    %9 = tensor.empty() : tensor<4x128x1xf32>
    %10 = linalg.fill ins(%cst_2 : f32) outs(%9 : tensor<4x128x1xf32>) -> tensor<4x128x1xf32>
    %11 = tensor.empty() : tensor<4x128x64xf32>
    %12 = linalg.fill ins(%cst_2 : f32) outs(%11 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%0, %1 : tensor<4x128x64xf32>, tensor<4x128x64xf32>) outs(%5 : tensor<4x128x128xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %20 = arith.mulf %in, %in_5 : f32
      %21 = arith.addf %out, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %14 = linalg.generic {indexing_maps = [#map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %2 : tensor<4x128x128xf32>, tensor<1x128x128xf32>) outs(%4 : tensor<4x128x128xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %20 = arith.mulf %in, %cst_1 : f32
      %21 = arith.addf %20, %in_5 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %expanded_3 = tensor.expand_shape %14 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf32> into tensor<4x128x1x128xf32>
    %15 = linalg.generic {indexing_maps = [#map5, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_3 : tensor<4x128x1x128xf32>) outs(%8 : tensor<4x128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.maximumf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<4x128x1xf32>
    %16 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14, %15 : tensor<4x128x128xf32>, tensor<4x128x1xf32>) outs(%4 : tensor<4x128x128xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %20 = arith.subf %in, %in_5 : f32
      %21 = math.exp %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %expanded_4 = tensor.expand_shape %16 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf32> into tensor<4x128x1x128xf32>
    %17 = linalg.generic {indexing_maps = [#map5, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_4 : tensor<4x128x1x128xf32>) outs(%10 : tensor<4x128x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<4x128x1xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%16, %17 : tensor<4x128x128xf32>, tensor<4x128x1xf32>) outs(%4 : tensor<4x128x128xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %20 = arith.divf %cst, %in_5 : f32
      %21 = arith.mulf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %19 = linalg.batch_matmul ins(%18, %3 : tensor<4x128x128xf32>, tensor<4x128x64xf32>) outs(%12 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    bufferization.materialize_in_destination %19 in restrict writable %arg4 : (tensor<4x128x64xf32>, memref<4x128x64xf32>) -> ()
    return
  }
}
