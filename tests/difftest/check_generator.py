#!/usr/bin/python3
"""Checks the generator itself, without Kiln: lowers generated programs with
upstream MLIR 22 (tests/e2e/check_refs_mlir.py's pipeline: tosa -> linalg ->
loops -> LLVM), calls each function with the program's inputs and compares
with the generator's reference under the same tolerances run_difftest.py
uses.

A failure here is a bug in gen.py (syntax, reference or tolerance), not in
Kiln. Run it after changing the generator:

  /usr/bin/python3 tests/difftest/check_generator.py --seed 1 --count 200
"""

import argparse
import concurrent.futures
import ctypes
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import cases  # noqa: E402
import check_refs_mlir  # noqa: E402  (buildLibrary, invoke)
import e2elib  # noqa: E402
import gen  # noqa: E402


ZERO_DIM_RE = re.compile(r"tensor<(0x|[0-9x]*x0x)")


def checkProgram(lib, program):
    """Returns (ok, detail)."""
    outs = [(o.shape, o.dtype) for o in program.outputs]
    try:
        got = check_refs_mlir.invoke(lib, program.name, program.inputs, outs)
    except (RuntimeError, AttributeError) as e:
        return False, f"call failed: {e}"
    worst = 0.0
    for k, o in enumerate(program.outputs):
        if got[k].shape != o.ref.shape:
            return False, (f"output {k}: shape {got[k].shape} vs reference "
                           f"{o.ref.shape}")
        ok, err, why = cases.compare(got[k], o.ref, o.scale, o.tol)
        worst = max(worst, err)
        if not ok:
            return False, f"output {k} ({o.tol}): {why}"
    return True, f"max_err={worst:.3g}"


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--only", default="",
                   help="comma-separated program indices to check instead")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    indices = ([int(x) for x in args.only.split(",") if x.strip()] or
               list(range(args.count)))
    programs = [gen.generate(args.seed, i) for i in indices]
    report = e2elib.Report()
    workDir = tempfile.mkdtemp(prefix="kiln-difftest-gen-")
    try:
        batches = [programs[i:i + args.batch_size]
                   for i in range(0, len(programs), args.batch_size)]

        def build(progs, stem):
            sub = os.path.join(workDir, stem)
            os.makedirs(sub)
            path = os.path.join(sub, f"{stem}.mlir")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(prog.text for prog in progs))
            return ctypes.CDLL(check_refs_mlir.buildLibrary(path, sub))

        def checkBatch(k):
            """[(program, lib or None, problem)]: a batch that does not lower
            is lowered one program at a time."""
            try:
                lib = build(batches[k], f"b{k}")
                return [(prog, lib, "") for prog in batches[k]]
            except (RuntimeError, OSError):
                pass
            out = []
            for prog in batches[k]:
                try:
                    out.append((prog, build([prog], prog.name), ""))
                except (RuntimeError, OSError) as e:
                    out.append((prog, None, str(e)))
            return out

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            done = list(pool.map(checkBatch, range(len(batches))))
        for prog, lib, problem in (x for batch in done for x in batch):
            if lib is None:
                # Upstream's own lowering folds some ops on empty tensors
                # into invalid slices; such a program is still valid input.
                if ZERO_DIM_RE.search(prog.text):
                    report.skip(prog.name, f"upstream cannot lower: {problem}")
                else:
                    report.result(False, prog.name,
                                  f"lowering failed: {problem}")
                continue
            ok, detail = checkProgram(lib, prog)
            if not ok:
                detail += f" ({'; '.join(prog.tags)})"
            report.result(ok, prog.name, detail)
    finally:
        shutil.rmtree(workDir, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
