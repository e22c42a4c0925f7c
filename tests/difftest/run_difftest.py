#!/usr/bin/python3
"""Differential testing: random programs from gen.py, compiled by
kiln-compile, run by kiln-run-module on each driver, compared with their
float64 numpy references under the e2e tolerances.

  /usr/bin/python3 tests/difftest/run_difftest.py --bin-dir build/bin \\
      --seed 1 --count 300 [--driver local-sync --driver local-task] \\
      [--keep-failures DIR] [--jobs 2] [--only 17,42]

Programs are a function of (seed, index): `--seed 1 --only 17` rebuilds
program 17 of any `--seed 1` run. Many programs go into one .mlir file per
compile (--batch-size); a file that fails to compile is split in halves until
each failing program is found on its own.

A compiler crash (a signal), an internal error (any diagnostic that is not a
clean refusal naming an op or a type), a run failure or a numeric mismatch
fails the program. A clean refusal is counted as skipped and printed as
REFUSED: the generator should only build what Kiln accepts. Prints one line
per failure, then `N passed, M failed` (`, K skipped`), counting programs;
exits 1 on any failure.
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import sys
import tempfile
import threading
import time
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import e2elib  # noqa: E402
import gen  # noqa: E402
import run_e2e  # noqa: E402  (checkOutputs)

# Input verification's refusals (compiler/input/VerifyInput.cpp): the
# diagnostics a user is meant to see, naming the op or the type.
REFUSAL_RE = re.compile(
    r"error: (unsupported op '|'[\w.]+' has an? (argument|result) of "
    r"(unsupported element type|dynamic shape)|function '[^']*' (takes|"
    r"returns) )")
DIAGNOSTIC_RE = re.compile(r"error: .*")
# A frame of LLVM's stack dump: "#4 0x00005562 kiln::(anonymous
# namespace)::outlineGroup(mlir::func::FuncOp, ...) FormDispatches.cpp:0:0".
FRAME_RE = re.compile(r"#\d+ 0x[0-9a-f]+ ((?:\(anonymous namespace\)|[^ (])+)")


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-run-module")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100,
                   help="programs to generate: indices 0 .. count-1")
    p.add_argument("--only", default="",
                   help="comma-separated program indices to run instead")
    p.add_argument("--driver", action="append", default=[],
                   help="device to run on (repeatable; default: every "
                   "driver `kiln-run-module --list_drivers` names that has "
                   "a device in `--list_devices`)")
    p.add_argument("--jobs", type=int, default=2,
                   help="parallel compiles and runs (default 2)")
    p.add_argument("--batch-size", type=int, default=32,
                   help="functions per compiled file (default 32)")
    p.add_argument("--target-device", default="cpu")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds allowed for one tool invocation")
    p.add_argument("--keep-failures", metavar="DIR",
                   help="save each failing program (MLIR, inputs, "
                   "references, repro.sh) under DIR/<name>/")
    p.add_argument("--verbose", action="store_true",
                   help="also print a PASS line per program and driver")
    args = p.parse_args()
    if args.count < 0 or args.jobs < 1 or args.batch_size < 1:
        p.error("--count must be >= 0, --jobs and --batch-size >= 1")
    try:
        args.only = [int(x) for x in args.only.split(",") if x.strip()]
    except ValueError:
        p.error("--only takes comma-separated integers")
    args.bin_dir = os.path.abspath(args.bin_dir)
    return args


class Result:
    """One program's fate; `failures` holds (driver or '', detail)."""

    def __init__(self, program):
        self.program = program
        self.module = None
        self.refused = ""
        self.failures = []


def classifyCompile(r: e2elib.ToolResult) -> tuple:
    """(kind, detail) of a failed compile: 'refused', 'crash' or 'error'."""
    if r.problem:
        if not r.problem.startswith("killed by"):
            return "error", f"compile {r.problem}"
        # Name the crash by the innermost frame of the stack dump that is
        # not the signal handler's own, so crashes sort into classes.
        frames = [f for f in FRAME_RE.findall(r.stderr)
                  if not f.startswith(("llvm::sys::", "(/", "/"))]
        where = f" in {frames[0]}" if frames else " (no stack dump)"
        return "crash", f"compile {r.problem.split(':')[0]}{where}"
    diags = DIAGNOSTIC_RE.findall(r.stderr)
    if diags and all(REFUSAL_RE.search(d) for d in diags):
        return "refused", diags[0]
    first = diags[0] if diags else r.describe()
    return "error", f"compile exit {r.rc}: {first}"


class Runner:

    def __init__(self, args, workDir):
        self.args = args
        self.workDir = workDir
        self.compiler = os.path.join(args.bin_dir, "kiln-compile")
        self.runner = os.path.join(args.bin_dir, "kiln-run-module")
        self.lock = threading.Lock()
        self.fileCount = 0

    def compileArgv(self, src, out):
        return [self.compiler, src, f"--target-device={self.args.target_device}",
                "-o", out]

    def compileGroup(self, results):
        """Compiles the programs in one file; on failure splits the file in
        halves to pin the failure on single programs."""
        with self.lock:
            self.fileCount += 1
            stem = os.path.join(self.workDir, f"batch_{self.fileCount}")
        src, out = stem + ".mlir", stem + ".kiln"
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(r.program.text for r in results))
        r = e2elib.runTool(self.compileArgv(src, out), self.args.timeout)
        if not r.problem and r.rc == 0 and os.path.isfile(out):
            for res in results:
                res.module = out
            return
        if len(results) > 1:
            half = len(results) // 2
            self.compileGroup(results[:half])
            self.compileGroup(results[half:])
            if all(res.module for res in results):
                # Each half compiles, the whole does not.
                kind, detail = classifyCompile(r)
                for res in results:
                    res.module = None
                    res.failures.append(("", f"{kind} only when compiled "
                                         f"together with {len(results) - 1} "
                                         f"other programs ({src}): {detail}"))
            return
        kind, detail = classifyCompile(r)
        if r.rc == 0 and not r.problem:
            kind, detail = "error", "compile exited 0 but wrote no module"
        res = results[0]
        if kind == "refused":
            res.refused = detail
        else:
            label = "CRASH" if kind == "crash" else "compile error"
            res.failures.append(("", f"{label}: {detail}"))

    def programDir(self, program):
        d = os.path.join(self.workDir, program.name)
        os.makedirs(d, exist_ok=True)
        return d

    def runArgv(self, module, program, driver, inPaths, outPaths):
        argv = [self.runner, f"--device={driver}", f"--module={module}",
                f"--function={program.name}"]
        argv += [f"--input=@{p}" for p in inPaths]
        argv += [f"--output=@{p}" for p in outPaths]
        return argv

    def run(self, res, driver):
        """Runs one compiled program on one driver and compares."""
        program = res.program
        d = self.programDir(program)
        inPaths = [os.path.join(d, f"in{k}.npy")
                   for k in range(len(program.inputs))]
        outDir = os.path.join(d, fileTag(driver))
        os.makedirs(outDir, exist_ok=True)
        outPaths = [os.path.join(outDir, f"out{k}.npy")
                    for k in range(len(program.outputs))]
        r = e2elib.runTool(self.runArgv(res.module, program, driver, inPaths,
                                        outPaths), self.args.timeout)
        if r.problem or r.rc != 0:
            return False, f"run failed ({r.describe()})"
        prep = types.SimpleNamespace(
            outs=[(o.shape, o.dtype) for o in program.outputs],
            refs=[o.ref for o in program.outputs],
            scales=[o.scale for o in program.outputs],
            tols=[o.tol for o in program.outputs])
        return run_e2e.checkOutputs(prep, outPaths)

    def keep(self, res, keepDir, drivers):
        """Saves a failing program so it reproduces without the generator."""
        program = res.program
        d = os.path.join(keepDir, program.name)
        os.makedirs(d, exist_ok=True)
        tags = "; ".join(program.tags)
        with open(os.path.join(d, "prog.mlir"), "w", encoding="utf-8") as f:
            f.write(f"// {program.name}: {tags}\n")
            f.write(program.text)
        for k, a in enumerate(program.inputs):
            np.save(os.path.join(d, f"in{k}.npy"), a)
        for k, o in enumerate(program.outputs):
            np.save(os.path.join(d, f"ref{k}.npy"), o.ref)
        seed, index = program.name[1:].split("_p")
        lines = [
            "#!/bin/sh",
            f"# {program.name}: {tags}",
            "# From the repository root: sh " + os.path.join(d, "repro.sh"),
            "# Compares with the reference as well:",
            f"#   /usr/bin/python3 tests/difftest/run_difftest.py "
            f"--bin-dir build/bin --seed {seed} --only {index}",
            "set -e",
            'BIN="${BIN:-build/bin}"',
            'D="$(dirname "$0")"',
            f'"$BIN/kiln-compile" "$D/prog.mlir" '
            f"--target-device={self.args.target_device} -o \"$D/prog.kiln\"",
        ]
        inFlags = " ".join(f'--input=@"$D/in{k}.npy"'
                           for k in range(len(program.inputs)))
        for driver in drivers:
            outFlags = " ".join(f'--output=@"$D/out{k}_{fileTag(driver)}.npy"'
                                for k in range(len(program.outputs)))
            lines.append(f'"$BIN/kiln-run-module" --device={shlex.quote(driver)} '
                         f'--module="$D/prog.kiln" --function={program.name} '
                         f"{inFlags} {outFlags}")
        with open(os.path.join(d, "repro.sh"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d, "failure.txt"), "w", encoding="utf-8") as f:
            for driver, detail in res.failures:
                f.write(f"[{driver or 'compile'}] {detail}\n")


def fileTag(driver: str) -> str:
    """A driver URI as part of a file name (local-task://?workers=4)."""
    return re.sub(r"[^\w.-]", "_", driver)


def listDrivers(binDir):
    """The drivers with a device present: `--list_drivers` names every driver
    built in (cuda too on a machine without a GPU), `--list_devices` the
    devices that exist (`local-task`, `cuda:0`, ...)."""
    tool = os.path.join(binDir, "kiln-run-module")
    drivers = e2elib.runTool([tool, "--list_drivers"], 60)
    devices = e2elib.runTool([tool, "--list_devices"], 60)
    if drivers.problem or drivers.rc != 0 or devices.problem or devices.rc:
        return []
    present = {re.split(r"[:/]", l.strip())[0]
               for l in devices.stdout.splitlines() if l.strip()}
    return [l.strip() for l in drivers.stdout.splitlines()
            if l.strip() and l.strip() in present]


def main():
    args = parseArgs()
    report = e2elib.Report()
    indices = args.only or list(range(args.count))
    missing = e2elib.missingTools(args.bin_dir,
                                  ["kiln-compile", "kiln-run-module"])
    if missing:
        return e2elib.fatal(f"missing tool(s): {', '.join(missing)}; build "
                            f"them first", report, len(indices))
    drivers = args.driver or listDrivers(args.bin_dir)
    if not drivers:
        return e2elib.fatal("no driver given and kiln-run-module lists none",
                            report, len(indices))

    start = time.monotonic()
    results = [Result(gen.generate(args.seed, i)) for i in indices]
    print(f"generated {len(results)} programs (seed {args.seed}) in "
          f"{time.monotonic() - start:.1f}s; drivers: {', '.join(drivers)}",
          flush=True)
    workDir = tempfile.mkdtemp(prefix="kiln-difftest-")
    try:
        runner = Runner(args, workDir)
        batches = [results[i:i + args.batch_size]
                   for i in range(0, len(results), args.batch_size)]
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(runner.compileGroup, batches))
        compiled = [r for r in results if r.module]
        print(f"compiled {len(compiled)}/{len(results)} programs in "
              f"{runner.fileCount} compiles, {time.monotonic() - t0:.1f}s",
              flush=True)

        for res in compiled:
            d = runner.programDir(res.program)
            for k, a in enumerate(res.program.inputs):
                np.save(os.path.join(d, f"in{k}.npy"), a)

        def work(job):
            res, driver = job
            ok, detail = runner.run(res, driver)
            if not ok:
                res.failures.append((driver, detail))
            elif args.verbose:
                print(f"PASS {res.program.name} [{driver}]: {detail}",
                      flush=True)

        t0 = time.monotonic()
        jobs = [(r, d) for r in compiled for d in drivers]
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(work, jobs))
        print(f"ran {len(jobs)} calls in {time.monotonic() - t0:.1f}s",
              flush=True)

        for res in results:
            name = res.program.name
            tags = "; ".join(res.program.tags)
            if res.failures:
                for driver, detail in res.failures:
                    where = f" [{driver}]" if driver else ""
                    print(f"FAIL {name}{where} ({tags}): {detail}", flush=True)
                report.failed += 1
                report.failures.append(name)
                if args.keep_failures:
                    runner.keep(res, os.path.abspath(args.keep_failures),
                                drivers)
            elif res.refused:
                print(f"REFUSED {name} ({tags}): {res.refused}", flush=True)
                report.skipped += 1
            else:
                report.passed += 1
        print(f"total time {time.monotonic() - start:.1f}s", flush=True)
    finally:
        shutil.rmtree(workDir, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
