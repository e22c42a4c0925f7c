#!/usr/bin/env python3
"""The e2e cases compiled for AMD GPUs, read by the runtime: each case is
compiled with kiln-compile --target-device=hip for each --chip (run_e2e.py
--save-modules) and every module goes through check-module-code-objects,
which reads the code objects as the hip and amdgpu drivers do and lays out
each entry point's kernel arguments. No AMD GPU is needed or used."""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_E2E = os.path.join(HERE, "..", "e2e", "run_e2e.py")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bin-dir", required=True, help="holds kiln-compile")
    p.add_argument("--checker", required=True,
                   help="the check-module-code-objects binary")
    p.add_argument("--chip", action="append", default=[],
                   help="--hip-target to compile for (repeatable)")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="kiln-hip-abi-") as work:
        for chip in args.chip or ["gfx942"]:
            out = os.path.join(work, chip)
            compiled = subprocess.run(
                [sys.executable, RUN_E2E, "--bin-dir", args.bin_dir,
                 "--target-device", "hip", "--hip-target", chip,
                 "--save-modules", out, "--jobs", str(args.jobs)])
            modules = sorted(glob.glob(os.path.join(out, "*.kiln")))
            if compiled.returncode != 0 or not modules:
                print(f"FAIL compile e2e cases for {chip}")
                failed = True
                continue
            checked = subprocess.run([args.checker, *modules],
                                     capture_output=True, text=True)
            lines = checked.stdout.strip().splitlines()
            status = "PASS" if checked.returncode == 0 else "FAIL"
            print(f"{status} {chip}: {lines[-1] if lines else 'no output'}")
            for line in lines[:-1]:
                print(f"  {line}")
            failed |= checked.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
