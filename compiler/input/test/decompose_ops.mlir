// RUN: kiln-opt --split-input-file --kiln-decompose-ops %s | FileCheck %s

// softmax(x) along dim 1 = exp(x - max) / sum(exp(x - max)), as four linalg
// ops: max-reduce, sub+exp, sum-reduce, divide.

// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_last_dim(
// CHECK-SAME:    %[[X:.+]]: tensor<2x16xf32>)
// CHECK-NOT:   linalg.softmax
// CHECK:       %[[OUT:.+]] = tensor.empty() : tensor<2x16xf32>
// CHECK:       %[[ACC:.+]] = tensor.empty() : tensor<2xf32>
// CHECK:       %[[MAXINIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[ACC]] : tensor<2xf32>)
// CHECK:       %[[MAX:.+]] = linalg.generic
// CHECK-SAME:    indexing_maps = [#[[ID]], #[[ROW]]]
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%[[X]] : tensor<2x16xf32>) outs(%[[MAXINIT]] : tensor<2xf32>)
// CHECK:         arith.maxnumf
// CHECK:       %[[EXP:.+]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "parallel"]
// CHECK-SAME:    ins(%[[X]], %[[MAX]] : tensor<2x16xf32>, tensor<2xf32>) outs(%[[OUT]] : tensor<2x16xf32>)
// CHECK:         %[[D:.+]] = arith.subf
// CHECK:         math.exp %[[D]]
// CHECK:       %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[ACC]] : tensor<2xf32>)
// CHECK:       %[[SUM:.+]] = linalg.generic
// CHECK-SAME:    iterator_types = ["parallel", "reduction"]
// CHECK-SAME:    ins(%[[EXP]] : tensor<2x16xf32>) outs(%[[SUMINIT]] : tensor<2xf32>)
// CHECK:         arith.addf
// CHECK:       %[[RES:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[EXP]], %[[SUM]] : tensor<2x16xf32>, tensor<2xf32>) outs(%[[OUT]] : tensor<2x16xf32>)
// CHECK:         arith.divf
// CHECK:       return %[[RES]] : tensor<2x16xf32>
func.func @softmax_last_dim(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// Along dim 0 the reductions run over d0 and keep d1; the element type is kept.

// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_first_dim_f16(
// CHECK-NOT:   linalg.softmax
// CHECK:       linalg.generic
// CHECK-SAME:    #[[COL]]
// CHECK-SAME:    iterator_types = ["reduction", "parallel"]
// CHECK-SAME:    outs(%{{.+}} : tensor<4xf16>)
// CHECK:         arith.maxnumf %{{.+}}, %{{.+}} : f16
// CHECK:       math.exp %{{.+}} : f16
// CHECK:       iterator_types = ["reduction", "parallel"]
// CHECK:         arith.addf %{{.+}}, %{{.+}} : f16
// CHECK:       arith.divf %{{.+}}, %{{.+}} : f16
// CHECK:       return %{{.+}} : tensor<3x4xf16>
func.func @softmax_first_dim_f16(%x: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %e = tensor.empty() : tensor<3x4xf16>
  %0 = linalg.softmax dimension(0) ins(%x : tensor<3x4xf16>) outs(%e : tensor<3x4xf16>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// Non-aggregate ops are left alone.

// CHECK-LABEL: func.func @matmul_untouched(
// CHECK:       %[[R:.+]] = linalg.matmul
// CHECK-NEXT:  return %[[R]]
func.func @matmul_untouched(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
