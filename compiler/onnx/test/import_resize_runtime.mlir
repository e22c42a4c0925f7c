// Resize with scales or sizes given at call time (issue 19 item 3): the
// sampling tables are unknown at import, so the host computes each output
// extent per call (a scale's floor(dim * scale) in double, as ONNX's
// reference does: real nodes of the shape program), a kernel per resized
// dimension computes its tables over that extent in double, reading the
// scale or size as data (a map with a constant result), and the resize's
// generic reads those tables as it reads constant ones.
// RUN: /usr/bin/python3 %S/make_model.py resize_runtime %t.onnx
// RUN: kiln-import-onnx %t.onnx | FileCheck %s
// CHECK-DAG:    #[[E2:.*]] = affine_map<(d0) -> (2)>
// CHECK-DAG:    #[[OUT1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG:    #[[T2:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-LABEL:  func.func @main_graph(
// CHECK-SAME:     %{{.*}}: tensor<1x1x4x6xf32> {kiln.name = "x"}, %[[SCALES:.*]]: tensor<4xf32> {kiln.name = "scales"}, %[[SIZES:.*]]: tensor<4xi64> {kiln.name = "sizes"}
// CHECK:          %[[S2:.*]] = tensor.extract %[[SCALES]][%c2] : tensor<4xf32>
// CHECK-NEXT:     %[[W2:.*]] = arith.extf %[[S2]] : f32 to f64
// CHECK-NEXT:     %[[P2:.*]] = arith.mulf %{{.*}}, %[[W2]] : f64
// CHECK-NEXT:     %[[F2:.*]] = math.floor %[[P2]] : f64
// CHECK-NEXT:     %[[I2:.*]] = arith.fptosi %[[F2]] : f64 to i64
// CHECK-NEXT:     %[[H2:.*]] = arith.index_cast %[[I2]] : i64 to index
// CHECK:          %[[LOW:.*]] = tensor.empty(%[[H2]]) : tensor<?xi64>
// CHECK:          %[[TABLES:.*]]:4 = linalg.generic {indexing_maps = [#[[E2]], #[[OUT1]], #[[OUT1]], #[[OUT1]], #[[OUT1]]]{{.*}} ins(%[[SCALES]] : tensor<4xf32>) outs(%[[LOW]], %{{.*}} : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>)
// CHECK:            math.floor %{{.*}} : f64
// CHECK:          %[[EMPTY:.*]] = tensor.empty(%{{.*}}, %{{.*}}, %[[H2]], %{{.*}}) : tensor<?x?x?x?xf32>
// CHECK:          linalg.generic {indexing_maps = [{{.*}}#[[T2]], #[[T2]], #[[T2]], #[[T2]]{{.*}}]{{.*}} ins({{.*}}%[[TABLES]]#0, %[[TABLES]]#1, %[[TABLES]]#2, %[[TABLES]]#3{{.*}}) outs(%[[EMPTY]] : tensor<?x?x?x?xf32>)
// CHECK:          linalg.generic {{.*}} ins(%[[SIZES]] : tensor<4xi64>)
// CHECK:            arith.sitofp %{{.*}} : i64 to f64

// Compiled, the shape program reads the scales as doubles (module format
// 1.8), and the sizes' elements as the extents they are.
// RUN: kiln-compile %t.onnx --target-device=cpu -o %t.kiln
// RUN: kiln-dump-module %t.kiln | FileCheck %s --check-prefix=MODULE
// MODULE: version 1.8
// MODULE: function 'main_graph' (1x1x4x6xf32, 4xf32, 4xi64) -> (?x?x?x?xf32, ?x?x?x?xf32)
// MODULE-DAG: [[SCALE:n[0-9]+]] = element input1.value[2]
// MODULE-DAG: [[PRODUCT:n[0-9]+]] = realmul [[SCALE]], {{n[0-9]+}}
// MODULE-DAG: = realfloor [[PRODUCT]]
// MODULE-DAG: = element+ input2.value[3]
// MODULE-DAG: = element- input2.value[3]

// A call's scales: linear over 4x6 at 0.5 and 1.5 gives 2x9.
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t.x.npy', np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6)); np.save('%t.s.npy', np.array([1, 1, 0.5, 1.5], np.float32)); np.save('%t.z.npy', np.array([1, 1, 3, 5], np.int64))"
// RUN: kiln-run-module --device=local-sync --module=%t.kiln --input=@%t.x.npy --input=@%t.s.npy --input=@%t.z.npy | FileCheck %s --check-prefix=CALL
// CALL: 1x1x2x9xf32
// CALL: 1x1x3x5xf32

// A negative scale makes a negative extent: a one-line error of the call.
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t.n.npy', np.array([1, 1, -0.5, 1], np.float32))"
// RUN: not kiln-run-module --device=local-sync --module=%t.kiln --input=@%t.x.npy --input=@%t.n.npy --input=@%t.z.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: INVALID_ARGUMENT: function @main_graph at these input shapes: shape node {{[0-9]+}} (sub) would be negative: 0 - 2
