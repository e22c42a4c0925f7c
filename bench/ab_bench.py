#!/usr/bin/env python3
"""Two or more builds of one model timed in turn in the same session, to see
what a compiler change moved: each round calls kiln-benchmark-module once
per module (device clock, median of --reps calls after its warm-up), and
the rounds alternate the modules so that a drift of the GPU's clocks falls
on all of them alike. Prints a markdown table of each round's medians and
their median; numbers are printed, never asserted.

  python3 bench/ab_bench.py --bin-dir BIN --input @x.npy \\
      old=resnet50_old.kiln new=resnet50_new.kiln

A module is NAME=PATH (or a path, named by its file). --input takes what
kiln-benchmark-module's --input does (a tensor string or @file.npy);
--random-input SHAPExDTYPE writes a seeded random .npy first (normal
values, the GPU's kernels do not care which).
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_gpu_bench  # noqa: E402


def random_input(spec, directory):
    import numpy as np
    *dims, dtype = spec.split("x")
    dtypes = {"f16": np.float16, "f32": np.float32}
    if dtype not in dtypes:
        raise SystemExit(f"--random-input: dtype {dtype} is not f16 or f32")
    values = np.random.default_rng(0).standard_normal(
        [int(d) for d in dims]).astype(dtypes[dtype])
    path = os.path.join(directory, f"random_{len(os.listdir(directory))}.npy")
    np.save(path, values)
    return "@" + path


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="+", help="NAME=PATH or PATH")
    parser.add_argument("--bin-dir", default="build/bin")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--random-input", action="append", default=[],
                        metavar="SHAPExDTYPE")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    if len(args.modules) < 2:
        parser.error("give at least two modules")
    inputs = list(args.input)
    scratch = tempfile.mkdtemp(prefix="kiln-ab-")
    inputs += [random_input(spec, scratch) for spec in args.random_input]
    named = []
    for item in args.modules:
        name, _, path = item.rpartition("=")
        named.append((name or os.path.basename(path), path))
    # run_kiln joins modules_dir with the module's path.
    args.modules_dir = ""
    medians = {name: [] for name, _ in named}
    for round_index in range(args.rounds):
        order = named if round_index % 2 == 0 else list(reversed(named))
        for name, path in order:
            report = run_gpu_bench.run_kiln(args, path, None, inputs,
                                            args.reps)
            times, clock = run_gpu_bench.timed(report)
            medians[name].append(times["median"])
            print(f"round {round_index + 1}: {name} {times['median'] * 1e3:.4f}"
                  f" ms ({clock} clock)", file=sys.stderr, flush=True)
    print("| module | " + " | ".join(
        f"round {i + 1} (ms)" for i in range(args.rounds)) + " | median |")
    print("| --- |" + " ---: |" * (args.rounds + 1))
    for name, values in medians.items():
        print(f"| {name} | " + " | ".join(f"{v * 1e3:.4f}" for v in values) +
              f" | {statistics.median(values) * 1e3:.4f} |")


if __name__ == "__main__":
    main()
