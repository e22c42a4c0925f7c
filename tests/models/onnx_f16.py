"""Converts an exported float32 ONNX model into the same model in float16,
for the f16 variants of tests/models/export_models.py (PyTorch 1.13 on the
CPU runs no half-precision convolutions, so the f16 graphs are made from
the f32 exports rather than by exporting a .half() model).

  model16 = to_float16(onnx.load("model.onnx"))

What changes, in the main graph and every subgraph (If, Loop, Scan):
  - float32 initializers and the float32 tensors of Constant (value,
    value_float, value_floats) and ConstantOfShape (value) nodes are
    rounded to float16 (numpy's round-to-nearest-even; values past 65504
    become infinities, as a cast would make them);
  - the element type of every graph input, output and value_info that is
    float32 becomes float16 (tensors, and tensors inside sequence, optional
    and map types);
  - a Cast, or an op whose `dtype` attribute names the output type
    (EyeLike, RandomNormal, ...), to float32 now casts to float16.
Everything else (integer and boolean tensors, float64 ones, attributes
such as epsilon or alpha, which ONNX keeps as float32 whatever the tensor
type) is left alone.

Inputs that ONNX requires in float32 whatever the data's type (Resize's
scales, Upsample's) keep float32 when they are initializers or Constant
outputs used nowhere else; anything else this cannot convert faithfully
(such an input computed by the graph or shared with a float16 use,
LayerNormalization's float32 mean and inverse-deviation outputs, sparse
tensors) is a ValueError naming the node or tensor. The result passes
onnx.checker's full check (strict type and shape inference), or
ValueError.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT, FLOAT16 = TensorProto.FLOAT, TensorProto.FLOAT16

# (op type, input index) that ONNX types as tensor(float) whatever the
# data's type.
FLOAT32_INPUTS = {("Resize", 2), ("Upsample", 1)}
# Outputs typed by an attribute other than the data's (LayerNormalization's
# stash_type): refused rather than guessed.
FLOAT32_OUTPUTS = {("LayerNormalization", 1), ("LayerNormalization", 2)}
# Ops whose `dtype` attribute is their output's element type.
DTYPE_ATTRIBUTE_OPS = {"EyeLike", "RandomNormal", "RandomNormalLike",
                       "RandomUniform", "RandomUniformLike", "Bernoulli"}


def to_float16(model):
    """A converted copy of `model` (onnx.ModelProto); see the module's
    docstring."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    _convert_graph(model.graph)
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError,
            onnx.shape_inference.InferenceError) as e:
        raise ValueError(f"the float16 graph does not check: {e}") from e
    return model


def _half(tensor):
    """A float32 TensorProto rounded to float16, same name."""
    if tensor.data_location == TensorProto.EXTERNAL:
        raise ValueError(f"tensor '{tensor.name}': external data is not "
                         "converted (load it into the model first)")
    array = numpy_helper.to_array(tensor)
    with np.errstate(over="ignore"):
        return numpy_helper.from_array(array.astype(np.float16), tensor.name)


def _convert_type(type_proto):
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        if type_proto.tensor_type.elem_type == FLOAT:
            type_proto.tensor_type.elem_type = FLOAT16
    elif which == "sparse_tensor_type":
        if type_proto.sparse_tensor_type.elem_type == FLOAT:
            type_proto.sparse_tensor_type.elem_type = FLOAT16
    elif which == "sequence_type":
        _convert_type(type_proto.sequence_type.elem_type)
    elif which == "optional_type":
        _convert_type(type_proto.optional_type.elem_type)
    elif which == "map_type":
        _convert_type(type_proto.map_type.value_type)


def _float32_names(graph):
    """Names of initializers and Constant outputs that must stay float32:
    those feeding only FLOAT32_INPUTS slots."""
    uses = {}
    for node in graph.node:
        for index, name in enumerate(node.input):
            if name:
                uses.setdefault(name, []).append((node, index))
    constants = {t.name for t in graph.initializer}
    constants |= {n.output[0] for n in graph.node if n.op_type == "Constant"}
    keep = set()
    for name, consumers in uses.items():
        slots = [(n.op_type, i) in FLOAT32_INPUTS for n, i in consumers]
        if not any(slots):
            continue
        node = next(n for n, i in consumers
                    if (n.op_type, i) in FLOAT32_INPUTS)
        if name not in constants:
            raise ValueError(
                f"node '{node.name}' ({node.op_type}): its float32 input "
                f"'{name}' is computed by the graph; not converted")
        if not all(slots):
            raise ValueError(
                f"'{name}' feeds both a float32-only input of node "
                f"'{node.name}' ({node.op_type}) and other ops; not converted")
        keep.add(name)
    return keep


def _convert_graph(graph):
    if graph.sparse_initializer:
        raise ValueError(f"graph '{graph.name}': sparse initializers are "
                         "not converted")
    keep = _float32_names(graph)
    for k, tensor in enumerate(graph.initializer):
        if tensor.data_type == FLOAT and tensor.name not in keep:
            graph.initializer[k].CopyFrom(_half(tensor))
    for value in (*graph.input, *graph.output, *graph.value_info):
        if value.name not in keep:
            _convert_type(value.type)
    for node in graph.node:
        _convert_node(node, keep)


def _convert_node(node, keep):
    where = f"node '{node.name}' ({node.op_type})"
    for index, name in enumerate(node.output):
        if name and (node.op_type, index) in FLOAT32_OUTPUTS:
            raise ValueError(f"{where}: output {index} has a type of its own "
                             "(float32); not converted")
    if node.op_type == "Constant" and node.output[0] in keep:
        return
    for k, attr in enumerate(node.attribute):
        if attr.type == onnx.AttributeProto.GRAPH:
            _convert_graph(attr.g)
        elif attr.type == onnx.AttributeProto.GRAPHS:
            for g in attr.graphs:
                _convert_graph(g)
        elif attr.type == onnx.AttributeProto.SPARSE_TENSOR:
            raise ValueError(f"{where}: sparse tensor attribute "
                             f"'{attr.name}' is not converted")
        elif node.op_type == "Constant":
            if attr.name == "value" and attr.t.data_type == FLOAT:
                attr.t.CopyFrom(_half(attr.t))
            elif attr.name in ("value_float", "value_floats"):
                values = (np.float32(attr.f) if attr.name == "value_float"
                          else np.array(attr.floats, np.float32))
                node.attribute[k].CopyFrom(helper.make_attribute(
                    "value", numpy_helper.from_array(
                        values.astype(np.float16))))
        elif node.op_type == "ConstantOfShape" and attr.name == "value":
            if attr.t.data_type == FLOAT:
                attr.t.CopyFrom(_half(attr.t))
        elif node.op_type == "Cast" and attr.name == "to":
            if attr.i == FLOAT:
                attr.i = FLOAT16
        elif node.op_type in DTYPE_ATTRIBUTE_OPS and attr.name == "dtype":
            if attr.i == FLOAT:
                attr.i = FLOAT16
    names = {a.name for a in node.attribute}
    if node.op_type == "ConstantOfShape" and "value" not in names:
        # Without a value it makes float32 zeros.
        node.attribute.append(helper.make_attribute(
            "value", numpy_helper.from_array(np.zeros(1, np.float16))))
    if node.op_type in ("RandomNormal", "RandomUniform") and (
            "dtype" not in names):
        # Without a dtype they make float32.
        node.attribute.append(helper.make_attribute("dtype", FLOAT16))
