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

// swin_t's pads come from Mod over Shape: Mod, Sub and Concat fold, and
// Pad gets its pads as numbers.
// RUN: /usr/bin/python3 %S/make_model.py pad_mod %t.pad.onnx
// RUN: kiln-import-onnx %t.pad.onnx | FileCheck %s --check-prefix=PAD
// PAD-LABEL: func.func @main_graph(
// PAD-NOT: linalg
// PAD: tensor.pad %arg0 low[0, 0, 2, 3] high[0, 0, 1, 0]
// PAD: } : tensor<1x3x5x6xf32> to tensor<1x3x8x9xf32>

// A detector's pads from ReduceMax over constant image sizes (then Cast,
// Div, Ceil, Mul, Sub), and a sum of tiled anchors: the reduction and Tile
// fold too, so Pad gets numbers and the sum is a constant.
// RUN: /usr/bin/python3 %S/make_model.py pad_from_reduce_max %t.reduce.onnx
// RUN: kiln-import-onnx %t.reduce.onnx | FileCheck %s --check-prefix=REDUCE
// REDUCE-LABEL: func.func @main_graph(
// REDUCE: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 3, 2]
// REDUCE: arith.constant dense<6.000000e+00> : tensor<1xf32>
// REDUCE-NOT: linalg.reduce

// Elementwise ops with host tables fold to constants, with ONNX's
// integer semantics.
// RUN: /usr/bin/python3 %S/make_model.py fold_values %t.values.onnx
// RUN: kiln-import-onnx %t.values.onnx | FileCheck %s --check-prefix=VALUES
// VALUES-NOT: linalg
// VALUES: arith.constant dense<[1, -1, -3, 3]> : tensor<4xi64>
// VALUES-NEXT: arith.constant dense<[-3, 3, -3, 3]> : tensor<4xi32>
// VALUES-NEXT: arith.constant dense<5> : tensor<1xi8>
// VALUES-NEXT: arith.constant dense<[-1.500000e+00, 1.500000e+00]> : tensor<2xf32>
// VALUES-NEXT: arith.constant dense<[-3, 3, -9223372036854775808]> : tensor<3xi64>
// VALUES-NEXT: arith.constant dense<[3, -5]> : tensor<2xi16>
// VALUES-NEXT: arith.constant dense<[-0.000000e+00, 0x{{7|F}}FC00000]> : tensor<2xf32>
// VALUES-NEXT: arith.constant dense<-9223372036854775803> : tensor<1xi64>
// VALUES-NEXT: arith.constant dense<[3, 4]> : tensor<2xi64>
// VALUES-NEXT: arith.constant dense<[3, -4]> : tensor<2xi32>
// VALUES-NEXT: arith.constant dense<[-1.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<3xf32>
// VALUES-NEXT: arith.constant dense<[-2.000000e+00, 2.000000e+00]> : tensor<2xf32>
// VALUES-NEXT: arith.constant dense<[-1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// VALUES-NEXT: arith.constant dense<[-2.000000e+00, 2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// VALUES-NEXT: arith.constant dense<4.000000e+00> : tensor<1xf32>
// VALUES-NOT: linalg

// Ops without a host table fold through their converters' bodies (MLIR's
// folders on each element): math, Pow, BitShift, Mean, IsInf, Relu and Clip
// on integers, LeakyRelu, Trilu (element positions), Cast of uint64 keeping
// its bits, Equal on bools. Exp on f16 (math does not fold half types) and
// on more than 2^16 elements stay generics, run at run time.
// RUN: /usr/bin/python3 %S/make_model.py fold_bodies %t.bodies.onnx
// RUN: kiln-import-onnx %t.bodies.onnx | FileCheck %s --check-prefix=BODIES
// BODIES: %[[H:.*]] = arith.constant dense<1.000000e+00> : tensor<1xf16>
// BODIES: linalg.generic {{.*}} ins(%[[H]] : tensor<1xf16>)
// BODIES: math.exp %{{.*}} : f16
// BODIES: %[[BIG:.*]] = arith.constant dense<0.000000e+00> : tensor<65537xf32>
// BODIES: linalg.generic {{.*}} ins(%[[BIG]] : tensor<65537xf32>)
// BODIES: math.exp %{{.*}} : f32
// BODIES: } -> tensor<65537xf32>
// BODIES-NEXT: arith.constant dense<[1.000000e+00, 2.71828175]> : tensor<2xf32>
// BODIES-NEXT: arith.constant dense<[1024, -27]> : tensor<2xi64>
// BODIES-NEXT: arith.constant dense<[2.000000e+00, 5.000000e-01]> : tensor<2xf32>
// BODIES-NEXT: arith.constant dense<[0, 15]> : tensor<2xi8>
// BODIES-NEXT: arith.constant dense<[-2147483648, 48]> : tensor<2xi32>
// BODIES-NEXT: arith.constant dense<[2, -2]> : tensor<2xi32>
// BODIES-NEXT: arith.constant dense<[true, true, false]> : tensor<3xi1>
// BODIES-NEXT: arith.constant dense<[0, 4]> : tensor<2xi64>
// BODIES-NEXT: arith.constant dense<[0, 5, 10]> : tensor<3xi64>
// BODIES-NEXT: arith.constant dense<[-1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// BODIES-NEXT: arith.constant dense<{{\[\[}}1, 2], [0, 4]]> : tensor<2x2xi32>
// BODIES-NEXT: arith.constant dense<[-1, -9223372036854775803]> : tensor<2xi64>
// BODIES-NEXT: arith.constant dense<[true, false]> : tensor<2xi1>
// BODIES-NEXT: return

// Opset 18's bitwise ops: folded on constants, generics on run-time values.
// RUN: /usr/bin/python3 %S/make_model.py fold_bitwise %t.bitwise.onnx
// RUN: kiln-import-onnx %t.bitwise.onnx | FileCheck %s --check-prefix=BITWISE
// BITWISE-NOT: linalg
// BITWISE: arith.constant dense<[8, 7]> : tensor<2xi32>
// BITWISE-NEXT: arith.constant dense<[15, -127]> : tensor<2xi8>
// BITWISE-NEXT: arith.constant dense<[6, -1]> : tensor<2xi64>
// BITWISE-NEXT: arith.constant dense<[-1, 0]> : tensor<2xi16>
// BITWISE-NEXT: return
// RUN: /usr/bin/python3 %S/make_model.py bitwise_runtime %t.bitwise_rt.onnx
// RUN: kiln-import-onnx %t.bitwise_rt.onnx | FileCheck %s --check-prefix=BITWISE-RT
// BITWISE-RT: linalg.generic
// BITWISE-RT: arith.andi %{{.*}}, %{{.*}} : i32
// BITWISE-RT: linalg.generic
// BITWISE-RT: %[[ONES:.*]] = arith.constant -1 : i32
// BITWISE-RT: arith.xori %{{.*}}, %[[ONES]] : i32

// A shape computed from a dynamic batch returned as a graph output: a
// kernel writes the host's extents (the batch, and 3) into the result.
// RUN: /usr/bin/python3 %S/make_model.py dynamic_shape_output %t.dynshape.onnx
// RUN: kiln-import-onnx %t.dynshape.onnx | FileCheck %s --check-prefix=DYNSHAPE
// DYNSHAPE-LABEL: func.func @main_graph(
// DYNSHAPE-SAME:    -> (tensor<2xi64> {kiln.name = "s"})
// DYNSHAPE:         %[[N:.+]] = tensor.dim %arg0, %c0
// DYNSHAPE:         linalg.generic
// DYNSHAPE:           arith.select %{{.+}}, %[[N]], %c3
// DYNSHAPE:           arith.index_castui
