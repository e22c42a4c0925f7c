#!/usr/bin/python3
"""Writes the models import_signal_runtime.mlir reads: signal ops whose
sizes are graph inputs read at call time.

  make_signal_model.py NAME OUT.onnx

Built with make_model.py's helpers (opset 17).
"""

import os
import sys

from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_model import model, tensor  # noqa: E402


def window_runtime():
    """A periodic Hann window and a symmetric Blackman window of doubles
    whose size is a graph input."""
    return model(
        [helper.make_node("HannWindow", ["size"], ["hann"]),
         helper.make_node("BlackmanWindow", ["size"], ["blackman"],
                          periodic=0, output_datatype=TensorProto.DOUBLE)],
        [tensor("size", TensorProto.INT64, [])],
        [tensor("hann", TensorProto.FLOAT, None),
         tensor("blackman", TensorProto.DOUBLE, None)])


def stft_runtime():
    """STFT whose frame_step and frame_length are graph inputs."""
    return model(
        [helper.make_node("STFT", ["signal", "step", "", "length"], ["y"])],
        [tensor("signal", TensorProto.FLOAT, [1, 37, 1]),
         tensor("step", TensorProto.INT64, []),
         tensor("length", TensorProto.INT64, [])],
        [tensor("y", TensorProto.FLOAT, None)])


if __name__ == "__main__":
    with open(sys.argv[2], "wb") as out:
        out.write(globals()[sys.argv[1]]().SerializeToString())
