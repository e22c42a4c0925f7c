#!/usr/bin/python3
"""Exports the test models to ONNX with their input and a float64 reference
output, for tests/models/run_models.py and bench/onnx_bench.py.

  /usr/bin/python3 tests/models/export_models.py --out build/onnx-models \\
      [--models mobilenetv2,resnet50,encoder] [--opsets 13,17]

Writes OUT/<model>_opset<N>/model.onnx, input.npy (float32) and
expected.npy (float32: the model run in float64 on the same input, then
rounded); with --torch-files (for bench/onnx_bench.py) also
OUT/<model>/state.pt (the state dict) and traced.pt (TorchScript, for a
machine without torchvision).

The models (Debian's python3-torch 1.13 and python3-torchvision 0.14):
  mobilenetv2  torchvision.models.mobilenet_v2, 1x3x224x224
  resnet50     torchvision.models.resnet50, 1x3x224x224
  encoder      torch.nn.TransformerEncoder: 2 layers, d_model 64, 4 heads,
               feed-forward 128, GELU, batch_first, input 1x16x64
Weights are seeded random (torch's default initialization). Batch norms get
random affine parameters and running statistics measured on random batches
in training mode, then perturbed, so the folded scale and shift are neither
1 and 0 nor exactly the batch's statistics, and activations keep their
magnitude through fifty layers. Everything is seeded: the same torch
version writes the same files.

Each model's float32 PyTorch output is checked against the float64 one with
the suite's tolerance (|a - b| <= 1e-5 max|ref| + 1e-4 |ref|) as a sanity
check of the reference; a model whose float32 run misses it is an error.
"""

import argparse
import copy
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "onnx"))
import onnxharness as harness  # noqa: E402

SEED = 20261123
MODELS = ("mobilenetv2", "resnet50", "encoder")
OPSETS = (13, 17)


def log(message):
    print(message, file=sys.stderr, flush=True)


def randomizeBatchNorms(model, inputShape, generator):
    """Random affine parameters and running statistics measured on random
    inputs (cumulative averages over a few batches in training mode), then
    moved off the measured values."""
    norms = [m for m in model.modules()
             if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    with torch.no_grad():
        for bn in norms:
            bn.weight.uniform_(0.5, 1.5, generator=generator)
            bn.bias.normal_(0.0, 0.25, generator=generator)
            bn.reset_running_stats()
            bn.momentum = None  # a cumulative average over the batches
        model.train()
        for _ in range(3):
            model(torch.randn((2, *inputShape[1:]), generator=generator))
        for bn in norms:
            bn.momentum = 0.1
            std = bn.running_var.sqrt()
            bn.running_mean.add_(0.1 * std * torch.randn(
                bn.running_mean.shape, generator=generator))
            bn.running_var.mul_(torch.empty(bn.running_var.shape).uniform_(
                0.75, 1.33, generator=generator))


def build(name):
    """(model in eval mode, input shape)."""
    import torchvision
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED + 1)
    if name == "mobilenetv2":
        model, shape = torchvision.models.mobilenet_v2(), (1, 3, 224, 224)
    elif name == "resnet50":
        model, shape = torchvision.models.resnet50(), (1, 3, 224, 224)
    elif name == "encoder":
        layer = torch.nn.TransformerEncoderLayer(
            d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
            activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=2,
                                            enable_nested_tensor=False)
        shape = (1, 16, 64)
    else:
        raise ValueError(f"unknown model {name}")
    randomizeBatchNorms(model, shape, generator)
    return model.eval(), shape


def makeInput(name, shape):
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    return rng.standard_normal(shape).astype(np.float32)


def references(model, x):
    """(float64 output rounded to float32, float32 output)."""
    with torch.no_grad():
        wide = copy.deepcopy(model).double()(torch.from_numpy(x).double())
        narrow = model(torch.from_numpy(x))
    return (wide.numpy().astype(np.float32), narrow.numpy())


def export(model, x, path, opset):
    import onnx
    torch.onnx.export(model, (torch.from_numpy(x),), path,
                      opset_version=opset, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--models", default=",".join(MODELS),
                   help=f"comma-separated subset of {','.join(MODELS)}")
    p.add_argument("--opsets", default=",".join(map(str, OPSETS)),
                   help="comma-separated ONNX opsets to export (default "
                   "13,17)")
    p.add_argument("--torch-files", action="store_true",
                   help="also write OUT/<model>/state.pt and traced.pt")
    args = p.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        p.error(f"unknown model(s): {', '.join(unknown)}")
    opsets = [int(o) for o in args.opsets.split(",") if o]
    # One thread: OpenMP workers spin, and under ctest -j beside other
    # suites a busy machine made the export ten times slower.
    torch.set_num_threads(1)

    failed = []
    for name in names:
        start = time.monotonic()
        model, shape = build(name)
        x = makeInput(name, shape)
        expected, narrow = references(model, x)
        ok, err, detail = harness.checkOutput(narrow, expected,
                                              scaleByMax=True)
        log(f"{name}: torch float32 vs float64: max |diff| {err:.2e}, "
            f"max |ref| {np.abs(expected).max():.3g}" +
            ("" if ok else f": OUTSIDE the tolerance: {detail}"))
        if not ok:
            failed.append(name)
        if args.torch_files:
            weights = os.path.join(args.out, name)
            os.makedirs(weights, exist_ok=True)
            torch.save(model.state_dict(), os.path.join(weights, "state.pt"))
            with torch.no_grad():
                torch.jit.trace(model, torch.from_numpy(x)).save(
                    os.path.join(weights, "traced.pt"))
        for opset in opsets:
            out = os.path.join(args.out, f"{name}_opset{opset}")
            os.makedirs(out, exist_ok=True)
            export(model, x, os.path.join(out, "model.onnx"), opset)
            np.save(os.path.join(out, "input.npy"), x)
            np.save(os.path.join(out, "expected.npy"), expected)
        log(f"{name}: exported opsets {','.join(map(str, opsets))} to "
            f"{args.out} in {time.monotonic() - start:.1f}s")
    if failed:
        log(f"error: float32 PyTorch misses the tolerance on {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
