#!/usr/bin/python3
"""Compiles the exported test models (tests/models/export_models.py) with
kiln-compile, runs them with kiln-run-module and compares each output with
PyTorch's float64 one: |kiln - ref| <= 1e-5 * max|ref| + 1e-4 * |ref|
elementwise (the fp32 tolerance with its absolute term scaled by the
output's magnitude), same shape and dtype.

  /usr/bin/python3 tests/models/run_models.py --bin-dir build/bin \\
      --models-dir build/onnx-models --export [--filter resnet]

--export (re)writes the models into --models-dir first (needs torch and
torchvision); without it the directory must hold them already.

For the GPU machine: here --target-device cuda --cuda-target sm_90a
--save-modules KIT; there --prebuilt-modules KIT --device cuda (numpy only).

Prints a PASS/FAIL line per model with its maximum error, then
`N passed, M failed`; exits 1 on any failure.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "onnx"))
import onnxharness as harness  # noqa: E402
from onnxharness import PASS  # noqa: E402

e2elib = harness.e2elib


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-run-module")
    p.add_argument("--models-dir",
                   help="the exported models (<model>_opset<N>/model.onnx, "
                   "input.npy, expected.npy)")
    p.add_argument("--export", action="store_true",
                   help="export the models into --models-dir first")
    p.add_argument("--export-args", default="",
                   help="extra arguments for export_models.py, e.g. "
                   "'--opsets 17'")
    p.add_argument("--device", default="local-task")
    p.add_argument("--target-device", default="cpu")
    p.add_argument("--cuda-target", default="")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an extra kiln-compile argument, e.g. "
                   "--compile-arg=--conv-layout=nhwc (repeatable)")
    p.add_argument("--float-tolerance", choices=["f32", "tf32", "f16", "bf16"],
                   help="hold float outputs to this tolerance instead of "
                   "their type's (a model compiled with --precision=f16 or "
                   "bf16; recorded in a --save-modules kit)")
    p.add_argument("--filter", default="",
                   help="only models whose name matches this regex")
    p.add_argument("--jobs", type=int, default=1,
                   help="models compiled at once (default 1: ResNet50's "
                   "compile is large)")
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds allowed for one tool invocation")
    p.add_argument("--wrapper", default="",
                   help="a command kiln-run-module runs under, e.g. "
                   "'compute-sanitizer --tool memcheck --error-exitcode 99'")
    p.add_argument("--save-modules", metavar="KIT",
                   help="only compile, writing a kit to KIT")
    p.add_argument("--prebuilt-modules", metavar="KIT",
                   help="run the kit written by --save-modules")
    args = p.parse_args()
    if bool(args.prebuilt_modules) == bool(args.models_dir):
        p.error("give --models-dir or --prebuilt-modules")
    if args.save_modules and args.prebuilt_modules:
        p.error("--save-modules and --prebuilt-modules exclude each other")
    if args.export and not args.models_dir:
        p.error("--export needs --models-dir")
    args.bin_dir = os.path.abspath(args.bin_dir)
    return args


def exportModels(args):
    command = [sys.executable, os.path.join(HERE, "export_models.py"),
               "--out", args.models_dir, *args.export_args.split()]
    start = time.monotonic()
    r = subprocess.run(command)
    print(f"export: {time.monotonic() - start:.1f}s", flush=True)
    return r.returncode == 0


def exportedEntries(args):
    entries = []
    for name in sorted(os.listdir(args.models_dir)):
        d = os.path.join(args.models_dir, name)
        if not os.path.isfile(os.path.join(d, "model.onnx")):
            continue
        if not re.search(args.filter, name):
            continue
        # The emulated reference of the precision the outputs are held to
        # (export_models.py writes those the model can be emulated in).
        emulated = os.path.join(d, "emulated-" + (
            args.float_tolerance or "storage-f16") + ".npy")
        entries.append(harness.KitEntry(
            name, [harness.DataSet([os.path.join(d, "input.npy")],
                                   [os.path.join(d, "expected.npy")],
                                   [emulated if os.path.isfile(emulated)
                                    else None])],
            info={"onnx": os.path.join(d, "model.onnx")}))
    return entries


def compileEntry(entry, outDir, args):
    """Compiles entry (its module lands in outDir/<name>/model.kiln);
    with --save-modules copies its data there too."""
    modelDir = os.path.join(outDir, entry.name)
    os.makedirs(modelDir, exist_ok=True)
    module = os.path.join(modelDir, "model.kiln")
    compiled = harness.compileOnnx(args.bin_dir, entry.info.pop("onnx"),
                                   module, args.target_device,
                                   args.cuda_target, args.timeout,
                                   args.compile_arg)
    entry.compileStatus, entry.reason = compiled.status, compiled.reason
    entry.info["compile_seconds"] = round(compiled.seconds, 1)
    print(f"compiled {entry.name} in {compiled.seconds:.1f}s" +
          (f": {compiled.reason}" if compiled.reason else ""), flush=True)
    if compiled.status == PASS:
        entry.module = module
    if args.save_modules:
        for ds in entry.sets:
            for paths in (ds.inputs, ds.outputs, ds.emulated):
                for k, p in enumerate(paths):
                    paths[k] = p and shutil.copy(p, modelDir)
    return entry


def check(entry, workDir, args, report):
    if entry.module is None:
        report.result(False, entry.name, entry.reason if
                      entry.compileStatus != harness.UNSUPPORTED else
                      f"unsupported: {entry.reason}")
        return
    outcome = harness.runAndCheck(args.bin_dir, args.device, entry.module,
                                  entry.sets, os.path.join(workDir, entry.name),
                                  args.timeout, scaleByMax=True,
                                  wrapper=args.wrapper.split(),
                                  floatTolerance=args.float_tolerance)
    ref = np.load(entry.sets[0].outputs[0])
    detail = (f"max |kiln - ref| {outcome.maxError:.2e}, max |ref| "
              f"{float(np.abs(ref).max()):.3g}, run {outcome.seconds:.2f}s")
    if outcome.reason:
        detail = f"{outcome.reason}; {detail}"
    report.result(outcome.status == PASS, entry.name, detail)


def main():
    args = parseArgs()
    report = e2elib.Report()
    need = ["kiln-compile"] if not args.prebuilt_modules else []
    if not args.save_modules:
        need.append("kiln-run-module")
    missing = e2elib.missingTools(args.bin_dir, need)
    if missing:
        return e2elib.fatal(f"missing tool(s): {', '.join(missing)}", report)
    if args.export and not exportModels(args):
        return e2elib.fatal("export_models.py failed", report)

    if args.prebuilt_modules:
        try:
            meta, entries = harness.readKit(args.prebuilt_modules)
            args.float_tolerance = (args.float_tolerance or
                                    meta.get("float_tolerance"))
        except ValueError as e:
            return e2elib.fatal(str(e), report)
        entries = [e for e in entries if re.search(args.filter, e.name)]
    else:
        if not os.path.isdir(args.models_dir):
            return e2elib.fatal(f"no {args.models_dir}: export the models "
                                "first (--export)", report)
        entries = exportedEntries(args)
    if not entries:
        return e2elib.fatal("no model found" + (
            f" matching --filter '{args.filter}'" if args.filter else ""),
            report)

    workDir = tempfile.mkdtemp(prefix="kiln-models-")
    try:
        if not args.prebuilt_modules:
            outDir = args.save_modules or workDir
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                entries = list(pool.map(
                    lambda e: compileEntry(e, outDir, args), entries))
        if args.save_modules:
            harness.writeKit(args.save_modules,
                             {"target_device": args.target_device,
                              "cuda_target": args.cuda_target,
                              "float_tolerance": args.float_tolerance},
                             entries)
            for e in entries:
                report.result(e.module is not None, f"compile {e.name}",
                              e.reason or args.save_modules)
            return report.finish()
        for e in entries:
            check(e, workDir, args, report)
    finally:
        shutil.rmtree(workDir, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
