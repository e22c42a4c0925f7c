#!/usr/bin/python3
"""Writes the ai.onnx.preview.training models import_training.mlir reads.

  make_training_model.py NAME OUT.onnx

Like make_model.py, but the graphs import the training domain (opset 1)
beside the default one.
"""

import sys

from onnx import TensorProto, helper

DOMAIN = "ai.onnx.preview.training"


def optimizer(op, inputs, outputs, shapes, **attrs):
    """One `op` node: R and T scalars, then float tensors of `shapes`
    (by input name); outputs take their X's shape."""
    values = [helper.make_tensor_value_info("R", TensorProto.FLOAT, []),
              helper.make_tensor_value_info("T", TensorProto.INT64, [])]
    values += [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n])
               for n in inputs[2:]]
    node = helper.make_node(op, inputs, outputs, domain=DOMAIN, **attrs)
    graph = helper.make_graph(
        [node], "main_graph", values,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
         for o in outputs])
    m = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid(DOMAIN, 1)])
    m.ir_version = 8
    return m


def adagrad_two_groups():
    """Two groups: X1, X2, then G1, G2, then H1, H2."""
    return optimizer(
        "Adagrad", ["R", "T", "X1", "X2", "G1", "G2", "H1", "H2"],
        ["X1_new", "X2_new", "H1_new", "H2_new"],
        {"X1": [3], "X2": [2, 4], "G1": [3], "G2": [2, 4], "H1": [3],
         "H2": [2, 4]},
        decay_factor=0.1, epsilon=1e-5, norm_coefficient=0.001)


def adagrad_bad_count():
    """Seven inputs: R, T and five tensors, no whole number of groups."""
    return optimizer(
        "Adagrad", ["R", "T", "X1", "X2", "G1", "G2", "H1"], ["X1_new"],
        {n: [3] for n in ("X1", "X2", "G1", "G2", "H1")})


def momentum_no_mode():
    """Momentum's attributes are all required."""
    return optimizer("Momentum", ["R", "T", "X", "G", "V"], ["X_new", "V_new"],
                     {n: [3] for n in "XGV"}, alpha=0.9, beta=0.1,
                     norm_coefficient=0.0)


def main():
    name, out = sys.argv[1], sys.argv[2]
    with open(out, "wb") as f:
        f.write(globals()[name]().SerializeToString())


if __name__ == "__main__":
    main()
