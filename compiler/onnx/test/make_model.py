#!/usr/bin/python3
"""Writes the small ONNX models the importer's lit tests read.

  make_model.py NAME OUT.onnx

Models are built with onnx.helper (Debian's python3-onnx), so the tests
need no binary files in the repository. External-data models also write
their data file next to OUT.onnx.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, initializers=(), name="main_graph",
          opset=17):
    graph = helper.make_graph(nodes, name, inputs, outputs,
                              initializer=list(initializers))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def weights(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(
        np.float32)


def names():
    """Graph name sanitized, inputs and outputs in order, weights as blobs,
    small initializers as dense constants."""
    w = numpy_helper.from_array(weights((32, 3)), "fc.weight")
    b = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "fc.bias")
    return model(
        [helper.make_node("MatMul", ["input.1", "fc.weight"], ["mm"]),
         helper.make_node("Add", ["mm", "fc.bias"], ["logits"]),
         helper.make_node("Relu", ["extra"], ["relu_out"])],
        [tensor("input.1", TensorProto.FLOAT, [2, 32]),
         tensor("extra", TensorProto.FLOAT, [3])],
        [tensor("relu_out", TensorProto.FLOAT, [3]),
         tensor("logits", TensorProto.FLOAT, [2, 3])],
        [w, b], name="torch-jit/export")


def shape_subgraph():
    """x.view(x.size(0), -1) as torch exports it: Shape -> Gather ->
    Unsqueeze -> Concat -> Reshape, folded at import."""
    return model(
        [helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("Constant", [], ["zero"],
                          value=numpy_helper.from_array(np.array(0, np.int64))),
         helper.make_node("Gather", ["shape", "zero"], ["batch"], axis=0),
         helper.make_node("Constant", [], ["axes"],
                          value=numpy_helper.from_array(np.array([0], np.int64))),
         helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"]),
         helper.make_node("Constant", [], ["minus1"],
                          value=numpy_helper.from_array(np.array([-1], np.int64))),
         helper.make_node("Concat", ["batch1", "minus1"], ["target"], axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"])],
        [tensor("x", TensorProto.FLOAT, [2, 3, 4])],
        [tensor("y", TensorProto.FLOAT, [2, 12])])


def shape_subgraph_dynamic():
    """shape_subgraph over a dynamic batch: Shape gives the batch as a
    tensor.dim, which Reshape copies; the -1 is 12."""
    m = shape_subgraph()
    for value in (m.graph.input[0], m.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "batch"
    return m


def dynamic_cnn():
    """A dynamic batch through a convolution (a pad), a grouped one, max
    pooling, a global average pool, Flatten, Reshape by -1 and Gemm."""
    return model(
        [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv",
                          pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c1"], ["r1"]),
         helper.make_node("Conv", ["r1", "w2"], ["c2"], name="grouped",
                          group=2, pads=[1, 1, 1, 1]),
         helper.make_node("MaxPool", ["c2"], ["p"], kernel_shape=[2, 2],
                          strides=[2, 2]),
         helper.make_node("GlobalAveragePool", ["p"], ["g"]),
         helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
         i64("shape", [-1, 4]),
         helper.make_node("Reshape", ["f", "shape"], ["r"], name="reshape"),
         helper.make_node("Gemm", ["r", "wf", "bf"], ["y"], name="fc",
                          transB=1)],
        [tensor("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [tensor("y", TensorProto.FLOAT, ["batch", 5])],
        [numpy_helper.from_array(weights((4, 3, 3, 3), 1), "w1"),
         numpy_helper.from_array(weights((4,), 2), "b1"),
         numpy_helper.from_array(weights((4, 2, 3, 3), 3), "w2"),
         numpy_helper.from_array(weights((5, 4), 4), "wf"),
         numpy_helper.from_array(weights((5,), 5), "bf")])


def dynamic_slice_concat():
    """Slice, Concat, Transpose and Softmax over a dynamic batch: the
    dynamic dimension is never the one sliced or joined."""
    return model(
        [i64("starts", [1]), i64("ends", [6]), i64("axes", [1]),
         i64("steps", [2]),
         helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"],
                          ["s"], name="slice"),
         helper.make_node("Concat", ["s", "y"], ["c"], name="concat", axis=1),
         helper.make_node("Softmax", ["c"], ["sm"], name="softmax"),
         helper.make_node("Transpose", ["sm"], ["t"], name="transpose",
                          perm=[1, 0])],
        [tensor("x", TensorProto.FLOAT, ["batch", 6]),
         tensor("y", TensorProto.FLOAT, ["batch", 2])],
        [tensor("t", TensorProto.FLOAT, [5, "batch"])])


def dynamic_slice_batch():
    """A slice of the dynamic dimension itself."""
    return model(
        [i64("starts", [1]), i64("ends", [3]), i64("axes", [0]),
         helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["y"],
                          name="slice")],
        [tensor("x", TensorProto.FLOAT, ["batch", 6])],
        [tensor("y", TensorProto.FLOAT, [2, 6])])


def dynamic_reshape_long_target():
    """A dynamic input reshaped to a target of 100 dimensions: refused
    before its dimensions are read."""
    return model(
        [i64("target", [1] * 99 + [-1]),
         helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape")],
        [tensor("x", TensorProto.FLOAT, ["batch", 6])],
        [tensor("y", TensorProto.FLOAT, None)])


def dynamic_attention_matmul():
    """Two dynamic batches of matrices multiplied (attention's scores), and
    a reshape whose target reads another tensor's dynamic dimension (the
    query reshaped by the Shape of the attention's input)."""
    return model(
        [helper.make_node("MatMul", ["q", "k"], ["s"], name="scores"),
         helper.make_node("Shape", ["x"], ["xs"]),
         i64("zero", [0]), i64("rest", [4, 6]),
         helper.make_node("Gather", ["xs", "zero"], ["b"], axis=0),
         helper.make_node("Concat", ["b", "rest"], ["target"], axis=0),
         helper.make_node("Reshape", ["s", "target"], ["y"], name="reshape")],
        [tensor("q", TensorProto.FLOAT, ["batch", 4, 3, 5]),
         tensor("k", TensorProto.FLOAT, ["batch", 4, 5, 2]),
         tensor("x", TensorProto.FLOAT, ["batch", 7])],
        [tensor("y", TensorProto.FLOAT, ["batch", 4, 6])])


def dynamic_unsupported():
    """A dynamic batch into an op whose converter takes static shapes."""
    return model([helper.make_node("Hardmax", ["x"], ["y"], name="hm")],
                 [tensor("x", TensorProto.FLOAT, ["batch", 3])],
                 [tensor("y", TensorProto.FLOAT, ["batch", 3])])


def dynamic_spatial_conv():
    """A dynamic spatial dimension into Conv, which takes only the batch."""
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
                 [tensor("x", TensorProto.FLOAT, [1, 3, "h", 8])],
                 [tensor("y", TensorProto.FLOAT, None)],
                 [numpy_helper.from_array(weights((4, 3, 3, 3)), "w")])


def dynamic_shape_output():
    """A shape computed from a dynamic batch returned as a graph output."""
    return model([helper.make_node("Shape", ["x"], ["s"])],
                 [tensor("x", TensorProto.FLOAT, ["batch", 3])],
                 [tensor("s", TensorProto.INT64, [2])])


def i64(name, values):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(
                                np.array(values, np.int64)))


def pad_mod():
    """Pads computed as swin_t's exporter writes them, from Mod over Shape
    (W = 6: (4 - 6 % 4) % 4 = 2), and Mod's two sign rules: fmod = 0 takes
    the divisor's sign (-7 mod 4 = 1), fmod = 1 the dividend's (7 fmod -4
    = 3). Pads [0, 0, 2, 3, 0, 0, 1, 0]; all of it folds at import."""
    return model(
        [helper.make_node("Shape", ["x"], ["shape"]),
         i64("three", [3]), i64("four", [4]), i64("minus4", [-4]),
         i64("seven", [7]), i64("minus7", [-7]), i64("zeros", [0, 0]),
         i64("zero", [0]),
         helper.make_node("Gather", ["shape", "three"], ["w"], axis=0),
         helper.make_node("Mod", ["w", "four"], ["w_mod"]),
         helper.make_node("Sub", ["four", "w_mod"], ["short"]),
         helper.make_node("Mod", ["short", "four"], ["h_begin"]),
         helper.make_node("Mod", ["seven", "minus4"], ["w_begin"], fmod=1),
         helper.make_node("Mod", ["minus7", "four"], ["h_end"]),
         helper.make_node("Concat", ["zeros", "h_begin", "w_begin", "zeros",
                                     "h_end", "zero"], ["pads"], axis=0),
         helper.make_node("Pad", ["x", "pads"], ["y"])],
        [tensor("x", TensorProto.FLOAT, [1, 3, 5, 6])],
        [tensor("y", TensorProto.FLOAT, [1, 3, 8, 9])])


def pad_from_reduce_max():
    """Pads as torchvision's detectors export their batching: the largest
    image sides by ReduceMax over constant sizes, rounded up to a multiple
    of 4 (Cast, Div, Ceil, Cast, Mul), less the image's own (Sub), and
    anchors by Tile of a constant. Sizes [[5, 6], [3, 7]]: sides 5 and 7,
    padded to 8 and 8, pads [0, 0, 0, 0, 0, 0, 3, 2]; the anchors [1, 2]
    tiled twice, summed by ReduceSum to 6 and that added to the image.
    All of it folds at import."""
    sizes = numpy_helper.from_array(np.array([[5, 6], [3, 7]], np.int64))
    return model(
        [helper.make_node("Constant", [], ["sizes"], value=sizes),
         i64("four", [4]), i64("zeros", [0, 0, 0, 0, 0, 0]),
         i64("image", [5, 6]), i64("two", [2]), i64("anchors", [1, 2]),
         helper.make_node("ReduceMax", ["sizes"], ["largest"], axes=[0],
                          keepdims=0),
         helper.make_node("Cast", ["largest"], ["largest_f"],
                          to=TensorProto.FLOAT),
         helper.make_node("Cast", ["four"], ["four_f"], to=TensorProto.FLOAT),
         helper.make_node("Div", ["largest_f", "four_f"], ["quarters"]),
         helper.make_node("Ceil", ["quarters"], ["whole"]),
         helper.make_node("Cast", ["whole"], ["whole_i"],
                          to=TensorProto.INT64),
         helper.make_node("Mul", ["whole_i", "four"], ["padded"]),
         helper.make_node("Sub", ["padded", "image"], ["ends"]),
         helper.make_node("Concat", ["zeros", "ends"], ["pads"], axis=0),
         helper.make_node("Pad", ["x", "pads"], ["p"]),
         helper.make_node("Tile", ["anchors", "two"], ["tiled"]),
         helper.make_node("ReduceSum", ["tiled"], ["total_i"], keepdims=1),
         helper.make_node("Cast", ["total_i"], ["total"],
                          to=TensorProto.FLOAT),
         helper.make_node("Add", ["p", "total"], ["y"])],
        [tensor("x", TensorProto.FLOAT, [1, 3, 5, 6])],
        [tensor("y", TensorProto.FLOAT, [1, 3, 8, 8])], opset=13)


def _folded(op, dtype, *operands, **attrs):
    """One op on constants of `dtype`, its result the graph's output."""
    names = [f"c{i}" for i in range(len(operands))]
    nodes = [helper.make_node("Constant", [], [n],
                              value=numpy_helper.from_array(
                                  np.array(v, dtype)))
             for n, v in zip(names, operands)]
    nodes.append(helper.make_node(op, names, ["y"], name="folded", **attrs))
    elem = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]
    return model(nodes, [], [tensor("y", elem, None)])


def fold_values():
    """Elementwise ops on constants, each folded to a constant output:
    Mod's sign rules on int64, int32, uint8 and floats, truncating Div,
    variadic Max, NaN and signed zeros in Min, unsigned values past
    INT64_MAX, and the unary ops."""
    cases = [
        ("Mod", np.int64, ([-7, 7, -7, 7], [4, -4, -4, 4]), {}),
        ("Mod", np.int32, ([-7, 7, -7, 7], [4, -4, -4, 4]), {"fmod": 1}),
        ("Mod", np.uint8, ([250], [7]), {}),
        ("Mod", np.float32, ([-7.5, 7.5], [2, -2]), {"fmod": 1}),
        ("Div", np.int64, ([-7, 7, -2**63], [2, 2, 1]), {}),
        ("Max", np.int16, ([1, -5], [3, -9], [2, -7]), {}),
        ("Min", np.float32, ([0.0, np.nan], [-0.0, 1.0]), {}),
        ("Add", np.uint64, ([2**63], [5]), {}),
        ("Abs", np.int64, ([-3, 4],), {}),
        ("Neg", np.int32, ([-3, 4],), {}),
        ("Sign", np.float32, ([-2.5, 0.0, 3.0],), {}),
        ("Floor", np.float32, ([-1.5, 2.5],), {}),
        ("Ceil", np.float32, ([-1.5, 2.5],), {}),
        ("Round", np.float32, ([-1.5, 2.5, 0.5],), {}),
        ("Sqrt", np.float32, ([16.0],), {}),
    ]
    return _foldedCases(cases)


def _foldedCases(cases, opset=17):
    """A graph output per (op, dtype, operands, attributes) case: the op on
    Constant operands of dtype (an operand given as (values, dtype) has its
    own)."""
    nodes, outputs = [], []
    for k, (op, dtype, operands, attrs) in enumerate(cases):
        names = [f"c{k}_{i}" for i in range(len(operands))]
        nodes += [helper.make_node("Constant", [], [n],
                                   value=numpy_helper.from_array(
                                       np.array(*v) if isinstance(v, tuple)
                                       else np.array(v, dtype)))
                  for n, v in zip(names, operands)]
        nodes.append(helper.make_node(op, names, [f"y{k}"], **attrs))
        elem = attrs.get("to", TensorProto.BOOL if op in ("IsInf", "IsNaN")
                         else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[
                             np.dtype(dtype)])
        outputs.append(tensor(f"y{k}", elem, None))
    return model(nodes, [], outputs, opset=opset)


def fold_bitwise():
    """Opset 18's bitwise ops on constants."""
    return _foldedCases([
        ("BitwiseAnd", np.int32, ([12, -1], [10, 7]), {}),
        ("BitwiseOr", np.uint8, ([12, 128], [3, 1]), {}),
        ("BitwiseXor", np.int64, ([12, -1], [10, 0]), {}),
        ("BitwiseNot", np.uint16, ([0, 65535],), {}),
    ], opset=18)


def bitwise_runtime():
    """BitwiseAnd and BitwiseNot on graph inputs (no folding)."""
    return model(
        [helper.make_node("BitwiseAnd", ["x", "y"], ["a"]),
         helper.make_node("BitwiseNot", ["a"], ["z"])],
        [tensor("x", TensorProto.INT32, [4]),
         tensor("y", TensorProto.INT32, [1])],
        [tensor("z", TensorProto.INT32, [4])], opset=18)


def fold_bodies():
    """Elementwise ops without a host table, evaluated at import through
    their converters' bodies: math, Pow, BitShift, Mean, IsInf, activations
    (Relu and Clip on integers), Trilu (reads positions); and Cast of
    uint64 past INT64_MAX to int64 (its bits). Exp on float16 (math does not fold half types) and on
    more elements than the importer evaluates stay generics."""
    cases = [
        ("Exp", np.float32, ([0.0, 1.0],), {}),
        ("Pow", np.int64, ([2, -3], [10, 3]), {}),
        ("Pow", np.float32, ([4.0, 2.0], ([0.5, -1.0], np.float32)), {}),
        ("BitShift", np.uint8, ([1, 255], [7, 4]), {"direction": "RIGHT"}),
        ("BitShift", np.uint32, ([1, 3], [31, 4]), {"direction": "LEFT"}),
        ("Mean", np.int32, ([1, -7], [4, 2]), {}),
        ("IsInf", np.float64, ([np.inf, -np.inf, 1.0],), {}),
        ("Relu", np.int64, ([-3, 4],), {}),
        ("Clip", np.int64, ([-9, 5, 20], [0], [10]), {}),
        ("LeakyRelu", np.float32, ([-2.0, 3.0],), {"alpha": 0.5}),
        ("Trilu", np.int32, ([[1, 2], [3, 4]],), {}),
        ("Cast", np.uint64, ([2**64 - 1, 2**63 + 5],),
         {"to": TensorProto.INT64}),
        ("Equal", np.bool_, ([True, False], [True, True]), {}),
        ("Exp", np.float16, ([1.0],), {}),
        ("Exp", np.float32, (np.zeros(65537),), {}),
    ]
    return _foldedCases(cases)


def trilu_runtime_k():
    """Trilu (lower) over a dynamic batch of matrices, its k a 0-d graph
    input read at call time: k moves only the diagonal, so it is data."""
    return model(
        [helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
        [tensor("x", TensorProto.FLOAT, ["batch", 3, 4]),
         tensor("k", TensorProto.INT64, [])],
        [tensor("y", TensorProto.FLOAT, ["batch", 3, 4])])


def trilu_runtime_k_1d():
    """Trilu (upper) with k a graph input of shape [1], which ONNX asks to
    be 0-d and some exporters write as one element."""
    return model(
        [helper.make_node("Trilu", ["x", "k"], ["y"], upper=1)],
        [tensor("x", TensorProto.INT32, [3, 4]),
         tensor("k", TensorProto.INT64, [1])],
        [tensor("y", TensorProto.INT32, [3, 4])])


def trilu_constant_k():
    """The same with k a constant (-1): the diagonal folded into the
    body."""
    return model(
        [i64("k", -1),
         helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
        [tensor("x", TensorProto.FLOAT, ["batch", 3, 4])],
        [tensor("y", TensorProto.FLOAT, ["batch", 3, 4])])


def reshape_runtime_shape():
    """Reshape of a static tensor to a target that is a graph input: its 0s
    and -1 are decided per call on the host (issue 19 item 3)."""
    return model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [tensor("x", TensorProto.FLOAT, [2, 3, 4]),
         tensor("shape", TensorProto.INT64, [3])],
        [tensor("y", TensorProto.FLOAT, None)])


def resize_runtime():
    """Resize by scales and by sizes that are graph inputs: the output
    extents computed on the host per call, the taps in the kernel."""
    return model(
        [helper.make_node("Resize", ["x", "", "scales"], ["y"],
                          mode="linear"),
         helper.make_node("Resize", ["x", "", "", "sizes"], ["z"],
                          mode="nearest")],
        [tensor("x", TensorProto.FLOAT, [1, 1, 4, 6]),
         tensor("scales", TensorProto.FLOAT, [4]),
         tensor("sizes", TensorProto.INT64, [4])],
        [tensor("y", TensorProto.FLOAT, None),
         tensor("z", TensorProto.FLOAT, None)])


def shapes_runtime():
    """ConstantOfShape, Expand, Tile and TopK sized by graph inputs read at
    call time."""
    return model(
        [helper.make_node("ConstantOfShape", ["dims"], ["zeros"]),
         helper.make_node("Expand", ["row", "dims"], ["wide"]),
         helper.make_node("Tile", ["x", "repeats"], ["tiled"]),
         helper.make_node("TopK", ["x", "k"], ["top", "where"], axis=1)],
        [tensor("dims", TensorProto.INT64, [2]),
         tensor("row", TensorProto.FLOAT, [1, 4]),
         tensor("x", TensorProto.FLOAT, [3, 4]),
         tensor("repeats", TensorProto.INT64, [2]),
         tensor("k", TensorProto.INT64, [1])],
        [tensor("zeros", TensorProto.FLOAT, None),
         tensor("wide", TensorProto.FLOAT, None),
         tensor("tiled", TensorProto.FLOAT, None),
         tensor("top", TensorProto.FLOAT, None),
         tensor("where", TensorProto.INT64, None)])


def axes_runtime():
    """Unsqueeze and ReduceSum whose axes are graph inputs: the importer
    takes the axes their declared output shapes imply and each call checks
    the given ones."""
    return model(
        [helper.make_node("Unsqueeze", ["x", "axes"], ["u"]),
         helper.make_node("ReduceSum", ["x", "raxes"], ["r"], keepdims=1)],
        [tensor("x", TensorProto.FLOAT, [3, 4, 5]),
         tensor("axes", TensorProto.INT64, [1]),
         tensor("raxes", TensorProto.INT64, [1])],
        [tensor("u", TensorProto.FLOAT, [3, 1, 4, 5]),
         tensor("r", TensorProto.FLOAT, [3, 1, 5])])


def axes_runtime_alternatives():
    """Unsqueeze of [2, 1, 3] to [2, 1, 1, 3]: axes [1] and [2] both give the
    declared shape, and the same data, so a call may give either."""
    return model(
        [helper.make_node("Unsqueeze", ["x", "axes"], ["u"])],
        [tensor("x", TensorProto.FLOAT, [2, 1, 3]),
         tensor("axes", TensorProto.INT64, [1])],
        [tensor("u", TensorProto.FLOAT, [2, 1, 1, 3])])


def if_runtime():
    """If whose condition is a graph input: both branches imported, each
    output selected by the condition."""
    f32 = TensorProto.FLOAT
    then_body = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"])], "then", [],
        [tensor("t", f32, [2, 3])])
    else_body = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"])], "else", [],
        [tensor("e", f32, [2, 3])])
    return model(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then_body,
                          else_branch=else_body)],
        [tensor("cond", TensorProto.BOOL, []), tensor("x", f32, [2, 3])],
        [tensor("y", f32, [2, 3])])


def scan_misfit_body():
    """A Scan whose body takes one input where the node gives a state and a
    scan input."""
    f32 = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["b"])], "body",
        [tensor("a", f32, [2])], [tensor("b", f32, [2])])
    return model(
        [helper.make_node("Scan", ["s", "xs"], ["f", "ys"], body=body,
                          num_scan_inputs=1)],
        [tensor("s", f32, [2]), tensor("xs", f32, [3, 2])],
        [tensor("f", f32, [2]), tensor("ys", f32, [3, 2])])


def mod_by_zero():
    return _folded("Mod", np.int64, [7, 5], [3, 0])


def fmod_by_zero():
    return _folded("Mod", np.int32, [-7], [0], fmod=1)


def div_overflow():
    return _folded("Div", np.int64, [-2**63], [-1])


def mul_overflow_int32():
    return _folded("Mul", np.int32, [65536], [32768])


def sub_overflow_uint8():
    return _folded("Sub", np.uint8, [3], [5])


def neg_overflow():
    return _folded("Neg", np.int8, [-128])


def sum_overflow():
    return _folded("Sum", np.int64, [2**62], [2**62], [-5])


def symbolic():
    return model([helper.make_node("Relu", ["x"], ["y"])],
                 [tensor("x", TensorProto.FLOAT, ["batch", 3])],
                 [tensor("y", TensorProto.FLOAT, ["batch", 3])])


def unsupported_op():
    # A valid Bernoulli (random draws), which Kiln does not convert: the
    # schema check passes and the converter lookup fails.
    return model([helper.make_node("Relu", ["x"], ["r"], name="first"),
                  helper.make_node("Bernoulli", ["r"], ["y"], name="coin")],
                 [tensor("x", TensorProto.FLOAT, [1, 4, 4])],
                 [tensor("y", TensorProto.FLOAT, [1, 4, 4])])


def unsupported_attr():
    return model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                                   auto_pad="SAME_SIDEWAYS")],
                 [tensor("x", TensorProto.FLOAT, [1, 1, 4, 4]),
                  tensor("w", TensorProto.FLOAT, [1, 1, 3, 3])],
                 [tensor("y", TensorProto.FLOAT, None)])


def unsupported_dtype():
    return model([helper.make_node("Identity", ["x"], ["y"])],
                 [tensor("x", TensorProto.STRING, [2])],
                 [tensor("y", TensorProto.STRING, [2])])


def opset11_squeeze_attr():
    """Opset 11: Squeeze/Unsqueeze axes and Clip bounds as attributes."""
    return model(
        [helper.make_node("Unsqueeze", ["x"], ["u"], axes=[0, 3]),
         helper.make_node("Squeeze", ["u"], ["s"], axes=[0]),
         helper.make_node("Clip", ["s"], ["y"], min=-1.0, max=1.0)],
        [tensor("x", TensorProto.FLOAT, [2, 3])],
        [tensor("y", TensorProto.FLOAT, [2, 3, 1])], opset=10)


def opset13_squeeze_input():
    """Opset 13: the same axes and bounds as inputs."""
    axes = numpy_helper.from_array(np.array([0, 3], np.int64), "axes")
    axes0 = numpy_helper.from_array(np.array([0], np.int64), "axes0")
    lo = numpy_helper.from_array(np.array(-1, np.float32), "lo")
    return model(
        [helper.make_node("Unsqueeze", ["x", "axes"], ["u"]),
         helper.make_node("Squeeze", ["u", "axes0"], ["s"]),
         helper.make_node("Clip", ["s", "lo", ""], ["y"])],
        [tensor("x", TensorProto.FLOAT, [2, 3])],
        [tensor("y", TensorProto.FLOAT, [2, 3, 1])], [axes, axes0, lo],
        opset=13)


def qlinear_matmul():
    """uint8 a by int8 b, per-column b scales, int8 result."""
    inits = [numpy_helper.from_array(np.array(v, dt), n) for n, v, dt in [
        ("sa", 0.1, np.float32), ("za", 128, np.uint8),
        ("sb", [0.1, 0.2, 0.3], np.float32), ("zb", [0, 1, -1], np.int8),
        ("sy", 0.5, np.float32), ("zy", 3, np.int8)]]
    return model([helper.make_node(
        "QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"],
        ["y"], name="qmm")],
        [tensor("a", TensorProto.UINT8, [2, 4]),
         tensor("b", TensorProto.INT8, [4, 3])],
        [tensor("y", TensorProto.INT8, [2, 3])], inits, opset=10)


def quantize_misfit_scale():
    """A per-axis scale of 4 along an axis of 3."""
    scale = numpy_helper.from_array(np.ones(4, np.float32), "s")
    return model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"],
                                   name="q", axis=1)],
                 [tensor("x", TensorProto.FLOAT, [2, 3])],
                 [tensor("y", TensorProto.UINT8, [2, 3])], [scale], opset=13)


def quantize_blocked():
    """Opset 21's blocked quantization: a scale per 2 elements."""
    scale = numpy_helper.from_array(np.ones((2, 2), np.float32), "s")
    return model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"],
                                   name="qb", axis=1, block_size=2)],
                 [tensor("x", TensorProto.FLOAT, [2, 4])],
                 [tensor("y", TensorProto.UINT8, [2, 4])], [scale], opset=21)


def external_data(out):
    """A weight in a file next to the model."""
    w = weights((16, 16), seed=3)
    t = numpy_helper.from_array(w, "w")
    data = os.path.basename(out) + ".data"
    with open(os.path.join(os.path.dirname(out) or ".", data), "wb") as f:
        f.write(b"\0" * 64 + w.tobytes())
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", data), ("offset", "64"),
                 ("length", str(w.nbytes))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                 [tensor("x", TensorProto.FLOAT, [1, 16])],
                 [tensor("y", TensorProto.FLOAT, [1, 16])], [t])


def external_escape(out):
    """An external location outside the model's folder."""
    m = external_data(out)
    for e in m.graph.initializer[0].external_data:
        if e.key == "location":
            e.value = "../" + e.value
    return m



def recurrent(op, gates, attrs=None, w_rows=None, lens=False):
    """One RNN/GRU/LSTM node: 3 steps, batch 2, input 3, hidden 4; W, R
    and B constants, X (and sequence_lens) graph inputs."""
    h = 4
    inits = [numpy_helper.from_array(weights((1, w_rows or gates * h, 3)),
                                     "w"),
             numpy_helper.from_array(weights((1, gates * h, h), 1), "r"),
             numpy_helper.from_array(weights((1, 2 * gates * h), 2), "b")]
    inputs = [tensor("x", TensorProto.FLOAT, [3, 2, 3])]
    names = ["x", "w", "r", "b"]
    if lens:
        inputs.append(tensor("lens", TensorProto.INT32, [2]))
        names.append("lens")
    return model(
        [helper.make_node(op, names, ["y", "y_h"], name="rec",
                          hidden_size=h, **(attrs or {}))],
        inputs,
        [tensor("y", TensorProto.FLOAT, [3, 1, 2, h]),
         tensor("y_h", TensorProto.FLOAT, [1, 2, h])], inits, opset=14)


def recurrent_lstm():
    return recurrent("LSTM", 4, lens=True)


def recurrent_bad_activation():
    return recurrent("RNN", 1, {"activations": ["Swish"]})


def recurrent_input_forget():
    return recurrent("LSTM", 4, {"input_forget": 1})


def recurrent_misfit_w():
    return recurrent("GRU", 3, w_rows=10)


def main():
    name, out = sys.argv[1], sys.argv[2]
    builders = {k: v for k, v in globals().items()
                if callable(v) and v.__module__ == __name__ and
                k not in ("main", "tensor", "model", "weights", "i64") and
                not k.startswith("_")}
    build = builders[name]
    m = build(out) if build.__code__.co_argcount == 1 else build()
    with open(out, "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
