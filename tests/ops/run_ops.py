#!/usr/bin/env python3
"""Compiles a sample program for every op Kiln accepts.

compiler/input/SupportedOps.def is the allowlist kiln-verify-input checks
against. This test reads the same file and, for every entry, builds a small
program that uses the op (from the entry's kind, or from a template of its
own for `custom` ops), compiles it with kiln-compile --target-device=cpu and
requires success: an op the input check accepts must never end in an
internal error. An entry without a sample fails the test, so the list and
the test cannot drift apart. Samples on an element type an op is excepted
on (KILN_OP_EXCEPT), and the templates kept for ops left off the list, must
be refused with an error naming the op. The ops the input phase lowers
itself (kiln-lower-input-ops) also run on a local driver against numpy.

Samples are compiled in batches (each kiln-compile run costs about 0.3 s);
when a batch fails, its ops are compiled one by one to name the culprits.
Prints one line per op and ends with `N passed, M failed`.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import sys
import tempfile
from typing import Callable, Dict, List, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import e2elib  # noqa: E402

DEF_FILE = os.path.join(ROOT, "compiler", "input", "SupportedOps.def")
ENTRY_RE = re.compile(r"^KILN_OP\((\w+), (\w+), (\w+)\)", re.M)
EXCEPT_RE = re.compile(r"^KILN_OP_EXCEPT\((\w+), (\w+), (\w+)\)", re.M)

FLOATS = ["f16", "bf16", "f32", "f64"]
INTS = ["i8", "i16", "i32", "i64"]
# Elementwise samples are 2-D, so code generators meet n-D vectors.
ID2 = "affine_map<(d0, d1) -> (d0, d1)>"

# A sample is (function name suffix, MLIR text of one func.func whose name
# is `@FN`); the name is filled in per op.
Sample = Tuple[str, str]


def readAllowlist() -> Tuple[List[Tuple[str, str]], Dict[str, List[str]]]:
    """(op name, kind) for every KILN_OP of SupportedOps.def, and the
    element types each op is rejected on (KILN_OP_EXCEPT)."""
    with open(DEF_FILE, encoding="utf-8") as f:
        text = f.read()
    excepted: Dict[str, List[str]] = {}
    for d, o, t in EXCEPT_RE.findall(text):
        excepted.setdefault(f"{d}.{o}", []).append(t)
    return [(f"{d}.{o}", k) for d, o, k in ENTRY_RE.findall(text)], excepted


def tensor(elem: str, shape: str = "2x8") -> str:
    return f"tensor<{shape}x{elem}>"


def elementwise(ins: List[str], out: str, expr, suffix: str) -> Sample:
    """An op used twice: on scalars in a linalg.generic body, and directly
    on tensors (which the input phase turns into a linalg.generic too); the
    function returns both results.

    `expr` is the op's text with `$i` for operand i, `@i` for its type,
    `@r` for the result type and `@name` for the type `name` (a scalar in
    the body, a tensor<2x8xname> on tensors); it defines `%r`. A pair gives
    the scalar and the tensor text separately."""
    scalarExpr, tensorExpr = expr if isinstance(expr, tuple) else (expr,
                                                                   expr)

    def fill(text: str, values: List[str], wrap: Callable[[str], str],
             result: str) -> str:
        def typeOf(m):
            key = m.group(1)
            if key == "r":
                return wrap(out)
            if key.isdigit():
                return wrap(ins[int(key)])
            return wrap(key)

        text = re.sub(r"\$(\d+)", lambda m: values[int(m.group(1))], text)
        text = re.sub(r"@(\w+)", typeOf, text)
        return text.replace("%r", result)

    args = ", ".join(f"%a{i}: {tensor(t)}" for i, t in enumerate(ins))
    argTypes = ", ".join(tensor(t) for t in ins)
    argNames = ", ".join(f"%a{i}" for i in range(len(ins)))
    blockArgs = ", ".join(f"%x{i}: {t}" for i, t in enumerate(ins))
    maps = ", ".join([ID2] * (len(ins) + 1))
    body = fill(scalarExpr, [f"%x{i}" for i in range(len(ins))], lambda t: t,
                "%r")
    onTensors = fill(tensorExpr, [f"%a{i}" for i in range(len(ins))], tensor,
                     "%t")
    outT = tensor(out)
    return suffix, f"""func.func @FN({args}) -> ({outT}, {outT}) {{
  %e = tensor.empty() : {outT}
  %g = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}} ins({argNames} : {argTypes}) outs(%e : {outT}) {{
  ^bb0({blockArgs}, %o: {out}):
    {body}
    linalg.yield %r : {out}
  }} -> {outT}
  {onTensors}
  return %g, %t : {outT}, {outT}
}}"""


def byTypes(types, arity: int, text: str) -> List[Sample]:
    """`text` (see elementwise) on `arity` operands of each of `types`."""
    return [elementwise([t] * arity, t, text, t) for t in types]


def conversions(pairs, op: str) -> List[Sample]:
    return [
        elementwise([a], b, f"%r = {op} $0 : @0 to @r", f"{a}_{b}")
        for a, b in pairs
    ]


def tosaElementwise(op: str, ins: List[str], out: str, suffix: str,
                    attrs: str = "") -> Sample:
    """A tosa op on 2x8 tensors; a second operand broadcasts from 1x8."""
    shapes = ["2x8"] + ["1x8"] * (len(ins) - 1)
    args = ", ".join(f"%a{i}: {tensor(t, s)}"
                     for i, (t, s) in enumerate(zip(ins, shapes)))
    types = ", ".join(tensor(t, s) for t, s in zip(ins, shapes))
    names = ", ".join(f"%a{i}" for i in range(len(ins)))
    outT = tensor(out, "2x8")
    return suffix, f"""func.func @FN({args}) -> {outT} {{
  %0 = {op} {names}{attrs} : ({types}) -> {outT}
  return %0 : {outT}
}}"""


def tosaReduce(op: str, types) -> List[Sample]:
    return [(t, f"""func.func @FN(%a: tensor<2x8x{t}>) -> (tensor<2x1x{t}>, tensor<1x8x{t}>) {{
  %0 = {op} %a {{axis = 1 : i32}} : (tensor<2x8x{t}>) -> tensor<2x1x{t}>
  %1 = {op} %a {{axis = 0 : i32}} : (tensor<2x8x{t}>) -> tensor<1x8x{t}>
  return %0, %1 : tensor<2x1x{t}>, tensor<1x8x{t}>
}}""") for t in types]


def linalgNamed(op: str, ins: List[str], out: str, suffix: str,
                attrs: str = "") -> Sample:
    """A linalg named op on 2x8 tensors."""
    args = ", ".join(f"%a{i}: {tensor(t, '2x8')}" for i, t in enumerate(ins))
    types = ", ".join(tensor(t, "2x8") for t in ins)
    names = ", ".join(f"%a{i}" for i in range(len(ins)))
    outT = tensor(out, "2x8")
    return suffix, f"""func.func @FN({args}) -> {outT} {{
  %e = tensor.empty() : {outT}
  %0 = {op}{attrs} ins({names} : {types}) outs(%e : {outT}) -> {outT}
  return %0 : {outT}
}}"""


KINDS: Dict[str, Callable[[str], List[Sample]]] = {
    "unary_float": lambda op: byTypes(FLOATS, 1, f"%r = {op} $0 : @0"),
    "binary_float": lambda op: byTypes(FLOATS, 2, f"%r = {op} $0, $1 : @0"),
    "ternary_float": lambda op: byTypes(FLOATS, 3,
                                        f"%r = {op} $0, $1, $2 : @0"),
    "float_class": lambda op: [
        elementwise([t], "i1", f"%r = {op} $0 : @0", t) for t in FLOATS
    ],
    "unary_int": lambda op: byTypes(INTS, 1, f"%r = {op} $0 : @0"),
    "binary_int": lambda op: byTypes(INTS, 2, f"%r = {op} $0, $1 : @0"),
    "extend_float": lambda op: conversions(
        [("f16", "f32"), ("bf16", "f32"), ("f32", "f64"), ("f16", "f64")],
        op),
    "truncate_float": lambda op: conversions(
        [("f32", "f16"), ("f32", "bf16"), ("f64", "f32"), ("f64", "f16")],
        op),
    "extend_int": lambda op: conversions(
        [("i1", "i32"), ("i8", "i32"), ("i16", "i64"), ("i32", "i64")], op),
    "truncate_int": lambda op: conversions(
        [("i32", "i1"), ("i32", "i8"), ("i64", "i16"), ("i64", "i32")], op),
    "int_to_float": lambda op: conversions(
        [("i32", "f32"), ("i8", "f16"), ("i64", "f64"), ("i32", "bf16"),
         ("i1", "f32")], op),
    "float_to_int": lambda op: conversions(
        [("f32", "i32"), ("f16", "i8"), ("f64", "i64"), ("bf16", "i32"),
         ("f32", "i1")], op),
    "tosa_unary_float": lambda op: [
        tosaElementwise(op, [t], t, t) for t in ["f32", "f16", "bf16", "f64"]
    ],
    "tosa_binary": lambda op: [
        tosaElementwise(op, [t, t], t, t)
        for t in ["f32", "f16", "bf16", "f64", "i32"]
    ],
    "tosa_binary_float": lambda op: [
        tosaElementwise(op, [t, t], t, t)
        for t in ["f32", "f16", "bf16", "f64"]
    ],
    "tosa_binary_int": lambda op: [
        tosaElementwise(op, [t, t], t, t) for t in ["i8", "i16", "i32"]
    ],
    "tosa_binary_i32": lambda op: [tosaElementwise(op, ["i32"] * 2, "i32",
                                                   "i32")],
    "tosa_unary_int": lambda op: [tosaElementwise(op, ["i32"], "i32", "i32")],
    "tosa_compare": lambda op: [
        tosaElementwise(op, [t, t], "i1", t) for t in ["f32", "f16", "i32"]
    ],
    "tosa_binary_bool": lambda op: [tosaElementwise(op, ["i1"] * 2, "i1",
                                                    "i1")],
    "tosa_unary_bool": lambda op: [tosaElementwise(op, ["i1"], "i1", "i1")],
    "tosa_reduce": lambda op: tosaReduce(op, ["f32", "f16", "i32"]),
    "tosa_reduce_bool": lambda op: tosaReduce(op, ["i1"]),
    "linalg_unary_float": lambda op: [
        linalgNamed(op, [t], t, t) for t in FLOATS
    ],
    "linalg_binary": lambda op: [
        linalgNamed(op, [t, t], t, t) for t in FLOATS + ["i32"]
    ],
    "linalg_binary_float": lambda op: [
        linalgNamed(op, [t, t], t, t) for t in FLOATS
    ],
}


def fn(text: str, suffix: str = "f32") -> List[Sample]:
    return [(suffix, text)]


def filled(out: str, elem: str = "f32") -> str:
    """Lines defining %init, a zero-filled tensor of type `out`."""
    zero = "0.0" if elem.startswith(("f", "bf")) else "0"
    return f"""  %zero = arith.constant {zero} : {elem}
  %empty = tensor.empty() : {out}
  %init = linalg.fill ins(%zero : {elem}) outs(%empty : {out}) -> {out}"""


def structured(op: str, ins: List[str], out: str, attrs: str = "",
               scalars: List[Tuple[str, str]] = (), elem: str = "f32",
               outElem: str = None) -> str:
    """`op` over function arguments `ins` (tensor types) and scalar
    constants `scalars` ((value, type)), accumulating into a zero fill."""
    outElem = outElem or elem
    outT = f"tensor<{out}x{outElem}>" if out else f"tensor<{outElem}>"
    inTs = [f"tensor<{s}x{elem}>" for s in ins]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(inTs))
    consts = "\n".join(f"  %s{i} = arith.constant {v} : {t}"
                       for i, (v, t) in enumerate(scalars))
    names = ", ".join([f"%a{i}" for i in range(len(ins))] +
                      [f"%s{i}" for i in range(len(scalars))])
    types = ", ".join(inTs + [t for _, t in scalars])
    return f"""func.func @FN({args}) -> {outT} {{
{consts}
{filled(outT, outElem)}
  %0 = {op}{attrs} ins({names} : {types}) outs(%init : {outT}) -> {outT}
  return %0 : {outT}
}}"""


def matmulMaps(b: str) -> str:
    """indexing_maps of a matmul whose B operand is indexed by `b`."""
    return (" indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
            f"affine_map<(m, n, k) -> ({b})>, "
            "affine_map<(m, n, k) -> (m, n)>]")


def conv(op: str, inShape: str, filterShape: str, outShape: str,
         attrs: str = "") -> List[Sample]:
    if op.endswith("_q"):
        # i8 operands, i32 zero points and accumulator.
        zps = [("1", "i32"), ("2", "i32")]
        return [("i8_i32", structured(op, [inShape, filterShape], outShape,
                                      attrs, zps, "i8", "i32"))]
    return [("f32", structured(op, [inShape, filterShape], outShape, attrs))]


def pooling(op: str, inShape: str, window: str, outShape: str) -> List[
        Sample]:
    elem = "i32" if "unsigned" in op else "f32"
    zero = "0" if elem == "i32" else "0.0"
    return [(elem, f"""func.func @FN(%a: tensor<{inShape}x{elem}>) -> tensor<{outShape}x{elem}> {{
  %window = tensor.empty() : tensor<{window}x{elem}>
  %zero = arith.constant {zero} : {elem}
  %empty = tensor.empty() : tensor<{outShape}x{elem}>
  %init = linalg.fill ins(%zero : {elem}) outs(%empty : tensor<{outShape}x{elem}>) -> tensor<{outShape}x{elem}>
  %0 = {op} ins(%a, %window : tensor<{inShape}x{elem}>, tensor<{window}x{elem}>) outs(%init : tensor<{outShape}x{elem}>) -> tensor<{outShape}x{elem}>
  return %0 : tensor<{outShape}x{elem}>
}}""")]


TOSA_ZP = """  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>"""


def tosaShapeArith(op: str, unary: bool = False) -> List[Sample]:
    """A shape computed by `op` feeding tosa.reshape."""
    operands = "%s0" if unary else "%s0, %s1"
    types = "!tosa.shape<2>" if unary else "!tosa.shape<2>, !tosa.shape<2>"
    return fn(f"""func.func @FN(%a: tensor<8xf32>) -> tensor<2x4xf32> {{
  %s0 = tosa.const_shape {{values = dense<[2, 4]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %s1 = tosa.const_shape {{values = dense<[1, 1]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %s = {op} {operands} : ({types}) -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<8xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}}""")


# Packs of an 8x6 tensor (tiled in both dimensions, outer dimensions
# permuted, tiles in the other order, one dimension tiled) and of a 7x5 one
# (padded), and the unpacks that undo them. Also run against numpy below.
PACK_UNPACK = """func.func @FN(%a: tensor<8x6xf32>, %b: tensor<7x5xf32>) -> (tensor<2x3x4x2xf32>, tensor<3x2x4x2xf32>, tensor<2x3x2x4xf32>, tensor<8x2x3xf32>, tensor<2x3x4x2xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<7x5xf32>) {
  %pad = arith.constant -1.0 : f32
  %e0 = tensor.empty() : tensor<2x3x4x2xf32>
  %p0 = linalg.pack %a inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e0 : tensor<8x6xf32> -> tensor<2x3x4x2xf32>
  %e1 = tensor.empty() : tensor<3x2x4x2xf32>
  %p1 = linalg.pack %a outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e1 : tensor<8x6xf32> -> tensor<3x2x4x2xf32>
  %e2 = tensor.empty() : tensor<2x3x2x4xf32>
  %p2 = linalg.pack %a inner_dims_pos = [1, 0] inner_tiles = [2, 4] into %e2 : tensor<8x6xf32> -> tensor<2x3x2x4xf32>
  %e3 = tensor.empty() : tensor<8x2x3xf32>
  %p3 = linalg.pack %a inner_dims_pos = [1] inner_tiles = [3] into %e3 : tensor<8x6xf32> -> tensor<8x2x3xf32>
  %p4 = linalg.pack %b padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e0 : tensor<7x5xf32> -> tensor<2x3x4x2xf32>
  %e5 = tensor.empty() : tensor<8x6xf32>
  %u0 = linalg.unpack %p0 inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e5 : tensor<2x3x4x2xf32> -> tensor<8x6xf32>
  %u1 = linalg.unpack %p1 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e5 : tensor<3x2x4x2xf32> -> tensor<8x6xf32>
  %e7 = tensor.empty() : tensor<7x5xf32>
  %u2 = linalg.unpack %p4 inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %e7 : tensor<2x3x4x2xf32> -> tensor<7x5xf32>
  return %p0, %p1, %p2, %p3, %p4, %u0, %u1, %u2 : tensor<2x3x4x2xf32>, tensor<3x2x4x2xf32>, tensor<2x3x2x4xf32>, tensor<8x2x3xf32>, tensor<2x3x4x2xf32>, tensor<8x6xf32>, tensor<8x6xf32>, tensor<7x5xf32>
}"""

CUSTOM: Dict[str, Callable[[], List[Sample]]] = {
    "func.func": lambda: CUSTOM["func.call"](),
    "func.return": lambda: CUSTOM["func.call"](),
    "func.call": lambda: fn("""func.func private @callee_FN(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tosa.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
func.func @FN(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = func.call @callee_FN(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}"""),
    # arith
    "arith.addui_extended": lambda: byTypes(
        INTS, 2, "%r, %r_o = arith.addui_extended $0, $1 : @0, @i1"),
    "arith.mulsi_extended": lambda: byTypes(
        INTS, 2, "%r, %r_h = arith.mulsi_extended $0, $1 : @0"),
    "arith.mului_extended": lambda: byTypes(
        INTS, 2, "%r, %r_h = arith.mului_extended $0, $1 : @0"),
    "arith.bitcast": lambda: conversions(
        [("f32", "i32"), ("i32", "f32"), ("f16", "i16"), ("bf16", "f16"),
         ("f64", "i64")], "arith.bitcast"),
    "arith.cmpf": lambda: [
        elementwise([t, t], "i1", f"%r = arith.cmpf {p}, $0, $1 : @0",
                    f"{p}_{t}")
        for p in ["oeq", "olt", "une", "uno", "ord", "true"]
        for t in ["f32", "f16", "bf16", "f64"]
    ],
    "arith.cmpi": lambda: [
        elementwise([t, t], "i1", f"%r = arith.cmpi {p}, $0, $1 : @0",
                    f"{p}_{t}")
        for p in ["eq", "ne", "slt", "ule", "sge", "ugt"]
        for t in INTS + ["i1"]
    ],
    "arith.constant": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<4xi32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %i = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %x, %two : f32
    %r = arith.addf %s, %y : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %g, %i : tensor<8xf32>, tensor<4xi32>
}"""),
    "arith.index_cast": lambda: [
        elementwise([t], t, "%r_i = arith.index_cast $0 : @0 to @index\n"
                    "    %r = arith.index_cast %r_i : @index to @r", t)
        for t in ["i32", "i64", "i8"]
    ],
    "arith.index_castui": lambda: [
        elementwise([t], t, "%r_i = arith.index_castui $0 : @0 to @index\n"
                    "    %r = arith.index_castui %r_i : @index to @r", t)
        for t in ["i32", "i64", "i8"]
    ],
    "arith.select": lambda: [
        elementwise(["i1", t, t], t,
                    ("%r = arith.select $0, $1, $2 : @1",
                     "%r = arith.select $0, $1, $2 : @0, @1"), t)
        for t in FLOATS + INTS
    ],
    # math
    "math.clampf": lambda: byTypes(FLOATS, 3,
                                   "%r = math.clampf $0 to [$1, $2] : @0"),
    "math.fpowi": lambda: [
        elementwise([t, "i32"], t, "%r = math.fpowi $0, $1 : @0, @1", t)
        for t in FLOATS
    ],
    "math.sincos": lambda: byTypes(FLOATS, 1,
                                   "%r, %r_c = math.sincos $0 : @0"),
    # tensor
    "tensor.cast": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tensor.cast %a : tensor<2x4xf32> to tensor<2x4xf32>
  %1 = tosa.exp %0 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}"""),
    "tensor.collapse_shape": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor.collapse_shape %a [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %1 = tosa.exp %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  return %0, %2 : tensor<8xf32>, tensor<8xf32>
}"""),
    "tensor.expand_shape": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %1 = tosa.exp %a : (tensor<8xf32>) -> tensor<8xf32>
  %2 = tensor.expand_shape %1 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  return %0, %2 : tensor<2x4xf32>, tensor<2x4xf32>
}"""),
    "tensor.concat": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> (tensor<5x4xf32>, tensor<2x8xf32>) {
  %0 = tensor.concat dim(0) %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  %1 = tensor.concat dim(1) %a, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<2x8xf32>
}"""),
    # A condition the host checks per call on a size (a shape check).
    "cf.assert": lambda: fn("""func.func @FN(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %ok = arith.cmpi sle, %n, %c64 : index
  cf.assert %ok, "at most 64 elements"
  %e = tensor.empty(%n) : tensor<?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %g : tensor<?xf32>
}"""),
    "tensor.dim": lambda: fn("""func.func @FN(%a: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %c1 = arith.constant 1 : index
  %d = tensor.dim %a, %c1 : tensor<3x5xf32>
  %e = tensor.empty(%d) : tensor<3x?xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<3x5xf32>) outs(%e : tensor<3x?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<3x?xf32>
  %r = tensor.cast %g : tensor<3x?xf32> to tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}"""),
    "tensor.empty": lambda: fn("""func.func @FN() -> tensor<2x4xf32> {
  %0 = tensor.empty() : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""),
    "tensor.extract": lambda: fn("""func.func @FN(%a: tensor<8xf32>, %idx: tensor<4xi32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<4xi32>) outs(%e : tensor<4xf32>) {
  ^bb0(%i: i32, %o: f32):
    %j = arith.index_cast %i : i32 to index
    %v = tensor.extract %a[%j] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}"""),
    "tensor.extract_slice": lambda: fn("""func.func @FN(%a: tensor<4x6xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>) {
  %0 = tensor.extract_slice %a[1, 0] [2, 4] [1, 1] : tensor<4x6xf32> to tensor<2x4xf32>
  %1 = tensor.extract_slice %a[0, 1] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x3xf32>
}"""),
    "tensor.from_elements": lambda: fn("""func.func @FN(%a: tensor<2xf32>) -> tensor<2xf32> {
  %x = arith.constant 1.0 : f32
  %y = arith.constant 2.0 : f32
  %c = tensor.from_elements %x, %y : tensor<2xf32>
  %0 = tosa.add %a, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}"""),
    "tensor.insert": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<8xf32> {
  %x = arith.constant 1.0 : f32
  %c3 = arith.constant 3 : index
  %0 = tensor.insert %x into %a[%c3] : tensor<8xf32>
  return %0 : tensor<8xf32>
}"""),
    "tensor.insert_slice": lambda: fn("""func.func @FN(%a: tensor<4x6xf32>, %b: tensor<2x3xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>) {
  %0 = tensor.insert_slice %b into %a[1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  %1 = tensor.insert_slice %b into %a[0, 0] [2, 3] [2, 2] : tensor<2x3xf32> into tensor<4x6xf32>
  return %0, %1 : tensor<4x6xf32>, tensor<4x6xf32>
}"""),
    "tensor.pad": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> tensor<3x7xf32> {
  %cst = arith.constant 0.5 : f32
  %0 = tensor.pad %a low[1, 0] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<2x4xf32> to tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}"""),
    "tensor.yield": lambda: CUSTOM["tensor.pad"](),
    "tensor.reshape": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<2x4xf32> {
  %shape = arith.constant dense<[2, 4]> : tensor<2xi64>
  %0 = tensor.reshape %a(%shape) : (tensor<8xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""),
    "tensor.splat": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<8xf32> {
  %x = arith.constant 1.5 : f32
  %s = tensor.splat %x : tensor<8xf32>
  %0 = tosa.add %a, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}"""),
    # linalg
    "linalg.generic": lambda: CUSTOM["arith.constant"](),
    "linalg.yield": lambda: CUSTOM["arith.constant"](),
    "linalg.index": lambda: fn("""func.func @FN() -> tensor<2x8xi32> {
  %e = tensor.empty() : tensor<2x8xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x8xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %i, %j : index
    %r = arith.index_cast %k : index to i32
    linalg.yield %r : i32
  } -> tensor<2x8xi32>
  return %g : tensor<2x8xi32>
}"""),
    # Every structured() sample fills its accumulator.
    "linalg.fill": lambda: fn(structured("linalg.copy", ["2x8"], "2x8")),
    "linalg.copy": lambda: fn(structured("linalg.copy", ["2x8"], "2x8")),
    "linalg.map": lambda: fn("""func.func @FN(%a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.map { arith.addf } ins(%a, %b : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
  %1 = linalg.map ins(%a : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>)
    (%x: f32, %o: f32) {
      %y = math.exp %x : f32
      linalg.yield %y : f32
    }
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}"""),
    "linalg.reduce": lambda: fn("""func.func @FN(%a: tensor<2x8xf32>) -> (tensor<2xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %i8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %0 = linalg.reduce { arith.addf } ins(%a : tensor<2x8xf32>) outs(%i2 : tensor<2xf32>) dimensions = [1]
  %1 = linalg.reduce ins(%a : tensor<2x8xf32>) outs(%i8 : tensor<8xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %m = arith.maximumf %x, %acc : f32
      linalg.yield %m : f32
    }
  return %0, %1 : tensor<2xf32>, tensor<8xf32>
}"""),
    "linalg.broadcast": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<2x8x3xf32> {
  %e = tensor.empty() : tensor<2x8x3xf32>
  %0 = linalg.broadcast ins(%a : tensor<8xf32>) outs(%e : tensor<2x8x3xf32>) dimensions = [0, 2]
  return %0 : tensor<2x8x3xf32>
}"""),
    "linalg.transpose": lambda: fn("""func.func @FN(%a: tensor<2x8x3xf32>) -> tensor<3x2x8xf32> {
  %e = tensor.empty() : tensor<3x2x8xf32>
  %0 = linalg.transpose ins(%a : tensor<2x8x3xf32>) outs(%e : tensor<3x2x8xf32>) permutation = [2, 0, 1]
  return %0 : tensor<3x2x8xf32>
}"""),
    "linalg.select": lambda: [("f32", """func.func @FN(%c: tensor<2x8xi1>, %a: tensor<2x8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.select ins(%c, %a, %b : tensor<2x8xi1>, tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}""")],
    "linalg.div_unsigned": lambda: [
        linalgNamed("linalg.div_unsigned", [t, t], t, t)
        for t in ["i8", "i32", "i64"]
    ],
    "linalg.elementwise": lambda: fn("""func.func @FN(%a: tensor<2x8xf32>, %b: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %1 = linalg.elementwise kind=#linalg.elementwise_kind<add> indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}"""),
    "linalg.softmax": lambda: fn("""func.func @FN(%a: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %0 = linalg.softmax dimension(1) ins(%a : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}"""),
    "linalg.fill_rng_2d": lambda: fn("""func.func @FN() -> tensor<16x32xf32> {
  %min = arith.constant -1.0 : f64
  %max = arith.constant 1.0 : f64
  %seed = arith.constant 42 : i32
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}"""),
    "linalg.matmul": lambda: [
        ("f32", structured("linalg.matmul", ["4x8", "8x2"], "4x2")),
        ("f16_f32", structured("linalg.matmul", ["4x8", "8x2"], "4x2",
                               elem="f16", outElem="f32")),
        ("i8_i32", structured("linalg.matmul", ["4x8", "8x2"], "4x2",
                              elem="i8", outElem="i32")),
        ("transposed_b", structured("linalg.matmul", ["4x8", "2x8"], "4x2",
                                    matmulMaps("n, k"))),
    ],
    "linalg.matvec": lambda: fn(structured("linalg.matvec", ["4x8", "8"],
                                           "4")),
    "linalg.vecmat": lambda: fn(structured("linalg.vecmat", ["8", "8x2"],
                                           "2")),
    "linalg.dot": lambda: fn(structured("linalg.dot", ["8", "8"], "")),
    "linalg.batch_matmul": lambda: fn(structured(
        "linalg.batch_matmul", ["2x4x8", "2x8x2"], "2x4x2")),
    "linalg.batch_matvec": lambda: fn(structured(
        "linalg.batch_matvec", ["2x4x8", "2x8"], "2x4")),
    "linalg.batch_vecmat": lambda: fn(structured(
        "linalg.batch_vecmat", ["2x8", "2x8x2"], "2x2")),
    "linalg.batch_reduce_matmul": lambda: fn(structured(
        "linalg.batch_reduce_matmul", ["2x4x8", "2x8x2"], "4x2")),
    "linalg.mmt4d": lambda: fn(structured("linalg.mmt4d",
                                          ["2x3x4x1", "5x3x2x1"], "2x5x4x2")),
    "linalg.batch_mmt4d": lambda: fn(structured(
        "linalg.batch_mmt4d", ["2x2x3x4x1", "2x5x3x2x1"], "2x2x5x4x2")),
    "linalg.quantized_matmul": lambda: [("i8_i32", structured(
        "linalg.quantized_matmul", ["4x8", "8x2"], "4x2", "",
        [("1", "i32"), ("2", "i32")], "i8", "i32"))],
    "linalg.quantized_batch_matmul": lambda: [("i8_i32", structured(
        "linalg.quantized_batch_matmul", ["2x4x8", "2x8x2"], "2x4x2", "",
        [("1", "i32"), ("2", "i32")], "i8", "i32"))],
    "linalg.contract": lambda: fn(structured(
        "linalg.contract", ["4x8", "8x2"], "4x2", matmulMaps("k, n"))),
    "linalg.conv_1d": lambda: conv("linalg.conv_1d", "10", "3", "8"),
    "linalg.conv_1d_ncw_fcw": lambda: conv("linalg.conv_1d_ncw_fcw",
                                           "1x2x10", "4x2x3", "1x4x8"),
    "linalg.conv_1d_nwc_wcf": lambda: conv("linalg.conv_1d_nwc_wcf",
                                           "1x10x2", "3x2x4", "1x8x4"),
    "linalg.conv_2d": lambda: conv("linalg.conv_2d", "6x6", "3x3", "4x4"),
    "linalg.conv_2d_nchw_fchw": lambda: conv("linalg.conv_2d_nchw_fchw",
                                             "1x2x6x6", "4x2x3x3", "1x4x4x4"),
    "linalg.conv_2d_nchw_fchw_q": lambda: conv(
        "linalg.conv_2d_nchw_fchw_q", "1x2x6x6", "4x2x3x3", "1x4x4x4"),
    "linalg.conv_2d_ngchw_fgchw": lambda: conv(
        "linalg.conv_2d_ngchw_fgchw", "1x2x3x6x6", "4x2x3x3x3",
        "1x2x4x4x4"),
    "linalg.conv_2d_ngchw_gfchw": lambda: conv(
        "linalg.conv_2d_ngchw_gfchw", "1x2x3x6x6", "2x4x3x3x3",
        "1x2x4x4x4"),
    "linalg.conv_2d_ngchw_gfchw_q": lambda: conv(
        "linalg.conv_2d_ngchw_gfchw_q", "1x2x3x6x6", "2x4x3x3x3",
        "1x2x4x4x4"),
    "linalg.conv_2d_nhwc_fhwc": lambda: conv("linalg.conv_2d_nhwc_fhwc",
                                             "1x6x6x2", "4x3x3x2", "1x4x4x4"),
    "linalg.conv_2d_nhwc_fhwc_q": lambda: conv(
        "linalg.conv_2d_nhwc_fhwc_q", "1x6x6x2", "4x3x3x2", "1x4x4x4"),
    "linalg.conv_2d_nhwc_hwcf": lambda: conv(
        "linalg.conv_2d_nhwc_hwcf", "1x7x7x2", "3x3x2x4", "1x3x3x4",
        " {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<2> : tensor<2xi64>}"),
    "linalg.conv_2d_nhwc_hwcf_q": lambda: conv(
        "linalg.conv_2d_nhwc_hwcf_q", "1x6x6x2", "3x3x2x4", "1x4x4x4"),
    "linalg.conv_2d_nhwgc_gfhwc": lambda: conv(
        "linalg.conv_2d_nhwgc_gfhwc", "1x6x6x2x3", "2x4x3x3x3",
        "1x4x4x2x4"),
    "linalg.conv_2d_nhwgc_gfhwc_q": lambda: conv(
        "linalg.conv_2d_nhwgc_gfhwc_q", "1x6x6x2x3", "2x4x3x3x3",
        "1x4x4x2x4"),
    "linalg.conv_3d": lambda: conv("linalg.conv_3d", "6x6x6", "3x3x3",
                                   "4x4x4"),
    "linalg.conv_3d_ncdhw_fcdhw": lambda: conv(
        "linalg.conv_3d_ncdhw_fcdhw", "1x2x6x6x6", "4x2x3x3x3",
        "1x4x4x4x4"),
    "linalg.conv_3d_ndhwc_dhwcf": lambda: conv(
        "linalg.conv_3d_ndhwc_dhwcf", "1x6x6x6x2", "3x3x3x2x4",
        "1x4x4x4x4"),
    "linalg.conv_3d_ndhwc_dhwcf_q": lambda: conv(
        "linalg.conv_3d_ndhwc_dhwcf_q", "1x6x6x6x2", "3x3x3x2x4",
        "1x4x4x4x4"),
    "linalg.depthwise_conv_1d_ncw_cw": lambda: conv(
        "linalg.depthwise_conv_1d_ncw_cw", "1x2x10", "2x3", "1x2x8"),
    "linalg.depthwise_conv_1d_nwc_wc": lambda: conv(
        "linalg.depthwise_conv_1d_nwc_wc", "1x10x2", "3x2", "1x8x2"),
    "linalg.depthwise_conv_1d_nwc_wcm": lambda: conv(
        "linalg.depthwise_conv_1d_nwc_wcm", "1x10x2", "3x2x3", "1x8x2x3"),
    "linalg.depthwise_conv_2d_nchw_chw": lambda: conv(
        "linalg.depthwise_conv_2d_nchw_chw", "1x2x6x6", "2x3x3", "1x2x4x4"),
    "linalg.depthwise_conv_2d_nhwc_hwc": lambda: conv(
        "linalg.depthwise_conv_2d_nhwc_hwc", "1x6x6x2", "3x3x2", "1x4x4x2"),
    "linalg.depthwise_conv_2d_nhwc_hwc_q": lambda: conv(
        "linalg.depthwise_conv_2d_nhwc_hwc_q", "1x6x6x2", "3x3x2",
        "1x4x4x2"),
    "linalg.depthwise_conv_2d_nhwc_hwcm": lambda: conv(
        "linalg.depthwise_conv_2d_nhwc_hwcm", "1x6x6x2", "3x3x2x3",
        "1x4x4x2x3"),
    "linalg.depthwise_conv_2d_nhwc_hwcm_q": lambda: conv(
        "linalg.depthwise_conv_2d_nhwc_hwcm_q", "1x6x6x2", "3x3x2x3",
        "1x4x4x2x3"),
    "linalg.depthwise_conv_3d_ncdhw_cdhw": lambda: conv(
        "linalg.depthwise_conv_3d_ncdhw_cdhw", "1x2x6x6x6", "2x3x3x3",
        "1x2x4x4x4"),
    "linalg.depthwise_conv_3d_ndhwc_dhwc": lambda: conv(
        "linalg.depthwise_conv_3d_ndhwc_dhwc", "1x6x6x6x2", "3x3x3x2",
        "1x4x4x4x2"),
    "linalg.depthwise_conv_3d_ndhwc_dhwcm": lambda: conv(
        "linalg.depthwise_conv_3d_ndhwc_dhwcm", "1x6x6x6x2", "3x3x3x2x3",
        "1x4x4x4x2x3"),
    "linalg.pooling_nchw_max": lambda: pooling(
        "linalg.pooling_nchw_max", "1x2x6x6", "3x3", "1x2x4x4"),
    "linalg.pooling_nchw_sum": lambda: pooling(
        "linalg.pooling_nchw_sum", "1x2x6x6", "3x3", "1x2x4x4"),
    "linalg.pooling_ncw_max": lambda: pooling("linalg.pooling_ncw_max",
                                              "1x2x10", "3", "1x2x8"),
    "linalg.pooling_ncw_sum": lambda: pooling("linalg.pooling_ncw_sum",
                                              "1x2x10", "3", "1x2x8"),
    "linalg.pooling_ndhwc_max": lambda: pooling(
        "linalg.pooling_ndhwc_max", "1x6x6x6x2", "3x3x3", "1x4x4x4x2"),
    "linalg.pooling_ndhwc_min": lambda: pooling(
        "linalg.pooling_ndhwc_min", "1x6x6x6x2", "3x3x3", "1x4x4x4x2"),
    "linalg.pooling_ndhwc_sum": lambda: pooling(
        "linalg.pooling_ndhwc_sum", "1x6x6x6x2", "3x3x3", "1x4x4x4x2"),
    "linalg.pooling_nhwc_max": lambda: pooling(
        "linalg.pooling_nhwc_max", "1x6x6x2", "3x3", "1x4x4x2"),
    "linalg.pooling_nhwc_max_unsigned": lambda: pooling(
        "linalg.pooling_nhwc_max_unsigned", "1x6x6x2", "3x3", "1x4x4x2"),
    "linalg.pooling_nhwc_min": lambda: pooling(
        "linalg.pooling_nhwc_min", "1x6x6x2", "3x3", "1x4x4x2"),
    "linalg.pooling_nhwc_min_unsigned": lambda: pooling(
        "linalg.pooling_nhwc_min_unsigned", "1x6x6x2", "3x3", "1x4x4x2"),
    "linalg.pooling_nhwc_sum": lambda: pooling(
        "linalg.pooling_nhwc_sum", "1x6x6x2", "3x3", "1x4x4x2"),
    "linalg.pooling_nwc_max": lambda: pooling("linalg.pooling_nwc_max",
                                              "1x10x2", "3", "1x8x2"),
    "linalg.pooling_nwc_max_unsigned": lambda: pooling(
        "linalg.pooling_nwc_max_unsigned", "1x10x2", "3", "1x8x2"),
    "linalg.pooling_nwc_min": lambda: pooling("linalg.pooling_nwc_min",
                                              "1x10x2", "3", "1x8x2"),
    "linalg.pooling_nwc_min_unsigned": lambda: pooling(
        "linalg.pooling_nwc_min_unsigned", "1x10x2", "3", "1x8x2"),
    "linalg.pooling_nwc_sum": lambda: pooling("linalg.pooling_nwc_sum",
                                              "1x10x2", "3", "1x8x2"),
    "linalg.winograd_filter_transform": lambda: fn("""func.func @FN(%f: tensor<2x3x3x5xf32>) -> tensor<4x4x5x2xf32> {
  %e = tensor.empty() : tensor<4x4x5x2xf32>
  %0 = linalg.winograd_filter_transform fmr(F_2_3) ins(%f : tensor<2x3x3x5xf32>) outs(%e : tensor<4x4x5x2xf32>) -> tensor<4x4x5x2xf32>
  return %0 : tensor<4x4x5x2xf32>
}"""),
    "linalg.winograd_input_transform": lambda: fn("""func.func @FN(%a: tensor<2x6x6x5xf32>) -> tensor<4x4x2x2x2x5xf32> {
  %e = tensor.empty() : tensor<4x4x2x2x2x5xf32>
  %0 = linalg.winograd_input_transform fmr(F_2_3) ins(%a : tensor<2x6x6x5xf32>) outs(%e : tensor<4x4x2x2x2x5xf32>) -> tensor<4x4x2x2x2x5xf32>
  return %0 : tensor<4x4x2x2x2x5xf32>
}"""),
    "linalg.winograd_output_transform": lambda: fn("""func.func @FN(%v: tensor<4x4x2x2x2x2xf32>) -> tensor<2x4x4x2xf32> {
  %e = tensor.empty() : tensor<2x4x4x2xf32>
  %0 = linalg.winograd_output_transform fmr(F_2_3) ins(%v : tensor<4x4x2x2x2x2xf32>) outs(%e : tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32>
  return %0 : tensor<2x4x4x2xf32>
}"""),
    "linalg.pack": lambda: [("f32", PACK_UNPACK)],
    "linalg.unpack": lambda: [("f32", PACK_UNPACK)],
    # tosa
    "tosa.add_shape": lambda: tosaShapeArith("tosa.add_shape"),
    "tosa.sub_shape": lambda: tosaShapeArith("tosa.sub_shape"),
    "tosa.mul_shape": lambda: tosaShapeArith("tosa.mul_shape"),
    "tosa.div_ceil_shape": lambda: tosaShapeArith("tosa.div_ceil_shape"),
    "tosa.div_floor_shape": lambda: tosaShapeArith("tosa.div_floor_shape"),
    "tosa.mod_shape": lambda: tosaShapeArith("tosa.mod_shape"),
    "tosa.max_shape": lambda: tosaShapeArith("tosa.max_shape"),
    "tosa.min_shape": lambda: tosaShapeArith("tosa.min_shape"),
    "tosa.exp2_shape": lambda: tosaShapeArith("tosa.exp2_shape", True),
    "tosa.log2_ceil_shape": lambda: tosaShapeArith("tosa.log2_ceil_shape",
                                                   True),
    "tosa.log2_floor_shape": lambda: tosaShapeArith("tosa.log2_floor_shape",
                                                    True),
    "tosa.concat_shape": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<2x4xf32> {
  %s0 = tosa.const_shape {values = dense<[2]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s1 = tosa.const_shape {values = dense<[4]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s = tosa.concat_shape %s0, %s1 : (!tosa.shape<1>, !tosa.shape<1>) -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<8xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""),
    "tosa.slice_shape": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<2x4xf32> {
  %s0 = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %start = "tosa.const"() {values = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  %size = "tosa.const"() {values = dense<2> : tensor<1xi32>} : () -> tensor<1xi32>
  %s = tosa.slice_shape %s0, %start, %size : (!tosa.shape<3>, tensor<1xi32>, tensor<1xi32>) -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<8xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""),
    # Both branches run, each result selected by the condition
    # (kiln-tosa-cond-if-to-select).
    "tosa.cond_if": lambda: fn("""func.func @FN(%c: tensor<i1>, %a: tensor<2x4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tosa.cond_if %c (%x = %a, %y = %b) : tensor<i1> (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>):
    %s = tosa.add %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tosa.yield %s : tensor<2x4xf32>
  } else {
  ^bb0(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>):
    %d = tosa.sub %x, %y : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tosa.yield %d : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}"""),
    "tosa.yield": lambda: CUSTOM["tosa.cond_if"](),
    # A counted loop (a counter against a constant limit): written out.
    "tosa.while_loop": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %0:2 = tosa.while_loop (%i = %zero, %acc = %a) : (tensor<i32>, tensor<2x4xf32>) -> (tensor<i32>, tensor<2x4xf32>) {
    %limit = "tosa.const"() <{values = dense<3> : tensor<i32>}> : () -> tensor<i32>
    %c = tosa.greater %limit, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>, %acc: tensor<2x4xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %n = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %s = tosa.add %acc, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    tosa.yield %n, %s : tensor<i32>, tensor<2x4xf32>
  }
  return %0#1 : tensor<2x4xf32>
}"""),
    "tosa.const_shape": lambda: CUSTOM["tosa.reshape"](),
    "tosa.reshape": lambda: fn("""func.func @FN(%a: tensor<8xf32>) -> tensor<2x4xf32> {
  %s = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<8xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""),
    "tosa.apply_scale": lambda: [
        elementwise(["i32", "i32", "i8"], "i32",
                    f"%r = tosa.apply_scale $0, $1, $2 {{rounding_mode = {m}}} "
                    ": (@0, @1, @2) -> @r", m.lower()) for m in
        ["SINGLE_ROUND", "DOUBLE_ROUND"]
    ],
    "tosa.argmax": lambda: [(t, f"""func.func @FN(%a: tensor<2x8x{t}>) -> tensor<2xi32> {{
  %0 = tosa.argmax %a {{axis = 1 : i32}} : (tensor<2x8x{t}>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}}""") for t in ["f32", "f16", "i32", "i8"]],
    "tosa.arithmetic_right_shift": lambda: [
        tosaElementwise("tosa.arithmetic_right_shift", [t, t], t,
                        f"{t}_{r}", f" {{round = {r}}}")
        for t in ["i8", "i32"] for r in ["true", "false"]
    ],
    "tosa.avg_pool2d": lambda: fn(f"""func.func @FN(%a: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {{
{TOSA_ZP}
  %0 = tosa.avg_pool2d %a, %zp, %zp {{acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>}} : (tensor<1x5x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}}"""),
    "tosa.cast": lambda: [
        tosaElementwise("tosa.cast", [a], b, f"{a}_{b}")
        for a, b in [("f32", "i32"), ("i32", "f32"), ("f32", "f16"),
                     ("f16", "f32"), ("bf16", "f32"), ("i8", "i32"),
                     ("i32", "i8"), ("f32", "i8"), ("i1", "f32"),
                     ("f32", "i1"), ("i1", "i32")]
    ],
    "tosa.clamp": lambda: [
        tosaElementwise("tosa.clamp", ["f32"], "f32", "f32",
                        " {min_val = 0.0 : f32, max_val = 6.0 : f32}"),
        tosaElementwise("tosa.clamp", ["f16"], "f16", "f16",
                        " {min_val = 0.0 : f16, max_val = 6.0 : f16}"),
        tosaElementwise("tosa.clamp", ["i8"], "i8", "i8",
                        " {min_val = -4 : i8, max_val = 4 : i8}"),
        tosaElementwise("tosa.clamp", ["i32"], "i32", "i32",
                        " {min_val = -4 : i32, max_val = 4 : i32}"),
    ],
    "tosa.concat": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %0 = tosa.concat %a, %b {axis = 0 : i32} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}"""),
    "tosa.const": lambda: fn("""func.func @FN(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xi8>) {
  %c = "tosa.const"() {values = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %i = "tosa.const"() {values = dense<[3, 4]> : tensor<2xi8>} : () -> tensor<2xi8>
  %0 = tosa.add %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %i : tensor<4xf32>, tensor<2xi8>
}"""),
    "tosa.conv2d": lambda: fn(f"""func.func @FN(%a: tensor<1x6x6x2xf32>, %w: tensor<4x3x3x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {{
{TOSA_ZP}
  %0 = tosa.conv2d %a, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x6x6x2xf32>, tensor<4x3x3x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}}"""),
    "tosa.conv3d": lambda: fn(f"""func.func @FN(%a: tensor<1x4x4x4x2xf32>, %w: tensor<3x2x2x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x3x3x3x3xf32> {{
{TOSA_ZP}
  %0 = tosa.conv3d %a, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>}} : (tensor<1x4x4x4x2xf32>, tensor<3x2x2x2x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3x3xf32>
  return %0 : tensor<1x3x3x3x3xf32>
}}"""),
    "tosa.depthwise_conv2d": lambda: fn(f"""func.func @FN(%a: tensor<1x6x6x2xf32>, %w: tensor<3x3x2x2xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {{
{TOSA_ZP}
  %0 = tosa.depthwise_conv2d %a, %w, %b, %zp, %zp {{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x6x6x2xf32>, tensor<3x3x2x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}}"""),
    "tosa.transpose_conv2d": lambda: fn(f"""func.func @FN(%a: tensor<1x4x4x2xf32>, %w: tensor<3x3x3x2xf32>, %b: tensor<3xf32>) -> tensor<1x6x6x3xf32> {{
{TOSA_ZP}
  %0 = tosa.transpose_conv2d %a, %w, %b, %zp, %zp {{acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x3xf32>
  return %0 : tensor<1x6x6x3xf32>
}}"""),
    "tosa.gather": lambda: fn("""func.func @FN(%v: tensor<1x8x3xf32>, %i: tensor<1x4xi32>) -> tensor<1x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<1x8x3xf32>, tensor<1x4xi32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}"""),
    "tosa.scatter": lambda: fn("""func.func @FN(%v: tensor<1x8x3xf32>, %i: tensor<1x4xi32>, %x: tensor<1x4x3xf32>) -> tensor<1x8x3xf32> {
  %0 = tosa.scatter %v, %i, %x : (tensor<1x8x3xf32>, tensor<1x4xi32>, tensor<1x4x3xf32>) -> tensor<1x8x3xf32>
  return %0 : tensor<1x8x3xf32>
}"""),
    "tosa.identity": lambda: [tosaElementwise("tosa.identity", ["f32"],
                                              "f32", "f32")],
    "tosa.matmul": lambda: fn(f"""func.func @FN(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) -> tensor<2x4x3xf32> {{
{TOSA_ZP}
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x4x8xf32>, tensor<2x8x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}}"""),
    "tosa.max_pool2d": lambda: fn("""func.func @FN(%a: tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = tosa.max_pool2d %a {kernel = array<i64: 2, 2>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x5x5x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}"""),
    "tosa.mul": lambda: [(f"{t}_shift{s}", f"""func.func @FN(%a: tensor<2x8x{t}>, %b: tensor<1x8x{t}>) -> tensor<2x8x{t}> {{
  %shift = "tosa.const"() {{values = dense<{s}> : tensor<1xi8>}} : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<2x8x{t}>, tensor<1x8x{t}>, tensor<1xi8>) -> tensor<2x8x{t}>
  return %0 : tensor<2x8x{t}>
}}""") for t, s in [("f32", 0), ("f16", 0), ("i32", 0), ("i32", 3)]],
    "tosa.negate": lambda: [(t, f"""func.func @FN(%a: tensor<8x{t}>) -> tensor<8x{t}> {{
  %zp = "tosa.const"() {{values = dense<{z}> : tensor<1x{t}>}} : () -> tensor<1x{t}>
  %0 = tosa.negate %a, %zp, %zp : (tensor<8x{t}>, tensor<1x{t}>, tensor<1x{t}>) -> tensor<8x{t}>
  return %0 : tensor<8x{t}>
}}""") for t, z in [("f32", "0.0"), ("f16", "0.0"), ("i32", "0"),
                    ("i8", "3")]],
    "tosa.pad": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> tensor<3x7xf32> {
  %p = tosa.const_shape {values = dense<[1, 0, 0, 3]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c = "tosa.const"() {values = dense<0.5> : tensor<1xf32>} : () -> tensor<1xf32>
  %0 = tosa.pad %a, %p, %c : (tensor<2x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}"""),
    "tosa.rescale": lambda: [(f"{a}_{b}_{pc}", f"""func.func @FN(%a: tensor<2x{a}>) -> tensor<2x{b}> {{
  %m = "tosa.const"() {{values = dense<1073741824> : tensor<{n}xi32>}} : () -> tensor<{n}xi32>
  %s = "tosa.const"() {{values = dense<30> : tensor<{n}xi8>}} : () -> tensor<{n}xi8>
  %izp = "tosa.const"() {{values = dense<0> : tensor<1x{a}>}} : () -> tensor<1x{a}>
  %ozp = "tosa.const"() {{values = dense<0> : tensor<1x{b}>}} : () -> tensor<1x{b}>
  %0 = tosa.rescale %a, %m, %s, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = {pc}, rounding_mode = {rm}, scale32 = true}} : (tensor<2x{a}>, tensor<{n}xi32>, tensor<{n}xi8>, tensor<1x{a}>, tensor<1x{b}>) -> tensor<2x{b}>
  return %0 : tensor<2x{b}>
}}""") for a, b, pc, n, rm in [("i8", "i32", "false", 1, "SINGLE_ROUND"),
                               ("i32", "i8", "true", 2, "DOUBLE_ROUND"),
                               ("i16", "i8", "false", 1, "SINGLE_ROUND")]],
    "tosa.resize": lambda: [(m.lower(), f"""func.func @FN(%a: tensor<1x2x2x1xf32>) -> tensor<1x4x4x1xf32> {{
  %scale = tosa.const_shape {{values = dense<[4, 2, 4, 2]> : tensor<4xindex>}} : () -> !tosa.shape<4>
  %offset = tosa.const_shape {{values = dense<[-1, -1]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %border = tosa.const_shape {{values = dense<[1, 1]> : tensor<2xindex>}} : () -> !tosa.shape<2>
  %0 = tosa.resize %a, %scale, %offset, %border {{mode = {m}}} : (tensor<1x2x2x1xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}}""") for m in ["NEAREST_NEIGHBOR", "BILINEAR"]],
    "tosa.reverse": lambda: fn("""func.func @FN(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = tosa.reverse %a {axis = 1 : i32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}"""),
    "tosa.select": lambda: fn("""func.func @FN(%c: tensor<2x8xi1>, %a: tensor<2x8xf32>, %b: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %0 = tosa.select %c, %a, %b : (tensor<2x8xi1>, tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}"""),
    "tosa.slice": lambda: fn("""func.func @FN(%a: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.slice %a, %start, %size : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}"""),
    "tosa.table": lambda: [
        ("i8", """func.func @FN(%a: tensor<8xi8>) -> tensor<8xi8> {
  %t = "tosa.const"() {values = dense<7> : tensor<256xi8>} : () -> tensor<256xi8>
  %0 = tosa.table %a, %t : (tensor<8xi8>, tensor<256xi8>) -> tensor<8xi8>
  return %0 : tensor<8xi8>
}"""),
        ("i16", """func.func @FN(%a: tensor<8xi16>) -> tensor<8xi32> {
  %t = "tosa.const"() {values = dense<7> : tensor<513xi16>} : () -> tensor<513xi16>
  %0 = tosa.table %a, %t : (tensor<8xi16>, tensor<513xi16>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}"""),
    ],
    "tosa.tile": lambda: fn("""func.func @FN(%a: tensor<2x4xf32>) -> tensor<4x12xf32> {
  %m = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.tile %a, %m : (tensor<2x4xf32>, !tosa.shape<2>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}"""),
    "tosa.transpose": lambda: fn("""func.func @FN(%a: tensor<2x4x3xf32>) -> tensor<3x2x4xf32> {
  %0 = tosa.transpose %a {perms = array<i32: 2, 0, 1>} : (tensor<2x4x3xf32>) -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}"""),
}

# How an op is spelled in its samples when not by its full name.
SPELLED = {"func.return": "return"}


class OpSamples:
    """The functions exercising one op: those that must compile and those
    that must be refused (on an element type the op is excepted on)."""

    def __init__(self, op: str, kind: str):
        self.op = op
        self.kind = kind
        self.functions: List[Tuple[str, str]] = []
        self.refused: List[Tuple[str, str, str]] = []  # name, text, type
        self.problem = ""


def buildSamples(op: str, kind: str, excepted: List[str]) -> OpSamples:
    """The samples of `op`, or a problem when there is none (a kind the test
    does not know, a custom op without a template) or a sample does not
    contain the op."""
    result = OpSamples(op, kind)
    if kind == "custom":
        make = CUSTOM.get(op)
        if make is None:
            result.problem = "custom op without a template in CUSTOM"
            return result
    else:
        if kind not in KINDS:
            result.problem = f"unknown kind '{kind}'"
            return result
        make = lambda: KINDS[kind](op)  # noqa: E731
    base = op.replace(".", "_")
    spelled = re.escape(SPELLED.get(op, op))
    for suffix, text in make():
        name = f"{base}_{suffix}" if suffix else base
        text = text.replace("@FN", f"@{name}").replace("@callee_FN",
                                                      f"@callee_{name}")
        if not re.search(rf"(?<![\w.]){spelled}(?![\w.])", text):
            result.problem = f"sample {name} does not use the op"
            return result
        types = [t for t in excepted if t in suffix.split("_")]
        if types:
            result.refused.append((name, text, types[0]))
        else:
            result.functions.append((name, text))
    if not result.functions:
        result.problem = "no sample that must compile"
    missing = [t for t in excepted
               if not any(t == r[2] for r in result.refused)]
    if missing:
        result.problem = f"no sample on excepted type(s) {missing}"
    return result


def firstError(r: e2elib.ToolResult) -> str:
    for line in r.stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return r.describe()


class Compiler:

    def __init__(self, binDir: str, work: str, timeout: float):
        self.tool = os.path.join(binDir, "kiln-compile")
        self.work = work
        self.timeout = timeout

    def compile(self, name: str, functions: List[str]) -> e2elib.ToolResult:
        src = os.path.join(self.work, f"{name}.mlir")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n\n".join(functions) + "\n")
        return e2elib.runTool([
            self.tool, src, "--target-device=cpu", "-o",
            self.output(name)
        ], self.timeout)

    def output(self, name: str) -> str:
        return os.path.join(self.work, f"{name}.kiln")


def compileAll(compiler: Compiler, ops: List[OpSamples], batchSize: int,
               jobs: int) -> Dict[str, str]:
    """Maps each op whose samples fail to compile to its first error. Ops
    are compiled in batches; a failed batch is compiled op by op."""
    batches = [ops[i:i + batchSize] for i in range(0, len(ops), batchSize)]

    def runBatch(index: int) -> Dict[str, str]:
        batch = batches[index]
        r = compiler.compile(f"batch{index}",
                             [t for o in batch for _, t in o.functions])
        if r.rc == 0 and not r.problem:
            return {}
        found = {}
        for o in batch:
            single = compiler.compile(o.op.replace(".", "_"),
                                      [t for _, t in o.functions])
            if single.rc != 0 or single.problem:
                found[o.op] = firstError(single)
        # Every op compiles alone: the batch's failure is an interaction.
        return found or {
            o.op: f"fails only in its batch: {firstError(r)}"
            for o in batch
        }

    failures: Dict[str, str] = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for found in pool.map(runBatch, range(len(batches))):
            failures.update(found)
    return failures


def checkRefusal(compiler: Compiler, name: str, op: str, text: str,
                 elementType: str = "") -> str:
    """Empty when kiln-compile rejects `text` with the usual one-line
    diagnostics naming `op` (and `elementType`), else what went wrong."""
    r = compiler.compile(name, [text])
    if r.problem or r.rc != 1:
        return f"want a refusal, got {r.describe() if r.rc else 'success'}"
    want = f"unsupported op '{op}'"
    for line in r.stderr.splitlines():
        if want in line and (not elementType or f"'{elementType}'" in line):
            return ""
    return f"no error naming {want} {elementType}: {firstError(r)}"


# Numeric checks of the ops Kiln lowers itself (kiln-lower-input-ops):
# each case is a function, its inputs, and numpy's results for them.
class RunCase:

    def __init__(self, op: str, name: str, text: str,
                 inputs: List[np.ndarray], expected: List[np.ndarray],
                 ulps: float = 0.0, atol: float = 0.0):
        self.op = op
        self.name = f"run_{name}"
        self.text = text.replace("@FN", f"@{self.name}")
        self.inputs = inputs
        self.expected = expected
        self.ulps = ulps
        self.atol = atol


DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
# Error allowed, in units in the last place of the result (f16 computes in
# f32 and rounds once). The expansions measure at most 1.6 ulps.
ULPS = {"f16": 1, "f32": 4, "f64": 4}
INVERSE_HYPERBOLIC = {
    "math.asinh": (np.arcsinh, [
        -1e30, -1e10, -1e4, -3.0, -1.0, -1e-5, -0.0, 0.0, 1e-8, 0.25, 1.0,
        20.0, 3000.0, 1e15, np.inf, np.nan
    ]),
    "math.acosh": (np.arccosh, [
        1.0, 1.0000001, 1.001, 1.5, 2.0, 10.0, 1e4, 1e8, 3e9, 1e30, np.inf,
        0.999, 0.0, -2.0, -1e8, np.nan
    ]),
    "math.atanh": (np.arctanh, [
        -1.0, -0.999, -0.5, -1e-3, -1e-8, -0.0, 0.0, 1e-10, 0.1, 0.75,
        0.9999, 1.0, 1.5, -3.0, 0.3, np.nan
    ]),
}


def packReference(a, innerPos, tiles, outerPerm=None, pad=0.0):
    """linalg.pack: pad to whole tiles, split each tiled dimension into
    (outer, tile), outer dimensions in `outerPerm` order, tiles last."""
    padded = list(a.shape)
    for d, t in zip(innerPos, tiles):
        padded[d] = -(-padded[d] // t) * t
    p = np.full(padded, pad, a.dtype)
    p[tuple(slice(0, n) for n in a.shape)] = a
    shape, outerAxis, innerAxis = [], {}, {}
    for d in range(a.ndim):
        outerAxis[d] = len(shape)
        if d in innerPos:
            t = tiles[innerPos.index(d)]
            shape += [padded[d] // t, t]
            innerAxis[d] = len(shape) - 1
        else:
            shape.append(padded[d])
    perm = ([outerAxis[d] for d in (outerPerm or range(a.ndim))] +
            [innerAxis[d] for d in innerPos])
    return p.reshape(shape).transpose(perm)


def applyScaleCases() -> List[RunCase]:
    """tosa.apply_scale against TOSA's apply_scale_32, on values, multipliers
    and shifts inside its REQUIREs (the result then fits in i32)."""
    rng = np.random.default_rng(6)
    shifts = np.array([2, 3, 15, 30, 31, 31, 32, 33, 40, 47, 55, 62, 62, 31,
                       32, 8], np.int8)
    values, multipliers = [], []
    for s in shifts:
        bound = min(1 << (int(s) - 1), 1 << 31)
        values.append(int(rng.integers(-bound, bound)))
        multipliers.append(int(rng.integers(0, 1 << 31)))
    values[5], multipliers[5] = -1, 1 << 30        # ties, negative
    values[13], multipliers[13] = -(1 << 31), (1 << 31) - 1
    values[14], multipliers[14] = (1 << 31) - 1, (1 << 31) - 1
    v = np.array(values, np.int32).reshape(2, 8)
    m = np.array(multipliers, np.int32).reshape(2, 8)
    s = shifts.reshape(2, 8)
    cases = []
    for mode in ["SINGLE_ROUND", "DOUBLE_ROUND"]:
        expected = np.empty_like(v)
        for i in np.ndindex(v.shape):
            value, shift = int(v[i]), int(s[i])
            rounding = 1 << (shift - 1)
            if mode == "DOUBLE_ROUND" and shift > 31:
                rounding += (1 << 30) if value >= 0 else -(1 << 30)
            expected[i] = (value * int(m[i]) + rounding) >> shift
        _, text = elementwise(
            ["i32", "i32", "i8"], "i32",
            f"%r = tosa.apply_scale $0, $1, $2 {{rounding_mode = {mode}}} "
            ": (@0, @1, @2) -> @r", "")
        cases.append(RunCase("tosa.apply_scale", f"apply_scale_{mode}", text,
                             [v, m, s], [expected, expected]))
    return cases


INT32_MIN = -(1 << 31)


def wrap32(value: int) -> int:
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def ipowiReference(x: int, n: int) -> int:
    """math.ipowi: wrapping x^n; negative powers truncate to 0 unless |x| is
    1 (0 to a negative power, undefined upstream, is 0 here)."""
    if n >= 0:
        return wrap32(pow(x, n, 1 << 32))
    if x == 1:
        return 1
    if x == -1:
        return -1 if n % 2 else 1
    return 0


def mathExpansionCases() -> List[RunCase]:
    """The math ops kiln-lower-input-ops rewrites besides the inverse
    hyperbolic functions."""
    cases = []
    xs = [2.0, -2.0, -2.0, 0.5, 3.0, 0.0, -0.0, 0.0, np.nan, np.inf, -np.inf,
          1.5, -1.0, 2.0, 0.5, 1.1]
    ns = [10, 3, 4, -3, -2, -1, -1, 0, 0, -1, 3, 7, INT32_MIN, INT32_MIN,
          INT32_MIN, 5]
    n = np.array(ns, np.int32).reshape(2, 8)
    for t, dtype in DTYPES.items():
        _, text = elementwise([t, "i32"], t, "%r = math.fpowi $0, $1 : @0, @1",
                              "")
        x = np.array(xs, dtype).reshape(2, 8)
        with np.errstate(all="ignore"):
            expected = np.power(x.astype(np.float64),
                                n.astype(np.float64)).astype(dtype)
        cases.append(RunCase("math.fpowi", f"fpowi_{t}", text, [x, n],
                             [expected, expected], ULPS[t]))

    pairs = [(2, 10), (-3, 3), (0, 0), (5, 0), (7, -1), (1, -5), (-1, -3),
             (-1, -4), (0, -2), (2, 31), (3, 40), (-2, 5), (10, 9), (123, 1),
             (-7, 2), (2, 30)]
    x = np.array([p[0] for p in pairs], np.int32).reshape(2, 8)
    n = np.array([p[1] for p in pairs], np.int32).reshape(2, 8)
    expected = np.array([ipowiReference(a, b) for a, b in pairs],
                        np.int32).reshape(2, 8)
    _, text = elementwise(["i32", "i32"], "i32", "%r = math.ipowi $0, $1 : @0",
                          "")
    cases.append(RunCase("math.ipowi", "ipowi_i32", text, [x, n],
                         [expected, expected]))

    ints = [0, 1, -1, 2, 3, 7, 8, 255, 256, 65536, 0x7FFFFFFF, INT32_MIN,
            -2, 12345678, -65536, 0x00F00000]
    x = np.array(ints, np.int32).reshape(2, 8)
    u = [v & 0xFFFFFFFF for v in ints]
    references = {
        "math.absi": [wrap32(abs(v)) for v in ints],
        "math.ctlz": [32 - v.bit_length() for v in u],
        "math.cttz": [(v & -v).bit_length() - 1 if v else 32 for v in u],
    }
    for op, values in references.items():
        expected = np.array(values, np.int32).reshape(2, 8)
        _, text = elementwise(["i32"], "i32", f"%r = {op} $0 : @0", "")
        cases.append(RunCase(op, f"{op.split('.')[1]}_i32", text, [x],
                             [expected, expected]))

    for t, dtype in DTYPES.items():
        info = np.finfo(dtype)
        x = np.array([0.0, -0.0, 1.0, -1.0, info.smallest_subnormal,
                      -info.smallest_subnormal, info.tiny, -info.tiny,
                      info.max, -info.max, np.inf, -np.inf, np.nan, -np.nan,
                      0.1, 1e-3], dtype).reshape(2, 8)
        finite = np.isfinite(x)
        references = {
            "math.isnan": np.isnan(x),
            "math.isinf": np.isinf(x),
            "math.isfinite": finite,
            "math.isnormal": finite & (np.abs(x) >= info.tiny),
        }
        for op, expected in references.items():
            _, text = elementwise([t], "i1", f"%r = {op} $0 : @0", "")
            cases.append(RunCase(op, f"{op.split('.')[1]}_{t}", text, [x],
                                 [expected, expected]))

    x = np.linspace(-3.0, 3.0, 16, dtype=np.float32).reshape(2, 8)
    text = """func.func @FN(%a: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %s, %c = math.sincos %a : tensor<2x8xf32>
  return %s, %c : tensor<2x8xf32>, tensor<2x8xf32>
}"""
    cases.append(RunCase("math.sincos", "sincos_f32", text, [x],
                         [np.sin(x), np.cos(x)], 4, 1e-6))
    return cases


def runCases() -> List[RunCase]:
    cases = []
    for op, (reference, values) in INVERSE_HYPERBOLIC.items():
        for t, dtype in DTYPES.items():
            with np.errstate(all="ignore"):
                x = np.array(values, np.float64).astype(dtype).reshape(2, 8)
                expected = reference(x.astype(np.float64)).astype(dtype)
            _, text = elementwise([t], t, f"%r = {op} $0 : @0", "")
            cases.append(RunCase(op, f"{op.split('.')[1]}_{t}", text, [x],
                                 [expected, expected], ULPS[t]))
    cases += mathExpansionCases()
    cases += applyScaleCases()
    a = np.arange(48, dtype=np.float32).reshape(8, 6)
    b = np.arange(35, dtype=np.float32).reshape(7, 5) + 100
    packs = [
        packReference(a, [0, 1], [4, 2]),
        packReference(a, [0, 1], [4, 2], [1, 0]),
        packReference(a, [1, 0], [2, 4]),
        packReference(a, [1], [3]),
        packReference(b, [0, 1], [4, 2], pad=-1.0),
    ]
    # An unpack of a pack gives back the packed tensor.
    cases.append(RunCase("linalg.pack", "pack_unpack", PACK_UNPACK, [a, b],
                         packs + [a, a, b]))
    return cases


def compare(got: np.ndarray, want: np.ndarray, ulps: float,
            atol: float) -> str:
    """Empty when `got` matches `want`: exactly for integers and booleans;
    for floats within `ulps` units in the last place or `atol`, NaN where
    NaN is wanted."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return (f"got {got.dtype}{list(got.shape)}, want "
                f"{want.dtype}{list(want.shape)}")
    if want.dtype.kind == "f":
        with np.errstate(all="ignore"):
            g, w = got.astype(np.float64), want.astype(np.float64)
            ulp = np.spacing(np.abs(want)).astype(np.float64)
            bad = ~((np.isnan(g) & np.isnan(w)) | (g == w) |
                    (np.abs(g - w) <= np.maximum(ulps * ulp, atol)))
    else:
        bad = got != want
    if not bad.any():
        return ""
    i = tuple(np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at "
            f"{list(i)}: got {got[i]!r}, want {want[i]!r}")


def runNumeric(compiler: Compiler, binDir: str, driver: str,
               cases: List[RunCase], report: e2elib.Report):
    r = compiler.compile("numeric", [c.text for c in cases])
    if r.rc != 0 or r.problem:
        for c in cases:
            report.result(False, f"{c.op} {c.name}",
                          f"compile: {firstError(r)}")
        return
    tool = os.path.join(binDir, "kiln-run-module")
    for c in cases:
        argv = [tool, f"--device={driver}",
                f"--module={compiler.output('numeric')}",
                f"--function={c.name}"]
        for i, x in enumerate(c.inputs):
            path = os.path.join(compiler.work, f"{c.name}_in{i}.npy")
            np.save(path, x)
            argv.append(f"--input=@{path}")
        outputs = [os.path.join(compiler.work, f"{c.name}_out{i}.npy")
                   for i in range(len(c.expected))]
        argv += [f"--output=@{path}" for path in outputs]
        run = e2elib.runTool(argv, compiler.timeout)
        if run.rc != 0 or run.problem:
            report.result(False, f"{c.op} {c.name}", run.describe())
            continue
        problems = []
        for i, (path, want) in enumerate(zip(outputs, c.expected)):
            problem = compare(np.load(path), want, c.ulps, c.atol)
            if problem:
                problems.append(f"result {i}: {problem}")
        report.result(not problems, f"{c.op} {c.name}", "; ".join(problems))


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-run-module")
    p.add_argument("--driver", default="local-task",
                   help="device that runs the numeric checks")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=25,
                   help="ops per compiled file")
    p.add_argument("--filter", default="",
                   help="only ops whose name contains this")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--keep-temp", action="store_true")
    return p.parse_args()


def main() -> int:
    args = parseArgs()
    report = e2elib.Report()
    missing = e2elib.missingTools(args.bin_dir,
                                  ["kiln-compile", "kiln-run-module"])
    if missing:
        return e2elib.fatal(f"missing tools: {' '.join(missing)}", report)
    allowlist, excepted = readAllowlist()
    if not allowlist:
        return e2elib.fatal(f"no KILN_OP entry in {DEF_FILE}", report)
    accepted = {op for op, _ in allowlist}
    unknown = sorted(set(excepted) - accepted)
    if unknown:
        return e2elib.fatal(f"KILN_OP_EXCEPT of ops not accepted: {unknown}",
                            report)
    samples = [buildSamples(op, kind, excepted.get(op, []))
               for op, kind in allowlist if args.filter in op]
    work = tempfile.mkdtemp(prefix="kiln-ops-")
    compiler = Compiler(args.bin_dir, work, args.timeout)
    failures = compileAll(compiler, [s for s in samples if not s.problem],
                          args.batch_size, args.jobs)
    for s in samples:
        problem = s.problem or failures.get(s.op, "")
        n = len(s.functions)
        report.result(not problem, s.op,
                      problem or f"{n} sample{'s' if n != 1 else ''}")

    # Refusals: ops on their excepted element types, and the ops left off
    # the list whose templates stay here to show they are refused by name.
    refusals = [(name, s.op, text, t) for s in samples if not s.problem
                for name, text, t in s.refused]
    refusals += [(name, op, text, "") for op in sorted(CUSTOM)
                 if op not in accepted and args.filter in op
                 for name, text in buildSamples(op, "custom", []).functions]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        outcomes = pool.map(
            lambda r: checkRefusal(compiler, f"refused_{r[0]}", *r[1:]),
            refusals)
        for (name, op, _, t), problem in zip(refusals, outcomes):
            report.result(not problem, f"refused {op}{' on ' + t if t else ''}"
                          f" ({name})", problem)

    cases = [c for c in runCases() if args.filter in c.op]
    if cases:
        runNumeric(compiler, args.bin_dir, args.driver, cases, report)
    if args.keep_temp:
        print(f"temporary files kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
