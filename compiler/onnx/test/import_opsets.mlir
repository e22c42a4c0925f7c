// Ops whose operands moved from attributes to inputs: Unsqueeze/Squeeze axes
// and Clip bounds are attributes at opset 10, inputs at opset 13.
// RUN: /usr/bin/python3 %S/make_model.py opset11_squeeze_attr %t.10.onnx
// RUN: kiln-import-onnx %t.10.onnx | FileCheck %s --check-prefixes=CHECK,BOTH
// RUN: /usr/bin/python3 %S/make_model.py opset13_squeeze_input %t.13.onnx
// RUN: kiln-import-onnx %t.13.onnx | FileCheck %s --check-prefixes=CHECK13

// CHECK: tensor.expand_shape {{.*}} output_shape [1, 2, 3, 1]
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 3, 1]
// CHECK: arith.constant -1.000000e+00
// CHECK: arith.maximumf
// BOTH: arith.constant 1.000000e+00
// BOTH: arith.minimumf

// CHECK13: tensor.expand_shape {{.*}} output_shape [1, 2, 3, 1]
// CHECK13: tensor.expand_shape {{.*}} output_shape [2, 3, 1]
// CHECK13: arith.constant -1.000000e+00
// CHECK13: arith.maximumf
// CHECK13-NOT: arith.minimumf
