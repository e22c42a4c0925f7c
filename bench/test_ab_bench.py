#!/usr/bin/python3
"""Tests of bench/ab_bench.py on the CPU (local-sync): two tiny modules
timed in turn, the rounds alternating their order, the table's medians
those of the rounds.

  /usr/bin/python3 bench/test_ab_bench.py --bin-dir build/bin
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BIN_DIR = "build/bin"

# OP: addf or mulf.
MODULE = """
func.func @main(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = arith.OP %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}
"""


class AbBench(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.modules = []
        for op in ("addf", "mulf"):
            source = os.path.join(cls.dir.name, f"{op}.mlir")
            with open(source, "w") as f:
                f.write(MODULE.replace("OP", op))
            module = os.path.join(cls.dir.name, f"{op}.kiln")
            subprocess.run([os.path.join(BIN_DIR, "kiln-compile"), source,
                            "--target-device=cpu", "-o", module], check=True)
            cls.modules.append((op, module))

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def run_bench(self, *extra):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "ab_bench.py"),
             f"--bin-dir={BIN_DIR}", "--device=local-sync", *extra],
            capture_output=True, text=True)

    def test_rounds_alternate_and_medians_are_the_rounds(self):
        result = self.run_bench(
            "--input=64xf32=0.5", "--rounds=3", "--reps=5", "--warmup=1",
            *[f"{name}={path}" for name, path in self.modules])
        self.assertEqual(result.returncode, 0, result.stderr)
        order = re.findall(r"^round (\d+): (\w+) ", result.stderr, re.M)
        self.assertEqual(order, [("1", "addf"), ("1", "mulf"),
                                 ("2", "mulf"), ("2", "addf"),
                                 ("3", "addf"), ("3", "mulf")])
        rows = [line for line in result.stdout.splitlines()
                if line.startswith("| addf") or line.startswith("| mulf")]
        self.assertEqual(len(rows), 2, result.stdout)
        for row in rows:
            cells = [c.strip() for c in row.strip("|").split("|")]
            rounds = [float(c) for c in cells[1:4]]
            self.assertTrue(all(r > 0 for r in rounds), row)
            self.assertAlmostEqual(float(cells[4]),
                                   statistics.median(rounds), places=4)

    def test_random_input_is_written_and_used(self):
        result = self.run_bench(
            "--random-input=64xf32", "--rounds=1", "--reps=2",
            "--warmup=1", *[f"{name}={path}" for name, path in self.modules])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("--input=@", result.stderr)

    def test_one_module_is_refused(self):
        result = self.run_bench("--input=64xf32=0.5",
                                f"only={self.modules[0][1]}")
        self.assertEqual(result.returncode, 2)
        self.assertIn("at least two modules", result.stderr)

    def test_unknown_random_dtype_is_refused(self):
        result = self.run_bench("--random-input=64xi8",
                                *[p for _, p in self.modules])
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("is not f16 or f32", result.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default=BIN_DIR)
    args, rest = parser.parse_known_args()
    BIN_DIR = args.bin_dir
    unittest.main(argv=[sys.argv[0], *rest])
