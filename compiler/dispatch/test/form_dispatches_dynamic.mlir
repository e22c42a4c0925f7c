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
