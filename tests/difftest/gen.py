"""Random program generator for differential testing.

generate(seed, index) builds one small MLIR function from the ops Kiln
accepts (func, linalg named ops and linalg.generic, tensor, arith, math and
tosa on static shapes), random inputs for it, and the float64 numpy
reference of each result with the magnitude and tolerance it is compared
under (tests/e2e/cases.py: `compare`, `TOLERANCES`).

How a program is built: a value of a wanted shape and element type is asked
for (`operand`); it comes from a function argument, a dense constant, a
fill, a value the function already computed, or an op built to produce that
shape (an elementwise op, a contraction, a convolution, a pooling, a
reduction, a transpose, a broadcast, a slice, a pad, a concat, a reshape...)
whose own operands are asked for the same way, down to a depth limit. The
result is a DAG with elementwise producers and consumers around the
reduction-carrying ops, several dispatches in sequence, and accumulators
taken from each of the four sources (argument, constant, fill, another
dispatch's result).

The reference is computed while the program is built, from the exact input
values: every value carries its reference (float64; f16 values rounded to f16
after each op, as the compiled code rounds them; i32 values as int64), its
magnitude for the relative tolerance (contractions: the same contraction over
magnitudes, as cases.py's scale functions do), whether it went through a
polynomial approximation (exp, tanh, sigmoid: the f32_approx tolerance), and
whether it is bit-exact (data movement, abs, negate, max, min, select of
exact values: compared exactly). Knowing the concrete values lets the
generator refuse an op that would overflow i32, push f16 out of range, or
make a comparison that rounding could flip.

Deterministic: the program is a function of (seed, index) alone.
"""

import dataclasses
import os
import sys
from typing import List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "e2e"))
import cases  # noqa: E402  (TOLERANCES, NUMPY_DTYPES, windows)

FLOATS = ("f32", "f16")

# Largest magnitude a value may reach; an op that goes past it is not
# emitted. Keeps f16 ulps small against the f16 tolerance and i32 far from
# overflow whatever follows.
LIMITS = {"f32": 1e5, "f16": 1e3, "i32": 2**24}

# Dimensions drawn for shapes: 1s, primes (no tile size divides them) and
# powers of two, small enough that a few hundred programs run in minutes.
PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 47, 53, 61, 67, 71,
          97, 131)
COMPOSITES = (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def tensorType(shape: Sequence[int], dtype: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def roundTo(dtype: str, x):
    """What an op producing `dtype` stores, in the reference's float64/int64."""
    x = np.asarray(x)
    if dtype == "f16":
        # Past the f16 range is inf, which checkRange refuses.
        with np.errstate(over="ignore"):
            return x.astype(np.float16).astype(np.float64)
    if dtype == "i32":
        return x.astype(np.int64)
    return x.astype(np.float64)


def floatLiteral(v: float) -> str:
    """An MLIR float literal that parses to exactly v (v is on a k/64 grid)."""
    text = repr(float(v))
    return text if ("." in text or "e" in text) else text + ".0"


def scalarLiteral(v, dtype: str) -> str:
    if dtype == "i32":
        return str(int(v))
    if v == -np.inf:
        return "0xFF800000" if dtype == "f32" else "0xFC00"
    return floatLiteral(v)


def denseHex(values: np.ndarray, dtype: str) -> str:
    npType = {"f32": "<f4", "f16": "<f2", "i32": "<i4", "i8": "i1"}[dtype]
    return '"0x' + values.astype(npType).tobytes().hex().upper() + '"'


def maxOver(a: np.ndarray, axis) -> np.ndarray:
    """Max over `axis`, the lowest value where the axis is empty."""
    lowest = -2**62 if a.dtype.kind == "i" else -np.inf
    return a.max(axis=axis, initial=lowest)


def mapText(rank: int, dims: Sequence[int]) -> str:
    ds = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in dims)})>"


@dataclasses.dataclass
class Val:
    name: str
    shape: Tuple[int, ...]
    dtype: str
    ref: np.ndarray  # float64 (f16 already rounded) or int64
    scale: np.ndarray  # magnitude for the relative tolerance
    approx: bool = False  # a polynomial approximation is upstream
    exact: bool = True  # the compiled value must equal ref bit for bit
    kind: str = "op"  # arg | const | fill | op


@dataclasses.dataclass
class Expected:
    shape: Tuple[int, ...]
    dtype: str
    ref: np.ndarray
    scale: np.ndarray
    tol: str


@dataclasses.dataclass
class Program:
    name: str
    text: str  # one func.func
    inputs: List[np.ndarray]
    outputs: List[Expected]
    tags: List[str]  # what was built, for failure lines


class Infeasible(Exception):
    """An op cannot be built here (values would overflow, shapes too large);
    the caller picks something else."""


class _Gen:

    def __init__(self, rng: np.random.Generator, name: str):
        self.rng = rng
        self.name = name
        self.lines: List[str] = []
        self.args: List[Val] = []
        self.inputs: List[np.ndarray] = []
        self.pool: List[Val] = []  # values the function computed
        self.tags: List[str] = []
        self.counter = 0
        # A few programs draw zero-size dimensions: a legal shape whose
        # result is just the accumulator (or nothing at all).
        self.zeroRate = 0.05 if rng.random() < 0.08 else 0.0

    # ---- small helpers -----------------------------------------------------

    def fresh(self, prefix="v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, line: str):
        self.lines.append("  " + line)

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def weighted(self, options):
        """options: [(weight, value)] with weight > 0 for the eligible ones."""
        options = [(w, v) for w, v in options if w > 0]
        total = sum(w for w, _ in options)
        x = self.rng.random() * total
        for w, v in options:
            x -= w
            if x < 0:
                return v
        return options[-1][1]

    def dim(self, cap: int = 64, zeroOk: bool = True) -> int:
        cap = max(cap, 1)
        if zeroOk and self.zeroRate and self.rng.random() < self.zeroRate:
            return 0
        r = self.rng.random()
        if r < 0.15:
            return 1
        pool = PRIMES if r < 0.65 else COMPOSITES
        fits = [d for d in pool if d <= cap]
        return self.choice(fits) if fits else 1

    def shape(self, rank: int, maxElems: int = 4096, cap: int = 64,
              zeroOk: bool = True) -> Tuple[int, ...]:
        dims = []
        budget = maxElems
        for _ in range(rank):
            d = self.dim(min(cap, max(budget, 1)), zeroOk)
            dims.append(d)
            budget //= max(d, 1)
        order = self.rng.permutation(rank)
        return tuple(dims[i] for i in order)

    def empty(self, shape, dtype) -> str:
        name = self.fresh("e")
        self.emit(f"{name} = tensor.empty() : {tensorType(shape, dtype)}")
        return name

    def scalarConst(self, value, dtype) -> str:
        name = self.fresh("c")
        self.emit(f"{name} = arith.constant {scalarLiteral(value, dtype)} : "
                  f"{dtype}")
        return name

    def tosaConst(self, values: np.ndarray, shape, dtype) -> str:
        name = self.fresh("t")
        t = tensorType(shape, dtype)
        self.emit(f'{name} = "tosa.const"() <{{values = dense<'
                  f'{denseHex(np.asarray(values).reshape(-1), dtype)}> : {t}}}>'
                  f" : () -> {t}")
        return name

    def tosaShape(self, values: Sequence[int]) -> str:
        name = self.fresh("s")
        n = len(values)
        body = ", ".join(str(int(v)) for v in values)
        self.emit(f"{name} = tosa.const_shape {{values = dense<[{body}]> : "
                  f"tensor<{n}xindex>}} : () -> !tosa.shape<{n}>")
        return name

    def tosaZp(self, dtype) -> str:
        return self.tosaConst(np.zeros(1), (1,), dtype)

    @staticmethod
    def tosaOk(*shapes) -> bool:
        """TOSA ops take no zero-size tensors."""
        return all(d > 0 for s in shapes for d in s)

    def checkRange(self, ref: np.ndarray, dtype: str):
        if ref.size and (not np.all(np.isfinite(ref)) or
                         np.abs(ref).max() > LIMITS[dtype]):
            raise Infeasible("out of range")

    def randomValues(self, shape, dtype, quant=False) -> np.ndarray:
        """Random values, never all zero. `quant` draws from the k/8 grid in
        [-1, 1]: an f16 contraction of such values is exact in any order."""
        for _ in range(100):
            if dtype == "i32":
                hi = 4 if quant else 9
                a = self.rng.integers(-hi, hi, size=shape, endpoint=True)
            elif quant:
                a = self.rng.integers(-8, 8, size=shape, endpoint=True) / 8.0
            else:
                a = self.rng.uniform(-2.0, 2.0, size=shape)
            # The values the function really gets, so references start exact.
            a = a.astype(cases.NUMPY_DTYPES[dtype]).astype(
                np.int64 if dtype == "i32" else np.float64)
            if a.size == 0 or np.any(a != 0):
                return a
        raise AssertionError("cannot draw non-zero values")

    def gridScalar(self, dtype, nonzero=False) -> float:
        while True:
            v = int(self.rng.integers(-16, 16, endpoint=True))
            if v or not nonzero:
                return v if dtype == "i32" else v / 8.0

    # ---- leaves ------------------------------------------------------------

    def arg(self, shape, dtype, quant=False) -> Val:
        values = self.randomValues(shape, dtype, quant)
        name = f"%a{len(self.args)}"
        v = Val(name, tuple(shape), dtype, values, np.abs(values).astype(
            np.float64), kind="arg")
        self.args.append(v)
        self.inputs.append(values.astype(cases.NUMPY_DTYPES[dtype]))
        return v

    def const(self, shape, dtype, quant=False) -> Val:
        values = self.randomValues(shape, dtype, quant)
        name = self.fresh("k")
        t = tensorType(shape, dtype)
        if self.rng.random() < 0.3:
            self.emit(f'{name} = "tosa.const"() <{{values = dense<'
                      f'{denseHex(values.reshape(-1), dtype)}> : {t}}}> : '
                      f"() -> {t}")
        else:
            self.emit(f"{name} = arith.constant dense<"
                      f"{denseHex(values.reshape(-1), dtype)}> : {t}")
        return Val(name, tuple(shape), dtype, values,
                   np.abs(values).astype(np.float64), kind="const")

    def fill(self, shape, dtype, value=None) -> Val:
        if value is None:
            value = self.gridScalar(dtype)
        c = self.scalarConst(value, dtype)
        e = self.empty(shape, dtype)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.fill ins({c} : {dtype}) outs({e} : {t}) "
                  f"-> {t}")
        ref = np.full(shape, value, dtype=np.float64)
        # An identity fill (-inf for max) carries no magnitude of its own.
        scale = np.where(np.isfinite(ref), np.abs(ref), 0.0)
        return Val(name, tuple(shape), dtype, roundTo(dtype, ref), scale,
                   kind="fill")

    # ---- operands ----------------------------------------------------------

    def operand(self, shape, dtype, depth, quant=False) -> Val:
        """A value of this shape and type from any source (see module doc).
        With `quant`, only sources that keep an f16/i32 contraction exact:
        leaves and data movement of them."""
        shape = tuple(shape)
        numel = int(np.prod(shape)) if shape else 1
        rank = len(shape)
        reuse = [v for v in self.pool if v.shape == shape and v.dtype == dtype
                 and (not quant or self.isQuant(v))]
        derive = depth > 0
        options = [
            (4, "arg"),
            (1 if 0 < numel <= 2048 else 0, "const"),
            (0 if quant else 1, "fill"),
            (3 if reuse else 0, "reuse"),
            (3 if derive and not quant else 0, "elementwise"),
            (1 if derive and rank >= 2 else 0, "transpose"),
            (1 if derive and rank >= 1 else 0, "broadcast"),
            (1 if derive and rank >= 1 else 0, "slice"),
            (0.5 if derive and rank >= 1 else 0, "insert_slice"),
            (0.5 if derive and rank >= 1 else 0, "pad"),
            (0.5 if derive and rank >= 1 else 0, "concat"),
            (0.5 if derive and rank >= 1 else 0, "reshape"),
            (1 if derive and not quant else 0, "compute"),
        ]
        for _ in range(8):
            kind = self.weighted(options)
            try:
                if kind == "arg":
                    return self.arg(shape, dtype, quant)
                if kind == "const":
                    return self.const(shape, dtype, quant)
                if kind == "fill":
                    return self.fill(shape, dtype)
                if kind == "reuse":
                    return self.choice(reuse)
                if kind == "compute":
                    return self.compute(shape, dtype, depth - 1)
                return self.build(kind, shape, dtype, depth - 1, quant)
            except Infeasible:
                continue
        return self.arg(shape, dtype, quant)

    def isQuant(self, v: Val) -> bool:
        if v.dtype == "i32":
            return v.ref.size == 0 or np.abs(v.ref).max() <= 4
        r = v.ref * 8
        return v.exact and (r.size == 0 or (np.all(r == np.round(r)) and
                                            np.abs(v.ref).max() <= 1))

    # An op appends lines and may create arguments before it finds it is
    # infeasible; a checkpoint lets build() undo that.
    def checkpoint(self):
        return (len(self.lines), len(self.args), len(self.inputs),
                len(self.pool), len(self.tags))

    def restore(self, cp):
        nl, na, ni, npool, nt = cp
        del self.lines[nl:]
        del self.args[na:]
        del self.inputs[ni:]
        del self.pool[npool:]
        del self.tags[nt:]

    def build(self, kind, shape, dtype, depth, quant=False) -> Val:
        """Builds an op of `kind` producing `shape`, undoing everything it
        emitted if it turns out infeasible."""
        cp = self.checkpoint()
        try:
            v = getattr(self, "op_" + kind)(tuple(shape), dtype, depth, quant)
            self.checkRange(v.ref, dtype)
        except Infeasible:
            self.restore(cp)
            raise
        self.pool.append(v)
        return v

    def compute(self, shape, dtype, depth) -> Val:
        """A reduction-carrying op (or an elementwise chain where none fits)
        producing `shape`: the dispatch roots the generator is about."""
        rank = len(shape)
        options = [
            (3 if rank == 2 else 0, "matmul"),
            (2 if rank == 3 else 0, "batch_matmul"),
            (1 if rank == 3 and dtype == "f32" and self.tosaOk(shape) else 0,
             "tosa_matmul"),
            (1 if rank == 1 else 0, "matvec"),
            (2 if rank == 4 else 0, "conv"),
            (2 if rank == 4 else 0, "depthwise"),
            (2 if rank == 4 else 0, "pool"),
            (2 if rank <= 3 else 0, "reduction"),
            (1 if 1 in shape and self.tosaOk(shape) else 0, "tosa_reduce"),
            (1, "elementwise"),
        ]
        for _ in range(4):
            kind = self.weighted(options)
            try:
                return self.build(kind, shape, dtype, depth)
            except Infeasible:
                continue
        return self.build("elementwise", shape, dtype, depth)

    def accumulator(self, shape, dtype, depth, identity,
                    quant=False) -> Tuple[Val, str]:
        """The outs of a reduction-carrying op and where it came from: an
        argument, a dense constant, a fill or another dispatch's result."""
        numel = int(np.prod(shape)) if shape else 1
        source = self.weighted([
            (1, "arg"), (1 if 0 < numel <= 2048 else 0, "const"),
            (1.5, "fill"), (1.5, "dispatch")])
        if source == "arg":
            acc = self.arg(shape, dtype, quant)
        elif source == "const":
            acc = self.const(shape, dtype, quant)
        elif source == "fill":
            # Mostly the identity (0, -inf), sometimes any value.
            value = identity if self.rng.random() < 0.6 else self.gridScalar(
                dtype)
            acc = self.fill(shape, dtype, value)
        else:
            acc = self.dispatchResult(shape, dtype, max(depth, 0), quant)
        return acc, source

    def dispatchResult(self, shape, dtype, depth, quant) -> Val:
        """A value computed by an op of its own: a value already computed,
        an elementwise op (of quantized values, where needed), a
        contraction or a reduction."""
        reuse = [v for v in self.pool if v.shape == shape and v.dtype == dtype
                 and v.kind == "op" and (not quant or self.isQuant(v))]
        if reuse and self.rng.random() < 0.3:
            return self.choice(reuse)
        for _ in range(4):
            cp = self.checkpoint()
            try:
                if quant:
                    kind = self.choice(["transpose", "slice", "pad",
                                        "elementwise_exact"])
                    if kind == "transpose" and len(shape) < 2:
                        kind = "elementwise_exact"
                    if kind in ("slice", "pad") and not shape:
                        kind = "elementwise_exact"
                    return self.build(kind, shape, dtype, depth, True)
                if self.rng.random() < 0.5:
                    return self.build("elementwise", shape, dtype, depth)
                return self.compute(shape, dtype, depth)
            except Infeasible:
                self.restore(cp)
        return self.build("elementwise_exact", shape, dtype, 0, quant)

    # ---- elementwise -------------------------------------------------------

    def op_elementwise(self, shape, dtype, depth, quant) -> Val:
        flavor = self.weighted([(3, "generic"),
                                 (2 if self.tosaOk(shape) else 0, "tosa"),
                                 (1, "named")])
        if flavor == "tosa":
            return self.tosaElementwise(shape, dtype, depth)
        if flavor == "named":
            return self.namedElementwise(shape, dtype, depth)
        return self.genericElementwise(shape, dtype, depth)

    def op_elementwise_exact(self, shape, dtype, depth, quant) -> Val:
        """max/min/abs/negate of (quantized) values: stays exact and on the
        grid, for an f16 accumulator that must stay exact."""
        a = self.operand(shape, dtype, depth, quant)
        b = self.operand(shape, dtype, depth, quant)
        e = self.empty(shape, dtype)
        t = tensorType(shape, dtype)
        name = self.fresh()
        op = self.choice(["max", "min"])
        self.emit(f"{name} = linalg.{op} ins({a.name}, {b.name} : {t}, {t}) "
                  f"outs({e} : {t}) -> {t}")
        f = np.maximum if op == "max" else np.minimum
        self.tags.append(f"linalg.{op}")
        return Val(name, shape, dtype, f(a.ref, b.ref),
                   np.maximum(a.scale, b.scale), a.approx or b.approx,
                   a.exact and b.exact)

    def broadcastShape(self, shape) -> Tuple[Tuple[int, ...], List[int]]:
        """A lower-rank shape to broadcast into `shape`: (shape, kept dims)."""
        rank = len(shape)
        keep = sorted(self.rng.choice(rank, size=int(self.rng.integers(rank)),
                                      replace=False).tolist()) if rank else []
        return tuple(shape[i] for i in keep), keep

    def genericElementwise(self, shape, dtype, depth, first=None) -> Val:
        """linalg.generic with a random arith/math body over 1-3 operands,
        some broadcast through their indexing maps; the first is `first`
        where given (a consumer of it)."""
        rank = len(shape)
        operands, maps = [], []
        for i in range(int(self.rng.integers(1, 4))):
            if i == 0 and first is not None:
                operands.append(first)
                maps.append(list(range(rank)))
            elif i > 0 and rank and self.rng.random() < 0.4:
                bshape, keep = self.broadcastShape(shape)
                operands.append(self.operand(bshape, dtype, depth))
                maps.append(keep)
            else:
                operands.append(self.operand(shape, dtype, depth))
                maps.append(list(range(rank)))
        # Scalars available to the body: (ssa name, Val over the full shape).
        args = [self.fresh("x") for _ in operands]
        outArg = self.fresh("o")
        body: List[str] = []
        scalars = []
        for name, v, m in zip(args, operands, maps):
            ref = self.expand(v.ref, shape, m)
            scale = self.expand(v.scale, shape, m)
            scalars.append(Val(name, shape, dtype, ref, scale, v.approx,
                               v.exact))
        extf = dtype == "f16" and self.rng.random() < 0.3
        if extf:
            # Compute in f32 inside the body, store f16 (a common pattern).
            for i, s in enumerate(scalars):
                n = self.fresh("w")
                body.append(f"{n} = arith.extf {s.name} : f16 to f32")
                scalars[i] = dataclasses.replace(s, name=n, dtype="f32")
        cdtype = "f32" if extf else dtype
        steps = int(self.rng.integers(1, 5))
        done = 0
        for _ in range(steps * 4):
            if done == steps:
                break
            res = self.scalarOp(scalars, cdtype, body)
            if res is not None:
                scalars.append(res)
                done += 1
        if done == 0:
            raise Infeasible("no scalar op fits")
        last = scalars[-1]
        ref = last.ref
        if extf:
            n = self.fresh("w")
            body.append(f"{n} = arith.truncf {last.name} : f32 to f16")
            ref = roundTo("f16", ref)
            last = dataclasses.replace(last, name=n, exact=False)
        e = self.empty(shape, dtype)
        name = self.fresh()
        t = tensorType(shape, dtype)
        allMaps = [mapText(rank, m) for m in maps] + [
            mapText(rank, range(rank))]
        its = ", ".join(['"parallel"'] * rank)
        ins = ", ".join(v.name for v in operands)
        insT = ", ".join(tensorType(v.shape, dtype) for v in operands)
        blockArgs = ", ".join(f"{a}: {dtype}" for a in args) + \
            f", {outArg}: {dtype}"
        self.emit(f"{name} = linalg.generic {{indexing_maps = "
                  f"[{', '.join(allMaps)}], iterator_types = [{its}]}} "
                  f"ins({ins} : {insT}) outs({e} : {t}) {{")
        self.emit(f"^bb0({blockArgs}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {last.name} : {dtype}")
        self.emit(f"}} -> {t}")
        self.tags.append("generic" + ("(extf)" if extf else ""))
        return Val(name, shape, dtype, ref, last.scale, last.approx,
                   last.exact)

    @staticmethod
    def expand(a: np.ndarray, shape, keep: Sequence[int]) -> np.ndarray:
        """Broadcasts `a` (dims `keep` of `shape`) to `shape`."""
        full = [1] * len(shape)
        for src, dst in enumerate(keep):
            full[dst] = a.shape[src]
        return np.broadcast_to(a.reshape(full), shape)

    def scalarOp(self, scalars: List[Val], dtype, body) -> Optional[Val]:
        """Appends one arith/math op over the scalars to `body`; returns its
        value, or None when it would leave range or compare inexact values."""
        recent = scalars[-1]
        other = self.choice(scalars)
        r = lambda x: roundTo(dtype, x)
        n = self.fresh("y")
        lines = []
        if dtype == "i32":
            op = self.choice(["addi", "subi", "muli", "maxsi", "minsi",
                              "divsi", "remsi", "select", "andi", "xori",
                              "addc"])
            a, b = recent.ref, other.ref
            if op in ("divsi", "remsi", "andi", "xori", "addc"):
                c = int(self.choice([2, 3, -5, 7, 12])) if op in (
                    "divsi", "remsi") else int(self.rng.integers(-20, 21))
                cn = self.fresh("c")
                lines.append(f"{cn} = arith.constant {c} : i32")
                if op == "divsi":
                    ref = cases.truncDiv(a, c)
                elif op == "remsi":
                    ref = np.fmod(a, c)
                elif op == "andi":
                    ref = a & c
                elif op == "xori":
                    ref = a ^ c
                else:
                    ref = a + c
                mop = "addi" if op == "addc" else op
                lines.append(f"{n} = arith.{mop} {recent.name}, {cn} : i32")
            elif op == "select":
                pred = self.choice(["slt", "sgt", "eq"])
                cmp = self.fresh("p")
                lines.append(f"{cmp} = arith.cmpi {pred}, {recent.name}, "
                             f"{other.name} : i32")
                mask = {"slt": a < b, "sgt": a > b, "eq": a == b}[pred]
                third = self.choice(scalars)
                lines.append(f"{n} = arith.select {cmp}, {third.name}, "
                             f"{recent.name} : i32")
                ref = np.where(mask, third.ref, a)
            else:
                f = {"addi": np.add, "subi": np.subtract, "muli": np.multiply,
                     "maxsi": np.maximum, "minsi": np.minimum}[op]
                ref = f(a, b)
                lines.append(f"{n} = arith.{op} {recent.name}, {other.name} "
                             f": i32")
            ref = np.asarray(ref, dtype=np.int64)
            if ref.size and np.abs(ref).max() > LIMITS["i32"]:
                return None
            body.extend(lines)
            return Val(n, recent.shape, dtype, ref, np.abs(ref).astype(
                np.float64))

        op = self.choice(["addf", "subf", "mulf", "maximumf", "minimumf",
                          "negf", "absf", "exp", "tanh", "sigmoid",
                          "sqrt1p", "mulc", "divc", "select"])
        a, sa = recent.ref, recent.scale
        b, sb = other.ref, other.scale
        approx = recent.approx
        exact = False
        if op in ("addf", "subf", "mulf", "maximumf", "minimumf"):
            f = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply,
                 "maximumf": np.maximum, "minimumf": np.minimum}[op]
            ref = r(f(a, b))
            if op in ("addf", "subf"):
                scale = sa + sb
            elif op == "mulf":
                scale = sa * sb
            else:
                scale = np.maximum(sa, sb)
                exact = recent.exact and other.exact
            approx = approx or other.approx
            lines.append(f"{n} = arith.{op} {recent.name}, {other.name} : "
                         f"{dtype}")
        elif op in ("negf", "absf"):
            ref = -a if op == "negf" else np.abs(a)
            scale, exact = sa, recent.exact
            dialect = "arith" if op == "negf" else "math"
            lines.append(f"{n} = {dialect}.{op} {recent.name} : {dtype}")
        elif op == "exp":
            if a.size and np.abs(a).max() > 6:
                return None
            ref = r(np.exp(a))
            scale, approx = np.abs(ref) * (1 + sa), True
            lines.append(f"{n} = math.exp {recent.name} : {dtype}")
        elif op == "tanh":
            ref = r(np.tanh(a))
            scale, approx = np.abs(ref) + sa, True
            lines.append(f"{n} = math.tanh {recent.name} : {dtype}")
        elif op == "sigmoid":
            # 1 / (1 + exp(-x)), as tosa.sigmoid lowers to.
            if a.size and -a.max() > 6:
                return None
            one, ng, ex, den = (self.fresh("y") for _ in range(4))
            lines += [f"{one} = arith.constant 1.0 : {dtype}",
                      f"{ng} = arith.negf {recent.name} : {dtype}",
                      f"{ex} = math.exp {ng} : {dtype}",
                      f"{den} = arith.addf {one}, {ex} : {dtype}",
                      f"{n} = arith.divf {one}, {den} : {dtype}"]
            ref = r(1.0 / r(1.0 + r(np.exp(-a))))
            scale, approx = np.abs(ref) + sa / 4, True
        elif op == "sqrt1p":
            # sqrt(x*x + 1): the derivative stays below 1, so input error
            # cannot blow up near 0.
            one, sq, s = (self.fresh("y") for _ in range(3))
            lines += [f"{one} = arith.constant 1.0 : {dtype}",
                      f"{sq} = arith.mulf {recent.name}, {recent.name} : "
                      f"{dtype}",
                      f"{s} = arith.addf {sq}, {one} : {dtype}",
                      f"{n} = math.sqrt {s} : {dtype}"]
            ref = r(np.sqrt(r(r(a * a) + 1.0)))
            scale = np.abs(ref) + sa * sa / 2 + sa
        elif op in ("mulc", "divc"):
            c = float(self.choice([2.0, -3.0, 0.5, 1.25, -0.75, 3.0]))
            cn = self.fresh("c")
            lines.append(f"{cn} = arith.constant {floatLiteral(c)} : {dtype}")
            mop = "mulf" if op == "mulc" else "divf"
            lines.append(f"{n} = arith.{mop} {recent.name}, {cn} : {dtype}")
            ref = r(a * c if op == "mulc" else a / c)
            scale = sa * abs(c) if op == "mulc" else sa / abs(c)
        else:  # select on a comparison: only of exact values, which
            # rounding cannot flip.
            if not (recent.exact and other.exact):
                return None
            third = self.choice(scalars)
            pred = self.choice(["ogt", "olt", "oge"])
            cmp = self.fresh("p")
            lines.append(f"{cmp} = arith.cmpf {pred}, {recent.name}, "
                         f"{other.name} : {dtype}")
            lines.append(f"{n} = arith.select {cmp}, {third.name}, "
                         f"{recent.name} : {dtype}")
            mask = {"ogt": a > b, "olt": a < b, "oge": a >= b}[pred]
            ref = np.where(mask, third.ref, a)
            scale = np.where(mask, third.scale, sa)
            approx = approx or third.approx
            exact = third.exact
        ref = np.asarray(ref, dtype=np.float64)
        limit = LIMITS["f16" if dtype == "f16" else "f32"]
        if ref.size and (not np.all(np.isfinite(ref)) or
                         np.abs(ref).max() > limit):
            return None
        body.extend(lines)
        return Val(n, recent.shape, dtype, ref,
                   np.asarray(scale, dtype=np.float64), approx, exact)

    def tosaBroadcastOperand(self, shape, dtype, depth) -> Val:
        """A tosa operand: same rank, some dims may be 1 (broadcast)."""
        if shape and self.rng.random() < 0.4:
            bshape = tuple(1 if self.rng.random() < 0.5 else d for d in shape)
            return self.operand(bshape, dtype, depth)
        return self.operand(shape, dtype, depth)

    def tosaElementwise(self, shape, dtype, depth) -> Val:
        t = tensorType(shape, dtype)
        ops = ["add", "sub", "mul", "maximum", "minimum", "clamp", "abs",
               "negate"]
        if dtype in FLOATS:
            ops += ["exp", "tanh", "sigmoid"]
        op = self.choice(ops)
        a = self.operand(shape, dtype, depth)
        r = lambda x: roundTo(dtype, x)
        name = self.fresh()
        if op in ("add", "sub", "mul", "maximum", "minimum"):
            b = self.tosaBroadcastOperand(shape, dtype, depth)
            tb = tensorType(b.shape, dtype)
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                 "maximum": np.maximum, "minimum": np.minimum}[op]
            ref = r(f(a.ref, b.ref))
            sb = np.broadcast_to(b.scale, shape)
            scale = {"add": a.scale + sb, "sub": a.scale + sb,
                     "mul": a.scale * sb}.get(op, np.maximum(a.scale, sb))
            exact = op in ("maximum", "minimum") and a.exact and b.exact
            if op == "mul":
                shift = self.tosaConst(np.zeros(1), (1,), "i8")
                self.emit(f"{name} = tosa.mul {a.name}, {b.name}, {shift} : "
                          f"({t}, {tb}, tensor<1xi8>) -> {t}")
            else:
                self.emit(f"{name} = tosa.{op} {a.name}, {b.name} : "
                          f"({t}, {tb}) -> {t}")
            v = Val(name, shape, dtype, ref, scale, a.approx or b.approx,
                    exact)
        elif op == "clamp":
            lo = self.gridScalar(dtype)
            hi = lo + abs(self.gridScalar(dtype, nonzero=True))
            self.emit(f"{name} = tosa.clamp {a.name} {{min_val = "
                      f"{scalarLiteral(lo, dtype)} : {dtype}, max_val = "
                      f"{scalarLiteral(hi, dtype)} : {dtype}}} : ({t}) -> {t}")
            v = Val(name, shape, dtype, np.clip(a.ref, lo, hi), a.scale,
                    a.approx, a.exact)
        elif op in ("abs", "negate"):
            ref = np.abs(a.ref) if op == "abs" else -a.ref
            if op == "abs":
                self.emit(f"{name} = tosa.abs {a.name} : ({t}) -> {t}")
            else:
                zp = self.tosaZp(dtype)
                zt = tensorType((1,), dtype)
                self.emit(f"{name} = tosa.negate {a.name}, {zp}, {zp} : "
                          f"({t}, {zt}, {zt}) -> {t}")
            v = Val(name, shape, dtype, ref, a.scale, a.approx, a.exact)
        else:
            x = a.ref
            if op == "exp":
                if x.size and np.abs(x).max() > 6:
                    raise Infeasible("exp range")
                ref = r(np.exp(x))
                scale = np.abs(ref) * (1 + a.scale)
            elif op == "tanh":
                ref = r(np.tanh(x))
                scale = np.abs(ref) + a.scale
            else:
                ref = r(cases.sigmoid(x))
                scale = np.abs(ref) + a.scale / 4
            self.emit(f"{name} = tosa.{op} {a.name} : ({t}) -> {t}")
            v = Val(name, shape, dtype, ref, scale, True, False)
        if dtype == "i32":
            v.scale = np.abs(v.ref).astype(np.float64)
        self.tags.append(f"tosa.{op}")
        return v

    def namedElementwise(self, shape, dtype, depth) -> Val:
        ops = ["add", "sub", "mul", "max", "min"]
        if dtype in FLOATS:
            ops += ["exp", "abs", "negf", "tanh"]
        op = self.choice(ops)
        t = tensorType(shape, dtype)
        a = self.operand(shape, dtype, depth)
        r = lambda x: roundTo(dtype, x)
        e = self.empty(shape, dtype)
        name = self.fresh()
        if op in ("add", "sub", "mul", "max", "min"):
            b = self.operand(shape, dtype, depth)
            f = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                 "max": np.maximum, "min": np.minimum}[op]
            ref = r(f(a.ref, b.ref))
            scale = {"add": a.scale + b.scale, "sub": a.scale + b.scale,
                     "mul": a.scale * b.scale}.get(
                         op, np.maximum(a.scale, b.scale))
            self.emit(f"{name} = linalg.{op} ins({a.name}, {b.name} : {t}, "
                      f"{t}) outs({e} : {t}) -> {t}")
            v = Val(name, shape, dtype, ref, scale, a.approx or b.approx,
                    op in ("max", "min") and a.exact and b.exact)
        else:
            x = a.ref
            if op == "exp" and x.size and np.abs(x).max() > 6:
                raise Infeasible("exp range")
            ref = r({"exp": np.exp, "abs": np.abs, "negf": np.negative,
                     "tanh": np.tanh}[op](x))
            approx = op in ("exp", "tanh")
            scale = {"exp": np.abs(ref) * (1 + a.scale),
                     "tanh": np.abs(ref) + a.scale}.get(op, a.scale)
            self.emit(f"{name} = linalg.{op} ins({a.name} : {t}) "
                      f"outs({e} : {t}) -> {t}")
            v = Val(name, shape, dtype, ref, scale, a.approx or approx,
                    not approx and a.exact)
        if dtype == "i32":
            v.scale = np.abs(v.ref).astype(np.float64)
        self.tags.append(f"linalg.{op}")
        return v

    # ---- contractions, convolutions, pooling, reductions --------------------

    def contractionTypes(self, dtype):
        """(input type, quantized inputs, max reduction size) for an output of
        `dtype`. f16 accumulation is exact only for short sums of grid
        values; an f32 result may also come from f16 inputs."""
        if dtype == "f16":
            return "f16", True, 16
        if dtype == "f32" and self.rng.random() < 0.2:
            return "f16", False, 64
        return dtype, dtype == "i32", 64

    def finishContraction(self, name, shape, dtype, ref, scale, acc, ins):
        if dtype == "f16" and scale.size and scale.max() > 32:
            # Sums of 1/64-grid products stay exact in f16 below 32 only.
            raise Infeasible("f16 sum past exact range")
        approx = acc.approx or any(v.approx for v in ins)
        ref = roundTo(dtype, ref)
        if dtype == "i32":
            scale = np.abs(ref).astype(np.float64)
        return Val(name, shape, dtype, ref, scale, approx, dtype == "i32")

    def op_matmul(self, shape, dtype, depth, quant) -> Val:
        m, n = shape
        inT, q, kcap = self.contractionTypes(dtype)
        k = self.dim(kcap)
        if m * n * k > 400000:
            raise Infeasible("too big")
        transB = self.rng.random() < 0.2
        a = self.operand((m, k), inT, depth, q)
        b = self.operand((n, k) if transB else (k, n), inT, depth, q)
        acc, src = self.accumulator(shape, dtype, depth, 0, q)
        bm = b.ref.T if transB else b.ref
        bs = b.scale.T if transB else b.scale
        ref = acc.ref + a.ref @ bm
        scale = acc.scale + a.scale @ bs
        name = self.fresh()
        t = tensorType(shape, dtype)
        maps = ""
        if transB:
            maps = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
                    "affine_map<(m, n, k) -> (n, k)>, "
                    "affine_map<(m, n, k) -> (m, n)>] ")
        self.emit(f"{name} = linalg.matmul {maps}ins({a.name}, {b.name} : "
                  f"{tensorType(a.shape, inT)}, {tensorType(b.shape, inT)}) "
                  f"outs({acc.name} : {t}) -> {t}")
        self.tags.append(f"matmul{'_tb' if transB else ''}<{m}x{k}x{n},"
                         f"{inT}->{dtype}>[acc={src}]")
        return self.finishContraction(name, shape, dtype, ref, scale, acc,
                                      [a, b])

    def op_batch_matmul(self, shape, dtype, depth, quant) -> Val:
        bt, m, n = shape
        inT, q, kcap = self.contractionTypes(dtype)
        k = self.dim(kcap)
        if bt * m * n * k > 400000:
            raise Infeasible("too big")
        a = self.operand((bt, m, k), inT, depth, q)
        b = self.operand((bt, k, n), inT, depth, q)
        acc, src = self.accumulator(shape, dtype, depth, 0, q)
        ref = acc.ref + np.matmul(a.ref, b.ref)
        scale = acc.scale + np.matmul(a.scale, b.scale)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.batch_matmul ins({a.name}, {b.name} : "
                  f"{tensorType(a.shape, inT)}, {tensorType(b.shape, inT)}) "
                  f"outs({acc.name} : {t}) -> {t}")
        self.tags.append(f"batch_matmul<{bt}x{m}x{k}x{n},{inT}->{dtype}>"
                         f"[acc={src}]")
        return self.finishContraction(name, shape, dtype, ref, scale, acc,
                                      [a, b])

    def op_tosa_matmul(self, shape, dtype, depth, quant) -> Val:
        bt, m, n = shape
        k = self.dim(64, zeroOk=False)
        if bt * m * n * k > 400000:
            raise Infeasible("too big")
        a = self.operand((bt, m, k), dtype, depth)
        b = self.operand((bt, k, n), dtype, depth)
        zp = self.tosaZp(dtype)
        name = self.fresh()
        ta, tb, t = (tensorType(s, dtype) for s in (a.shape, b.shape, shape))
        self.emit(f"{name} = tosa.matmul {a.name}, {b.name}, {zp}, {zp} : "
                  f"({ta}, {tb}, tensor<1x{dtype}>, tensor<1x{dtype}>) -> {t}")
        self.tags.append(f"tosa.matmul<{bt}x{m}x{k}x{n}>")
        zero = Val("", shape, dtype, np.zeros(shape), np.zeros(shape))
        return self.finishContraction(name, shape, dtype,
                                      np.matmul(a.ref, b.ref),
                                      np.matmul(a.scale, b.scale), zero,
                                      [a, b])

    def op_matvec(self, shape, dtype, depth, quant) -> Val:
        (m,) = shape
        inT, q, kcap = self.contractionTypes(dtype)
        k = self.dim(kcap * 2 if dtype != "f16" else kcap)
        a = self.operand((m, k), inT, depth, q)
        x = self.operand((k,), inT, depth, q)
        acc, src = self.accumulator(shape, dtype, depth, 0, q)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.matvec ins({a.name}, {x.name} : "
                  f"{tensorType(a.shape, inT)}, {tensorType(x.shape, inT)}) "
                  f"outs({acc.name} : {t}) -> {t}")
        self.tags.append(f"matvec<{m}x{k},{inT}->{dtype}>[acc={src}]")
        return self.finishContraction(name, shape, dtype,
                                      acc.ref + a.ref @ x.ref,
                                      acc.scale + a.scale @ x.scale, acc,
                                      [a, x])

    def window(self, shape, channelsIn=None):
        """Window geometry for an NHWC output `shape`: kernel, strides,
        dilations and the input shape that yields exactly `shape`."""
        n, oh, ow, c = shape
        if oh == 0 or ow == 0:
            raise Infeasible("empty spatial output")
        kh, kw = (int(self.rng.integers(1, 4)) for _ in range(2))
        sh, sw = (int(self.choice([1, 1, 2, 3])) for _ in range(2))
        dh, dw = (int(self.choice([1, 1, 2])) for _ in range(2))
        # Rows past the last window (fewer than a stride) are legal and unused.
        h = (oh - 1) * sh + (kh - 1) * dh + 1 + int(self.rng.integers(sh))
        w = (ow - 1) * sw + (kw - 1) * dw + 1 + int(self.rng.integers(sw))
        cin = c if channelsIn is None else channelsIn
        if n * h * w * cin > 40000:
            raise Infeasible("input too big")
        return (kh, kw), (sh, sw), (dh, dw), (n, h, w, cin)

    @staticmethod
    def attrs(strides, dilations) -> str:
        return (f"{{dilations = dense<[{dilations[0]}, {dilations[1]}]> : "
                f"tensor<2xi64>, strides = dense<[{strides[0]}, "
                f"{strides[1]}]> : tensor<2xi64>}}")

    def op_conv(self, shape, dtype, depth, quant) -> Val:
        n, oh, ow, f = shape
        inT, q, kcap = self.contractionTypes(dtype)
        cin = self.dim(max(kcap // 4, 1) if dtype == "f16" else 16)
        (kh, kw), s, d, xshape = self.window(shape, cin)
        if n * oh * ow * f * kh * kw * cin > 400000:
            raise Infeasible("too big")
        x = self.operand(xshape, inT, depth, q)
        w = self.operand((kh, kw, cin, f), inT, depth, q)
        acc, src = self.accumulator(shape, dtype, depth, 0, q)
        win = cases.windows(x.ref, kh, kw, *s, *d)
        wins = cases.windows(x.scale, kh, kw, *s, *d)
        ref = acc.ref + np.einsum("nhwijc,ijco->nhwo", win, w.ref)
        scale = acc.scale + np.einsum("nhwijc,ijco->nhwo", wins, w.scale)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.conv_2d_nhwc_hwcf {self.attrs(s, d)} "
                  f"ins({x.name}, {w.name} : {tensorType(x.shape, inT)}, "
                  f"{tensorType(w.shape, inT)}) outs({acc.name} : {t}) -> {t}")
        self.tags.append(f"conv_2d_nhwc_hwcf<{xshape}*{w.shape},s={s},"
                         f"d={d}>[acc={src}]")
        return self.finishContraction(name, shape, dtype, ref, scale, acc,
                                      [x, w])

    def op_depthwise(self, shape, dtype, depth, quant) -> Val:
        inT, q, _ = self.contractionTypes(dtype)
        (kh, kw), s, d, xshape = self.window(shape)
        c = shape[3]
        x = self.operand(xshape, inT, depth, q)
        w = self.operand((kh, kw, c), inT, depth, q)
        acc, src = self.accumulator(shape, dtype, depth, 0, q)
        win = cases.windows(x.ref, kh, kw, *s, *d)
        wins = cases.windows(x.scale, kh, kw, *s, *d)
        ref = acc.ref + np.einsum("nhwijc,ijc->nhwc", win, w.ref)
        scale = acc.scale + np.einsum("nhwijc,ijc->nhwc", wins, w.scale)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.depthwise_conv_2d_nhwc_hwc "
                  f"{self.attrs(s, d)} ins({x.name}, {w.name} : "
                  f"{tensorType(x.shape, inT)}, {tensorType(w.shape, inT)}) "
                  f"outs({acc.name} : {t}) -> {t}")
        self.tags.append(f"depthwise_conv_2d_nhwc_hwc<{xshape}*{w.shape},"
                         f"s={s},d={d}>[acc={src}]")
        return self.finishContraction(name, shape, dtype, ref, scale, acc,
                                      [x, w])

    def op_pool(self, shape, dtype, depth, quant) -> Val:
        kind = self.choice(["max", "sum"])
        (kh, kw), s, d, xshape = self.window(shape)
        q = dtype != "f32" and kind == "sum"
        x = self.operand(xshape, dtype, depth, q)
        identity = 0 if kind == "sum" else (
            -2**31 if dtype == "i32" else -np.inf)
        acc, src = self.accumulator(shape, dtype, depth, identity, q)
        win = cases.windows(x.ref, kh, kw, *s, *d)
        wins = cases.windows(x.scale, kh, kw, *s, *d)
        if kind == "max":
            ref = np.maximum(acc.ref, maxOver(win, (3, 4)))
            scale = np.maximum(acc.scale, wins.max(axis=(3, 4), initial=0))
        else:
            ref = acc.ref + win.sum(axis=(3, 4))
            scale = acc.scale + wins.sum(axis=(3, 4))
        we = self.empty((kh, kw), dtype)
        name = self.fresh()
        t = tensorType(shape, dtype)
        self.emit(f"{name} = linalg.pooling_nhwc_{kind} {self.attrs(s, d)} "
                  f"ins({x.name}, {we} : {tensorType(x.shape, dtype)}, "
                  f"{tensorType((kh, kw), dtype)}) outs({acc.name} : {t}) "
                  f"-> {t}")
        self.tags.append(f"pooling_nhwc_{kind}<{xshape},k={kh}x{kw},s={s},"
                         f"d={d}>[acc={src}]")
        v = self.finishContraction(name, shape, dtype, ref, scale, acc, [x])
        if kind == "max":
            v.exact = x.exact and acc.exact
            if dtype == "i32":
                v.ref = v.ref.astype(np.int64)
        return v

    def op_reduction(self, shape, dtype, depth, quant) -> Val:
        """Sum or max over one axis inserted into `shape`, as linalg.generic
        with a reduction iterator or as linalg.reduce."""
        kind = self.choice(["sum", "max"])
        axis = int(self.rng.integers(len(shape) + 1))
        q = dtype != "f32" and kind == "sum"
        numel = int(np.prod(shape)) if shape else 1
        length = self.dim(16 if dtype == "f16" else max(
            1, min(131, 20000 // max(numel, 1))))
        xshape = shape[:axis] + (length,) + shape[axis:]
        x = self.operand(xshape, dtype, depth, q)
        identity = 0 if kind == "sum" else (
            -2**31 if dtype == "i32" else -np.inf)
        acc, src = self.accumulator(shape, dtype, depth, identity, q)
        if kind == "sum":
            ref = acc.ref + x.ref.sum(axis=axis)
            scale = acc.scale + x.scale.sum(axis=axis)
            op = "addi" if dtype == "i32" else "addf"
        else:
            ref = np.maximum(acc.ref, maxOver(x.ref, axis))
            scale = np.maximum(acc.scale, x.scale.max(axis=axis, initial=0))
            op = "maxsi" if dtype == "i32" else "maximumf"
        name = self.fresh()
        t = tensorType(shape, dtype)
        xt = tensorType(xshape, dtype)
        rank = len(xshape)
        inArg, accArg, res = self.fresh("x"), self.fresh("o"), self.fresh("y")
        form = self.choice(["generic", "reduce"])
        if form == "generic":
            its = ", ".join('"reduction"' if i == axis else '"parallel"'
                            for i in range(rank))
            outMap = mapText(rank, [i for i in range(rank) if i != axis])
            self.emit(f"{name} = linalg.generic {{indexing_maps = "
                      f"[{mapText(rank, range(rank))}, {outMap}], "
                      f"iterator_types = [{its}]}} ins({x.name} : {xt}) "
                      f"outs({acc.name} : {t}) {{")
            self.emit(f"^bb0({inArg}: {dtype}, {accArg}: {dtype}):")
            self.emit(f"  {res} = arith.{op} {inArg}, {accArg} : {dtype}")
            self.emit(f"  linalg.yield {res} : {dtype}")
            self.emit(f"}} -> {t}")
        else:
            self.emit(f"{name} = linalg.reduce ins({x.name} : {xt}) "
                      f"outs({acc.name} : {t}) dimensions = [{axis}]")
            self.emit(f"  ({inArg}: {dtype}, {accArg}: {dtype}) {{")
            self.emit(f"    {res} = arith.{op} {inArg}, {accArg} : {dtype}")
            self.emit(f"    linalg.yield {res} : {dtype}")
            self.emit("  }")
        self.tags.append(f"{'generic' if form == 'generic' else 'linalg'}."
                         f"reduce_{kind}<{xshape},axis={axis}>"
                         f"[acc={src}]")
        v = self.finishContraction(name, shape, dtype, ref, scale, acc, [x])
        if kind == "max":
            v.exact = x.exact and acc.exact
        return v

    def op_tosa_reduce(self, shape, dtype, depth, quant) -> Val:
        ones = [i for i, d in enumerate(shape) if d == 1]
        axis = self.choice(ones)
        kind = self.choice(["sum", "max"])
        length = self.dim(16 if dtype == "f16" else 64)
        xshape = shape[:axis] + (length,) + shape[axis + 1:]
        if not self.tosaOk(xshape):
            raise Infeasible("zero-size tosa operand")
        q = dtype != "f32" and kind == "sum"
        x = self.operand(xshape, dtype, depth, q)
        if kind == "sum":
            ref = x.ref.sum(axis=axis, keepdims=True)
            scale = x.scale.sum(axis=axis, keepdims=True)
        else:
            if length == 0:
                raise Infeasible("max over nothing")
            ref = x.ref.max(axis=axis, keepdims=True)
            scale = x.scale.max(axis=axis, keepdims=True)
        name = self.fresh()
        self.emit(f"{name} = tosa.reduce_{kind} {x.name} {{axis = {axis} : "
                  f"i32}} : ({tensorType(xshape, dtype)}) -> "
                  f"{tensorType(shape, dtype)}")
        self.tags.append(f"tosa.reduce_{kind}<{xshape},axis={axis}>")
        zero = Val("", shape, dtype, np.zeros(shape), np.zeros(shape))
        v = self.finishContraction(name, shape, dtype, ref, scale, zero, [x])
        if kind == "max":
            v.exact = x.exact
        return v

    # ---- data movement -----------------------------------------------------

    def moved(self, name, shape, x: Val, f) -> Val:
        """A data-movement result: `f` applied to reference and scale."""
        return Val(name, shape, x.dtype, f(x.ref), f(x.scale), x.approx,
                   x.exact)

    def op_transpose(self, shape, dtype, depth, quant) -> Val:
        rank = len(shape)
        perm = [int(p) for p in self.rng.permutation(rank)]
        # out[i] = in[perm[i]]: input dim perm[i] has size shape[i].
        xshape = [0] * rank
        for i, p in enumerate(perm):
            xshape[p] = shape[i]
        x = self.operand(tuple(xshape), dtype, depth, quant)
        name = self.fresh()
        t, xt = tensorType(shape, dtype), tensorType(xshape, dtype)
        if self.rng.random() < 0.5 or not self.tosaOk(shape):
            e = self.empty(shape, dtype)
            self.emit(f"{name} = linalg.transpose ins({x.name} : {xt}) "
                      f"outs({e} : {t}) permutation = "
                      f"[{', '.join(map(str, perm))}]")
            self.tags.append(f"linalg.transpose{perm}")
        else:
            self.emit(f"{name} = tosa.transpose {x.name} {{perms = "
                      f"array<i32: {', '.join(map(str, perm))}>}} : ({xt}) "
                      f"-> {t}")
            self.tags.append(f"tosa.transpose{perm}")
        return self.moved(name, shape, x, lambda a: a.transpose(perm))

    def op_broadcast(self, shape, dtype, depth, quant) -> Val:
        bshape, keep = self.broadcastShape(shape)
        x = self.operand(bshape, dtype, depth, quant)
        added = [i for i in range(len(shape)) if i not in keep]
        e = self.empty(shape, dtype)
        name = self.fresh()
        self.emit(f"{name} = linalg.broadcast ins({x.name} : "
                  f"{tensorType(bshape, dtype)}) outs({e} : "
                  f"{tensorType(shape, dtype)}) dimensions = "
                  f"[{', '.join(map(str, added))}]")
        self.tags.append(f"linalg.broadcast{added}")
        return self.moved(name, shape, x,
                          lambda a: np.array(self.expand(a, shape, keep)))

    def op_slice(self, shape, dtype, depth, quant) -> Val:
        useTosa = self.rng.random() < 0.3 and self.tosaOk(shape)
        offsets, strides, xshape = [], [], []
        for d in shape:
            stride = 1 if useTosa else int(self.choice([1, 1, 2, 3]))
            off = int(self.rng.integers(0, 4))
            extra = int(self.rng.integers(0, 3))
            offsets.append(off)
            strides.append(stride)
            # An offset must lie inside the source, even for an empty slice.
            xshape.append(off + max(d - 1, 0) * stride + 1 + extra)
        if int(np.prod(xshape)) > 40000:
            raise Infeasible("too big")
        x = self.operand(tuple(xshape), dtype, depth, quant)
        name = self.fresh()
        t, xt = tensorType(shape, dtype), tensorType(xshape, dtype)
        idx = tuple(slice(o, o + d * s, s) for o, d, s in zip(offsets, shape,
                                                              strides))
        if useTosa:
            st, sz = self.tosaShape(offsets), self.tosaShape(shape)
            r = len(shape)
            self.emit(f"{name} = tosa.slice {x.name}, {st}, {sz} : ({xt}, "
                      f"!tosa.shape<{r}>, !tosa.shape<{r}>) -> {t}")
            self.tags.append("tosa.slice")
        else:
            j = lambda v: ", ".join(map(str, v))
            self.emit(f"{name} = tensor.extract_slice {x.name}[{j(offsets)}] "
                      f"[{j(shape)}] [{j(strides)}] : {xt} to {t}")
            self.tags.append("tensor.extract_slice")
        return self.moved(name, shape, x, lambda a: np.array(a[idx]))

    def op_insert_slice(self, shape, dtype, depth, quant) -> Val:
        if 0 in shape:
            raise Infeasible("no in-bounds offset into an empty dimension")
        dst = self.operand(shape, dtype, depth, quant)
        sshape, offsets, strides = [], [], []
        for d in shape:
            stride = int(self.choice([1, 1, 2]))
            # Empty slices only where the program draws zero-size dims.
            low = 0 if self.zeroRate else 1
            size = int(self.rng.integers(low, (d + stride - 1) // stride + 1))
            span = (size - 1) * stride + 1 if size else 1
            off = int(self.rng.integers(0, max(d - span, 0) + 1))
            sshape.append(size)
            offsets.append(off)
            strides.append(stride)
        src = self.operand(tuple(sshape), dtype, depth, quant)
        idx = tuple(slice(o, o + n * s, s) for o, n, s in zip(offsets, sshape,
                                                              strides))
        ref, scale = dst.ref.copy(), dst.scale.copy()
        ref[idx], scale[idx] = src.ref, src.scale
        j = lambda v: ", ".join(map(str, v))
        name = self.fresh()
        self.emit(f"{name} = tensor.insert_slice {src.name} into {dst.name}"
                  f"[{j(offsets)}] [{j(sshape)}] [{j(strides)}] : "
                  f"{tensorType(sshape, dtype)} into {tensorType(shape, dtype)}")
        self.tags.append("tensor.insert_slice")
        return Val(name, shape, dtype, ref, scale, src.approx or dst.approx,
                   src.exact and dst.exact)

    def op_pad(self, shape, dtype, depth, quant) -> Val:
        lows = [int(self.rng.integers(0, min(d, 3) + 1)) for d in shape]
        highs = [int(self.rng.integers(0, min(d - lo, 3) + 1))
                 for d, lo in zip(shape, lows)]
        xshape = tuple(d - lo - hi for d, lo, hi in zip(shape, lows, highs))
        x = self.operand(xshape, dtype, depth, quant)
        value = self.gridScalar(dtype)
        if quant and dtype != "i32":
            value = float(np.clip(value, -1, 1))
        name = self.fresh()
        t, xt = tensorType(shape, dtype), tensorType(xshape, dtype)
        if self.rng.random() < 0.3 and self.tosaOk(shape, xshape):
            pads = self.tosaShape([p for lh in zip(lows, highs) for p in lh])
            v = self.tosaConst(np.array([value]), (1,), dtype)
            r = 2 * len(shape)
            self.emit(f"{name} = tosa.pad {x.name}, {pads}, {v} : ({xt}, "
                      f"!tosa.shape<{r}>, {tensorType((1,), dtype)}) -> {t}")
            self.tags.append("tosa.pad")
        else:
            c = self.scalarConst(value, dtype)
            j = lambda v: ", ".join(map(str, v))
            idx = ", ".join(f"{self.fresh('i')}: index" for _ in shape)
            self.emit(f"{name} = tensor.pad {x.name} low[{j(lows)}] "
                      f"high[{j(highs)}] {{")
            self.emit(f"^bb0({idx}):")
            self.emit(f"  tensor.yield {c} : {dtype}")
            self.emit(f"}} : {xt} to {t}")
            self.tags.append("tensor.pad")
        widths = list(zip(lows, highs))
        ref = np.pad(x.ref, widths, constant_values=value)
        scale = np.pad(x.scale, widths, constant_values=abs(value))
        return Val(name, shape, dtype, ref, scale, x.approx, x.exact)

    def op_concat(self, shape, dtype, depth, quant) -> Val:
        axis = int(self.rng.integers(len(shape)))
        total = shape[axis]
        cuts = sorted(int(c) for c in self.rng.integers(
            0, total + 1, size=int(self.rng.integers(1, 3))))
        sizes = [b - a for a, b in zip([0] + cuts, cuts + [total])]
        if not self.zeroRate:
            # Empty parts only where the program draws zero-size dims.
            sizes = [s for s in sizes if s] or [total]
        parts = [self.operand(shape[:axis] + (s,) + shape[axis + 1:], dtype,
                               depth, quant) for s in sizes]
        name = self.fresh()
        types = ", ".join(tensorType(p.shape, dtype) for p in parts)
        names = ", ".join(p.name for p in parts)
        t = tensorType(shape, dtype)
        if self.rng.random() < 0.5 or not self.tosaOk(*(p.shape for p in parts)):
            self.emit(f"{name} = tensor.concat dim({axis}) {names} : "
                      f"({types}) -> {t}")
            self.tags.append("tensor.concat")
        else:
            self.emit(f"{name} = tosa.concat {names} {{axis = {axis} : i32}} "
                      f": ({types}) -> {t}")
            self.tags.append("tosa.concat")
        return Val(name, shape, dtype,
                   np.concatenate([p.ref for p in parts], axis=axis),
                   np.concatenate([p.scale for p in parts], axis=axis),
                   any(p.approx for p in parts), all(p.exact for p in parts))

    def op_reshape(self, shape, dtype, depth, quant) -> Val:
        rank = len(shape)
        form = self.choice(["expand", "collapse"] +
                           (["tosa"] if self.tosaOk(shape) else []))
        name = self.fresh()
        t = tensorType(shape, dtype)
        if form == "expand" and rank >= 2:
            # Input merges dims i, i+1 of the output.
            i = int(self.rng.integers(rank - 1))
            xshape = shape[:i] + (shape[i] * shape[i + 1],) + shape[i + 2:]
            groups = [[j] for j in range(i)] + [[i, i + 1]] + [
                [j] for j in range(i + 2, rank)]
            x = self.operand(xshape, dtype, depth, quant)
            self.emit(f"{name} = tensor.expand_shape {x.name} {groups} "
                      f"output_shape [{', '.join(map(str, shape))}] : "
                      f"{tensorType(xshape, dtype)} into {t}")
            self.tags.append("tensor.expand_shape")
        elif form == "collapse":
            # Input splits dim i of the output into two factors.
            i = int(self.rng.integers(rank))
            d = shape[i]
            divisors = [f for f in range(1, d + 1) if d % f == 0] or [1]
            f = self.choice(divisors)
            xshape = shape[:i] + (f, d // f if f else 0) + shape[i + 1:]
            groups = [[j] for j in range(i)] + [[i, i + 1]] + [
                [j + 1] for j in range(i + 1, rank)]
            x = self.operand(xshape, dtype, depth, quant)
            self.emit(f"{name} = tensor.collapse_shape {x.name} {groups} : "
                      f"{tensorType(xshape, dtype)} into {t}")
            self.tags.append("tensor.collapse_shape")
        else:
            numel = int(np.prod(shape))
            if numel == 0:
                raise Infeasible("tosa.reshape of an empty tensor")
            xshape = self.factorShape(numel)
            x = self.operand(xshape, dtype, depth, quant)
            s = self.tosaShape(shape)
            self.emit(f"{name} = tosa.reshape {x.name}, {s} : "
                      f"({tensorType(xshape, dtype)}, !tosa.shape<{rank}>) "
                      f"-> {t}")
            self.tags.append("tosa.reshape")
        return self.moved(name, shape, x, lambda a: a.reshape(shape))

    def factorShape(self, numel) -> Tuple[int, ...]:
        dims = []
        rest = numel
        for _ in range(int(self.rng.integers(0, 3))):
            divisors = [f for f in range(2, rest + 1) if rest % f == 0]
            if not divisors:
                break
            f = self.choice(divisors)
            dims.append(f)
            rest //= f
        dims.append(rest)
        return tuple(dims[i] for i in self.rng.permutation(len(dims)))

    # ---- the program -------------------------------------------------------

    def consumer(self, v: Val) -> Val:
        """An elementwise op reading `v` (a fused consumer: bias add, clamp,
        activation, or a generic body), or `v` itself if none fits."""
        for _ in range(4):
            cp = self.checkpoint()
            try:
                kind = self.choice(["generic", "named"] + (
                    ["tosa"] if self.tosaOk(v.shape) else []))
                if kind == "tosa":
                    out = self.tosaConsumer(v)
                elif kind == "named":
                    out = self.namedConsumer(v)
                else:
                    out = self.genericElementwise(v.shape, v.dtype, 1, first=v)
                self.checkRange(out.ref, v.dtype)
                self.tags[-1] = "->" + self.tags[-1]
                self.pool.append(out)
                return out
            except Infeasible:
                self.restore(cp)
        return v

    def tosaConsumer(self, v: Val) -> Val:
        shape, dtype = v.shape, v.dtype
        t = tensorType(shape, dtype)
        name = self.fresh()
        ops = ["add", "mul", "maximum", "clamp"] + (
            ["tanh", "sigmoid", "exp"] if dtype in FLOATS else [])
        op = self.choice(ops)
        r = lambda x: roundTo(dtype, x)
        if op in ("add", "mul", "maximum"):
            # A bias: broadcast along every dim but (usually) the last.
            bshape = tuple(d if i == len(shape) - 1 and self.rng.random() < 0.8
                           else 1 for i, d in enumerate(shape))
            b = self.operand(bshape, dtype, 0)
            tb = tensorType(bshape, dtype)
            if op == "mul":
                shift = self.tosaConst(np.zeros(1), (1,), "i8")
                self.emit(f"{name} = tosa.mul {v.name}, {b.name}, {shift} : "
                          f"({t}, {tb}, tensor<1xi8>) -> {t}")
            else:
                self.emit(f"{name} = tosa.{op} {v.name}, {b.name} : ({t}, "
                          f"{tb}) -> {t}")
            f = {"add": np.add, "mul": np.multiply, "maximum": np.maximum}[op]
            bs = np.broadcast_to(b.scale, shape)
            scale = {"add": v.scale + bs, "mul": v.scale * bs}.get(
                op, np.maximum(v.scale, bs))
            out = Val(name, shape, dtype, r(f(v.ref, b.ref)), scale,
                      v.approx or b.approx,
                      op == "maximum" and v.exact and b.exact)
        elif op == "clamp":
            lo = self.gridScalar(dtype)
            hi = lo + abs(self.gridScalar(dtype, nonzero=True))
            self.emit(f"{name} = tosa.clamp {v.name} {{min_val = "
                      f"{scalarLiteral(lo, dtype)} : {dtype}, max_val = "
                      f"{scalarLiteral(hi, dtype)} : {dtype}}} : ({t}) -> {t}")
            out = Val(name, shape, dtype, np.clip(v.ref, lo, hi), v.scale,
                      v.approx, v.exact)
        else:
            x = v.ref
            if op == "exp" and x.size and np.abs(x).max() > 6:
                raise Infeasible("exp range")
            ref = r({"tanh": np.tanh, "sigmoid": cases.sigmoid,
                     "exp": np.exp}[op](x))
            scale = {"tanh": np.abs(ref) + v.scale,
                     "sigmoid": np.abs(ref) + v.scale / 4,
                     "exp": np.abs(ref) * (1 + v.scale)}[op]
            self.emit(f"{name} = tosa.{op} {v.name} : ({t}) -> {t}")
            out = Val(name, shape, dtype, ref, scale, True, False)
        if dtype == "i32":
            out.scale = np.abs(out.ref).astype(np.float64)
        self.tags.append(f"tosa.{op}")
        return out

    def namedConsumer(self, v: Val) -> Val:
        shape, dtype = v.shape, v.dtype
        t = tensorType(shape, dtype)
        op = self.choice(["add", "sub", "mul", "max"])
        b = self.operand(shape, dtype, 1)
        e = self.empty(shape, dtype)
        name = self.fresh()
        self.emit(f"{name} = linalg.{op} ins({v.name}, {b.name} : {t}, {t}) "
                  f"outs({e} : {t}) -> {t}")
        f = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
             "max": np.maximum}[op]
        scale = {"add": v.scale + b.scale, "sub": v.scale + b.scale,
                 "mul": v.scale * b.scale}.get(op, np.maximum(v.scale,
                                                             b.scale))
        self.tags.append(f"linalg.{op}")
        out = Val(name, shape, dtype, roundTo(dtype, f(v.ref, b.ref)), scale,
                  v.approx or b.approx, op == "max" and v.exact and b.exact)
        if dtype == "i32":
            out.scale = np.abs(out.ref).astype(np.float64)
        return out

    def program(self) -> List[Val]:
        """Builds the function body; returns the values it returns."""
        dtype = self.weighted([(6, "f32"), (2, "f16"), (2, "i32")])
        rank = self.weighted([(1, 0), (3, 1), (5, 2), (4, 3), (4, 4)])
        maxElems = 4096 if rank < 4 else 2048
        shape = self.shape(rank, maxElems, cap=131 if rank <= 2 else 48)
        try:
            out = self.compute(shape, dtype, 2)
        except Infeasible:
            out = self.build("elementwise", shape, dtype, 0)
        for _ in range(self.weighted([(4, 0), (4, 1), (2, 2)])):
            out = self.consumer(out)
        outputs = [out]
        # Sometimes also return an intermediate: a dispatch result that is
        # both consumed and returned.
        inner = [v for v in self.pool if v is not out and v.kind == "op"]
        if inner and self.rng.random() < 0.2:
            outputs.append(self.choice(inner))
        return outputs


def _tolerance(v: Val) -> str:
    if v.dtype == "i32" or v.exact:
        return "exact"
    if v.dtype == "f16":
        return "f16"
    return "f32_approx" if v.approx else "f32"


def generate(seed: int, index: int) -> Program:
    """Program `index` of the batch drawn from `seed`."""
    name = f"s{seed}_p{index}"
    rng = np.random.default_rng([seed, index])
    g = _Gen(rng, name)
    outputs = g.program()
    args = ", ".join(f"{a.name}: {tensorType(a.shape, a.dtype)}"
                     for a in g.args)
    results = ", ".join(tensorType(o.shape, o.dtype) for o in outputs)
    if len(outputs) > 1:
        results = f"({results})"
    lines = [f"func.func @{name}({args}) -> {results} {{"]
    lines += g.lines
    lines.append(f"  return {', '.join(o.name for o in outputs)} : "
                 f"{', '.join(tensorType(o.shape, o.dtype) for o in outputs)}")
    lines.append("}")
    expected = [Expected(o.shape, o.dtype, np.asarray(o.ref),
                         np.asarray(o.scale, dtype=np.float64), _tolerance(o))
                for o in outputs]
    return Program(name, "\n".join(lines) + "\n", g.inputs, expected, g.tags)
