#!/usr/bin/python3
"""Checks the e2e manifest itself, without Kiln: lowers every case file with
upstream MLIR 22 (mlir-opt: tosa -> linalg -> loops -> LLVM; llc; ld.lld),
calls each function through its C interface with the manifest's inputs, and
compares with the numpy reference under the same tolerances run_e2e.py uses.

A failure here is a bug in a case (MLIR, reference or tolerance), not in
Kiln. Run it after editing cases/ or cases.py:

  /usr/bin/python3 tests/e2e/check_refs_mlir.py [--filter softmax] [--jobs 2]
"""

import argparse
import concurrent.futures
import ctypes
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as manifest  # noqa: E402
import e2elib  # noqa: E402

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"

TOSA_TO_LINALG = ("builtin.module(func.func(tosa-to-scf,tosa-to-linalg-named,"
                  "tosa-to-linalg,tosa-to-arith,tosa-to-tensor))")
TO_LLVM = ("builtin.module(func.func(llvm-request-c-wrappers),"
           "one-shot-bufferize{allow-return-allocs-from-loops "
           "bufferize-function-boundaries "
           "function-boundary-type-conversion=identity-layout-map},"
           "func.func(convert-linalg-to-loops),expand-strided-metadata,"
           "lower-affine,convert-scf-to-cf,"
           # libm has no rsqrtf: 1 / sqrt(x) instead.
           "func.func(math-expand-ops{ops=rsqrt}),convert-math-to-libm,"
           "convert-math-to-llvm,arith-expand,convert-arith-to-llvm,"
           "finalize-memref-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,"
           "convert-index-to-llvm,reconcile-unrealized-casts)")
# linalg.softmax is not a structured op: decompose it before bufferizing.
DECOMPOSE_SOFTMAX = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %s = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose_interface %s
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
"""


def buildLibrary(mlirPath: str, workDir: str) -> str:
    """Lowers one MLIR file to a shared library; raises RuntimeError."""
    stem = os.path.splitext(os.path.basename(mlirPath))[0]
    td = os.path.join(workDir, "decompose.mlir")
    if not os.path.exists(td):
        with open(td, "w") as f:
            f.write(DECOMPOSE_SOFTMAX)
    steps = [
        [f"{LLVM_BIN}/mlir-opt", mlirPath, f"--pass-pipeline={TOSA_TO_LINALG}",
         "-o", f"{stem}.1.mlir"],
        [f"{LLVM_BIN}/mlir-opt", f"{stem}.1.mlir",
         f"--transform-preload-library=transform-library-paths={td}",
         "--transform-interpreter", "-o", f"{stem}.2.mlir"],
        [f"{LLVM_BIN}/mlir-opt", f"{stem}.2.mlir", f"--pass-pipeline={TO_LLVM}",
         "-o", f"{stem}.3.mlir"],
        [f"{LLVM_BIN}/mlir-translate", "--mlir-to-llvmir", f"{stem}.3.mlir",
         "-o", f"{stem}.ll"],
        [f"{LLVM_BIN}/llc", "-O2", "-filetype=obj", "-relocation-model=pic",
         f"{stem}.ll", "-o", f"{stem}.o"],
        # libgcc_s provides the f16 <-> f32 conversions llc may call;
        # mlir_c_runner_utils the memrefCopy of strided memrefs.
        [f"{LLVM_BIN}/ld.lld", "-shared", f"{stem}.o", "-o", f"lib{stem}.so",
         "-L/lib/x86_64-linux-gnu", "-L/usr/lib/x86_64-linux-gnu",
         f"-L{LLVM_LIB}", f"-rpath={LLVM_LIB}", "-lmlir_c_runner_utils",
         "-lm", "-lc", "/lib/x86_64-linux-gnu/libgcc_s.so.1"],
    ]
    for argv in steps:
        r = e2elib.runTool(argv, 600, cwd=workDir)
        if r.problem or r.rc != 0:
            raise RuntimeError(f"{os.path.basename(argv[0])}: {r.describe()}")
    return os.path.join(workDir, f"lib{stem}.so")


def _descriptorWords(rank: int) -> int:
    return 3 + 2 * rank


def invoke(lib, function: str, inputs, outs):
    """Calls _mlir_ciface_<function>(results*, descriptor* per input)."""
    keep = []
    args = []
    for a in inputs:
        a = np.ascontiguousarray(a)
        keep.append(a)
        words = [a.ctypes.data, a.ctypes.data, 0]
        words += list(a.shape)
        words += [s // a.itemsize for s in a.strides]
        desc = (ctypes.c_int64 * len(words))(*words)
        keep.append(desc)
        args.append(ctypes.byref(desc))
    total = sum(_descriptorWords(len(shape)) for shape, _ in outs)
    result = (ctypes.c_int64 * total)()
    fn = getattr(lib, f"_mlir_ciface_{function}")
    fn.restype = None
    fn(ctypes.byref(result), *args)
    arrays, pos = [], 0
    for shape, dtype in outs:
        rank = len(shape)
        words = list(result[pos:pos + _descriptorWords(rank)])
        pos += _descriptorWords(rank)
        npType = np.dtype(manifest.NUMPY_DTYPES[dtype])
        aligned, offset = words[1], words[2]
        sizes, strides = words[3:3 + rank], words[3 + rank:3 + 2 * rank]
        if tuple(sizes) != tuple(shape):
            raise RuntimeError(f"result sizes {sizes}, want {shape}")
        span = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
        buf = (ctypes.c_char * (span * npType.itemsize)).from_address(
            aligned + offset * npType.itemsize)
        flat = np.frombuffer(buf, dtype=npType, count=span)
        view = np.lib.stride_tricks.as_strided(
            flat, shape=sizes, strides=[st * npType.itemsize for st in strides])
        arrays.append(np.array(view))
    return arrays


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--filter", default="")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()

    report = e2elib.Report()
    selected = [c for c in manifest.CASES if args.filter in c.name]
    if not selected:
        return e2elib.fatal(f"no case matches --filter '{args.filter}'", report)
    missing = [t for t in ("mlir-opt", "mlir-translate", "llc", "ld.lld")
               if not os.access(os.path.join(LLVM_BIN, t), os.X_OK)]
    if missing:
        return e2elib.fatal(f"missing LLVM 22 tools in {LLVM_BIN}: "
                            f"{', '.join(missing)}", report, len(selected))
    workDir = tempfile.mkdtemp(prefix="kiln-e2e-refs-")
    try:
        files = sorted({c.file for c in selected})
        libs, errors = {}, {}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = {pool.submit(buildLibrary, os.path.join(CASES_DIR, f),
                                   workDir): f for f in files}
            for fut in concurrent.futures.as_completed(futures):
                f = futures[fut]
                try:
                    libs[f] = ctypes.CDLL(fut.result())
                except (RuntimeError, OSError) as e:
                    errors[f] = str(e)
        for c in selected:
            if c.file in errors:
                report.result(False, c.name, errors[c.file])
                continue
            sig = e2elib.parseSignatures(os.path.join(CASES_DIR, c.file))
            if c.function not in sig:
                report.result(False, c.name, f"no @{c.function} in {c.file}")
                continue
            ins, outs = sig[c.function]
            if not e2elib.typesMatch([(i.shape, i.dtype) for i in c.inputs],
                                     ins):
                report.result(False, c.name, "manifest inputs differ from "
                              "the signature")
                continue
            inputs = manifest.makeInputs(c)
            refs = manifest.reference(c, inputs)
            scales = manifest.scales(c, inputs, refs)
            tols = c.tolerances(len(outs))
            outs = e2elib.concreteOutputs(outs, refs)
            got = invoke(libs[c.file], c.function, inputs, outs)
            ok, worst, detail = True, 0.0, ""
            for k in range(len(outs)):
                if got[k].shape != refs[k].shape:
                    ok, detail = False, (f"output {k}: shape {got[k].shape} "
                                         f"vs reference {refs[k].shape}")
                    break
                good, err, why = manifest.compare(got[k], refs[k], scales[k],
                                                  tols[k])
                worst = max(worst, err)
                if not good:
                    ok, detail = False, f"output {k}: {why}"
                    break
            report.result(ok, c.name, detail or f"max_err={worst:.3g}")
    finally:
        shutil.rmtree(workDir, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
