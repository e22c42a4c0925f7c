// Symbolic dimensions stay dynamic (issue 19): `batch` imports as `?`, and
// each op over it takes its sizes from tensor.dim on the host.
// RUN: /usr/bin/python3 %S/make_model.py symbolic %t.sym.onnx
// RUN: kiln-import-onnx %t.sym.onnx | FileCheck %s --check-prefix=SYM
// SYM-LABEL: func.func @main_graph(
// SYM-SAME:    %[[X:.*]]: tensor<?x3xf32> {kiln.name = "x"}) -> (tensor<?x3xf32> {kiln.name = "y"})
// SYM:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf32>
// SYM:         tensor.empty(%[[N]]) : tensor<?x3xf32>

// x.view(x.size(0), -1) over a dynamic batch: Shape gives the batch as
// tensor.dim, Gather, Unsqueeze and Concat carry it, and Reshape copies it
// (one collapse, the batch its own dimension).
// RUN: /usr/bin/python3 %S/make_model.py shape_subgraph_dynamic %t.view.onnx
// RUN: kiln-import-onnx %t.view.onnx | FileCheck %s --check-prefix=VIEW
// VIEW-LABEL: func.func @main_graph(
// VIEW-SAME:    %[[X:.*]]: tensor<?x3x4xf32>
// VIEW-NOT:     linalg
// VIEW:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
// VIEW-NEXT:    return %[[C]] : tensor<?x12xf32>

// A small CNN over a dynamic batch: the pads keep the batch dynamic, the
// accumulators take it from their inputs, the grouped convolution views
// the batch through an expansion, pooling and the global average keep it,
// Flatten and Reshape(-1, 4) collapse around it, and Gemm's rows are the
// batch.
// RUN: /usr/bin/python3 %S/make_model.py dynamic_cnn %t.cnn.onnx
// RUN: kiln-import-onnx %t.cnn.onnx | FileCheck %s --check-prefix=CNN
// CNN-LABEL: func.func @main_graph(
// CNN-SAME:    %[[X:.*]]: tensor<?x3x8x8xf32> {kiln.name = "x"}) -> (tensor<?x5xf32> {kiln.name = "y"})
// CNN:         %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CNN:         } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CNN:         %[[N:.*]] = tensor.dim %[[P]], %{{.*}} : tensor<?x3x10x10xf32>
// CNN:         tensor.empty(%[[N]]) : tensor<?x4x8x8xf32>
// CNN:         linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x4x8x8xf32>
// CNN:         %[[P2:.*]] = tensor.pad
// CNN:         %[[N2:.*]] = tensor.dim %[[P2]], %{{.*}} : tensor<?x4x10x10xf32>
// CNN:         tensor.expand_shape %[[P2]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [%[[N2]], 2, 2, 10, 10] : tensor<?x4x10x10xf32> into tensor<?x2x2x10x10xf32>
// CNN:         linalg.conv_2d_ngchw_gfchw {{.*}} -> tensor<?x2x2x8x8xf32>
// CNN:         tensor.collapse_shape {{.*}} : tensor<?x2x2x8x8xf32> into tensor<?x4x8x8xf32>
// CNN:         linalg.pooling_nchw_max {{.*}} -> tensor<?x4x4x4xf32>
// CNN:         linalg.reduce ins({{.*}} : tensor<?x4x4x4xf32>) outs({{.*}} : tensor<?x4xf32>) dimensions = [2, 3]
// CNN:         tensor.collapse_shape {{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<?x4x1x1xf32> into tensor<?x4xf32>
// CNN:         linalg.matmul ins({{.*}} : tensor<?x4xf32>, tensor<4x5xf32>) outs({{.*}} : tensor<?x5xf32>) -> tensor<?x5xf32>
// CNN:         return {{.*}} : tensor<?x5xf32>

// The same, compiled for the CPU: one module whose signature keeps the
// batch, its sizes in a shape program.
// RUN: kiln-compile %t.cnn.onnx --target-device=cpu -o %t.cnn.kiln
// RUN: kiln-dump-module %t.cnn.kiln | FileCheck %s --check-prefix=MODULE
// MODULE: version 1.3
// MODULE: function 'main_graph' (?x3x8x8xf32) -> (?x5xf32)
// MODULE: n2 = dim input0[0]
// MODULE: output 0 shape [n2, n{{[0-9]+}}]

// Pinned, the same model is static as before.
// RUN: kiln-import-onnx %t.cnn.onnx --input-shape=x:2x3x8x8 | FileCheck %s --check-prefix=PINNED
// PINNED: func.func @main_graph(%{{.*}}: tensor<2x3x8x8xf32> {kiln.name = "x"}) -> (tensor<2x5xf32> {kiln.name = "y"})
// PINNED-NOT: tensor.dim

// Bounded (--input-shape=x:1..16x3x8x8, issue 19's profiles): the batch
// stays dynamic, its bounds on the argument and in the module (version
// 1.5), where every call is checked against them.
// RUN: kiln-import-onnx %t.cnn.onnx --input-shape=x:1..16x3x8x8 | FileCheck %s --check-prefix=BOUNDED
// BOUNDED: func.func @main_graph(%{{.*}}: tensor<?x3x8x8xf32> {kiln.dim_max = array<i64: 16, 3, 8, 8>, kiln.dim_min = array<i64: 1, 3, 8, 8>, kiln.name = "x"})
// RUN: kiln-compile %t.cnn.onnx --input-shape=x:1..16x3x8x8 -o %t.bounded.kiln
// RUN: kiln-dump-module %t.bounded.kiln | FileCheck %s --check-prefix=BOUNDED-MODULE
// BOUNDED-MODULE: version 1.5
// BOUNDED-MODULE: function 'main_graph' (?x3x8x8xf32 (dim 0 in 1..16)) -> (?x5xf32)

// Slice, Concat, Softmax and Transpose over a dynamic batch: the batch is
// never the dimension sliced or joined (a slice takes it whole, by
// tensor.dim), the concat's operands agree on it per call.
// RUN: /usr/bin/python3 %S/make_model.py dynamic_slice_concat %t.sc.onnx
// RUN: kiln-import-onnx %t.sc.onnx | FileCheck %s --check-prefix=SC
// SC-LABEL: func.func @main_graph(
// SC-SAME:    %[[X:.*]]: tensor<?x6xf32> {kiln.name = "x"}, %[[Y:.*]]: tensor<?x2xf32> {kiln.name = "y"}) -> (tensor<5x?xf32> {kiln.name = "t"})
// SC:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x6xf32>
// SC:         %[[S:.*]] = tensor.extract_slice %[[X]][0, 1] [%[[N]], 3] [1, 2] : tensor<?x6xf32> to tensor<?x3xf32>
// SC:         %[[C:.*]] = tensor.concat dim(1) %[[S]], %[[Y]] : (tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<?x5xf32>
// SC:         linalg.softmax dimension(1) ins(%[[C]] : tensor<?x5xf32>)
// SC:         linalg.transpose {{.*}} outs(%{{.*}} : tensor<5x?xf32>) permutation = [1, 0]
// RUN: kiln-compile %t.sc.onnx --target-device=cpu -o %t.sc.kiln
// RUN: kiln-dump-module %t.sc.kiln | FileCheck %s --check-prefix=SCMODULE
// SCMODULE: function 'main_graph' (?x6xf32, ?x2xf32) -> (5x?xf32)
// SCMODULE: check n{{[0-9]+}} == n{{[0-9]+}}

// Attention over a dynamic batch: MatMul of two dynamic batches of
// matrices is one batch_matmul over the batch dimensions collapsed (each
// call checks the operands' batches agree), and a reshape whose target
// reads another tensor's dynamic dimension goes through one dimension with
// the sizes given.
// RUN: /usr/bin/python3 %S/make_model.py dynamic_attention_matmul %t.am.onnx
// RUN: kiln-import-onnx %t.am.onnx | FileCheck %s --check-prefix=AM
// AM-LABEL: func.func @main_graph(
// AM-SAME:    %[[Q:.*]]: tensor<?x4x3x5xf32> {kiln.name = "q"}, %[[K:.*]]: tensor<?x4x5x2xf32> {kiln.name = "k"}, %[[X:.*]]: tensor<?x7xf32> {kiln.name = "x"})
// AM:         %[[QC:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] : tensor<?x4x3x5xf32> into tensor<?x3x5xf32>
// AM:         %[[KC:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<?x4x5x2xf32> into tensor<?x5x2xf32>
// AM:         %[[S:.*]] = linalg.batch_matmul ins(%[[QC]], %[[KC]] : tensor<?x3x5xf32>, tensor<?x5x2xf32>)
// AM:         %[[B:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x7xf32>
// AM:         %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<?x4x3x2xf32> into tensor<?xf32>
// AM:         tensor.expand_shape %[[F]] {{\[\[}}0, 1, 2]] output_shape [%[[B]], 4, 6] : tensor<?xf32> into tensor<?x4x6xf32>
// RUN: kiln-compile %t.am.onnx --target-device=cpu -o %t.am.kiln
// RUN: kiln-dump-module %t.am.kiln | FileCheck %s --check-prefix=AMMODULE
// AMMODULE: function 'main_graph' (?x4x3x5xf32, ?x4x5x2xf32, ?x7xf32) -> (?x4x6xf32)
// AMMODULE: check n2 == n9
