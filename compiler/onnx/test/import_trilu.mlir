// Trilu's k moves only the diagonal, never a shape, so a k computed at run
// time (here a graph input) is data (issue 19 item 3): a 0-d operand of the
// mask's generic, its map reading no loop dimension, compared inside the
// body.
// RUN: /usr/bin/python3 %S/make_model.py trilu_runtime_k %t.rt.onnx
// RUN: kiln-import-onnx %t.rt.onnx | FileCheck %s --check-prefix=RT
// RT-DAG:      #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// RT-DAG:      #[[NONE:.*]] = affine_map<(d0, d1, d2) -> ()>
// RT-LABEL:    func.func @main_graph(
// RT-SAME:       %[[X:.*]]: tensor<?x3x4xf32> {kiln.name = "x"}, %[[K:.*]]: tensor<i64> {kiln.name = "k"})
// RT:          linalg.generic {indexing_maps = [#[[ID]], #[[NONE]], #[[ID]]], {{.*}} ins(%[[X]], %[[K]] : tensor<?x3x4xf32>, tensor<i64>)
// RT-NEXT:     ^bb0(%[[IN:.*]]: f32, %[[KV:.*]]: i64, %{{.*}}: f32):
// RT-NEXT:       %[[I:.*]] = linalg.index 1 : index
// RT-NEXT:       %[[J:.*]] = linalg.index 2 : index
// RT-NEXT:       %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// RT-NEXT:       %[[KI:.*]] = arith.index_cast %[[KV]] : i64 to index
// RT-NEXT:       %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %[[KI]] : index
// RT-NEXT:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// RT-NEXT:       arith.select %[[KEEP]], %[[IN]], %[[ZERO]] : f32

// Compiled, the module takes k as its second input and its kernel reads
// it from a binding: no shape depends on it.
// RUN: kiln-compile %t.rt.onnx --target-device=cpu -o %t.rt.kiln
// RUN: kiln-dump-module %t.rt.kiln | FileCheck %s --check-prefix=MODULE
// MODULE: function 'main_graph' (?x3x4xf32, i64) -> (?x3x4xf32)
// MODULE-NOT: input.value
// MODULE: bindings [input0[0, +{{.*}}) read, input1[0, +8) read, output0

// A k of one element and rank 1 is viewed as 0-d first.
// RUN: /usr/bin/python3 %S/make_model.py trilu_runtime_k_1d %t.rt1.onnx
// RUN: kiln-import-onnx %t.rt1.onnx | FileCheck %s --check-prefix=RT1
// RT1:         %[[K0:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1xi64> into tensor<i64>
// RT1:         linalg.generic {{.*}} ins(%{{.*}}, %[[K0]] : tensor<3x4xi32>, tensor<i64>)
// RT1:           arith.cmpi sge,
// RT1:           arith.constant 0 : i32

// A constant k stays folded into the body, as before.
// RUN: /usr/bin/python3 %S/make_model.py trilu_constant_k %t.const.onnx
// RUN: kiln-import-onnx %t.const.onnx | FileCheck %s --check-prefix=CONST
// CONST-LABEL: func.func @main_graph(
// CONST-SAME:    %[[X:.*]]: tensor<?x3x4xf32> {kiln.name = "x"}) -> (tensor<?x3x4xf32> {kiln.name = "y"})
// CONST:         linalg.generic {{.*}} ins(%[[X]] : tensor<?x3x4xf32>)
// CONST-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CONST-NEXT:      %[[I:.*]] = linalg.index 1 : index
// CONST-NEXT:      %[[J:.*]] = linalg.index 2 : index
// CONST-NEXT:      %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CONST-NEXT:      %[[K:.*]] = arith.constant -1 : index
// CONST-NEXT:      %[[KEEP:.*]] = arith.cmpi sle, %[[D]], %[[K]] : index
// CONST-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CONST-NEXT:      arith.select %[[KEEP]], %[[IN]], %[[ZERO]] : f32
