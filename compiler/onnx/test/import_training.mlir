// The ai.onnx.preview.training optimizers: R and T are data, so one 0-d
// generic computes the step's coefficients from them (in f64, rounded to
// the tensors' type), then each group is one generic with a result per
// output; output k * n + i is group i's k-th result (all new Xs first).
// RUN: /usr/bin/python3 %S/make_training_model.py adagrad_two_groups %t.adagrad.onnx
// RUN: kiln-import-onnx %t.adagrad.onnx | FileCheck %s --check-prefix=ADAGRAD
// ADAGRAD-DAG:   #[[SCALAR:.*]] = affine_map<() -> ()>
// ADAGRAD-DAG:   #[[COEF1:.*]] = affine_map<(d0) -> ()>
// ADAGRAD-DAG:   #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// ADAGRAD-DAG:   #[[COEF2:.*]] = affine_map<(d0, d1) -> ()>
// ADAGRAD-DAG:   #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// ADAGRAD-LABEL: func.func @main_graph(
// ADAGRAD-SAME:    %[[R:.*]]: tensor<f32> {kiln.name = "R"}, %[[T:.*]]: tensor<i64> {kiln.name = "T"}, %[[X1:.*]]: tensor<3xf32> {kiln.name = "X1"}, %[[X2:.*]]: tensor<2x4xf32> {kiln.name = "X2"}, %[[G1:.*]]: tensor<3xf32> {kiln.name = "G1"}, %[[G2:.*]]: tensor<2x4xf32> {kiln.name = "G2"}, %[[H1:.*]]: tensor<3xf32> {kiln.name = "H1"}, %[[H2:.*]]: tensor<2x4xf32> {kiln.name = "H2"})
// ADAGRAD:       %[[RATE:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[SCALAR]], #[[SCALAR]]], iterator_types = []} ins(%[[R]], %[[T]] : tensor<f32>, tensor<i64>)
// ADAGRAD:         arith.extf %{{.*}} : f32 to f64
// ADAGRAD:         arith.sitofp %{{.*}} : i64 to f64
// ADAGRAD:         arith.divf %{{.*}} : f64
// ADAGRAD:         %[[R32:.*]] = arith.truncf %{{.*}} : f64 to f32
// ADAGRAD-NEXT:    linalg.yield %[[R32]] : f32
// ADAGRAD:       %[[STEP1:.*]]:2 = linalg.generic {indexing_maps = [#[[COEF1]], #[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[RATE]], %[[X1]], %[[G1]], %[[H1]] : tensor<f32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// ADAGRAD:         math.sqrt
// ADAGRAD:         linalg.yield %{{.*}}, %{{.*}} : f32, f32
// ADAGRAD:       %[[STEP2:.*]]:2 = linalg.generic {indexing_maps = [#[[COEF2]], #[[ID2]], #[[ID2]], #[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[RATE]], %[[X2]], %[[G2]], %[[H2]] : tensor<f32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
// ADAGRAD:       return %[[STEP1]]#0, %[[STEP2]]#0, %[[STEP1]]#1, %[[STEP2]]#1 : tensor<3xf32>, tensor<2x4xf32>, tensor<3xf32>, tensor<2x4xf32>

// Hostile counts and attributes are one-line errors.
// RUN: /usr/bin/python3 %S/make_training_model.py adagrad_bad_count %t.count.onnx
// RUN: not kiln-import-onnx %t.count.onnx 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: node 'Adagrad#0' (Adagrad): takes R, T and 3n tensors (X, G and H, n each), not 7 inputs
// COUNT-NOT: error
// RUN: /usr/bin/python3 %S/make_training_model.py momentum_no_mode %t.mode.onnx
// RUN: not kiln-import-onnx %t.mode.onnx 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: error: node 'Momentum#0' (Momentum): missing required attribute 'mode'
// MODE-NOT: error
