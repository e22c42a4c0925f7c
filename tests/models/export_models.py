#!/usr/bin/python3
"""Exports the test models to ONNX with their input and a float64 reference
output, for tests/models/run_models.py, bench/onnx_bench.py and
bench/model_bench.py.

  /usr/bin/python3 tests/models/export_models.py --out build/onnx-models \\
      [--models mobilenetv2,resnet50,encoder] [--opsets 13,17] \\
      [--no-emulated]

Writes OUT/<model>_opset<N>/model.onnx, input.npy and expected.npy (the
model run in float64 on the same input, then rounded to the output's
type); with --torch-files (for the benchmarks) also OUT/<architecture>/
state.pt (the state dict, shared by an architecture's variants) and, for
the batch-1 float32 models, OUT/<model>/traced.pt (TorchScript, for a
machine without torchvision); --torch-files=state writes the state dicts
alone.

The architectures (Debian's python3-torch 1.13 and python3-torchvision
0.14):
  mobilenetv2  torchvision.models.mobilenet_v2, 1x3x224x224
  resnet50     torchvision.models.resnet50, 1x3x224x224
  encoder      torch.nn.TransformerEncoder: 2 layers, d_model 64, 4 heads,
               feed-forward 128, GELU, batch_first, input 1x16x64
  swin_t       torchvision.models.swin_t, 1x3x224x224 (shifted windows: Pad
               with pads from Mod over Shape, Roll as Slice and Concat,
               relative position biases gathered from a table)
  vit, gpt, bert  the transformers of tests/models/transformer_models.py
               (plain torch.nn): a 6-layer ViT on 1x3x224x224, a 4-layer
               GPT-2-style decoder on 1x128 int64 token ids, a 4-layer
               BERT-style encoder on 1x64x256 float embeddings
Weights are seeded random (torch's default initialization). Batch norms get
random affine parameters and running statistics measured on random batches
in training mode, then perturbed, so the folded scale and shift are neither
1 and 0 nor exactly the batch's statistics, and activations keep their
magnitude through fifty layers. Everything is seeded: the same torch
version writes the same files.

A model is an architecture with optional suffixes, `<architecture>[_b<N>]
[_f16]` (resnet50_b32_f16, vit_f16, mobilenetv2_b32):
  _b<N>  batch N instead of 1 (the same weights; the input's first N rows,
         where a longer input holds the shorter one's first rows)
  _f16   the model in float16: weights, float inputs and outputs (token ids
         stay int64). Batch norms are first folded into their convolutions
         (torch.fx), then every parameter is rounded to float16, so the
         exported float32 graph holds float16 values; tests/models/
         onnx_f16.py converts it. The reference is that rounded model in
         float64 on the input rounded to float16, itself rounded to
         float16 (the f16 tolerance: 2.5e-3 max|ref| + 1e-3 |ref|).
Without --models only mobilenetv2, resnet50 and encoder are exported (the
ctest suite onnx_models_local).

Each model also gets emulated references (tests/models/emulate.py), the
budget of a half-precision run whose own roundings miss the tolerance:
emulated-storage-f16.npy for an _f16 model (every node's output rounded
to f16), and emulated-f16.npy, -bf16.npy and -tf32.npy for a float32 one
(--precision=P: matmul and convolution operands rounded to P). A model
fx cannot trace faithfully (the encoder's nn.MultiheadAttention) gets
none and is held to the tolerance alone. --no-emulated skips them (a model
checked in float32 only).

Each model's float32 PyTorch output is checked against the float64 one with
the suite's fp32 tolerance (|a - b| <= 1e-5 max|ref| + 1e-4 |ref|) as a
sanity check of the reference; a model whose float32 run misses it is an
error (for _f16 models, the rounded model in float32 on the rounded input).
"""

import argparse
import copy
import os
import re
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "onnx"))
import onnxharness as harness  # noqa: E402
import emulate  # noqa: E402
import transformer_models  # noqa: E402

SEED = 20261123
# More torchvision classifiers, each at its default configuration with
# random weights (bench/model_bench.py's zoo rows): channel shuffles,
# concatenations, squeeze-and-excitation, grouped convolutions.
ZOO = ("shufflenet_v2_x1_0", "googlenet", "densenet121", "efficientnet_b0",
       "mobilenet_v3_large", "regnet_y_400mf", "mnasnet1_0", "squeezenet1_1",
       "convnext_tiny")
# Classifiers bench/model_bench.py times against torch.compile on request
# (its MORE_ROWS), exported as the zoo's; not in ctest's zoo test.
MORE = ("resnet18", "resnet34", "mobilenet_v3_small", "regnet_x_400mf")
ARCHITECTURES = ("mobilenetv2", "resnet50", "encoder", "swin_t",
                 *transformer_models.NAMES, *ZOO, *MORE)
# What is exported without --models (ctest onnx_models_local).
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


def parseModel(name):
    """(architecture, batch, "f32" or "f16") of `<architecture>[_b<N>]
    [_f16]`; ValueError for anything else."""
    match = re.fullmatch(r"([a-z0-9_]+?)(?:_b([1-9][0-9]*))?(_f16)?", name)
    if not match or match.group(1) not in ARCHITECTURES:
        raise ValueError(f"unknown model {name}")
    return (match.group(1), int(match.group(2) or 1),
            "f16" if match.group(3) else "f32")


def build(name):
    """(model in eval mode, batch-1 input shape, input kind: "tokens" for
    int64 token ids, else a float tensor) of an architecture."""
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED + 1)
    if name in transformer_models.NAMES:
        return transformer_models.build(name, generator)
    import torchvision
    if name == "mobilenetv2":
        model, shape = torchvision.models.mobilenet_v2(), (1, 3, 224, 224)
    elif name == "resnet50":
        model, shape = torchvision.models.resnet50(), (1, 3, 224, 224)
    elif name == "swin_t":
        model, shape = torchvision.models.swin_t(), (1, 3, 224, 224)
    elif name == "googlenet":
        # Without the training-only auxiliary classifiers.
        model = torchvision.models.googlenet(aux_logits=False,
                                             init_weights=True)
        shape = (1, 3, 224, 224)
    elif name in ZOO or name in MORE:
        model, shape = getattr(torchvision.models, name)(), (1, 3, 224, 224)
        if name == "convnext_tiny":
            # Layer scales start at 1e-6, which leaves every block's
            # branch out of the output; give them weight so a wrong branch
            # shows.
            with torch.no_grad():
                for param_name, param in model.named_parameters():
                    if param_name.endswith("layer_scale"):
                        param.uniform_(0.1, 0.5, generator=generator)
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
    return model.eval(), shape, "image"


def makeInput(name, shape, kind):
    """The seeded input of architecture `name`: a float32 standard normal
    tensor, or int64 token ids below the vocabulary's size."""
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    if kind == "tokens":
        vocab = transformer_models.CONFIGS[name][0]["vocab"]
        return rng.integers(0, vocab, shape, dtype=np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def roundedToHalf(model):
    """The model with its batch norms folded into the convolutions before
    them (so no exporter folds them again in float32) and every floating
    parameter and buffer rounded to float16, kept in float32."""
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
           for m in model.modules()):
        from torch.fx.experimental.optimization import fuse
        model = fuse(model)
    else:
        model = copy.deepcopy(model)
    with torch.no_grad():
        for tensor in (*model.parameters(), *model.buffers()):
            if tensor.is_floating_point():
                tensor.copy_(tensor.half().float())
    return model.eval()


def variant(model, x, dtype):
    """(model, input) of one variant: as they are for f32; for f16 the
    rounded model and the input rounded to float16 (a float32 copy of it
    goes to the exporter)."""
    if dtype == "f32":
        return model, x
    return roundedToHalf(model), (
        x.astype(np.float16) if x.dtype == np.float32 else x)


def references(model, x):
    """(float64 output, float32 output)."""
    wideInput = torch.from_numpy(
        x.astype(np.float64) if x.dtype.kind == "f" else x)
    narrowInput = torch.from_numpy(
        x.astype(np.float32) if x.dtype.kind == "f" else x)
    with torch.no_grad():
        wide = copy.deepcopy(model).double()(wideInput)
        narrow = model(narrowInput)
    return wide.numpy(), narrow.numpy()


def emulatedReferences(name, model, x, dtype):
    """{mode: float64 output} of the emulated references the model's
    variant is judged by (module docstring); none where it cannot be
    emulated faithfully."""
    modes = ("storage-f16",) if dtype == "f16" else ("f16", "bf16", "tf32")
    try:
        return {mode: emulate.reference(model, x, mode) for mode in modes}
    except emulate.Unsupported as e:
        log(f"{name}: no emulated references: {e}")
        return {}


def export(model, x, path, opset, dtype):
    """Exports the model on x; for dtype f16 through a float32 copy of a
    float16 input, the graph then converted by onnx_f16."""
    import onnx
    half = dtype == "f16"
    torch.onnx.export(model, (torch.from_numpy(
        x.astype(np.float32) if x.dtype == np.float16 else x),), path,
        opset_version=opset, input_names=["input"],
        output_names=["output"], do_constant_folding=True)
    if half:
        import onnx_f16
        onnx.save(onnx_f16.to_float16(onnx.load(path)), path)
    onnx.checker.check_model(onnx.load(path))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--models", default=",".join(MODELS),
                   help="comma-separated models: architectures of "
                   f"{','.join(ARCHITECTURES)}, each with optional _b<N> "
                   f"and _f16 suffixes (default {','.join(MODELS)})")
    p.add_argument("--opsets", default=",".join(map(str, OPSETS)),
                   help="comma-separated ONNX opsets to export (default "
                   "13,17)")
    p.add_argument("--torch-files", nargs="?", const="all",
                   choices=("all", "state"),
                   help="also write OUT/<architecture>/state.pt and (not "
                   "with =state) the batch-1 float32 models' "
                   "OUT/<model>/traced.pt")
    p.add_argument("--no-emulated", dest="emulated", action="store_false",
                   help="write no emulated references (emulated-*.npy)")
    args = p.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = []
    for n in names:
        try:
            parseModel(n)
        except ValueError:
            unknown.append(n)
    if unknown:
        p.error(f"unknown model(s): {', '.join(unknown)}")
    opsets = [int(o) for o in args.opsets.split(",") if o]
    # One thread: OpenMP workers spin, and under ctest -j beside other
    # suites a busy machine made the export ten times slower.
    torch.set_num_threads(1)

    failed = []
    built = {}  # architecture -> (model, batch-1 shape, input kind)
    for name in names:
        start = time.monotonic()
        arch, batch, dtype = parseModel(name)
        if arch not in built:
            built[arch] = build(arch)
            if args.torch_files:
                weights = os.path.join(args.out, arch)
                os.makedirs(weights, exist_ok=True)
                torch.save(built[arch][0].state_dict(),
                           os.path.join(weights, "state.pt"))
        base, shape, kind = built[arch]
        model, x = variant(base, makeInput(arch, (batch, *shape[1:]), kind),
                           dtype)
        wide, narrow = references(model, x)
        ok, err, detail = harness.checkOutput(
            narrow, wide.astype(np.float32), scaleByMax=True)
        expected = wide.astype(np.float16 if dtype == "f16" else np.float32)
        log(f"{name}: torch float32 vs float64: max |diff| {err:.2e}, "
            f"max |ref| {np.abs(expected).max():.3g}" +
            ("" if ok else f": OUTSIDE the tolerance: {detail}"))
        if not ok:
            failed.append(name)
        if args.torch_files == "all" and name == arch:
            traced = os.path.join(args.out, name)
            os.makedirs(traced, exist_ok=True)
            with torch.no_grad():
                torch.jit.trace(model, torch.from_numpy(x)).save(
                    os.path.join(traced, "traced.pt"))
        emulated = (emulatedReferences(name, model, x, dtype)
                    if args.emulated else {})
        for opset in opsets:
            out = os.path.join(args.out, f"{name}_opset{opset}")
            os.makedirs(out, exist_ok=True)
            export(model, x, os.path.join(out, "model.onnx"), opset, dtype)
            np.save(os.path.join(out, "input.npy"), x)
            np.save(os.path.join(out, "expected.npy"), expected)
            for mode, reference in emulated.items():
                np.save(os.path.join(out, f"emulated-{mode}.npy"), reference)
        log(f"{name}: exported opsets {','.join(map(str, opsets))} to "
            f"{args.out} in {time.monotonic() - start:.1f}s")
    if failed:
        log(f"error: float32 PyTorch misses the tolerance on {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
