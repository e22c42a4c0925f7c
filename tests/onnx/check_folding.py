#!/usr/bin/python3
"""Checks that the ONNX importer evaluates every elementwise op, and the
reductions and Tile (SHAPE_ARITHMETIC), on constants at import time: each
ONNX 1.12 backend node case (Debian's libonnx-testdata) of only such ops
gets every graph input made an initializer holding its test value;
kiln-import-onnx must then emit no linalg op (the outputs are constants),
and the module kiln-compile makes of it must give the case's reference
outputs on local-sync (the node tests' tolerances: floats 1e-5 + 1e-4
|ref|, float16 2.5e-3 + 1e-3 |ref|, integers and booleans exactly).

  /usr/bin/python3 tests/onnx/check_folding.py --bin-dir build/bin \\
      [--filter REGEX] [--jobs 2]

ELEMENTWISE and SHAPE_ARITHMETIC list the op types checked; cases the
runner cannot express (string and bfloat16 values) are not selected. What
the importer leaves to run time on purpose (math on float16 and bfloat16,
more than 2^16 elements; compiler/onnx/BodyEvaluation.h) has no node case
here and is checked by the lit test compiler/onnx/test/import_shape_folding.mlir.
Prints a line per case and the counts; exits 1 on any failure.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnxharness as harness  # noqa: E402
import run_node_tests as nodetests  # noqa: E402
from onnxharness import PASS  # noqa: E402

e2elib = harness.e2elib

# Every elementwise ONNX op Kiln converts: arithmetic, math, comparisons,
# logic, Where, Cast, and the activations.
ELEMENTWISE = {
    "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh",
    "BitShift", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Cos", "Cosh",
    "Div", "Elu", "Equal", "Erf", "Exp", "Floor", "Gelu", "Greater",
    "GreaterOrEqual", "HardSigmoid", "HardSwish", "Identity", "IsInf",
    "IsNaN", "LeakyRelu", "Less", "LessOrEqual", "Log", "Max", "Mean", "Min",
    "Mish", "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu", "Reciprocal",
    "Relu", "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
    "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan", "Tanh",
    "ThresholdedRelu", "Where", "Xor",
    # Cases built from the ops above (the *_expanded function bodies).
    "Constant",
}

# Shape arithmetic beyond elementwise ops that the importer evaluates on
# constants too (a detector's image sizes: ReduceMax of constants, anchors
# by Tile; a shifted-window attention mask written by ScatterND).
# ReduceLogSumExp is left to run time.
SHAPE_ARITHMETIC = {
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceMax", "ReduceMean",
    "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Tile",
    "Scatter", "ScatterElements", "ScatterND",
}


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True, help="where the Kiln tools are")
    p.add_argument("--data-dir", default=nodetests.DEFAULT_DATA_DIR,
                   help="the node cases (default: libonnx-testdata's)")
    p.add_argument("--filter", default="", help="only cases matching REGEX")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120.0)
    args = p.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)
    return args


def check(case, workDir, args):
    """(passed, line) of one case."""
    caseDir = os.path.join(workDir, case.name)
    os.makedirs(caseDir)
    sets = nodetests.convertSets(case, caseDir)
    model = os.path.join(case.dir, "model.onnx")
    import onnx
    for name in [vi.name for vi in onnx.load(model).graph.input]:
        constant = os.path.join(caseDir, "constant.onnx")
        k = nodetests.makeInputConstant(model, name, sets, constant)
        if k is None:
            return False, f"input '{name}' differs between the data sets"
        for ds in sets:
            del ds.inputs[k]
        model = constant
    imported = e2elib.runTool([os.path.join(args.bin_dir, "kiln-import-onnx"),
                               model], args.timeout)
    if imported.problem or imported.rc != 0:
        return False, f"import: {harness.firstErrorLine(imported)}"
    if "linalg." in imported.stdout:
        return False, "not folded: a linalg op remains"
    module = os.path.join(caseDir, "model.kiln")
    compiled = harness.compileOnnx(args.bin_dir, model, module, "cpu", "",
                                   args.timeout)
    if compiled.status != PASS:
        return False, compiled.reason
    outcome = harness.runAndCheck(args.bin_dir, "local-sync", module, sets,
                                  caseDir, args.timeout)
    if outcome.status != PASS:
        return False, outcome.reason
    return True, f"folded ({', '.join(case.ops)})"


def main():
    args = parseArgs()
    report = e2elib.Report()
    missing = e2elib.missingTools(
        args.bin_dir, ["kiln-import-onnx", "kiln-compile", "kiln-run-module"])
    if missing:
        return e2elib.fatal(f"missing tool(s): {', '.join(missing)}", report)
    if not os.path.isdir(args.data_dir):
        return e2elib.fatal(f"no {args.data_dir} (libonnx-testdata)", report)
    cases = [c for c in nodetests.loadCases(args.data_dir, args.filter)
             if c.ops and set(c.ops) <= ELEMENTWISE | SHAPE_ARITHMETIC and
             not c.problem and
             not c.loadError]
    if not cases:
        return e2elib.fatal("no case selected", report)
    workDir = tempfile.mkdtemp(prefix="kiln-folding-")
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda c: check(c, workDir, args), cases))
    finally:
        shutil.rmtree(workDir, ignore_errors=True)
    for case, (passed, line) in zip(cases, results):
        report.result(passed, case.name, line)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
