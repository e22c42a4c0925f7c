#!/usr/bin/python3
"""Tests of tests/models/onnx_f16.py (Debian's python3-onnx):

  /usr/bin/python3 tests/models/test_onnx_f16.py
"""

import os
import sys
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_f16 import to_float16  # noqa: E402

F32, F16, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64


def make_model(nodes, inputs, outputs, initializers=(), value_info=(),
               opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers),
                              value_info=list(value_info))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model, full_check=True)
    return model


def attribute(node, name):
    return next(a for a in node.attribute if a.name == name)


def initializer(model, name):
    return next(t for t in model.graph.initializer if t.name == name)


class ToFloat16(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(3)
        # Values that round: float16 keeps 11 significant bits.
        self.w = rng.standard_normal((4, 3)).astype(np.float32)
        self.w[0, 0] = 1e5  # past float16's range: becomes inf
        self.w[0, 1] = 1 + 2.0**-12  # a tie, to even: 1.0
        self.w[0, 2] = 1 + 3 * 2.0**-12  # a tie, to even: 1 + 2^-10

    def test_types_values_casts_and_constants(self):
        w = numpy_helper.from_array(self.w, "w")
        shape = numpy_helper.from_array(np.array([2, 3], np.int64), "shape")
        nodes = [
            helper.make_node("MatMul", ["x", "w"], ["xw"]),
            helper.make_node("Constant", [], ["half"], value_float=0.1),
            helper.make_node("Constant", [], ["row"],
                             value_floats=[0.1, 0.2, 0.3]),
            helper.make_node("Constant", [], ["bias"],
                             value=numpy_helper.from_array(
                                 np.array([1 / 3], np.float32))),
            helper.make_node("Mul", ["xw", "half"], ["a"]),
            helper.make_node("Add", ["a", "row"], ["b"]),
            helper.make_node("Add", ["b", "bias"], ["c"]),
            helper.make_node("Cast", ["ids"], ["idsf"], to=F32),
            helper.make_node("Add", ["c", "idsf"], ["d"]),
            helper.make_node("ConstantOfShape", ["shape"], ["fill"],
                             value=numpy_helper.from_array(
                                 np.array([0.7], np.float32))),
            helper.make_node("ConstantOfShape", ["shape"], ["zeros"]),
            helper.make_node("Add", ["d", "fill"], ["e"]),
            helper.make_node("Add", ["e", "zeros"], ["y"]),
            helper.make_node("Cast", ["y"], ["y64"], to=TensorProto.DOUBLE),
            helper.make_node("LayerNormalization", ["y", "row", "row"],
                             ["norm"], epsilon=1e-5),
        ]
        model = make_model(
            nodes,
            [helper.make_tensor_value_info("x", F32, [2, 4]),
             helper.make_tensor_value_info("ids", I64, [2, 3])],
            [helper.make_tensor_value_info("y", F32, [2, 3]),
             helper.make_tensor_value_info("y64", TensorProto.DOUBLE, [2, 3]),
             helper.make_tensor_value_info("norm", F32, [2, 3])],
            [w, shape], [helper.make_tensor_value_info("xw", F32, [2, 3])])
        half = to_float16(model)
        g = half.graph
        self.assertEqual([v.type.tensor_type.elem_type for v in g.input],
                         [F16, I64])
        self.assertEqual([v.type.tensor_type.elem_type for v in g.output],
                         [F16, TensorProto.DOUBLE, F16])
        self.assertEqual(g.value_info[0].type.tensor_type.elem_type, F16)
        got = numpy_helper.to_array(initializer(half, "w"))
        self.assertEqual(got.dtype, np.float16)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(got, self.w.astype(np.float16))
        self.assertEqual(got[0, 0], np.inf)
        self.assertEqual(got[0, 1], 1.0)
        self.assertEqual(got[0, 2], np.float16(1 + 2.0**-10))
        self.assertEqual(
            numpy_helper.to_array(initializer(half, "shape")).dtype, np.int64)
        byOutput = {n.output[0]: n for n in g.node}
        for name, want in (("half", np.float16(0.1)),
                           ("row", np.array([0.1, 0.2, 0.3], np.float16)),
                           ("bias", np.array([1 / 3], np.float16))):
            node = byOutput[name]
            self.assertEqual([a.name for a in node.attribute], ["value"])
            value = numpy_helper.to_array(attribute(node, "value").t)
            self.assertEqual(value.dtype, np.float16)
            np.testing.assert_array_equal(value, want)
        self.assertEqual(attribute(byOutput["idsf"], "to").i, F16)
        self.assertEqual(attribute(byOutput["y64"], "to").i,
                         TensorProto.DOUBLE)
        for name, want in (("fill", 0.7), ("zeros", 0.0)):
            value = numpy_helper.to_array(attribute(byOutput[name], "value").t)
            self.assertEqual(value.dtype, np.float16)
            np.testing.assert_array_equal(value, [np.float16(want)])
        self.assertAlmostEqual(attribute(byOutput["norm"], "epsilon").f, 1e-5)
        # The input is left alone.
        self.assertEqual(initializer(model, "w").data_type, F32)

    def test_resize_scales_stay_float32(self):
        scales = numpy_helper.from_array(
            np.array([1, 1, 2, 2], np.float32), "scales")
        model = make_model(
            [helper.make_node("Resize", ["x", "", "scales"], ["y"])],
            [helper.make_tensor_value_info("x", F32, [1, 1, 2, 2])],
            [helper.make_tensor_value_info("y", F32, [1, 1, 4, 4])], [scales])
        half = to_float16(model)
        self.assertEqual(initializer(half, "scales").data_type, F32)
        self.assertEqual(half.graph.input[0].type.tensor_type.elem_type, F16)

    def test_resize_scales_shared_or_computed_are_refused(self):
        scales = numpy_helper.from_array(
            np.array([1, 1, 2, 2], np.float32), "scales")
        shared = make_model(
            [helper.make_node("Resize", ["x", "", "scales"], ["r"]),
             helper.make_node("Add", ["scales", "scales"], ["s2"])],
            [helper.make_tensor_value_info("x", F32, [1, 1, 2, 2])],
            [helper.make_tensor_value_info("r", F32, [1, 1, 4, 4]),
             helper.make_tensor_value_info("s2", F32, [4])], [scales])
        with self.assertRaisesRegex(ValueError, "feeds both"):
            to_float16(shared)
        computed = make_model(
            [helper.make_node("Add", ["scales", "scales"], ["s2"]),
             helper.make_node("Resize", ["x", "", "s2"], ["r"])],
            [helper.make_tensor_value_info("x", F32, [1, 1, 2, 2])],
            [helper.make_tensor_value_info("r", F32, [1, 1, 8, 8])], [scales])
        with self.assertRaisesRegex(ValueError, "computed by the graph"):
            to_float16(computed)

    def test_layer_norm_statistics_are_refused(self):
        scale = numpy_helper.from_array(np.ones(3, np.float32), "scale")
        model = make_model(
            [helper.make_node("LayerNormalization", ["x", "scale"],
                              ["y", "mean"], name="ln")],
            [helper.make_tensor_value_info("x", F32, [2, 3])],
            [helper.make_tensor_value_info("y", F32, [2, 3]),
             helper.make_tensor_value_info("mean", F32, [2, 1])], [scale])
        with self.assertRaisesRegex(ValueError, "node 'ln'"):
            to_float16(model)

    def test_subgraphs(self):
        branch = lambda value: helper.make_graph(  # noqa: E731
            [helper.make_node("Constant", [], ["k"], value=numpy_helper.
                              from_array(np.array([value], np.float32))),
             helper.make_node("Add", ["x", "k"], ["out"])], "branch", [],
            [helper.make_tensor_value_info("out", F32, [2])])
        model = make_model(
            [helper.make_node("If", ["cond"], ["y"],
                              then_branch=branch(0.1),
                              else_branch=branch(0.2))],
            [helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
             helper.make_tensor_value_info("x", F32, [2])],
            [helper.make_tensor_value_info("y", F32, [2])])
        half = to_float16(model)
        node = half.graph.node[0]
        for name, want in (("then_branch", 0.1), ("else_branch", 0.2)):
            sub = attribute(node, name).g
            self.assertEqual(sub.output[0].type.tensor_type.elem_type, F16)
            value = numpy_helper.to_array(attribute(sub.node[0], "value").t)
            np.testing.assert_array_equal(value, [np.float16(want)])

    def test_random_ops_get_a_float16_dtype(self):
        model = make_model(
            [helper.make_node("RandomNormal", [], ["r"], shape=[2]),
             helper.make_node("Add", ["x", "r"], ["y"])],
            [helper.make_tensor_value_info("x", F32, [2])],
            [helper.make_tensor_value_info("y", F32, [2])])
        half = to_float16(model)
        self.assertEqual(attribute(half.graph.node[0], "dtype").i, F16)


if __name__ == "__main__":
    unittest.main()
