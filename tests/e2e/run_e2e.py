#!/usr/bin/python3
"""Compiles every e2e case file with kiln-compile, runs each case's function
with kiln-run-module on each driver, and compares the outputs with the numpy
references in cases.py.

  /usr/bin/python3 tests/e2e/run_e2e.py --bin-dir build/bin \
      --driver local-sync --driver local-task [--filter matmul] [--jobs 2]

For a machine without the compiler (the GPU machine): compile here with
--save-modules DIR (no driver needed), run there with --prebuilt-modules DIR.

Prints one PASS/FAIL line per case and driver, then `N passed, M failed`;
exits 1 on any failure.
"""

import argparse
import concurrent.futures
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as manifest  # noqa: E402
import e2elib  # noqa: E402

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
NPY_DTYPE_NAMES = {np.dtype(v): k for k, v in manifest.NUMPY_DTYPES.items()}


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-run-module")
    p.add_argument("--compiler-bin-dir",
                   help="directory holding kiln-compile (default: --bin-dir); "
                   "lets a sanitizer build's kiln-run-module run the cases")
    p.add_argument("--driver", action="append", default=[],
                   help="HAL driver to run on (repeatable)")
    p.add_argument("--filter", default="",
                   help="run only cases whose name contains this")
    p.add_argument("--jobs", type=int, default=2,
                   help="parallel compiles and runs (default 2)")
    p.add_argument("--target-device", default="cpu")
    p.add_argument("--cuda-target", default="",
                   help="passed to kiln-compile as --cuda-target")
    p.add_argument("--hip-target", default="",
                   help="passed to kiln-compile as --hip-target (an AMD "
                   "GPU's gpu-arch-name, gfx942)")
    p.add_argument("--precision", default="f32",
                   choices=manifest.PRECISIONS,
                   help="passed to kiln-compile as --precision (also with "
                   "--prebuilt-modules compiled so); float results are held "
                   "to the looser of their own tolerance and the mode's")
    p.add_argument("--save-modules", metavar="DIR",
                   help="only compile, writing DIR/<case file>.kiln")
    p.add_argument("--prebuilt-modules", metavar="DIR",
                   help="run DIR/<case file>.kiln instead of compiling")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds allowed for one tool invocation")
    p.add_argument("--wrapper", default="",
                   help="command line kiln-run-module runs under, e.g. "
                   "'compute-sanitizer --tool memcheck --error-exitcode 99'")
    p.add_argument("--keep-temp", action="store_true",
                   help="keep the work directory (modules, npy files)")
    args = p.parse_args()
    if not args.driver and not args.save_modules:
        p.error("give at least one --driver")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    args.bin_dir = os.path.abspath(args.bin_dir)
    if args.save_modules:
        args.save_modules = os.path.abspath(args.save_modules)
        os.makedirs(args.save_modules, exist_ok=True)
    args.compiler_bin_dir = os.path.abspath(args.compiler_bin_dir or
                                            args.bin_dir)
    return args


def checkManifest(case, sigs):
    """Returns (output types, problem)."""
    if case.function not in sigs:
        return None, f"no func.func @{case.function} in {case.file}"
    ins, outs = sigs[case.function]
    declared = [(i.shape, i.dtype) for i in case.inputs]
    if not e2elib.typesMatch(declared, ins):
        fmt = lambda ts: ", ".join(manifest.formatTensorType(*t) for t in ts)
        return None, (f"manifest inputs ({fmt(declared)}) differ from the "
                      f"signature ({fmt(ins)})")
    if not outs:
        return None, "function has no tensor results"
    return outs, ""


def compileFile(file, workDir, args):
    name = file[:-len(".mlir")] + ".kiln"
    if args.prebuilt_modules:
        out = os.path.join(args.prebuilt_modules, name)
        if not os.path.isfile(out):
            return None, f"no prebuilt module {out}", 0.0
        return out, "", 0.0
    out = os.path.join(args.save_modules or workDir, name)
    argv = [
        os.path.join(args.compiler_bin_dir, "kiln-compile"),
        os.path.join(CASES_DIR, file), f"--target-device={args.target_device}",
        "-o", out
    ]
    if args.cuda_target:
        argv.append(f"--cuda-target={args.cuda_target}")
    if args.hip_target:
        argv.append(f"--hip-target={args.hip_target}")
    if args.precision != "f32":
        argv.append(f"--precision={args.precision}")
    r = e2elib.runTool(argv, args.timeout)
    if r.problem or r.rc != 0:
        return None, f"compile failed ({r.describe()})", r.seconds
    if not os.path.isfile(out) or os.path.getsize(out) == 0:
        return None, "compile exited 0 but wrote no module", r.seconds
    return out, "", r.seconds


class Prepared:
    """A case's inputs on disk and its references, shared by all drivers."""

    def __init__(self, case, outs, caseDir, precision):
        self.case = case
        self.outs = outs
        self.caseDir = caseDir
        inputs = manifest.makeInputs(case)
        self.inputPaths = []
        for k, a in enumerate(inputs):
            path = os.path.join(caseDir, f"in{k}.npy")
            np.save(path, a)
            self.inputPaths.append(path)
        self.refs = manifest.reference(case, inputs)
        self.scales = manifest.scales(case, inputs, self.refs)
        self.outs = e2elib.concreteOutputs(outs, self.refs)
        self.tols = tuple(manifest.underPrecision(t, precision)
                          for t in case.tolerances(len(outs)))


def checkOutputs(prep, outPaths):
    """Returns (ok, detail)."""
    worst = 0.0
    for k, (path, (shape, dtype)) in enumerate(zip(outPaths, prep.outs)):
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as e:  # Any unreadable file is a failure to report.
            return False, f"output {k}: cannot read {os.path.basename(path)}: {e}"
        gotType = NPY_DTYPE_NAMES.get(got.dtype, str(got.dtype))
        if tuple(got.shape) != tuple(shape) or gotType != dtype:
            return False, (f"output {k}: got "
                           f"{manifest.formatTensorType(got.shape, gotType)}, "
                           f"want {manifest.formatTensorType(shape, dtype)}")
        ref = prep.refs[k]
        if tuple(ref.shape) != tuple(shape):
            return False, (f"output {k}: reference has shape {ref.shape}, "
                           f"signature {shape} (manifest bug)")
        ok, err, detail = manifest.compare(got, ref, prep.scales[k],
                                           prep.tols[k])
        if not ok:
            return False, f"output {k} ({prep.tols[k]}): {detail}"
        worst = max(worst, err)
    return True, f"max_err={worst:.3g}"


def runCase(binDir, module, prep, driver, args):
    outDir = os.path.join(prep.caseDir, driver)
    os.makedirs(outDir, exist_ok=True)
    outPaths = [os.path.join(outDir, f"out{k}.npy") for k in range(len(prep.outs))]
    argv = args.wrapper.split() + [
        os.path.join(binDir, "kiln-run-module"), f"--device={driver}",
        f"--module={module}", f"--function={prep.case.function}"
    ]
    argv += [f"--input=@{p}" for p in prep.inputPaths]
    argv += [f"--output=@{p}" for p in outPaths]
    r = e2elib.runTool(argv, args.timeout)
    if r.problem or r.rc != 0:
        return False, f"run failed ({r.describe()})", r.seconds
    ok, detail = checkOutputs(prep, outPaths)
    return ok, detail, r.seconds


def main():
    args = parseArgs()
    report = e2elib.Report()
    selected = [c for c in manifest.CASES if args.filter in c.name]
    if not selected:
        return e2elib.fatal(f"no case matches --filter '{args.filter}'", report)
    total = len(selected) * len(args.driver)
    missing = [] if args.prebuilt_modules else e2elib.missingTools(
        args.compiler_bin_dir, ["kiln-compile"])
    if not args.save_modules:
        missing += e2elib.missingTools(args.bin_dir, ["kiln-run-module"])
    if missing:
        return e2elib.fatal(
            f"missing tool(s): {', '.join(missing)}; build them first "
            f"(cmake --build build)", report, total)

    workDir = tempfile.mkdtemp(prefix="kiln-e2e-")
    try:
        files = sorted({c.file for c in selected})
        sigs = {f: e2elib.parseSignatures(os.path.join(CASES_DIR, f))
                for f in files}

        start = time.monotonic()
        modules, compileErrors = {}, {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(compileFile, f, workDir, args): f
                       for f in files}
            for fut in concurrent.futures.as_completed(futures):
                f = futures[fut]
                module, problem, secs = fut.result()
                print(f"compiled {f} in {secs:.1f}s" +
                      (f": {problem}" if problem else ""), flush=True)
                if module:
                    modules[f] = module
                else:
                    compileErrors[f] = problem
        print(f"compile: {len(modules)}/{len(files)} files in "
              f"{time.monotonic() - start:.1f}s", flush=True)
        if args.save_modules:
            for f in files:
                report.result(f in modules, f"compile {f}",
                              compileErrors.get(f, args.save_modules))
            return report.finish()

        jobs = []
        for c in selected:
            label = lambda d: f"{c.name} [{d}]"
            outs, problem = checkManifest(c, sigs[c.file])
            problem = problem or compileErrors.get(c.file, "")
            if problem:
                for d in args.driver:
                    report.result(False, label(d), problem)
                continue
            caseDir = os.path.join(workDir, c.name.replace("/", "__"))
            os.makedirs(caseDir)
            try:
                prep = Prepared(c, outs, caseDir, args.precision)
            except Exception as e:  # A broken reference is a failed case.
                for d in args.driver:
                    report.result(False, label(d), f"reference failed: {e!r}")
                continue
            for d in args.driver:
                jobs.append((prep, d))

        def work(job):
            prep, d = job
            ok, detail, secs = runCase(args.bin_dir, modules[prep.case.file],
                                       prep, d, args)
            report.result(ok, f"{prep.case.name} [{d}]",
                          f"{detail} ({secs:.2f}s)")

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(work, jobs))
        print(f"total time {time.monotonic() - start:.1f}s", flush=True)
    finally:
        if args.keep_temp:
            print(f"work directory kept: {workDir}", flush=True)
        else:
            shutil.rmtree(workDir, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
