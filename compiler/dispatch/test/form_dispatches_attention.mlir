// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-rows fuse-attention" %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-form-dispatches="fuse-rows" %s | FileCheck %s --check-prefix=ROWS

// With fuse-attention, a decoder's attention as tosa lowers it (f16 scores
// rounded, scaled and masked in f16; softmax as max, exp, sum, reciprocal
// and product; P . V rounded to f16) is one dispatch: both contractions,
// the softmax and the rounding after. With fuse-rows alone the softmax is a
// row program between the two contractions' dispatches.

// CHECK-LABEL: func.func @attention_mask_f16(
// CHECK:         %[[O:.+]] = call @attention_mask_f16_dispatch_0(
// CHECK-NEXT:    return %[[O]]
// CHECK-LABEL: func.func private @attention_mask_f16_dispatch_0(
// CHECK:         arith.mulf {{.*}} : f32
// CHECK:         math.exp
// CHECK:         linalg.batch_matmul
// CHECK:         arith.truncf {{.*}} : f32 to f16
// ROWS-LABEL:  func.func @attention_mask_f16(
// ROWS-COUNT-3:  call @attention_mask_f16_dispatch_
// ROWS-NOT:      call
// ROWS:          return
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
  func.func @attention_mask_f16(%arg0: tensor<4x128x64xf16>, %arg1: tensor<4x128x64xf16>, %arg2: tensor<4x128x64xf16>, %arg3: tensor<1x128x128xf16>) -> tensor<4x128x64xf16> {
    %cst = arith.constant 1.250000e-01 : f16
    %cst_0 = arith.constant 1.000000e+00 : f16
    %cst_1 = arith.constant 0.000000e+00 : f16
    %cst_2 = arith.constant -6.550400e+04 : f16
    %cst_3 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x128x128xf32>
    %1 = linalg.fill ins(%cst_3 : f32) outs(%0 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%1 : tensor<4x128x128xf32>) {
    ^bb0(%in: f16, %in_6: f16, %out: f32):
      %18 = arith.extf %in : f16 to f32
      %19 = arith.extf %in_6 : f16 to f32
      %20 = arith.mulf %18, %19 : f32
      %21 = arith.addf %out, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %3 = tensor.empty() : tensor<4x128x128xf16>
    %4 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<4x128x128xf32>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x128xf16>
    %5 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg3 : tensor<4x128x128xf16>, tensor<1x128x128xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.mulf %in, %cst : f16
      %19 = arith.addf %18, %in_6 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %6 = tensor.empty() : tensor<4x128xf16>
    %expanded = tensor.expand_shape %6 [[0], [1, 2]] output_shape [4, 128, 1] : tensor<4x128xf16> into tensor<4x128x1xf16>
    %7 = linalg.fill ins(%cst_2 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_4 = tensor.expand_shape %5 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %8 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_4 : tensor<4x128x1x128xf16>) outs(%7 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.maximumf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %9 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.subf %in, %in_6 : f16
      %19 = math.exp %18 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %10 = linalg.fill ins(%cst_1 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_5 = tensor.expand_shape %9 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %11 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_5 : tensor<4x128x1x128xf16>) outs(%10 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.addf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %12 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %11 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.divf %cst_0, %in_6 : f16
      %19 = arith.mulf %in, %18 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %13 = tensor.empty() : tensor<4x128x64xf32>
    %14 = linalg.fill ins(%cst_3 : f32) outs(%13 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %15 = linalg.batch_matmul ins(%12, %arg2 : tensor<4x128x128xf16>, tensor<4x128x64xf16>) outs(%14 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %16 = tensor.empty() : tensor<4x128x64xf16>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<4x128x64xf32>) outs(%16 : tensor<4x128x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x64xf16>
    return %17 : tensor<4x128x64xf16>
  }

// -----

// The probabilities are a result as well: they are stored, so there is no
// attention to fuse; the softmax is a row program of its own.

// CHECK-LABEL: func.func @probabilities_returned(
// CHECK-COUNT-3: call @probabilities_returned_dispatch_
// CHECK-NOT:     call
// CHECK:         return
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
  func.func @probabilities_returned(%arg0: tensor<4x128x64xf16>, %arg1: tensor<4x128x64xf16>, %arg2: tensor<4x128x64xf16>, %arg3: tensor<1x128x128xf16>) -> (tensor<4x128x64xf16>, tensor<4x128x128xf16>) {
    %cst = arith.constant 1.250000e-01 : f16
    %cst_0 = arith.constant 1.000000e+00 : f16
    %cst_1 = arith.constant 0.000000e+00 : f16
    %cst_2 = arith.constant -6.550400e+04 : f16
    %cst_3 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x128x128xf32>
    %1 = linalg.fill ins(%cst_3 : f32) outs(%0 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%1 : tensor<4x128x128xf32>) {
    ^bb0(%in: f16, %in_6: f16, %out: f32):
      %18 = arith.extf %in : f16 to f32
      %19 = arith.extf %in_6 : f16 to f32
      %20 = arith.mulf %18, %19 : f32
      %21 = arith.addf %out, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %3 = tensor.empty() : tensor<4x128x128xf16>
    %4 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<4x128x128xf32>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x128xf16>
    %5 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg3 : tensor<4x128x128xf16>, tensor<1x128x128xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.mulf %in, %cst : f16
      %19 = arith.addf %18, %in_6 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %6 = tensor.empty() : tensor<4x128xf16>
    %expanded = tensor.expand_shape %6 [[0], [1, 2]] output_shape [4, 128, 1] : tensor<4x128xf16> into tensor<4x128x1xf16>
    %7 = linalg.fill ins(%cst_2 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_4 = tensor.expand_shape %5 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %8 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_4 : tensor<4x128x1x128xf16>) outs(%7 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.maximumf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %9 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.subf %in, %in_6 : f16
      %19 = math.exp %18 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %10 = linalg.fill ins(%cst_1 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_5 = tensor.expand_shape %9 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %11 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_5 : tensor<4x128x1x128xf16>) outs(%10 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.addf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %12 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %11 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.divf %cst_0, %in_6 : f16
      %19 = arith.mulf %in, %18 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %13 = tensor.empty() : tensor<4x128x64xf32>
    %14 = linalg.fill ins(%cst_3 : f32) outs(%13 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %15 = linalg.batch_matmul ins(%12, %arg2 : tensor<4x128x128xf16>, tensor<4x128x64xf16>) outs(%14 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %16 = tensor.empty() : tensor<4x128x64xf16>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<4x128x64xf32>) outs(%16 : tensor<4x128x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x64xf16>
    return %17, %12 : tensor<4x128x64xf16>, tensor<4x128x128xf16>
  }

// -----

// exp(x - max) * sum is no softmax: the sum cannot be applied after P . V.

// CHECK-LABEL: func.func @not_a_softmax(
// CHECK-COUNT-3: call @not_a_softmax_dispatch_
// CHECK-NOT:     call
// CHECK:         return
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
  func.func @not_a_softmax(%arg0: tensor<4x128x64xf16>, %arg1: tensor<4x128x64xf16>, %arg2: tensor<4x128x64xf16>, %arg3: tensor<1x128x128xf16>) -> tensor<4x128x64xf16> {
    %cst = arith.constant 1.250000e-01 : f16
    %cst_0 = arith.constant 1.000000e+00 : f16
    %cst_1 = arith.constant 0.000000e+00 : f16
    %cst_2 = arith.constant -6.550400e+04 : f16
    %cst_3 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x128x128xf32>
    %1 = linalg.fill ins(%cst_3 : f32) outs(%0 : tensor<4x128x128xf32>) -> tensor<4x128x128xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x128x64xf16>, tensor<4x128x64xf16>) outs(%1 : tensor<4x128x128xf32>) {
    ^bb0(%in: f16, %in_6: f16, %out: f32):
      %18 = arith.extf %in : f16 to f32
      %19 = arith.extf %in_6 : f16 to f32
      %20 = arith.mulf %18, %19 : f32
      %21 = arith.addf %out, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<4x128x128xf32>
    %3 = tensor.empty() : tensor<4x128x128xf16>
    %4 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<4x128x128xf32>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x128xf16>
    %5 = linalg.generic {indexing_maps = [#map3, #map6, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg3 : tensor<4x128x128xf16>, tensor<1x128x128xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.mulf %in, %cst : f16
      %19 = arith.addf %18, %in_6 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %6 = tensor.empty() : tensor<4x128xf16>
    %expanded = tensor.expand_shape %6 [[0], [1, 2]] output_shape [4, 128, 1] : tensor<4x128xf16> into tensor<4x128x1xf16>
    %7 = linalg.fill ins(%cst_2 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_4 = tensor.expand_shape %5 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %8 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_4 : tensor<4x128x1x128xf16>) outs(%7 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.maximumf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %9 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.subf %in, %in_6 : f16
      %19 = math.exp %18 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %10 = linalg.fill ins(%cst_1 : f16) outs(%expanded : tensor<4x128x1xf16>) -> tensor<4x128x1xf16>
    %expanded_5 = tensor.expand_shape %9 [[0], [1, 2], [3]] output_shape [4, 128, 1, 128] : tensor<4x128x128xf16> into tensor<4x128x1x128xf16>
    %11 = linalg.generic {indexing_maps = [#map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded_5 : tensor<4x128x1x128xf16>) outs(%10 : tensor<4x128x1xf16>) {
    ^bb0(%in: f16, %out: f16):
      %18 = arith.addf %in, %out : f16
      linalg.yield %18 : f16
    } -> tensor<4x128x1xf16>
    %12 = linalg.generic {indexing_maps = [#map3, #map5, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %11 : tensor<4x128x128xf16>, tensor<4x128x1xf16>) outs(%3 : tensor<4x128x128xf16>) {
    ^bb0(%in: f16, %in_6: f16, %out: f16):
      %18 = arith.mulf %in, %in_6 : f16
      %19 = arith.addf %18, %cst_0 : f16
      linalg.yield %19 : f16
    } -> tensor<4x128x128xf16>
    %13 = tensor.empty() : tensor<4x128x64xf32>
    %14 = linalg.fill ins(%cst_3 : f32) outs(%13 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %15 = linalg.batch_matmul ins(%12, %arg2 : tensor<4x128x128xf16>, tensor<4x128x64xf16>) outs(%14 : tensor<4x128x64xf32>) -> tensor<4x128x64xf32>
    %16 = tensor.empty() : tensor<4x128x64xf16>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<4x128x64xf32>) outs(%16 : tensor<4x128x64xf16>) {
    ^bb0(%in: f32, %out: f16):
      %18 = arith.truncf %in : f32 to f16
      linalg.yield %18 : f16
    } -> tensor<4x128x64xf16>
    return %17 : tensor<4x128x64xf16>
  }
