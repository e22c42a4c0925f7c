#!/usr/bin/python3
"""Builds the malformed ("hostile") ONNX models of issue 16, and a few valid
ones that must keep working, for run_hostile.py.

  /usr/bin/python3 tests/onnx/hostile/make_hostile.py OUT_DIR [--filter RE]
  /usr/bin/python3 tests/onnx/hostile/make_hostile.py --list

Every case is a `Case` in `CASES`: a name, a builder that writes the model
(and any side files: external data, links, FIFOs, planted secrets) into a
`Place`, and what the tools must do with it:

- kind "error": both tools exit 1 with a one-line error whose first line
  contains `expect` (a node, tensor or input name; a tuple means any one of
  them, for models where more than one place may rightly be blamed first);
- kind "valid": both tools exit 0, and where `io` is given the compiled
  module's outputs match numpy's;
- kind "bounded": a valid but large model; exit 0 or a clean exit-1 error,
  never a signal, a timeout or running out of the memory limit.

`external` marks the external-data cases, whose tool runs are also traced
(strace) to show that nothing outside the model's folder is opened.

A Place is one case's folders: `model/` (the model and whatever its folder
legitimately holds), `outside/` (secrets planted beside, never to be read),
`cwd/` (the tools' working directory, holding a `passwd` secret for the
cases that ask for a relative location the importer must not resolve
against the working directory), `out/` (where the tools are told to write)
and `tmp/` (their TMPDIR).

Needs Debian's python3-onnx: run with /usr/bin/python3.
"""

import argparse
import os
import re
import sys
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63
UINT64_MAX = 2**64 - 1
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
BFLOAT16 = TensorProto.BFLOAT16

# What the planted secret files hold: 64 bytes, so that an importer which
# follows the location reads a whole float tensor of 16 elements from it
# (and succeeds, which is the bug) rather than failing on a short file.
SECRET = (b"KILN-HOSTILE-SECRET:must-never-be-read-by-the-importer." +
          b"#" * 64)[:64]


class Unsupported(Exception):
    """This machine cannot build the case (no hard links or FIFOs on the
    file system); the runner reports it as skipped."""


class Place:
    """The folders of one case; see the module docstring."""

    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        self.model_dir = os.path.join(self.root, "model")
        self.outside = os.path.join(self.root, "outside")
        self.cwd = os.path.join(self.root, "cwd")
        self.out = os.path.join(self.root, "out")
        self.tmp = os.path.join(self.root, "tmp")
        for d in (self.model_dir, self.outside, self.cwd, self.out, self.tmp):
            os.makedirs(d, exist_ok=True)
        # Files outside the model's folder that a case points at: the tools
        # must never open (or, for a hard link's inode, read) them.
        self.secrets: List[str] = []

    def plant(self, path: str, data: bytes = SECRET) -> str:
        """Writes a secret file outside the model's folder."""
        with open(path, "wb") as f:
            f.write(data)
        self.secrets.append(path)
        return path

    def file(self, name: str, data: bytes) -> str:
        """Writes a legitimate side file inside the model's folder."""
        path = os.path.join(self.model_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def save(self, model: onnx.ModelProto, name: str = "model.onnx") -> str:
        """Writes the model into the model folder; returns its path.
        Serialized by hand: onnx.save would try to check or move external
        data, and these models are meant to be wrong."""
        path = os.path.join(self.model_dir, name)
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        return path


Expect = Union[None, str, Tuple[str, ...]]


class Case(NamedTuple):
    name: str
    build: Callable[[Place], str]  # returns the model's path
    expect: Expect
    kind: str = "error"  # "error", "valid" or "bounded"
    external: bool = False
    timeout: Optional[float] = None  # seconds per tool run; None: default
    # For valid cases: () -> (inputs, expected outputs), run on the module.
    io: Optional[Callable[[], Tuple[List[np.ndarray],
                                    List[np.ndarray]]]] = None
    doc: str = ""
    # More substrings the first error line must hold, all of them.
    also: Tuple[str, ...] = ()


CASES: List[Case] = []


def case(name, expect, kind="error", external=False, timeout=None, io=None):
    """Registers the decorated builder as a case; its docstring says what
    the model is and why it is hostile."""

    def register(fn):
        CASES.append(Case(name, fn, expect, kind, external, timeout, io,
                          " ".join((fn.__doc__ or "").split())))
        return fn

    return register


# --- model-building helpers ---------------------------------------------


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8):
    """A model of one graph, default opset 17."""
    graph = helper.make_graph(nodes, "hostile", inputs, outputs,
                              initializer=list(inits))
    m = helper.make_model(graph,
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def i64(name, values):
    """An int64 tensor (a scalar when `values` is an int)."""
    return numpy_helper.from_array(np.array(values, np.int64), name)


def f32(name, values):
    return numpy_helper.from_array(np.array(values, np.float32), name)


def node(op, inputs, outputs, name, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, **attrs)


def external(name, dims, location, offset=None, length=None):
    """A float tensor whose data lives at `location` (offset and length as
    given, strings allowed so that values past 64 bits can be written)."""
    t = TensorProto()
    t.name = name
    t.data_type = FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset),
                       ("length", length)):
        if value is not None:
            e = t.external_data.add()
            e.key, e.value = key, str(value)
    return t


# --- external data: where the location points ---------------------------
#
# Each escape takes the Place and the tensor's byte size and returns the
# external_data entries (location, offset, length), planting what it needs.
# The first group points outside the model's folder (or at something that is
# not a regular file); the second reads a legitimate file inside the folder
# with offsets and lengths that are wrong.

SECRET_NAME = "secret.bin"

# Seconds a tool gets on a model that involves a FIFO: refusing one takes no
# time, and a tool that opened it for reading would wait forever.
FIFO_TIMEOUT = 15


def _outside_secret(p: Place) -> str:
    return p.plant(os.path.join(p.outside, SECRET_NAME))


def esc_cwd_relative(p, nbytes):
    """'passwd', which the model's folder lacks but the working directory
    holds: resolving against the cwd reads it (issue 16: /etc/passwd)."""
    p.plant(os.path.join(p.cwd, "passwd"))
    return "passwd", None, None


def esc_absolute(p, nbytes):
    """An absolute path to a file outside the folder."""
    return _outside_secret(p), None, None


def esc_dotdot(p, nbytes):
    """'../outside/secret.bin'."""
    _outside_secret(p)
    return "../outside/" + SECRET_NAME, None, None


def esc_dotdot_nested(p, nbytes):
    """'sub/../../outside/secret.bin': the '..' hides behind a real
    subfolder, so a check of the first component alone misses it."""
    _outside_secret(p)
    os.makedirs(os.path.join(p.model_dir, "sub"), exist_ok=True)
    return "sub/../../outside/" + SECRET_NAME, None, None


def esc_symlink(p, nbytes):
    """'link.bin', a symlink inside the folder to the secret outside."""
    secret = _outside_secret(p)
    os.symlink(secret, os.path.join(p.model_dir, "link.bin"))
    return "link.bin", None, None


def esc_symlink_dir(p, nbytes):
    """'sub/secret.bin' where 'sub' is a symlink to the outside folder."""
    _outside_secret(p)
    os.symlink(p.outside, os.path.join(p.model_dir, "sub"))
    return "sub/" + SECRET_NAME, None, None


def esc_hardlink(p, nbytes):
    """'hard.bin', a hard link inside the folder to the secret outside (its
    real path is inside; only the link count gives it away)."""
    secret = _outside_secret(p)
    try:
        os.link(secret, os.path.join(p.model_dir, "hard.bin"))
    except OSError as e:
        raise Unsupported(f"cannot make a hard link: {e}")
    return "hard.bin", None, None


def esc_fifo(p, nbytes):
    """'pipe.bin', a FIFO nobody writes to: opening it to read blocks."""
    try:
        os.mkfifo(os.path.join(p.model_dir, "pipe.bin"))
    except OSError as e:
        raise Unsupported(f"cannot make a FIFO: {e}")
    return "pipe.bin", None, None


def esc_directory(p, nbytes):
    """'dir.bin', a directory."""
    os.makedirs(os.path.join(p.model_dir, "dir.bin"))
    return "dir.bin", None, None


def _data(p):
    """The legitimate data file the bound cases read: 64 bytes."""
    p.file("w.bin", np.arange(16, dtype=np.float32).tobytes())
    return "w.bin"


def esc_offset_u64_max(p, nbytes):
    """offset 2^64-1."""
    return _data(p), UINT64_MAX, None


def esc_offset_wrap(p, nbytes):
    """offset 2^64-8 with the right length: offset+length wraps to a small
    number that passes an unchecked 'offset + length <= size'."""
    return _data(p), 2**64 - 8, nbytes


def esc_offset_2p63(p, nbytes):
    """offset 2^63: negative once cast to int64."""
    return _data(p), 2**63, None


def esc_offset_2p64(p, nbytes):
    """offset 2^64: not a 64-bit number at all."""
    return _data(p), 2**64, None


def esc_offset_negative(p, nbytes):
    """offset -1."""
    return _data(p), -1, None


def esc_offset_past_end(p, nbytes):
    """offset 1000 in a 64-byte file."""
    return _data(p), 1000, None


def esc_length_short(p, nbytes):
    """length 4 bytes short of the tensor's size."""
    return _data(p), 0, nbytes - 4


def esc_length_long(p, nbytes):
    """length 1000, more than the tensor and the file."""
    return _data(p), 0, 1000


def esc_length_u64_max(p, nbytes):
    """length 2^64-1."""
    return _data(p), 0, UINT64_MAX


# (name, escape, the location's last component, which the error must name
# besides the tensor when the location itself is what is wrong: issue 16
# asks for "a one-line error naming the tensor and the location").
ESCAPES = [
    ("cwd_relative", esc_cwd_relative, "passwd"),
    ("absolute", esc_absolute, SECRET_NAME),
    ("dotdot", esc_dotdot, SECRET_NAME),
    ("dotdot_nested", esc_dotdot_nested, SECRET_NAME),
    ("symlink", esc_symlink, "link.bin"),
    ("symlink_dir", esc_symlink_dir, SECRET_NAME),
    ("hardlink", esc_hardlink, "hard.bin"),
    ("fifo", esc_fifo, "pipe.bin"),
    ("directory", esc_directory, "dir.bin"),
]
# The bounds: only an offset past the end of the file is about the file;
# the rest may rightly be refused for the numbers alone.
BOUNDS = [
    ("offset_u64_max", esc_offset_u64_max, None),
    ("offset_wrap", esc_offset_wrap, None),
    ("offset_2p63", esc_offset_2p63, None),
    ("offset_2p64", esc_offset_2p64, None),
    ("offset_negative", esc_offset_negative, None),
    ("offset_past_end", esc_offset_past_end, "w.bin"),
    ("length_short", esc_length_short, None),
    ("length_long", esc_length_long, None),
    ("length_u64_max", esc_length_u64_max, None),
]

# --- external data: which tensor carries it -----------------------------
#
# Each carrier builds a model around one external tensor. All add it to a
# graph input x of 16 floats, so an importer that reads the secret compiles
# a working module (exit 0: the bug) rather than failing for another reason.


def carrier_initializer(p, escape):
    """A graph initializer."""
    loc, off, length = escape(p, 64)
    return p.save(model(
        [node("Add", ["x", "leak_init"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])],
        [external("leak_init", [16], loc, off, length)]))


def carrier_constant(p, escape):
    """A Constant node's `value`."""
    loc, off, length = escape(p, 64)
    return p.save(model(
        [node("Constant", [], ["c"], "leak_const_node",
              value=external("leak_const", [16], loc, off, length)),
         node("Add", ["x", "c"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])]))


def carrier_constant_of_shape(p, escape):
    """ConstantOfShape's `value`: the tensor attribute of a node other than
    Constant."""
    loc, off, length = escape(p, 4)
    return p.save(model(
        [node("ConstantOfShape", ["shape"], ["c"], "leak_cos_node",
              value=external("leak_cos", [1], loc, off, length)),
         node("Add", ["x", "c"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])],
        [i64("shape", [16])]))


def carrier_if(p, escape):
    """A Constant inside an If node's then_branch subgraph."""
    loc, off, length = escape(p, 64)
    then_g = helper.make_graph(
        [node("Constant", [], ["then_out"], "leak_sub_node",
              value=external("leak_sub", [16], loc, off, length))],
        "then", [], [vi("then_out", FLOAT, [16])])
    else_g = helper.make_graph(
        [node("Constant", [], ["else_out"], "zeros_node",
              value=f32("zeros", np.zeros(16)))],
        "else", [], [vi("else_out", FLOAT, [16])])
    return p.save(model(
        [node("If", ["cond"], ["c"], "leak_if", then_branch=then_g,
              else_branch=else_g),
         node("Add", ["x", "c"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])],
        [numpy_helper.from_array(np.array(True), "cond")]))


def carrier_loop(p, escape):
    """An initializer of a Loop node's body subgraph."""
    loc, off, length = escape(p, 64)
    body = helper.make_graph(
        [node("Add", ["v_in", "leak_body"], ["v_out"], "body_add"),
         node("Identity", ["cond_in"], ["cond_out"], "body_cond")],
        "body",
        [vi("iter", INT64, []), vi("cond_in", BOOL, []),
         vi("v_in", FLOAT, [16])],
        [vi("cond_out", BOOL, []),
         vi("v_out", FLOAT, [16])],
        initializer=[external("leak_body", [16], loc, off, length)])
    return p.save(model(
        [node("Loop", ["trip", "cond", "x"], ["y"], "leak_loop", body=body)],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])],
        [i64("trip", 1), numpy_helper.from_array(np.array(True), "cond")]))


# (carrier name, builder, what the error must name, escapes it gets). The
# subgraph carriers get only the escapes: Kiln does not import If or Loop,
# so refusing the node (named) without touching its tensors is a right
# answer too, and the offset/length arithmetic is what the top-level
# carriers already cover.
CARRIERS = [
    ("initializer", carrier_initializer, "leak_init", ESCAPES + BOUNDS),
    ("constant", carrier_constant, "leak_const", ESCAPES + BOUNDS),
    ("constant_of_shape", carrier_constant_of_shape, "leak_cos",
     ESCAPES + BOUNDS),
    ("if_subgraph", carrier_if, ("leak_sub", "leak_if"), ESCAPES),
    ("loop_subgraph", carrier_loop, ("leak_body", "leak_loop"), ESCAPES),
]


def _external_case(cname, carrier, expect, ename, escape, location):
    def build(p):
        return carrier(p, escape)

    doc = " ".join(f"{carrier.__doc__} With external data: "
                   f"{escape.__doc__ or ''}".split())
    # A FIFO left blocking is a hang: no need to wait the full timeout.
    timeout = FIFO_TIMEOUT if escape is esc_fifo else None
    # The subgraph carriers may blame the If/Loop node without looking at
    # the location at all.
    also = (location,) if location and isinstance(expect, str) else ()
    return Case(f"ext_{cname}_{ename}", build, expect, "error", True, timeout,
                None, doc, also)


for _cname, _carrier, _expect, _escapes in CARRIERS:
    for _ename, _escape, _location in _escapes:
        CASES.append(_external_case(_cname, _carrier, _expect, _ename,
                                    _escape, _location))

# --- valid external data: the resolver must still read what is legitimate


def _io_add_arange():
    x = np.linspace(-1, 1, 16, dtype=np.float32)
    return [x], [x + np.arange(16, dtype=np.float32)]


@case("valid_external_initializer", None, "valid", external=True,
      io=_io_add_arange)
def valid_external_initializer(p):
    """An initializer in 'weights/w.bin' at offset 64: inside the folder,
    must be read and added right."""
    p.file("weights/w.bin", b"\0" * 64 + np.arange(16, dtype=np.float32)
           .tobytes())
    return p.save(model(
        [node("Add", ["x", "w"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])],
        [external("w", [16], "weights/w.bin", 64, 64)]))


@case("valid_external_constant", None, "valid", external=True,
      io=_io_add_arange)
def valid_external_constant(p):
    """A Constant whose value is in 'c.bin' next to the model (resolved
    against the model's folder, not the working directory)."""
    p.file("c.bin", np.arange(16, dtype=np.float32).tobytes())
    return p.save(model(
        [node("Constant", [], ["c"], "const",
              value=external("cval", [16], "c.bin")),
         node("Add", ["x", "c"], ["y"], "add")],
        [vi("x", FLOAT, [16])], [vi("y", FLOAT, [16])]))


# --- crashes (issue 16, Found 2) ----------------------------------------


@case("reshape_wrap_gather", "reshape_wrap")
def reshape_wrap_gather(p):
    """Reshape of 4 elements to [2^62+1, 4], whose element count wraps to
    exactly 4 in 64 bits, feeding a Gather (a SIGSEGV in issue 16)."""
    return p.save(model(
        [node("Reshape", ["x", "shape"], ["r"], "reshape_wrap"),
         node("Gather", ["r", "idx"], ["y"], "gather_after", axis=0)],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)],
        [i64("shape", [2**62 + 1, 4]), i64("idx", [0])]))


@case("reshape_wrap_slice", "reshape_wrap")
def reshape_wrap_slice(p):
    """The same wrapping Reshape feeding a Slice."""
    return p.save(model(
        [node("Reshape", ["x", "shape"], ["r"], "reshape_wrap"),
         node("Slice", ["r", "starts", "ends", "axes"], ["y"], "slice_after")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)],
        [i64("shape", [4, 2**62 + 1]), i64("starts", [0]), i64("ends", [1]),
         i64("axes", [1])]))


@case("reshape_infer_div0", "reshape_infer")
def reshape_infer_div0(p):
    """Reshape to [-1, 2^32, 2^32]: inferring -1 divides by a product that
    wraps to 0."""
    return p.save(model(
        [node("Reshape", ["x", "shape"], ["r"], "reshape_infer"),
         node("Gather", ["r", "idx"], ["y"], "gather_after", axis=0)],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)],
        [i64("shape", [-1, 2**32, 2**32]), i64("idx", [0])]))


@case("constant_of_shape_bytes_wrap", "cos_wrap")
def constant_of_shape_bytes_wrap(p):
    """ConstantOfShape [2^31, 2^31] floats: 2^62 elements fit int64, their
    2^64 bytes wrap to 0."""
    return p.save(model(
        [node("ConstantOfShape", ["shape"], ["y"], "cos_wrap",
              value=f32("one", [1.0]))],
        [], [vi("y", FLOAT, None)], [i64("shape", [2**31, 2**31])]))


@case("constant_of_shape_elements_wrap", "cos_wrap_elems")
def constant_of_shape_elements_wrap(p):
    """ConstantOfShape [2^32, 2^32]: the element count itself wraps to 0."""
    return p.save(model(
        [node("ConstantOfShape", ["shape"], ["y"], "cos_wrap_elems",
              value=f32("one", [1.0]))],
        [], [vi("y", FLOAT, None)], [i64("shape", [2**32, 2**32])]))


@case("constant_of_shape_1e12", "cos_1e12")
def constant_of_shape_1e12(p):
    """ConstantOfShape of 10^12 floats (4 TB): an out-of-memory abort."""
    return p.save(model(
        [node("ConstantOfShape", ["shape"], ["y"], "cos_1e12",
              value=f32("one", [1.0]))],
        [], [vi("y", FLOAT, None)], [i64("shape", [10**12])]))


@case("eyelike_huge", ("eye_big", "eye_in"))
def eyelike_huge(p):
    """EyeLike of a 10^5 x 10^5 input (10^10 elements, folded at import in
    issue 16). The input is as big, so blaming it is right too."""
    return p.save(model(
        [node("EyeLike", ["eye_in"], ["y"], "eye_big")],
        [vi("eye_in", FLOAT, [10**5, 10**5])],
        [vi("y", FLOAT, [10**5, 10**5])]))


@case("dropout_mask_huge", ("drop_big", "drop_in"))
def dropout_mask_huge(p):
    """Dropout with a mask output over 10^12 elements."""
    return p.save(model(
        [node("Dropout", ["drop_in"], ["y", "mask"], "drop_big")],
        [vi("drop_in", FLOAT, [10**6, 10**6])],
        [vi("y", FLOAT, [10**6, 10**6]),
         vi("mask", BOOL, [10**6, 10**6])]))


def _resize(p, name, scales=None, sizes=None):
    x = vi("x", FLOAT, [1, 1, 2, 2])
    inits = []
    inputs = ["x", ""]
    if scales is not None:
        inits.append(f32("scales", scales))
        inputs.append("scales")
    else:
        inits.append(i64("sizes", sizes))
        inputs += ["", "sizes"]
    return p.save(model([node("Resize", inputs, ["y"], name, mode="nearest")],
                        [x], [vi("y", FLOAT, None)], inits))


@case("resize_scale_1e9", "resize_1e9")
def resize_scale_1e9(p):
    """Resize by 10^9 on both spatial axes: 4e18 elements."""
    return _resize(p, "resize_1e9", scales=[1, 1, 1e9, 1e9])


@case("resize_scale_nan", "resize_nan")
def resize_scale_nan(p):
    """Resize with NaN scales: NaN converted to an integer size (and three
    lines of error in issue 16)."""
    return _resize(p, "resize_nan", scales=[1, 1, np.nan, np.nan])


@case("resize_scale_inf", "resize_inf")
def resize_scale_inf(p):
    """Resize with infinite scales."""
    return _resize(p, "resize_inf", scales=[1, 1, np.inf, np.inf])


@case("resize_sizes_negative", "resize_neg")
def resize_sizes_negative(p):
    """Resize to sizes [1, 1, -4, -4]."""
    return _resize(p, "resize_neg", sizes=[1, 1, -4, -4])


@case("initializer_2p31_no_data", "init_2p31")
def initializer_2p31_no_data(p):
    """An initializer declaring 2^31 floats and holding none: allocating
    8 GiB before checking the data aborts."""
    t = TensorProto()
    t.name = "init_2p31"
    t.data_type = FLOAT
    t.dims.append(2**31)
    return p.save(model(
        [node("ReduceSum", ["init_2p31"], ["y"], "sum", keepdims=0)],
        [], [vi("y", FLOAT, [])], [t]))


@case("constant_2p31_one_value", "const_lies")
def constant_2p31_one_value(p):
    """A Constant declaring 2^31 floats with one float_data value."""
    t = TensorProto()
    t.name = "const_lies"
    t.data_type = FLOAT
    t.dims.append(2**31)
    t.float_data.append(1.0)
    return p.save(model(
        [node("Constant", [], ["c"], "const_lies_node", value=t),
         node("ReduceSum", ["c"], ["y"], "sum", keepdims=0)],
        [], [vi("y", FLOAT, [])]))


@case("tensor_float_and_raw_data", "both_data")
def tensor_float_and_raw_data(p):
    """An initializer with both float_data and raw_data (which one is
    meant?)."""
    t = f32("both_data", [1, 2, 3, 4])  # raw_data
    t.float_data.extend([5, 6, 7, 8])
    return p.save(model(
        [node("Add", ["x", "both_data"], ["y"], "add")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])],
        [t]))


@case("initializer_negative_dim", "init_negdim")
def initializer_negative_dim(p):
    """An initializer with dimension -4."""
    t = TensorProto()
    t.name = "init_negdim"
    t.data_type = FLOAT
    t.dims.append(-4)
    return p.save(model(
        [node("Add", ["x", "init_negdim"], ["y"], "add")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])],
        [t]))


# Absent inputs and outputs (empty names) where the op needs them, and
# nodes with too few inputs or too many outputs for their op's schema.


@case("conv_empty_x", "conv_nox")
def conv_empty_x(p):
    """Conv with X given as ''."""
    return p.save(model(
        [node("Conv", ["", "w"], ["y"], "conv_nox")],
        [vi("x", FLOAT, [1, 1, 4, 4])],
        [vi("y", FLOAT, None)],
        [f32("w", np.ones((1, 1, 3, 3)))]))


@case("gemm_empty_b", "gemm_nob")
def gemm_empty_b(p):
    """Gemm with B given as ''."""
    return p.save(model(
        [node("Gemm", ["a", ""], ["y"], "gemm_nob")],
        [vi("a", FLOAT, [2, 2])], [vi("y", FLOAT, None)]))


@case("lstm_empty_w", "lstm_now")
def lstm_empty_w(p):
    """LSTM with W given as ''."""
    return p.save(model(
        [node("LSTM", ["x", "", "r"], ["y"], "lstm_now", hidden_size=4)],
        [vi("x", FLOAT, [2, 1, 3])],
        [vi("y", FLOAT, None)],
        [f32("r", np.zeros((1, 16, 4)))]))


@case("clip_empty_input", "clip_nox")
def clip_empty_input(p):
    """Clip with its input given as '' (min and max present)."""
    return p.save(model(
        [node("Clip", ["", "lo", "hi"], ["y"], "clip_nox")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)],
        [f32("lo", 0.0), f32("hi", 1.0)]))


@case("pad_empty_pads", "pad_nopads")
def pad_empty_pads(p):
    """Pad (opset 17) with the required pads given as ''."""
    return p.save(model(
        [node("Pad", ["x", ""], ["y"], "pad_nopads")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)]))


@case("resize_no_scales_no_sizes", "resize_none")
def resize_no_scales_no_sizes(p):
    """Resize with roi, scales and sizes all ''."""
    return p.save(model(
        [node("Resize", ["x", "", "", ""], ["y"], "resize_none")],
        [vi("x", FLOAT, [1, 1, 2, 2])],
        [vi("y", FLOAT, None)]))


@case("slice_empty_starts", "slice_nostarts")
def slice_empty_starts(p):
    """Slice with the required starts given as ''."""
    return p.save(model(
        [node("Slice", ["x", "", "ends"], ["y"], "slice_nostarts")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, None)],
        [i64("ends", [2])]))


@case("add_one_input", "add_one")
def add_one_input(p):
    """Add with one input: fewer than its schema's minimum of two."""
    return p.save(model(
        [node("Add", ["x"], ["y"], "add_one")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])]))


@case("relu_two_outputs", "relu_two")
def relu_two_outputs(p):
    """Relu with two outputs; the op has one."""
    return p.save(model(
        [node("Relu", ["x"], ["y", "y_extra"], "relu_two")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])]))


@case("dropout_empty_output", "dropout_noout")
def dropout_empty_output(p):
    """Dropout whose required output is '' and only the mask is used."""
    return p.save(model(
        [node("Dropout", ["x"], ["", "mask"], "dropout_noout")],
        [vi("x", FLOAT, [4])], [vi("mask", BOOL, [4])]))


@case("rnn_sequence_1e12", ("rnn_long", "rnn_x"))
def rnn_sequence_1e12(p):
    """RNN over a sequence of 10^12 steps (unrolled without bound in issue
    16). X is as long, so blaming the input is right too."""
    return p.save(model(
        [node("RNN", ["rnn_x", "w", "r"], ["", "y_h"], "rnn_long",
              hidden_size=1)],
        [vi("rnn_x", FLOAT, [10**12, 1, 1])],
        [vi("y_h", FLOAT, [1, 1, 1])],
        [f32("w", np.ones((1, 1, 1))), f32("r", np.ones((1, 1, 1)))]))


# --- subgraphs (If, Scan: issue 19 item 4) -------------------------------


def _nested_ifs(depth):
    """`depth` Ifs, each the then branch of the one outside it."""
    inner = helper.make_graph(
        [node("Relu", ["x"], ["r"], "relu")], "leaf", [],
        [vi("r", FLOAT, [2])])
    for level in range(depth):
        outer_out = f"o{level}"
        branch = helper.make_graph(
            [node("If", ["c"], [outer_out], f"if{level}",
                  then_branch=inner, else_branch=inner)],
            f"level{level}", [], [vi(outer_out, FLOAT, [2])])
        inner = branch
    return inner


@case("if_nested_too_deep", "subgraphs nest deeper than 8")
def if_nested_too_deep(p):
    """Ifs nested 12 deep: the importer bounds the nesting (each level
    would import its branches again)."""
    body = _nested_ifs(12)
    return p.save(model(
        [node("If", ["c"], ["y"], "outer", then_branch=body,
              else_branch=body)],
        [vi("c", BOOL, []), vi("x", FLOAT, [2])], [vi("y", FLOAT, [2])]))


@case("scan_unrolled_past_budget", ("converts more than", "scan_big"),
      "bounded")
def scan_unrolled_past_budget(p):
    """A Scan of 4096 steps whose body holds 300 nodes: 1.2 million node
    conversions unrolled, past the importer's budget of 2^20."""
    nodes = [node("Add", ["s", "v"], ["t0"], "n0")]
    for k in range(1, 300):
        nodes.append(node("Relu", [f"t{k - 1}"], [f"t{k}"], f"n{k}"))
    body = helper.make_graph(
        nodes, "body", [vi("s", FLOAT, [1]), vi("v", FLOAT, [1])],
        [vi("t299", FLOAT, [1])])
    return p.save(model(
        [node("Scan", ["init", "xs"], ["final"], "scan_big", body=body,
              num_scan_inputs=1)],
        [vi("init", FLOAT, [1]), vi("xs", FLOAT, [4096, 1])],
        [vi("final", FLOAT, [1])]))


@case("loop_trip_count_1e12", "loop_long")
def loop_trip_count_1e12(p):
    """A Loop of 10^12 steps given as a constant: the importer unrolls at
    most 4096, the runtime repeats at most 2^20 per call."""
    body = helper.make_graph(
        [node("Identity", ["c_in"], ["c_out"], "keep"),
         node("Relu", ["v_in"], ["v_out"], "relu")], "body",
        [vi("i", INT64, []), vi("c_in", BOOL, []), vi("v_in", FLOAT, [2])],
        [vi("c_out", BOOL, []), vi("v_out", FLOAT, [2])])
    return p.save(model(
        [node("Loop", ["trips", "", "x"], ["y"], "loop_long", body=body)],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, [2])],
        [i64("trips", 10**12)]))


@case("if_branch_misfit", "branches giving float[2] and float[1x2]")
def if_branch_misfit(p):
    """If on a condition given at call time whose branches give outputs of
    different ranks: one branch runs per call (two loops of at most one
    step), but their outputs need one element type and rank."""
    then_body = helper.make_graph(
        [node("Relu", ["x"], ["a"], "relu")], "then", [],
        [vi("a", FLOAT, [2])])
    else_body = helper.make_graph(
        [node("Constant", [], ["b"], "k",
              value=helper.make_tensor("k", FLOAT, [1, 2], [1.0, 2.0]))],
        "else", [], [vi("b", FLOAT, [1, 2])])
    return p.save(model(
        [node("If", ["c"], ["y"], "if_misfit", then_branch=then_body,
              else_branch=else_body)],
        [vi("c", BOOL, []), vi("x", FLOAT, [2])], [vi("y", FLOAT, None)]))


# --- nonsense accepted (issue 16, Found 3) ------------------------------


def _identity_input(p, name, dims):
    return p.save(model(
        [node("Relu", [name], ["y"], "relu")],
        [vi(name, FLOAT, dims)], [vi("y", FLOAT, dims)]))


@case("input_2p40_squared", "huge_in")
def input_2p40_squared(p):
    """A graph input of 2^40 x 2^40 elements."""
    return _identity_input(p, "huge_in", [2**40, 2**40])


@case("input_elements_wrap_0", "wrap0_in")
def input_elements_wrap_0(p):
    """A graph input [2^32, 2^32]: its element count wraps to 0."""
    return _identity_input(p, "wrap0_in", [2**32, 2**32])


@case("input_elements_wrap_4", "wrap4_in")
def input_elements_wrap_4(p):
    """A graph input [2^62+1, 4]: its element count wraps to 4."""
    return _identity_input(p, "wrap4_in", [2**62 + 1, 4])


@case("input_rank_64", "rank64_in")
def input_rank_64(p):
    """A rank-64 input: compiles, but the runtime refuses ranks above 16
    (issue 16 asks to refuse at compile time; if rank 64 becomes supported
    instead, turn this case into a valid one)."""
    return _identity_input(p, "rank64_in", [1] * 64)


@case("input_rank_1000", "rank1000_in")
def input_rank_1000(p):
    """A rank-1000 input (ran past 120 s in issue 16)."""
    return _identity_input(p, "rank1000_in", [1] * 1000)


@case("concat_overflow", ("concat_big", "cat_a"))
def concat_overflow(p):
    """Concat of two [2^62] inputs: 2^63 overflows. The inputs are huge
    themselves, so blaming the first is right too."""
    return p.save(model(
        [node("Concat", ["cat_a", "cat_b"], ["y"], "concat_big", axis=0)],
        [vi("cat_a", FLOAT, [2**62]),
         vi("cat_b", FLOAT, [2**62])],
        [vi("y", FLOAT, None)]))


@case("expand_overflow", "expand_big")
def expand_overflow(p):
    """Expand of one element to [2^62, 8]."""
    return p.save(model(
        [node("Expand", ["x", "shape"], ["y"], "expand_big")],
        [vi("x", FLOAT, [1])], [vi("y", FLOAT, None)],
        [i64("shape", [2**62, 8])]))


@case("expand_negative", "expand_neg")
def expand_negative(p):
    """Expand to shape [-5]."""
    return p.save(model(
        [node("Expand", ["x", "shape"], ["y"], "expand_neg")],
        [vi("x", FLOAT, [1])], [vi("y", FLOAT, None)],
        [i64("shape", [-5])]))


@case("pad_overflow", "pad_big")
def pad_overflow(p):
    """Pad of 2 elements by INT64_MAX at the end."""
    return p.save(model(
        [node("Pad", ["x", "pads"], ["y"], "pad_big")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [i64("pads", [0, INT64_MAX])]))


@case("pad_negative_size", "pad_neg")
def pad_negative_size(p):
    """Pad of 2 elements by -5 at the start: a negative size."""
    return p.save(model(
        [node("Pad", ["x", "pads"], ["y"], "pad_neg")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [i64("pads", [-5, 0])]))


@case("tile_overflow", "tile_big")
def tile_overflow(p):
    """Tile of 2 elements INT64_MAX times."""
    return p.save(model(
        [node("Tile", ["x", "repeats"], ["y"], "tile_big")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [i64("repeats", [INT64_MAX])]))


@case("tile_negative", "tile_neg")
def tile_negative(p):
    """Tile with repeats -1."""
    return p.save(model(
        [node("Tile", ["x", "repeats"], ["y"], "tile_neg")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [i64("repeats", [-1])]))


@case("tile_constant_overflow", "tile_const_big")
def tile_constant_overflow(p):
    """Tile of a constant of 2 elements INT64_MAX times: the import-time
    folder leaves it (its size overflows) and the converter refuses it."""
    return p.save(model(
        [node("Tile", ["c", "repeats"], ["t"], "tile_const_big"),
         node("Add", ["x", "t"], ["y"], "add")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [f32("c", np.ones(2)), i64("repeats", [INT64_MAX])]))


@case("tile_constant_huge", "tile_const_huge")
def tile_constant_huge(p):
    """Tile of a constant [2, 2] by 2^20 x 2^20 (2^42 elements): too big to
    fold and to make; refused in one line."""
    return p.save(model(
        [node("Tile", ["c", "repeats"], ["y"], "tile_const_huge")],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, None)],
        [f32("c", np.ones((2, 2))), i64("repeats", [1 << 20, 1 << 20])]))


@case("reduce_constant_bad_axis", "reduce_const_axis")
def reduce_constant_bad_axis(p):
    """ReduceMax of a constant [2, 3] over axis 5, folded at import: the
    axis is refused in one line, not read out of range."""
    return p.save(model(
        [node("ReduceMax", ["c"], ["m"], "reduce_const_axis", axes=[5]),
         node("Add", ["x", "m"], ["y"], "add")],
        [vi("x", FLOAT, [2, 1])], [vi("y", FLOAT, None)],
        [f32("c", np.ones((2, 3)))], opset=13))


@case("reduce_shape_bad_axis", "reduce_shape_axis")
def reduce_shape_bad_axis(p):
    """ReduceMin over axis 3 of the shape of a dynamic-batch input (a shape
    value, reduced on the host at import): refused in one line."""
    return p.save(model(
        [node("Shape", ["x"], ["s"], "shape"),
         node("ReduceMin", ["s"], ["y"], "reduce_shape_axis", axes=[3])],
        [vi("x", FLOAT, ["batch", 3])], [vi("y", INT64, None)],
        opset=13))


def _conv(p, name, **attrs):
    return p.save(model(
        [node("Conv", ["x", "w"], ["y"], name, **attrs)],
        [vi("x", FLOAT, [1, 1, 4, 4])],
        [vi("y", FLOAT, None)], [f32("w", np.ones((1, 1, 3, 3)))]))


@case("conv_pads_int64_max", "conv_pads")
def conv_pads_int64_max(p):
    """Conv with pads of INT64_MAX."""
    return _conv(p, "conv_pads", pads=[INT64_MAX] * 4)


@case("conv_strides_int64_max", "conv_strides")
def conv_strides_int64_max(p):
    """Conv with strides of INT64_MAX (issue 16 lists it as nonsense the
    importer accepts)."""
    return _conv(p, "conv_strides", strides=[INT64_MAX] * 2)


@case("conv_dilations_int64_max", "conv_dilations")
def conv_dilations_int64_max(p):
    """Conv with dilations of INT64_MAX: the dilated kernel overflows."""
    return _conv(p, "conv_dilations", dilations=[INT64_MAX] * 2)


@case("gather_index_out_of_range", "gather_oob")
def gather_index_out_of_range(p):
    """Gather of a [3, 4] input at constant index 5 on axis 0."""
    return p.save(model(
        [node("Gather", ["x", "idx"], ["y"], "gather_oob", axis=0)],
        [vi("x", FLOAT, [3, 4])], [vi("y", FLOAT, None)],
        [i64("idx", [5])]))


@case("gather_index_negative_out_of_range", "gather_oob_neg")
def gather_index_negative_out_of_range(p):
    """Gather of a [3, 4] input at constant index -4 on axis 0."""
    return p.save(model(
        [node("Gather", ["x", "idx"], ["y"], "gather_oob_neg", axis=0)],
        [vi("x", FLOAT, [3, 4])], [vi("y", FLOAT, None)],
        [i64("idx", [-4])]))


@case("gather_elements_index_out_of_range", "gather_elements_oob")
def gather_elements_index_out_of_range(p):
    """GatherElements of a [2, 2] input with constant index 7 on axis 1."""
    return p.save(model(
        [node("GatherElements", ["x", "idx"], ["y"], "gather_elements_oob",
              axis=1)],
        [vi("x", FLOAT, [2, 2])], [vi("y", FLOAT, None)],
        [i64("idx", [[0, 7], [1, 0]])]))


@case("scatternd_constant_index_out_of_range", "scatternd_oob")
def scatternd_constant_index_out_of_range(p):
    """ScatterND of constants (evaluated at import) writing row 9 of a
    [4, 3] tensor."""
    return p.save(model(
        [node("ScatterND", ["data", "idx", "upd"], ["y"], "scatternd_oob")],
        [], [vi("y", FLOAT, None)],
        [f32("data", np.zeros((4, 3))), i64("idx", [[1], [9]]),
         f32("upd", np.ones((2, 3)))]))


@case("scatter_elements_constant_index_out_of_range", "scatter_elements_oob")
def scatter_elements_constant_index_out_of_range(p):
    """ScatterElements of constants (evaluated at import) at index -5 of an
    axis of 4."""
    return p.save(model(
        [node("ScatterElements", ["data", "idx", "upd"], ["y"],
              "scatter_elements_oob", axis=1)],
        [], [vi("y", FLOAT, None)],
        [f32("data", np.zeros((2, 4))), i64("idx", [[0, -5]]),
         f32("upd", [[1, 2]])]))


def _range(p, name, start, limit, delta, dtype=np.float32):
    elem = (INT64 if dtype == np.int64 else FLOAT)
    return p.save(model(
        [node("Range", ["start", "limit", "delta"], ["y"], name)],
        [], [vi("y", elem, None)],
        [numpy_helper.from_array(np.array(v, dtype), n)
         for n, v in (("start", start), ("limit", limit), ("delta", delta))]))


@case("range_nan_delta", "range_nan")
def range_nan_delta(p):
    """Range(0, 10, NaN)."""
    return _range(p, "range_nan", 0, 10, np.nan)


@case("range_zero_delta", "range_zero")
def range_zero_delta(p):
    """Range(0, 10, 0): infinitely many elements."""
    return _range(p, "range_zero", 0, 10, 0)


@case("range_huge", "range_huge")
def range_huge(p):
    """Range(0, 1e30, 1): 10^30 elements, past int64."""
    return _range(p, "range_huge", 0, 1e30, 1)


@case("range_int64_overflow", "range_int")
def range_int64_overflow(p):
    """Range(INT64_MIN, INT64_MAX, 1) in int64: limit - start overflows."""
    return _range(p, "range_int", INT64_MIN, INT64_MAX, 1, np.int64)


@case("depth_to_space_overflow", "d2s_big")
def depth_to_space_overflow(p):
    """DepthToSpace with blocksize 2^32: blocksize^2 wraps to 0 (a division
    by zero)."""
    return p.save(model(
        [node("DepthToSpace", ["x"], ["y"], "d2s_big", blocksize=2**32)],
        [vi("x", FLOAT, [1, 4, 2, 2])],
        [vi("y", FLOAT, None)]))


@case("space_to_depth_overflow", "s2d_big")
def space_to_depth_overflow(p):
    """SpaceToDepth with blocksize 2^32."""
    return p.save(model(
        [node("SpaceToDepth", ["x"], ["y"], "s2d_big", blocksize=2**32)],
        [vi("x", FLOAT, [1, 1, 2, 2])],
        [vi("y", FLOAT, None)]))


@case("reduce_axis_int64_min", "reduce_min_axis")
def reduce_axis_int64_min(p):
    """ReduceSum over constant axis INT64_MIN (negating it overflows)."""
    return p.save(model(
        [node("ReduceSum", ["x", "axes"], ["y"], "reduce_min_axis")],
        [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, None)],
        [i64("axes", [INT64_MIN])]))


@case("reduce_axis_int64_max", "reduce_max_axis")
def reduce_axis_int64_max(p):
    """ReduceMean (opset 17, axes attribute) over axis INT64_MAX."""
    return p.save(model(
        [node("ReduceMean", ["x"], ["y"], "reduce_max_axis",
              axes=[INT64_MAX])],
        [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, None)]))


# Graph structure.


@case("duplicate_producers", "dup_y")
def duplicate_producers(p):
    """Two nodes produce 'dup_y'."""
    return p.save(model(
        [node("Relu", ["x"], ["dup_y"], "dup_1"),
         node("Neg", ["x"], ["dup_y"], "dup_2")],
        [vi("x", FLOAT, [4])], [vi("dup_y", FLOAT, [4])]))


@case("node_output_is_graph_input", "x_over")
def node_output_is_graph_input(p):
    """A node produces 'x_over', which is also a graph input."""
    return p.save(model(
        [node("Relu", ["a"], ["x_over"], "relu")],
        [vi("a", FLOAT, [4]), vi("x_over", FLOAT, [4])],
        [vi("x_over", FLOAT, [4])]))


@case("node_output_is_initializer", "init_prod")
def node_output_is_initializer(p):
    """A node produces 'init_prod', which is also an initializer."""
    return p.save(model(
        [node("Relu", ["x"], ["init_prod"], "relu")],
        [vi("x", FLOAT, [4])],
        [vi("init_prod", FLOAT, [4])],
        [f32("init_prod", [1, 2, 3, 4])]))


@case("duplicate_initializers", "w_dup")
def duplicate_initializers(p):
    """Two initializers named 'w_dup' with different values."""
    return p.save(model(
        [node("Add", ["x", "w_dup"], ["y"], "add")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])],
        [f32("w_dup", [1, 2, 3, 4]), f32("w_dup", [5, 6, 7, 8])]))


@case("duplicate_graph_inputs", "dup_in")
def duplicate_graph_inputs(p):
    """Two graph inputs named 'dup_in'."""
    return p.save(model(
        [node("Relu", ["dup_in"], ["y"], "relu")],
        [vi("dup_in", FLOAT, [4]),
         vi("dup_in", FLOAT, [4])],
        [vi("y", FLOAT, [4])]))


@case("initializer_input_shape_mismatch", "w_shared")
def initializer_input_shape_mismatch(p):
    """An initializer [4] also listed as a graph input of shape [3]. (Listed
    with the same type it is legitimate: valid_initializer_listed_as_input.)"""
    return p.save(model(
        [node("Add", ["x", "w_shared"], ["y"], "add")],
        [vi("x", FLOAT, [4]), vi("w_shared", FLOAT, [3])],
        [vi("y", FLOAT, [4])], [f32("w_shared", [1, 2, 3, 4])]))


@case("initializer_input_dtype_mismatch", "w_typed")
def initializer_input_dtype_mismatch(p):
    """A float initializer also listed as an int64 graph input."""
    return p.save(model(
        [node("Add", ["x", "w_typed"], ["y"], "add")],
        [vi("x", FLOAT, [4]), vi("w_typed", INT64, [4])],
        [vi("y", FLOAT, [4])], [f32("w_typed", [1, 2, 3, 4])]))


@case("undeclared_input", "nowhere")
def undeclared_input(p):
    """A node reads 'nowhere', which nothing produces."""
    return p.save(model(
        [node("Add", ["x", "nowhere"], ["y"], "add")],
        [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])]))


@case("undeclared_output", "ghost_out")
def undeclared_output(p):
    """A graph output 'ghost_out' that nothing produces."""
    return p.save(model(
        [node("Relu", ["x"], ["y"], "relu")],
        [vi("x", FLOAT, [4])],
        [vi("y", FLOAT, [4]), vi("ghost_out", FLOAT, [4])]))


@case("cycle", ("cyc_a", "cyc_b"))
def cycle(p):
    """Two nodes each reading the other's output."""
    return p.save(model(
        [node("Add", ["x", "cyc_b"], ["cyc_a"], "cyc_add"),
         node("Relu", ["cyc_a"], ["cyc_b"], "cyc_relu")],
        [vi("x", FLOAT, [4])], [vi("cyc_b", FLOAT, [4])]))


def _opset_model(p, opset):
    m = model([node("Relu", ["x"], ["y"], "relu")],
              [vi("x", FLOAT, [4])],
              [vi("y", FLOAT, [4])])
    del m.opset_import[:]
    if opset is not None:
        m.opset_import.append(helper.make_opsetid("", opset))
    return p.save(m)


@case("opset_1", "opset")
def opset_1(p):
    """Default-domain opset 1 (Kiln imports 7 to 21)."""
    return _opset_model(p, 1)


@case("opset_99", "opset")
def opset_99(p):
    """Default-domain opset 99."""
    return _opset_model(p, 99)


@case("opset_negative", "opset")
def opset_negative(p):
    """Default-domain opset -1."""
    return _opset_model(p, -1)


@case("opset_none", "opset")
def opset_none(p):
    """No opset_import at all, in an IR version 8 model (only IR 1 and 2
    files may omit it)."""
    return _opset_model(p, None)


# The model path itself is a FIFO nobody writes to: opening it to sniff the
# format blocks forever (kiln-compile in issue 16).


@case("fifo_model", "fifo.onnx", timeout=FIFO_TIMEOUT)
def fifo_model(p):
    """The model path is a FIFO named fifo.onnx."""
    path = os.path.join(p.model_dir, "fifo.onnx")
    try:
        os.mkfifo(path)
    except OSError as e:
        raise Unsupported(f"cannot make a FIFO: {e}")
    return path


@case("fifo_model_no_extension", "fifo_model", timeout=FIFO_TIMEOUT)
def fifo_model_no_extension(p):
    """The model path is a FIFO without the .onnx extension, so kiln-compile
    must sniff its format without blocking."""
    path = os.path.join(p.model_dir, "fifo_model")
    try:
        os.mkfifo(path)
    except OSError as e:
        raise Unsupported(f"cannot make a FIFO: {e}")
    return path


# --- valid models that must keep working (issue 16, Found 4, 5, 6) ------


def _io_small_matmul():
    x = np.array([[1, 2]], np.float32)
    w = np.array([[1, -1], [2, 0.5]], np.float32)
    return [x], [np.maximum(x @ w, 0)]


@case("valid_small_matmul", None, "valid", io=_io_small_matmul)
def valid_small_matmul(p):
    """The README's MatMul + Relu with a static batch: proves the memory
    limit the suite runs the tools under leaves room for a real compile."""
    return p.save(model(
        [node("MatMul", ["x", "w"], ["xw"], "mm"),
         node("Relu", ["xw"], ["y"], "relu")],
        [vi("x", FLOAT, [1, 2])], [vi("y", FLOAT, [1, 2])],
        [f32("w", [[1, -1], [2, 0.5]])]))


def _io_gather_scalar():
    x = np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5 - 2
    return [x], [x[:, 0]]


@case("valid_gather_scalar_index", None, "valid", io=_io_gather_scalar)
def valid_gather_scalar_index(p):
    """x[:, 0] as exporters write it: Gather of run-time data on axis 1 with
    a constant scalar index (failed to compile in issue 16)."""
    return p.save(model(
        [node("Constant", [], ["idx"], "idx", value=i64("zero", 0)),
         node("Gather", ["x", "idx"], ["y"], "gather", axis=1)],
        [vi("x", FLOAT, [3, 4])], [vi("y", FLOAT, [3])]))


def _slice_model(p, start, end, step):
    return p.save(model(
        [node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"],
              "slice")],
        [vi("x", FLOAT, [5])], [vi("y", FLOAT, [1])],
        [i64("starts", [start]), i64("ends", [end]), i64("axes", [0]),
         i64("steps", [step])]))


def _io_slice(start, end, step):
    def io():
        x = np.array([10, 20, 30, 40, 50], np.float32)
        # numpy slices with the same clamping rules as ONNX.
        return [x], [x[start:end:step]]

    return io


@case("valid_slice_step_int64_max", None, "valid",
      io=_io_slice(0, INT64_MAX, INT64_MAX))
def valid_slice_step_int64_max(p):
    """Slice [0 : INT64_MAX : INT64_MAX] of 5 elements is the first element
    (returned no elements in issue 16)."""
    return _slice_model(p, 0, INT64_MAX, INT64_MAX)


@case("valid_slice_step_int64_min", None, "valid",
      io=_io_slice(-1, INT64_MIN, INT64_MIN))
def valid_slice_step_int64_min(p):
    """Slice [-1 : INT64_MIN : INT64_MIN] of 5 elements is the last
    element."""
    return _slice_model(p, -1, INT64_MIN, INT64_MIN)


def _io_shared():
    x = np.array([0.5, -1, 2, 7], np.float32)
    return [x], [x + np.array([1, 2, 3, 4], np.float32)]


@case("valid_initializer_listed_as_input", None, "valid", io=_io_shared)
def valid_initializer_listed_as_input(p):
    """An initializer also listed as a graph input with the same type, as
    older exporters write them: the initializer is the value, and the module
    takes x alone."""
    return p.save(model(
        [node("Add", ["x", "w_listed"], ["y"], "add")],
        [vi("x", FLOAT, [4]), vi("w_listed", FLOAT, [4])],
        [vi("y", FLOAT, [4])], [f32("w_listed", [1, 2, 3, 4])]))


def _bf16_round(x):
    """float32 -> bfloat16 -> float32 with round-to-nearest-even, as ONNX's
    Cast does."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def _io_bf16():
    x = np.array([1.0, -2.5, 3.14159, 1e-3, 65504.0, -0.1, 1.00390625, 7e10],
                 np.float32)
    return [x], [_bf16_round(x)]


@case("valid_cast_bf16_roundtrip", None, "valid", io=_io_bf16)
def valid_cast_bf16_roundtrip(p):
    """f32 -> bf16 -> f32: in issue 16 the module compiled for the CPU but
    failed to load ("cannot load image"); every module written must load."""
    return p.save(model(
        [node("Cast", ["x"], ["h"], "to_bf16", to=BFLOAT16),
         node("Cast", ["h"], ["y"], "to_f32", to=FLOAT)],
        [vi("x", FLOAT, [8])], [vi("y", FLOAT, [8])]))


CHAIN_LENGTH = 10_000


def _io_chain():
    x = np.array([1, 2, -3, 0.5], np.float32)
    # Small integers and halves: every partial sum is exact in float32.
    return [x], [x * (CHAIN_LENGTH + 1)]


@case("valid_chain_add_10000", None, "valid", timeout=120, io=_io_chain)
def valid_chain_add_10000(p):
    """A chain of 10,000 Add nodes, each adding x to the previous sum (did
    not compile within 120 s in issue 16). The runner prints the time."""
    nodes = []
    prev = "x"
    for i in range(CHAIN_LENGTH):
        out = "y" if i == CHAIN_LENGTH - 1 else f"s{i}"
        nodes.append(node("Add", [prev, "x"], [out], f"add{i}"))
        prev = out
    return p.save(model(nodes, [vi("x", FLOAT, [4])],
                        [vi("y", FLOAT, [4])]))


# Data-dependent counts (issue 19 item 4): kernels compare every box or
# slice with every other, so their counts are bounded at import.


@case("nms_many_boxes", "nms_big")
def nms_many_boxes(p):
    """NonMaxSuppression over 100000 boxes of one class: decided by
    rounds over overlap masks of boxes squared over 8 bytes, so refused past
    1 GiB of them."""
    return p.save(model(
        [node("NonMaxSuppression", ["boxes", "scores"], ["y"], "nms_big")],
        [vi("boxes", FLOAT, [1, 100000, 4]),
         vi("scores", FLOAT, [1, 1, 100000])],
        [vi("y", INT64, None)]))


@case("unique_many", "unique_big")
def unique_many(p):
    """Unique over 2^20 elements: every element compared with every
    other."""
    return p.save(model(
        [node("Unique", ["x"], ["y"], "unique_big")],
        [vi("x", FLOAT, [1 << 20])], [vi("y", FLOAT, None)]))


@case("nonzero_computed_large", "nz_big")
def nonzero_computed_large(p):
    """NonZero of a computed condition of 2^20 elements (each output
    element scans the condition)."""
    return p.save(model(
        [node("Relu", ["x"], ["r"], "relu"),
         node("Cast", ["r"], ["c"], "to_bool", to=BOOL),
         node("NonZero", ["c"], ["y"], "nz_big")],
        [vi("x", FLOAT, [1 << 20])], [vi("y", INT64, None)]))


@case("bounded_nms_at_limit", None, "bounded")
def bounded_nms_at_limit(p):
    """NonMaxSuppression at its limits: 80 classes of 512 boxes (1536
    step dispatches)."""
    return p.save(model(
        [node("NonMaxSuppression", ["boxes", "scores", "limit"], ["y"],
              "nms")],
        [vi("boxes", FLOAT, [1, 512, 4]), vi("scores", FLOAT, [1, 80, 512])],
        [vi("y", INT64, None)], [i64("limit", [100])]))


# Valid but large: host-side tables built for them were slow in issue 16.
# Any clean outcome passes (exit 0 with a module, or a one-line exit-1
# error, e.g. a size limit); a signal, the memory limit or the timeout fails.


@case("bounded_avgpool_large", None, "bounded")
def bounded_avgpool_large(p):
    """AveragePool 3x3, pads 1, count_include_pad 0, over 1x1x2048x2048:
    a per-position count table of 4M entries."""
    return p.save(model(
        [node("AveragePool", ["x"], ["y"], "pool", kernel_shape=[3, 3],
              pads=[1, 1, 1, 1], count_include_pad=0)],
        [vi("x", FLOAT, [1, 1, 2048, 2048])],
        [vi("y", FLOAT, [1, 1, 2048, 2048])]))


@case("bounded_resize_large", None, "bounded")
def bounded_resize_large(p):
    """Linear Resize of 1x1x256x256 to 1x1x4096x4096: 16M output taps."""
    return p.save(model(
        [node("Resize", ["x", "", "", "sizes"], ["y"], "resize",
              mode="linear")],
        [vi("x", FLOAT, [1, 1, 256, 256])],
        [vi("y", FLOAT, [1, 1, 4096, 4096])],
        [i64("sizes", [1, 1, 4096, 4096])]))


@case("bounded_empty_initializer", None, "bounded")
def bounded_empty_initializer(p):
    """Concat of x with an initializer of 0 elements (a memcpy from a null
    pointer in issue 16's fuzz run)."""
    return p.save(model(
        [node("Concat", ["x", "empty"], ["y"], "cat", axis=0)],
        [vi("x", FLOAT, [2])], [vi("y", FLOAT, [2])],
        [f32("empty", np.zeros(0))]))


# --- command line --------------------------------------------------------


def expectText(expect: Expect, also: Sequence[str] = ()) -> str:
    if expect is None:
        return "-"
    if isinstance(expect, tuple):
        text = " or ".join(repr(e) for e in expect)
    else:
        text = repr(expect)
    return " and ".join([text] + [repr(a) for a in also])


def selected(pattern: Optional[str]) -> List[Case]:
    names = [c.name for c in CASES]
    dups = {n for n in names if names.count(n) > 1}
    assert not dups, f"duplicate case names: {sorted(dups)}"
    if not pattern:
        return list(CASES)
    return [c for c in CASES if re.search(pattern, c.name)]


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out_dir", nargs="?",
                    help="folder to build the cases in (one subfolder each)")
    ap.add_argument("--filter", help="regular expression on case names")
    ap.add_argument("--list", action="store_true",
                    help="print the cases and what they expect; build none")
    args = ap.parse_args(argv)
    cases = selected(args.filter)
    if args.list or not args.out_dir:
        for c in cases:
            print(f"{c.name}\t{c.kind}\t{expectText(c.expect, c.also)}\t"
                  f"{c.doc}")
        return 0
    for c in cases:
        place = Place(os.path.join(args.out_dir, c.name))
        try:
            path = c.build(place)
        except Unsupported as e:
            print(f"{c.name}: skipped: {e}")
            continue
        print(f"{c.name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
