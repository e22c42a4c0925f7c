// RUN: kiln-opt --split-input-file --kiln-fuse-elementwise %s | FileCheck %s
// RUN: kiln-opt --split-input-file --kiln-fuse-elementwise='max-body-ops=4' %s | FileCheck %s --check-prefix=BOUND

// Three adds in a chain fuse into one generic when the bound allows it; with
// a bound of 4 body operations the first two fuse (2 + 2 ops) and the third
// stays apart (3 + 2 would pass it).

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT:     linalg.generic
// CHECK:         arith.addf
// CHECK:         arith.addf
// CHECK:         arith.addf
// BOUND-LABEL: func.func @chain(
// BOUND-COUNT-2: linalg.generic
// BOUND-NOT:     linalg.generic
func.func @chain(%x: tensor<8xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>,
                 %c: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%x, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%0, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map],
                       iterator_types = ["parallel"]}
      ins(%1, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
