// Shape arithmetic folds at import: x.view(x.size(0), -1) as torch exports
// it (Shape, Gather, Unsqueeze, Concat, Reshape) is only a reshape.
// RUN: /usr/bin/python3 %S/make_model.py shape_subgraph %t.onnx
// RUN: kiln-import-onnx %t.onnx | FileCheck %s

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>
// CHECK-NOT: arith.constant
// CHECK-NOT: linalg
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1]] output_shape [2, 12]
// CHECK-NEXT: return %[[E]] : tensor<2x12xf32>
