"""The e2e case manifest: every case's MLIR file, function, inputs and numpy
reference.

A case names a function in tests/e2e/cases/<file>. Its inputs are listed here
as MLIR tensor types ("37x61xf32") with the range their random values are
drawn from; run_e2e.py checks them against the function's signature, so a
manifest that drifts from the MLIR is reported, not silently run. Output
types come from the signature.

Inputs come from a generator seeded by the case name (crc32), so every run
and every driver sees the same values, and none is all zeros (unless it has
no elements at all: zero_size.mlir).

Tolerances (|out - ref| <= atol + rtol * scale, elementwise):
  f32         1e-5 + 1e-4 * scale
  f32_approx  1e-4 + 1e-3 * scale: exp, tanh, sigmoid, log and softmax are
              lowered to polynomial approximations (MLIR's math approximations
              or a vendor's fast math) that are a few ulp off instead of
              correctly rounded, and chains and softmax's divide by a sum of
              exponentials compound that.
  f16         2.5e-3 + 1e-3 * scale
  exact       integers and booleans: equal.
scale is |ref| unless the case gives a magnitude function: contractions
(matmul, conv, sums) use the same contraction over absolute values
(|A| @ |B|), because rounding error grows with the sum of |terms| while
cancellation can make |ref| arbitrarily small.

References compute in float64 from the exact input values (f16 chains
round to f16 after each op, as the MLIR does).
"""

import dataclasses
import math
import re
import zlib
from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np

TOLERANCES = {
    "f32": (1e-5, 1e-4),
    "f32_approx": (1e-4, 1e-3),
    "f16": (2.5e-3, 1e-3),
    # bf16 keeps 8 significant bits to f16's 11: eight times f16's bounds
    # (models compiled with --precision=bf16).
    "bf16": (2e-2, 8e-3),
    # tf32 keeps f16's 11 significant bits in f32's range: f16's bounds
    # (--precision=tf32).
    "tf32": (2.5e-3, 1e-3),
    "exact": (0.0, 0.0),
}

# kiln-compile's --precision modes; each but f32 holds float results to
# the tolerance of its name.
PRECISIONS = ("f32", "tf32", "f16", "bf16")


def underPrecision(tol: str, precision: str) -> str:
    """The tolerance of a result whose own is `tol` in a module compiled
    with --precision=`precision`: the looser of the two for floats; exact
    results (data movement) stay exact."""
    if precision == "f32" or tol == "exact":
        return tol
    return max(tol, precision, key=lambda t: TOLERANCES[t][::-1])

NUMPY_DTYPES = {
    "f32": np.float32,
    "f16": np.float16,
    "f64": np.float64,
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
}

_TYPE_RE = re.compile(r"^(?:(\d+(?:x\d+)*)x)?(f16|f32|f64|i1|i8|i16|i32|i64)$")


def parseTensorType(text: str) -> Tuple[Tuple[int, ...], str]:
    """'37x61xf32' -> ((37, 61), 'f32'); 'f32' -> ((), 'f32')."""
    m = _TYPE_RE.match(text.strip())
    if not m:
        raise ValueError(f"bad tensor type '{text}'")
    dims = tuple(int(d) for d in m.group(1).split("x")) if m.group(1) else ()
    return dims, m.group(2)


def formatTensorType(shape: Sequence[int], dtype: str) -> str:
    return "x".join([str(d) for d in shape] + [dtype])


@dataclasses.dataclass(frozen=True)
class Input:
    type: str
    lo: float = -1.0
    hi: float = 1.0

    @property
    def shape(self) -> Tuple[int, ...]:
        return parseTensorType(self.type)[0]

    @property
    def dtype(self) -> str:
        return parseTensorType(self.type)[1]


def I(type: str, lo: float = -1.0, hi: float = 1.0) -> Input:
    return Input(type, lo, hi)


Tol = Union[str, Tuple[str, ...]]


@dataclasses.dataclass(frozen=True)
class Case:
    file: str
    function: str
    inputs: Tuple[Input, ...]
    ref: Callable[..., object]
    tol: Tol = "f32"
    # Magnitudes for the rtol term, one per output; None means |ref|.
    scale: Optional[Callable[..., object]] = None
    # One of several shapes of a function over dynamic dimensions
    # (dynamicCase): the input shapes, which tell the cases apart.
    variant: str = ""

    @property
    def name(self) -> str:
        base = f"{self.file[:-len('.mlir')]}/{self.function}"
        return f"{base}@{self.variant}" if self.variant else base

    @property
    def dynamic(self) -> bool:
        return bool(self.variant)

    def tolerances(self, count: int) -> Tuple[str, ...]:
        if isinstance(self.tol, str):
            return (self.tol,) * count
        if len(self.tol) != count:
            raise ValueError(f"{self.name}: {len(self.tol)} tolerances for "
                             f"{count} outputs")
        return tuple(self.tol)


def _asTuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def makeInputs(case: Case) -> list:
    """Random inputs for a case, the same on every call."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    arrays = []
    for spec in case.inputs:
        shape, dtype = spec.shape, spec.dtype
        for _ in range(100):
            if dtype == "i1":
                a = rng.random(shape) < 0.5
            elif dtype.startswith("i"):
                a = rng.integers(int(spec.lo), int(spec.hi), size=shape,
                                 endpoint=True).astype(NUMPY_DTYPES[dtype])
            else:
                a = rng.uniform(spec.lo, spec.hi, size=shape).astype(
                    NUMPY_DTYPES[dtype])
            a = np.asarray(a)
            if a.size == 0 or (np.any(a != 0) and
                               (dtype != "i1" or not np.all(a))):
                break
        else:
            raise ValueError(f"{case.name}: cannot draw a non-trivial input")
        arrays.append(a)
    return arrays


def reference(case: Case, inputs: list) -> Tuple[np.ndarray, ...]:
    return tuple(np.asarray(r) for r in _asTuple(case.ref(*inputs)))


def scales(case: Case, inputs: list,
           refs: Tuple[np.ndarray, ...]) -> Tuple[np.ndarray, ...]:
    if case.scale is None:
        return tuple(np.abs(r.astype(np.float64)) for r in refs)
    return tuple(
        np.abs(np.asarray(s, dtype=np.float64))
        for s in _asTuple(case.scale(*inputs)))


def floatDifference(actual: np.ndarray, expected: np.ndarray,
                    scale: np.ndarray, tol: str, atolScale: float = 1.0):
    """(actual, expected as float64, where they agree, |actual - expected|
    (0 where they agree, infinite where NaN), tol's bound atol * atolScale
    + rtol * scale). NaN in either side is a disagreement unless both are
    NaN; equal infinities agree. A NaN or infinite reference tolerates no
    other value (its bound would be NaN or infinite)."""
    atol, rtol = TOLERANCES[tol]
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    agree = (np.isnan(a) & np.isnan(e)) | (a == e)
    with np.errstate(invalid="ignore"):
        diff = np.where(agree, 0.0, np.abs(a - e))
    diff = np.where(np.isnan(diff), np.inf, diff)
    bound = atol * atolScale + rtol * np.broadcast_to(scale, diff.shape)
    return a, e, agree, diff, bound


def compare(actual: np.ndarray, expected: np.ndarray, scale: np.ndarray,
            tol: str, atolScale: float = 1.0) -> Tuple[bool, float, str]:
    """Returns (ok, max abs error, detail of the worst element). atolScale
    multiplies the tolerance's atol (the models scale it by max |ref|)."""
    isInt = lambda t: t == np.bool_ or np.issubdtype(t, np.integer)
    if isInt(expected.dtype) and isInt(actual.dtype):
        a = actual.astype(np.int64)
        e = expected.astype(np.int64)
        diff = np.abs(a - e)
        bad = diff != 0
    elif tol == "exact" or isInt(expected.dtype):
        # Data movement of floats: bit-for-bit values (NaN never expected).
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        # Equal infinities agree; their difference is NaN.
        with np.errstate(invalid="ignore"):
            diff = np.where(a == e, 0.0, np.abs(a - e))
        diff = np.where(np.isnan(diff), np.inf, diff)
        bad = diff != 0
    else:
        a, e, agree, diff, bound = floatDifference(actual, expected, scale,
                                                   tol, atolScale)
        bad = ~agree & (~np.isfinite(e) | ~(diff <= bound))
    maxErr = float(diff.max()) if diff.size else 0.0
    if not bad.any():
        return True, maxErr, ""
    idx = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), diff.shape)
    return (False, maxErr, f"{int(bad.sum())}/{bad.size} elements off, "
            f"worst at {list(int(i) for i in idx)}: got {a[idx]!r}, "
            f"want {e[idx]!r}")


# ---------------------------------------------------------------------------
# Reference helpers.


def f64(x):
    return np.asarray(x, dtype=np.float64)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0.0)


def softmax(x, axis):
    x = f64(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def truncDiv(a, b):
    """Signed division rounding toward zero, as arith.divsi does."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def pattern(shape, mul, add, mod, div):
    """The deterministic weights baked into mlp.mlir: element k (row-major) is
    ((k * mul + add) % mod - mod // 2) / div; with div a power of two every
    value is exact in f32 and prints exactly in decimal."""
    k = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return (((k * mul + add) % mod) - mod // 2).astype(np.float64) / div


def padNhwc(x, top, bottom, left, right, value=0.0):
    return np.pad(f64(x), ((0, 0), (top, bottom), (left, right), (0, 0)),
                  constant_values=value)


def windows(x, kh, kw, sh, sw, dh=1, dw=1):
    """x: NHWC (already padded). Returns N x OH x OW x KH x KW x C views."""
    n, h, w, c = x.shape
    oh = (h - (kh - 1) * dh - 1) // sh + 1
    ow = (w - (kw - 1) * dw - 1) // sw + 1
    out = np.empty((n, oh, ow, kh, kw, c), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, :, i, j, :] = x[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                                      j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
    return out


def convNhwcOhwi(x, w, bias, stride, pad, dilation=(1, 1)):
    """tosa.conv2d: weights [OC, KH, KW, IC], pad [top, bottom, left, right]."""
    xp = padNhwc(x, *pad)
    win = windows(xp, w.shape[1], w.shape[2], *stride, *dilation)
    out = np.einsum("nhwijc,oijc->nhwo", win, f64(w))
    return out + (0.0 if bias is None else f64(bias))


def convNhwcHwcf(x, w, stride=(1, 1)):
    """linalg.conv_2d_nhwc_hwcf: weights [KH, KW, IC, OC]."""
    win = windows(f64(x), w.shape[0], w.shape[1], *stride)
    return np.einsum("nhwijc,ijco->nhwo", win, f64(w))


def depthwiseHwcm(x, w, bias, stride, pad):
    """tosa.depthwise_conv2d: weights [KH, KW, C, M], out channel c * M + m."""
    xp = padNhwc(x, *pad)
    win = windows(xp, w.shape[0], w.shape[1], *stride)
    out = np.einsum("nhwijc,ijcm->nhwcm", win, f64(w))
    out = out.reshape(out.shape[:3] + (-1,))
    return out + (0.0 if bias is None else f64(bias))


def depthwiseHwc(x, w, stride=(1, 1)):
    win = windows(f64(x), w.shape[0], w.shape[1], *stride)
    return np.einsum("nhwijc,ijc->nhwc", win, f64(w))


def groupedConv(x, w):
    """linalg.conv_2d_nhwgc_gfhwc: x [N, H, W, G, C], w [G, F, KH, KW, C]."""
    n, h, wd, g, c = x.shape
    kh, kw = w.shape[2], w.shape[3]
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, oh, ow, g, w.shape[1]))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwgc,gfc->nhwgf", f64(x)[:, i:i + oh, j:j + ow],
                             f64(w)[:, :, i, j, :])
    return out


def maxPool(x, k, stride, pad=(0, 0, 0, 0)):
    xp = padNhwc(x, *pad, value=-np.inf)
    return windows(xp, *k, *stride).max(axis=(3, 4))


def sumPool(x, k, stride, pad=(0, 0, 0, 0)):
    return windows(padNhwc(x, *pad), *k, *stride).sum(axis=(3, 4))


def avgPoolExcludePad(x, k, stride, pad=(0, 0, 0, 0)):
    """tosa.avg_pool2d: padded positions are not counted in the divisor."""
    ones = np.ones(x.shape[:3] + (1,))
    return sumPool(x, k, stride, pad) / sumPool(ones, k, stride, pad)


def i32(x):
    return np.asarray(x).astype(np.int32)


def i64(x):
    return np.asarray(x).astype(np.int64)


def f16(x):
    """Rounds to f16, as an f16 op's result is."""
    return np.asarray(x).astype(np.float16)


def bf16(x):
    """Rounds f32 values to bf16 (to nearest, ties to even), kept as f32:
    numpy has no bf16."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


# ---------------------------------------------------------------------------
# Cases.

CASES = []


def case(file, function, inputs, ref, tol="f32", scale=None):
    CASES.append(Case(file, function, tuple(inputs), ref, tol, scale))


def dynamicCase(file, function, shapes, ref, tol="f32", scale=None):
    """A function over dynamic dimensions run at each entry of `shapes` (a
    list of input lists) from one module: a case per entry, named
    FILE/FUNCTION@SHAPES. The signature's dynamic dimensions take any size;
    outputs' dynamic dimensions come from the reference."""
    for inputs in shapes:
        variant = ",".join("x".join(str(d) for d in i.shape) or "scalar"
                           for i in inputs)
        CASES.append(Case(file, function, tuple(inputs), ref, tol, scale,
                          variant))


# --- elementwise.mlir -------------------------------------------------------
E = "elementwise.mlir"


def _tosaChainF32(a, b):
    a, b = f64(a), f64(b)
    t = np.abs((a + b) * a - b)
    return np.clip(np.maximum(-t, a), -0.5, 0.75)


case(E, "tosa_chain_f32", [I("8x64xf32"), I("8x64xf32")], _tosaChainF32)
case(E, "tosa_transcendental_f32", [I("4x100xf32", -4, 4)],
     lambda a: (np.exp(f64(a)), np.tanh(f64(a)), sigmoid(f64(a))),
     tol="f32_approx")
case(E, "tosa_transcendental_chain_f32", [I("3x7x11xf32", -2, 2)],
     lambda a: 1.0 / sigmoid(np.tanh(np.exp(f64(a)))), tol="f32_approx")
case(E, "tosa_broadcast_f32",
     [I("16x32xf32"), I("1x32xf32"), I("16x1xf32")],
     lambda a, b, c: (f64(a) + f64(b)) * f64(c) - 1.5)


def _tosaChainI32(a, b):
    a, b = i64(a), i64(b)
    t = -np.abs((a + b) * b - a)
    return i32(np.clip(np.maximum(t, a), -1000, 40))


case(E, "tosa_chain_i32", [I("64xi32", -100, 100), I("64xi32", -100, 100)],
     _tosaChainI32, tol="exact")


def _tosaChainF16(a, b):
    t = f16(f16(a + b) * b)
    return np.clip(np.maximum(t, a), np.float16(-1.0), np.float16(2.5))


case(E, "tosa_chain_f16", [I("8x32xf16"), I("8x32xf16")], _tosaChainF16,
     tol="f16")


def _tosaCastMixed(a, b):
    s = a.astype(np.float32) + b.astype(np.float32)
    return s, f16(s)


case(E, "tosa_cast_mixed", [I("5x24xf16", -4, 4), I("5x24xi32", -50, 50)],
     _tosaCastMixed, tol=("f32", "f16"))
case(E, "tosa_compare_select", [I("6x40xf32"), I("6x40xf32")],
     lambda a, b: (a > b, np.where(a > b, a, b)), tol=("exact", "f32"))
case(E, "tosa_select_mask_input",
     [I("33xi1"), I("33xi32", -1000, 1000), I("33xi32", -1000, 1000)],
     lambda m, a, b: np.where(m, a, b), tol="exact")


def _genericArithMath(a, b):
    x, y = f64(a), f64(b)
    return (np.sqrt(x * x + y * y) + np.exp(-np.abs(x)) * np.tanh(y) -
            np.log(1.0 + x * x) / 2.0)


case(E, "generic_arith_math_f32", [I("16x48xf32", -3, 3), I("16x48xf32", -3, 3)],
     _genericArithMath, tol="f32_approx")


def _erfGelu(a):
    a = f64(a)
    erf = np.vectorize(math.erf)
    # The MLIR divides by sqrt(2) rounded to f32, as the exporter's constant.
    return erf(a), a * 0.5 * (1.0 + erf(a / f64(np.float32(np.sqrt(2.0)))))


# erf is a few ulp from correctly rounded on every backend (a polynomial on
# the CPU, the vendor library's on GPUs): well inside f32's tolerance.
case(E, "generic_erf_gelu_f32", [I("64x1024xf32", -5, 5)], _erfGelu)


def _genericArithF32(a, b):
    x, y = f64(a), f64(b)
    m = x * y
    return np.minimum(np.maximum((m + 3.0) / 3.0, x), y) - m


case(E, "generic_arith_f32", [I("31x17xf32", -2, 2), I("31x17xf32", -2, 2)],
     _genericArithF32)
case(E, "generic_compare_select", [I("32x16xf32"), I("32x16xf32")],
     lambda a, b: (a > b, np.where(a > b, f64(a) * 2.0, f64(b) - 1.0)),
     tol=("exact", "f32"))


def _genericI64(a, b):
    d = truncDiv(a * b + 3000000000, 7)
    return np.where(a < b, np.maximum(d, a), b)


case(E, "generic_i64", [I("40xi64", -1000, 1000), I("40xi64", -1000, 1000)],
     _genericI64, tol="exact")


def _genericI32Index(a):
    i, j = np.indices(a.shape)
    u = (i * 3 + j).astype(np.int32)
    return i32(((a ^ u) & 255) << 3) - a


case(E, "generic_i32_index", [I("12x20xi32", -1000, 1000)], _genericI32Index,
     tol="exact")
case(E, "generic_f16_extf", [I("10x30xf16"), I("10x30xf16")],
     lambda a, b: f16(np.exp(f64(a)) * f64(b)), tol="f16")


def _genericF16Arith(a, b):
    s = f16(f16(a * b) + np.float16(0.5))
    return np.maximum(s, a)


case(E, "generic_f16_arith", [I("64xf16", -2, 2), I("64xf16", -2, 2)],
     _genericF16Arith, tol="f16")
case(E, "linalg_named_elementwise", [I("4x8xf32"), I("4x8xf32")],
     lambda a, b: np.maximum(np.exp((f64(a) + b) * a), b), tol="f32_approx")
case(E, "scalar_f32", [I("f32"), I("f32")],
     lambda a, b: np.maximum(f64(a) + b, b))
case(E, "scalar_operands_broadcast",
     [I("64xi8", -128, 127), I("f32", 0.01, 0.5), I("i8", -20, 20)],
     lambda x, s, z: (f64(x) - f64(z)) * f64(s))
# fmod's result is exactly representable in its operands' type, so every
# backend must match float64 numpy exactly; quotients reach 10^4 (f16: 10^2).
case(E, "remf_f32", [I("4x64xf32", -1e3, 1e3), I("4x64xf32", -7.0, 7.0)],
     lambda x, y: np.fmod(f64(x), f64(y)), tol="exact")
case(E, "remf_f16", [I("3x5xf16", -100.0, 100.0), I("3x5xf16", -7.0, 7.0)],
     lambda x, y: np.fmod(f64(x), f64(y)), tol="exact")
case(E, "remf_f64", [I("37xf64", -1e3, 1e3), I("37xf64", -7.0, 7.0)],
     lambda x, y: np.fmod(f64(x), f64(y)), tol="exact")

# --- matmul.mlir ------------------------------------------------------------
M = "matmul.mlir"


def absMatmul(a, b):
    return np.abs(f64(a)) @ np.abs(f64(b))


case(M, "tosa_matmul_37x61x29", [I("1x37x61xf32"), I("1x61x29xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "tosa_matmul_bias_relu",
     [I("1x64x128xf32"), I("1x128x96xf32"), I("1x1x96xf32")],
     lambda a, b, c: relu(f64(a) @ b + c),
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_512", [I("512x512xf32"), I("512x512xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_37x61x29", [I("37x61xf32"), I("61x29xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_accumulate",
     [I("13x7xf32"), I("7x19xf32"), I("13x19xf32")],
     lambda a, b, c: f64(c) + f64(a) @ b,
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "matmul_split_reduction",
     [I("2x2048xf32"), I("2048x48xf32"), I("2x48xf32")],
     lambda a, b, c: f64(c) + f64(a) @ b,
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_bias_relu",
     [I("100x72xf32"), I("72x130xf32"), I("130xf32")],
     lambda a, b, c: relu(f64(a) @ b + c),
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_transpose_b", [I("24x40xf32"), I("56x40xf32")],
     lambda a, b: f64(a) @ f64(b).T, scale=lambda a, b: absMatmul(a, b.T))
case(M, "linalg_matmul_f16_acc_f32", [I("64x32xf16"), I("32x48xf16")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "matmul_bf16_acc_f32", [I("128x96xf32"), I("96x64xf32")],
     lambda a, b: f64(bf16(a)) @ f64(bf16(b)),
     scale=lambda a, b: absMatmul(bf16(a), bf16(b)))
case(M, "linalg_matmul_f16", [I("16x8xf16", -0.5, 0.5), I("8x24xf16", -0.5, 0.5)],
     lambda a, b: f16(f64(a) @ b), tol="f16", scale=absMatmul)
case(M, "linalg_matmul_i32", [I("17x23xi32", -20, 20), I("23x11xi32", -20, 20)],
     lambda a, b: i32(i64(a) @ i64(b)), tol="exact")
case(M, "linalg_matvec", [I("128x257xf32"), I("257xf32")],
     lambda a, x: f64(a) @ x, scale=absMatmul)
case(M, "linalg_matmul_f16_tensor_cores",
     [I("256x96xf16"), I("96x384xf16"), I("384xf32")],
     lambda a, b, c: relu(f64(a) @ b + c),
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_f32_many_waves", [I("4100x64xf32"), I("64x1152xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_f32_wide_tiles", [I("1000x128xf32"), I("128x4352xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_f32_tf32_tails",
     [I("3000x264xf32"), I("264x260xf32"), I("260xf32")],
     lambda a, b, c: relu(f64(a) @ b + c),
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_f16_tensor_cores_large",
     [I("2048x64xf16"), I("64x1024xf16")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_f16_tensor_cores_tails",
     [I("100x40xf16"), I("40x72xf16"), I("72xf32")],
     lambda a, b, c: f64(a) @ b + c,
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(M, "linalg_matmul_f16_tensor_cores_tall",
     [I("6272x64xf16"), I("64x256xf16")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(M, "linalg_matmul_chain", [I("33x20xf32"), I("20x45xf32"), I("45x9xf32")],
     lambda a, b, c: (f64(a) @ b) @ c,
     scale=lambda a, b, c: absMatmul(a, b) @ np.abs(f64(c)))
case(M, "zero_operand_matmul_add", [I("3x4xf32", 0.5, 2.0), I("4x4xf32")],
     lambda x, w: f64(x))

# --- matvec.mlir ------------------------------------------------------------
MV = "matvec.mlir"
case(MV, "matvec_classifier",
     [I("1x384xf32"), I("384x1000xf32"), I("1000xf32")],
     lambda x, w, b: f64(x) @ w + b,
     scale=lambda x, w, b: absMatmul(x, w) + np.abs(b))
case(MV, "matvec_odd_residual_relu",
     [I("3x250xf32"), I("250x77xf32"), I("3x77xf32")],
     lambda a, b, r: relu(f64(a) @ b + r),
     scale=lambda a, b, r: absMatmul(a, b) + np.abs(r))
case(MV, "matvec_transposed_b_tanh", [I("2x300xf32"), I("77x300xf32")],
     lambda a, b: np.tanh(f64(a) @ f64(b).T), tol="f32_approx",
     scale=lambda a, b: absMatmul(a, b.T))
case(MV, "matvec_f16_acc_f32", [I("1x520xf16"), I("520x136xf16")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(MV, "matvec_f16_transposed_b", [I("1x600xf16"), I("200x600xf16")],
     lambda a, b: f64(a) @ f64(b).T, scale=lambda a, b: absMatmul(a, b.T))
case(MV, "matvec_long_k", [I("4x2053xf32"), I("2053x40xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(MV, "matvec_long_k_transposed_b", [I("2x2053xf32"), I("40x2053xf32")],
     lambda a, b: f64(a) @ f64(b).T, scale=lambda a, b: absMatmul(a, b.T))
case(MV, "matvec_batch", [I("6x1x64xf32"), I("6x64x96xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)

# --- batch_matmul.mlir ------------------------------------------------------
B = "batch_matmul.mlir"
case(B, "tosa_batch_matmul", [I("4x33x17xf32"), I("4x17x45xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(B, "linalg_batch_matmul", [I("8x64x32xf32"), I("8x32x48xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(B, "linalg_batch_matmul_odd", [I("3x7x13xf32"), I("3x13x5xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(B, "tosa_batch_matmul_transposed", [I("2x16x8xf32"), I("2x16x8xf32")],
     lambda q, k: (f64(q) @ f64(k).transpose(0, 2, 1)) * 0.353553385,
     scale=lambda q, k: absMatmul(q, k.transpose(0, 2, 1)) * 0.353553385)

case(B, "batch_matmul_f16_tensor_cores_acc",
     [I("2x128x64xf16"), I("2x64x128xf16"), I("2x128x128xf32")],
     lambda a, b, c: f64(c) + f64(a) @ b,
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(B, "batch_matmul_acc_arg_small",
     [I("2x3x4xf32"), I("2x4x1xf32"), I("2x3x1xf32")],
     lambda a, b, c: f64(a) @ f64(b) + c,
     scale=lambda a, b, c: np.abs(f64(a)) @ np.abs(f64(b)) + np.abs(c))
case(B, "batch_matmul_acc_arg_i32",
     [I("3x8x16xi32", -50, 50), I("3x16x8xi32", -50, 50),
      I("3x8x8xi32", -1000, 1000)],
     lambda a, b, c: i32(i64(a) @ i64(b) + c), tol="exact")
case(B, "batch_matmul_acc_arg_i8",
     [I("3x8x16xi8", -128, 127), I("3x16x8xi8", -128, 127),
      I("3x8x8xi32", -1000, 1000)],
     lambda a, b, c: i32(i64(a) @ i64(b) + c), tol="exact")

# --- conv.mlir --------------------------------------------------------------
C = "conv.mlir"


def _tosaConvCase(function, x, w, b, stride, pad, dilation=(1, 1), post=None):
    post = post or (lambda v: v)
    case(C, function, [I(x), I(w), I(b)],
         lambda x, w, b: post(convNhwcOhwi(x, w, b, stride, pad, dilation)),
         scale=lambda x, w, b: convNhwcOhwi(np.abs(x), np.abs(w), np.abs(b),
                                            stride, pad, dilation))


_tosaConvCase("tosa_conv3x3_pad1_bias", "1x16x16x8xf32", "16x3x3x8xf32",
              "16xf32", (1, 1), (1, 1, 1, 1))
_tosaConvCase("tosa_conv3x3_stride2_pad1", "2x17x17x4xf32", "8x3x3x4xf32",
              "8xf32", (2, 2), (1, 1, 1, 1))
_tosaConvCase("tosa_conv3x3_stride2_asym_pad", "1x8x8x3xf32", "4x3x3x3xf32",
              "4xf32", (2, 2), (0, 1, 0, 1))
_tosaConvCase("tosa_conv1x1_bias", "1x14x14x32xf32", "64x1x1x32xf32",
              "64xf32", (1, 1), (0, 0, 0, 0))
_tosaConvCase("tosa_conv3x3_dilation2", "1x12x12x3xf32", "5x3x3x3xf32",
              "5xf32", (1, 1), (2, 2, 2, 2), dilation=(2, 2))
_tosaConvCase("tosa_conv5x3_stride1x2", "1x11x13x6xf32", "7x5x3x6xf32",
              "7xf32", (1, 2), (0, 0, 0, 0))
_tosaConvCase("tosa_conv_relu6", "1x10x10x16xf32", "24x3x3x16xf32", "24xf32",
              (1, 1), (1, 1, 1, 1), post=lambda v: np.clip(v, 0.0, 6.0))

case(C, "tosa_depthwise3x3_pad1",
     [I("1x10x10x8xf32"), I("3x3x8x1xf32"), I("8xf32")],
     lambda x, w, b: depthwiseHwcm(x, w, b, (1, 1), (1, 1, 1, 1)),
     scale=lambda x, w, b: depthwiseHwcm(np.abs(x), np.abs(w), np.abs(b),
                                         (1, 1), (1, 1, 1, 1)))
case(C, "tosa_depthwise_mult2_stride2",
     [I("1x9x9x4xf32"), I("3x3x4x2xf32"), I("8xf32")],
     lambda x, w, b: depthwiseHwcm(x, w, b, (2, 2), (1, 1, 1, 1)),
     scale=lambda x, w, b: depthwiseHwcm(np.abs(x), np.abs(w), np.abs(b),
                                         (2, 2), (1, 1, 1, 1)))
case(C, "linalg_conv_nhwc_hwcf", [I("2x9x10x5xf32"), I("3x3x5x12xf32")],
     lambda x, w: convNhwcHwcf(x, w),
     scale=lambda x, w: convNhwcHwcf(np.abs(x), np.abs(w)))
case(C, "linalg_conv_pad_stride2", [I("1x15x15x6xf32"), I("3x3x6x10xf32")],
     lambda x, w: convNhwcHwcf(padNhwc(x, 1, 1, 1, 1), w, (2, 2)),
     scale=lambda x, w: convNhwcHwcf(padNhwc(np.abs(x), 1, 1, 1, 1),
                                     np.abs(w), (2, 2)))
case(C, "linalg_conv1x1", [I("1x7x7x48xf32"), I("1x1x48x40xf32")],
     lambda x, w: convNhwcHwcf(x, w),
     scale=lambda x, w: convNhwcHwcf(np.abs(x), np.abs(w)))
case(C, "linalg_depthwise_hwc", [I("1x12x12x16xf32"), I("3x3x16xf32")],
     lambda x, w: depthwiseHwc(x, w),
     scale=lambda x, w: depthwiseHwc(np.abs(x), np.abs(w)))
case(C, "linalg_depthwise_hwc_pad_stride2",
     [I("2x11x11x6xf32"), I("3x3x6xf32")],
     lambda x, w: depthwiseHwc(padNhwc(x, 1, 1, 1, 1), w, (2, 2)),
     scale=lambda x, w: depthwiseHwc(padNhwc(np.abs(x), 1, 1, 1, 1),
                                     np.abs(w), (2, 2)))
case(C, "linalg_grouped_conv", [I("1x8x8x2x4xf32"), I("2x3x3x3x4xf32")],
     groupedConv, scale=lambda x, w: groupedConv(np.abs(x), np.abs(w)))
case(C, "linalg_conv_f16_tensor_cores",
     [I("2x11x11x32xf16"), I("3x3x32x64xf16"), I("64xf32")],
     lambda x, w, b: relu(convNhwcHwcf(x, w) + b),
     scale=lambda x, w, b: convNhwcHwcf(np.abs(x), np.abs(w)) + np.abs(b))
case(C, "linalg_conv_f16_tensor_cores_three_channels",
     [I("2x23x23x3xf16"), I("7x7x3x64xf16"), I("64xf32")],
     lambda x, w, b: convNhwcHwcf(x, w, (2, 2)) + b,
     scale=lambda x, w, b: convNhwcHwcf(np.abs(x), np.abs(w), (2, 2)) +
     np.abs(b))
case(C, "linalg_conv_f16_tensor_cores_padded",
     [I("2x14x14x16xf16"), I("3x3x16x32xf16"), I("2x21x21x3xf16"),
      I("7x7x3x64xf16")],
     lambda x, w, x3, w7: (convNhwcHwcf(padNhwc(x, 1, 1, 1, 1), w),
                           convNhwcHwcf(padNhwc(x3, 3, 3, 3, 3), w7, (2, 2))),
     scale=lambda x, w, x3, w7: (
         convNhwcHwcf(padNhwc(np.abs(x), 1, 1, 1, 1), np.abs(w)),
         convNhwcHwcf(padNhwc(np.abs(x3), 3, 3, 3, 3), np.abs(w7), (2, 2))))
# f16 results: the f16 tolerance, against float64 convolutions.
case(C, "linalg_conv_f16_tensor_cores_tails",
     [I("2x7x7x24xf16"), I("1x1x24x144xf16"), I("3x3x24x40xf16")],
     lambda x, w, w3: (convNhwcHwcf(x, w), convNhwcHwcf(x, w3)),
     tol="f16",
     scale=lambda x, w, w3: (convNhwcHwcf(np.abs(x), np.abs(w)),
                             convNhwcHwcf(np.abs(x), np.abs(w3))))



def convNchwFchw(x, w):
    f, c, kh, kw = w.shape
    n, _, h, wd = x.shape
    oh, ow = h - kh + 1, wd - kw + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,fc->nfhw", f64(x)[:, :, i:i + oh, j:j + ow],
                             f64(w)[:, :, i, j])
    return out


case(C, "conv_nchw_bias_residual",
     [I("1x16x10x10xf32"), I("24x16x3x3xf32"), I("24x1x1xf32"),
      I("1x24x8x8xf32")],
     lambda x, w, b, r: convNchwFchw(x, w) + f64(b)[None] + r,
     scale=lambda x, w, b, r: convNchwFchw(np.abs(x), np.abs(w)) +
     np.abs(f64(b))[None] + np.abs(r))
case(C, "conv_split_reduction",
     [I("1x256x9x9xf32"), I("64x256x3x3xf32"), I("64x1x1xf32")],
     lambda x, w, b: relu(convNchwFchw(x, w) + f64(b)[None]),
     scale=lambda x, w, b: convNchwFchw(np.abs(x), np.abs(w)) +
     np.abs(f64(b))[None])

# --- pooling.mlir -----------------------------------------------------------
P = "pooling.mlir"
case(P, "tosa_maxpool2x2_stride2", [I("1x16x16x8xf32")],
     lambda x: maxPool(x, (2, 2), (2, 2)))
case(P, "tosa_maxpool3x3_stride2_pad1", [I("2x17x17x4xf32")],
     lambda x: maxPool(x, (3, 3), (2, 2), (1, 1, 1, 1)))
case(P, "tosa_maxpool3x3_stride2_pad1_wide", [I("1x112x112x64xf32")],
     lambda x: maxPool(x, (3, 3), (2, 2), (1, 0, 1, 0)))
case(P, "tosa_maxpool3x3_stride2_pad1_wide_f16", [I("4x56x56x64xf16")],
     lambda x: maxPool(x, (3, 3), (2, 2), (1, 0, 1, 0)))
case(P, "tosa_avgpool3x3_pad1", [I("1x8x8x3xf32")],
     lambda x: avgPoolExcludePad(x, (3, 3), (1, 1), (1, 1, 1, 1)),
     scale=lambda x: avgPoolExcludePad(np.abs(x), (3, 3), (1, 1),
                                       (1, 1, 1, 1)))
case(P, "tosa_avgpool2x2_stride2", [I("2x12x12x6xf32")],
     lambda x: avgPoolExcludePad(x, (2, 2), (2, 2)),
     scale=lambda x: avgPoolExcludePad(np.abs(x), (2, 2), (2, 2)))
case(P, "tosa_avgpool_global", [I("1x7x7x32xf32")],
     lambda x: avgPoolExcludePad(x, (7, 7), (1, 1)),
     scale=lambda x: avgPoolExcludePad(np.abs(x), (7, 7), (1, 1)))
case(P, "linalg_pool_max3x3_stride2", [I("1x15x15x8xf32")],
     lambda x: maxPool(x, (3, 3), (2, 2)))
case(P, "linalg_pool_sum2x2_stride2", [I("3x10x10x5xf32")],
     lambda x: sumPool(x, (2, 2), (2, 2)),
     scale=lambda x: sumPool(np.abs(x), (2, 2), (2, 2)))
case(P, "linalg_pool_avg3x3_pad1", [I("1x9x9x4xf32")],
     lambda x: sumPool(x, (3, 3), (1, 1), (1, 1, 1, 1)) / 9.0,
     scale=lambda x: sumPool(np.abs(x), (3, 3), (1, 1), (1, 1, 1, 1)) / 9.0)
case(P, "linalg_pool_max_i32", [I("1x8x8x2xi32", -10000, 10000)],
     lambda x: i32(maxPool(x, (2, 2), (2, 2))), tol="exact")

# --- reduction.mlir ---------------------------------------------------------
R = "reduction.mlir"


def _sumCase(function, type, axis, lo=-1.0, hi=1.0):
    case(R, function, [I(type, lo, hi)],
         lambda x: f64(x).sum(axis=axis, keepdims=True),
         scale=lambda x: np.abs(f64(x)).sum(axis=axis, keepdims=True))


_sumCase("tosa_reduce_sum_axis0", "64x32xf32", 0)
_sumCase("tosa_reduce_sum_axis1", "48x33xf32", 1)
_sumCase("tosa_reduce_sum_middle", "4x37x6xf32", 1)
case(R, "tosa_reduce_max_axis2", [I("4x8x100xf32")],
     lambda x: x.max(axis=2, keepdims=True))
case(R, "tosa_reduce_max_axis0", [I("29x3x5xf32")],
     lambda x: x.max(axis=0, keepdims=True))
case(R, "tosa_reduce_min_prod", [I("6x10xf32", 0.5, 1.5)],
     lambda x: (x.min(axis=1, keepdims=True),
                f64(x).prod(axis=0, keepdims=True)))
case(R, "tosa_reduce_sum_i32", [I("16x50xi32", -100000, 100000)],
     lambda x: i32(i64(x).sum(axis=1, keepdims=True)), tol="exact")
case(R, "tosa_reduce_chain", [I("5x7x9xf32")],
     lambda x: f64(x).sum(axis=2, keepdims=True).max(axis=0, keepdims=True),
     scale=lambda x: np.abs(f64(x)).sum(axis=(0, 2), keepdims=True))
case(R, "linalg_reduce_sum_dims02", [I("8x16x32xf32")],
     lambda x: f64(x).sum(axis=(0, 2)),
     scale=lambda x: np.abs(f64(x)).sum(axis=(0, 2)))
case(R, "linalg_reduce_max_rows", [I("50x70xf32")], lambda x: x.max(axis=1))
# Positive values: any dropped or doubled element moves the sum by >= 0.5.
case(R, "linalg_reduce_sum_long", [I("65536xf32", 0.5, 1.5)],
     lambda x: f64(x).sum(), scale=lambda x: f64(x).sum())
case(R, "linalg_reduce_i64", [I("9x31xi64", -10**12, 10**12)],
     lambda x: x.sum(axis=0), tol="exact")
case(R, "generic_l2_norm", [I("24x80xf32")],
     lambda x: np.sqrt((f64(x)**2).sum(axis=1)))

case(R, "count_rows", [I("11x3xf32")], lambda x: np.full((3,), 11.0))
case(R, "reduce_sum_of_fill", [], lambda: np.full((1, 3), 11 * 0.375))


def _maskedGatherSum(x, m, t):
    j = np.clip(t[:, 0, :], 0, 4)
    picked = np.take_along_axis(f64(x), j[:, None, :].astype(np.int64), axis=1)
    return np.where(m, 0.0, picked).sum()


case(R, "masked_gather_sum",
     [I("3x5x2xf32", 0.5, 2.0), I("3x1x2xi1"), I("3x1x2xi32", -1, 6)],
     _maskedGatherSum)

# --- normalization.mlir -----------------------------------------------------
NO = "normalization.mlir"


def layerNorm(x, eps=1e-5):
    x = f64(x)
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + eps)


def _residualLayerNormScale(a, w, b, r):
    x = f64(a) @ f64(w) + b + r
    terms = absMatmul(a, w) + np.abs(f64(b)) + np.abs(f64(r))
    std = np.sqrt(((x - x.mean(axis=-1, keepdims=True)) ** 2).mean(
        axis=-1, keepdims=True) + 1e-5)
    return np.abs(layerNorm(x)) + terms / std, terms


def _softmaxScaledF16(x):
    y = f16(f64(x) * 0.125)
    e = f16(np.exp(f64(y) - f64(y).max(axis=-1, keepdims=True)))
    s = f16(f64(e).sum(axis=-1, keepdims=True))
    return f16(f64(e) * f64(f16(1.0 / f64(s))))


case(NO, "layernorm_f32", [I("6x37x96xf32", -3, 3), I("1x1x96xf32"),
                           I("1x1x96xf32")],
     lambda x, g, b: layerNorm(x) * g + b)
case(NO, "layernorm_f16", [I("4x50x384xf16", -3, 3), I("1x1x384xf16")],
     lambda x, g: f16(layerNorm(x) * g), tol="f16")
case(NO, "residual_layernorm_split",
     [I("1x128x1024xf32"), I("1x1024x256xf32"), I("1x1x256xf32"),
      I("1x128x256xf32", -4, 4)],
     lambda a, w, b, r: (layerNorm(f64(a) @ f64(w) + b + r),
                         f64(a) @ f64(w) + b + r),
     # The sum's error scales with its terms' magnitudes (absMatmul), and
     # the LayerNorm's with those over the row's deviation.
     scale=lambda a, w, b, r: _residualLayerNormScale(a, w, b, r))
def _embedding(ids, table, pos):
    return f64(table)[np.clip(ids.astype(np.int64), 0, 49)] + f64(pos)


case(NO, "embedding_layernorm",
     [I("24xi32", -3, 55), I("50x64xf32", -2, 2), I("24x64xf32")],
     lambda ids, t, p: (layerNorm(_embedding(ids, t, p)),
                        _embedding(ids, t, p)))
case(NO, "layernorm_with_mean", [I("9x40xf32", -2, 4)],
     lambda x: (layerNorm(x), f64(x).mean(axis=-1, keepdims=True)))
case(NO, "rmsnorm_long", [I("3x3000xf32", -2, 2), I("1x3000xf32")],
     lambda x, g: f64(x) / np.sqrt((f64(x) ** 2).mean(axis=-1, keepdims=True)
                                   + 1e-6) * g)
case(NO, "softmax_scaled_f16", [I("2x3x19x19xf16", -8, 8)], _softmaxScaledF16,
     tol="f16")
case(NO, "layernorm_and_rounded", [I("8x200xf32", -3, 3)],
     lambda x: (layerNorm(x), f16(layerNorm(x))), tol=("f32", "f16"))
case(NO, "row_rank1", [I("1000xf32", 0.5, 2.0)], lambda x: f64(x) / f64(x).sum())
case(NO, "row_sum_i64", [I("7x5xi64", -50, 50)],
     lambda x: i64(x) - i64(x).sum(axis=1, keepdims=True), tol="exact")
case(NO, "row_any_i1", [I("6x40xi1")],
     lambda x: np.logical_xor(x, x.any(axis=1, keepdims=True)), tol="exact")
case(NO, "row_of_one", [I("9x1xf32", -3, 3)], lambda x: 2 * f64(x))

# --- attention.mlir ---------------------------------------------------------
AT = "attention.mlir"


def attention(q, k, v, scale, mask=0.0, roundScores=True):
    """Attention from f16 inputs, exact but for the model's rounding of the
    scores and of their scaled and masked values to f16."""
    s = f64(q) @ np.swapaxes(f64(k), -1, -2)
    if roundScores:
        s = f64(f16(f64(f16(f64(f16(s)) * scale)) + mask))
    else:
        s = s * scale + mask
    return softmax(s, -1) @ f64(v)


def _hiddenMask():
    i = np.arange(5)[:, None]
    j = np.arange(70)[None, :]
    return np.where(j + 7 * i < 66, -np.inf, 0.0)


case(AT, "attention_vit_f16",
     [I("6x197x64xf16", -3, 3), I("6x197x64xf16", -3, 3), I("6x197x64xf16")],
     lambda q, k, v: f16(attention(q, k, v, 0.125)), tol="f16")
case(AT, "attention_mask_f16",
     [I("4x128x64xf16", -2, 2), I("4x128x64xf16", -2, 2), I("4x128x64xf16"),
      I("1x128x128xf16", -4, 0)],
     lambda q, k, v, m: f16(attention(q, k, v, 0.125, f64(m))), tol="f16")
case(AT, "attention_hidden_f32_softmax",
     [I("2x3x5x32xf16", -3, 3), I("2x3x70x32xf16", -3, 3),
      I("2x3x70x40xf16")],
     lambda q, k, v: attention(q, k, v, 0.17677669, _hiddenMask(),
                               roundScores=False), tol="f16")


def _attentionScale(q, k, v, scale, mask=0.0):
    """softmax(s) . |v|: the magnitude each output element sums."""
    s = f64(q) @ np.swapaxes(f64(k), -1, -2) * scale + mask
    return softmax(s, -1) @ np.abs(f64(v))


case(AT, "attention_vit_f32",
     [I("6x197x64xf32", -2, 2), I("6x197x64xf32", -2, 2), I("6x197x64xf32")],
     lambda q, k, v: attention(q, k, v, 0.125, roundScores=False),
     scale=lambda q, k, v: _attentionScale(q, k, v, 0.125))
case(AT, "attention_mask_f32",
     [I("4x128x64xf32", -2, 2), I("4x128x64xf32", -2, 2), I("4x128x64xf32"),
      I("1x128x128xf32", -4, 0)],
     lambda q, k, v, m: attention(q, k, v, 0.125, f64(m), roundScores=False),
     scale=lambda q, k, v, m: _attentionScale(q, k, v, 0.125, f64(m)))

# --- softmax.mlir -----------------------------------------------------------
S = "softmax.mlir"
case(S, "tosa_softmax", [I("4x128xf32", -4, 4)], lambda x: softmax(x, 1),
     tol="f32_approx")
case(S, "tosa_softmax_axis0", [I("10x3x7xf32", -4, 4)],
     lambda x: softmax(x, 0), tol="f32_approx")
case(S, "linalg_softmax_last", [I("8x1000xf32", -3, 3)],
     lambda x: softmax(x, 1), tol="f32_approx")
case(S, "linalg_softmax_middle", [I("2x16x5xf32", -4, 4)],
     lambda x: softmax(x, 1), tol="f32_approx")

# --- shape.mlir -------------------------------------------------------------
SH = "shape.mlir"
case(SH, "tosa_transpose_201", [I("4x5x6xf32")],
     lambda x: x.transpose(2, 0, 1), tol="exact")
case(SH, "tosa_transpose_nhwc_to_nchw", [I("2x8x9x3xf32")],
     lambda x: x.transpose(0, 3, 1, 2), tol="exact")
case(SH, "tosa_transpose_i32", [I("37x61xi32", -10**9, 10**9)],
     lambda x: x.T, tol="exact")
case(SH, "linalg_transpose", [I("3x64x20xf32")],
     lambda x: x.transpose(2, 0, 1), tol="exact")
case(SH, "tosa_reshape_only", [I("4x6xf32")], lambda x: x.reshape(3, 8),
     tol="exact")
case(SH, "tosa_reshape_chain", [I("2x3x20xf32"), I("1x20xf32")],
     lambda x, b: (f64(x).reshape(6, 20) + b).reshape(120))
case(SH, "tensor_expand_collapse", [I("12x10xf32")],
     lambda x: (x.reshape(3, 4, 2, 5), x.reshape(120)), tol="exact")
case(SH, "tosa_concat_axis1", [I("4x5xf32"), I("4x3xf32"), I("4x9xf32")],
     lambda a, b, c: np.concatenate([a, b, c], axis=1), tol="exact")
case(SH, "tosa_concat_axis0_i32",
     [I("2x6xi32", -10**6, 10**6), I("5x6xi32", -10**6, 10**6)],
     lambda a, b: np.concatenate([a, b], axis=0), tol="exact")
case(SH, "tensor_concat_nhwc", [I("1x4x4x3xf32"), I("1x4x4x5xf32")],
     lambda a, b: np.concatenate([a, b], axis=3), tol="exact")
case(SH, "tosa_concat_computed", [I("1x16x16x8xf32"), I("1x16x16x24xf32")],
     lambda a, b: np.abs(np.concatenate([np.abs(a), np.floor(b)], axis=3)),
     tol="exact")
case(SH, "tosa_slice", [I("8x9xf32")], lambda x: x[2:5, 1:5], tol="exact")
case(SH, "tosa_slice_add", [I("6x10x4xf32")],
     lambda x: f64(x)[:, 0:5] + x[:, 3:8])
case(SH, "tensor_extract_slice_strided", [I("10x12xf32")],
     lambda x: x[1:8:2, 2:9:3], tol="exact")


def _insertSlice(x, y):
    out = x.copy()
    out[3:5, 2:5] = y
    return out


case(SH, "tensor_insert_slice", [I("6x7xf32"), I("2x3xf32")], _insertSlice,
     tol="exact")
case(SH, "tosa_pad", [I("3x4xf32")],
     lambda x: np.pad(x, ((1, 2), (3, 2)), constant_values=-2.5),
     tol="exact")
case(SH, "tosa_tile", [I("2x3xi32", -10**6, 10**6)],
     lambda x: np.tile(x, (2, 3)), tol="exact")
case(SH, "identity_twice", [I("5x5xf32")], lambda x: (x, x), tol="exact")
case(SH, "slice_large_strided", [I("4x300x520xf32")],
     lambda x: x[2, 1:300:2, 3:520:3], tol="exact")


def _insertStrided(x, y):
    out = x.copy()
    out[2:2 + 3 * 100:3, 7:7 + 2 * 250:2] = y
    return out


case(SH, "insert_large_strided", [I("300x520xf32"), I("100x250xf32")],
     _insertStrided, tol="exact")
case(SH, "returned_and_consumed", [I("64x96xf32", -2, 2), I("64x96xf32", -2, 2)],
     lambda a, b: (f64(a) + b, np.exp(f64(a) + b).T))

# --- partial_tiles.mlir -----------------------------------------------------
PT = "partial_tiles.mlir"
case(PT, "pt_matmul_131x509x67", [I("131x509xf32"), I("509x67xf32")],
     lambda a, b: f64(a) @ b, scale=absMatmul)
case(PT, "pt_matmul_bias_relu_67x33x197",
     [I("67x33xf32"), I("33x197xf32"), I("197xf32")],
     lambda a, b, c: relu(f64(a) @ b + c),
     scale=lambda a, b, c: absMatmul(a, b) + np.abs(c))
case(PT, "pt_matmul_i32_67x19x71",
     [I("67x19xi32", -20, 20), I("19x71xi32", -20, 20)],
     lambda a, b: i32(i64(a) @ i64(b)), tol="exact")
case(PT, "pt_matmul_f16_67x35x69",
     [I("67x35xf16"), I("35x69xf16")], lambda a, b: f64(a) @ b,
     scale=absMatmul)
case(PT, "pt_batch_matmul_2x197x64x197",
     [I("2x197x64xf32"), I("2x64x197xf32")], lambda a, b: f64(a) @ b,
     scale=absMatmul)
case(PT, "pt_elementwise_3x4099", [I("3x4099xf32"), I("3x4099xf32")],
     lambda a, b: (f64(a) + b) * a)
case(PT, "pt_reduce_sum_67x1031", [I("67x1031xf32")],
     lambda x: f64(x).sum(axis=1), scale=lambda x: np.abs(f64(x)).sum(axis=1))
case(PT, "pt_softmax_197x197", [I("197x197xf32", -4, 4)],
     lambda x: softmax(x, 1), tol="f32_approx")
case(PT, "pt_conv_115x115x3_to_8", [I("1x115x115x3xf32"), I("3x3x3x8xf32")],
     lambda x, w: convNhwcHwcf(x, w),
     scale=lambda x, w: convNhwcHwcf(np.abs(x), np.abs(w)))
case(PT, "pt_depthwise_69x69x17", [I("1x69x69x17xf32"), I("3x3x17xf32")],
     lambda x, w: depthwiseHwc(x, w),
     scale=lambda x, w: depthwiseHwc(np.abs(x), np.abs(w)))
case(PT, "pt_maxpool_35x35x19", [I("1x35x35x19xf32")],
     lambda x: maxPool(x, (3, 3), (1, 1)))

# --- zero_size.mlir ----------------------------------------------------------
Z = "zero_size.mlir"
case(Z, "matmul_k0_fill", [I("3x0xf32"), I("0x2xf32")],
     lambda a, b: np.full((3, 2), 1.5))
case(Z, "matmul_k0_arg", [I("70x0xf32"), I("0x66xf32"), I("70x66xf32")],
     lambda a, b, c: f64(c))
case(Z, "reduce_empty_axis", [I("4x0xf32"), I("4xf32")], lambda x, c: f64(c))
case(Z, "exp_empty", [I("3x0xf32")], lambda a: np.zeros((3, 0)))
case(Z, "slice_empty", [I("1x14x2xf32")], lambda x: np.zeros((1, 11, 0)))
case(Z, "concat_empty_part", [I("3x0xf32"), I("3x4xf32")],
     lambda a, b: f64(b), tol="exact")
case(Z, "pad_empty_source", [I("0x3xf32")], lambda a: np.full((2, 3), 2.5),
     tol="exact")
case(Z, "batch_matmul_empty_batch",
     [I("0x3x5xf32"), I("0x5x4xf32"), I("0x3x4xf32")],
     lambda a, b, c: np.zeros((0, 3, 4)))

# --- fusion.mlir ------------------------------------------------------------
FU = "fusion.mlir"
case(FU, "consumer_of_two_roots", [I("4x33xf32"), I("4x33xf32")],
     lambda a, b: -np.exp(f64(a)) * f64(b), tol="f32_approx")
case(FU, "max_of_two_reductions", [I("3x4xf32"), I("7x4xf32")],
     lambda a, b: np.maximum(f64(a).sum(axis=0, keepdims=True),
                             f64(b).sum(axis=0, keepdims=True)),
     scale=lambda a, b: np.maximum(np.abs(f64(a)).sum(axis=0, keepdims=True),
                                   np.abs(f64(b)).sum(axis=0, keepdims=True)))
case(FU, "consumer_reads_other_dispatch", [I("3x2xf32"), I("4x2xf32")],
     lambda a, x: f64(a).T * f64(x).sum(axis=0)[:, None],
     scale=lambda a, x: np.abs(f64(a)).T * np.abs(f64(x)).sum(axis=0)[:, None])
case(FU, "elementwise_into_input", [I("130x70xf32"), I("130x70xf32")],
     lambda a, c: f64(a) * f64(a))


def projectionHeads(x, w, b, shape, perm):
    y = f64(x) @ f64(w).reshape(x.shape[-1], -1)
    return (y + (0 if b is None else f64(b).reshape(-1))).reshape(
        shape).transpose(perm)


HEADS = ((1, 40, 3, 2, 32), (2, 0, 3, 1, 4))
case(FU, "projection_heads_f32",
     [I("1x40x96xf32"), I("96x3x2x32xf32"), I("3x2x32xf32")],
     lambda x, w, b: projectionHeads(x, w, b, *HEADS),
     scale=lambda x, w, b: projectionHeads(np.abs(x), np.abs(w), np.abs(b),
                                           *HEADS))
# The product rounded to f16, then the bias added in f16: two roundings.
case(FU, "projection_heads_f16",
     [I("1x40x96xf16"), I("96x3x2x32xf16"), I("3x2x32xf16")],
     lambda x, w, b: f16(f64(f16(projectionHeads(x, w, None, *HEADS))) +
                         f64(b).reshape(1, 1, 3, 2, 32).transpose(
                             HEADS[1])),
     tol="f16")
WIDE = ((1, 2048, 3, 4, 64), (2, 0, 3, 1, 4))
case(FU, "projection_heads_f16_wide",
     [I("1x2048x128xf16"), I("128x3x4x64xf16"), I("3x4x64xf16")],
     lambda x, w, b: f16(f64(f16(projectionHeads(x, w, None, *WIDE))) +
                         f64(b).reshape(1, 1, 3, 4, 64).transpose(WIDE[1])),
     # Two f16 roundings (the product, then the sum with the bias): where
     # f32 accumulation puts the product on the other side of a rounding
     # boundary than float64 does, the sum can land two ulps away (1 of
     # 1.5 million elements on the CPU), beyond f16's 1e-3 relative.
     tol="f16", scale=lambda x, w, b: 3 * np.abs(f64(f16(
         projectionHeads(x, w, None, *WIDE))) + f64(b).reshape(
             1, 1, 3, 4, 64).transpose(WIDE[1])))
case(FU, "projection_heads_small", [I("1x6x24xf32"), I("1x24x48xf32")],
     lambda x, w: projectionHeads(x, w, None, (6, 2, 4, 6), (1, 2, 0, 3)),
     scale=lambda x, w: projectionHeads(np.abs(x), np.abs(w), None,
                                        (6, 2, 4, 6), (1, 2, 0, 3)))
case(FU, "projection_innermost_moved", [I("1x40x96xf32"), I("1x96x64xf32")],
     lambda x, w: (f64(x) @ f64(w)).transpose((0, 2, 1)),
     scale=lambda x, w: (np.abs(f64(x)) @ np.abs(f64(w))).transpose((0, 2, 1)))

# --- accumulators.mlir ------------------------------------------------------
# Every reduction-carrying op with its accumulator (`outs`) taken from each
# source a program can give it. Workgroups each compute a tile of the result;
# an accumulator that is not a fresh tensor once made every workgroup copy
# the whole accumulator over the others' tiles (issue 6). Shapes give every
# op several workgroups. Generated: `cases.py --emit-accumulators`.
A = "accumulators.mlir"

_DIMS = "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}"
_RED2 = ("{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
         "affine_map<(d0, d1) -> (d0)>], iterator_types = "
         "[\"parallel\", \"reduction\"]}")

# name: (input types, accumulator type, op text with {ins}/{acc}/{inT}/{T}
# placeholders, reference(inputs, acc), scale(inputs, acc)).
ACC_OPS = {
    "matmul": (("70x33xf32", "33x66xf32"), "70x66xf32",
               "linalg.matmul ins({ins}) outs({acc}) -> {T}",
               lambda a, b, c: f64(a) @ f64(b) + c,
               lambda a, b, c: np.abs(f64(a)) @ np.abs(f64(b)) + np.abs(c)),
    "batch_matmul": (("3x8x16xf32", "3x16x8xf32"), "3x8x8xf32",
                     "linalg.batch_matmul ins({ins}) outs({acc}) -> {T}",
                     lambda a, b, c: f64(a) @ f64(b) + c,
                     lambda a, b, c: np.abs(f64(a)) @ np.abs(f64(b)) +
                     np.abs(c)),
    "conv": (("1x10x10x8xf32", "3x3x8x70xf32"), "1x8x8x70xf32",
             "linalg.conv_2d_nhwc_hwcf " + _DIMS +
             " ins({ins}) outs({acc}) -> {T}",
             lambda x, w, c: convNhwcHwcf(x, w) + c,
             lambda x, w, c: convNhwcHwcf(np.abs(x), np.abs(w)) + np.abs(c)),
    "depthwise": (("1x10x10x70xf32", "3x3x70xf32"), "1x8x8x70xf32",
                  "linalg.depthwise_conv_2d_nhwc_hwc " + _DIMS +
                  " ins({ins}) outs({acc}) -> {T}",
                  lambda x, w, c: depthwiseHwc(x, w) + c,
                  lambda x, w, c: depthwiseHwc(np.abs(x), np.abs(w)) +
                  np.abs(c)),
    "pool_sum": (("1x12x12x70xf32",), "1x10x10x70xf32",
                 "linalg.pooling_nhwc_sum " + _DIMS +
                 " ins({ins}, %window : {inT}, tensor<3x3xf32>) outs({acc})"
                 " -> {T}",
                 lambda x, c: sumPool(x, (3, 3), (1, 1)) + c,
                 lambda x, c: sumPool(np.abs(x), (3, 3), (1, 1)) + np.abs(c)),
    "pool_max": (("1x12x12x70xf32",), "1x10x10x70xf32",
                 "linalg.pooling_nhwc_max " + _DIMS +
                 " ins({ins}, %window : {inT}, tensor<3x3xf32>) outs({acc})"
                 " -> {T}",
                 lambda x, c: np.maximum(maxPool(x, (3, 3), (1, 1)), c),
                 None),
    "reduce_sum": (("130x33xf32",), "130xf32",
                   "linalg.generic " + _RED2 + " ins({ins}) outs({acc}) {\n"
                   "  ^bb0(%x: f32, %o: f32):\n"
                   "    %s = arith.addf %x, %o : f32\n"
                   "    linalg.yield %s : f32\n"
                   "  } -> {T}",
                   lambda a, c: f64(a).sum(axis=1) + c,
                   lambda a, c: np.abs(f64(a)).sum(axis=1) + np.abs(c)),
}
# Where the accumulator comes from: an argument, a constant, a fill, another
# dispatch's result (also returned, so it is not fused), an elementwise
# producer fused into the op's dispatch, and an argument with a fused relu
# consumer of the result.
ACC_SOURCES = ("arg", "const", "fill", "dispatch", "fused", "arg_relu")
ACC_FILL = 0.5


def _accConst(shape):
    return pattern(shape, 7, 3, 19, 8.0)


def _tensorT(t):
    return f"tensor<{t}>"


def _ewise(name, src, T, rank, body):
    """An elementwise linalg.generic over rank dims applying body to %x."""
    ids = ", ".join(f"d{i}" for i in range(rank))
    m = f"affine_map<({ids}) -> ({ids})>"
    its = ", ".join(['"parallel"'] * rank)
    return (f"  %{name}_e = tensor.empty() : {T}\n"
            f"  %{name} = linalg.generic {{indexing_maps = [{m}, {m}], "
            f"iterator_types = [{its}]}} ins({src} : {T}) "
            f"outs(%{name}_e : {T}) {{\n"
            f"  ^bb0(%x: f32, %o: f32):\n{body}"
            f"  }} -> {T}\n")


def emitAccumulators() -> str:
    out = ["// Reduction-carrying ops with their accumulator from every "
           "source.\n",
           "// GENERATED by `/usr/bin/python3 tests/e2e/cases.py "
           "--emit-accumulators`\n",
           "// from ACC_OPS and ACC_SOURCES there; constant accumulators are\n",
           "// pattern(shape, 7, 3, 19, 8.0).\n"]
    for opName, (ins, accT, text, _, _) in ACC_OPS.items():
        T = _tensorT(accT)
        shape = parseTensorType(accT)[0]
        rank = len(shape)
        for src in ACC_SOURCES:
            args = [f"%in{i}: {_tensorT(t)}" for i, t in enumerate(ins)]
            if src in ("arg", "dispatch", "fused", "arg_relu"):
                args.append(f"%c: {T}")
            results = f"({T}, {T})" if src == "dispatch" else T
            out.append(f"\nfunc.func @{opName}_{src}({', '.join(args)}) -> "
                       f"{results} {{\n")
            if "pool" in opName:
                out.append("  %window = tensor.empty() : tensor<3x3xf32>\n")
            acc = "%c"
            if src == "const":
                acc = "%acc"
                out.append(f"  %acc = arith.constant dense<"
                           f"{_hexDense(_accConst(shape))}> : {T}\n")
            elif src == "fill":
                acc = "%acc"
                out.append(f"  %fv = arith.constant {ACC_FILL} : f32\n"
                           f"  %fe = tensor.empty() : {T}\n"
                           f"  %acc = linalg.fill ins(%fv : f32) outs(%fe : "
                           f"{T}) -> {T}\n")
            elif src in ("dispatch", "fused"):
                acc = "%acc"
                out.append(_ewise("acc", "%c", T, rank,
                                  "    %t = arith.addf %x, %x : f32\n"
                                  "    linalg.yield %t : f32\n"))
            opIns = ", ".join(f"%in{i}" for i in range(len(ins)))
            inTypes = ", ".join(_tensorT(t) for t in ins)
            # Plain replacement: the op texts hold MLIR braces.
            opText = (text.replace("{ins}", opIns if "pool" in opName else
                                   f"{opIns} : {inTypes}")
                      .replace("{acc}", f"{acc} : {T}")
                      .replace("{inT}", _tensorT(ins[0]))
                      .replace("{T}", T))
            out.append(f"  %r = {opText}\n")
            if src == "arg_relu":
                out.append(_ewise("y", "%r", T, rank,
                                  "    %z = arith.constant 0.0 : f32\n"
                                  "    %t = arith.maximumf %x, %z : f32\n"
                                  "    linalg.yield %t : f32\n"))
                out.append(f"  return %y : {T}\n}}\n")
            elif src == "dispatch":
                out.append(f"  return %r, %acc : {T}, {T}\n}}\n")
            else:
                out.append(f"  return %r : {T}\n}}\n")
    return "".join(out)


def _accCase(opName, src):
    ins, accT, _, ref, scale = ACC_OPS[opName]
    shape = parseTensorType(accT)[0]
    inputs = [I(t) for t in ins]
    if src in ("arg", "dispatch", "fused", "arg_relu"):
        inputs.append(I(accT))

    def acc(args):
        if src == "const":
            return _accConst(shape)
        if src == "fill":
            return np.full(shape, ACC_FILL)
        c = f64(args[len(ins)])
        return 2.0 * c if src in ("dispatch", "fused") else c

    def caseRef(*args):
        r = ref(*args[:len(ins)], acc(args))
        if src == "arg_relu":
            return relu(r)
        return (r, acc(args)) if src == "dispatch" else r

    caseScale = None
    if scale is not None:

        def caseScale(*args):
            s = scale(*args[:len(ins)], acc(args))
            return (s, np.abs(acc(args))) if src == "dispatch" else s

    case(A, f"{opName}_{src}", inputs, caseRef, scale=caseScale)


for _op in ACC_OPS:
    for _src in ACC_SOURCES:
        _accCase(_op, _src)

# --- branches.mlir ----------------------------------------------------------
# Independent steps that runtimes run at once. Weights are drawn from
# [-0.25, 0.25] so values stay near 1 through chains of 64-wide matmuls.
BR = "branches.mlir"
W64 = I("64x64xf32", -0.25, 0.25)
W164 = I("1x64x64xf32", -0.25, 0.25)


def _chain3(x, w):
    return f64(x) @ w @ w @ w


case(BR, "two_chains", [I("64x64xf32"), I("64x64xf32"), W64],
     lambda a, b, w: (_chain3(a, w), _chain3(b, w)),
     scale=lambda a, b, w: (_chain3(np.abs(a), np.abs(w)),
                            _chain3(np.abs(b), np.abs(w))))


def _diamond(x, w1, w2, w3, w4, w5, branch=relu):
    h = f64(x) @ w1
    return (branch(h @ w2) @ w4 + h @ w3) @ w5


case(BR, "diamond", [I("1x64x64xf32")] + [W164] * 5, _diamond,
     scale=lambda *args: _diamond(*[np.abs(a) for a in args],
                                  branch=lambda v: v))


def _inception(x, w1, b1, w3, b3, wp, bp, act=relu):
    same = (1, 1, 1, 1)
    return np.concatenate([
        act(convNhwcOhwi(x, w1, b1, (1, 1), (0, 0, 0, 0))),
        act(convNhwcOhwi(x, w3, b3, (1, 1), same)),
        convNhwcOhwi(maxPool(x, (3, 3), (1, 1), same), wp, bp, (1, 1),
                     (0, 0, 0, 0)),
        avgPoolExcludePad(x, (3, 3), (1, 1), same)
    ], axis=3)


def _inceptionScale(x, w1, b1, w3, b3, wp, bp):
    # Pooling's max is exact: the 1x1 conv after it sees |maxpool(x)|.
    same = (1, 1, 1, 1)
    a = lambda v: np.abs(f64(v))
    return np.concatenate([
        convNhwcOhwi(a(x), a(w1), a(b1), (1, 1), (0, 0, 0, 0)),
        convNhwcOhwi(a(x), a(w3), a(b3), (1, 1), same),
        convNhwcOhwi(a(maxPool(x, (3, 3), (1, 1), same)), a(wp), a(bp),
                     (1, 1), (0, 0, 0, 0)),
        avgPoolExcludePad(a(x), (3, 3), (1, 1), same)
    ], axis=3)


case(BR, "inception",
     [I("1x16x16x8xf32"), I("8x1x1x8xf32"), I("8xf32"), I("12x3x3x8xf32"),
      I("12xf32"), I("4x1x1x8xf32"), I("4xf32")], _inception,
     scale=_inceptionScale)


def _longLived(x, w1, w2, w3):
    e = f64(x) @ w1
    q = e @ w2 @ w2
    s = e @ w3 @ w3
    return (q + s) @ w2 + e


case(BR, "long_lived", [I("64x64xf32"), W64, W64, W64], _longLived,
     scale=lambda *args: _longLived(*[np.abs(a) for a in args]))

# --- mlp.mlir ---------------------------------------------------------------
# Weight patterns: (shape, mul, add, mod, div) for pattern(); mlp.mlir holds
# the same values (regenerate it with `cases.py --emit-mlp`).
MLP_LINALG = {
    "w1": ((16, 32), 7, 3, 19, 32.0),
    "b1": ((32,), 5, 1, 11, 16.0),
    "w2": ((32, 10), 11, 2, 17, 32.0),
    "b2": ((10,), 3, 0, 7, 16.0),
}
MLP_TOSA = {
    "w1": ((1, 64, 128), 13, 5, 29, 64.0),
    "b1": ((1, 1, 128), 5, 2, 9, 16.0),
    "w2": ((1, 128, 10), 17, 1, 23, 64.0),
    "b2": ((1, 1, 10), 3, 1, 5, 8.0),
}


def _mlp(weights, x):
    w = {k: pattern(*v) for k, v in weights.items()}
    h = relu(f64(x) @ w["w1"] + w["b1"])
    return h @ w["w2"] + w["b2"]


def _mlpScale(weights, x):
    w = {k: np.abs(pattern(*v)) for k, v in weights.items()}
    h = np.abs(f64(x)) @ w["w1"] + w["b1"]
    return h @ w["w2"] + w["b2"]


case("mlp.mlir", "mlp_linalg", [I("4x16xf32")],
     lambda x: _mlp(MLP_LINALG, x), scale=lambda x: _mlpScale(MLP_LINALG, x))
case("mlp.mlir", "mlp_tosa", [I("1x8x64xf32")],
     lambda x: _mlp(MLP_TOSA, x), scale=lambda x: _mlpScale(MLP_TOSA, x))

# --- push_constants.mlir ----------------------------------------------------
# One entry point called with different scalars (push constants) per step.
PC = "push_constants.mlir"
case(PC, "three_clamps", [I("64x33xf32")] * 3,
     lambda a, b, c: (np.clip(a, -0.5, 0.25), np.clip(b, -0.125, 0.75),
                      np.clip(c, 0.0, 0.5)))


def _leaky(x, slope):
    return np.where(x > 0, x, f16(f64(x) * slope))


case(PC, "leaky_relu_f16", [I("16x40xf16"), I("16x40xf16")],
     lambda a, b: (_leaky(a, 0.125), _leaky(b, 0.5), _leaky(a, -0.25)),
     tol="f16")
case(PC, "affine_i32", [I("24x17xi32", -1000, 1000)] * 3,
     lambda a, b, c: (i64(a) * 3 - 7, i64(b) * -5 + 11, i64(c) * 7 + 100000),
     tol="exact")
case(PC, "wide_i64_f64",
     [I("10x12xi64", -1000, 1000), I("10x12xi64", -1000, 1000),
      I("10x12xf64"), I("10x12xf64")],
     lambda a, b, x, y: (i64(a) + 4294967299, i64(b) - 8589934593,
                         f64(x) * 1.5e10, f64(y) * -3.25e-7),
     tol=("exact", "exact", "f32", "f32"))
_SAME = (1, 1, 1, 1)
case(PC, "conv_clamps", [I("1x10x10x16xf32"), I("24x3x3x16xf32"),
                         I("24xf32"), I("24x3x3x16xf32"), I("24xf32")],
     lambda x, w0, b0, w1, b1: (
         np.clip(convNhwcOhwi(x, w0, b0, (1, 1), _SAME), 0.0, 6.0),
         np.clip(convNhwcOhwi(x, w1, b1, (1, 1), _SAME), -1.0, 1.0)),
     scale=lambda x, w0, b0, w1, b1: tuple(
         convNhwcOhwi(np.abs(x), np.abs(w), np.abs(b), (1, 1), _SAME)
         for w, b in ((w0, b0), (w1, b1))))
case(PC, "scaled_row_sums", [I("8x1000xf32"), I("8x1000xf32")],
     lambda a, b: (f64(a).sum(axis=1) * 0.75, f64(b).sum(axis=1) * -2.5),
     scale=lambda a, b: (np.abs(f64(a)).sum(axis=1) * 0.75,
                         np.abs(f64(b)).sum(axis=1) * 2.5))



def _bottleneck(x, weights, act=relu, clip=np.clip):
    """Two bottleneck blocks; the second's output is clamped to [0, 1]."""
    same, none = (1, 1, 1, 1), (0, 0, 0, 0)
    for block, hi in ((weights[:6], 6.0), (weights[6:], 1.0)):
        wa, ba, wb, bb, wc, bc = block
        h = act(convNhwcOhwi(x, wa, ba, (1, 1), none))
        h = act(convNhwcOhwi(h, wb, bb, (1, 1), same))
        x = clip(convNhwcOhwi(h, wc, bc, (1, 1), none) + x, 0.0, hi)
    return x


_BLOCK = [I("8x1x1x16xf32"), I("8xf32"), I("8x3x3x8xf32"), I("8xf32"),
          I("16x1x1x8xf32"), I("16xf32")]
case(PC, "bottleneck_blocks", [I("1x6x6x16xf32")] + _BLOCK * 2,
     lambda x, *w: _bottleneck(f64(x), [f64(v) for v in w]),
     scale=lambda x, *w: _bottleneck(np.abs(f64(x)), [np.abs(f64(v)) for v in w],
                                     act=lambda v: v,
                                     clip=lambda v, lo, hi: v))

def _checkUnique():
    names = [c.name for c in CASES]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        raise ValueError(f"duplicate case names: {sorted(dups)}")


_checkUnique()


# ---------------------------------------------------------------------------
# Regenerating mlp.mlir, and checks of the reference helpers themselves.


def _denseText(values: np.ndarray) -> str:
    if values.ndim == 0:
        return repr(float(values))
    return "[" + ", ".join(_denseText(v) for v in values) + "]"


def _hexDense(values: np.ndarray) -> str:
    return '"0x' + values.astype("<f4").tobytes().hex().upper() + '"'


def emitMlp() -> str:
    resources = {}

    def const(name, spec, op, form):
        v = pattern(*spec)
        t = f"tensor<{formatTensorType(v.shape, 'f32')}>"
        if form == "resource":
            # The blob's first four bytes are its alignment, as importers
            # (iree-import-onnx, torch-mlir) write them.
            key = f"{op}_{name}"
            resources[key] = '"0x04000000' + _hexDense(v)[3:]
            attr = f"dense_resource<{key}>"
        else:
            d = _hexDense(v) if form == "hex" else _denseText(v)
            attr = f"dense<{d}>"
        if op == "arith":
            return f"  %{name} = arith.constant {attr} : {t}\n"
        return (f'  %{name} = "tosa.const"() <{{values = {attr} : {t}}}> '
                f": () -> {t}\n")

    out = ["// A two-layer MLP with its weights baked in as constants.\n",
           "// GENERATED by `/usr/bin/python3 tests/e2e/cases.py --emit-mlp`:\n",
           "// element k (row-major) of each weight is\n",
           "// ((k * mul + add) % mod - mod // 2) / div, with (mul, add, mod,\n",
           "// div) from MLP_LINALG / MLP_TOSA in cases.py.\n\n",
           "#id2 = affine_map<(d0, d1) -> (d0, d1)>\n",
           "#row = affine_map<(d0, d1) -> (d1)>\n\n"]
    out.append("// relu(x @ w1 + b1) @ w2 + b2 in linalg, arith.constant "
               "weights.\n")
    out.append("func.func @mlp_linalg(%x: tensor<4x16xf32>) -> "
               "tensor<4x10xf32> {\n")
    for k, v in MLP_LINALG.items():
        out.append(const(k, v, "arith", "text"))
    out.append("""  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x32xf32>) -> tensor<4x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<4x32xf32>) -> tensor<4x32xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<4x32xf32>, tensor<32xf32>) outs(%e1 : tensor<4x32xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %v, %bv : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x10xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %o = linalg.matmul ins(%r, %w2 : tensor<4x32xf32>, tensor<32x10xf32>) outs(%f2 : tensor<4x10xf32>) -> tensor<4x10xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%o, %b2 : tensor<4x10xf32>, tensor<10xf32>) outs(%e2 : tensor<4x10xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  } -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

""")
    out.append("// The same shape of network in tosa, tosa.const weights (w1 "
               "as a dense_resource\n// blob, w2 as hex).\n")
    out.append("func.func @mlp_tosa(%x: tensor<1x8x64xf32>) -> "
               "tensor<1x8x10xf32> {\n")
    for k, v in MLP_TOSA.items():
        form = {"w1": "resource", "w2": "hex"}.get(k, "text")
        out.append(const(k, v, "tosa", form))
    out.append("""  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %h = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x128xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x8x128xf32>, tensor<1x1x128xf32>) -> tensor<1x8x128xf32>
  %r = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x8x128xf32>) -> tensor<1x8x128xf32>
  %o = tosa.matmul %r, %w2, %zp, %zp : (tensor<1x8x128xf32>, tensor<1x128x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x10xf32>
  %y = tosa.add %o, %b2 : (tensor<1x8x10xf32>, tensor<1x1x10xf32>) -> tensor<1x8x10xf32>
  return %y : tensor<1x8x10xf32>
}
""")
    out.append("\n{-#\n  dialect_resources: {\n    builtin: {\n")
    out.append(",\n".join(f"      {k}: {v}" for k, v in resources.items()))
    out.append("\n    }\n  }\n#-}\n")
    return "".join(out)


# --- dynamic.mlir -----------------------------------------------------------
# One module, several shapes each (issue 19, item 1): 1 and primes included.
DYN = "dynamic.mlir"
dynamicCase(DYN, "add_1d", [[I(f"{n}xf32"), I(f"{n}xf32")]
                            for n in (1, 7, 1009, 4099)],
            lambda a, b: f64(a) + f64(b))
dynamicCase(DYN, "bias_relu_2d",
            [[I(f"{m}x{n}xf32"), I(f"{n}xf32")]
             for m, n in ((1, 1), (3, 17), (64, 31), (97, 257))],
            lambda x, b: np.maximum(f64(x) + f64(b), 0.0) * f64(x))
dynamicCase(DYN, "scale_columns", [[I(f"{m}x4xf32")] for m in (1, 5, 333)],
            lambda x: f64(x) * np.array([0.5, -1.0, 2.0, 3.0]) - f64(x))
dynamicCase(DYN, "row_sum", [[I(f"{m}x{n}xf32")]
                             for m, n in ((1, 1), (1, 13), (7, 1), (29, 1031))],
            lambda x: f64(x).sum(axis=1),
            scale=lambda x: np.abs(f64(x)).sum(axis=1))
dynamicCase(DYN, "column_max", [[I(f"{m}x{n}xf32")]
                                for m, n in ((1, 1), (13, 1), (211, 67))],
            lambda x: f64(x).max(axis=0))
dynamicCase(DYN, "matmul",
            [[I(f"{m}x{k}xf32"), I(f"{k}x{n}xf32")]
             for m, k, n in ((1, 1, 1), (1, 17, 3), (7, 5, 11),
                             (67, 131, 61), (128, 64, 96))],
            lambda a, b: f64(a) @ f64(b),
            scale=lambda a, b: np.abs(f64(a)) @ np.abs(f64(b)))
dynamicCase(DYN, "softmax", [[I(f"{m}x{n}xf32", -4, 4)]
                             for m, n in ((1, 1), (3, 7), (31, 1000))],
            lambda x: softmax(f64(x), 1), tol="f32_approx")

_DENSE_W = np.array(
    [[0.5, -0.25, 1.0, 0.0, 0.75, -1.0, 0.125, 2.0],
     [-0.5, 0.25, -1.0, 1.5, 0.0, 1.0, -0.125, 0.5],
     [1.0, 1.0, -1.0, -1.0, 0.5, 0.5, -0.5, -0.5],
     [0.0, 0.5, 0.0, -0.5, 0.25, 0.0, -0.25, 0.0],
     [0.75, -0.75, 0.25, -0.25, 1.25, -1.25, 0.5, -0.5],
     [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
     [-0.8, -0.7, -0.6, -0.5, -0.4, -0.3, -0.2, -0.1],
     [1.5, 0.0, -1.5, 0.0, 1.5, 0.0, -1.5, 0.0],
     [0.0, 1.5, 0.0, -1.5, 0.0, 1.5, 0.0, -1.5],
     [0.3, -0.3, 0.3, -0.3, 0.3, -0.3, 0.3, -0.3],
     [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2],
     [-0.2, 0.4, -0.6, 0.8, -1.0, 1.2, -1.4, 1.6],
     [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75],
     [1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125, 0.5, -1.0],
     [-1.0, 0.5, -0.25, 0.125, -0.0625, 0.03125, -0.5, 1.0],
     [0.6, 0.6, -0.6, -0.6, 0.6, 0.6, -0.6, -0.6]],
    dtype=np.float32).astype(np.float64)
_DENSE_B = np.array([0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8],
                    dtype=np.float32).astype(np.float64)
dynamicCase(DYN, "dense_batch", [[I(f"{m}x16xf32")] for m in (1, 2, 37, 101)],
            lambda x: np.maximum(f64(x) @ _DENSE_W + _DENSE_B, 0.0),
            scale=lambda x: np.abs(f64(x)) @ np.abs(_DENSE_W) +
            np.abs(_DENSE_B))
# Positive rows (their sums are far from 0, so the quotient is stable).
dynamicCase(DYN, "normalize_rows",
            [[I(f"{m}x{n}xf32", 0.5, 2.0), I(f"{n}xf32")]
             for m, n in ((1, 1), (5, 3), (43, 131))],
            lambda x, b: f64(x) / f64(x).sum(axis=1, keepdims=True) + f64(b))



def _convPoolBatch(x, w):
    padded = np.pad(f64(x), ((0, 0), (0, 0), (1, 0), (1, 0)))
    conv = convNchwFchw(padded, w)
    n = conv.shape[0]
    return conv.reshape(n, 4, 4, 2, 4, 2).max(axis=(3, 5)).reshape(n, 64)


# A dynamic batch through a pad, a convolution, max pooling and a flatten.
dynamicCase(DYN, "conv_pool_batch",
            [[I(f"{n}x3x9x9xf32"), I("4x3x3x3xf32")] for n in (1, 3, 17)],
            _convPoolBatch,
            scale=lambda x, w: _convPoolBatch(np.abs(f64(x)), np.abs(f64(w))))
dynamicCase(DYN, "slice_concat_softmax",
            [[I(f"{n}x6xf32", -4, 4), I(f"{n}x2xf32", -4, 4)]
             for n in (1, 5, 37)],
            lambda x, y: softmax(np.concatenate([f64(x)[:, 1::2], f64(y)],
                                                axis=1), 1),
            tol="f32_approx")
# Static outputs, a dynamic reduced extent: 1, a prime, and lengths past
# one and several unrolled steps of the GPU kernel's 256 threads.
dynamicCase(DYN, "row_sum_static_rows",
            [[I(f"4x{n}xf32")] for n in (1, 7, 1031, 4099)],
            lambda x: f64(x).sum(axis=1),
            scale=lambda x: np.abs(f64(x)).sum(axis=1))
dynamicCase(DYN, "column_max_static_columns",
            [[I(f"{n}x8xf32")] for n in (1, 13, 2053)],
            lambda x: f64(x).max(axis=0))
dynamicCase(DYN, "softmax_static_rows",
            [[I(f"3x{n}xf32", -4, 4)] for n in (1, 5, 1030)],
            lambda x: softmax(f64(x), 1), tol="f32_approx")
dynamicCase(DYN, "matmul_dynamic_k",
            [[I(f"4x{k}xf32"), I(f"{k}x8xf32")] for k in (1, 9, 1025, 3001)],
            lambda p, v: f64(p) @ f64(v),
            scale=lambda p, v: np.abs(f64(p)) @ np.abs(f64(v)))
dynamicCase(DYN, "dense_rows_wide",
            [[I(f"{m}x64xf32"), I("64x96xf32"), I("96xf32")]
             for m in (1, 5, 129, 1000)],
            lambda x, w, b: np.maximum(f64(x) @ f64(w) + f64(b), 0.0),
            scale=lambda x, w, b: np.abs(f64(x)) @ np.abs(f64(w)) +
            np.abs(f64(b)))


def _convBatchWide(x, w, b):
    # NHWC x HWCF as NCHW x FCHW, back to NHWC.
    out = convNchwFchw(f64(x).transpose(0, 3, 1, 2),
                       f64(w).transpose(3, 2, 0, 1))
    return out.transpose(0, 2, 3, 1) + f64(b)


dynamicCase(DYN, "conv_batch_wide",
            [[I(f"{n}x8x8x16xf32"), I("3x3x16x32xf32"), I("32xf32")]
             for n in (1, 3, 17)],
            _convBatchWide,
            scale=lambda x, w, b: _convBatchWide(np.abs(f64(x)),
                                                 np.abs(f64(w)),
                                                 np.abs(f64(b))))


def _convPadBatch(x, w):
    padded = np.pad(f64(x), ((0, 0), (1, 1), (1, 1), (0, 0)))
    return convNchwFchw(padded.transpose(0, 3, 1, 2),
                        f64(w).transpose(3, 2, 0, 1)).transpose(0, 2, 3, 1)


# A count the function computes and reads on the host (two phases): none
# positive (an empty output), some, all.
dynamicCase(DYN, "compress_positive",
            [[I("1xf32", -1.0, -0.5)], [I("7xf32")], [I("64xf32", 0.5, 1.0)],
             [I("65xf32")]],
            lambda x: (f64(x)[x > 0], np.array((x > 0).sum(), np.int64)),
            tol=("f32", "exact"))


def _whileDoubling(x, limit):
    """acc = 2 acc + x while sum |acc| < limit; the condition as the
    module computes it, in f32; (acc, steps)."""
    acc32, acc, steps = x.copy(), f64(x), 0
    while np.float32(limit[0]) > np.abs(acc32).sum(dtype=np.float32):
        acc32 = acc32 * np.float32(2) + x
        acc = 2 * acc + f64(x)
        steps += 1
    return acc, np.array(steps, np.int32)


# A tosa.while_loop the runtime repeats, one module at several limits: one
# reached after some steps, after many, and one reached before the first.
for _variant, _lo, _hi in (("limit_20", 20.0, 30.0), ("limit_1e4", 1e4, 2e4),
                           ("limit_below", -1.0, -0.5)):
    CASES.append(Case(DYN, "while_doubling",
                      (I("8xf32"), I("1xf32", _lo, _hi)), _whileDoubling,
                      ("f32", "exact"), None, _variant))


# Batches in each of the GPU kernels' buckets (1, 4, 16, past them).
dynamicCase(DYN, "conv_pad_batch",
            [[I(f"{n}x8x8x16xf32"), I("3x3x16x64xf32")]
             for n in (1, 3, 9, 33)],
            lambda x, w: np.maximum(_convPadBatch(x, w), 0.0),
            scale=lambda x, w: _convPadBatch(np.abs(f64(x)), np.abs(f64(w))))


def _depthwisePadBatch(x, w):
    padded = np.pad(f64(x), ((0, 0), (1, 1), (1, 1), (0, 0)))
    n, h, wd, c = x.shape
    out = np.zeros((n, h, wd, c))
    for i in range(3):
        for j in range(3):
            out += padded[:, i:i + h, j:j + wd, :] * f64(w)[i, j, :]
    return out


dynamicCase(DYN, "depthwise_pad_batch",
            [[I(f"{n}x9x9x32xf32"), I("3x3x32xf32")] for n in (1, 5, 33)],
            lambda x, w: np.clip(_depthwisePadBatch(x, w), 0.0, 6.0),
            scale=lambda x, w: _depthwisePadBatch(np.abs(f64(x)),
                                                  np.abs(f64(w))))
dynamicCase(DYN, "bias_rows",
            [[I("64x64xf32"), I(f"{new}x{total}xf32")]
             for new, total in ((1, 1), (3, 8), (1, 40), (5, 64))],
            lambda bias, x: f64(bias)[x.shape[1] - x.shape[0]:x.shape[1],
                                      :x.shape[1]] + f64(x))
# A cache of 0, 1, 7 and 130 past positions grown by 1 or 5 new ones.
dynamicCase(DYN, "grow_cache",
            [[I(f"2x{past}x8xf32"), I("2x1x8xf32"), I(f"2x{new}x8xf32")]
             for past, new in ((0, 1), (1, 5), (7, 1), (130, 5))],
            lambda past, sep, new: 2.0 * np.concatenate(
                [f64(past), f64(sep), f64(new)], axis=1))


def selfTest() -> int:
    """Checks the reference helpers against values worked out by hand."""
    failures = []

    def expect(what, got, want):
        if not np.allclose(np.asarray(got, dtype=np.float64),
                           np.asarray(want, dtype=np.float64)):
            failures.append(f"{what}: got {got!r}, want {want!r}")

    x = np.arange(1, 17, dtype=np.float32).reshape(1, 4, 4, 1)
    expect("maxPool 2x2/2", maxPool(x, (2, 2), (2, 2))[0, :, :, 0],
           [[6, 8], [14, 16]])
    # 3x3 window at the corner with pad 1 sees 1, 2, 5, 6: mean 3.5, not 14/9.
    expect("avgPool excludes pad",
           avgPoolExcludePad(x, (3, 3), (1, 1), (1, 1, 1, 1))[0, 0, 0, 0], 3.5)
    expect("sumPool counts pad as zero",
           sumPool(x, (3, 3), (1, 1), (1, 1, 1, 1))[0, 0, 0, 0] / 9.0, 14 / 9)
    # Conv with a single 2x2 weight [[1, 2], [3, 4]] over 1..16, stride 2.
    w = np.array([1, 2, 3, 4], dtype=np.float32).reshape(1, 2, 2, 1)
    expect("conv OHWI", convNhwcOhwi(x, w, np.array([10.0]), (2, 2),
                                     (0, 0, 0, 0))[0, :, :, 0],
           [[1 + 4 + 15 + 24 + 10, 3 + 8 + 21 + 32 + 10],
            [9 + 20 + 39 + 56 + 10, 11 + 24 + 45 + 64 + 10]])
    expect("conv HWCF", convNhwcHwcf(x, w.reshape(2, 2, 1, 1), (2, 2))[0, 0, 0,
                                                                       0], 44)
    # Bottom/right pad only: the last window is [[16, 0], [0, 0]] * w -> 16.
    expect("conv asym pad", convNhwcOhwi(x, w, None, (1, 1),
                                         (0, 1, 0, 1))[0, -1, -1, 0], 16)
    # Dilation 2: taps (0,0),(0,2),(2,0),(2,2) -> 1*1 + 3*2 + 9*3 + 11*4.
    expect("conv dilation", convNhwcOhwi(x, w, None, (1, 1), (0, 0, 0, 0),
                                         (2, 2))[0, 0, 0, 0], 78)
    # Depthwise multiplier 2: channel c*2+m uses w[..., c, m].
    xd = np.stack([np.ones((2, 2)), 2 * np.ones((2, 2))], -1)[None]
    wd = np.arange(1, 5, dtype=np.float64).reshape(1, 1, 2, 2)
    expect("depthwise c*M+m", depthwiseHwcm(xd, wd, None, (1, 1),
                                            (0, 0, 0, 0))[0, 0, 0], [1, 2, 6, 8])
    xg = np.zeros((1, 3, 3, 2, 1))
    xg[..., 1, 0] = 1.0
    wg = np.zeros((2, 1, 3, 3, 1))
    wg[1] = 2.0
    expect("grouped conv", groupedConv(xg, wg)[0, 0, 0], [[0.0], [18.0]])
    expect("truncDiv", truncDiv(np.array([-7, 7, -8]), 2), [-3, 3, -4])
    expect("softmax", softmax(np.log([[1.0, 3.0]]), 1), [[0.25, 0.75]])
    expect("pattern", pattern((5,), 7, 3, 19, 32.0),
           [(3 - 9) / 32, (10 - 9) / 32, (17 - 9) / 32, (5 - 9) / 32,
            (12 - 9) / 32])
    ok, _, _ = compare(np.array([1.0001], np.float32), np.array([1.0]),
                       np.array([1.0]), "f32")
    if not ok:
        failures.append("compare: 1e-4 relative error must pass at f32")
    ok, _, _ = compare(np.array([1.0002], np.float32), np.array([1.0]),
                       np.array([1.0]), "f32")
    if ok:
        failures.append("compare: 2e-4 relative error must fail at f32")
    ok, _, _ = compare(np.array([np.nan], np.float32), np.array([1.0]),
                       np.array([1.0]), "f32")
    if ok:
        failures.append("compare: NaN must fail")
    ok, _, _ = compare(np.array([0.501], np.float32), np.array([0.5]),
                       np.array([0.5]), "exact")
    if ok:
        failures.append("compare: exact must catch a small float change")
    ok, _, _ = compare(np.array([3], np.int32), np.array([4]),
                       np.array([4.0]), "exact")
    if ok:
        failures.append("compare: exact must catch an integer change")
    for c in CASES:
        ins = makeInputs(c)
        if [i.shape for i in ins] != [s.shape for s in c.inputs]:
            failures.append(f"{c.name}: input shapes")
        refs = reference(c, ins)
        scl = scales(c, ins, refs)
        if len(scl) != len(refs):
            failures.append(f"{c.name}: {len(scl)} scales, {len(refs)} refs")
        c.tolerances(len(refs))
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(CASES)} cases; self-test: "
          f"{'ok' if not failures else str(len(failures)) + ' failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--emit-mlp"]:
        sys.stdout.write(emitMlp())
    elif sys.argv[1:] == ["--emit-accumulators"]:
        sys.stdout.write(emitAccumulators())
    elif sys.argv[1:] == ["--self-test"]:
        sys.exit(selfTest())
    elif sys.argv[1:] == ["--list"]:
        for c in CASES:
            print(c.name)
    else:
        print("usage: cases.py --self-test | --list | --emit-mlp | "
              "--emit-accumulators",
              file=sys.stderr)
        sys.exit(2)
