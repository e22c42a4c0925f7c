"""What the ONNX suites share (tests/onnx/run_node_tests.py,
tests/models/run_models.py, bench/onnx_bench.py): compiling an .onnx file
with kiln-compile and classifying the outcome, running a module on .npy
files and comparing its outputs with references, and kits.

A kit is a directory of compiled modules with their inputs and expected
outputs as .npy files and a manifest.json, so that a machine with the
runtime tools, python3 and numpy (a GPU machine without LLVM, ONNX or
torch) runs the suites from it.

Needs numpy only; the ONNX package is imported by the callers that read
.onnx or .pb files.
"""

import dataclasses
import json
import os
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

_E2E_DIR = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "e2e")
sys.path.insert(0, _E2E_DIR)
import cases  # noqa: E402
import e2elib  # noqa: E402

KIT_FORMAT = "kiln-onnx-kit 1"

# Results of one case.
PASS, FAIL, UNSUPPORTED = "pass", "fail", "unsupported"


def firstErrorLine(result: e2elib.ToolResult) -> str:
    """The tool's one-line error without the `exit N: error: ` decoration."""
    line = result.describe()
    for prefix in (f"exit {result.rc}: ", "error: "):
        if line.startswith(prefix):
            line = line[len(prefix):]
    return line


@dataclasses.dataclass
class Compiled:
    status: str  # PASS (a module was written), FAIL or UNSUPPORTED
    reason: str = ""
    seconds: float = 0.0


def compileOnnx(binDir: str, onnxPath: str, outPath: str, targetDevice: str,
                cudaTarget: str, timeout: float,
                extraArgs: Sequence[str] = ()) -> Compiled:
    """Compiles an .onnx file. UNSUPPORTED when the importer refused the
    file with an error saying "unsupported" (an op, attribute or dtype it
    does not take); any other error, including a later phase's
    "unsupported op" for something the importer emitted, is FAIL."""
    argv = [
        os.path.join(binDir, "kiln-compile"), onnxPath,
        f"--target-device={targetDevice}", "-o", outPath, *extraArgs
    ]
    if cudaTarget:
        argv.append(f"--cuda-target={cudaTarget}")
    r = e2elib.runTool(argv, timeout)
    if r.problem:
        return Compiled(FAIL, f"compile: {r.problem}", r.seconds)
    if r.rc != 0:
        message = firstErrorLine(r)
        if "unsupported" in message.lower() and importRefuses(
                binDir, onnxPath, timeout):
            return Compiled(UNSUPPORTED, message, r.seconds)
        return Compiled(FAIL, f"compile: {message}", r.seconds)
    if not os.path.isfile(outPath) or os.path.getsize(outPath) == 0:
        return Compiled(FAIL, "compile: exited 0 but wrote no module",
                        r.seconds)
    return Compiled(PASS, "", r.seconds)


def importRefuses(binDir: str, onnxPath: str, timeout: float) -> bool:
    """Whether kiln-import-onnx alone refuses the file saying
    "unsupported": tells an importer refusal from a later phase's. Without
    kiln-import-onnx, kiln-compile's message is taken at its word."""
    tool = os.path.join(binDir, "kiln-import-onnx")
    if not os.access(tool, os.X_OK):
        return True
    r = e2elib.runTool([tool, onnxPath, "-o", os.devnull], timeout)
    return (not r.problem and r.rc != 0 and
            "unsupported" in firstErrorLine(r).lower())


def npyTypeName(dtype: np.dtype) -> str:
    return np.dtype(dtype).name


def tolerance(dtype: np.dtype) -> str:
    """cases.TOLERANCES' name for a reference of this type: f16 for half,
    f32 for float and double (the suites' fp32 tolerance), exact else."""
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return "f16"
    if np.issubdtype(dtype, np.floating):
        return "f32"
    return "exact"


# How far past its tolerance a half-precision network may be, as a multiple
# of how far the same network evaluated in float64 with only the
# precision's roundings is (tests/models/emulate.py). Two faithful
# implementations round different intermediate values (fusion, summation
# order) and the network amplifies both: Kiln's CPU ResNet50 f16 is 1.2
# times its emulation's excess; a broken kernel is orders of magnitude off.
EMULATION_BUDGET = 2.0


def toleranceExcess(got: np.ndarray, ref: np.ndarray, tol: str,
                    atolScale: float) -> float:
    """max |got - ref| / (atol * atolScale + rtol * |ref|) over the elements
    that disagree (cases.floatDifference): at most 1 within the tolerance;
    infinite where a value disagrees with a NaN or infinite reference."""
    _, e, agree, diff, bound = cases.floatDifference(got, ref, np.abs(
        ref.astype(np.float64)), tol, atolScale)
    with np.errstate(divide="ignore", invalid="ignore"):
        excess = np.where(agree, 0.0,
                          np.where(np.isfinite(e), diff / bound, np.inf))
    return float(excess.max()) if excess.size else 0.0


def roundedDecimals(ref: np.ndarray) -> Optional[int]:
    """4 when a float reference was written rounded to 4 decimals, as some
    of ONNX 1.12's are (GridSample's, RoiAlign's): at least 4 finite values,
    every one a multiple of 1e-4 to float32 precision and at least half of
    them not multiples of 1e-3 (values that are simply short, 0.5 or 2.25,
    are no sign of rounding and get no allowance). None otherwise."""
    if ref.dtype.kind != "f":
        return None
    wide = ref.astype(np.float64).reshape(-1)
    wide = wide[np.isfinite(wide)]
    if wide.size < 4:
        return None
    slack = np.abs(wide) * float(np.finfo(np.float32).eps)

    def multipleOf(d):
        scaled = wide * 10.0 ** d
        return np.abs(scaled - np.round(scaled)) <= slack * 10.0 ** d + 1e-9

    if not multipleOf(4).all():
        return None
    return 4 if (~multipleOf(3)).sum() * 2 >= wide.size else None


def checkOutput(got: np.ndarray, ref: np.ndarray, scaleByMax: bool,
                floatTolerance: Optional[str] = None,
                emulated: Optional[np.ndarray] = None,
                roundedReferences: bool = False
                ) -> Tuple[bool, float, str]:
    """Compares one output with its reference: same shape, same dtype, then
    |got - ref| <= atol + rtol * |ref| with the dtype's tolerance, or for
    floats `floatTolerance` when given (a model compiled with
    --precision=f16 is held to f16's), atol times max |ref| when
    scaleByMax, NaN matching NaN and integers and booleans exact. Returns
    (ok, max abs error, what differs).

    `emulated`, the same network evaluated in float64 with only its
    precision's roundings (tests/models/emulate.py), sets the budget of a
    deep network whose own roundings already miss the tolerance: an output
    outside the tolerance passes when its excess over it is at most
    EMULATION_BUDGET times the emulation's (and the detail says so).

    With `roundedReferences`, a float reference written rounded to 4
    decimals (roundedDecimals) allows half a unit of its last decimal (5e-5)
    more than the tolerance, and the detail says so."""
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return (False, float("inf"),
                f"got {npyTypeName(got.dtype)}{list(got.shape)}, want "
                f"{npyTypeName(ref.dtype)}{list(ref.shape)}")
    tol = tolerance(ref.dtype)
    if floatTolerance and tol != "exact":
        tol = floatTolerance
    wide = ref.astype(np.float64) if tol != "exact" else ref
    scale = np.abs(wide) if tol != "exact" else np.zeros(())
    atolScale = 1.0
    if scaleByMax and ref.size and tol != "exact":
        finite = np.abs(wide[np.isfinite(wide)])
        atolScale = float(finite.max()) if finite.size else 1.0
    ok, err, detail = cases.compare(got, ref, scale, tol, atolScale)
    decimals = roundedDecimals(ref) if roundedReferences else None
    if not ok and decimals is not None and tol != "exact":
        # The reference's own rounding, half a unit of its last decimal,
        # on top of the tolerance's atol (scaled as compare scales it).
        atol = cases.TOLERANCES[tol][0]
        widened = (atol * atolScale + 0.5 * 10.0 ** -decimals) / atol
        ok, err, roundedDetail = cases.compare(got, ref, scale, tol, widened)
        if ok:
            return True, err, (f"within the tolerance plus the reference's "
                               f"rounding to {decimals} decimals")
        detail = f"{detail} (also past the reference's {decimals}-decimal " \
            f"rounding)"
    if ok or emulated is None or tol == "exact":
        return ok, err, detail
    if emulated.shape != ref.shape:
        return False, err, f"{detail}; the emulated reference's shape differs"
    own = toleranceExcess(got, ref, tol, atolScale)
    allowed = toleranceExcess(emulated, ref, tol, atolScale)
    budget = (f"{own:.2f}x the {tol} tolerance; {tol} emulated in float64: "
              f"{allowed:.2f}x")
    if allowed > 1 and own <= EMULATION_BUDGET * allowed:
        return True, err, f"within the {tol} budget: {budget}"
    return False, err, f"{detail} ({budget})"


@dataclasses.dataclass
class DataSet:
    """One call: input .npy files and the expected outputs' .npy files;
    `emulated`, where given, each output's emulated reference (a path or
    None; checkOutput's budget)."""
    inputs: List[str]
    outputs: List[str]
    emulated: List[Optional[str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Outcome:
    status: str
    reason: str = ""
    maxError: float = 0.0
    seconds: float = 0.0


def runAndCheck(binDir: str, device: str, module: str, sets: List[DataSet],
                workDir: str, timeout: float, scaleByMax: bool = False,
                wrapper: Sequence[str] = (),
                floatTolerance: Optional[str] = None,
                roundedReferences: bool = False) -> Outcome:
    """Runs the module's only function on each data set and compares every
    output; the first failing set decides the reason. A pass that needed
    an emulated reference's budget says so in its reason."""
    worst, seconds, notes = 0.0, 0.0, []
    for n, ds in enumerate(sets):
        outDir = os.path.join(workDir, f"set{n}")
        os.makedirs(outDir, exist_ok=True)
        outPaths = [os.path.join(outDir, f"out{k}.npy")
                    for k in range(len(ds.outputs))]
        argv = [*wrapper, os.path.join(binDir, "kiln-run-module"),
                f"--device={device}", f"--module={module}"]
        argv += [f"--input=@{p}" for p in ds.inputs]
        argv += [f"--output=@{p}" for p in outPaths]
        r = e2elib.runTool(argv, timeout)
        seconds += r.seconds
        where = f"set {n} " if len(sets) > 1 else ""
        if r.problem or r.rc != 0:
            # Without the temporary directories, so reasons compare across
            # runs.
            message = re.sub(r"/[^\s'\"]*/([^/\s'\"]+\.npy)", r"\1",
                             firstErrorLine(r))
            return Outcome(FAIL, f"run: {where}{message}", worst, seconds)
        for k, (outPath, refPath) in enumerate(zip(outPaths, ds.outputs)):
            try:
                got = np.load(outPath, allow_pickle=False)
            except (OSError, ValueError) as e:
                return Outcome(FAIL, f"run: {where}output {k} unreadable: {e}",
                               worst, seconds)
            ref = np.load(refPath, allow_pickle=False)
            emulatedPath = ds.emulated[k] if k < len(ds.emulated) else None
            emulated = (np.load(emulatedPath, allow_pickle=False)
                        if emulatedPath else None)
            ok, err, detail = checkOutput(got, ref, scaleByMax,
                                          floatTolerance, emulated,
                                          roundedReferences)
            if ok and detail:
                notes.append(f"{where}output {k} {detail}")
            if not ok:
                tol = tolerance(ref.dtype)
                if floatTolerance and tol != "exact":
                    tol = floatTolerance
                return Outcome(
                    FAIL, f"mismatch: {where}output {k} "
                    f"({tol}): {detail}", err, seconds)
            worst = max(worst, err)
    return Outcome(PASS, "; ".join(notes), worst, seconds)


# --- kits --------------------------------------------------------------------


@dataclasses.dataclass
class KitEntry:
    """A compiled case. module is None when it did not compile; then
    compileStatus and reason say why."""
    name: str
    sets: List[DataSet]
    compileStatus: str = PASS
    reason: str = ""
    module: Optional[str] = None
    info: Dict[str, object] = dataclasses.field(default_factory=dict)


def writeKit(kitDir: str, meta: Dict[str, object],
             entries: List[KitEntry]) -> str:
    """Writes manifest.json; every path in entries must lie under kitDir."""
    rel = lambda p: os.path.relpath(p, kitDir)
    doc = {
        "format": KIT_FORMAT,
        **meta,
        "entries": [{
            "name": e.name,
            "compile": e.compileStatus,
            "reason": e.reason,
            "module": rel(e.module) if e.module else None,
            "sets": [{"inputs": [rel(p) for p in s.inputs],
                      "outputs": [rel(p) for p in s.outputs],
                      "emulated": [rel(p) if p else None
                                   for p in s.emulated]} for s in e.sets],
            "info": e.info,
        } for e in entries],
    }
    path = os.path.join(kitDir, "manifest.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    return path


def readKit(kitDir: str) -> Tuple[Dict[str, object], List[KitEntry]]:
    """Reads a kit's manifest.json; raises ValueError when it is none."""
    path = os.path.join(kitDir, "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from e
    if doc.get("format") != KIT_FORMAT:
        raise ValueError(f"{path} is not a {KIT_FORMAT} manifest")
    absolute = lambda p: os.path.join(kitDir, p)
    entries = []
    for e in doc.pop("entries"):
        entries.append(
            KitEntry(e["name"],
                     [DataSet([absolute(p) for p in s["inputs"]],
                              [absolute(p) for p in s["outputs"]],
                              [absolute(p) if p else None
                               for p in s.get("emulated", [])])
                      for s in e["sets"]], e["compile"], e["reason"],
                     absolute(e["module"]) if e["module"] else None,
                     e.get("info", {})))
    return doc, entries
