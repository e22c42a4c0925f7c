// RUN: kiln-opt --split-input-file --kiln-slice-producers %s | FileCheck %s

// A class token kept after a residual block: the slice climbs through the
// residual add, the expand, the matmul (its A sliced to the token's row,
// B whole) and the collapse, to the function's argument; the rank-reducing
// slice at the end becomes a collapse of the 1x1x384 tile.

// CHECK-LABEL: func.func @class_token(
// CHECK-SAME:    %[[X:.+]]: tensor<1x197x384xf32>, %[[W:.+]]: tensor<384x384xf32>
// CHECK:         %[[ROW:.+]] = tensor.extract_slice %[[X]][0, 0, 0] [1, 1, 384] [1, 1, 1] : tensor<1x197x384xf32> to tensor<1x1x384xf32>
// CHECK:         %[[A:.+]] = tensor.collapse_shape %[[ROW]]
// CHECK:         linalg.matmul ins(%[[A]], %[[W]] : tensor<1x384xf32>, tensor<384x384xf32>) outs({{.*}} : tensor<1x384xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK:         } -> tensor<1x1x384xf32>
// CHECK:         %[[OUT:.+]] = tensor.collapse_shape %[[SUM]] {{.*}} into tensor<1x384xf32>
// CHECK:         return %[[OUT]]
// CHECK-NOT:     197x384xf32>)
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d2)>
func.func @class_token(%x: tensor<1x197x384xf32>, %w: tensor<384x384xf32>, %b: tensor<384xf32>) -> tensor<1x384xf32> {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x197x384xf32> into tensor<197x384xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<197x384xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<197x384xf32>) -> tensor<197x384xf32>
  %m = linalg.matmul ins(%c, %w : tensor<197x384xf32>, tensor<384x384xf32>) outs(%f : tensor<197x384xf32>) -> tensor<197x384xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 197, 384] : tensor<197x384xf32> into tensor<1x197x384xf32>
  %e3 = tensor.empty() : tensor<1x197x384xf32>
  %r = linalg.generic {indexing_maps = [#map4, #map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b, %ex, %x : tensor<384xf32>, tensor<1x197x384xf32>, tensor<1x197x384xf32>) outs(%e3 : tensor<1x197x384xf32>) {
  ^bb0(%in: f32, %in2: f32, %in3: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    %t = arith.addf %s, %in3 : f32
    linalg.yield %t : f32
  } -> tensor<1x197x384xf32>
  %s = tensor.extract_slice %r[0, 0, 0] [1, 1, 384] [1, 1, 1] : tensor<1x197x384xf32> to tensor<1x384xf32>
  return %s : tensor<1x384xf32>
}

// -----

// The matmul's result is also returned whole: slicing it would compute the
// row twice, so nothing changes.

// CHECK-LABEL: func.func @read_whole(
// CHECK:         %[[M:.+]] = linalg.matmul {{.*}} -> tensor<8x16xf32>
// CHECK:         tensor.extract_slice %[[M]][0, 0] [1, 16]
func.func @read_whole(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> (tensor<8x16xf32>, tensor<1x16xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = tensor.extract_slice %m[0, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<1x16xf32>
  return %m, %s : tensor<8x16xf32>, tensor<1x16xf32>
}

// -----

// Two different slices of one result (q and k of a joint projection): the
// matmul stays whole, as do both slices.

// CHECK-LABEL: func.func @two_slices(
// CHECK:         %[[M:.+]] = linalg.matmul {{.*}} -> tensor<8x16xf32>
// CHECK-DAG:     tensor.extract_slice %[[M]][0, 0] [8, 8]
// CHECK-DAG:     tensor.extract_slice %[[M]][0, 8] [8, 8]
func.func @two_slices(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = tensor.extract_slice %m[0, 0] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %k = tensor.extract_slice %m[0, 8] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  return %q, %k : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A normalization's input read twice (its mean and its difference), both
// readers sliced alike: one tile serves both, no duplicate.

// CHECK-LABEL: func.func @joined_readers(
// CHECK:         %[[S:.+]] = linalg.add ins({{.*}} : tensor<1x4xf32>, tensor<1x4xf32>)
// CHECK-NOT:     linalg.add
// CHECK:         %[[T:.+]] = linalg.mul ins(%[[S]], %[[S]] : tensor<1x4xf32>, tensor<1x4xf32>)
// CHECK:         linalg.sub ins(%[[T]], %[[S]] : tensor<1x4xf32>, tensor<1x4xf32>)
func.func @joined_readers(%x: tensor<6x4xf32>, %y: tensor<6x4xf32>) -> tensor<1x4xf32> {
  %e = tensor.empty() : tensor<6x4xf32>
  %s = linalg.add ins(%x, %y : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %t = linalg.mul ins(%s, %s : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %u = linalg.sub ins(%t, %s : tensor<6x4xf32>, tensor<6x4xf32>) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  %r = tensor.extract_slice %u[2, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}
