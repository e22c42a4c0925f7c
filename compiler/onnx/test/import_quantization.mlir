// The quantized products accumulate in i32 whatever K is (the numeric checks'
// small K would pass with narrower sums): each operand widens by its
// signedness less its zero point, linalg.matmul runs on i32, and the result
// is requantized in f32 (round half to even, saturate) before converting.
// RUN: /usr/bin/python3 %S/make_model.py qlinear_matmul %t.qmm.onnx
// RUN: kiln-import-onnx %t.qmm.onnx | FileCheck %s
// CHECK-LABEL: func.func @main_graph
// CHECK: linalg.generic
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: linalg.generic
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: linalg.matmul {{.*}} -> tensor<2x3xi32>
// CHECK: linalg.generic
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: math.roundeven
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// CHECK: return {{.*}} : tensor<2x3xi8>

// Scales that fit neither per tensor nor per axis, and forms Kiln lacks, are
// one-line errors naming the node.
// RUN: /usr/bin/python3 %S/make_model.py quantize_misfit_scale %t.misfit.onnx
// RUN: not kiln-import-onnx %t.misfit.onnx 2>&1 | FileCheck %s --check-prefix=MISFIT
// MISFIT: error: node 'q' (QuantizeLinear): y_scale 4 must have one element or 3 (along axis 1 of 2x3)
// RUN: /usr/bin/python3 %S/make_model.py quantize_blocked %t.blocked.onnx
// RUN: not kiln-import-onnx %t.blocked.onnx 2>&1 | FileCheck %s --check-prefix=BLOCKED
// BLOCKED: error: node 'qb' (QuantizeLinear): unsupported blocked quantization (block_size)
