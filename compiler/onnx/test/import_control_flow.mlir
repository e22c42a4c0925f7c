// If and Scan (issue 19 item 4): subgraphs imported inline. A condition
// given at call time runs both branches, each reading the enclosing graph's
// values, and selects every output by the condition, read as 0-d data.
// RUN: /usr/bin/python3 %S/make_model.py if_runtime %t.if.onnx
// RUN: kiln-import-onnx %t.if.onnx | FileCheck %s
// CHECK-DAG:   #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[NONE:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME:    %[[COND:.*]]: tensor<i1> {kiln.name = "cond"}, %[[X:.*]]: tensor<2x3xf32> {kiln.name = "x"})
// CHECK:         %[[THEN:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[ELSE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3xf32>)
// CHECK:           arith.negf
// CHECK:         linalg.generic {indexing_maps = [#[[NONE]], #[[ID]], #[[ID]], #[[ID]]]{{.*}} ins(%[[COND]], %[[THEN]], %[[ELSE]] : tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.select %[[C]], %[[A]], %[[B]] : f32

// A body that does not take what the node gives is a one-line error.
// RUN: /usr/bin/python3 %S/make_model.py scan_misfit_body %t.sc.onnx
// RUN: not kiln-import-onnx %t.sc.onnx 2>&1 | FileCheck %s --check-prefix=MISFIT
// MISFIT: error: node 'Scan#0': its subgraph takes 1 input(s), given 2
