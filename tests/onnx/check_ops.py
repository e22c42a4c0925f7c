#!/usr/bin/python3
"""Numeric checks of the ONNX importer's converters.

Each case is a one- or few-node ONNX model built with onnx.helper at a
chosen opset, random inputs (seeded, never all zeros) and a float64 numpy
reference written here from the ONNX operator definitions. The model is
compiled by kiln-compile (which imports .onnx files in-process), run by
kiln-run-module on local-task, and compared (onnxharness: fp32 |a-b| <= 1e-5 + 1e-4*|ref| against the float64
reference rounded to float32, integers and booleans exactly).

  /usr/bin/python3 tests/onnx/check_ops.py --bin-dir build/bin [-k FILTER]

For a GPU machine without the compiler: --save-kit DIR compiles each case
for --target-device/--cuda-target and keeps its module, inputs and
references in DIR; there `check_ops.py --bin-dir BIN --kit DIR --device
cuda [--wrapper "compute-sanitizer ..."]` runs and compares them.

The ONNX backend node-test runner (tests/onnx/run_node_tests.py) checks
against ONNX's own reference outputs; these cases cover the attribute forms
and opset variants the converters choose between.
"""

import argparse
import json
import math
import shlex
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnxharness  # noqa: E402

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def rand(shape, seed, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


ELEM = {np.dtype(np.float32): TensorProto.FLOAT,
        np.dtype(np.float64): TensorProto.DOUBLE,
        np.dtype(np.int64): TensorProto.INT64,
        np.dtype(np.int32): TensorProto.INT32,
        np.dtype(np.bool_): TensorProto.BOOL,
        np.dtype(np.uint8): TensorProto.UINT8,
        np.dtype(np.int8): TensorProto.INT8}


def outputType(ref):
    """References are computed in float64; the models compute float32."""
    return np.dtype(np.float32) if ref.dtype == np.float64 else ref.dtype


def single(op, inputs, refs, attrs=None, opset=17, initializers=None,
           nin=None):
    """A model of one node: `inputs` (name -> array) are graph inputs,
    `initializers` (name -> array) constants; `refs` the expected outputs."""
    initializers = initializers or {}
    names = nin if nin is not None else list(inputs) + list(initializers)
    outs = [f"out{i}" for i in range(len(refs))]
    node = helper.make_node(op, names, outs, name=f"{op.lower()}_node",
                            **(attrs or {}))
    graph = helper.make_graph(
        [node], "check",
        [helper.make_tensor_value_info(n, ELEM[a.dtype], a.shape)
         for n, a in inputs.items()],
        [helper.make_tensor_value_info(o, ELEM[outputType(r)], r.shape)
         for o, r in zip(outs, refs)],
        initializer=[numpy_helper.from_array(a, n)
                     for n, a in initializers.items()])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model, list(inputs.values()), refs


# --- elementwise -----------------------------------------------------------

def binary(op, fn, opset=17, a_shape=(2, 3, 4), b_shape=(3, 1)):
    a, b = rand(a_shape, 1), rand(b_shape, 2)
    ref = fn(a.astype(np.float64), b.astype(np.float64))
    return single(op, {"a": a, "b": b}, [ref], opset=opset)


@case
def add_broadcast():
    return binary("Add", np.add)


@case
def sub_broadcast():
    return binary("Sub", np.subtract, b_shape=(4,))


@case
def mul_scalar():
    return binary("Mul", np.multiply, b_shape=())


@case
def div_broadcast():
    a, b = rand((2, 3, 4), 1), rand((3, 1), 2, 0.5, 2.0)
    return single("Div", {"a": a, "b": b},
                  [a.astype(np.float64) / b.astype(np.float64)])


@case
def pow_float():
    a, b = rand((3, 4), 1, 0.1, 3.0), rand((4,), 2)
    return single("Pow", {"a": a, "b": b},
                  [np.power(a.astype(np.float64), b.astype(np.float64))])


@case
def pow_int_exponent():
    a = rand((3, 4), 1)
    b = np.array([0, 1, 2, 3], np.int64)
    return single("Pow", {"a": a, "b": b},
                  [np.power(a.astype(np.float64), b)])


@case
def max_min_variadic():
    a, b, c = rand((2, 3), 1), rand((3,), 2), rand((2, 1), 3)
    m, _, r = single("Max", {"a": a, "b": b, "c": c},
                     [np.maximum(np.maximum(a, b), c).astype(np.float64)])
    return m, _, r


@case
def sum_mean():
    a, b, c = rand((2, 3), 1), rand((3,), 2), rand((2, 1), 3)
    s = a.astype(np.float64) + b + c
    return single("Mean", {"a": a, "b": b, "c": c}, [s / 3])


@case
def int_arith():
    a = np.arange(-6, 6, dtype=np.int64).reshape(3, 4)
    b = np.array([1, -2, 3, 5], np.int64)
    # ONNX integer Div truncates toward zero.
    return single("Div", {"a": a, "b": b},
                  [np.trunc(a / b).astype(np.int64)])


@case
def mod_python_and_fmod():
    a = np.arange(-6, 6, dtype=np.int64).reshape(3, 4)
    b = np.array([4, -3, 5, -5], np.int64)
    return single("Mod", {"a": a, "b": b}, [np.mod(a, b)])


@case
def mod_fmod_float():
    a, b = rand((3, 4), 1), rand((4,), 2, 0.5, 1.5)
    return single("Mod", {"a": a, "b": b},
                  [np.fmod(a.astype(np.float64), b)], attrs={"fmod": 1})


@case
def comparisons():
    a, b = rand((2, 3), 1), rand((3,), 2)
    a[0, 0] = b[0]
    return single("LessOrEqual", {"a": a, "b": b}, [a <= b])


@case
def equal_int():
    a = np.array([[1, 2, 3], [3, 2, 1]], np.int64)
    b = np.array([1, 5, 1], np.int64)
    return single("Equal", {"a": a, "b": b}, [a == b])


@case
def logic_xor():
    a = np.array([[True, False, True], [False, False, True]])
    b = np.array([True, False, False])
    return single("Xor", {"a": a, "b": b}, [a ^ b])


@case
def not_bool():
    a = np.array([[True, False, True]])
    return single("Not", {"a": a}, [~a])


def unary(op, fn, lo=-2.0, hi=2.0, attrs=None, opset=17):
    x = rand((3, 5), 7, lo, hi)
    return single(op, {"x": x}, [fn(x.astype(np.float64))], attrs=attrs,
                  opset=opset)


for _name, _fn, _lo, _hi in [
        ("Relu", lambda x: np.maximum(x, 0), -2, 2),
        ("Sigmoid", lambda x: 1 / (1 + np.exp(-x)), -6, 6),
        ("Tanh", np.tanh, -3, 3), ("Exp", np.exp, -3, 3),
        ("Log", np.log, 0.1, 4), ("Sqrt", np.sqrt, 0.1, 4),
        ("Abs", np.abs, -2, 2), ("Neg", np.negative, -2, 2),
        ("Reciprocal", np.reciprocal, 0.5, 2), ("Floor", np.floor, -3, 3),
        ("Ceil", np.ceil, -3, 3),
        ("Erf", np.vectorize(math.erf), -2, 2),
        ("Sin", np.sin, -3, 3), ("Cos", np.cos, -3, 3),
        ("Tan", np.tan, -1, 1), ("Asin", np.arcsin, -0.9, 0.9),
        ("Acos", np.arccos, -0.9, 0.9), ("Atan", np.arctan, -3, 3),
        ("Sinh", np.sinh, -2, 2), ("Cosh", np.cosh, -2, 2),
        ("Asinh", np.arcsinh, -2, 2), ("Acosh", np.arccosh, 1.1, 3),
        ("Atanh", np.arctanh, -0.9, 0.9), ("Sign", np.sign, -2, 2),
        ("Round", np.round, -3, 3),
        ("Softplus", lambda x: np.log(np.exp(x) + 1), -4, 4),
        ("Softsign", lambda x: x / (1 + np.abs(x)), -4, 4),
        ("HardSwish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), -5, 5),
        ("Mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), -4, 4)]:
    def _make(op=_name, fn=_fn, lo=_lo, hi=_hi):
        # Mish is an opset-18 op.
        return lambda: unary(op, fn, lo, hi, opset=18 if op == "Mish" else 17)
    CASES[f"unary_{_name.lower()}"] = _make()


@case
def leaky_relu():
    return unary("LeakyRelu", lambda x: np.where(x < 0, 0.2 * x, x),
                 attrs={"alpha": 0.2})


@case
def hard_sigmoid():
    return unary("HardSigmoid", lambda x: np.clip(0.3 * x + 0.4, 0, 1),
                 attrs={"alpha": 0.3, "beta": 0.4}, lo=-5, hi=5)


@case
def elu():
    return unary("Elu", lambda x: np.where(x < 0, 0.7 * (np.exp(x) - 1), x),
                 attrs={"alpha": 0.7})


@case
def selu():
    a, g = 1.67326319217681884765625, 1.05070102214813232421875
    return unary("Selu",
                 lambda x: g * np.where(x <= 0, a * np.exp(x) - a, x))


@case
def celu():
    return unary("Celu", lambda x: np.maximum(0, x) +
                 np.minimum(0, 1.5 * (np.exp(x / 1.5) - 1)),
                 attrs={"alpha": 1.5})


@case
def gelu_tanh():
    def ref(x):
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) *
                                      (x + 0.044715 * x ** 3)))
    return unary("Gelu", ref, attrs={"approximate": "tanh"}, opset=20)


@case
def prelu():
    x, s = rand((2, 3, 4), 1), rand((3, 1), 2, 0.1, 0.5)
    return single("PRelu", {"x": x}, [np.where(x < 0, x * s.astype(np.float64),
                                                x).astype(np.float64)],
                  initializers={"slope": s})


@case
def clip_attributes_opset6():
    return unary("Clip", lambda x: np.clip(x, -0.5, 1.0),
                 attrs={"min": -0.5, "max": 1.0}, opset=6)


@case
def clip_inputs_opset13():
    x = rand((3, 5), 7)
    return single("Clip", {"x": x}, [np.clip(x, -0.5, 1.0).astype(np.float64)],
                  initializers={"lo": np.array(-0.5, np.float32),
                                "hi": np.array(1.0, np.float32)}, opset=13)


@case
def clip_min_only_runtime():
    x = rand((3, 5), 7)
    lo = np.array(0.25, np.float32)
    return single("Clip", {"x": x, "lo": lo},
                  [np.maximum(x, lo).astype(np.float64)], opset=13,
                  nin=["x", "lo"])


@case
def cast_float_to_int_and_bool():
    x = rand((2, 5), 3, -4, 4)
    return single("Cast", {"x": x}, [np.trunc(x).astype(np.int32)],
                  attrs={"to": TensorProto.INT32})


@case
def cast_int_to_float():
    x = np.arange(-5, 5, dtype=np.int64).reshape(2, 5)
    return single("Cast", {"x": x}, [x.astype(np.float64)],
                  attrs={"to": TensorProto.FLOAT})


# --- matrix products --------------------------------------------------------

@case
def matmul_2d():
    a, b = rand((5, 7), 1), rand((7, 3), 2)
    return single("MatMul", {"a": a, "b": b},
                  [a.astype(np.float64) @ b.astype(np.float64)])


@case
def matmul_batched_broadcast():
    a, b = rand((2, 1, 4, 5), 1), rand((3, 5, 6), 2)
    return single("MatMul", {"a": a, "b": b},
                  [np.matmul(a.astype(np.float64), b.astype(np.float64))])


@case
def matmul_linear_layer():
    a, b = rand((2, 3, 4, 5), 1), rand((5, 6), 2)
    return single("MatMul", {"a": a}, [np.matmul(a.astype(np.float64), b)],
                  initializers={"b": b})


@case
def matmul_vectors():
    a, b = rand((5,), 1), rand((2, 5, 3), 2)
    return single("MatMul", {"a": a, "b": b},
                  [np.matmul(a.astype(np.float64), b.astype(np.float64))])


@case
def gemm_transposed_constant():
    a, w, c = rand((4, 6), 1), rand((3, 6), 2), rand((3,), 3)
    ref = a.astype(np.float64) @ w.T.astype(np.float64) + c
    return single("Gemm", {"a": a}, [ref], attrs={"transB": 1},
                  initializers={"w": w, "c": c})


@case
def gemm_all_attributes():
    a, b, c = rand((6, 4), 1), rand((5, 6), 2), rand((1, 5), 3)
    ref = 0.25 * (a.T.astype(np.float64) @ b.T.astype(np.float64)) + 0.35 * c
    return single("Gemm", {"a": a, "b": b, "c": c}, [ref],
                  attrs={"transA": 1, "transB": 1, "alpha": 0.25,
                         "beta": 0.35})


# --- convolution and pooling ------------------------------------------------

def conv_ref(x, w, b, strides, pads, dilations, group):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    nsp = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[nsp + i])
                                      for i in range(nsp)])
    n, c = x.shape[:2]
    f = w.shape[0]
    k = w.shape[2:]
    out_sp = [(x.shape[2 + i] - ((k[i] - 1) * dilations[i] + 1)) //
              strides[i] + 1 for i in range(nsp)]
    y = np.zeros([n, f] + out_sp)
    cg, fg = c // group, f // group
    for o in np.ndindex(*out_sp):
        for kk in np.ndindex(*k):
            idx = tuple(o[i] * strides[i] + kk[i] * dilations[i]
                        for i in range(nsp))
            patch = x[(slice(None), slice(None)) + idx]  # [n, c]
            for g in range(group):
                y[(slice(None), slice(g * fg, (g + 1) * fg)) + o] += (
                    patch[:, g * cg:(g + 1) * cg] @
                    w[(slice(g * fg, (g + 1) * fg), slice(None)) + kk].T)
    if b is not None:
        y += b.reshape([1, f] + [1] * nsp)
    return y


def conv_case(xs, ws, group=1, strides=None, pads=None, dilations=None,
              bias=True, auto_pad=None, ref_pads=None):
    nsp = len(xs) - 2
    x, w = rand(xs, 1), rand(ws, 2)
    b = rand((ws[0],), 3) if bias else None
    strides = strides or [1] * nsp
    dilations = dilations or [1] * nsp
    attrs = {"group": group, "strides": strides, "dilations": dilations}
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = pads or [0] * 2 * nsp
    ref = conv_ref(x, w, b, strides, ref_pads or pads or [0] * 2 * nsp,
                   dilations, group)
    inits = {"w": w}
    if bias:
        inits["b"] = b
    return single("Conv", {"x": x}, [ref], attrs=attrs, initializers=inits)


@case
def conv2d_strided_padded():
    return conv_case((1, 3, 9, 8), (4, 3, 3, 3), strides=[2, 2],
                     pads=[1, 0, 2, 1])


@case
def conv2d_dilated_no_bias():
    return conv_case((2, 2, 9, 9), (3, 2, 3, 2), dilations=[2, 3],
                     bias=False)


@case
def conv2d_depthwise():
    return conv_case((1, 4, 7, 7), (4, 1, 3, 3), group=4, pads=[1, 1, 1, 1])


@case
def conv2d_grouped():
    return conv_case((1, 4, 6, 6), (6, 2, 3, 3), group=2, pads=[1, 1, 1, 1])


@case
def conv2d_same_upper():
    # in 7, stride 2 -> out 4, total pad 2 (1 + 1)... with k3: 3*2+3-7 = 2
    return conv_case((1, 2, 7, 6), (2, 2, 3, 3), strides=[2, 2],
                     auto_pad="SAME_UPPER", ref_pads=[1, 0, 1, 1])


@case
def conv2d_same_lower():
    return conv_case((1, 2, 6, 6), (2, 2, 2, 2), auto_pad="SAME_LOWER",
                     ref_pads=[1, 1, 0, 0])


@case
def conv1d_grouped():
    return conv_case((1, 4, 10), (4, 2, 3), group=2, strides=[2],
                     pads=[1, 1])


@case
def conv3d():
    return conv_case((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), pads=[1, 0, 0, 0, 1, 1])


def pool_ref(x, kernel, strides, pads, kind, ceil=False,
             count_include_pad=False, dilations=None):
    x = x.astype(np.float64)
    nsp = x.ndim - 2
    dilations = dilations or [1] * nsp
    sp = x.shape[2:]
    outs = []
    for i in range(nsp):
        ext = (kernel[i] - 1) * dilations[i] + 1
        span = sp[i] + pads[i] + pads[nsp + i] - ext
        o = (-(-span // strides[i]) if ceil else span // strides[i]) + 1
        if ceil and (o - 1) * strides[i] >= sp[i] + pads[i]:
            o -= 1
        outs.append(o)
    y = np.zeros(list(x.shape[:2]) + outs)
    for o in np.ndindex(*outs):
        vals, count = [], 0
        for kk in np.ndindex(*kernel):
            pos = [o[i] * strides[i] + kk[i] * dilations[i] - pads[i]
                   for i in range(nsp)]
            inside = all(0 <= pos[i] < sp[i] for i in range(nsp))
            in_pad = all(-pads[i] <= pos[i] < sp[i] + pads[nsp + i]
                         for i in range(nsp))
            if inside:
                vals.append(x[(slice(None), slice(None)) + tuple(pos)])
            if inside or (count_include_pad and in_pad):
                count += 1
        stack = np.stack(vals)
        y[(slice(None), slice(None)) + o] = (
            stack.max(0) if kind == "max" else stack.sum(0) / count)
    return y


@case
def maxpool_ceil_padded():
    x = rand((1, 2, 7, 8), 1)
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 0, 0],
             "ceil_mode": 1}
    return single("MaxPool", {"x": x},
                  [pool_ref(x, [3, 3], [2, 2], [1, 1, 0, 0], "max", True)],
                  attrs=attrs)


@case
def maxpool_dilated_1d():
    x = rand((1, 2, 11), 1)
    attrs = {"kernel_shape": [3], "strides": [2], "dilations": [2]}
    return single("MaxPool", {"x": x},
                  [pool_ref(x, [3], [2], [0, 0], "max", dilations=[2])],
                  attrs=attrs)


@case
def avgpool_exclude_pad():
    x = rand((1, 2, 6, 7), 1)
    attrs = {"kernel_shape": [3, 2], "strides": [2, 2],
             "pads": [1, 1, 1, 0]}
    return single("AveragePool", {"x": x},
                  [pool_ref(x, [3, 2], [2, 2], [1, 1, 1, 0], "avg")],
                  attrs=attrs)


@case
def avgpool_include_pad_ceil():
    x = rand((1, 2, 6, 7), 1)
    attrs = {"kernel_shape": [3, 3], "strides": [2, 2],
             "pads": [1, 1, 1, 1], "count_include_pad": 1, "ceil_mode": 1}
    return single("AveragePool", {"x": x},
                  [pool_ref(x, [3, 3], [2, 2], [1, 1, 1, 1], "avg", True,
                            True)], attrs=attrs)


@case
def avgpool_3d():
    x = rand((1, 2, 4, 5, 4), 1)
    attrs = {"kernel_shape": [2, 2, 2], "strides": [1, 2, 1]}
    return single("AveragePool", {"x": x},
                  [pool_ref(x, [2, 2, 2], [1, 2, 1], [0] * 6, "avg")],
                  attrs=attrs)


@case
def global_average_pool():
    x = rand((2, 3, 5, 4), 1)
    return single("GlobalAveragePool", {"x": x},
                  [x.astype(np.float64).mean(axis=(2, 3), keepdims=True)])


@case
def global_max_pool():
    x = rand((2, 3, 5, 4), 1)
    return single("GlobalMaxPool", {"x": x},
                  [x.astype(np.float64).max(axis=(2, 3), keepdims=True)])


@case
def batchnorm_constant_statistics():
    x = rand((2, 3, 4, 5), 1)
    s, b = rand((3,), 2), rand((3,), 3)
    mean, var = rand((3,), 4), rand((3,), 5, 0.5, 2.0)
    ref = ((x.astype(np.float64) - mean.reshape(3, 1, 1)) /
           np.sqrt(var.reshape(3, 1, 1).astype(np.float64) + 1e-3) *
           s.reshape(3, 1, 1) + b.reshape(3, 1, 1))
    return single("BatchNormalization", {"x": x}, [ref],
                  attrs={"epsilon": 1e-3},
                  initializers={"s": s, "b": b, "mean": mean, "var": var})


@case
def batchnorm_runtime_statistics():
    x = rand((2, 3, 4), 1)
    s, b = rand((3,), 2), rand((3,), 3)
    mean, var = rand((3,), 4), rand((3,), 5, 0.5, 2.0)
    ref = ((x.astype(np.float64) - mean.reshape(3, 1)) /
           np.sqrt(var.reshape(3, 1).astype(np.float64) + 1e-5) *
           s.reshape(3, 1) + b.reshape(3, 1))
    return single("BatchNormalization",
                  {"x": x, "s": s, "b": b, "mean": mean, "var": var}, [ref])


# --- shapes, data movement, softmax -----------------------------------------

@case
def reshape_zero_and_minus_one():
    x = rand((2, 3, 4), 1)
    return single("Reshape", {"x": x}, [x.reshape(2, 4, 3).astype(np.float64)],
                  initializers={"shape": np.array([0, -1, 3], np.int64)})


@case
def flatten_axis2():
    x = rand((2, 3, 4, 5), 1)
    return single("Flatten", {"x": x}, [x.reshape(6, 20).astype(np.float64)],
                  attrs={"axis": 2})


@case
def transpose_perm():
    x = rand((2, 3, 4), 1)
    return single("Transpose", {"x": x},
                  [x.transpose(1, 2, 0).astype(np.float64)],
                  attrs={"perm": [1, 2, 0]})


@case
def concat_axis1():
    a, b = rand((2, 3, 4), 1), rand((2, 1, 4), 2)
    return single("Concat", {"a": a, "b": b},
                  [np.concatenate([a, b], 1).astype(np.float64)],
                  attrs={"axis": -2})


@case
def gather_runtime_indices():
    x = rand((5, 4, 3), 1)
    i = np.array([[0, -1], [3, 1]], np.int64)
    return single("Gather", {"x": x, "i": i},
                  [np.take(x, i, axis=1).astype(np.float64)],
                  attrs={"axis": 1})


@case
def gather_scalar_index():
    x = rand((5, 4), 1)
    return single("Gather", {"x": x}, [x[2].astype(np.float64)],
                  initializers={"i": np.array(2, np.int64)})


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@case
def softmax_opset13_axis1():
    x = rand((2, 3, 4), 1, -4, 4)
    return single("Softmax", {"x": x}, [softmax_ref(x.astype(np.float64), 1)],
                  attrs={"axis": 1}, opset=13)


@case
def softmax_opset11_flattens():
    x = rand((2, 3, 4), 1, -4, 4)
    ref = softmax_ref(x.reshape(2, 12).astype(np.float64), 1).reshape(2, 3, 4)
    return single("Softmax", {"x": x}, [ref], attrs={"axis": 1}, opset=11)


@case
def logsoftmax_opset13():
    x = rand((3, 5), 1, -30, 30)
    xd = x.astype(np.float64)
    m = xd.max(axis=-1, keepdims=True)
    ref = xd - m - np.log(np.exp(xd - m).sum(-1, keepdims=True))
    return single("LogSoftmax", {"x": x}, [ref], opset=13)


@case
def squeeze_unsqueeze_inputs():
    x = rand((3, 1, 4), 1)
    return single("Squeeze", {"x": x}, [x.reshape(3, 4).astype(np.float64)],
                  initializers={"axes": np.array([-2], np.int64)}, opset=13)


@case
def dropout_inference_with_mask():
    x = rand((3, 4), 1)
    return single("Dropout", {"x": x},
                  [x.astype(np.float64), np.ones((3, 4), bool)], opset=13)


# --- slicing, padding, broadcasting ---------------------------------------

@case
def slice_steps_and_negative():
    x = rand((5, 6, 4), 1)
    inits = {"starts": np.array([1, -1, 0], np.int64),
             "ends": np.array([5, -7, 9223372036854775807], np.int64),
             "axes": np.array([0, 1, 2], np.int64),
             "steps": np.array([2, -2, 3], np.int64)}
    return single("Slice", {"x": x}, [x[1:5:2, -1:-7:-2, 0::3].astype(
        np.float64)], initializers=inits)


@case
def roll_height_then_width():
    # torch.roll(x, (-3, -3), (1, 2)) as the exporter writes it (Swin-T's
    # shifted windows): Slice and Concat along the height, then along the
    # width, whose halves are not views (kiln-form-dispatches puts them in
    # their concatenation's dispatch), then an op reading the roll.
    x = rand((2, 9, 10, 8), 1)
    inits = {}
    nodes = []
    for axis, name, src, n in ((1, "h", "x", 9), (2, "w", "h", 10)):
        for part, (start, end) in (("a", (3, n)), ("b", (0, 3))):
            for key, value in (("s", start), ("e", end), ("ax", axis)):
                inits[f"{name}{part}_{key}"] = np.array([value], np.int64)
            nodes.append(helper.make_node(
                "Slice", [src, f"{name}{part}_s", f"{name}{part}_e",
                          f"{name}{part}_ax"], [f"{name}{part}"],
                name=f"slice_{name}{part}"))
        nodes.append(helper.make_node("Concat", [f"{name}a", f"{name}b"],
                                      [name], axis=axis, name=f"cat_{name}"))
    nodes.append(helper.make_node("Neg", ["w"], ["y"], name="neg"))
    graph = helper.make_graph(
        nodes, "check",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
        initializer=[numpy_helper.from_array(a, n) for n, a in inits.items()])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    ref = -np.roll(x.astype(np.float64), (-3, -3), (1, 2))
    return model, [x], [ref]


@case
def slice_opset9_attributes():
    x = rand((4, 5), 1)
    return single("Slice", {"x": x}, [x[1:3, 2:].astype(np.float64)],
                  attrs={"starts": [1, 2], "ends": [3, 100], "axes": [0, 1]},
                  opset=9)


@case
def split_sizes_input():
    x = rand((2, 7), 1)
    return single("Split", {"x": x},
                  [x[:, :3].astype(np.float64), x[:, 3:].astype(np.float64)],
                  attrs={"axis": 1},
                  initializers={"split": np.array([3, 4], np.int64)},
                  opset=13)


@case
def split_num_outputs_opset18():
    x = rand((7, 2), 1)
    parts = [x[0:3], x[3:6], x[6:7]]
    return single("Split", {"x": x}, [p.astype(np.float64) for p in parts],
                  attrs={"axis": 0, "num_outputs": 3}, opset=18)


@case
def pad_constant_value():
    x = rand((2, 3), 1)
    return single("Pad", {"x": x},
                  [np.pad(x, [(1, 0), (2, 1)],
                          constant_values=1.5).astype(np.float64)],
                  initializers={"pads": np.array([1, 2, 0, 1], np.int64),
                                "value": np.array(1.5, np.float32)})


@case
def pad_reflect_with_axes_opset18():
    x = rand((2, 4, 5), 1)
    return single("Pad", {"x": x},
                  [np.pad(x, [(0, 0), (2, 1), (0, 0)],
                          mode="reflect").astype(np.float64)],
                  attrs={"mode": "reflect"},
                  initializers={"pads": np.array([2, 1], np.int64),
                                "value": np.array(0, np.float32),
                                "axes": np.array([1], np.int64)}, opset=18)


@case
def pad_edge_negative():
    x = rand((4, 5), 1)
    ref = np.pad(x, [(0, 0), (2, 0)], mode="edge")[1:, :]
    return single("Pad", {"x": x}, [ref.astype(np.float64)],
                  attrs={"mode": "edge"},
                  initializers={"pads": np.array([-1, 2, 0, 0], np.int64)})


@case
def expand_bidirectional():
    x = rand((3, 1), 1)
    return single("Expand", {"x": x},
                  [np.broadcast_to(x, (2, 3, 4)).astype(np.float64)],
                  initializers={"shape": np.array([2, 1, 4], np.int64)})


@case
def tile_repeats():
    x = rand((2, 3), 1)
    return single("Tile", {"x": x}, [np.tile(x, (2, 3)).astype(np.float64)],
                  initializers={"repeats": np.array([2, 3], np.int64)})


@case
def where_broadcast():
    c = np.array([[True], [False]])
    x, y = rand((2, 3), 1), rand((3,), 2)
    return single("Where", {"c": c, "x": x, "y": y},
                  [np.where(c, x, y).astype(np.float64)])


# --- reductions --------------------------------------------------------------

def reduce(op, fn, opset, axes=(1,), keepdims=1, lo=-2, hi=2, as_input=None):
    x = rand((3, 4, 5), 1, lo, hi)
    ref = fn(x.astype(np.float64), tuple(axes), bool(keepdims))
    as_input = opset >= (13 if op == "ReduceSum" else 18) \
        if as_input is None else as_input
    if as_input:
        return single(op, {"x": x}, [ref], attrs={"keepdims": keepdims},
                      initializers={"axes": np.array(axes, np.int64)},
                      opset=opset)
    return single(op, {"x": x}, [ref],
                  attrs={"keepdims": keepdims, "axes": list(axes)},
                  opset=opset)


@case
def reduce_mean_long_columns():
    """ReduceMean over the spatial dimensions of a channels-last image (a
    squeeze-and-excitation's pooling: 2 x 48 outputs, each the mean of
    60 x 50 = 3000 elements along outer dimensions). On GPUs such a long
    reduction over few outputs takes 8 outputs a workgroup instead of 32,
    so its workgroups cover the processors."""
    x = rand((2, 60, 50, 48), 3)
    return single("ReduceMean", {"x": x},
                  [x.astype(np.float64).mean((1, 2), keepdims=True)],
                  attrs={"axes": [1, 2], "keepdims": 1}, opset=13)


@case
def reduce_sum_axes_input_opset13():
    return reduce("ReduceSum", lambda x, a, k: x.sum(a, keepdims=k), 13,
                  axes=(0, 2))


@case
def reduce_sum_axes_attr_opset11():
    return reduce("ReduceSum", lambda x, a, k: x.sum(a, keepdims=k), 11,
                  keepdims=0)


@case
def reduce_mean_opset18():
    return reduce("ReduceMean", lambda x, a, k: x.mean(a, keepdims=k), 18,
                  axes=(-1,))


@case
def reduce_mean_opset13_attr():
    return reduce("ReduceMean", lambda x, a, k: x.mean(a, keepdims=k), 13,
                  axes=(1, 2), keepdims=0)


@case
def reduce_max_min():
    return reduce("ReduceMin", lambda x, a, k: x.min(a, keepdims=k), 17)


@case
def reduce_prod():
    return reduce("ReduceProd", lambda x, a, k: x.prod(a, keepdims=k), 17)


@case
def reduce_l2():
    return reduce("ReduceL2",
                  lambda x, a, k: np.sqrt((x * x).sum(a, keepdims=k)), 18)


@case
def reduce_log_sum_exp():
    return reduce("ReduceLogSumExp",
                  lambda x, a, k: np.log(np.exp(x).sum(a, keepdims=k)), 17,
                  lo=-20, hi=20)


@case
def argmax_keepdims():
    x = rand((3, 4, 5), 1)
    x[0, 1, 2] = x[0, 3, 2]  # a tie: the first index wins
    return single("ArgMax", {"x": x},
                  [np.expand_dims(np.argmax(x, 1), 1).astype(np.int64)],
                  attrs={"axis": 1})


@case
def argmin_last_index():
    x = np.array([[1, 3, 1, 2], [4, 4, 5, 4]], np.float32)
    return single("ArgMin", {"x": x}, [np.array([2, 3], np.int64)],
                  attrs={"axis": 1, "keepdims": 0, "select_last_index": 1})


@case
def argmax_segmentation_map():
    """ArgMax over the classes of a 21 x 96 x 128 map, as segmentation
    models end: 12288 outputs. On GPUs the running maximum beside the index
    was once a temporary of the whole map per thread, which no kernel could
    allocate."""
    x = rand((1, 21, 96, 128), 2)
    return single("ArgMax", {"x": x}, [np.argmax(x, 1).astype(np.int64)],
                  attrs={"axis": 1, "keepdims": 0})


# --- normalizations, einsum, indexing, resize, conv transpose ----------------

def layernorm_ref(x, scale, bias, axis, eps):
    axes = tuple(range(axis % x.ndim, x.ndim))
    m = x.mean(axes, keepdims=True)
    v = ((x - m) ** 2).mean(axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * scale + bias


@case
def layer_normalization():
    x = rand((2, 3, 8), 1)
    s, b = rand((8,), 2), rand((8,), 3)
    return single("LayerNormalization", {"x": x},
                  [layernorm_ref(x.astype(np.float64), s, b, -1, 1e-5)],
                  initializers={"s": s, "b": b})


@case
def layer_normalization_axis1():
    x = rand((2, 3, 4), 1)
    s = rand((3, 4), 2)
    return single("LayerNormalization", {"x": x},
                  [layernorm_ref(x.astype(np.float64), s, 0.0, 1, 1e-3)],
                  attrs={"axis": 1, "epsilon": 1e-3},
                  initializers={"s": s})


@case
def instance_normalization():
    x = rand((2, 3, 4, 5), 1)
    s, b = rand((3,), 2), rand((3,), 3)
    xd = x.astype(np.float64)
    m = xd.mean((2, 3), keepdims=True)
    v = xd.var((2, 3), keepdims=True)
    ref = (xd - m) / np.sqrt(v + 1e-5) * s.reshape(3, 1, 1) + \
        b.reshape(3, 1, 1)
    return single("InstanceNormalization", {"x": x}, [ref],
                  initializers={"s": s, "b": b})


def groupnorm_ref(x, s, b, groups, per_channel):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    m = g.mean(-1, keepdims=True)
    v = g.var(-1, keepdims=True)
    y = ((g - m) / np.sqrt(v + 1e-5)).reshape(x.shape)
    shape = [1, c] + [1] * (x.ndim - 2)
    if not per_channel:
        s, b = np.repeat(s, c // groups), np.repeat(b, c // groups)
    return y * s.reshape(shape) + b.reshape(shape)


@case
def group_normalization_opset18():
    x = rand((2, 6, 3, 2), 1)
    s, b = rand((3,), 2), rand((3,), 3)
    return single("GroupNormalization", {"x": x},
                  [groupnorm_ref(x.astype(np.float64), s, b, 3, False)],
                  attrs={"num_groups": 3}, initializers={"s": s, "b": b},
                  opset=18)


@case
def group_normalization_opset21():
    x = rand((2, 6, 3, 2), 1)
    s, b = rand((6,), 2), rand((6,), 3)
    return single("GroupNormalization", {"x": x},
                  [groupnorm_ref(x.astype(np.float64), s, b, 2, True)],
                  attrs={"num_groups": 2}, initializers={"s": s, "b": b},
                  opset=21)


@case
def einsum_attention_scores():
    q, k = rand((2, 3, 4, 5), 1), rand((2, 3, 6, 5), 2)
    return single("Einsum", {"q": q, "k": k},
                  [np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k)],
                  attrs={"equation": "bhqd,bhkd->bhqk"})


@case
def einsum_ellipsis_implicit():
    a, b = rand((2, 3, 4), 1), rand((4, 5), 2)
    return single("Einsum", {"a": a, "b": b},
                  [np.einsum("...ij,jk", a.astype(np.float64), b)],
                  attrs={"equation": "...ij,jk"})


@case
def einsum_trace_and_sum():
    a = rand((4, 4), 1)
    return single("Einsum", {"a": a}, [np.array(np.trace(a.astype(
        np.float64)))], attrs={"equation": "ii->"})


@case
def gather_elements_negative():
    x = rand((3, 4), 1)
    i = np.array([[0, -1, 2, 1], [3, 0, -4, 2]], np.int64)
    return single("GatherElements", {"x": x, "i": i},
                  [np.take_along_axis(x[:2], np.where(i < 0, i + 4, i),
                                      1).astype(np.float64)],
                  attrs={"axis": 1})


@case
def onehot_axis0():
    i = np.array([[1, -1], [0, 2]], np.int64)
    depth = np.array(3, np.int64)
    values = np.array([-2, 5], np.float32)
    ref = np.where(np.arange(3).reshape(3, 1, 1) ==
                   np.where(i < 0, i + 3, i)[None], 5.0, -2.0)
    return single("OneHot", {"i": i}, [ref], attrs={"axis": 0},
                  initializers={"depth": depth, "values": values})


@case
def trilu_lower_k():
    x = rand((2, 4, 5), 1)
    return single("Trilu", {"x": x}, [np.tril(x, 1).astype(np.float64)],
                  attrs={"upper": 0},
                  initializers={"k": np.array(1, np.int64)}, opset=14)


@case
def cumsum_exclusive_reverse():
    x = rand((3, 5), 1)
    r = np.flip(np.cumsum(np.flip(x.astype(np.float64), 1), 1), 1) - x
    return single("CumSum", {"x": x}, [r], attrs={"exclusive": 1,
                                                  "reverse": 1},
                  initializers={"axis": np.array(1, np.int64)})


@case
def topk_largest():
    x = rand((3, 7), 1)
    x[1, 2] = x[1, 5]
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    return single("TopK", {"x": x},
                  [np.take_along_axis(x, order, 1).astype(np.float64),
                   order.astype(np.int64)],
                  initializers={"k": np.array([3], np.int64)})


@case
def topk_smallest_axis0():
    x = rand((6, 2), 1)
    order = np.argsort(x, axis=0, kind="stable")[:2]
    return single("TopK", {"x": x},
                  [np.take_along_axis(x, order, 0).astype(np.float64),
                   order.astype(np.int64)],
                  attrs={"axis": 0, "largest": 0},
                  initializers={"k": np.array([2], np.int64)})


@case
def depth_to_space_crd():
    x = rand((1, 8, 2, 3), 1)
    b = 2
    ref = x.reshape(1, 2, b, b, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(
        1, 2, 4, 6)
    return single("DepthToSpace", {"x": x}, [ref.astype(np.float64)],
                  attrs={"blocksize": 2, "mode": "CRD"})


def resize_ref(x, out_shape, mode, transform, nearest="round_prefer_floor"):
    x = x.astype(np.float64)
    res = x
    for d in range(x.ndim):
        n_in, n_out = x.shape[d], out_shape[d]
        if n_in == n_out:
            continue
        scale = n_out / n_in
        cols = []
        for o in range(n_out):
            if transform == "align_corners":
                ori = 0.0 if n_out == 1 else o * (n_in - 1) / (n_out - 1)
            elif transform == "asymmetric":
                ori = o / scale
            elif transform == "pytorch_half_pixel":
                ori = -0.5 if n_out == 1 else (o + 0.5) / scale - 0.5
            else:
                ori = (o + 0.5) / scale - 0.5
            lo = math.floor(ori)
            r = ori - lo
            clamp = lambda i: min(max(i, 0), n_in - 1)  # noqa: E731
            if mode == "nearest":
                up = r > 0.5 if nearest == "round_prefer_floor" else r >= 0.5
                cols.append(np.take(res, clamp(lo + 1 if up and r else lo),
                                    axis=d))
            else:
                cols.append(np.take(res, clamp(lo), axis=d) * (1 - r) +
                            np.take(res, clamp(lo + 1), axis=d) * r)
        res = np.stack(cols, axis=d)
    return res


@case
def resize_nearest_scales():
    x = rand((1, 2, 3, 4), 1)
    scales = np.array([1, 1, 2, 1.5], np.float32)
    return single("Resize", {"x": x},
                  [resize_ref(x, (1, 2, 6, 6), "nearest", "asymmetric",
                              "round_prefer_ceil")],
                  attrs={"mode": "nearest",
                         "coordinate_transformation_mode": "asymmetric",
                         "nearest_mode": "round_prefer_ceil"},
                  initializers={"roi": np.zeros(0, np.float32),
                                "scales": scales}, opset=13)


@case
def resize_linear_sizes_half_pixel():
    x = rand((1, 2, 4, 5), 1)
    sizes = np.array([1, 2, 7, 3], np.int64)
    return single("Resize", {"x": x},
                  [resize_ref(x, (1, 2, 7, 3), "linear", "half_pixel")],
                  attrs={"mode": "linear"},
                  initializers={"roi": np.zeros(0, np.float32),
                                "scales": np.zeros(0, np.float32),
                                "sizes": sizes}, opset=13)


@case
def resize_linear_align_corners():
    x = rand((1, 1, 3, 4), 1)
    sizes = np.array([1, 1, 5, 7], np.int64)
    return single("Resize", {"x": x},
                  [resize_ref(x, (1, 1, 5, 7), "linear", "align_corners")],
                  attrs={"mode": "linear",
                         "coordinate_transformation_mode": "align_corners"},
                  nin=["x", "", "", "sizes"],
                  initializers={"sizes": sizes}, opset=18)


def conv_transpose_ref(x, w, b, strides, pads, output_padding, group,
                       dilations=None):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c = x.shape[:2]
    nsp = x.ndim - 2
    dilations = dilations or [1] * nsp
    fg = w.shape[1]
    f = fg * group
    k = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * strides[i] + (k[i] - 1) * dilations[i] + 1
            + output_padding[i] for i in range(nsp)]
    y = np.zeros([n, f] + full)
    cg = c // group
    for pos in np.ndindex(*x.shape[2:]):
        for kk in np.ndindex(*k):
            o = tuple(pos[i] * strides[i] + kk[i] * dilations[i]
                      for i in range(nsp))
            for g in range(group):
                y[(slice(None), slice(g * fg, (g + 1) * fg)) + o] += (
                    x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos] @
                    w[(slice(g * cg, (g + 1) * cg), slice(None)) + kk])
    if b is not None:
        y += b.reshape([1, f] + [1] * nsp)
    sl = tuple(slice(pads[i], full[i] - pads[nsp + i]) for i in range(nsp))
    return y[(slice(None), slice(None)) + sl]


@case
def conv_transpose_strided_padded():
    x, w, b = rand((1, 3, 4, 5), 1), rand((3, 2, 3, 3), 2), rand((2,), 3)
    attrs = {"strides": [2, 3], "pads": [1, 0, 0, 2],
             "output_padding": [1, 1]}
    return single("ConvTranspose", {"x": x},
                  [conv_transpose_ref(x, w, b, [2, 3], [1, 0, 0, 2], [1, 1],
                                      1)],
                  attrs=attrs, initializers={"w": w, "b": b})


@case
def conv_transpose_grouped_runtime_weights():
    x, w = rand((1, 4, 3, 3), 1), rand((4, 3, 2, 2), 2)
    attrs = {"group": 2, "strides": [2, 2], "dilations": [2, 1]}
    return single("ConvTranspose", {"x": x, "w": w},
                  [conv_transpose_ref(x, w, None, [2, 2], [0, 0, 0, 0],
                                      [0, 0], 2, [2, 1])], attrs=attrs)


@case
def conv_transpose_1d_output_shape():
    x, w = rand((1, 2, 5), 1), rand((2, 3, 3), 2)
    # output_shape 10: total padding 2 * 4 + 3 - 10 = 1, at the start.
    attrs = {"strides": [2], "output_shape": [10]}
    return single("ConvTranspose", {"x": x},
                  [conv_transpose_ref(x, w, None, [2], [1, 0], [0], 1)],
                  attrs=attrs, initializers={"w": w})


# --- losses, scatters and the rest -------------------------------------------

def nll_ref(logp, target, weight, ignore, reduction):
    n = target.shape[0]
    c = logp.shape[1]
    w = np.ones(c) if weight is None else weight.astype(np.float64)
    t = np.where(target == ignore, 0, target) if ignore is not None \
        else target
    picked = np.take_along_axis(logp, t[:, None], 1)[:, 0]
    wt = w[t] * (target != ignore if ignore is not None else 1)
    loss = -picked * wt
    del n
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.array(loss.sum())
    return np.array(loss.sum() / wt.sum())


@case
def nll_loss_weighted_ignore_mean():
    x = rand((3, 5, 2), 1)
    t = np.array([[0, 4], [2, -1], [1, 3]], np.int64)
    w = rand((5,), 2, 0.5, 1.5)
    return single("NegativeLogLikelihoodLoss", {"x": x, "t": t},
                  [nll_ref(x.astype(np.float64), t, w, -1, "mean")],
                  attrs={"ignore_index": -1}, initializers={"w": w})


@case
def softmax_cross_entropy_none_with_log_prob():
    x = rand((4, 6), 1, -3, 3)
    t = np.array([5, 0, 2, 2], np.int64)
    xd = x.astype(np.float64)
    m = xd.max(1, keepdims=True)
    logp = xd - m - np.log(np.exp(xd - m).sum(1, keepdims=True))
    return single("SoftmaxCrossEntropyLoss", {"x": x, "t": t},
                  [nll_ref(logp, t, None, None, "none"), logp],
                  attrs={"reduction": "none"})


@case
def castlike_to_int():
    x = rand((2, 3), 1, -5, 5)
    like = np.zeros((1,), np.int64)
    return single("CastLike", {"x": x, "like": like},
                  [np.trunc(x).astype(np.int64)], opset=15)


@case
def hardmax_opset13():
    x = rand((3, 4, 5), 1)
    x[0, 1, 0] = x[0, 2, 0] = 9  # a tie: the first one wins
    ref = np.zeros(x.shape)
    idx = np.argmax(x, 1)
    np.put_along_axis(ref, idx[:, None], 1.0, 1)
    return single("Hardmax", {"x": x}, [ref], attrs={"axis": 1}, opset=13)


@case
def eyelike_k():
    x = rand((3, 5), 1)
    return single("EyeLike", {"x": x}, [np.eye(3, 5, k=2)],
                  attrs={"k": 2})


@case
def lrn():
    x = rand((2, 5, 3, 3), 1)
    xd = x.astype(np.float64)
    sq = np.pad(xd * xd, [(0, 0), (1, 2), (0, 0), (0, 0)])
    sums = sum(sq[:, k:k + 5] for k in range(4))
    ref = xd / (2.0 + 0.01 / 4 * sums) ** 0.6
    return single("LRN", {"x": x}, [ref],
                  attrs={"size": 4, "alpha": 0.01, "beta": 0.6, "bias": 2.0})


@case
def gather_nd_batch_dims():
    x = rand((2, 3, 4), 1)
    i = np.array([[[1], [-1]], [[0], [2]]], np.int64)
    ref = np.stack([x[b][np.where(i[b, :, 0] < 0, i[b, :, 0] + 3,
                                  i[b, :, 0])] for b in range(2)])
    return single("GatherND", {"x": x, "i": i}, [ref.astype(np.float64)],
                  attrs={"batch_dims": 1})


@case
def scatter_elements_add():
    x = rand((3, 4), 1)
    i = np.array([[1, 1, 3], [0, 2, -1]], np.int64)
    u = rand((2, 3), 2)
    ref = x.astype(np.float64).copy()
    for r in range(2):
        for c in range(3):
            ref[r, i[r, c] % 4] += u[r, c]
    return single("ScatterElements", {"x": x, "i": i, "u": u}, [ref],
                  attrs={"axis": 1, "reduction": "add"}, opset=16)


@case
def scatter_nd_slices():
    x = rand((4, 3), 1)
    i = np.array([[2], [0]], np.int64)
    u = rand((2, 3), 2)
    ref = x.astype(np.float64).copy()
    ref[2], ref[0] = u[0], u[1]
    return single("ScatterND", {"x": x, "i": i, "u": u}, [ref])



# --- recurrent: RNN, GRU, LSTM -----------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


RNN_ACTS = {
    "Tanh": lambda x, a, b: np.tanh(x),
    "Sigmoid": lambda x, a, b: sigmoid(x),
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "LeakyRelu": lambda x, a, b: np.where(x < 0, a * x, x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "Affine": lambda x, a, b: a * x + b,
}
# Which activations take alpha / beta; the lists are consumed in order by
# those that do.
RNN_ACT_PARAMS = {"LeakyRelu": (True, False), "HardSigmoid": (True, True),
                  "ScaledTanh": (True, True), "Affine": (True, True)}


def recurrent_ref(kind, x, w, r, b=None, lens=None, h0=None, c0=None, p=None,
                  direction="forward", layout=0, clip=None, lbr=0,
                  acts=None, alphas=(), betas=()):
    """Y, Y_h, Y_c of RNN, GRU or LSTM from the ONNX operator definitions,
    one batch entry at a time over its own sequence_lens steps (the reverse
    direction from its own last step)."""
    def f64(a):
        return None if a is None else a.astype(np.float64)
    x, w, r, b, h0, c0, p = map(f64, (x, w, r, b, h0, c0, p))
    if layout:
        x = x.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    steps, batch, _ = x.shape
    dirs = w.shape[0]
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    hs = w.shape[1] // gates
    if lens is None:
        lens = np.full(batch, steps)
    alphas, betas = list(alphas), list(betas)
    funcs = []
    for name in acts:
        takes_a, takes_b = RNN_ACT_PARAMS.get(name, (False, False))
        a = alphas.pop(0) if takes_a else None
        bb = betas.pop(0) if takes_b else None
        funcs.append(lambda v, n=name, a=a, bb=bb: RNN_ACTS[n](v, a, bb))
    per = len(funcs) // dirs

    def cl(v):
        return v if clip is None else np.clip(v, -clip, clip)

    y = np.zeros((steps, dirs, batch, hs))
    yh = np.zeros((dirs, batch, hs))
    yc = np.zeros((dirs, batch, hs))
    for d in range(dirs):
        fn = funcs[d * per:(d + 1) * per]
        bias = b[d] if b is not None else np.zeros(2 * gates * hs)
        wb, rb = bias[:gates * hs], bias[gates * hs:]
        for n in range(batch):
            h = h0[d, n] if h0 is not None else np.zeros(hs)
            c = c0[d, n] if c0 is not None else np.zeros(hs)
            order = range(lens[n])
            if direction == "reverse" or d == 1:
                order = reversed(order)
            for t in order:
                xw = w[d] @ x[t, n] + wb
                hr = r[d] @ h + rb
                if kind == "RNN":
                    h = fn[0](cl(xw + hr))
                elif kind == "GRU":
                    z = fn[0](cl(xw[:hs] + hr[:hs]))
                    rr = fn[0](cl(xw[hs:2 * hs] + hr[hs:2 * hs]))
                    if lbr:
                        cand = xw[2 * hs:] + rr * hr[2 * hs:]
                    else:
                        cand = (xw[2 * hs:] + r[d][2 * hs:] @ (rr * h)
                                + rb[2 * hs:])
                    h = (1 - z) * fn[1](cl(cand)) + z * h
                else:
                    pi, po, pf = ((p[d][:hs], p[d][hs:2 * hs], p[d][2 * hs:])
                                  if p is not None else (0, 0, 0))
                    g = xw + hr
                    i = fn[0](cl(g[:hs] + pi * c))
                    f = fn[0](cl(g[2 * hs:3 * hs] + pf * c))
                    c = f * c + i * fn[1](cl(g[3 * hs:]))
                    o = fn[0](cl(g[hs:2 * hs] + po * c))
                    h = o * fn[2](c)
                y[t, d, n] = h
            yh[d, n], yc[d, n] = h, c
    if layout:
        return y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), \
            yc.transpose(1, 0, 2)
    return y, yh, yc


def recurrent_case(kind, steps, batch, size, hidden, seed, outputs=2,
                   bias=True, lens=None, lens_const=False, initial=False,
                   peepholes=False, opset=14, acts=None, **attrs):
    """A one-node model: X, W, R (and the optional inputs asked for) as
    graph inputs, sequence_lens as one too unless `lens_const`."""
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    layout = attrs.get("layout", 0)
    x = rand((batch, steps, size) if layout else (steps, batch, size), seed)
    arrays = {"x": x, "w": rand((dirs, gates * hidden, size), seed + 1, -1, 1),
              "r": rand((dirs, gates * hidden, hidden), seed + 2, -1, 1)}
    if bias:
        arrays["b"] = rand((dirs, 2 * gates * hidden), seed + 3, -1, 1)
    state = (batch, dirs, hidden) if layout else (dirs, batch, hidden)
    consts = {}
    if lens is not None:
        (consts if lens_const else arrays)["lens"] = np.array(lens, np.int32)
    if initial:
        arrays["h0"] = rand(state, seed + 4, -1, 1)
        if kind == "LSTM":
            arrays["c0"] = rand(state, seed + 5, -1, 1)
    if peepholes:
        arrays["p"] = rand((dirs, 3 * hidden), seed + 6, -1, 1)
    order = ["x", "w", "r", "b", "lens", "h0", "c0", "p"]
    given = {**arrays, **consts}
    last = max(i for i, n in enumerate(order) if n in given)
    names = [n if n in given else "" for n in order[:last + 1]]
    defaults = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind]
    ref_acts = acts or defaults * dirs
    if len(ref_acts) < len(defaults) * dirs:
        ref_acts = ref_acts * dirs
    if acts:
        attrs["activations"] = acts
    refs = recurrent_ref(
        kind, x, given["w"], given["r"], given.get("b"), given.get("lens"),
        given.get("h0"), given.get("c0"), given.get("p"),
        attrs.get("direction", "forward"), layout, attrs.get("clip"),
        attrs.get("linear_before_reset", 0), ref_acts,
        attrs.get("activation_alpha", ()), attrs.get("activation_beta", ()))
    return single(kind, arrays, list(refs[:outputs]),
                  attrs={"hidden_size": hidden, **attrs}, opset=opset,
                  initializers=consts, nin=names)


@case
def rnn_bidirectional_seq_lens():
    return recurrent_case("RNN", 4, 3, 3, 5, 10, lens=[4, 1, 3],
                          initial=True, direction="bidirectional")


@case
def rnn_reverse_activations_opset7():
    return recurrent_case("RNN", 3, 2, 4, 3, 20, direction="reverse",
                          opset=7, acts=["LeakyRelu"], activation_alpha=[0.3])


@case
def gru_reverse_linear_before_reset_clip():
    return recurrent_case("GRU", 4, 2, 3, 4, 30, direction="reverse",
                          linear_before_reset=1, clip=0.7, initial=True)


@case
def gru_linear_before_reset_zero_initial_state():
    # The first step has no h * R^T; h~ still takes r * Rb_h.
    return recurrent_case("GRU", 3, 2, 3, 4, 35, linear_before_reset=1)


@case
def gru_bidirectional_layout1_const_seq_lens():
    return recurrent_case("GRU", 3, 3, 2, 3, 40, layout=1, initial=True,
                          lens=[2, 3, 1], lens_const=True,
                          direction="bidirectional")


@case
def lstm_bidirectional_layout1_peepholes_seq_lens_clip():
    return recurrent_case("LSTM", 4, 3, 3, 4, 50, outputs=3, layout=1,
                          lens=[3, 4, 2], initial=True, peepholes=True,
                          clip=1.5, direction="bidirectional")


@case
def lstm_reverse_activations_opset7():
    return recurrent_case("LSTM", 3, 2, 3, 3, 60, outputs=3, opset=7,
                          direction="reverse",
                          acts=["HardSigmoid", "ScaledTanh", "Softsign"],
                          activation_alpha=[0.3, 0.8],
                          activation_beta=[0.4, 1.2])


# --- quantization ----------------------------------------------------------

def qrange(dtype):
    info = np.iinfo(dtype)
    return info.min, info.max


def quantize_ref(x, scale, zp, dtype):
    """saturate(round_half_even(x / scale) + zp), the division in float32
    as ONNX defines it for float inputs."""
    q = np.rint(x.astype(np.float32) / scale.astype(np.float32))
    lo, hi = qrange(dtype)
    return np.clip(q.astype(np.float64) + zp, lo, hi).astype(dtype)


def along(v, axis, rank):
    """A 1-D per-axis parameter shaped to broadcast at `axis`."""
    shape = [1] * rank
    shape[axis] = v.size
    return v.reshape(shape)


@case
def quantize_int8_per_axis_saturating_ties():
    x = rand((2, 3, 4), 1, -300, 300)
    x[0, 0, :] = [0.5, 1.5, 2.5, -2.5]  # ties round to even (scale 1)
    scale = np.array([1.0, 0.37, 2.5], np.float32)
    zp = np.array([0, -7, 12], np.int8)
    ref = quantize_ref(x, along(scale, 1, 3), along(zp, 1, 3), np.int8)
    assert ref.min() == -128 and ref.max() == 127  # both ends saturate
    return single("QuantizeLinear", {"x": x, "s": scale, "z": zp}, [ref],
                  attrs={"axis": -2}, opset=13)


@case
def quantize_default_uint8_opset10():
    x = rand((3, 5), 1, -1, 40)
    scale = np.array(0.125, np.float32)
    ref = quantize_ref(x, scale, 0, np.uint8)
    return single("QuantizeLinear", {"x": x}, [ref], opset=10,
                  initializers={"s": scale})


@case
def dequantize_int8_per_axis_last():
    x = np.random.default_rng(1).integers(-128, 128, (2, 3, 4)).astype(np.int8)
    scale = rand((4,), 2, 0.01, 0.5)
    zp = np.array([-128, 0, 5, 127], np.int8)
    ref = (x.astype(np.float64) - zp) * scale.astype(np.float64)
    return single("DequantizeLinear", {"x": x}, [ref], attrs={"axis": 2},
                  opset=13, initializers={"s": scale, "z": zp})


@case
def dequantize_uint8_no_zero_point():
    x = np.random.default_rng(1).integers(0, 256, (5, 2)).astype(np.uint8)
    scale = np.array([0.02], np.float32)
    ref = x.astype(np.float64) * scale.astype(np.float64)
    return single("DequantizeLinear", {"x": x, "s": scale}, [ref], opset=10)


@case
def dynamic_quantize_positive_only():
    x = rand((4, 6), 1, 0.5, 7.0)  # min(0, min x) = 0: zero point 0
    lo, hi = min(0.0, x.min()), max(0.0, x.max())
    scale = np.float32((np.float32(hi) - np.float32(lo)) / np.float32(255))
    zp = np.uint8(np.clip(np.rint(0 - np.float32(lo) / scale), 0, 255))
    y = quantize_ref(x, scale, float(zp), np.uint8)
    return single("DynamicQuantizeLinear", {"x": x},
                  [y, np.array(scale, np.float32), np.array(zp, np.uint8)],
                  opset=11)


def qints(shape, dtype, seed):
    lo, hi = qrange(dtype)
    return np.random.default_rng(seed).integers(lo, hi + 1, shape).astype(dtype)


@case
def matmul_integer_per_row_and_column_zero_points():
    a = qints((2, 3, 4), np.int8, 1)
    b = qints((4, 5), np.uint8, 2)
    az = qints((3,), np.int8, 3)
    bz = qints((5,), np.uint8, 4)
    ref = np.matmul(a.astype(np.int64) - az[:, None], b.astype(np.int64) - bz)
    return single("MatMulInteger", {"a": a, "b": b, "az": az, "bz": bz},
                  [ref.astype(np.int32)], opset=10)


def conv_int(x, w, pads, strides, group):
    return conv_ref(x.astype(np.float64), w.astype(np.float64), None, strides,
                    pads, [1, 1], group)


@case
def conv_integer_int8_grouped_per_channel_zero_point():
    x = qints((1, 4, 5, 5), np.int8, 1)
    w = qints((6, 2, 3, 3), np.int8, 2)
    xz = np.array(-3, np.int8)
    wz = qints((6,), np.int8, 3)
    ref = conv_int(x.astype(np.int64) - int(xz),
                   w.astype(np.int64) - wz[:, None, None, None],
                   [1, 0, 1, 0], [2, 1], 2)
    return single("ConvInteger", {"x": x, "w": w, "xz": xz, "wz": wz},
                  [np.rint(ref).astype(np.int32)],
                  attrs={"group": 2, "pads": [1, 0, 1, 0],
                         "strides": [2, 1]}, opset=10)


def requantize_ref(acc, multiplier, zp, dtype):
    v = np.rint(acc.astype(np.float64) * multiplier) + zp
    lo, hi = qrange(dtype)
    return np.clip(v, lo, hi).astype(dtype)


@case
def qlinear_matmul_int8_per_column_saturating():
    a = qints((3, 4), np.int8, 1)
    b = qints((4, 5), np.int8, 2)
    az, bz = np.array(2, np.int8), qints((5,), np.int8, 3)
    sa = np.array(0.05, np.float32)
    sb = rand((5,), 4, 0.01, 0.04)
    sy = np.array(0.1, np.float32)
    yz = np.array(-10, np.int8)
    acc = np.matmul(a.astype(np.int64) - int(az), b.astype(np.int64) - bz)
    multiplier = (sa * sb / sy).astype(np.float32).astype(np.float64)
    ref = requantize_ref(acc, multiplier, int(yz), np.int8)
    assert ref.min() == -128 or ref.max() == 127
    return single("QLinearMatMul", {"a": a, "b": b},
                  [ref], opset=10,
                  initializers={"sa": sa, "az": az, "sb": sb, "bz": bz,
                                "sy": sy, "yz": yz},
                  nin=["a", "sa", "az", "b", "sb", "bz", "sy", "yz"])


@case
def qlinear_conv_bias_per_channel_uint8():
    x = qints((1, 3, 6, 6), np.uint8, 1)
    w = qints((4, 3, 3, 3), np.int8, 2)
    xz, wz = np.array(128, np.uint8), np.zeros((4,), np.int8)
    bias = np.random.default_rng(3).integers(-2000, 2000, (4,)).astype(np.int32)
    sx = np.array(0.02, np.float32)
    sw = rand((4,), 4, 0.005, 0.02)
    sy = np.array(0.15, np.float32)
    yz = np.array(100, np.uint8)
    acc = conv_int(x.astype(np.int64) - int(xz), w.astype(np.int64),
                   [1, 1, 1, 1], [1, 1], 1)
    acc = np.rint(acc) + bias[None, :, None, None]
    multiplier = (sx * sw / sy).astype(np.float32).astype(np.float64)
    ref = requantize_ref(acc, multiplier[None, :, None, None], int(yz),
                         np.uint8)
    return single("QLinearConv", {"x": x, "w": w}, [ref], opset=10,
                  attrs={"pads": [1, 1, 1, 1]},
                  initializers={"sx": sx, "xz": xz, "sw": sw, "wz": wz,
                                "sy": sy, "yz": yz, "bias": bias},
                  nin=["x", "sx", "xz", "w", "sw", "wz", "sy", "yz", "bias"])


# --- signal windows, Det, ReverseSequence, MVN, training forms, unpooling,
# --- cubic and crop resizes ------------------------------------------------

def window_ref(size, coeffs, periodic):
    n = size if periodic else size - 1
    k = np.arange(size, dtype=np.float64)
    return sum((-1) ** j * a * np.cos(2 * np.pi * j * k / n)
               for j, a in enumerate(coeffs))


@case
def blackman_window_symmetric_double():
    # output_datatype double, cast back to float for the comparison.
    x = rand((3,), 1)  # a graph input, so the model has one
    ref = window_ref(9, [0.42, 0.5, 0.08], False)
    graph = helper.make_graph(
        [helper.make_node("BlackmanWindow", ["size"], ["w64"], periodic=0,
                          output_datatype=TensorProto.DOUBLE),
         helper.make_node("Cast", ["w64"], ["w"], to=TensorProto.FLOAT),
         helper.make_node("Identity", ["x"], ["y"])],
        "check", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("w", TensorProto.FLOAT, [9]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        initializer=[numpy_helper.from_array(np.array(9, np.int64), "size")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, [x], [ref, x.astype(np.float64)]


@case
def hamming_window_periodic():
    x = rand((2,), 1)
    ref = window_ref(7, [25 / 46, 21 / 46], True)
    graph = helper.make_graph(
        [helper.make_node("HammingWindow", ["size"], ["w"]),
         helper.make_node("Identity", ["x"], ["y"])],
        "check", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("w", TensorProto.FLOAT, [7]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array(7, np.int32), "size")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, [x], [ref.astype(np.float32), x]


@case
def det_3x3_pivoting_and_singular():
    x = rand((2, 2, 3, 3), 1)
    x[0, 0, 0, 0] = 0  # needs a row swap
    x[0, 1, 2] = 2 * x[0, 1, 0] - x[0, 1, 1]  # singular
    x[1, 0] = x[1, 0][[2, 0, 1]]
    x[1, 0, 0, 0] = x[1, 0, 1, 0] = 0  # two swaps deep
    ref = np.linalg.det(x.astype(np.float64))
    return single("Det", {"x": x}, [ref], opset=11)


@case
def det_5x5():
    x = rand((3, 5, 5), 2)
    return single("Det", {"x": x}, [np.linalg.det(x.astype(np.float64))],
                  opset=11)


@case
def reverse_sequence_time_major_3d():
    x = rand((5, 4, 3), 1)
    lens = np.array([5, 0, 3, 1], np.int64)
    ref = x.astype(np.float64).copy()
    for b, n in enumerate(lens):
        ref[:n, b] = x[:n, b][::-1]
    return single("ReverseSequence", {"x": x, "lens": lens}, [ref],
                  attrs={"batch_axis": 1, "time_axis": 0}, opset=10)


@case
def mean_variance_normalization_axes():
    x = rand((2, 3, 4), 1)
    xd = x.astype(np.float64)
    m = xd.mean((1,), keepdims=True)
    sd = np.sqrt((xd * xd).mean((1,), keepdims=True) - m * m)
    return single("MeanVarianceNormalization", {"x": x},
                  [(xd - m) / (sd + 1e-9)], attrs={"axes": [1]}, opset=13)


@case
def batchnorm_training_momentum_3d():
    x = rand((3, 2, 5), 1)
    s, b = rand((2,), 2), rand((2,), 3)
    mean, var = rand((2,), 4), rand((2,), 5, 0.5, 2.0)
    xd = x.astype(np.float64)
    bm, bv = xd.mean((0, 2)), xd.var((0, 2))
    y = ((xd - bm[:, None]) / np.sqrt(bv[:, None] + 1e-3) * s[:, None] +
         b[:, None])
    return single("BatchNormalization",
                  {"x": x, "s": s, "b": b, "mean": mean, "var": var},
                  [y, mean * 0.7 + bm * 0.3, var * 0.7 + bv * 0.3],
                  attrs={"training_mode": 1, "momentum": 0.7,
                         "epsilon": 1e-3}, opset=15)


def maxpool_indices_ref(x, kernel, strides, pads, column_major):
    """Values and flat indices (the spatial part column-major when asked)
    of each window's first largest element, padding excluded."""
    n, c = x.shape[:2]
    sp = x.shape[2:]
    dims = len(sp)
    out = [(sp[i] + pads[i] + pads[dims + i] - kernel[i]) // strides[i] + 1
           for i in range(dims)]
    vals = np.zeros((n, c, *out))
    idx = np.zeros((n, c, *out), np.int64)
    for b in range(n):
        for ch in range(c):
            for o in np.ndindex(*out):
                best, where = None, None
                for w in np.ndindex(*kernel):
                    p = [o[i] * strides[i] + w[i] - pads[i]
                         for i in range(dims)]
                    if any(q < 0 or q >= sp[i] for i, q in enumerate(p)):
                        continue
                    v = x[(b, ch, *p)]
                    if best is None or v > best:
                        best, where = v, p
                order = "F" if column_major else "C"
                flat = np.ravel_multi_index(where, sp, order=order)
                vals[(b, ch, *o)] = best
                idx[(b, ch, *o)] = (b * c + ch) * int(np.prod(sp)) + flat
    return vals, idx


@case
def maxpool_indices_pads_strides():
    x = rand((2, 2, 5, 6), 1)
    vals, idx = maxpool_indices_ref(x, (3, 2), (2, 2), (1, 0, 1, 1), False)
    return single("MaxPool", {"x": x}, [vals, idx],
                  attrs={"kernel_shape": [3, 2], "strides": [2, 2],
                         "pads": [1, 0, 1, 1]}, opset=12)


@case
def maxpool_indices_3d_column_major():
    x = rand((1, 2, 3, 4, 3), 1)
    vals, idx = maxpool_indices_ref(x, (2, 2, 2), (1, 2, 1), (0,) * 6, True)
    return single("MaxPool", {"x": x}, [vals, idx],
                  attrs={"kernel_shape": [2, 2, 2], "strides": [1, 2, 1],
                         "storage_order": 1}, opset=12)


@case
def maxunpool_pads_output_shape():
    # Pooled from a 1x2x5x5 input (kernel 2, stride 2, pads 1): the indices
    # are flat positions in the 5x5 output.
    src = rand((1, 2, 5, 5), 1)
    vals, idx = maxpool_indices_ref(src, (2, 2), (2, 2), (1, 1, 1, 1), False)
    vals = vals.astype(np.float32)
    ref = np.zeros(src.size)
    ref[idx.ravel()] = vals.ravel()
    return single("MaxUnpool", {"x": vals, "i": idx},
                  [ref.reshape(src.shape)],
                  attrs={"kernel_shape": [2, 2], "strides": [2, 2],
                         "pads": [1, 1, 1, 1]},
                  initializers={"shape": np.array(src.shape, np.int64)},
                  opset=11)


def interp_ref(x, out_shape, scales, mode, transform="half_pixel", a=-0.75,
               exclude=False, roi=None, extrapolation=0.0):
    """ONNX Resize for linear and cubic, one dimension after another (the
    weights are products), from the operator's definition."""
    res = x.astype(np.float64)
    for d in range(x.ndim):
        n_in, n_out, scale = x.shape[d], out_shape[d], scales[d]
        if n_in == n_out and scale == 1 and transform != "tf_crop_and_resize":
            continue
        cols = []
        for o in range(n_out):
            if transform == "align_corners":
                w = scale * n_in
                ori = 0.0 if w == 1 else o * (n_in - 1) / (w - 1)
            elif transform == "asymmetric":
                ori = o / scale
            elif transform == "pytorch_half_pixel":
                ori = -0.5 if scale * n_in == 1 else (o + 0.5) / scale - 0.5
            elif transform == "tf_crop_and_resize":
                r0, r1 = roi[d], roi[x.ndim + d]
                ori = ((r1 - r0) * (n_in - 1) / 2 if n_out == 1 else
                       o * (r1 - r0) * (n_in - 1) / (n_out - 1))
                ori += r0 * (n_in - 1)
                if ori < 0 or ori > n_in - 1:
                    cols.append(np.full(np.take(res, 0, axis=d).shape,
                                        extrapolation))
                    continue
            else:
                ori = (o + 0.5) / scale - 0.5
            lo = math.floor(ori)
            r = ori - lo
            if mode == "linear":
                taps, ws = [lo, lo + 1], [1 - r, r]
            else:
                def far(t):
                    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a

                def near(t):
                    return ((a + 2) * t - (a + 3)) * t * t + 1
                taps = [lo - 1, lo, lo + 1, lo + 2]
                ws = [far(r + 1), near(r), near(1 - r), far(2 - r)]
            if exclude:
                ws = [wt if 0 <= t < n_in else 0.0 for t, wt in zip(taps, ws)]
                ws = [wt / sum(ws) for wt in ws]
            cols.append(sum(wt * np.take(res, min(max(t, 0), n_in - 1),
                                         axis=d) for t, wt in zip(taps, ws)))
        res = np.stack(cols, axis=d)
    return res


@case
def resize_cubic_sizes_pytorch_half_pixel():
    x = rand((1, 2, 5, 4), 1)
    sizes = np.array([1, 2, 3, 7], np.int64)
    scales = sizes / np.array(x.shape)
    return single("Resize", {"x": x},
                  [interp_ref(x, sizes, scales, "cubic", "pytorch_half_pixel",
                              a=-0.5)],
                  attrs={"mode": "cubic", "cubic_coeff_a": -0.5,
                         "coordinate_transformation_mode":
                             "pytorch_half_pixel"},
                  nin=["x", "", "", "sizes"], initializers={"sizes": sizes},
                  opset=13)


@case
def resize_cubic_exclude_outside_align_corners():
    x = rand((2, 5, 4), 1)
    scales = np.array([1, 1.6, 0.75], np.float32)
    out = [2, 8, 3]
    return single("Resize", {"x": x},
                  [interp_ref(x, out, scales.astype(np.float64), "cubic",
                              "align_corners", exclude=True)],
                  attrs={"mode": "cubic", "exclude_outside": 1,
                         "coordinate_transformation_mode": "align_corners"},
                  nin=["x", "", "scales"], initializers={"scales": scales},
                  opset=13)


@case
def resize_tf_crop_and_resize_scales():
    x = rand((1, 1, 5, 6), 1)
    roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], np.float32)
    scales = np.array([1, 1, 1.5, 0.8], np.float32)
    # Outputs: floor(size * (roi end - roi start) * scale).
    out = [1, 1, int(5 * 1.1 * 1.5), int(6 * 1.1 * 0.8)]
    return single("Resize", {"x": x},
                  [interp_ref(x, out, scales.astype(np.float64), "linear",
                              "tf_crop_and_resize",
                              roi=roi.astype(np.float64),
                              extrapolation=-3.0)],
                  attrs={"mode": "linear",
                         "coordinate_transformation_mode":
                             "tf_crop_and_resize",
                         "extrapolation_value": -3.0},
                  nin=["x", "roi", "scales"],
                  initializers={"roi": roi, "scales": scales}, opset=13)


@case
def upsample_linear_opset9():
    x = rand((1, 2, 3, 2), 1)
    scales = np.array([1, 1, 2, 2.5], np.float32)
    return single("Upsample", {"x": x},
                  [interp_ref(x, [1, 2, 6, 5], scales.astype(np.float64),
                              "linear", "asymmetric")],
                  attrs={"mode": "linear"}, initializers={"scales": scales},
                  opset=9)


@case
def upsample_nearest_opset7_attribute():
    x = rand((2, 3, 2), 1)
    scales = [1.0, 1.5, 3.0]
    ref = x.astype(np.float64)
    ref = np.take(ref, [int(o / 1.5) for o in range(4)], axis=1)
    ref = np.take(ref, [int(o / 3.0) for o in range(6)], axis=2)
    return single("Upsample", {"x": x}, [ref],
                  attrs={"mode": "nearest", "scales": scales}, opset=7)


@case
def dropout_training_zero_ratio_mask():
    x = rand((3, 4), 1)
    return single("Dropout", {"x": x},
                  [x.astype(np.float64), np.ones((3, 4), np.bool_)],
                  initializers={"r": np.array(0.0, np.float32),
                                "t": np.array(True)}, opset=13)


# --- DFT and STFT ------------------------------------------------------------

def as_pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


@case
def dft_complex_inverse_axis2_padded():
    x = rand((2, 3, 5, 2), 1)
    z = x[..., 0].astype(np.float64) + 1j * x[..., 1]
    ref = as_pairs(np.fft.ifft(z, n=7, axis=2))
    return single("DFT", {"x": x}, [ref], attrs={"axis": 2, "inverse": 1},
                  nin=["x", "len"], initializers={"len": np.array(7)},
                  opset=17)


@case
def dft_real_onesided_truncated():
    x = rand((3, 9, 1), 1)
    ref = as_pairs(np.fft.rfft(x[..., 0].astype(np.float64), n=6, axis=1))
    return single("DFT", {"x": x}, [ref], attrs={"onesided": 1},
                  nin=["x", "len"], initializers={"len": np.array(6)},
                  opset=17)


@case
def stft_complex_two_sided_window():
    x = rand((2, 20, 2), 1)
    w = rand((6,), 2, 0.1, 1.0)
    z = x[..., 0].astype(np.float64) + 1j * x[..., 1]
    frames = [z[:, f * 4:f * 4 + 6] * w for f in range(4)]
    ref = as_pairs(np.stack([np.fft.fft(fr, axis=1) for fr in frames], 1))
    return single("STFT", {"x": x, "w": w}, [ref], attrs={"onesided": 0},
                  nin=["x", "step", "w"],
                  initializers={"step": np.array(4)}, opset=17)


@case
def mel_weight_matrix_lower_edge():
    mels, n, rate, lo, hi = 5, 40, 16000, 300.0, 7000.0
    ref = melReference(mels, n, rate, lo, hi)
    x = rand((2,), 1)
    graph = helper.make_graph(
        [helper.make_node("MelWeightMatrix",
                          ["mels", "n", "rate", "lo", "hi"], ["w"]),
         helper.make_node("Identity", ["x"], ["y"])],
        "check", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("w", TensorProto.FLOAT, ref.shape),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array(v, t), name)
                     for name, v, t in [("mels", mels, np.int64),
                                        ("n", n, np.int64),
                                        ("rate", rate, np.int32),
                                        ("lo", lo, np.float32),
                                        ("hi", hi, np.float32)]])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, [x], [ref, x.astype(np.float64)]


# --- GridSample ---------------------------------------------------------------

def grid_sample_ref(x, grid, mode, padding, align):
    """ONNX GridSample (2-D) from its definition, in float64."""
    n_, c_, h, w = x.shape
    x = x.astype(np.float64)
    out = np.zeros((n_, c_, grid.shape[1], grid.shape[2]))

    def denorm(g, size):
        return (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2

    def bounds(size):
        return (0.0, size - 1.0) if align else (-0.5, size - 0.5)

    def reflect(v, size):
        lo, hi = bounds(size)
        rng = hi - lo
        if rng == 0:
            return lo
        if v < lo or v > hi:
            dx = lo - v if v < lo else v - hi
            k = math.floor(dx / rng)
            r = dx - k * rng
            if v < lo:
                return lo + r if k % 2 == 0 else hi - r
            return hi - r if k % 2 == 0 else lo + r
        return v

    def coord(g, size):
        v = denorm(g, size)
        if mode == "nearest":
            v = float(np.rint(v))
        if padding == "border":
            v = min(max(v, 0.0), size - 1.0)
        elif padding == "reflection":
            v = reflect(v, size)
        return v

    def pixel(b, c, r, col):
        if padding == "zeros":
            if not (0 <= r < h and 0 <= col < w):
                return 0.0
        elif padding == "reflection":
            r, col = reflect(r, h), reflect(col, w)
        r = int(min(max(r, 0), h - 1))
        col = int(min(max(col, 0), w - 1))
        return x[b, c, r, col]

    def taps(t):
        if mode == "bilinear":
            return 0, [1 - t, t]
        a = -0.75

        def near(u):
            return ((a + 2) * u - (a + 3)) * u * u + 1

        def far(u):
            return ((a * u - 5 * a) * u + 8 * a) * u - 4 * a
        return -1, [far(t + 1), near(t), near(1 - t), far(2 - t)]

    for b in range(n_):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                px = coord(float(grid[b, i, j, 0]), w)
                py = coord(float(grid[b, i, j, 1]), h)
                for c in range(c_):
                    if mode == "nearest":
                        out[b, c, i, j] = pixel(b, c, py, px)
                        continue
                    x0, y0 = math.floor(px), math.floor(py)
                    first, wx = taps(px - x0)
                    _, wy = taps(py - y0)
                    out[b, c, i, j] = sum(
                        wy[p] * wx[q] * pixel(b, c, y0 + first + p,
                                              x0 + first + q)
                        for p in range(len(wy)) for q in range(len(wx)))
    return out


def grid_sample_case(mode, padding, align):
    x = rand((2, 3, 4, 5), 1)
    grid = rand((2, 3, 4, 2), 2, -1.7, 1.7)
    return single("GridSample", {"x": x, "grid": grid},
                  [grid_sample_ref(x, grid, mode, padding, align)],
                  attrs={"mode": mode, "padding_mode": padding,
                         "align_corners": int(align)}, opset=16)


@case
def grid_sample_bicubic_reflection():
    return grid_sample_case("bicubic", "reflection", False)


@case
def grid_sample_bilinear_reflection_align_corners():
    return grid_sample_case("bilinear", "reflection", True)


@case
def grid_sample_nearest_zeros_align_corners():
    return grid_sample_case("nearest", "zeros", True)


@case
def grid_sample_bicubic_border():
    return grid_sample_case("bicubic", "border", False)


# --- TfIdfVectorizer ----------------------------------------------------------

def tfidf_ref(x, mode, min_n, max_n, max_skip, counts, indexes, pool,
              weights=None):
    """TfIdfVectorizer from its definition (as ONNX's reference counts):
    each n-gram of the pool of a length in [min_n, max_n], looked for with
    its tokens d apart for every d in 1 .. max_skip + 1 (once for a
    unigram), its count added into Y[ngram_indexes[its id]]; IDF and TFIDF
    weight Y[j] by weights[j]."""
    rows = x.reshape(-1, x.shape[-1]).astype(np.int64)
    size = max(indexes) + 1
    freq = np.zeros((rows.shape[0], size), np.float64)
    grams, gid = [], 0
    for i, start in enumerate(counts):
        n = i + 1
        end = counts[i + 1] if i + 1 < len(counts) else len(pool)
        for at in range(start, end, n):
            if min_n <= n <= max_n:
                grams.append((pool[at:at + n], indexes[gid]))
            gid += 1
    for r, row in enumerate(rows):
        for tokens, j in grams:
            n = len(tokens)
            for d in ([1] if n == 1 else range(1, max_skip + 2)):
                for s in range(len(row) - (n - 1) * d):
                    freq[r, j] += all(row[s + k * d] == tokens[k]
                                      for k in range(n))
    w = (np.ones(size) if weights is None else
         np.array(weights[:size], np.float32).astype(np.float64))
    y = {"TF": freq, "IDF": np.where(freq > 0, w, 0.0),
         "TFIDF": freq * w}[mode]
    return y.reshape(x.shape[:-1] + (size,))


def tfidf_case(mode, shape, dtype, min_n, max_n, max_skip, grams, indexes,
               weights=None, seed=1):
    """Tokens drawn from [0, 4), so the pool's n-grams (given per length,
    from 1) occur; `indexes` maps each n-gram to its output coordinate."""
    x = np.random.default_rng(seed).integers(0, 4, shape).astype(dtype)
    counts, pool = [], []
    for level in grams:
        counts.append(len(pool))
        pool += [t for g in level for t in g]
    attrs = dict(mode=mode, min_gram_length=min_n, max_gram_length=max_n,
                 max_skip_count=max_skip, ngram_counts=counts,
                 ngram_indexes=indexes, pool_int64s=pool)
    if weights is not None:
        attrs["weights"] = weights
    ref = tfidf_ref(x, mode, min_n, max_n, max_skip, counts, indexes, pool,
                    weights)
    return single("TfIdfVectorizer", {"x": x}, [ref], attrs, opset=9)


@case
def tfidf_tf_uni_bi_skip2():
    """1-D int64 tokens, unigrams and bigrams with up to 2 tokens skipped."""
    return tfidf_case("TF", (16,), np.int64, 1, 2, 2,
                      [[(1,), (3,), (2,)], [(0, 1), (3, 3), (1, 3)]],
                      [5, 0, 2, 1, 3, 4])


@case
def tfidf_idf_batch_int32_weights():
    """int32 rows; of a pool of 1- to 3-grams only the 2- and 3-grams count
    (the unigrams' coordinates stay 0), each coordinate weighted where its
    n-gram occurs."""
    return tfidf_case("IDF", (3, 12), np.int32, 2, 3, 1,
                      [[(0,), (2,)], [(1, 2), (3, 3), (0, 3)],
                       [(1, 1, 3), (3, 0, 1)]],
                      [0, 1, 2, 3, 4, 6, 5],
                      [0.5, -1.25, 2.0, 0.75, 3.0, 1.5, 4.0])


@case
def tfidf_tfidf_batch_shared_coordinates():
    """int64 rows; two n-grams (a unigram and a bigram) share coordinate 1
    and their counts add up before the weight; skips up to 3."""
    return tfidf_case("TFIDF", (2, 10), np.int64, 1, 2, 3,
                      [[(2,), (0,)], [(1, 0), (2, 3), (3, 3)]],
                      [1, 0, 1, 3, 2],
                      [0.25, 2.0, -0.5, 1.5, 3.0])


@case
def tfidf_idf_unweighted_trigrams():
    """IDF without weights (1 where an n-gram occurs), only trigrams of a
    pool that has unigrams and bigrams too; skips past the row's length."""
    return tfidf_case("IDF", (4, 7), np.int32, 3, 3, 9,
                      [[(1,)], [(1, 2)],
                       [(3, 3, 3), (1, 1, 3), (3, 0, 3), (1, 3, 0)]],
                      [0, 1, 2, 3, 4, 5])


# --- dynamic batch (issue 19) ---------------------------------------------


class Calls(list):
    """Several calls of one module: a case over a dynamic dimension gives
    the inputs and references of each call (one list per call)."""


class Refused(str):
    """A call's expected outcome in place of its references: the call fails
    with one line of error containing this text (a value given at call time
    that the module refuses)."""


def dynamicGraph(nodes, inputs, outputs, initializers):
    """A model whose inputs and outputs name their dimensions (strings are
    symbolic: `batch`); an input or output (name, shape, type) has that
    element type, else float."""
    graph = helper.make_graph(
        nodes, "check",
        [helper.make_tensor_value_info(i[0], (i + (TensorProto.FLOAT,))[2],
                                       i[1])
         for i in inputs],
        [helper.make_tensor_value_info(o[0], (o + (TensorProto.FLOAT,))[2],
                                       o[1])
         for o in outputs],
        initializer=[numpy_helper.from_array(a, n)
                     for n, a in initializers.items()])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


@case
def dynamic_pad_layernorm_reduce():
    """Pad, LayerNormalization and ReduceMean over a dynamic batch: the
    batch is never padded, normalized or reduced."""
    scale, bias = rand((9,), 3, 0.5, 1.5), rand((9,), 4)
    model = dynamicGraph(
        [helper.make_node("Constant", [], ["pads"],
                          value=numpy_helper.from_array(
                              np.array([0, 0, 1, 0, 0, 2], np.int64))),
         helper.make_node("Pad", ["x", "pads"], ["p"], name="pad"),
         helper.make_node("LayerNormalization", ["p", "scale", "bias"],
                          ["n"], name="ln", axis=-1),
         helper.make_node("Constant", [], ["axes"],
                          value=numpy_helper.from_array(
                              np.array([2], np.int64))),
         helper.make_node("ReduceMean", ["n", "axes"], ["m"], name="mean",
                          keepdims=0),
         helper.make_node("Relu", ["m"], ["y"])],
        [("x", ["batch", 4, 6])], [("y", ["batch", 4])],
        {"scale": scale, "bias": bias})
    inputs, refs = Calls(), Calls()
    for n in (1, 3, 17):
        x = rand((n, 4, 6), 10 + n)
        p = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 2)))
        mean = p.mean(axis=2, keepdims=True)
        var = ((p - mean) ** 2).mean(axis=2, keepdims=True)
        normed = (p - mean) / np.sqrt(var + 1e-5) * scale + bias
        inputs.append([x])
        refs.append([np.maximum(normed.mean(axis=2), 0.0)])
    return model, inputs, refs


@case
def dynamic_slice_concat_softmax():
    """Slice and Concat of static dimensions of a dynamic batch, Softmax
    and Transpose: one module at three batch sizes."""
    model = dynamicGraph(
        [helper.make_node("Constant", [], [name],
                          value=numpy_helper.from_array(
                              np.array(v, np.int64)))
         for name, v in (("starts", [1]), ("ends", [6]), ("axes", [1]),
                         ("steps", [2]))] +
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"],
                          ["s"], name="slice"),
         helper.make_node("Concat", ["s", "y"], ["c"], name="concat",
                          axis=1),
         helper.make_node("Softmax", ["c"], ["sm"], name="softmax"),
         helper.make_node("Transpose", ["sm"], ["t"], name="transpose",
                          perm=[1, 0])],
        [("x", ["batch", 6]), ("y", ["batch", 2])], [("t", [5, "batch"])],
        {})
    inputs, refs = Calls(), Calls()
    for n in (1, 5, 37):
        x, y = rand((n, 6), 20 + n), rand((n, 2), 40 + n)
        c = np.concatenate([x[:, 1::2], y], axis=1).astype(np.float64)
        e = np.exp(c - c.max(axis=1, keepdims=True))
        inputs.append([x, y])
        refs.append([(e / e.sum(axis=1, keepdims=True)).T])
    return model, inputs, refs


@case
def dynamic_gather():
    """Gather over a dynamic batch: token ids of any count looked up in an
    embedding table, constant indices along a static dimension, and one
    scalar index (a slice dropping the dimension)."""
    table = rand((50, 8), 5)
    model = dynamicGraph(
        [helper.make_node("Gather", ["table", "ids"], ["e"], name="embed"),
         helper.make_node("Constant", [], ["picks"],
                          value=numpy_helper.from_array(
                              np.array([3, 0, -1], np.int64))),
         helper.make_node("Gather", ["x", "picks"], ["g"], name="picks",
                          axis=1),
         helper.make_node("Constant", [], ["one"],
                          value=numpy_helper.from_array(
                              np.array(2, np.int64))),
         helper.make_node("Gather", ["x", "one"], ["s"], name="one",
                          axis=1)],
        [("ids", ["batch", 5], TensorProto.INT64), ("x", ["batch", 6, 4])],
        [("e", ["batch", 5, 8]), ("g", ["batch", 3, 4]), ("s", ["batch", 4])],
        {"table": table})
    inputs, refs = Calls(), Calls()
    for n in (1, 4, 23):
        ids = np.random.default_rng(60 + n).integers(0, 50, (n, 5),
                                                     dtype=np.int64)
        x = rand((n, 6, 4), 70 + n)
        inputs.append([ids, x])
        refs.append([table[ids].astype(np.float64),
                     x[:, [3, 0, 5], :].astype(np.float64),
                     x[:, 2, :].astype(np.float64)])
    return model, inputs, refs


@case
def dynamic_instancenorm_argmax():
    """InstanceNormalization and ArgMax (keepdims and not) over a dynamic
    batch: each image normalized over its own pixels, the argmax along a
    static dimension. ArgMax's int64 results are cast to float for the
    comparison (exact either way)."""
    scale, bias = rand((3,), 80, 0.5, 1.5), rand((3,), 81)
    model = dynamicGraph(
        [helper.make_node("InstanceNormalization", ["x", "scale", "bias"],
                          ["n"], name="in", epsilon=1e-5),
         helper.make_node("ArgMax", ["n"], ["a"], name="argmax", axis=3,
                          keepdims=0),
         helper.make_node("Cast", ["a"], ["af"], to=TensorProto.FLOAT),
         helper.make_node("ArgMin", ["x"], ["b"], name="argmin", axis=1,
                          keepdims=1),
         helper.make_node("Cast", ["b"], ["bf"], to=TensorProto.FLOAT)],
        [("x", ["batch", 3, 4, 5])],
        [("n", ["batch", 3, 4, 5]), ("af", ["batch", 3, 4]),
         ("bf", ["batch", 1, 4, 5])],
        {"scale": scale, "bias": bias})
    inputs, refs = Calls(), Calls()
    for n in (1, 2, 9):
        x = rand((n, 3, 4, 5), 90 + n)
        x64 = x.astype(np.float64)
        mean = x64.mean(axis=(2, 3), keepdims=True)
        var = ((x64 - mean) ** 2).mean(axis=(2, 3), keepdims=True)
        normed = ((x64 - mean) / np.sqrt(var + 1e-5) *
                  scale.reshape(3, 1, 1) + bias.reshape(3, 1, 1))
        inputs.append([x])
        refs.append([normed, normed.argmax(axis=3).astype(np.float64),
                     x.argmin(axis=1)[:, None].astype(np.float64)])
    return model, inputs, refs


@case
def dynamic_resize():
    """Resize over a dynamic batch (scale 1 there): nearest x2 and linear
    (half_pixel) x1.5 along the image dimensions."""
    model = dynamicGraph(
        [helper.make_node("Constant", [], ["s2"],
                          value=numpy_helper.from_array(
                              np.array([1, 1, 2, 2], np.float32))),
         helper.make_node("Constant", [], ["s15"],
                          value=numpy_helper.from_array(
                              np.array([1, 1, 1.5, 1.5], np.float32))),
         helper.make_node("Resize", ["x", "", "s2"], ["n"], name="nearest",
                          mode="nearest",
                          coordinate_transformation_mode="asymmetric",
                          nearest_mode="floor"),
         helper.make_node("Resize", ["x", "", "s15"], ["l"], name="linear",
                          mode="linear",
                          coordinate_transformation_mode="half_pixel")],
        [("x", ["batch", 2, 4, 6])],
        [("n", ["batch", 2, 8, 12]), ("l", ["batch", 2, 6, 9])], {})

    def linear(x, out, axis):
        size = x.shape[axis]
        c = (np.arange(out) + 0.5) * size / out - 0.5
        c = np.clip(c, 0, size - 1)
        lo = np.floor(c).astype(int)
        hi = np.minimum(lo + 1, size - 1)
        w = c - lo
        shape = [1] * x.ndim
        shape[axis] = out
        return (np.take(x, lo, axis) * (1 - w).reshape(shape) +
                np.take(x, hi, axis) * w.reshape(shape))

    inputs, refs = Calls(), Calls()
    for n in (1, 3, 8):
        x = rand((n, 2, 4, 6), 100 + n)
        x64 = x.astype(np.float64)
        nearest = x64.repeat(2, axis=2).repeat(2, axis=3)
        inputs.append([x])
        refs.append([nearest, linear(linear(x64, 6, 2), 9, 3)])
    return model, inputs, refs


def headedAttentionParts(seed, keyPerm, keys, values):
    """The q, k and v projections of [1, ?, 64] tokens into 4 heads of 16
    (Reshape [1, -1, 4, 16], Transpose by keyPerm for k, [0, 2, 1, 3] for
    q and v), and the tail attending over `keys` ([1, 4, 16, ?]) and
    `values` ([1, 4, ?, 16]): scores / 4, Softmax, values, heads merged
    into y. Returns (weights, head nodes, tail nodes, initializers)."""
    w = {n: rand((64, 64), seed + i) * 0.1
         for i, n in enumerate(("wq", "wk", "wv"))}
    heads = [helper.make_node("MatMul", ["x", n], [n[1]]) for n in w]
    for t, perm in (("q", [0, 2, 1, 3]), ("k", keyPerm), ("v", [0, 2, 1, 3])):
        heads += [helper.make_node("Reshape", [t, "heads"], [t + "r"]),
                  helper.make_node("Transpose", [t + "r"], [t + "t"],
                                   perm=perm)]
    tail = [helper.make_node("MatMul", ["qt", keys], ["s"], name="scores"),
            helper.make_node("Div", ["s", "scale"], ["sd"]),
            helper.make_node("Softmax", ["sd"], ["p"], axis=-1),
            helper.make_node("MatMul", ["p", values], ["o"], name="values"),
            helper.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
            helper.make_node("Reshape", ["ot", "merged"], ["y"])]
    inits = dict(w)
    inits["heads"] = np.array([1, -1, 4, 16], np.int64)
    inits["merged"] = np.array([1, -1, 64], np.int64)
    inits["scale"] = np.array(4.0, np.float32)
    return w, heads, tail, inits


@case
def dynamic_attention_sequence():
    """Attention over a dynamic sequence as exporters write it: q, k and v
    projections, heads split by Reshape [1, -1, 4, 16] and Transpose, the
    scores (MatMul of [1, 4, seq, 16] by [1, 4, 16, seq]), scale, Softmax
    over the keys, MatMul by the values, heads merged back: one module at
    1, 7 and 33 tokens."""
    w, heads, tail, inits = headedAttentionParts(110, [0, 2, 3, 1], "kt",
                                                 "vt")
    nodes = heads + tail
    model = dynamicGraph(nodes, [("x", [1, "seq", 64])],
                         [("y", [1, "seq", 64])], inits)
    inputs, refs = Calls(), Calls()
    for n in (1, 7, 33):
        x = rand((1, n, 64), 120 + n)
        q, k, v = (x.astype(np.float64)[0] @ w[name] for name in w)
        heads = [slice(h * 16, (h + 1) * 16) for h in range(4)]
        out = []
        for h in heads:
            sc = q[:, h] @ k[:, h].T / 4.0
            e = np.exp(sc - sc.max(axis=1, keepdims=True))
            out.append((e / e.sum(axis=1, keepdims=True)) @ v[:, h])
        inputs.append([x])
        refs.append([np.concatenate(out, axis=1)[None]])
    return model, inputs, refs


@case
def dynamic_kv_cache_step():
    """One attention step with a key/value cache, as a decoder exports it:
    the new tokens' keys and values (heads split by Reshape -1) are
    concatenated to the past ones along the dynamic position axis and
    returned as the present cache, and the new queries attend to every
    position. One module at (past, new) = (0, 5), (5, 1), (6, 1), (30, 3)
    positions."""
    w, heads, tail, inits = headedAttentionParts(130, [0, 2, 1, 3], "kT",
                                                 "present_v")
    nodes = heads + [
        helper.make_node("Concat", ["past_k", "kt"], ["present_k"],
                         name="cache_k", axis=2),
        helper.make_node("Concat", ["past_v", "vt"], ["present_v"],
                         name="cache_v", axis=2),
        helper.make_node("Transpose", ["present_k"], ["kT"],
                         perm=[0, 1, 3, 2])] + tail
    model = dynamicGraph(
        nodes,
        [("x", [1, "new", 64]), ("past_k", [1, 4, "past", 16]),
         ("past_v", [1, 4, "past", 16])],
        [("y", [1, "new", 64]), ("present_k", [1, 4, "total", 16]),
         ("present_v", [1, 4, "total", 16])], inits)
    inputs, refs = Calls(), Calls()
    for past, new in ((0, 5), (5, 1), (6, 1), (30, 3)):
        x = rand((1, new, 64), 140 + past)
        pk, pv = rand((1, 4, past, 16), 150 + past), rand((1, 4, past, 16),
                                                          160 + past)
        q, k, v = (x.astype(np.float64)[0] @ w[name] for name in w)
        split = lambda a: a.reshape(new, 4, 16).transpose(1, 0, 2)[None]
        kk = np.concatenate([pk.astype(np.float64), split(k)], axis=2)
        vv = np.concatenate([pv.astype(np.float64), split(v)], axis=2)
        sc = split(q) @ kk.transpose(0, 1, 3, 2) / 4.0
        e = np.exp(sc - sc.max(axis=3, keepdims=True))
        o = (e / e.sum(axis=3, keepdims=True)) @ vv
        inputs.append([x, pk, pv])
        refs.append([o[0].transpose(1, 0, 2).reshape(1, new, 64), kk, vv])
    return model, inputs, refs


def int64Constant(name, value):
    """A Constant node of int64 `value` (a scalar or a list), output
    `name`."""
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(
                                np.array(value, np.int64), name))


def dimsOf(tensor, **dims):
    """Nodes giving dimensions of `tensor` as scalar shape values, each
    name of `dims` the dimension at its axis (Shape, then a Gather each, as
    exporters write `x.shape[i]`)."""
    nodes = [helper.make_node("Shape", [tensor], [f"{tensor}_shape"])]
    for name, axis in dims.items():
        nodes += [int64Constant(f"{name}_axis", axis),
                  helper.make_node("Gather", [f"{tensor}_shape",
                                              f"{name}_axis"], [name],
                                   axis=0)]
    return nodes


@case
def dynamic_causal_mask():
    """A causal mask computed inside the model from its inputs' shapes, as
    a decoder exported with a cache writes it: past = total - new (Sub),
    Range over the keys' and the queries' positions (Add), LessOrEqual of
    the two made 2-D, ConstantOfShape of [new, total] and Where between it
    and -inf, added to scores before a Softmax. One module at (new, total)
    = (1, 1), (3, 8), (1, 40) and (6, 6)."""
    nodes = dimsOf("s", new=1, total=2) + [
        int64Constant("one", 1), int64Constant("zero", 0),
        int64Constant("axis0", [0]), int64Constant("axis1", [1]),
        helper.make_node("Sub", ["total", "new"], ["past"]),
        helper.make_node("Add", ["past", "new"], ["end"]),
        helper.make_node("Range", ["zero", "total", "one"], ["keys"]),
        helper.make_node("Range", ["past", "end", "one"], ["queries"]),
        helper.make_node("Unsqueeze", ["keys", "axis0"], ["keys2"]),
        helper.make_node("Unsqueeze", ["queries", "axis1"], ["queries2"]),
        helper.make_node("LessOrEqual", ["keys2", "queries2"], ["allowed"]),
        helper.make_node("Unsqueeze", ["new", "axis0"], ["new1"]),
        helper.make_node("Unsqueeze", ["total", "axis0"], ["total1"]),
        helper.make_node("Concat", ["new1", "total1"], ["dims"], axis=0),
        helper.make_node("ConstantOfShape", ["dims"], ["zeros"],
                         value=numpy_helper.from_array(
                             np.array([0.0], np.float32), "v")),
        helper.make_node("Constant", [], ["ninf"],
                         value=numpy_helper.from_array(
                             np.array(-np.inf, np.float32), "ninf")),
        helper.make_node("Where", ["allowed", "zeros", "ninf"], ["mask"]),
        helper.make_node("Add", ["s", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["y"], axis=-1)]
    model = dynamicGraph(nodes, [("s", [1, "new", "total"])],
                         [("y", [1, "new", "total"])], {})
    inputs, refs = Calls(), Calls()
    for new, total in ((1, 1), (3, 8), (1, 40), (6, 6)):
        scores = rand((1, new, total), 170 + total, -4, 4)
        past = total - new
        allowed = (np.arange(total)[None, :] <=
                   np.arange(past, total)[:, None])
        masked = np.where(allowed, scores[0].astype(np.float64), -np.inf)
        e = np.exp(masked - masked.max(axis=1, keepdims=True))
        inputs.append([scores])
        refs.append([(e / e.sum(axis=1, keepdims=True))[None]])
    return model, inputs, refs


@case
def dynamic_trilu_mask():
    """A prefill's causal mask as torch.triu writes it: Trilu (k = 1,
    upper) of a ConstantOfShape [T, T] of -inf over the dynamic token
    count, added to scores before a Softmax. One module at T = 1, 2, 9,
    33."""
    nodes = dimsOf("s", t=1) + [
        int64Constant("one", 1), int64Constant("axes", [0]),
        helper.make_node("Unsqueeze", ["t", "axes"], ["t1"]),
        helper.make_node("Concat", ["t1", "t1"], ["dims"], axis=0),
        helper.make_node("ConstantOfShape", ["dims"], ["full"],
                         value=numpy_helper.from_array(
                             np.array([-np.inf], np.float32), "v")),
        helper.make_node("Trilu", ["full", "one"], ["mask"], upper=1),
        helper.make_node("Add", ["s", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["y"], axis=-1)]
    model = dynamicGraph(nodes, [("s", [1, "t", "t"])],
                         [("y", [1, "t", "t"])], {})
    inputs, refs = Calls(), Calls()
    for t in (1, 2, 9, 33):
        scores = rand((1, t, t), 190 + t, -4, 4)
        masked = np.where(np.tril(np.ones((t, t), bool)),
                          scores[0].astype(np.float64), -np.inf)
        e = np.exp(masked - masked.max(axis=1, keepdims=True))
        inputs.append([scores])
        refs.append([(e / e.sum(axis=1, keepdims=True))[None]])
    return model, inputs, refs


@case
def dynamic_trilu_runtime_k():
    """Trilu whose k is a graph input read at each call (it moves only the
    diagonal, so it is data, not a shape): the lower and the upper triangle
    of x over a dynamic row count, one module at several rows and k,
    negative k and k past either side included."""
    nodes = [helper.make_node("Trilu", ["x", "k"], ["lower"], upper=0),
             helper.make_node("Trilu", ["x", "k"], ["upper"], upper=1)]
    model = dynamicGraph(nodes, [("x", [2, "t", 5]),
                                 ("k", [], TensorProto.INT64)],
                         [("lower", [2, "t", 5]), ("upper", [2, "t", 5])],
                         {})
    inputs, refs = Calls(), Calls()
    for t, k in ((1, 0), (3, -1), (4, 2), (6, -7), (5, 9)):
        x = rand((2, t, 5), 230 + t)
        inputs.append([x, np.array(k, np.int64)])
        refs.append([np.tril(x.astype(np.float64), k),
                     np.triu(x.astype(np.float64), k)])
    return model, inputs, refs


@case
def runtime_shape_inputs():
    """Shapes given at call time (issue 19 item 3): Reshape to a target
    whose 0s and -1 are decided per call, ConstantOfShape and Expand to
    given dims, Tile by given repeats and TopK of a given k, every one a
    graph input the host reads per call. One module at four sets of
    values."""
    nodes = [helper.make_node("Reshape", ["x", "target"], ["reshaped"]),
             helper.make_node("ConstantOfShape", ["dims"], ["ones"],
                              value=numpy_helper.from_array(
                                  np.array([1.0], np.float32), "v")),
             helper.make_node("Expand", ["row", "dims"], ["expanded"]),
             helper.make_node("Tile", ["m", "repeats"], ["tiled"]),
             helper.make_node("TopK", ["m", "k"], ["top", "where"], axis=1)]
    model = dynamicGraph(
        nodes, [("x", [2, 3, 4]), ("target", [3], TensorProto.INT64),
                ("dims", [2], TensorProto.INT64), ("row", [1, 5]),
                ("m", [3, 5]), ("repeats", [2], TensorProto.INT64),
                ("k", [1], TensorProto.INT64)],
        [("reshaped", None), ("ones", None), ("expanded", None),
         ("tiled", None), ("top", None)], {})
    inputs, refs = Calls(), Calls()
    sets = (([4, -1, 2], [3, 5], [2, 1], 1), ([0, -1, 4], [1, 5], [1, 3], 5),
            ([-1, 1, 2], [4, 1], [3, 2], 3), ([24, 1, 1], [0, 5], [1, 1], 0))
    for n, (target, dims, repeats, k) in enumerate(sets):
        x, row, m = rand((2, 3, 4), 240 + n), rand((1, 5), 250 + n), \
            rand((3, 5), 260 + n)
        inputs.append([x, np.array(target, np.int64), np.array(dims, np.int64),
                       row, m, np.array(repeats, np.int64),
                       np.array([k], np.int64)])
        shape = [2 if t == 0 else t for t in target]
        wide = m.astype(np.float64)
        refs.append([x.astype(np.float64).reshape(shape),
                     np.ones(dims), np.broadcast_to(
                         row.astype(np.float64), (dims[0], 5)),
                     np.tile(wide, repeats),
                     -np.sort(-wide, axis=1, kind="stable")[:, :k]])
    return model, inputs, refs


@case
def runtime_slice_pad_split():
    """Slice by starts, ends, axes and steps, Pad (reflect) by pads and
    Split by sizes, each a graph input read per call: one module at four
    sets of values, negative steps and axes, bounds past either end and an
    empty part among them."""
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes",
                                        "steps"], ["sliced"]),
             helper.make_node("Pad", ["x", "pads"], ["padded"],
                              mode="reflect"),
             helper.make_node("Split", ["x", "split"], ["left", "right"],
                              axis=1)]
    i64 = TensorProto.INT64
    model = dynamicGraph(
        nodes, [("x", [4, 6]), ("starts", [2], i64), ("ends", [2], i64),
                ("axes", [2], i64), ("steps", [2], i64), ("pads", [4], i64),
                ("split", [2], i64)],
        [("sliced", None), ("padded", None), ("left", None),
         ("right", None)], {})
    inputs, refs = Calls(), Calls()
    sets = (([0, 1], [4, 5], [0, 1], [1, 2], [1, 0, 2, 3], [2, 4]),
            ([-1, 5], [-5, 0], [0, -1], [-1, -2], [0, 2, 3, 1], [6, 0]),
            ([1, -100], [100, 3], [1, 0], [2, 1], [3, 5, 0, 0], [0, 6]),
            ([2, 0], [2, 4], [-2, -1], [1, 3], [0, 0, 0, 0], [1, 5]))
    for n, (starts, ends, axes, steps, pads, split) in enumerate(sets):
        x = rand((4, 6), 290 + n)
        wide = x.astype(np.float64)
        index = [slice(None), slice(None)]
        for s, e, a, st in zip(starts, ends, axes, steps):
            index[a % 2] = slice(s, e, st)
        inputs.append([x] + [np.array(v, np.int64) for v in
                             (starts, ends, axes, steps, pads, split)])
        refs.append([wide[tuple(index)],
                     np.pad(wide, ((pads[0], pads[2]), (pads[1], pads[3])),
                            mode="reflect"),
                     wide[:, :split[0]], wide[:, split[0]:]])
    return model, inputs, refs


@case
def runtime_resize():
    """Resize by scales and by sizes given at call time (graph inputs read
    per call; the output extents computed on the host, floor(dim * scale) in
    double): one module each for linear (half_pixel), cubic
    (align_corners, exclude_outside) and nearest (asymmetric, ceil) over
    scales, and one for linear over sizes, each at several values, up and
    down, 1 and primes among them; ONNX's own float64 reference
    (interpolate_nd)."""
    from onnx.backend.test.case.node import resize as ref
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["linear"],
                         mode="linear"),
        helper.make_node("Resize", ["x", "", "scales"], ["cubic"],
                         mode="cubic",
                         coordinate_transformation_mode="align_corners",
                         exclude_outside=1, cubic_coeff_a=-0.5),
        helper.make_node("Resize", ["x", "", "scales"], ["nearest"],
                         mode="nearest",
                         coordinate_transformation_mode="asymmetric",
                         nearest_mode="ceil"),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["sized"],
                         mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
    ]
    model = dynamicGraph(
        nodes, [("x", [1, 2, 5, 7]), ("scales", [4], f32),
                ("sizes", [4], i64)],
        [("linear", None), ("cubic", None), ("nearest", None),
         ("sized", None)], {})
    inputs, refs = Calls(), Calls()
    sets = (([1, 1, 0.8, 1.6], [1, 2, 3, 11]),
            ([1, 1, 2.0, 0.5], [1, 2, 1, 7]),
            ([1, 1, 0.3, 3.0], [1, 2, 13, 2]),
            ([1, 1, 1.0, 1.0], [1, 2, 5, 1]))
    for n, (scales, sizes) in enumerate(sets):
        x = rand((1, 2, 5, 7), 310 + n)
        wide = x.astype(np.float64)
        scales32 = np.array(scales, np.float32)
        factors = scales32.astype(np.float64)
        linear = ref.interpolate_nd(wide, ref.linear_coeffs,
                                    scale_factors=factors)
        cubic = ref.interpolate_nd(
            wide, lambda r: ref.cubic_coeffs(r, A=-0.5),
            scale_factors=factors,
            coordinate_transformation_mode="align_corners",
            exclude_outside=True)
        nearest = ref.interpolate_nd(
            wide, lambda r: ref.nearest_coeffs(r, mode="ceil"),
            scale_factors=factors,
            coordinate_transformation_mode="asymmetric")
        sized = ref.interpolate_nd(
            wide, ref.linear_coeffs, output_size=sizes,
            coordinate_transformation_mode="pytorch_half_pixel")
        inputs.append([x, scales32, np.array(sizes, np.int64)])
        refs.append([linear, cubic, nearest, sized])
    return model, inputs, refs


@case
def runtime_range():
    """Range over float and int32 scalars given at call time: one module at
    rising, falling, fractional and empty ranges (the count computed on the
    host in double, the elements by the kernel)."""
    f32, i32 = TensorProto.FLOAT, TensorProto.INT32
    nodes = [helper.make_node("Range", ["s", "l", "d"], ["floats"]),
             helper.make_node("Range", ["si", "li", "di"], ["ints"])]
    model = dynamicGraph(
        nodes, [("s", [], f32), ("l", [], f32), ("d", [], f32),
                ("si", [], i32), ("li", [], i32), ("di", [], i32)],
        [("floats", None), ("ints", None, i32)], {})
    inputs, refs = Calls(), Calls()
    sets = (((0.5, 7.25, 0.75), (3, 17, 2)),
            ((10.0, -3.0, -1.5), (5, -8, -3)),
            ((1.0, 1.0, 0.1), (4, 4, 1)),
            ((-2.0, 2.0, 0.3), (7, 0, 5)))
    for (s, l, d), (si, li, di) in sets:
        values = [np.array(v, np.float32) for v in (s, l, d)]
        ints = [np.array(v, np.int32) for v in (si, li, di)]
        wide = [float(v) for v in values]
        count = max(int(np.ceil((wide[1] - wide[0]) / wide[2])), 0)
        floats = wide[0] + np.arange(count, dtype=np.float64) * wide[2]
        inputs.append(values + ints)
        refs.append([floats, np.arange(si, li, di).astype(np.int32)])
    return model, inputs, refs


@case
def if_branches():
    """If with its condition given at call time: both branches (each
    reading the enclosing graph's values, one with a node of its own) run
    and every output is selected by the condition; a constant condition
    imports only its branch."""
    f32 = TensorProto.FLOAT
    then_body = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["t0"]),
         helper.make_node("Add", ["t0", "y"], ["t1"])],
        "then", [], [helper.make_tensor_value_info("t1", f32, [3, 4]),
                     helper.make_tensor_value_info("x", f32, [3, 4])])
    else_body = helper.make_graph(
        [helper.make_node("Sub", ["x", "y"], ["e0"]),
         helper.make_node("Neg", ["y"], ["e1"])],
        "else", [], [helper.make_tensor_value_info("e0", f32, [3, 4]),
                     helper.make_tensor_value_info("e1", f32, [3, 4])])
    nodes = [helper.make_node("If", ["cond"], ["a", "b"],
                              then_branch=then_body, else_branch=else_body),
             helper.make_node("Constant", [], ["yes"],
                              value=numpy_helper.from_array(
                                  np.array(True), "yes")),
             helper.make_node("If", ["yes"], ["c", "d"],
                              then_branch=then_body, else_branch=else_body)]
    model = dynamicGraph(
        nodes, [("cond", [], TensorProto.BOOL), ("x", [3, 4]), ("y", [3, 4])],
        [("a", [3, 4]), ("b", [3, 4]), ("c", [3, 4]), ("d", [3, 4])], {})
    inputs, refs = Calls(), Calls()
    for n, cond in enumerate((True, False, True)):
        x, y = rand((3, 4), 320 + n), rand((3, 4), 330 + n)
        wx, wy = x.astype(np.float64), y.astype(np.float64)
        taken = (wx * wx + wy, wx) if cond else (wx - wy, -wy)
        inputs.append([np.array(cond), x, y])
        refs.append(list(taken) + [wx * wx + wy, wx])
    return model, inputs, refs


@case
def scan_unrolled():
    """Scan (opset 16) over two scan inputs, one reversed and one along
    axis 1, with a state and two scan outputs stacked along axes 0 and 1,
    one in reverse; the body reads a value of the enclosing graph."""
    f32 = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "u"], ["s0"]),
         helper.make_node("Mul", ["s0", "w"], ["s_out"]),
         helper.make_node("Sub", ["v", "bias"], ["o1"])],
        "body",
        [helper.make_tensor_value_info("s_in", f32, [3]),
         helper.make_tensor_value_info("u", f32, [3]),
         helper.make_tensor_value_info("v", f32, [3])],
        [helper.make_tensor_value_info("s_out", f32, [3]),
         helper.make_tensor_value_info("s_out", f32, [3]),
         helper.make_tensor_value_info("o1", f32, [3])])
    body.output[1].name = "s0"
    node = helper.make_node(
        "Scan", ["init", "us", "vs"], ["final", "states", "diffs"],
        body=body, num_scan_inputs=2, scan_input_directions=[1, 0],
        scan_input_axes=[0, 1], scan_output_axes=[0, 1],
        scan_output_directions=[0, 1])
    model = dynamicGraph(
        [node], [("init", [3]), ("us", [4, 3]), ("vs", [3, 4]),
                 ("w", [3]), ("bias", [3])],
        [("final", [3]), ("states", [4, 3]), ("diffs", [3, 4])], {})
    inputs, refs = Calls(), Calls()
    for n in range(2):
        init, us, vs = rand((3,), 340 + n), rand((4, 3), 350 + n), \
            rand((3, 4), 360 + n)
        w, bias = rand((3,), 370 + n, 0.5, 1.5), rand((3,), 380 + n)
        s = init.astype(np.float64)
        states, diffs = [], []
        for t in range(4):
            s0 = s + us[3 - t]
            s = s0 * w
            states.append(s0)
            diffs.append(vs[:, t].astype(np.float64) - bias)
        inputs.append([init, us, vs, w, bias])
        refs.append([s, np.stack(states, 0), np.stack(diffs[::-1], 1)])
    return model, inputs, refs


@case
def runtime_reduce_axis_choice():
    """ReduceSum and ReduceMax (keepdims 0) of a [3, 4, 4] input over an
    axis given at call time where either of axes 1 and 2 gives the declared
    [3, 4]: the kernel swaps the given one into place, so one module reduces
    over 1, 2, -1 or -2."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("ReduceSum", ["x", "axes"], ["sum"],
                              keepdims=0),
             helper.make_node("ReduceMax", ["x", "axes"], ["max"],
                              keepdims=0)]
    model = dynamicGraph(nodes, [("x", [3, 4, 4]), ("axes", [1], i64)],
                         [("sum", [3, 4]), ("max", [3, 4])], {})
    inputs, refs = Calls(), Calls()
    for n, axis in enumerate((1, 2, -1, -2)):
        x = rand((3, 4, 4), 390 + n)
        wide = x.astype(np.float64)
        inputs.append([x, np.array([axis], np.int64)])
        refs.append([wide.sum(axis), wide.max(axis)])
    return model, inputs, refs


@case
def runtime_range_of_computed_limit():
    """Range up to a limit computed from an int32 graph input by Cast to
    float and f32 arithmetic (as the window functions' expanded forms do):
    the host mirrors it exactly (f32 rounding after each operation) for the
    count; one module at several inputs, 0 and a prime among them."""
    f32, i32 = TensorProto.FLOAT, TensorProto.INT32
    third = numpy_helper.from_array(np.array(1 / 3, np.float32), "third")
    step = numpy_helper.from_array(np.array(0.7, np.float32), "step")
    zero = numpy_helper.from_array(np.array(0.0, np.float32), "zero")
    nodes = [helper.make_node("Cast", ["n"], ["nf"], to=f32),
             helper.make_node("Mul", ["nf", "third"], ["limit"]),
             helper.make_node("Range", ["zero", "limit", "step"], ["y"])]
    model = dynamicGraph(nodes, [("n", [], i32)], [("y", None)],
                         {"third": numpy_helper.to_array(third),
                          "step": numpy_helper.to_array(step),
                          "zero": numpy_helper.to_array(zero)})
    inputs, refs = Calls(), Calls()
    for n in (0, 1, 7, 13, 100):
        limit = np.float32(n) * np.float32(1 / 3)
        delta = float(np.float32(0.7))
        count = max(int(np.ceil(float(limit) / delta)), 0)
        inputs.append([np.array(n, np.int32)])
        refs.append([np.arange(count, dtype=np.float64) * delta])
    return model, inputs, refs


@case
def compress_nonzero_by_input_condition():
    """Compress (along axis 1, and flattened) and NonZero of a bool
    condition given at call time: the host counts its true elements per
    call and the kernels place the chosen ones; one module at random
    conditions, none true and all true among them (an empty output)."""
    b8 = TensorProto.BOOL
    nodes = [helper.make_node("Compress", ["x", "keep"], ["cols"], axis=1),
             helper.make_node("Compress", ["x", "flat"], ["picked"]),
             helper.make_node("NonZero", ["mask"], ["where"])]
    model = dynamicGraph(
        nodes, [("x", [3, 5]), ("keep", [4], b8), ("flat", [15], b8),
                ("mask", [2, 3, 4], b8)],
        [("cols", None), ("picked", None),
         ("where", None, TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(400)
    for n in range(4):
        x = rand((3, 5), 410 + n)
        if n == 1:
            keep, flat, mask = (np.zeros(4, bool), np.zeros(15, bool),
                                np.zeros((2, 3, 4), bool))
        elif n == 2:
            keep, flat, mask = (np.ones(4, bool), np.ones(15, bool),
                                np.ones((2, 3, 4), bool))
        else:
            keep, flat, mask = (rng.random(4) < 0.5, rng.random(15) < 0.5,
                                rng.random((2, 3, 4)) < 0.5)
        wide = x.astype(np.float64)
        inputs.append([x, keep, flat, mask])
        refs.append([np.compress(keep, wide, axis=1),
                     np.compress(flat, wide.reshape(-1)),
                     np.array(np.nonzero(mask), np.int64).reshape(3, -1)])
    return model, inputs, refs


def loopGraph(body_nodes, body_inputs, body_outputs):
    """A Loop body graph: inputs and outputs (name, type, shape)."""
    return helper.make_graph(
        body_nodes, "body",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in body_inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in body_outputs])


@case
def loop_trip_count_per_call():
    """A Loop whose trip count is a graph input: the runtime repeats its
    body (a loop phase). The body reads a value the graph computes before
    the loop (w = 2x), casts its iteration to float, carries acc, and scans
    acc and the iteration; at 0 steps the scans have no rows."""
    body = loopGraph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Constant", [], ["half"],
                          value=helper.make_tensor("half", TensorProto.FLOAT,
                                                   [], [0.5])),
         helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["acc", "half"], ["h"]),
         helper.make_node("Mul", ["w", "fi"], ["wi"]),
         helper.make_node("Add", ["h", "wi"], ["acc_out"]),
         helper.make_node("Identity", ["i"], ["i_out"])],
        [("i", TensorProto.INT64, []), ("c", TensorProto.BOOL, []),
         ("acc", TensorProto.FLOAT, [4])],
        [("c_out", TensorProto.BOOL, []), ("acc_out", TensorProto.FLOAT, [4]),
         ("acc_out", TensorProto.FLOAT, [4]),
         ("i_out", TensorProto.INT64, [])])
    nodes = [
        helper.make_node("Add", ["x", "x"], ["w"]),
        helper.make_node("Loop", ["n", "", "x"], ["acc", "accs", "steps"],
                         body=body),
    ]
    model = dynamicGraph(
        nodes, [("n", [], TensorProto.INT64), ("x", [4])],
        [("acc", [4]), ("accs", None), ("steps", None, TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    for k, n in enumerate([3, 0, 1, 7]):
        x = rand((4,), 450 + k)
        acc, w = x.astype(np.float64), 2 * x.astype(np.float64)
        accs = []
        for i in range(n):
            acc = acc * 0.5 + w * i
            accs.append(acc)
        inputs.append([np.array(n, np.int64), x])
        refs.append([acc, np.array(accs).reshape(n, 4),
                     np.arange(n, dtype=np.int64)])
    return model, inputs, refs


@case
def loop_while_condition():
    """A Loop without a trip count: its condition, computed before the loop
    and by each step (the sum of |v| below 100), alone ends it, after a
    number of steps the data decides (none where x is large already). The
    condition is scanned too (true, then false at the last step)."""
    def sum_below(v, out):
        return [helper.make_node("Abs", [v], [out + "_abs"]),
                helper.make_node("ReduceSum", [out + "_abs"], [out + "_sum"],
                                 keepdims=0),
                helper.make_node("Less", [out + "_sum", "limit"], [out])]
    body = loopGraph(
        [helper.make_node("Add", ["v", "v"], ["v_out"])] +
        sum_below("v_out", "c_out") +
        [helper.make_node("Identity", ["c_out_sum"], ["total"])],
        [("i", TensorProto.INT64, []), ("c", TensorProto.BOOL, []),
         ("v", TensorProto.FLOAT, [3])],
        [("c_out", TensorProto.BOOL, []), ("v_out", TensorProto.FLOAT, [3]),
         ("total", TensorProto.FLOAT, []), ("c_out", TensorProto.BOOL, [])])
    nodes = ([helper.make_node("Constant", [], ["limit"],
                               value=helper.make_tensor(
                                   "limit", TensorProto.FLOAT, [], [100.0]))] +
             sum_below("x", "c0") +
             [helper.make_node("Loop", ["", "c0", "x"],
                               ["v", "totals", "going"], body=body)])
    model = dynamicGraph(nodes, [("x", [3])],
                         [("v", [3]), ("totals", None),
                          ("going", None, TensorProto.BOOL)], {})
    inputs, refs = Calls(), Calls()
    for k, scale in enumerate([1.0, 0.01, 80.0]):
        x = rand((3,), 460 + k) * np.float32(scale)
        v = x.astype(np.float64)
        totals = []
        # The condition as the model computes it, in f32.
        while np.abs(v.astype(np.float32)).sum(dtype=np.float32) < 100:
            v = v * 2
            totals.append(np.abs(v).sum())
        going = [True] * len(totals)
        if going:
            going[-1] = False
        inputs.append([x])
        refs.append([v, np.array(totals), np.array(going, bool)])
    return model, inputs, refs


@case
def loop_growing_carried_value():
    """A Loop whose body grows its carried value (Concat of one element per
    step): the body is imported again with that dimension `?`, and the
    loop's result has as many elements as the steps the call's trip count
    asks for."""
    body = loopGraph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["fi", "s"], ["e"]),
         helper.make_node("Constant", [], ["axes"],
                          value=numpy_helper.from_array(
                              np.array([0], np.int64))),
         helper.make_node("Unsqueeze", ["e", "axes"], ["e1"]),
         helper.make_node("Concat", ["y", "e1"], ["y_out"], axis=0)],
        [("i", TensorProto.INT64, []), ("c", TensorProto.BOOL, []),
         ("y", TensorProto.FLOAT, [1])],
        [("c_out", TensorProto.BOOL, []), ("y_out", TensorProto.FLOAT, None)])
    model = dynamicGraph(
        [helper.make_node("Loop", ["n", "", "y0"], ["y"], body=body)],
        [("n", [], TensorProto.INT64), ("y0", [1]), ("s", [])],
        [("y", None)], {})
    inputs, refs = Calls(), Calls()
    for k, n in enumerate([4, 0, 9]):
        y0, s = rand((1,), 470 + k), rand((), 480 + k)
        ref = [float(y0[0])] + [i * float(s) for i in range(n)]
        inputs.append([np.array(n, np.int64), y0, s])
        refs.append([np.array(ref)])
    return model, inputs, refs


@case
def if_branches_of_different_shapes():
    """An If on a condition given per call whose branches' outputs differ
    in shape (Relu of w = 2x, 2 elements; Concat of x and w, 4; and a
    second output of one shape in both): one branch runs per call, as two
    loops of at most one step, reading w, which the graph computes."""
    then_body = helper.make_graph(
        [helper.make_node("Relu", ["w"], ["a"]),
         helper.make_node("Neg", ["x"], ["n"])], "then", [],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("n", TensorProto.FLOAT, [2])])
    else_body = helper.make_graph(
        [helper.make_node("Concat", ["x", "w"], ["b"], axis=0),
         helper.make_node("Abs", ["x"], ["m"])], "else", [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [2])])
    nodes = [helper.make_node("Add", ["x", "x"], ["w"]),
             helper.make_node("If", ["c"], ["y", "z"], then_branch=then_body,
                              else_branch=else_body)]
    model = dynamicGraph(nodes, [("c", [], TensorProto.BOOL), ("x", [2])],
                         [("y", None), ("z", [2])], {})
    inputs, refs = Calls(), Calls()
    for k, c in enumerate([True, False, True]):
        x = rand((2,), 490 + k)
        w = 2 * x.astype(np.float64)
        if c:
            ref = [np.maximum(w, 0), -x.astype(np.float64)]
        else:
            ref = [np.concatenate([x.astype(np.float64), w]),
                   np.abs(x.astype(np.float64))]
        inputs.append([np.array(c), x])
        refs.append(ref)
    return model, inputs, refs


@case
def compress_nonzero_by_computed_condition():
    """NonZero and Compress of conditions the model computes (x > 0, and
    y < 0.25 then And with x's first column > 0): a kernel counts the true
    elements and the host reads the count, so the function runs as two
    phases; the chosen elements then feed more arithmetic (Mul by 2) and a
    ReduceSum over what was picked. One module at random inputs, none
    picked (an empty output) and all picked among them."""
    nodes = [
        helper.make_node("Constant", [], ["zero"],
                         value=helper.make_tensor("zero", TensorProto.FLOAT,
                                                  [], [0.0])),
        helper.make_node("Constant", [], ["quarter"],
                         value=helper.make_tensor("quarter", TensorProto.FLOAT,
                                                  [], [0.25])),
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("NonZero", ["positive"], ["where"]),
        helper.make_node("Less", ["y", "quarter"], ["small"]),
        helper.make_node("Compress", ["y", "small"], ["picked"], axis=0),
        helper.make_node("Mul", ["picked", "picked"], ["squared"]),
        helper.make_node("ReduceSum", ["squared"], ["total"], keepdims=0),
    ]
    model = dynamicGraph(
        nodes, [("x", [3, 4]), ("y", [6])],
        [("where", None, TensorProto.INT64), ("picked", None),
         ("total", None)], {})
    inputs, refs = Calls(), Calls()
    for n in range(4):
        x = rand((3, 4), 430 + n)
        y = rand((6,), 440 + n)
        if n == 1:
            x, y = -np.abs(x) - 0.5, np.abs(y) + 0.5
        elif n == 2:
            x, y = np.abs(x) + 0.5, -np.abs(y)
        wide = y.astype(np.float64)
        picked = wide[y < np.float32(0.25)]
        inputs.append([x, y])
        refs.append([np.array(np.nonzero(x > 0), np.int64).reshape(2, -1),
                     picked, np.array((picked * picked).sum())])
    return model, inputs, refs


@case
def detector_candidates():
    """A torchvision detector's candidate selection, as its exporter writes
    it: scores above a threshold (Greater, NonZero, Transpose) picked by
    GatherND (indices of a count known per call), the best min(4, count) of
    them by TopK, k computed from that count (Shape, Gather, Concat with 4,
    ReduceMin, Reshape: host arithmetic), their boxes gathered along the
    picked count by Gather, and whether none was picked (ReduceProd of
    the Shape, Equal 0: a shape made a tensor). Calls where 7, 2 (fewer
    than k) and no scores pass."""
    def const(name, values, dtype=np.int64):
        return helper.make_node(
            "Constant", [], [name],
            value=numpy_helper.from_array(np.array(values, dtype), name))
    nodes = [
        const("threshold", 0.5, np.float32), const("four", [4]),
        const("zero", [0]), const("axis0", [0]), const("one", [1]),
        helper.make_node("Greater", ["scores", "threshold"], ["passing"]),
        helper.make_node("NonZero", ["passing"], ["where"]),
        helper.make_node("Transpose", ["where"], ["picks"], perm=[1, 0]),
        helper.make_node("GatherND", ["scores", "picks"], ["candidates"]),
        helper.make_node("GatherND", ["boxes", "picks"], ["candidate_boxes"]),
        helper.make_node("Shape", ["candidates"], ["count_shape"]),
        helper.make_node("Gather", ["count_shape", "zero"], ["count"],
                         axis=0),
        helper.make_node("Concat", ["four", "count"], ["both"], axis=0),
        helper.make_node("ReduceMin", ["both"], ["k0"], keepdims=0),
        helper.make_node("Reshape", ["k0", "one"], ["k"]),
        helper.make_node("TopK", ["candidates", "k"], ["best", "order"]),
        helper.make_node("Gather", ["candidate_boxes", "order"],
                         ["best_boxes"], axis=0),
        helper.make_node("ReduceProd", ["count_shape"], ["total"],
                         keepdims=0),
        helper.make_node("Equal", ["total", "zero"], ["none"]),
    ]
    model = dynamicGraph(
        nodes, [("scores", [12]), ("boxes", [12, 4])],
        [("best", None), ("best_boxes", None),
         ("none", None, TensorProto.BOOL)], {})
    inputs, refs = Calls(), Calls()
    for passing in (7, 2, 0):
        rng = np.random.default_rng(500 + passing)
        scores = rng.uniform(0.0, 0.45, size=12).astype(np.float32)
        chosen = rng.permutation(12)[:passing]
        scores[chosen] = rng.uniform(0.55, 1.0, size=passing)
        boxes = rand((12, 4), 510 + passing)
        where = np.nonzero(scores > np.float32(0.5))[0]
        cand = scores[where]
        order = np.argsort(-cand, kind="stable")[:min(4, len(cand))]
        inputs.append([scores, boxes])
        refs.append([cand[order].astype(np.float64),
                     boxes[where][order].astype(np.float64),
                     np.array([len(where) == 0])])
    return model, inputs, refs


@case
def topk_dynamic_extent():
    """TopK with a constant k over a dynamic extent, and Gather along a
    dynamic dimension with negative indices: k = 3 of 5 and of 9 elements;
    of 2 the call fails in one line (k past the extent)."""
    k = numpy_helper.from_array(np.array([3], np.int64), "k")
    picks = numpy_helper.from_array(np.array([-1, 0, -2], np.int64), "picks")
    nodes = [helper.make_node("Constant", [], ["k"], value=k),
             helper.make_node("Constant", [], ["picks"], value=picks),
             helper.make_node("TopK", ["x", "k"], ["top", "where"]),
             helper.make_node("Gather", ["x", "picks"], ["ends"], axis=0)]
    model = dynamicGraph(nodes, [("x", ["n"])],
                         [("top", [3]), ("where", [3], TensorProto.INT64),
                          ("ends", [3])], {})
    inputs, refs = Calls(), Calls()
    for n in (5, 9, 2):
        x = rand((n,), 520 + n)
        inputs.append([x])
        if n < 3:
            refs.append(Refused("k is not in [0, the extent of dimension 0]"))
            continue
        order = np.argsort(-x, kind="stable")[:3]
        refs.append([x[order].astype(np.float64), order.astype(np.int64),
                     x[[-1, 0, -2]].astype(np.float64)])
    return model, inputs, refs


@case
def slice_dynamic_extent():
    """Slice of a dimension known per call by constant starts and ends
    (a detector's `keep[:300]`, and from the end): clamped to the extent
    per call, at 8, 3 and 0 rows, and the Size of the input."""
    cst = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(value, name))
    nodes = [cst("s", np.array([1], np.int64)),
             cst("e", np.array([5], np.int64)),
             cst("ax", np.array([0], np.int64)),
             cst("s2", np.array([-3], np.int64)),
             cst("e2", np.array([2**63 - 1], np.int64)),
             helper.make_node("Slice", ["x", "s", "e", "ax"], ["head"]),
             helper.make_node("Slice", ["x", "s2", "e2", "ax"], ["tail"]),
             helper.make_node("Size", ["x"], ["size"])]
    model = dynamicGraph(nodes, [("x", ["n", 3])],
                         [("head", None), ("tail", None),
                          ("size", [], TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    for n in (8, 3, 0):
        x = rand((n, 3), 540 + n)
        inputs.append([x])
        refs.append([x[1:5].astype(np.float64), x[-3:].astype(np.float64),
                     np.array(3 * n, np.int64)])
    return model, inputs, refs


@case
def expand_where_shape():
    """Expand to a shape chosen by Where over Equal of a shape known per
    call with -1 (torchvision's MultiScaleRoIAlign writes
    `Where(Equal(shape, -1), 1, shape)`): an extent is never -1, so the
    choice is made at import and the shape's dimensions pass through; at
    5, 1 and 0 rows, and the chosen shape returned."""
    cst = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(value, name))
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             cst("minus", np.array([-1], np.int64)),
             cst("one", np.array([1], np.int64)),
             helper.make_node("Equal", ["shape", "minus"], ["unknown"]),
             helper.make_node("Where", ["unknown", "one", "shape"], ["to"]),
             helper.make_node("Expand", ["row", "to"], ["wide"]),
             helper.make_node("Add", ["wide", "x"], ["sum"])]
    model = dynamicGraph(nodes, [("x", ["n", 3]), ("row", [1, 3])],
                         [("sum", None), ("to", [2], TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    for n in (5, 1, 0):
        x = rand((n, 3), 560 + n)
        row = rand((1, 3), 570 + n)
        inputs.append([x, row])
        refs.append([(x.astype(np.float64) + row.astype(np.float64)),
                     np.array([n, 3], np.int64)])
    return model, inputs, refs


@case
def scatter_rows_dynamic():
    """ScatterElements along axis 0 into data of rows known per call, from
    updates of another count known per call (torchvision's
    MultiScaleRoIAlign merging its levels' pooled rows): rows expanded
    over the columns, a repeated row (the later update wins), negative
    indices, none at all, updates narrower than the data, and a refused
    call whose indices and updates disagree."""
    nodes = [helper.make_node("ScatterElements", ["data", "idx", "upd"],
                              ["out"], axis=0),
             helper.make_node("ScatterElements", ["data", "idx", "upd"],
                              ["sum"], axis=0, reduction="add")]
    model = dynamicGraph(nodes, [("data", ["n", 4]),
                                 ("idx", ["k", "c"], TensorProto.INT64),
                                 ("upd", ["k", "c"])],
                         [("out", None), ("sum", None)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(580)
    for n, rows, c in ((6, [4, 0, 5], 4), (5, [1, -1, 1, 2], 3),
                       (3, [], 4), (4, [2], 2)):
        data = rand((n, 4), 581 + n)
        idx = np.repeat(np.array(rows, np.int64)[:, None], c, axis=1)
        upd = rng.standard_normal((len(rows), c)).astype(np.float32)
        inputs.append([data, idx.reshape(len(rows), c), upd])
        out = data.astype(np.float64).copy()
        add = data.astype(np.float64).copy()
        for u, row in enumerate(rows):
            for j in range(c):
                out[row, j] = upd[u, j]
                add[row, j] += upd[u, j]
        refs.append([out, add])
    inputs.append([rand((3, 4), 590), np.zeros((2, 4), np.int64),
                   rand((3, 4), 591)])
    refs.append(Refused("indices and updates must have the same shape"))
    return model, inputs, refs


@case
def scatter_rows_expanded():
    """ScatterElements of whole rows (indices a column of row numbers
    expanded over the row, as torchvision's MultiScaleRoIAlign merges its
    levels): each output row finds the last update row naming it, then
    reads it or the data's; repeated and negative row numbers, no update
    rows at all, every row replaced, and data of other row counts."""
    cst = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(value, name))
    nodes = [cst("column", np.array([-1, 1], np.int64)),
             helper.make_node("Reshape", ["rows", "column"], ["rows1"]),
             helper.make_node("Shape", ["upd"], ["us"]),
             helper.make_node("Expand", ["rows1", "us"], ["idx"]),
             helper.make_node("ScatterElements", ["data", "idx", "upd"],
                              ["out"], axis=0)]
    model = dynamicGraph(nodes, [("data", ["n", 5]),
                                 ("rows", ["k"], TensorProto.INT64),
                                 ("upd", ["k", 5])],
                         [("out", None)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(630)
    for n, rows in ((6, [4, -1, 4, 0]), (4, []), (5, [3, 1, 4, 0, 2]),
                    (1, [0, 0])):
        data = rand((n, 5), 631 + n)
        upd = rng.standard_normal((len(rows), 5)).astype(np.float32)
        inputs.append([data, np.array(rows, np.int64), upd])
        out = data.astype(np.float64).copy()
        for u, row in enumerate(rows):
            out[row] = upd[u]
        refs.append([out])
    return model, inputs, refs


@case
def slice_to_a_count():
    """Slice of rows known per call up to another input's row count (a
    shape value: torchvision's box head keeps `[:n]` of its scores, n its
    proposals), clamped per call, and a constant expanded to the slice's
    shape (the box head's class labels): at 5 and 3 rows, 2 and 4, 3 and 0."""
    cst = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(value, name))
    nodes = [helper.make_node("Shape", ["y"], ["ys"]),
             cst("zero", np.array(0, np.int64)),
             cst("z1", np.array([0], np.int64)),
             cst("ax0", np.array([0], np.int64)),
             cst("labels", np.arange(3, dtype=np.float32).reshape(1, 3)),
             helper.make_node("Gather", ["ys", "zero"], ["m"], axis=0),
             helper.make_node("Unsqueeze", ["m", "ax0"], ["m1"]),
             helper.make_node("Add", ["z1", "m1"], ["end"]),
             helper.make_node("Slice", ["x", "z1", "end", "ax0"], ["head"]),
             helper.make_node("Shape", ["head"], ["hs"]),
             helper.make_node("Expand", ["labels", "hs"], ["wide"])]
    model = dynamicGraph(nodes, [("x", ["n", 3]), ("y", ["m", 4])],
                         [("head", None), ("wide", None)], {})
    inputs, refs = Calls(), Calls()
    for n, m in ((5, 3), (2, 4), (3, 0)):
        x = rand((n, 3), 600 + n)
        inputs.append([x, rand((m, 4), 610 + m)])
        k = min(n, m)
        refs.append([x[:k].astype(np.float64),
                     np.tile(np.arange(3, dtype=np.float64), (k, 1))])
    return model, inputs, refs


@case
def gathernd_dynamic_rows():
    """GatherND over data of a dynamic row count, rows picked by constant
    indices (negative ones counted from the end per call): 7 rows, 3 rows
    (an index past the end clamped, as any out-of-range index), and 0
    rows, where reading any row fails the call in one line."""
    idx = numpy_helper.from_array(np.array([[-1], [0], [2]], np.int64), "idx")
    nodes = [helper.make_node("Constant", [], ["idx"], value=idx),
             helper.make_node("GatherND", ["data", "idx"], ["rows"])]
    model = dynamicGraph(nodes, [("data", ["n", 4])], [("rows", [3, 4])], {})
    inputs, refs = Calls(), Calls()
    for n in (7, 3, 0):
        data = rand((n, 4), 530 + n)
        inputs.append([data])
        if n == 0:
            refs.append(Refused("gathers from an empty dimension 0"))
            continue
        picks = [min(max(i + n if i < 0 else i, 0), n - 1) for i in (-1, 0, 2)]
        refs.append([data[picks].astype(np.float64)])
    return model, inputs, refs


@case
def shape_output_dynamic_batch():
    """A graph output that is the shape of a dynamic-batch input, and its
    element count (Shape and Size): the host's extents returned as
    tensors, at batches 1 and 6."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("ReduceProd", ["s"], ["count"], keepdims=1)]
    model = dynamicGraph(nodes, [("x", ["batch", 3])],
                         [("s", [2], TensorProto.INT64),
                          ("count", [1], TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    for n in (1, 6):
        inputs.append([rand((n, 3), 540 + n)])
        refs.append([np.array([n, 3], np.int64), np.array([3 * n], np.int64)])
    return model, inputs, refs


@case
def nonzero_dynamic_batch():
    """NonZero of a condition computed over a dynamic batch (x > 0, x of
    [batch, 3]): counted by a kernel whatever its length, which the host
    checks per call; one module at batches 1, 5 and 33."""
    nodes = [
        helper.make_node("Constant", [], ["zero"],
                         value=helper.make_tensor("zero", TensorProto.FLOAT,
                                                  [], [0.0])),
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("NonZero", ["positive"], ["where"])]
    model = dynamicGraph(nodes, [("x", ["batch", 3])],
                         [("where", None, TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    for k, batch in enumerate((1, 5, 33)):
        x = rand((batch, 3), 490 + k)
        inputs.append([x])
        refs.append([np.array(np.nonzero(x > 0), np.int64).reshape(2, -1)])
    return model, inputs, refs


@case
def nonzero_many_blocks():
    """NonZero of x > 0 over [batch, 37] (up to 11,100 elements: the prefix
    count in blocks of 256, a block's count, the blocks before it, the
    elements before in it) and over a static [70, 30] computed the same
    way: batches 0, 1, 7 (a partial block) and 300, a third of x negative,
    and long runs of negatives so whole blocks count nothing."""
    zero = helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])
    nodes = [helper.make_node("Constant", [], ["zero"], value=zero),
             helper.make_node("Greater", ["x", "zero"], ["positive"]),
             helper.make_node("NonZero", ["positive"], ["where"]),
             helper.make_node("Greater", ["y", "zero"], ["ypositive"]),
             helper.make_node("NonZero", ["ypositive"], ["ywhere"])]
    model = dynamicGraph(nodes, [("x", ["batch", 37]), ("y", [70, 30])],
                         [("where", None, TensorProto.INT64),
                          ("ywhere", None, TensorProto.INT64)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(620)
    for batch in (0, 1, 7, 300):
        x = (rng.random((batch, 37)) - 0.33).astype(np.float32)
        x[batch // 3: batch // 2] = -1  # whole blocks without any
        y = (rng.random((70, 30)) - 0.5).astype(np.float32)
        y[10:30] = -1
        inputs.append([x, y])
        refs.append([np.array(np.nonzero(x > 0), np.int64).reshape(2, -1),
                     np.array(np.nonzero(y > 0), np.int64).reshape(2, -1)])
    return model, inputs, refs


@case
def compress_dynamic_batch():
    """Compress of an input over a dynamic batch: along axis 1 by a
    condition given at call time (the batch passes through), and
    flattened by a condition computed from the input (x > 0, reshaped to
    one dimension: its length known per call, checked against the input's
    per call); one module at batches 1, 4 and 9."""
    b8 = TensorProto.BOOL
    nodes = [
        helper.make_node("Compress", ["x", "keep"], ["cols"], axis=1),
        helper.make_node("Constant", [], ["zero"],
                         value=helper.make_tensor("zero", TensorProto.FLOAT,
                                                  [], [0.0])),
        helper.make_node("Constant", [], ["flat"],
                         value=numpy_helper.from_array(
                             np.array([-1], np.int64))),
        helper.make_node("Greater", ["x", "zero"], ["positive"]),
        helper.make_node("Reshape", ["positive", "flat"], ["cond"]),
        helper.make_node("Compress", ["x", "cond"], ["picked"])]
    model = dynamicGraph(nodes, [("x", ["batch", 5]), ("keep", [4], b8)],
                         [("cols", None), ("picked", None)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(495)
    for k, batch in enumerate((1, 4, 9)):
        x = rand((batch, 5), 496 + k)
        keep = rng.random(4) < 0.5
        wide = x.astype(np.float64)
        inputs.append([x, keep])
        refs.append([np.compress(keep, wide, axis=1),
                     wide.reshape(-1)[(x > 0).reshape(-1)]])
    return model, inputs, refs


def uniqueRef(x, axis, inOrder):
    """ONNX Unique's four outputs by numpy: sorted, or in order of first
    appearance."""
    y, index, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True,
        axis=axis)
    inverse = inverse.reshape(-1)
    if inOrder:
        order = np.argsort(index, kind="stable")
        place = np.argsort(order, kind="stable")
        y = np.take(y, order, axis=0 if axis is None else axis)
        index, counts, inverse = index[order], counts[order], place[inverse]
    return [y.astype(np.float64), index.astype(np.int64),
            inverse.astype(np.int64), counts.astype(np.int64)]


@case
def unique_values_and_slices():
    """Unique of a flattened input (sorted, and in order of appearance) and
    of the columns of a matrix (axis 1, sorted): how many unique ones there
    are is computed on the device and read by the host, so the function
    runs as two phases. One module at several inputs: repeats, all equal,
    all different."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("Unique", ["x"], ["y", "at", "inv", "n"]),
             helper.make_node("Unique", ["x"], ["y2", "at2", "inv2", "n2"],
                              sorted=0),
             helper.make_node("Unique", ["m"], ["cols", "cat", "cinv", "cn"],
                              axis=1)]
    outs = []
    for y, at, inv, n in (("y", "at", "inv", "n"),
                          ("y2", "at2", "inv2", "n2"),
                          ("cols", "cat", "cinv", "cn")):
        outs += [(y, None), (at, None, i64), (inv, None, i64), (n, None, i64)]
    model = dynamicGraph(nodes, [("x", [2, 5]), ("m", [3, 6])], outs, {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(450)
    for k in range(3):
        if k == 0:
            x = rng.integers(-2, 3, (2, 5)).astype(np.float32)
            m = rng.integers(0, 2, (3, 6)).astype(np.float32)
        elif k == 1:
            x = np.full((2, 5), 1.5, np.float32)
            m = np.full((3, 6), -0.25, np.float32)
        else:
            x = rand((2, 5), 460)
            m = rand((3, 6), 461)
        inputs.append([x, m])
        refs.append(uniqueRef(x, None, False) + uniqueRef(x, None, True) +
                    uniqueRef(m, 1, False))
    return model, inputs, refs


def nmsRef(boxes, scores, limit, iou, threshold, centers):
    """ONNX NonMaxSuppression by its definition, in float64: per batch and
    class, candidates above the score threshold in order of score (lower
    index first among equal ones), each kept unless a kept one overlaps it
    by more than `iou`, at most `limit` kept."""
    def corners(b):
        if centers:
            return (b[0] - b[2] / 2, b[0] + b[2] / 2,
                    b[1] - b[3] / 2, b[1] + b[3] / 2)
        return (min(b[1], b[3]), max(b[1], b[3]),
                min(b[0], b[2]), max(b[0], b[2]))

    def over(p, q):
        p, q = corners(p), corners(q)
        w = min(p[1], q[1]) - max(p[0], q[0])
        h = min(p[3], q[3]) - max(p[2], q[2])
        if w <= 0 or h <= 0:
            return False
        inter = w * h
        a = (p[1] - p[0]) * (p[3] - p[2])
        c = (q[1] - q[0]) * (q[3] - q[2])
        union = a + c - inter
        if a <= 0 or c <= 0 or union <= 0:
            return False
        return inter / union > iou

    out = []
    wide = boxes.astype(np.float64)
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            cand = sorted((i for i in range(len(s)) if s[i] > threshold),
                          key=lambda i: (-s[i], i))
            kept = []
            for i in cand:
                if len(kept) >= limit:
                    break
                if not any(over(wide[b, i], wide[b, j]) for j in kept):
                    kept.append(i)
                    out.append([b, c, i])
    return np.array(out, np.int64).reshape(-1, 3)


@case
def nms_random_boxes():
    """NonMaxSuppression over 40 random boxes, 2 batches and 3 classes,
    corners given in any order and as centers, with the limit, IoU and score
    thresholds given at call time: the boxes are decided one at a time by
    kernels, and the host reads how many were kept. One module at several
    limits (0 keeps none) and thresholds."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou", "floor"],
                              ["kept"]),
             helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "limit", "iou"],
                              ["kept_centers"], center_point_box=1)]
    model = dynamicGraph(
        nodes, [("boxes", [2, 40, 4]), ("scores", [2, 3, 40]),
                ("limit", [1], i64), ("iou", [1]), ("floor", [1])],
        [("kept", None, i64), ("kept_centers", None, i64)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(470)
    for limit, iou, floor in ((5, 0.3, 0.2), (40, 0.5, 0.0), (0, 0.5, 0.0),
                              (3, 0.0, 0.5)):
        boxes = (rng.random((2, 40, 4)) * 4).astype(np.float32)
        boxes[..., 2:] = np.abs(boxes[..., 2:]) + 0.5
        scores = rng.random((2, 3, 40)).astype(np.float32)
        scores[0, 0, 7] = scores[0, 0, 3]  # a tie
        inputs.append([boxes, scores, np.array([limit], np.int64),
                       np.array([iou], np.float32),
                       np.array([floor], np.float32)])
        refs.append([nmsRef(boxes, scores, limit, np.float32(iou),
                            np.float32(floor), False),
                     nmsRef(boxes, scores, limit, np.float32(iou),
                            -np.inf, True)])
    return model, inputs, refs


@case
def nms_no_classes():
    """NonMaxSuppression over scores of no class: nothing is kept (an
    empty [0, 3] result), whatever the boxes."""
    i64 = TensorProto.INT64
    model = dynamicGraph(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"],
                          ["kept"])],
        [("boxes", [1, 3, 4]), ("scores", [1, 0, 3])],
        [("kept", None, i64)], {})
    boxes = rand((1, 3, 4), 485)
    return (model, Calls([[boxes, np.zeros((1, 0, 3), np.float32)]]),
            Calls([[np.zeros((0, 3), np.int64)]]))


@case
def nms_constant_thresholds():
    """NonMaxSuppression whose limit and thresholds are initializers (what
    exporters write): constants the kernels read, made before any kernel
    body asks for them."""
    i64 = TensorProto.INT64
    model = dynamicGraph(
        [helper.make_node("NonMaxSuppression",
                          ["boxes", "scores", "limit", "iou", "floor"],
                          ["kept"])],
        [("boxes", [1, 12, 4]), ("scores", [1, 2, 12])],
        [("kept", None, i64)],
        {"limit": np.array([4], np.int64), "iou": np.array([0.4], np.float32),
         "floor": np.array([0.1], np.float32)})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(480)
    for _ in range(2):
        boxes = (rng.random((1, 12, 4)) * 3).astype(np.float32)
        scores = rng.random((1, 2, 12)).astype(np.float32)
        inputs.append([boxes, scores])
        refs.append([nmsRef(boxes, scores, 4, np.float32(0.4),
                            np.float32(0.1), False)])
    return model, inputs, refs


def clusteredBoxes(rng, n, clusters):
    """`n` boxes [y1, x1, y2, x2] jittered around `clusters` centres, so
    that overlaps chain (a box suppressed by one that is itself
    suppressed)."""
    centres = rng.random((max(clusters, 1), 2)) * 8
    pick = rng.integers(0, max(clusters, 1), n)
    middle = centres[pick] + rng.normal(0, 0.4, (n, 2))
    half = rng.random((n, 2)) * 0.8 + 0.3
    return np.concatenate([middle - half, middle + half],
                          axis=1).astype(np.float32)


@case
def nms_dynamic_count():
    """NonMaxSuppression over a box count known per call (boxes [1, n, 4],
    scores [1, 3, n] given at call time), decided by rounds of a loop the
    runtime repeats: clustered boxes whose overlaps chain, ties of score,
    limit, IoU and score thresholds given at call time; 0, 1, 7, 150 and
    700 boxes from one module, and scores of another count refused."""
    i64 = TensorProto.INT64
    model = dynamicGraph(
        [helper.make_node("NonMaxSuppression",
                          ["boxes", "scores", "limit", "iou", "floor"],
                          ["kept"])],
        [("boxes", [1, "n", 4]), ("scores", [1, 3, "m"]),
         ("limit", [1], i64), ("iou", [1]), ("floor", [1])],
        [("kept", None, i64)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(490)
    for n, limit, iou, floor in ((7, 10, 0.3, 0.0), (150, 1000, 0.25, 0.1),
                                 (700, 40, 0.3, 0.05), (1, 5, 0.5, 0.0),
                                 (0, 5, 0.5, 0.0)):
        boxes = clusteredBoxes(rng, n, n // 10 + 1)[None]
        scores = rng.random((1, 3, n)).astype(np.float32)
        if n > 4:
            scores[0, 1, 4] = scores[0, 1, 2]  # a tie
        inputs.append([boxes, scores, np.array([limit], np.int64),
                       np.array([iou], np.float32),
                       np.array([floor], np.float32)])
        refs.append([nmsRef(boxes, scores, limit, np.float32(iou),
                            np.float32(floor), False)])
    inputs.append([clusteredBoxes(rng, 5, 1)[None],
                   rng.random((1, 3, 4)).astype(np.float32),
                   np.array([3], np.int64), np.array([0.5], np.float32),
                   np.array([0.0], np.float32)])
    refs.append(Refused("scores must have one per box"))
    return model, inputs, refs


@case
def nms_many_boxes_static():
    """NonMaxSuppression over 600 boxes of a static count (more than are
    decided one rank at a time), as centres, with ONNX's largest limit
    (what torchvision's exporter writes) and no score threshold: by
    rounds, 2 batches and 2 classes."""
    i64 = TensorProto.INT64
    model = dynamicGraph(
        [helper.make_node("NonMaxSuppression",
                          ["boxes", "scores", "limit", "iou"], ["kept"],
                          center_point_box=1)],
        [("boxes", [2, 600, 4]), ("scores", [2, 2, 600])],
        [("kept", None, i64)],
        {"limit": np.array([2**63 - 1], np.int64),
         "iou": np.array([0.45], np.float32)})
    rng = np.random.default_rng(495)
    inputs, refs = Calls(), Calls()
    corners = np.stack([clusteredBoxes(rng, 600, 40) for _ in range(2)])
    centres = np.concatenate(
        [(corners[..., :2] + corners[..., 2:]) / 2,
         corners[..., 2:] - corners[..., :2]], axis=-1).astype(np.float32)
    scores = rng.random((2, 2, 600)).astype(np.float32)
    inputs.append([centres, scores])
    refs.append([nmsRef(centres, scores, 2**63 - 1, np.float32(0.45),
                        -np.inf, True)])
    return model, inputs, refs


@case
def nms_in_branch():
    """torchvision's batched_nms as its exporter writes it: an If on
    whether any box is left (Size of a count known per call, equal to 0),
    whose else branch offsets each class's boxes apart and runs
    NonMaxSuppression over them (one class, ONNX's largest limit) and takes
    the kept indices' column 2; the then branch an empty list. The branch
    is a loop's body that runs a loop of its own (the rounds) and reads a
    count it computes: phases nested in a loop phase. Boxes, scores and
    class indices of 9 and 300 candidates, and none."""
    i64 = TensorProto.INT64
    cst = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(value, name))
    then_body = helper.make_graph(
        [cst("empty", np.zeros((0,), np.int64))], "then", [],
        [helper.make_tensor_value_info("empty", i64, [0])])
    else_body = helper.make_graph(
        [helper.make_node("ReduceMax", ["boxes"], ["top"], keepdims=0),
         helper.make_node("Cast", ["labels"], ["labelf"], to=1),
         cst("one", np.array(1.0, np.float32)),
         helper.make_node("Add", ["top", "one"], ["span"]),
         helper.make_node("Mul", ["labelf", "span"], ["offsets"]),
         cst("ax1", np.array([1], np.int64)),
         helper.make_node("Unsqueeze", ["offsets", "ax1"], ["offcol"]),
         helper.make_node("Add", ["boxes", "offcol"], ["apart"]),
         cst("ax0", np.array([0], np.int64)),
         helper.make_node("Unsqueeze", ["apart", "ax0"], ["b3"]),
         helper.make_node("Unsqueeze", ["scores", "ax0"], ["s2"]),
         helper.make_node("Unsqueeze", ["s2", "ax0"], ["s3"]),
         cst("limit", np.array([2**63 - 1], np.int64)),
         cst("iou", np.array([0.5], np.float32)),
         helper.make_node("NonMaxSuppression", ["b3", "s3", "limit", "iou"],
                          ["sel"]),
         cst("two", np.array([2], np.int64)),
         helper.make_node("Gather", ["sel", "two"], ["col"], axis=1),
         helper.make_node("Squeeze", ["col", "ax1"], ["keep"])],
        "else", [], [helper.make_tensor_value_info("keep", i64, ["k"])])
    nodes = [helper.make_node("Size", ["boxes"], ["size"]),
             cst("zero", np.array(0, np.int64)),
             helper.make_node("Equal", ["size", "zero"], ["none"]),
             helper.make_node("If", ["none"], ["kept"],
                              then_branch=then_body, else_branch=else_body)]
    model = dynamicGraph(
        nodes, [("boxes", ["n", 4]), ("scores", ["n"]),
                ("labels", ["n"], i64)], [("kept", None, i64)], {})
    inputs, refs = Calls(), Calls()
    rng = np.random.default_rng(500)
    for n in (9, 300, 0):
        boxes = clusteredBoxes(rng, n, n // 8 + 1)
        boxes = np.abs(boxes)  # torchvision's boxes are non-negative
        scores = rng.random(n).astype(np.float32)
        labels = rng.integers(0, 3, n).astype(np.int64)
        inputs.append([boxes, scores, labels])
        if n == 0:
            refs.append([np.zeros((0,), np.int64)])
            continue
        top = np.float32(boxes.max()) + np.float32(1)
        apart = boxes + (labels.astype(np.float32) * top)[:, None]
        kept = nmsRef(apart[None], scores[None, None], 2**63 - 1,
                      np.float32(0.5), -np.inf, False)
        refs.append([kept[:, 2]])
    return model, inputs, refs


@case
def loop_unrolled():
    """Loop of a constant trip count: a for loop (no condition) with a
    loop-carried value and a scan output, the step number used as data;
    and a while loop whose condition is given at call time and recomputed
    by the body from the carried value (each step masked once it is
    false)."""
    f32, i64, b8 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
    for_body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=f32),
         helper.make_node("Mul", ["y_in", "two"], ["y2"]),
         helper.make_node("Add", ["y2", "fi"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["scan"])],
        "for_body",
        [helper.make_tensor_value_info("i", i64, []),
         helper.make_tensor_value_info("c_in", b8, []),
         helper.make_tensor_value_info("y_in", f32, [3])],
        [helper.make_tensor_value_info("c_in", b8, []),
         helper.make_tensor_value_info("y_out", f32, [3]),
         helper.make_tensor_value_info("scan", f32, [3])])
    while_body = helper.make_graph(
        [helper.make_node("Add", ["z_in", "one"], ["z_out"]),
         helper.make_node("ReduceSum", ["z_out"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "limit"], ["go"])],
        "while_body",
        [helper.make_tensor_value_info("j", i64, []),
         helper.make_tensor_value_info("go_in", b8, []),
         helper.make_tensor_value_info("z_in", f32, [3])],
        [helper.make_tensor_value_info("go", b8, []),
         helper.make_tensor_value_info("z_out", f32, [3])])
    trips = numpy_helper.from_array(np.array(4, np.int64), "trips")
    six = numpy_helper.from_array(np.array(6, np.int64), "six")
    nodes = [helper.make_node("Constant", [], ["trips"], value=trips),
             helper.make_node("Constant", [], ["six"], value=six),
             helper.make_node("Loop", ["trips", "", "y"], ["y_final", "ys"],
                              body=for_body),
             helper.make_node("Loop", ["six", "start", "z"], ["z_final"],
                              body=while_body)]
    model = dynamicGraph(
        nodes, [("y", [3]), ("z", [3]), ("start", [], b8), ("limit", [])],
        [("y_final", [3]), ("ys", [4, 3]), ("z_final", [3])],
        {"two": np.array(2, np.float32), "one": np.array(1, np.float32)})
    inputs, refs = Calls(), Calls()
    for n, (start, limit) in enumerate(((True, 5.0), (True, 100.0),
                                        (False, 100.0), (True, -50.0))):
        y, z = rand((3,), 420 + n), rand((3,), 430 + n)
        wy, wz = y.astype(np.float64), z.astype(np.float64)
        ys = []
        for i in range(4):
            wy = wy * 2 + i
            ys.append(wy)
        go = start
        for _ in range(6):
            if not go:
                break
            wz = wz + 1
            go = wz.sum() < limit
        inputs.append([y, z, np.array(start), np.array(limit, np.float32)])
        refs.append([wy, np.stack(ys), wz])
    return model, inputs, refs


def melReference(mels, n, rate, lo, hi):
    """MelWeightMatrix by ONNX's definition in float64: num_mel_bins + 2
    points equally spaced on the mel scale, each a DFT bin, and band i's
    triangle rising from point i to 1 at point i + 1 and falling to 0 at
    point i + 2."""
    mel = lambda f: 2595 * np.log10(1 + f / 700)  # noqa: E731
    step = (mel(hi) - mel(lo)) / (mels + 2)
    pts = [int(np.floor((n + 1) * 700 * (10 ** ((mel(lo) + i * step) / 2595)
                                         - 1) / rate))
           for i in range(mels + 2)]
    ref = np.zeros((n // 2 + 1, mels))
    for i in range(mels):
        left, center, right = pts[i:i + 3]
        if center == left:
            ref[center, i] = 1
        for j in range(left, center + 1):
            if center > left:
                ref[j, i] = (j - left) / (center - left)
        for j in range(center, right):
            ref[j, i] = (right - j) / (right - center)
    return ref


@case
def runtime_mel_weight_matrix():
    """MelWeightMatrix whose five inputs are given at call time: one module
    at several bin counts, DFT lengths, rates and edges (the extents read on
    the host, the weights computed by the kernel in double)."""
    i64, i32, f32 = TensorProto.INT64, TensorProto.INT32, TensorProto.FLOAT
    model = dynamicGraph(
        [helper.make_node("MelWeightMatrix", ["mels", "n", "rate", "lo", "hi"],
                          ["w"])],
        [("mels", [], i64), ("n", [], i64), ("rate", [], i32), ("lo", [], f32),
         ("hi", [], f32)], [("w", None)], {})
    inputs, refs = Calls(), Calls()
    for mels, n, rate, lo, hi in ((5, 40, 16000, 300.0, 7000.0),
                                  (8, 64, 8000, 0.0, 4000.0),
                                  (1, 17, 22050, 100.0, 5000.0),
                                  (13, 256, 44100, 20.0, 11025.0)):
        inputs.append([np.array(mels, np.int64), np.array(n, np.int64),
                       np.array(rate, np.int32), np.array(lo, np.float32),
                       np.array(hi, np.float32)])
        refs.append([melReference(mels, n, rate, float(np.float32(lo)),
                                  float(np.float32(hi)))])
    return model, inputs, refs


@case
def runtime_cumsum_axis():
    """CumSum along an axis given at call time (a graph input), inclusive
    and reverse-exclusive: one module at each axis of a 3-D input, negative
    ones among them."""
    nodes = [helper.make_node("CumSum", ["x", "axis"], ["forward"]),
             helper.make_node("CumSum", ["x", "axis"], ["backward"],
                              exclusive=1, reverse=1)]
    model = dynamicGraph(nodes, [("x", [3, 4, 5]),
                                 ("axis", [], TensorProto.INT64)],
                         [("forward", [3, 4, 5]), ("backward", [3, 4, 5])],
                         {})
    inputs, refs = Calls(), Calls()
    for n, axis in enumerate((0, 1, 2, -1, -3)):
        x = rand((3, 4, 5), 300 + n)
        wide = x.astype(np.float64)
        backward = np.flip(np.cumsum(np.flip(wide, axis), axis), axis) - wide
        inputs.append([x, np.array(axis, np.int64)])
        refs.append([np.cumsum(wide, axis), backward])
    return model, inputs, refs


def cosineWindow(coefficients, size, periodic):
    """ONNX's Hann/Hamming/Blackman window in float64: sum_k (-1)^k a_k
    cos(2 pi k n / N), N = size or size - 1 (a symmetric window of one
    element: N = 0, its one angle 0, as Kiln takes it; the formula's 0 / 0
    is NaN)."""
    n = size if periodic else size - 1
    angle = 2 * np.pi * np.arange(size, dtype=np.float64) / max(n, 1)
    return sum((-1) ** k * a * np.cos(k * angle)
               for k, a in enumerate(coefficients))


@case
def runtime_window():
    """Hann (periodic), Hamming (symmetric) and Blackman windows whose size
    is a graph input: one module at sizes 1, 2, 13 (a prime), 10 and 0, the
    length read per call, the values computed by the kernel."""
    nodes = [helper.make_node("HannWindow", ["size"], ["hann"]),
             helper.make_node("HammingWindow", ["size"], ["hamming"],
                              periodic=0),
             helper.make_node("BlackmanWindow", ["size"], ["blackman"])]
    model = dynamicGraph(nodes, [("size", [], TensorProto.INT64)],
                         [("hann", ["n"]), ("hamming", ["n"]),
                          ("blackman", ["n"])], {})
    inputs, refs = Calls(), Calls()
    for size in (1, 2, 13, 10, 0):
        inputs.append([np.array(size, np.int64)])
        refs.append([cosineWindow((0.5, 0.5), size, True),
                     cosineWindow((25 / 46, 21 / 46), size, False),
                     cosineWindow((0.42, 0.5, 0.08), size, True)])
    return model, inputs, refs


def stftReference(signal, step, length, window=None, onesided=True):
    """ONNX's STFT in float64: [batch, frames, bins, 2]."""
    wide = signal.astype(np.float64)
    x = wide[..., 0] + (1j * wide[..., 1] if wide.shape[-1] == 2 else 0)
    w = np.ones(length) if window is None else window.astype(np.float64)
    frames = (x.shape[1] - length) // step + 1
    bins = length // 2 + 1 if onesided else length
    spectra = np.stack([np.fft.fft(x[:, f * step:f * step + length] * w,
                                   axis=-1)[:, :bins]
                        for f in range(frames)], 1)
    return np.stack([spectra.real, spectra.imag], -1)


@case
def runtime_stft():
    """STFT whose frame_step (and frame_length) are graph inputs: one module
    at steps 1, 3, 7 and 37 and frame lengths 1, 5, 16 and 37 over a signal
    of 37 (a prime) samples: frame_length given (real, one-sided), a window
    (real, one-sided), and a complex signal (two-sided); the frame count read
    per call, the step data of the kernel."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("STFT", ["signal", "step", "", "length"],
                              ["framed"]),
             helper.make_node("STFT", ["signal", "step", "window"],
                              ["windowed"]),
             helper.make_node("STFT", ["complex", "step", "", "length"],
                              ["twosided"], onesided=0)]
    model = dynamicGraph(
        nodes, [("signal", [2, 37, 1]), ("complex", [1, 37, 2]),
                ("step", [], i64), ("length", [], i64), ("window", [5])],
        [("framed", [2, "f", "b", 2]), ("windowed", [2, "g", 3, 2]),
         ("twosided", [1, "f", "l", 2])], {})
    inputs, refs = Calls(), Calls()
    window = rand((5,), 410, 0.0, 1.0)
    for n, (step, length) in enumerate(((1, 5), (3, 16), (7, 1), (37, 37))):
        signal, complexSignal = rand((2, 37, 1), 400 + n), rand((1, 37, 2),
                                                                420 + n)
        inputs.append([signal, complexSignal, np.array(step, np.int64),
                       np.array(length, np.int64), window])
        refs.append([stftReference(signal, step, length),
                     stftReference(signal, step, 5, window),
                     stftReference(complexSignal, step, length,
                                   onesided=False)])
    return model, inputs, refs


@case
def runtime_maxunpool_output_shape():
    """MaxUnpool (2x2 kernel, stride 2) whose output_shape is a graph input,
    undoing MaxPool of inputs of 1x2x4x6, 1x2x5x7 (primes, a row and a
    column no window reached) and 1x2x5x6: one module, the indices flat
    positions of the output of each call's shape (as maxunpool_pads_output_
    shape's); another batch or a negative extent is refused with the
    node's one-line error."""
    model = dynamicGraph(
        [helper.make_node("MaxUnpool", ["x", "indices", "shape"], ["y"],
                          kernel_shape=[2, 2], strides=[2, 2])],
        [("x", [1, 2, 2, 3]), ("indices", [1, 2, 2, 3], TensorProto.INT64),
         ("shape", [4], TensorProto.INT64)],
        [("y", [1, 2, "h", "w"])], {})
    model.opset_import[0].version = 11
    inputs, refs = Calls(), Calls()
    for n, shape in enumerate(((1, 2, 4, 6), (1, 2, 5, 7), (1, 2, 5, 6))):
        src = rand(shape, 440 + n)
        vals, idx = maxpool_indices_ref(src, (2, 2), (2, 2), (0,) * 4, False)
        vals = vals.astype(np.float32)
        ref = np.zeros(src.size)
        ref[idx.ravel()] = vals.ravel()
        inputs.append([vals, idx, np.array(shape, np.int64)])
        refs.append([ref.reshape(shape)])
    refused = Refused("node 'MaxUnpool#0' (MaxUnpool): output_shape must be "
                      "1x2x... with no negative extent")
    for shape in ((2, 2, 4, 6), (1, 2, -1, 6)):
        inputs.append([vals, idx, np.array(shape, np.int64)])
        refs.append(refused)
    return model, inputs, refs


@case
def runtime_stft_refused():
    """STFT given a step of 0, a negative one, a frame longer than the
    signal or an empty one at call time: each such call fails with the
    node's one-line error; a good call of the same module runs."""
    i64 = TensorProto.INT64
    model = dynamicGraph(
        [helper.make_node("STFT", ["signal", "step", "", "length"], ["y"])],
        [("signal", [1, 8, 1]), ("step", [], i64), ("length", [], i64)],
        [("y", [1, "f", "b", 2])], {})
    inputs, refs = Calls(), Calls()
    signal = rand((1, 8, 1), 430)
    bad = "node 'STFT#0' (STFT): frame_step must be at least 1"
    long = ("node 'STFT#0' (STFT): frame_length must be from 1 to the "
            "signal's length 8")
    for step, length, ref in ((0, 4, Refused(bad)), (-3, 4, Refused(bad)),
                              (2, 4, None), (1, 9, Refused(long)),
                              (1, 0, Refused(long))):
        inputs.append([signal, np.array(step, np.int64),
                       np.array(length, np.int64)])
        refs.append(ref if ref is not None else
                    [stftReference(signal, step, length)])
    return model, inputs, refs


@case
def dynamic_expand_mask():
    """An attention mask [batch, 1, 1, keys] expanded to [batch, 1,
    queries, keys] by a shape concatenated from the inputs' own (Shape,
    Concat, Expand, as exporters write `mask.expand(b, 1, t, s)`): a
    shape value, each dimension known per call. One module at (batch,
    queries, keys) = (1, 1, 1), (2, 3, 7), (3, 5, 2)."""
    nodes = [
        int64Constant("one", [1]),
        helper.make_node("Shape", ["mask"], ["b"], start=0, end=1),
        helper.make_node("Shape", ["q"], ["t"], start=1, end=2),
        helper.make_node("Shape", ["mask"], ["s"], start=3, end=4),
        helper.make_node("Concat", ["b", "one", "t", "s"], ["shape"], axis=0),
        helper.make_node("Expand", ["mask", "shape"], ["y"])]
    model = dynamicGraph(nodes, [("mask", ["batch", 1, 1, "keys"]),
                                 ("q", ["batch", "queries", 4])],
                         [("y", ["batch", 1, "queries", "keys"])], {})
    inputs, refs = Calls(), Calls()
    for b, t, k in ((1, 1, 1), (2, 3, 7), (3, 5, 2)):
        mask, q = rand((b, 1, 1, k), 270 + k), rand((b, t, 4), 280 + t)
        inputs.append([mask, q])
        refs.append([np.broadcast_to(mask.astype(np.float64), (b, 1, t, k))])
    return model, inputs, refs


@case
def dynamic_bias_slice():
    """A causal bias buffer sliced at its inputs' positions, as Hugging
    Face's GPT-2 exports it: rows past .. total and columns 0 .. total of a
    constant 16 x 16 lower triangle (Slice with starts and ends computed
    from shapes), then Where between the scores and -1e9. One module at
    (new, total) = (1, 1), (3, 8), (1, 16), (4, 4)."""
    bias = np.tril(np.ones((16, 16), np.float32))
    nodes = dimsOf("s", new=1, total=2) + [
        int64Constant("axes0", [0]), int64Constant("axes1", [1]),
        int64Constant("zero1", [0]),
        helper.make_node("Sub", ["total", "new"], ["past"]),
        helper.make_node("Unsqueeze", ["past", "axes0"], ["past1"]),
        helper.make_node("Unsqueeze", ["total", "axes0"], ["total1"]),
        helper.make_node("Slice", ["bias", "past1", "total1", "axes0"],
                         ["rows"]),
        helper.make_node("Slice", ["rows", "zero1", "total1", "axes1"],
                         ["block"]),
        helper.make_node("Cast", ["block"], ["allowed"], to=TensorProto.BOOL),
        helper.make_node("Constant", [], ["big"],
                         value=numpy_helper.from_array(
                             np.array(-1e9, np.float32), "big")),
        helper.make_node("Where", ["allowed", "s", "big"], ["y"])]
    model = dynamicGraph(nodes, [("s", [1, "new", "total"])],
                         [("y", [1, "new", "total"])], {"bias": bias})
    inputs, refs = Calls(), Calls()
    for new, total in ((1, 1), (3, 8), (1, 16), (4, 4)):
        scores = rand((1, new, total), 210 + total)
        block = bias[total - new:total, :total].astype(bool)
        inputs.append([scores])
        refs.append([np.where(block, scores[0].astype(np.float64),
                              -1e9)[None]])
    return model, inputs, refs


# --- training optimizers (ai.onnx.preview.training) -----------------------

TRAINING = "ai.onnx.preview.training"


def optimizerCase(op, groups, states, step, update, attrs, seed):
    """One `op` node over `groups` (shapes): R, T, then every group's X, G
    and `states` state tensors (all Xs first, then all Gs, ...); outputs the
    new Xs, then each state's. `update(r, t, x, g, *states)` is the float64
    reference of one group."""
    r, t = rand((), seed, 0.05, 0.5), np.array(step, np.int64)
    kinds = [[rand(shape, seed + 10 * k + i, *((0.1, 2.0) if k >= 2 else ()))
              for i, shape in enumerate(groups)] for k in range(2 + states)]
    names = [[f"{'XG'[k] if k < 2 else 'S' + str(k - 2)}{i}"
              for i in range(len(groups))] for k in range(2 + states)]
    results = [update(r.astype(np.float64), step,
                      *[kinds[k][i].astype(np.float64)
                        for k in range(2 + states)])
               for i in range(len(groups))]
    refs = [results[i][k] for k in range(1 + states) for i in range(len(groups))]
    inputs = {"R": r, "T": t}
    for k in range(2 + states):
        inputs.update(zip(names[k], kinds[k]))
    outs = [f"out{i}" for i in range(len(refs))]
    node = helper.make_node(op, list(inputs), outs, domain=TRAINING, **attrs)
    graph = helper.make_graph(
        [node], "check",
        [helper.make_tensor_value_info(n, ELEM[a.dtype], a.shape)
         for n, a in inputs.items()],
        [helper.make_tensor_value_info(o, ELEM[outputType(ref)], ref.shape)
         for o, ref in zip(outs, refs)])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(TRAINING, 1)])
    model.ir_version = 8
    return model, list(inputs.values()), refs


@case
def adagrad_two_groups():
    """Decayed rate at step 3, regularized gradients, two groups."""
    decay, eps, norm = 0.1, 1e-5, 0.01

    def update(r, t, x, g, h):
        g = norm * x + g
        h = h + g * g
        return x - r / (1 + t * decay) * g / (np.sqrt(h) + eps), h
    return optimizerCase("Adagrad", [(3, 4), (5,)], 1, 3, update,
                         {"decay_factor": decay, "epsilon": eps,
                          "norm_coefficient": norm}, 300)


@case
def adam_bias_corrected():
    """Step 4 (bias-corrected rate), norm_coefficient_post, two groups."""
    alpha, beta, eps, norm, post = 0.9, 0.99, 1e-3, 0.01, 0.05

    def update(r, t, x, g, v, h):
        g = norm * x + g
        v = alpha * v + (1 - alpha) * g
        h = beta * h + (1 - beta) * g * g
        rate = r * np.sqrt(1 - beta ** t) / (1 - alpha ** t)
        return (1 - post) * (x - rate * v / (np.sqrt(h) + eps)), v, h
    return optimizerCase("Adam", [(2, 3), (4,)], 2, 4, update,
                         {"alpha": alpha, "beta": beta, "epsilon": eps,
                          "norm_coefficient": norm,
                          "norm_coefficient_post": post}, 310)


def momentumCase(mode, step, seed):
    alpha, beta, norm = 0.9, 0.3, 0.02

    def update(r, t, x, g, v):
        g = norm * x + g
        v = alpha * v + (beta if t > 0 else 1) * g
        return x - r * (g + alpha * v if mode == "nesterov" else v), v
    return optimizerCase("Momentum", [(3, 2), (1,), (2, 2, 2)], 1, step,
                         update, {"alpha": alpha, "beta": beta,
                                  "norm_coefficient": norm, "mode": mode},
                         seed)


@case
def momentum_standard_step2():
    return momentumCase("standard", 2, 320)


@case
def momentum_nesterov_step1():
    return momentumCase("nesterov", 1, 330)


# --- RoiAlign ---------------------------------------------------------------

def roi_align_ref(x, rois, batch, oh, ow, ratio, scale, mode, half):
    """ONNX RoiAlign in float64, sample by sample as its reference (ONNX
    Runtime's kernel) loops: a sample outside [-1, size] is 0, one past
    the last pixel reads only it; avg divides by the grid's size (at least
    1), max keeps the largest weighted tap of any sample (0 for none)."""
    _, channels, height, width = x.shape
    out = np.zeros((rois.shape[0], channels, oh, ow))
    offset = 0.5 if half else 0.0

    def taps(v, size):
        v = max(v, 0.0)
        low = int(v)
        if low >= size - 1:
            return size - 1, size - 1, 1.0, 0.0
        return low, low + 1, 1 - (v - low), v - low

    for r, roi in enumerate(rois.astype(np.float64)):
        x1, y1, x2, y2 = roi * scale - offset
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = ratio if ratio > 0 else int(math.ceil(bh))
        gw = ratio if ratio > 0 else int(math.ceil(bw))
        image = x[int(batch[r])].astype(np.float64)
        for ph in range(oh):
            for pw in range(ow):
                values = []
                for iy in range(max(gh, 0)):
                    y = y1 + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(max(gw, 0)):
                        xx = x1 + pw * bw + (ix + 0.5) * bw / gw
                        if y < -1 or y > height or xx < -1 or xx > width:
                            values.append(np.zeros(channels))
                            continue
                        yl, yh, wyl, wyh = taps(y, height)
                        xl, xh, wxl, wxh = taps(xx, width)
                        t = [wyl * wxl * image[:, yl, xl],
                             wyl * wxh * image[:, yl, xh],
                             wyh * wxl * image[:, yh, xl],
                             wyh * wxh * image[:, yh, xh]]
                        values.append(sum(t) if mode == "avg" else
                                      np.maximum.reduce(t))
                if not values:
                    continue
                out[r, :, ph, pw] = (
                    sum(values) / max(gh * gw, 1) if mode == "avg" else
                    np.maximum.reduce(values))
    return out


def roi_align_case(rois, batch, oh, ow, ratio, scale, mode, transform,
                   opset=16, shape=(2, 3, 6, 7), seed=340):
    x = rand(shape, seed)
    rois = np.array(rois, np.float32)
    batch = np.array(batch, np.int64)
    attrs = {"output_height": oh, "output_width": ow,
             "sampling_ratio": ratio, "spatial_scale": scale, "mode": mode}
    if opset >= 16:
        attrs["coordinate_transformation_mode"] = transform
    ref = roi_align_ref(x, rois, batch, oh, ow, ratio, scale, mode,
                        transform == "half_pixel")
    return single("RoiAlign", {"x": x, "rois": rois, "batch": batch}, [ref],
                  attrs=attrs, opset=opset)


# ROIs inside X, crossing its edges, past them entirely, reversed (an empty
# grid for half_pixel's adaptive sampling) and far larger than X (an
# adaptive grid of many samples, most outside).
ROIS = [[1.0, 2.0, 9.5, 10.0], [-3.0, -1.0, 4.0, 3.5], [10.0, 9.0, 13.0, 14.0],
        [20.0, 20.0, 30.0, 25.0], [6.0, 8.0, 2.0, 1.0],
        [-40.0, -35.0, 60.0, 48.0]]
ROI_BATCH = [0, 1, 1, 0, 1, 0]


@case
def roi_align_half_pixel_sr2():
    return roi_align_case(ROIS, ROI_BATCH, 3, 4, 2, 0.5, "avg", "half_pixel")


@case
def roi_align_adaptive_avg():
    return roi_align_case(ROIS, ROI_BATCH, 2, 3, 0, 0.5, "avg", "half_pixel")


@case
def roi_align_adaptive_max():
    return roi_align_case(ROIS, ROI_BATCH, 3, 2, 0, 0.5, "max",
                          "output_half_pixel")


@case
def roi_align_max_sr3():
    return roi_align_case(ROIS, ROI_BATCH, 2, 2, 3, 0.5, "max", "half_pixel")


@case
def roi_align_opset10_adaptive():
    """RoiAlign-10: output_half_pixel always (no attribute), scale 1."""
    return roi_align_case(ROIS, ROI_BATCH, 4, 3, 0, 1.0, "avg",
                          "output_half_pixel", opset=10)


@case
def roi_align_dynamic_count():
    """RoiAlign over a rois' count known per call (a detector's proposals):
    6, 1 and 0 rois from one module, adaptive avg sampling, and
    batch_indices of another count refused."""
    attrs = {"output_height": 2, "output_width": 3, "sampling_ratio": 0,
             "spatial_scale": 0.5, "mode": "avg",
             "coordinate_transformation_mode": "half_pixel"}
    model = dynamicGraph(
        [helper.make_node("RoiAlign", ["x", "rois", "batch"], ["y"], **attrs)],
        [("x", [2, 3, 6, 7]), ("rois", ["n", 4]),
         ("batch", ["m"], TensorProto.INT64)],
        [("y", ["n", 3, 2, 3])], {})
    x = rand((2, 3, 6, 7), 341)
    inputs, refs = Calls(), Calls()
    for count in (6, 1, 0):
        rois = np.array(ROIS[:count], np.float32).reshape(count, 4)
        batch = np.array(ROI_BATCH[:count], np.int64)
        inputs.append([x, rois, batch])
        refs.append([roi_align_ref(x, rois, batch, 2, 3, 0, 0.5, "avg",
                                   True)])
    inputs.append([x, np.array(ROIS[:2], np.float32),
                   np.array(ROI_BATCH[:3], np.int64)])
    refs.append(Refused("batch_indices must have one index per roi"))
    return model, inputs, refs


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("-k", default="", help="run cases whose name contains this")
    p.add_argument("--device", default="local-task")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--target-device", default="cpu")
    p.add_argument("--cuda-target", default="")
    p.add_argument("--save-kit", metavar="DIR",
                   help="compile into DIR for --target-device, run nothing")
    p.add_argument("--kit", metavar="DIR",
                   help="run the modules --save-kit left in DIR")
    p.add_argument("--wrapper", default="",
                   help="a command each kiln-run-module runs under")
    args = p.parse_args()
    failed = passed = 0
    with tempfile.TemporaryDirectory(prefix="kiln_onnx_ops_") as work:
        names = (sorted(os.listdir(args.kit)) if args.kit else list(CASES))
        for name in names:
            if args.k not in name:
                continue
            if args.kit:
                problem = runKit(os.path.join(args.kit, name), args)
            else:
                root = args.save_kit or work
                problem = check(name, CASES[name], os.path.join(root, name),
                                args)
            if problem:
                failed += 1
                print(f"FAIL {name}: {problem}")
            else:
                passed += 1
                print(f"ok   {name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def check(name, build, work, args):
    os.makedirs(work, exist_ok=True)
    model, inputs, refs = build()
    # ONNX 1.12's checker knows opsets up to 17; newer models are checked
    # by the importer alone.
    if model.opset_import[0].version <= 17:
        onnx.checker.check_model(model)
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    module = os.path.join(work, "model.kiln")
    compiled = onnxharness.compileOnnx(args.bin_dir, path, module,
                                       args.target_device, args.cuda_target,
                                       args.timeout)
    if compiled.status != onnxharness.PASS:
        return f"{compiled.status}: {compiled.reason}"
    # One call, or (a Calls case) one module called at several shapes.
    calls = (list(zip(inputs, refs)) if isinstance(inputs, Calls) else
             [(inputs, refs)])
    sets, kit = [], []
    for k, (callInputs, callRefs) in enumerate(calls):
        ds = onnxharness.DataSet([], [])
        for i, a in enumerate(callInputs):
            ds.inputs.append(os.path.join(work, f"in{k}_{i}.npy"))
            np.save(ds.inputs[-1], a)
        if isinstance(callRefs, Refused):
            kit.append({"inputs": ds.inputs, "refused": str(callRefs)})
            continue
        for i, r in enumerate(callRefs):
            ds.outputs.append(os.path.join(work, f"ref{k}_{i}.npy"))
            np.save(ds.outputs[-1], r.astype(outputType(r)))
        sets.append(ds)
        kit.append({"inputs": ds.inputs, "outputs": ds.outputs})
    if args.save_kit:
        with open(os.path.join(work, "calls.json"), "w") as f:
            json.dump([{k: ([os.path.basename(p) for p in v]
                            if isinstance(v, list) else v)
                        for k, v in call.items()} for call in kit], f)
        return None
    return runCalls(module, kit, work, args)


def runCalls(module, calls, work, args):
    """Runs `module` on each call ({inputs, outputs} or {inputs, refused})
    and compares; None when all hold, else what did not."""
    sets = []
    for k, call in enumerate(calls):
        if "refused" in call:
            problem = checkRefused(args, module, call["inputs"],
                                   call["refused"])
            if problem:
                return f"call {k}: {problem}"
            continue
        sets.append(onnxharness.DataSet(call["inputs"], call["outputs"]))
    outcome = onnxharness.runAndCheck(args.bin_dir, args.device, module,
                                      sets, work, args.timeout,
                                      wrapper=shlex.split(args.wrapper))
    return None if outcome.status == onnxharness.PASS else outcome.reason


def runKit(case, args):
    """A case --save-kit compiled, run and compared here."""
    if not os.path.exists(os.path.join(case, "calls.json")):
        return "not in the kit (--save-kit did not compile it)"
    with open(os.path.join(case, "calls.json")) as f:
        calls = json.load(f)
    for call in calls:
        for key in ("inputs", "outputs"):
            if key in call:
                call[key] = [os.path.join(case, p) for p in call[key]]
    return runCalls(os.path.join(case, "model.kiln"), calls, case, args)


def checkRefused(args, module, inputs, expected):
    """None when calling `module` with `inputs` fails with one line of error
    containing `expected`, else what happened."""
    r = onnxharness.e2elib.runTool(
        [os.path.join(args.bin_dir, "kiln-run-module"),
         f"--device={args.device}", f"--module={module}"] +
        [f"--input=@{p}" for p in inputs], args.timeout)
    if r.problem:
        return r.problem
    lines = r.stderr.strip().splitlines()
    if r.rc == 0:
        return f"ran, but should fail with '{expected}'"
    if len(lines) != 1 or expected not in lines[0]:
        return f"failed with {lines!r}, not one line with '{expected}'"
    return None


if __name__ == "__main__":
    sys.exit(main())
