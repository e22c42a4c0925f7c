// Shapes given at call time (issue 19 item 3): an int64 graph input that
// Reshape, ConstantOfShape, Expand, Tile or TopK takes as a shape, repeats
// or k is read on the host (tensor.extract, index_cast), and the module's
// shape program reads its elements per call.

// Reshape: each element's 0 copies the input's dimension and -1 takes what
// the others leave, decided per call by comparisons and selects; the
// static input is viewed at the dynamic sizes.
// RUN: /usr/bin/python3 %S/make_model.py reshape_runtime_shape %t.r.onnx
// RUN: kiln-import-onnx %t.r.onnx | FileCheck %s --check-prefix=RESHAPE
// RESHAPE-LABEL: func.func @main_graph(
// RESHAPE-SAME:    %[[X:.*]]: tensor<2x3x4xf32> {kiln.name = "x"}, %[[S:.*]]: tensor<3xi64> {kiln.name = "shape"}) -> (tensor<?x?x?xf32>
// RESHAPE:         %[[E0:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<3xi64>
// RESHAPE-NEXT:    %[[V0:.*]] = arith.index_cast %[[E0]] : i64 to index
// RESHAPE:         %[[Z:.*]] = arith.cmpi eq, %[[V0]], %{{.*}} : index
// RESHAPE-NEXT:    arith.select %[[Z]], %{{.*}}, %[[V0]] : index
// RESHAPE:         arith.divsi
// RESHAPE:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{.*}} into tensor<24xf32>
// RESHAPE-NEXT:    %[[DYN:.*]] = tensor.cast %[[FLAT]] : tensor<24xf32> to tensor<?xf32>
// RESHAPE-NEXT:    tensor.expand_shape %[[DYN]] {{.*}} : tensor<?xf32> into tensor<?x?x?xf32>

// Compiled, its signature keeps the target an input and its shape
// program reads the target's elements, positive and negative parts.
// RUN: kiln-compile %t.r.onnx --target-device=cpu -o %t.r.kiln
// RUN: kiln-dump-module %t.r.kiln | FileCheck %s --check-prefix=RMODULE
// RMODULE: version 1.7
// RMODULE: function 'main_graph' (2x3x4xf32, 3xi64) -> (?x?x?xf32)
// RMODULE-DAG: = element+ input1.value[0]
// RMODULE-DAG: = element- input1.value[0]
// RMODULE-DAG: = element+ input1.value[2]

// ConstantOfShape, Expand, Tile and TopK sized per call.
// RUN: /usr/bin/python3 %S/make_model.py shapes_runtime %t.s.onnx
// RUN: kiln-import-onnx %t.s.onnx | FileCheck %s --check-prefix=SHAPES
// SHAPES-LABEL: func.func @main_graph(
// SHAPES-SAME:    -> (tensor<?x?xf32> {kiln.name = "zeros"}, tensor<?x4xf32> {kiln.name = "wide"}, tensor<?x?xf32> {kiln.name = "tiled"}, tensor<3x?xf32> {kiln.name = "top"}, tensor<3x?xi64> {kiln.name = "where"})
// SHAPES:         tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?xf32>
// SHAPES:         linalg.fill
// SHAPES:         tensor.empty(%{{.*}}) : tensor<?x4xf32>
// SHAPES:         tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x3x?x4xf32>
// SHAPES:         tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<?x3x?x4xf32> into tensor<?x?xf32>
// SHAPES:         tensor.empty(%{{.*}}) : tensor<3x?xf32>
// RUN: kiln-compile %t.s.onnx --target-device=cpu -o %t.s.kiln
// RUN: kiln-dump-module %t.s.kiln | FileCheck %s --check-prefix=SMODULE
// SMODULE: function 'main_graph' (2xi64, 1x4xf32, 3x4xf32, 2xi64, 1xi64) -> (?x?xf32, ?x4xf32, ?x?xf32, 3x?xf32, 3x?xi64)
// SMODULE-DAG: = element+ input0.value[1]
// SMODULE-DAG: = element+ input3.value[1]
// SMODULE-DAG: = element+ input4.value[0]

// Axes given at call time (Unsqueeze's, ReduceSum's): the ones the declared
// output shapes imply, each call checking the given ones (negative counted
// from the rank) with a message naming the node.
// RUN: /usr/bin/python3 %S/make_model.py axes_runtime %t.a.onnx
// RUN: kiln-import-onnx %t.a.onnx | FileCheck %s --check-prefix=AXES
// AXES-LABEL: func.func @main_graph(
// AXES:         %[[E:.*]] = tensor.extract %arg1[%{{.*}}] : tensor<1xi64>
// AXES:         cf.assert %{{.*}}, "node 'Unsqueeze#0' (Unsqueeze): input 1 'axes' must be the axes [1] its declared output shape implies"
// AXES:         tensor.expand_shape {{.*}} into tensor<3x1x4x5xf32>
// AXES:         cf.assert %{{.*}}, "node 'ReduceSum#1' (ReduceSum): input 1 'raxes' must be the axes [1] its declared output shape implies"
// RUN: kiln-compile %t.a.onnx --target-device=cpu -o %t.a.kiln
// RUN: kiln-dump-module %t.a.kiln | FileCheck %s --check-prefix=AMODULE
// AMODULE: function 'main_graph' (3x4x5xf32, 1xi64, 1xi64) -> (3x1x4x5xf32, 3x1x5xf32)
// AMODULE-DAG: check n{{[0-9]+}} == n{{[0-9]+}}: node 'Unsqueeze#0' (Unsqueeze): input 1 'axes' must be the axes [1] its declared output shape implies
// AMODULE-DAG: check n{{[0-9]+}} == n{{[0-9]+}}: node 'ReduceSum#1' (ReduceSum): input 1 'raxes' must be the axes [1] its declared output shape implies

// Where several sets of axes give the declared shape, and so the same data
// (ones inserted beside another one), a call may give any of them.
// RUN: /usr/bin/python3 %S/make_model.py axes_runtime_alternatives %t.alt.onnx
// RUN: kiln-compile %t.alt.onnx --target-device=cpu -o %t.alt.kiln
// RUN: /usr/bin/python3 -c "import numpy as np; np.save('%t.alt.x.npy', np.arange(6, dtype=np.float32).reshape(2, 1, 3)); [np.save('%t.alt.%%s.npy' %% n, np.array([v], np.int64)) for n, v in (('a1', 1), ('a2', -2), ('a3', 3))]"
// RUN: kiln-run-module --device=local-sync --module=%t.alt.kiln --input=@%t.alt.x.npy --input=@%t.alt.a1.npy | FileCheck %s --check-prefix=ALT
// RUN: kiln-run-module --device=local-sync --module=%t.alt.kiln --input=@%t.alt.x.npy --input=@%t.alt.a2.npy | FileCheck %s --check-prefix=ALT
// ALT: 2x1x1x3xf32
// RUN: not kiln-run-module --device=local-sync --module=%t.alt.kiln --input=@%t.alt.x.npy --input=@%t.alt.a3.npy 2>&1 | FileCheck %s --check-prefix=ALTBAD
// ALTBAD: node 'Unsqueeze#0' (Unsqueeze): input 1 'axes' must be the axes [1] or [2] its declared output shape implies
