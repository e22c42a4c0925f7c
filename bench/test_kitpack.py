#!/usr/bin/python3
"""Tests of bench/kitpack.py (numpy and the standard library):

  /usr/bin/python3 bench/test_kitpack.py
"""

import os
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kitpack  # noqa: E402


class KitPack(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.dir.name, "root")
        self.out = os.path.join(self.dir.name, "out")
        os.makedirs(os.path.join(self.root, "m"))
        rng = np.random.default_rng(7)
        weights = rng.standard_normal(40000).astype(np.float32).tobytes()
        # Two modules sharing their weights, a small executable file.
        self.files = {"m/a.kiln": b"A" * 100 + weights,
                      "m/b.kiln": b"B" * 100 + weights,
                      "tool": b"#!/bin/sh\n"}
        for path, data in self.files.items():
            with open(os.path.join(self.root, path), "wb") as f:
                f.write(data)
        os.chmod(os.path.join(self.root, "tool"), 0o755)

    def tearDown(self):
        self.dir.cleanup()

    def check_unpacked(self):
        written = kitpack.unpack(self.out)
        self.assertEqual(written, sorted(self.files))
        for path, data in self.files.items():
            with open(os.path.join(self.out, path), "rb") as f:
                self.assertEqual(f.read(), data)
        self.assertEqual(os.stat(os.path.join(self.out, "tool")).st_mode
                         & 0o777, 0o755)

    def test_round_trip_keeps_shared_blocks_once(self):
        size = kitpack.pack(self.root, sorted(self.files), self.out)
        self.assertLess(size, len(self.files["m/a.kiln"]) * 1.5)
        self.check_unpacked()

    def test_parts_join_when_all_are_there(self):
        size = kitpack.pack(self.root, sorted(self.files), self.out,
                            part_bytes=50000)
        parts = sorted(p for p in os.listdir(self.out)
                       if p.startswith("blocks.xz."))
        self.assertEqual(len(parts), -(-size // 50000))
        self.assertFalse(os.path.exists(os.path.join(self.out, "blocks.xz")))
        self.check_unpacked()

    def test_a_missing_part_is_named(self):
        kitpack.pack(self.root, sorted(self.files), self.out, part_bytes=50000)
        os.remove(os.path.join(self.out, "blocks.xz.2"))
        with self.assertRaisesRegex(ValueError, r"blocks\.xz\.2 is missing"):
            kitpack.unpack(self.out)

    def test_a_damaged_part_is_refused(self):
        kitpack.pack(self.root, sorted(self.files), self.out, part_bytes=50000)
        path = os.path.join(self.out, "blocks.xz.1")
        with open(path, "r+b") as f:
            f.seek(100)
            byte = f.read(1)
            f.seek(100)
            f.write(bytes([byte[0] ^ 1]))
        with self.assertRaisesRegex(ValueError, "differs from the part"):
            kitpack.unpack(self.out)


if __name__ == "__main__":
    unittest.main()
