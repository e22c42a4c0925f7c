#!/usr/bin/python3
"""Runs the ONNX backend node tests (Debian's libonnx-testdata, ONNX 1.12)
through Kiln: compiles each case's model.onnx with kiln-compile, runs it
with kiln-run-module on every test_data_set_N and compares every output
with the case's output_K.pb.

  /usr/bin/python3 tests/onnx/run_node_tests.py --bin-dir build/bin \\
      [--device local-task] [--filter 'conv|pool'] [--jobs 2] \\
      [--results-md tests/onnx/node-results.md] [--floor-file FILE]

Each case ends as
  pass         every output of every data set matches;
  fail         compile error, run error or mismatch, with a one-line reason;
  unsupported  the importer refused the model saying "unsupported" (an op,
               attribute or dtype), or the runner cannot express the case
               (sequence, optional, string or bfloat16 inputs or outputs).
When the importer refuses a graph input it needs at import time (a shape,
axes, pads, k: "input K 'NAME' is computed at run time"), the runner makes
that input an initializer holding the data set's value and compiles again,
as exporters write such values; the case's reason names those inputs
(--no-constant-inputs leaves them unsupported).
Outputs must have the reference's shape and dtype; floats (and doubles)
match within 1e-5 + 1e-4 |ref|, float16 within 2.5e-3 + 1e-3 |ref|, NaN
matches NaN, integers and booleans exactly. A float reference written
rounded to 4 decimals (some of ONNX 1.12's are: GridSample's, RoiAlign's;
onnxharness.roundedDecimals tells) allows 5e-5 more, and the case's reason
says so. The cases of REFERENCE_DEFECTS, whose references are wrong
by the operator's definition, stay failures with the defect in their
reason.

For the GPU machine (no compiler, no ONNX package): here, compile with
--target-device cuda --cuda-target sm_90a --save-modules KIT (modules,
inputs and references as .npy, a manifest); there, --prebuilt-modules KIT
--device cuda needs only numpy.

Prints a line per case, then the counts and the pass percentage (passes
over all cases). Exits 1 when the passes fall below --floor/--floor-file,
or the suite cannot run at all; failing cases alone do not fail it.
"""

import argparse
import collections
import concurrent.futures
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnxharness as harness  # noqa: E402
from onnxharness import FAIL, PASS, UNSUPPORTED  # noqa: E402

e2elib = harness.e2elib

DEFAULT_DATA_DIR = "/usr/share/libonnx-testdata/data/node"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REGENERATE = ("/usr/bin/python3 tests/onnx/run_node_tests.py --bin-dir "
              "build/bin --results-md tests/onnx/node-results.md")
# A GPU machine has no compiler: the cases are compiled into a kit here.
REGENERATE_KIT = (
    "/usr/bin/python3 tests/onnx/run_node_tests.py --bin-dir build/bin "
    "--target-device cuda --cuda-target sm_90a --no-constant-inputs "
    "--save-modules KIT\n"
    "# on the GPU machine\n"
    "python3 tests/onnx/run_node_tests.py --bin-dir BIN --prebuilt-modules KIT "
    "--device cuda --results-md tests/onnx/node-results-cuda.md")


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-run-module")
    p.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                   help=f"the node cases (default {DEFAULT_DATA_DIR}, from "
                   "Debian's libonnx-testdata)")
    p.add_argument("--device", default="local-task",
                   help="kiln-run-module --device (default local-task)")
    p.add_argument("--target-device", default="cpu")
    p.add_argument("--cuda-target", default="",
                   help="passed to kiln-compile as --cuda-target")
    p.add_argument("--filter", default="",
                   help="run only cases whose name matches this regex")
    p.add_argument("--jobs", type=int, default=2,
                   help="cases compiled and run at once (default 2)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds allowed for one tool invocation")
    p.add_argument("--save-modules", metavar="KIT",
                   help="only compile, writing a kit (modules, .npy data, "
                   "manifest.json) to KIT")
    p.add_argument("--prebuilt-modules", metavar="KIT",
                   help="run the kit written by --save-modules instead of "
                   "compiling (needs only numpy)")
    p.add_argument("--results-md", metavar="FILE",
                   help="write the per-case table there (the committed one: "
                   "tests/onnx/node-results.md)")
    p.add_argument("--floor", type=int,
                   help="exit 1 when fewer cases pass")
    p.add_argument("--floor-file", metavar="FILE",
                   help="read --floor from FILE (first non-comment line)")
    p.add_argument("--no-constant-inputs", dest="constant_inputs",
                   action="store_false",
                   help="leave graph inputs the importer needs at import "
                   "time (shapes, axes, pads...) as inputs: such cases stay "
                   "unsupported")
    p.add_argument("--wrapper", default="",
                   help="command line kiln-run-module runs under")
    p.add_argument("--keep-temp", action="store_true",
                   help="keep the work directory (modules, .npy files)")
    args = p.parse_args()
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.save_modules and args.prebuilt_modules:
        p.error("--save-modules and --prebuilt-modules exclude each other")
    if args.save_modules and (args.results_md or args.floor is not None or
                              args.floor_file):
        p.error("--save-modules only compiles: no --results-md or floor")
    if args.floor_file:
        if args.floor is not None:
            p.error("give --floor or --floor-file, not both")
        args.floor = readFloor(p, args.floor_file)
    args.bin_dir = os.path.abspath(args.bin_dir)
    for name in ("save_modules", "prebuilt_modules"):
        if getattr(args, name):
            setattr(args, name, os.path.abspath(getattr(args, name)))
    return args


def readFloor(parser, path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = [l.split("#")[0].strip() for l in f]
    except OSError as e:
        parser.error(f"cannot read the floor file: {e}")
    values = [l for l in lines if l]
    if not values or not values[0].isdigit():
        parser.error(f"{path}: want a pass count on its first non-comment "
                     "line")
    return int(values[0])


# --- the cases ---------------------------------------------------------------


class NodeCase:

    def __init__(self, name, caseDir, ops, problem, setDirs, loadError=""):
        self.name = name
        self.dir = caseDir
        self.ops = ops  # op types in node order, each once
        self.problem = problem  # why the runner cannot express it, or ""
        self.setDirs = setDirs
        self.loadError = loadError  # the ONNX package could not read it


def runnerProblem(onnx, graph):
    """Why kiln-run-module cannot take or give the case's values, or ""."""
    for role, values in (("input", graph.input), ("output", graph.output)):
        for vi in values:
            kind = vi.type.WhichOneof("value")
            if kind != "tensor_type":
                kind = (kind or "untyped").replace("_type", "")
                return (f"runner: {role} '{vi.name}' is a {kind}; "
                        "kiln-run-module passes tensors only")
            elem = vi.type.tensor_type.elem_type
            if elem == onnx.TensorProto.STRING:
                return (f"runner: {role} '{vi.name}' is a string tensor, "
                        "which has no .npy form Kiln reads")
            if elem == onnx.TensorProto.BFLOAT16:
                return (f"runner: {role} '{vi.name}' is bfloat16, which has "
                        "no .npy form (numpy has no bfloat16)")
    return ""


def opTypes(graph):
    seen = []
    for node in graph.node:
        op = node.op_type if node.domain in ("", "ai.onnx") else \
            f"{node.domain}.{node.op_type}"
        if op not in seen:
            seen.append(op)
    return seen


def loadCases(dataDir, pattern):
    import onnx
    selected = []
    for name in sorted(os.listdir(dataDir)):
        caseDir = os.path.join(dataDir, name)
        if not name.startswith("test_") or not re.search(pattern, name):
            continue
        modelPath = os.path.join(caseDir, "model.onnx")
        if not os.path.isfile(modelPath):
            continue
        setDirs = sorted(
            (os.path.join(caseDir, d) for d in os.listdir(caseDir)
             if d.startswith("test_data_set_")),
            key=lambda d: int(d.rsplit("_", 1)[1]))
        try:
            graph = onnx.load(modelPath).graph
        except Exception as e:  # A file the ONNX package cannot read.
            selected.append(
                NodeCase(name, caseDir, [], "", setDirs, f"onnx.load: {e}"))
            continue
        selected.append(
            NodeCase(name, caseDir, opTypes(graph), runnerProblem(onnx, graph),
                     setDirs))
    return selected


def pbFiles(setDir, prefix):
    files = [f for f in os.listdir(setDir)
             if re.fullmatch(prefix + r"_\d+\.pb", f)]
    return sorted(files, key=lambda f: int(f[len(prefix) + 1:-3]))


def convertSets(case, outDir):
    """Writes each data set's input_K.pb / output_K.pb as .npy under outDir;
    returns the harness.DataSets."""
    import onnx
    from onnx import numpy_helper
    sets = []
    for n, setDir in enumerate(case.setDirs):
        paths = {"input": [], "output": []}
        for prefix in paths:
            for k, f in enumerate(pbFiles(setDir, prefix)):
                tensor = onnx.TensorProto()
                with open(os.path.join(setDir, f), "rb") as fh:
                    tensor.ParseFromString(fh.read())
                # np.array, not np.ascontiguousarray: that one makes a
                # rank-0 reference (a scalar output) a one-element vector.
                array = np.array(numpy_helper.to_array(tensor), order="C")
                path = os.path.join(outDir, f"set{n}_{prefix}{k}.npy")
                np.save(path, array, allow_pickle=False)
                paths[prefix].append(path)
        sets.append(harness.DataSet(paths["input"], paths["output"]))
    if not sets:
        raise ValueError("no test_data_set_N directory")
    return sets


# --- running -----------------------------------------------------------------


class Result:

    def __init__(self, name, ops, status, reason="", seconds=0.0,
                 constants=()):
        self.name = name
        self.ops = ops
        self.status = status
        self.seconds = seconds
        # Graph inputs given to the importer as constants (--constant-inputs).
        self.constants = list(constants)
        self.detail = reason  # without the note on constant inputs
        if self.constants:
            note = f"constant inputs: {', '.join(self.constants)}"
            reason = f"{note}; {reason}" if reason else note
        self.reason = reason


def prepare(case, baseDir, args):
    """Converts a case's data and compiles it: a harness.KitEntry."""
    entry = harness.KitEntry(case.name, [], info={"ops": case.ops})
    if case.loadError:
        entry.compileStatus, entry.reason = FAIL, case.loadError
        return entry
    if case.problem:
        entry.compileStatus, entry.reason = UNSUPPORTED, case.problem
        return entry
    caseDir = os.path.join(baseDir, case.name)
    os.makedirs(caseDir, exist_ok=True)
    try:
        entry.sets = convertSets(case, caseDir)
    except Exception as e:  # Unreadable test data is the case's failure.
        entry.compileStatus, entry.reason = FAIL, f"test data: {e}"
        return entry
    module = os.path.join(caseDir, "model.kiln")
    modelPath = os.path.join(case.dir, "model.onnx")
    constants = []
    while True:
        compiled = harness.compileOnnx(args.bin_dir, modelPath, module,
                                       args.target_device, args.cuda_target,
                                       args.timeout)
        wanted = RUNTIME_INPUT_RE.search(compiled.reason)
        if (compiled.status != UNSUPPORTED or not args.constant_inputs or
                not wanted or wanted.group(1) in constants):
            break
        constantPath = os.path.join(caseDir, "model-constant-inputs.onnx")
        k = makeInputConstant(modelPath, wanted.group(1), entry.sets,
                              constantPath)
        if k is None:
            break
        for ds in entry.sets:
            del ds.inputs[k]
        constants.append(wanted.group(1))
        modelPath = constantPath
    if constants:
        entry.info["constant_inputs"] = constants
    entry.compileStatus, entry.reason = compiled.status, compiled.reason
    entry.info["compile_seconds"] = round(compiled.seconds, 2)
    if compiled.status == PASS:
        entry.module = module
    return entry


# The importer's words for a value it needs at import time (a shape, axes,
# pads, k) that the graph takes as an input.
RUNTIME_INPUT_RE = re.compile(
    r"input \d+ '([^']+)'(?:,| is| which is)+ computed at run time")


def makeInputConstant(modelPath, name, sets, outPath):
    """Writes the model with graph input `name` made an initializer holding
    its value from the data sets, which must all agree. Returns the input's
    position, or None when `name` is no graph input or the sets disagree."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(modelPath)
    names = [vi.name for vi in model.graph.input]
    if name not in names:
        return None
    k = names.index(name)
    values = [np.load(ds.inputs[k]) for ds in sets]
    if any(v.shape != values[0].shape or not np.array_equal(v, values[0])
           for v in values[1:]):
        return None
    model.graph.initializer.append(numpy_helper.from_array(values[0], name))
    del model.graph.input[k]
    onnx.save(model, outPath)
    return k


# Cases whose ONNX 1.12 reference outputs are themselves wrong, as checked
# against the operator's definition: they stay failures, and their reason
# says why, so the table tells them from Kiln's own.
_WINDOWS = ("generated with pi taken as 3.1415 (onnx/backend/test/case/node/"
            "*window.py); Kiln computes the definition's 2*pi*n/N")
REFERENCE_DEFECTS = {
    **{f"test_{w}window{s}{e}": _WINDOWS
       for w in ("hann", "hamming", "blackman")
       for s in ("", "_symmetric") for e in ("", "_expanded")},
    "test_adam_multiple": (
        "computed with epsilon 1e-2 where the model leaves the default 1e-6 "
        "(onnx/onnx#7749, fixed by #7763)"),
    "test_maxunpool_export_with_output_shape": (
        "places values by the inferred 4x4 shape and pads to 5x5; ONNX "
        "Runtime lists it as broken (onnx/onnx#2398); Kiln follows PyTorch "
        "and ONNX Runtime"),
}


def windowByDefinition(name, size):
    """A window case's output by the operator's definition in float64 with
    pi: the coefficients by its op, N its size (periodic) or size - 1."""
    a = {"hann": (0.5, 0.5, 0.0), "hamming": (25 / 46, 21 / 46, 0.0),
         "blackman": (0.42, 0.5, 0.08)}
    kind = next(k for k in a if f"test_{k}window" in name)
    a0, a1, a2 = a[kind]
    n = np.arange(size, dtype=np.float64)
    period = size - 1 if "_symmetric" in name else size
    angle = 2 * np.pi * n / period
    return a0 - a1 * np.cos(angle) + a2 * np.cos(2 * angle)


def checkDefinition(entry, caseWork, args):
    """For a reference defect the runner can correct (the windows), "; Kiln
    matches the definition" after running the module against the corrected
    reference, or that it does not; "" for the others."""
    if "window" not in entry.name:
        return ""
    sets = []
    for n, ds in enumerate(entry.sets):
        size = int(np.load(ds.inputs[0], allow_pickle=False))
        ref = np.load(ds.outputs[0], allow_pickle=False)
        path = os.path.join(caseWork, f"definition{n}.npy")
        np.save(path, windowByDefinition(entry.name, size).astype(ref.dtype))
        sets.append(harness.DataSet(ds.inputs, [path]))
    again = harness.runAndCheck(args.bin_dir, args.device, entry.module, sets,
                                os.path.join(caseWork, "definition"),
                                args.timeout, wrapper=args.wrapper.split())
    return ("; Kiln matches the definition, with pi, in float64"
            if again.status == PASS else
            f"; Kiln does not match the definition either: {again.reason}")


def run(entry, workDir, args):
    """Runs a prepared or prebuilt entry: a Result."""
    ops = entry.info.get("ops", [])
    constants = entry.info.get("constant_inputs", [])
    if entry.module is None:
        return Result(entry.name, ops, entry.compileStatus, entry.reason,
                      constants=constants)
    caseWork = os.path.join(workDir, entry.name)
    os.makedirs(caseWork, exist_ok=True)
    outcome = harness.runAndCheck(args.bin_dir, args.device, entry.module,
                                  entry.sets, caseWork, args.timeout,
                                  wrapper=args.wrapper.split(),
                                  roundedReferences=True)
    if outcome.status == FAIL and entry.name in REFERENCE_DEFECTS:
        outcome.reason += (f" (reference defect: "
                           f"{REFERENCE_DEFECTS[entry.name]}"
                           f"{checkDefinition(entry, caseWork, args)})")
    if not args.keep_temp:
        # Modules and outputs of 900 cases would fill a small /tmp.
        shutil.rmtree(caseWork, ignore_errors=True)
    return Result(entry.name, ops, outcome.status, outcome.reason,
                  outcome.seconds, constants)


def printResult(r):
    line = f"{r.status.upper()} {r.name}"
    if r.reason:
        line += f": {r.reason}"
    elif r.seconds:
        line += f" ({r.seconds:.2f}s)"
    print(line, flush=True)


# --- the table ---------------------------------------------------------------


def cell(text, limit=220):
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def failureCause(r):
    """compile, run, mismatch, runner, or unsupported: for the summary."""
    if r.status == UNSUPPORTED:
        return "runner" if r.detail.startswith("runner:") else "importer"
    return r.detail.split(":", 1)[0] if ":" in r.detail else "other"


def kilnCommit():
    try:
        out = subprocess.run(["git", "-C", REPO, "rev-parse", "--short",
                              "HEAD"], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def deviceName(args):
    """The name kiln-run-module --dump_devices gives the device, or ""."""
    try:
        out = subprocess.run([os.path.join(args.bin_dir, "kiln-run-module"),
                              "--dump_devices"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    scheme = args.device.split(":", 1)[0]
    inDevice = False
    for line in out.stdout.splitlines() + out.stderr.splitlines():
        if line.startswith(scheme + "://"):
            inDevice = True
        elif inDevice and line.strip().startswith("name:"):
            return line.split(":", 1)[1].strip()
    return ""


def writeTable(path, results, args, counts):
    total = len(results)
    # A kit's cases were compiled where the kit was made: its commit.
    commit = args.kit_commit if args.prebuilt_modules else kilnCommit()
    device = deviceName(args) if args.device.startswith("cuda") else ""
    lines = [
        "# ONNX backend node tests on Kiln",
        "",
        "The ONNX 1.12 node cases of Debian's libonnx-testdata "
        f"(`{DEFAULT_DATA_DIR}`), compiled for `{args.target_device}`"
        + (f" (`{args.cuda_target}`)" if args.cuda_target else "")
        + f" and run on `{args.device}`"
        + (f" ({device})" if device else "")
        + (f", Kiln {commit}" if commit else "")
        + f", {datetime.date.today():%Y-%m-%d}. "
        "Generated by `tests/onnx/run_node_tests.py`; regenerate with",
        "",
        "```sh",
        (REGENERATE_KIT if args.prebuilt_modules else REGENERATE)
        + ("" if args.constant_inputs or args.prebuilt_modules
           else " --no-constant-inputs"),
        "```",
        "",
        f"**{counts[PASS]} of {total} pass ({100.0 * counts[PASS] / max(total, 1):.1f}%)**, "
        f"{counts[FAIL]} fail, {counts[UNSUPPORTED]} unsupported"
        + (f" (filter `{args.filter}`)" if args.filter else "") + "; "
        f"{sum(1 for r in results if r.status == PASS and r.constants)} "
        "of the passes with constant inputs.",
        "",
        "Outputs must have the reference's shape and dtype; floats match "
        "within 1e-5 + 1e-4·|ref| (float16: 2.5e-3 + 1e-3·|ref|), NaN "
        "matches NaN, integers and booleans exactly; a reference written "
        "rounded to 4 decimals allows 5e-5 more (the case's reason says "
        "so). A failure marked "
        "*reference defect* has a reference that is wrong by the operator's "
        "definition (the reason says how). *unsupported*: the "
        "importer refused the model saying so, or (reason `runner:`) the "
        "runner cannot pass the case's values to kiln-run-module. "
        "*constant inputs*: graph inputs the importer needs at import time "
        "(a shape, axes, pads, k: what exporters write as initializers) "
        "given to it as initializers holding the data set's value.",
        "",
        "## By op type",
        "",
        "Cases containing each op (a case with several op types counts for "
        "each), most non-passing first.",
        "",
        "| op | cases | pass | fail | unsupported |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    byOp = collections.defaultdict(collections.Counter)
    for r in results:
        for op in r.ops or ["(none)"]:
            byOp[op][r.status] += 1
    for op, c in sorted(byOp.items(),
                        key=lambda kv: (-(kv[1][FAIL] + kv[1][UNSUPPORTED]),
                                        kv[0])):
        lines.append(f"| {op} | {sum(c.values())} | {c[PASS]} | {c[FAIL]} | "
                     f"{c[UNSUPPORTED]} |")
    causes = collections.Counter(
        failureCause(r) for r in results if r.status != PASS)
    lines += [
        "",
        "## Causes",
        "",
        "| result | cause | cases |",
        "| --- | --- | ---: |",
    ]
    for cause, n in sorted(causes.items(), key=lambda kv: -kv[1]):
        status = UNSUPPORTED if cause in ("runner", "importer") else FAIL
        lines.append(f"| {status} | {cause} | {n} |")
    lines += [
        "",
        "## Cases",
        "",
        "| case | ops | result | reason |",
        "| --- | --- | --- | --- |",
    ]
    for r in results:
        lines.append(f"| {r.name} | {cell(', '.join(r.ops), 80)} | "
                     f"{r.status} | {cell(r.reason)} |")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# --- main --------------------------------------------------------------------


def main():
    args = parseArgs()
    start = time.monotonic()
    if args.prebuilt_modules:
        try:
            meta, entries = harness.readKit(args.prebuilt_modules)
        except ValueError as e:
            return e2elib.fatal(str(e))
        entries = [e for e in entries if re.search(args.filter, e.name)]
        args.target_device = meta.get("target_device", "?")
        args.cuda_target = meta.get("cuda_target", "")
        args.kit_commit = meta.get("kiln_commit", "")
        need = ["kiln-run-module"]
    else:
        if not os.path.isdir(args.data_dir):
            return e2elib.fatal(
                f"no ONNX node test data at {args.data_dir}: install Debian's "
                "libonnx-testdata (scripts/install-deps.sh does)")
        cases = loadCases(args.data_dir, args.filter)
        need = ["kiln-compile"] + ([] if args.save_modules else
                                   ["kiln-run-module"])
    missing = e2elib.missingTools(args.bin_dir, need)
    if missing:
        return e2elib.fatal(f"missing tool(s): {', '.join(missing)}; build "
                            "them first")

    workDir = tempfile.mkdtemp(prefix="kiln-onnx-node-")
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            if args.prebuilt_modules:
                jobs = [pool.submit(run, e, workDir, args) for e in entries]
            elif args.save_modules:
                os.makedirs(args.save_modules, exist_ok=True)
                jobs = [pool.submit(prepare, c, args.save_modules, args)
                        for c in cases]
            else:
                jobs = [pool.submit(lambda c: run(prepare(c, workDir, args),
                                                  workDir, args), c)
                        for c in cases]
            for job in jobs:
                r = job.result()
                if isinstance(r, harness.KitEntry):
                    results.append(r)
                    print(f"{r.compileStatus.upper()} compile {r.name}" +
                          (f": {r.reason}" if r.reason else ""), flush=True)
                else:
                    results.append(r)
                    printResult(r)
    finally:
        if args.keep_temp:
            print(f"work directory kept: {workDir}", flush=True)
        else:
            shutil.rmtree(workDir, ignore_errors=True)
    if not results:
        return e2elib.fatal(f"no case matches --filter '{args.filter}'")
    elapsed = time.monotonic() - start

    if args.save_modules:
        harness.writeKit(args.save_modules,
                         {"target_device": args.target_device,
                          "cuda_target": args.cuda_target,
                          "kiln_commit": kilnCommit()}, results)
        counts = collections.Counter(e.compileStatus for e in results)
        print(f"compiled {counts[PASS]}, failed {counts[FAIL]}, unsupported "
              f"{counts[UNSUPPORTED]} of {len(results)} cases in "
              f"{elapsed:.1f}s; kit: {args.save_modules}", flush=True)
        return 0

    counts = collections.Counter(r.status for r in results)
    total = len(results)
    withConstants = sum(1 for r in results if r.status == PASS and r.constants)
    print(f"{counts[PASS]} passed ({withConstants} with constant inputs), "
          f"{counts[FAIL]} failed, "
          f"{counts[UNSUPPORTED]} unsupported of {total} cases: "
          f"{100.0 * counts[PASS] / total:.1f}% pass ({args.device}, "
          f"{elapsed:.1f}s)", flush=True)
    if args.results_md:
        writeTable(args.results_md, results, args, counts)
        print(f"wrote {args.results_md}", flush=True)
    if args.floor is not None:
        if counts[PASS] < args.floor:
            print(f"error: {counts[PASS]} cases pass, fewer than the floor "
                  f"{args.floor}", file=sys.stderr, flush=True)
            return 1
        if counts[PASS] > args.floor:
            print(f"note: {counts[PASS]} cases pass, above the floor "
                  f"{args.floor}: raise it (tests/onnx/node-pass-floor.txt)",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
