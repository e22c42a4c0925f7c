// RUN: kiln-opt --split-input-file --verify-diagnostics --kiln-form-dispatches %s | FileCheck %s

// Dynamic shapes (issue 19): the extents sizing a dispatch's destinations
// are computed on the host (tensor.dim, index arithmetic) and passed after
// the dispatch's tensors.

// CHECK-LABEL: func.func @add(
// CHECK-SAME:    %[[A:[^:]+]]: tensor<?xf32>, %[[B:[^:]+]]: tensor<?xf32>)
// CHECK:       %[[N:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?xf32>
// CHECK:       %[[M:.+]] = arith.addi %[[N]], %[[N]] : index
// CHECK:       call @add_dispatch_0(%[[A]], %[[B]], %[[M]]) : (tensor<?xf32>, tensor<?xf32>, index) -> tensor<?xf32>
// CHECK-LABEL: func.func private @add_dispatch_0(
// CHECK-SAME:    %{{[^:]+}}: tensor<?xf32>, %{{[^:]+}}: tensor<?xf32>, %[[E:[^:]+]]: index) -> tensor<?xf32>
// CHECK:       tensor.empty(%[[E]]) : tensor<?xf32>
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = arith.addi %n, %n : index
  %e = tensor.empty(%m) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i floordiv 2)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// A result with dynamic shapes that no dispatch computes (an input viewed
// at a shape given at call time, a fill) is computed by a dispatch of its
// own: the dynamic plan has no copy or fill steps.
// CHECK-LABEL: func.func @returned_views(
// CHECK:         %[[V:.*]] = tensor.expand_shape
// CHECK:         %[[F:.*]] = call @returned_views_dispatch_0(
// CHECK:         %[[C:.*]] = call @returned_views_dispatch_1(%[[V]]
// CHECK:         return %[[C]], %[[F]]
// CHECK:       func.func private @returned_views_dispatch_0(
// CHECK:         linalg.generic
// CHECK:       func.func private @returned_views_dispatch_1(
// CHECK:         linalg.generic
func.func @returned_views(%a: tensor<8xf32>, %s: tensor<1xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.extract %s[%c0] : tensor<1xi64>
  %n = arith.index_cast %e : i64 to index
  %flat = tensor.cast %a : tensor<8xf32> to tensor<?xf32>
  %view = tensor.expand_shape %flat [[0]] output_shape [%n] : tensor<?xf32> into tensor<?xf32>
  %empty = tensor.empty(%n) : tensor<?xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<?xf32>) -> tensor<?xf32>
  return %view, %fill : tensor<?xf32>, tensor<?xf32>
}
