// Errors are one line naming what is wrong: the node and its op type, the
// input, or the file.
// RUN: /usr/bin/python3 %S/make_model.py unsupported_op %t.op.onnx
// RUN: not kiln-import-onnx %t.op.onnx 2>&1 | FileCheck %s --check-prefix=OP
// OP: error: node 'coin' (Bernoulli): unsupported op type Bernoulli (opset 17)
// OP-NOT: error

// RUN: /usr/bin/python3 %S/make_model.py unsupported_attr %t.attr.onnx
// RUN: not kiln-import-onnx %t.attr.onnx 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: error: node 'conv' (Conv): unsupported auto_pad 'SAME_SIDEWAYS'

// RUN: /usr/bin/python3 %S/make_model.py unsupported_dtype %t.dtype.onnx
// RUN: not kiln-import-onnx %t.dtype.onnx 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: graph input 'x': unsupported element type string

// A symbolic dimension stays dynamic (import_dynamic.mlir); an op whose
// converter takes static shapes refuses it, naming the node and input, and
// --input-shape pins it.
// RUN: /usr/bin/python3 %S/make_model.py symbolic %t.sym.onnx
// RUN: /usr/bin/python3 %S/make_model.py dynamic_unsupported %t.dynop.onnx
// RUN: not kiln-import-onnx %t.dynop.onnx 2>&1 | FileCheck %s --check-prefix=DYNOP
// DYNOP: error: node 'hm' (Hardmax): unsupported dynamic dimension: input 0 'x' is ?x3, and op Hardmax takes static shapes only so far (pin the graph's inputs with --input-shape=NAME:DIMS)
// DYNOP-NOT: error
// RUN: /usr/bin/python3 %S/make_model.py dynamic_spatial_conv %t.dynconv.onnx
// RUN: not kiln-import-onnx %t.dynconv.onnx 2>&1 | FileCheck %s --check-prefix=DYNCONV
// DYNCONV: error: node 'conv' (Conv): unsupported dynamic dimension other than the batch (input 1x3x?x8, filter 4x3x3x3)
// RUN: /usr/bin/python3 %S/make_model.py dynamic_slice_batch %t.dynslice.onnx
// RUN: kiln-import-onnx %t.dynslice.onnx | FileCheck %s --check-prefix=DYNSLICE
// A slice of the dynamic dimension by constants is clamped to it per call
// (a gather); the dimension it leaves stays static.
// DYNSLICE: func.func @main_graph(%{{.*}}: tensor<?x6xf32> {{.*}}) -> (tensor<?x6xf32>
// DYNSLICE: linalg.generic
// RUN: /usr/bin/python3 %S/make_model.py dynamic_reshape_long_target %t.dynlong.onnx
// RUN: not kiln-import-onnx %t.dynlong.onnx 2>&1 | FileCheck %s --check-prefix=DYNLONG
// DYNLONG: error: node 'reshape' (Reshape): shape has 100 dimensions, more than the 16 a tensor may have
// RUN: kiln-import-onnx %t.sym.onnx --input-shape=x:5x3 | FileCheck %s --check-prefix=PINNED
// PINNED: func.func @main_graph(%arg0: tensor<5x3xf32> {kiln.name = "x"}) -> (tensor<5x3xf32> {kiln.name = "y"})
// RUN: not kiln-import-onnx %t.sym.onnx --input-shape=x:5x4 2>&1 | FileCheck %s --check-prefix=MISFIT
// MISFIT: error: --input-shape x:5x4 does not fit the model's shape batchx3
// RUN: not kiln-import-onnx %t.sym.onnx --input-shape=y:5x3 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: error: --input-shape names 'y', which is not an input of the graph (inputs: x)

// Shape arithmetic evaluated at import refuses division by zero and
// integer overflow, naming the operands.
// RUN: /usr/bin/python3 %S/make_model.py mod_by_zero %t.mod0.onnx
// RUN: not kiln-import-onnx %t.mod0.onnx 2>&1 | FileCheck %s --check-prefix=MOD0
// MOD0: error: node 'folded' (Mod): Mod(5, 0) divides by zero
// MOD0-NOT: error
// RUN: /usr/bin/python3 %S/make_model.py fmod_by_zero %t.fmod0.onnx
// RUN: not kiln-import-onnx %t.fmod0.onnx 2>&1 | FileCheck %s --check-prefix=FMOD0
// FMOD0: error: node 'folded' (Mod): Mod(-7, 0) divides by zero
// RUN: /usr/bin/python3 %S/make_model.py div_overflow %t.div.onnx
// RUN: not kiln-import-onnx %t.div.onnx 2>&1 | FileCheck %s --check-prefix=DIV
// DIV: error: node 'folded' (Div): Div(-9223372036854775808, -1) overflows int64
// RUN: /usr/bin/python3 %S/make_model.py mul_overflow_int32 %t.mul.onnx
// RUN: not kiln-import-onnx %t.mul.onnx 2>&1 | FileCheck %s --check-prefix=MUL
// MUL: error: node 'folded' (Mul): Mul(65536, 32768) overflows int32
// RUN: /usr/bin/python3 %S/make_model.py sub_overflow_uint8 %t.sub.onnx
// RUN: not kiln-import-onnx %t.sub.onnx 2>&1 | FileCheck %s --check-prefix=SUB
// SUB: error: node 'folded' (Sub): Sub(3, 5) overflows uint8
// RUN: /usr/bin/python3 %S/make_model.py neg_overflow %t.neg.onnx
// RUN: not kiln-import-onnx %t.neg.onnx 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: node 'folded' (Neg): Neg(-128) overflows int8
// RUN: /usr/bin/python3 %S/make_model.py sum_overflow %t.sum.onnx
// RUN: not kiln-import-onnx %t.sum.onnx 2>&1 | FileCheck %s --check-prefix=SUM
// SUM: error: node 'folded' (Sum): Sum(4611686018427387904, 4611686018427387904) overflows int64

// RUN: head -c 60 %t.op.onnx > %t.trunc.onnx
// RUN: not kiln-import-onnx %t.trunc.onnx 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: error: '{{.*}}.trunc.onnx' is not an ONNX model, or is truncated (protobuf parsing failed)
// RUN: not kiln-import-onnx %s 2>&1 | FileCheck %s --check-prefix=TEXT
// TEXT: error: '{{.*}}import_errors.mlir' is not an ONNX model

// RUN: rm -rf %t.ext && mkdir %t.ext
// RUN: /usr/bin/python3 %S/make_model.py external_data %t.ext/m.onnx
// RUN: kiln-import-onnx %t.ext/m.onnx | FileCheck %s --check-prefix=EXT
// EXT: arith.constant dense_resource<w> : tensor<16x16xf32>
// RUN: /usr/bin/python3 %S/make_model.py external_escape %t.ext/escape.onnx
// RUN: not kiln-import-onnx %t.ext/escape.onnx 2>&1 | FileCheck %s --check-prefix=ESCAPE
// ESCAPE: error: initializer tensor 'w': external data location '../escape.onnx.data' climbs out with '..'; it must be a relative path inside the model's folder
// RUN: rm %t.ext/m.onnx.data
// RUN: not kiln-import-onnx %t.ext/m.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: initializer tensor 'w': external data location 'm.onnx.data' in '{{.*}}': No such file or directory
