#!/usr/bin/python3
"""Tests of the emulated references (tests/models/emulate.py) and of the
budget they set in onnxharness.checkOutput:

  /usr/bin/python3 tests/models/test_emulate.py
"""

import os
import sys
import unittest

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "onnx"))
import emulate  # noqa: E402
import onnxharness as harness  # noqa: E402


class Rounding(unittest.TestCase):
    def test_tf32_keeps_ten_fraction_bits_ties_away(self):
        x = torch.tensor([1 + 2**-10, 1 + 2**-11, 1 + 2**-12, -(1 + 2**-11),
                          float("inf")], dtype=torch.float64)
        got = emulate.rounded(x, "tf32").tolist()
        self.assertEqual(got, [1 + 2**-10, 1 + 2**-10, 1.0, -(1 + 2**-10),
                               float("inf")])

    def test_half_types(self):
        x = torch.tensor([1 + 2**-12, 1 + 2**-9], dtype=torch.float64)
        self.assertEqual(emulate.rounded(x, "f16").tolist(), [1.0, 1 + 2**-9])
        self.assertEqual(emulate.rounded(x, "bf16").tolist(), [1.0, 1.0])


class Reference(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(3)
        self.model = torch.nn.Sequential(
            torch.nn.Linear(8, 16), torch.nn.ReLU(),
            torch.nn.Linear(16, 4)).eval()
        self.x = np.random.default_rng(3).standard_normal(
            (2, 8)).astype(np.float32)

    def manual(self, operand, output):
        """The model in float64 with `operand` applied to both operands of
        each layer and `output` to every value computed."""
        h = torch.from_numpy(self.x.astype(np.float64))
        for m in self.model:
            if isinstance(m, torch.nn.Linear):
                w = operand(m.weight.detach().double())
                h = output(operand(h) @ w.T + m.bias.detach().double())
            else:
                h = output(m(h))
        return h.numpy()

    def test_precision_rounds_operands_only(self):
        same = lambda t: t
        for mode in ("f16", "bf16", "tf32"):
            want = self.manual(lambda t, m=mode: emulate.rounded(t, m), same)
            got = emulate.reference(self.model, self.x, mode)
            np.testing.assert_array_equal(got, want)
            # The rounding is there: float64 alone differs.
            self.assertFalse(np.array_equal(got, self.manual(same, same)))

    def test_storage_rounds_every_value(self):
        half = lambda t: emulate.rounded(t, "f16")
        with torch.no_grad():
            for p in self.model.parameters():
                p.copy_(p.half().float())
        self.x = self.x.astype(np.float16).astype(np.float32)
        got = emulate.reference(self.model, self.x, "storage-f16")
        np.testing.assert_array_equal(got, self.manual(lambda t: t, half))

    def test_opaque_attention_is_refused(self):
        model = torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                             batch_first=True), 1,
            enable_nested_tensor=False).eval()
        with self.assertRaises(emulate.Unsupported):
            emulate.reference(model, np.ones((1, 3, 8), np.float32), "f16")


class Budget(unittest.TestCase):
    """checkOutput with an emulated reference: f16's tolerance is
    2.5e-3 * max|ref| + 1e-3 * |ref|, here 2.5e-3 + 1e-3 = 3.5e-3 at ref 1."""

    ref = np.ones(4, np.float32)

    def check(self, gotError, emulatedError):
        got = self.ref + np.float32(gotError)
        emulated = (None if emulatedError is None else
                    self.ref.astype(np.float64) + emulatedError)
        return harness.checkOutput(got, self.ref, scaleByMax=True,
                                   floatTolerance="f16", emulated=emulated)

    def test_within_the_tolerance_needs_no_budget(self):
        ok, _, detail = self.check(3e-3, None)
        self.assertTrue(ok)
        self.assertEqual(detail, "")

    def test_outside_without_an_emulation_fails(self):
        self.assertFalse(self.check(7e-3, None)[0])

    def test_within_twice_the_emulations_excess_passes(self):
        ok, _, detail = self.check(1.2e-2, 7e-3)  # 3.4x against 2x
        self.assertTrue(ok)
        self.assertIn("within the f16 budget", detail)

    def test_beyond_twice_the_emulations_excess_fails(self):
        ok, _, detail = self.check(1.6e-2, 7e-3)  # 4.6x against 2x
        self.assertFalse(ok)
        self.assertIn("emulated in float64", detail)

    def test_an_emulation_within_the_tolerance_grants_nothing(self):
        self.assertFalse(self.check(5e-3, 3e-3)[0])

    def test_nan_fails_whatever_the_budget(self):
        got = self.ref.copy()
        got[1] = np.nan
        ok, _, _ = harness.checkOutput(got, self.ref, True, "f16",
                                       self.ref + 1.0)
        self.assertFalse(ok)


if __name__ == "__main__":
    unittest.main()
