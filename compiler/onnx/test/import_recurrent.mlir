// RNN, GRU and LSTM unroll over the steps: one matmul projects X for every
// step ([T*B, I] x [I, 4H], the constant W transposed on the host), each
// later step multiplies h by R^T (the first starts from zeros and has no
// product), and sequence_lens masks each step's state by `step < length`.
// RUN: /usr/bin/python3 %S/make_model.py recurrent_lstm %t.lstm.onnx
// RUN: kiln-import-onnx %t.lstm.onnx | FileCheck %s
// CHECK-LABEL: func.func @main_graph
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul {{.*}} -> tensor<6x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: arith.cmpi slt, %c0_i32
// CHECK: linalg.matmul {{.*}} -> tensor<2x16xf32>
// CHECK: arith.cmpi slt, %c1_i32
// CHECK: linalg.matmul {{.*}} -> tensor<2x16xf32>
// CHECK: arith.cmpi slt, %c2_i32
// CHECK-NOT: linalg.matmul
// CHECK: return {{.*}} : tensor<3x1x2x4xf32>, tensor<1x2x4xf32>

// Forms Kiln lacks and misfit operands are one-line errors naming the node.
// RUN: /usr/bin/python3 %S/make_model.py recurrent_bad_activation %t.act.onnx
// RUN: not kiln-import-onnx %t.act.onnx 2>&1 | FileCheck %s --check-prefix=ACT
// ACT: error: node 'rec' (RNN): unsupported activation 'Swish'
// RUN: /usr/bin/python3 %S/make_model.py recurrent_input_forget %t.forget.onnx
// RUN: not kiln-import-onnx %t.forget.onnx 2>&1 | FileCheck %s --check-prefix=FORGET
// FORGET: error: node 'rec' (LSTM): unsupported input_forget 1 (coupled input and forget gates)
// RUN: /usr/bin/python3 %S/make_model.py recurrent_misfit_w %t.misfit.onnx
// RUN: not kiln-import-onnx %t.misfit.onnx 2>&1 | FileCheck %s --check-prefix=MISFIT
// MISFIT: error: node 'rec' (GRU): W is 1x10x3, want 1x12x3
