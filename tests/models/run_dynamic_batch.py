#!/usr/bin/python3
"""Convolutional networks exported to ONNX with a dynamic batch axis
(issue 19): each compiles once, without --input-shape, to one module whose
signature keeps the batch as `?`, and that module runs at several batch
sizes, each output against PyTorch's in float64 within the suite's fp32
tolerance (|kiln - ref| <= 1e-5 max|ref| + 1e-4 |ref|).

  /usr/bin/python3 tests/models/run_dynamic_batch.py --bin-dir build/bin \\
      --work-dir build/dynamic-batch [--models resnet_style,resnet50] \\
      [--batches 1,7,32] [--image 64] [--device local-task] \\
      [--compare-static]

The models (torchvision 0.14, seeded, batch norms randomized as
export_models.py does, exported at opset 17 with `dynamic_axes` naming
the batch of the input and the output):
  resnet_style  torchvision's ResNet class with one BasicBlock per stage
                and a stem of its own: a grouped and a depthwise
                convolution, average pooling, and a head that flattens by
                `x.view(x.size(0), -1)` (Shape -> Gather -> Unsqueeze ->
                Concat -> Reshape, as exporters write it) and by
                `reshape(-1, C)`, then a Linear and a MatMul
  resnet50      torchvision.models.resnet50
  mobilenetv2   torchvision.models.mobilenet_v2 (not in ctest)
  bert          tests/models/transformer_models.py's BERT-style encoder
                on ?x64x256 embeddings: attention's Split, reshapes of q, k
                and v whose target reads another tensor's Shape, MatMul of
                two dynamic batches of matrices, Softmax, LayerNormalization
Images are square, IMAGES' size for each model (--image sets one for
all).

--static-check: ResNet50's float32 rounding through its 53 layers of
randomized batch norms misses the tolerance on a few logits at some
batches (4 of 32000 at batch 32, 1.12x) in any float32 evaluation: a
batch that misses then passes only when the module compiled for that
static batch (--input-shape) misses it the same way, within 5%, and the
two outputs agree within the tolerance; the detail says so.

--compare-static also compiles a module per batch with --input-shape and
times both with kiln-benchmark-module, interleaved over --rounds (the
issue's comparison with a module compiled for that batch); the ctest runs
without it.

For the GPU machine (no compiler, no ONNX exporter): here, --target-device
cuda [--cuda-target sm_90a] --compile-only writes the modules, inputs and
float64 references under --work-dir; there, --prebuilt with the same
--work-dir, --models, --batches and --compare-static runs them with numpy
alone (--device cuda).

Exits 1 when any model fails to compile, a signature lacks the `?`, or
any batch misses its reference.
"""

import argparse
import os
import re
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "onnx"))
import export_models  # noqa: E402
import onnxharness as harness  # noqa: E402

SEED = 19

# Each model's image size: small where float32 stays within the tolerance
# of float64, 224 for ResNet50, whose 53 layers of randomized batch norms
# amplify float32's rounding past it at 64x64 (PyTorch's own float32 run
# is 2x the tolerance there, as is a module compiled for a static batch).
IMAGES = {"resnet_style": 64, "resnet50": 224, "mobilenetv2": 224}
# Models whose input is not an image: the shape after the batch.
EMBEDDINGS = {"bert": (64, 256)}


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--models", default="resnet_style,resnet50")
    p.add_argument("--batches", default="1,7,32")
    p.add_argument("--image", type=int, default=0,
                   help="image size for every model (default: each "
                   "model's own, IMAGES)")
    p.add_argument("--device", action="append", default=[],
                   help="a driver to run on (repeatable; default local-task)")
    p.add_argument("--static-check", action="store_true",
                   help="a batch missing float64 passes when the module "
                   "compiled for that static batch misses it the same way")
    p.add_argument("--compare-static", action="store_true")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--target-device", default="cpu",
                   help="kiln-compile --target-device (default cpu)")
    p.add_argument("--cuda-target", default="sm_90a")
    p.add_argument("--compile-only", action="store_true",
                   help="export, reference and compile into --work-dir; "
                   "run nothing")
    p.add_argument("--prebuilt", action="store_true",
                   help="run the modules, inputs and references a "
                   "--compile-only run left in --work-dir")
    p.add_argument("--compile-arg", action="append", default=[],
                   help="an extra kiln-compile argument, for every module "
                   "(repeatable; e.g. --compile-arg=--conv-layout=nhwc, the "
                   "layout GPU targets choose)")
    return p.parse_args()


class StyleHead(torch.nn.Module):
    """Flattens as exporters see it written both ways, then a Linear and a
    MatMul by a constant matrix."""

    def __init__(self, channels, classes, generator):
        super().__init__()
        self.fc = torch.nn.Linear(channels, classes)
        self.proj = torch.nn.Parameter(
            torch.randn(classes, classes, generator=generator) * 0.1)
        self.channels = channels

    def forward(self, x):
        x = x.view(x.size(0), -1)  # Shape, Gather, Unsqueeze, Concat
        x = torch.relu(self.fc(x.reshape(-1, self.channels)))
        return torch.matmul(x, self.proj)


def buildResnetStyle(generator):
    import torchvision
    from torchvision.models.resnet import BasicBlock
    model = torchvision.models.resnet.ResNet(BasicBlock, [1, 1, 1, 1],
                                             num_classes=10)
    # A stem with a grouped and a depthwise convolution before the stages.
    model.conv1 = torch.nn.Sequential(
        torch.nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False),
        torch.nn.Conv2d(32, 64, 3, padding=1, groups=4),
        torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1, groups=64))
    model.avgpool = torch.nn.Sequential(
        torch.nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False),
        torch.nn.AdaptiveAvgPool2d(1))
    model.fc = StyleHead(512, 10, generator)
    return model


def build(name, image):
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED + 1)
    if name in EMBEDDINGS:
        import transformer_models
        model, _, _ = transformer_models.build(name, generator)
        return model.eval()
    if name == "resnet_style":
        model = buildResnetStyle(generator)
    elif name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50()
    elif name == "mobilenetv2":
        import torchvision
        model = torchvision.models.mobilenet_v2()
    else:
        raise ValueError(f"unknown model {name}")
    export_models.randomizeBatchNorms(model, (1, 3, image, image), generator)
    return model.eval()


def export(model, path, sample):
    import onnx
    x = torch.zeros((2, *sample))
    torch.onnx.export(model, (x,), path, opset_version=17,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"},
                                    "output": {0: "batch"}},
                      do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))


def dataSets(model, modelDir, batches, sample):
    """One data set per batch: a seeded input and the float64 output."""
    sets = []
    rng = np.random.default_rng(SEED)
    for batch in batches:
        x = rng.standard_normal((batch, *sample)).astype(np.float32)
        wide, narrow = export_models.references(model, x)
        ref = wide.astype(np.float32)
        # How far float32 PyTorch is from the reference, for the record.
        ok, err, detail = harness.checkOutput(narrow, ref, scaleByMax=True)
        print(f"  batch {batch}: float32 PyTorch {err:.2e} from float64 "
              f"(max |ref| {float(np.abs(ref).max()):.3g})"
              + ("" if ok else f", outside the tolerance: {detail}"),
              flush=True)
        inPath = os.path.join(modelDir, f"input_b{batch}.npy")
        refPath = os.path.join(modelDir, f"expected_b{batch}.npy")
        np.save(inPath, x)
        np.save(refPath, ref)
        sets.append(harness.DataSet([inPath], [refPath]))
    return sets


def signature(binDir, module):
    """kiln-dump-module's text of the module ("" when it fails)."""
    r = harness.e2elib.runTool(
        [os.path.join(binDir, "kiln-dump-module"), module], 120)
    return r.stdout if r.rc == 0 else ""


def benchmark(binDir, device, module, inputPath, timeout, repetitions):
    """Median milliseconds per call, or None."""
    r = harness.e2elib.runTool(
        [os.path.join(binDir, "kiln-benchmark-module"), f"--device={device}",
         f"--module={module}", f"--input=@{inputPath}",
         f"--benchmark_repetitions={repetitions}"], timeout)
    match = re.search(r"median\s+([0-9.]+)\s*(ms|us|s)\b", r.stdout)
    if r.rc != 0 or not match:
        return None
    scale = {"s": 1e3, "ms": 1.0, "us": 1e-3}[match.group(2)]
    return float(match.group(1)) * scale


def runOne(binDir, device, module, ds, work, timeout):
    """(outcome, kiln's output or None) of one call."""
    outcome = harness.runAndCheck(binDir, device, module, [ds], work,
                                  timeout, scaleByMax=True)
    got = os.path.join(work, "set0", "out0.npy")
    return outcome, (np.load(got) if os.path.exists(got) else None)


def compileModule(args, onnxPath, out, extra):
    """harness.compileOnnx for the chosen target."""
    cudaTarget = args.cuda_target if args.target_device == "cuda" else ""
    return harness.compileOnnx(args.bin_dir, onnxPath, out,
                               args.target_device, cudaTarget, args.timeout,
                               extra + args.compile_arg)


# Static modules compiled by this run (one of an earlier run may be stale).
COMPILED_THIS_RUN = set()


def staticModule(args, onnxPath, modelDir, batch, sample):
    """(path, None) of the module compiled for this static batch, compiled
    once (found in --work-dir under --prebuilt), or (None, why not)."""
    static = os.path.join(modelDir, f"static_b{batch}.kiln")
    if args.prebuilt or static in COMPILED_THIS_RUN:
        return (static, None) if os.path.exists(static) else (
            None, f"{static} is missing (compile with --compare-static)")
    c = compileModule(args, onnxPath, static,
                      [f"--input-shape=input:{batch}x" +
                       "x".join(map(str, sample))])
    if c.status != harness.PASS:
        return None, f"static b{batch}: compile: {c.reason}"
    COMPILED_THIS_RUN.add(static)
    return static, None


def staticCrossCheck(args, name, onnxPath, modelDir, batch, sample, device,
                     ds, got):
    """For a batch whose float64 comparison missed: passes when the module
    compiled for that static batch misses the same way (the network's
    float32 rounding, not the dynamic batch) and the two agree within the
    tolerance. Returns (ok, what to print)."""
    static, why = staticModule(args, onnxPath, modelDir, batch, sample)
    if static is None:
        return False, why
    outcome, staticOut = runOne(args.bin_dir, device, static, ds,
                                os.path.join(modelDir, f"static_b{batch}"),
                                args.timeout)
    if staticOut is None:
        return False, f"static b{batch}: {outcome.reason}"
    ref = np.load(ds.outputs[0])
    agree, diff, _ = harness.checkOutput(got, staticOut, scaleByMax=True)
    excessDynamic = harness.toleranceExcess(
        got, ref, "f32", float(np.abs(ref).max()))
    excessStatic = harness.toleranceExcess(
        staticOut, ref, "f32", float(np.abs(ref).max()))
    same = outcome.status != harness.PASS and abs(
        excessDynamic - excessStatic) <= 0.05 * excessStatic
    return agree and same, (
        f"b{batch} {excessDynamic:.2f}x the tolerance, as the module "
        f"compiled for batch {batch} ({excessStatic:.2f}x; the two "
        f"{diff:.2e} apart): float32's rounding through the network")


def prepare(args, name, modelDir, image, batches, sample):
    """(onnx path, data sets, dynamic module, None) once the model is
    exported, referenced and compiled (found under --prebuilt), or
    (..., why it failed)."""
    onnxPath = os.path.join(modelDir, "model.onnx")
    module = os.path.join(modelDir, "model.kiln")
    if args.prebuilt:
        sets = [harness.DataSet(
            [os.path.join(modelDir, f"input_b{b}.npy")],
            [os.path.join(modelDir, f"expected_b{b}.npy")]) for b in batches]
        missing = [p for p in [module] + [ds.inputs[0] for ds in sets]
                   if not os.path.exists(p)]
        return onnxPath, sets, module, (
            f"{missing[0]} is missing (made by --compile-only)"
            if missing else None)
    model = build(name, image)
    export(model, onnxPath, sample)
    sets = dataSets(model, modelDir, batches, sample)
    compiled = compileModule(args, onnxPath, module, [])
    if compiled.status != harness.PASS:
        return onnxPath, sets, module, f"compile: {compiled.reason}"
    signatureInput = "?x" + "x".join(map(str, sample)) + "xf32"
    if f"({signatureInput})" not in signature(args.bin_dir, module):
        return onnxPath, sets, module, (
            f"the module's signature has no dynamic batch ({signatureInput})")
    print(f"compiled {name} ({signatureInput}) once in "
          f"{compiled.seconds:.1f}s", flush=True)
    return onnxPath, sets, module, None


def compareStatic(args, name, onnxPath, modelDir, module, batches, sets,
                  sample, devices):
    """Times the dynamic module against the one compiled for each batch."""
    for batch, ds in zip(batches, sets):
        static, why = staticModule(args, onnxPath, modelDir, batch, sample)
        if static is None:
            print(why, flush=True)
            continue
        for device in devices:
            # Interleaved, so load from elsewhere hits both alike.
            times = {"dynamic": [], "static": []}
            for _ in range(args.rounds):
                for kind, path in (("dynamic", module), ("static", static)):
                    t = benchmark(args.bin_dir, device, path, ds.inputs[0],
                                  args.timeout, args.repetitions)
                    if t is not None:
                        times[kind].append(t)
            best = {k: min(v) if v else None for k, v in times.items()}
            ratio = (f", dynamic/static {best['dynamic'] / best['static']:.3f}"
                     if best["dynamic"] and best["static"] else "")
            print(f"{name} b{batch} on {device}: dynamic module "
                  f"{best['dynamic']} ms, static module {best['static']} ms"
                  f"{ratio} (best median of {args.rounds} interleaved "
                  "rounds)", flush=True)


def main():
    args = parseArgs()
    devices = args.device or ["local-task"]
    batches = [int(b) for b in args.batches.split(",")]
    failures = 0
    for name in args.models.split(","):
        modelDir = os.path.join(args.work_dir, name)
        os.makedirs(modelDir, exist_ok=True)
        image = args.image or IMAGES.get(name, 0)
        sample = EMBEDDINGS.get(name, (3, image, image))
        onnxPath, sets, module, error = prepare(args, name, modelDir,
                                                image, batches, sample)
        if error:
            print(f"FAIL {name}: {error}", flush=True)
            failures += 1
            continue
        if args.compile_only:
            if args.compare_static or args.static_check:
                for batch in batches:
                    _, why = staticModule(args, onnxPath, modelDir, batch,
                                          sample)
                    if why:
                        print(f"FAIL {name}: {why}", flush=True)
                        failures += 1
            continue
        for device in devices:
            for batch, ds in zip(batches, sets):
                work = os.path.join(modelDir, device.replace("/", "_"),
                                    f"b{batch}")
                outcome, got = runOne(args.bin_dir, device, module, ds, work,
                                      args.timeout)
                ok = outcome.status == harness.PASS
                detail = (f"max |kiln - ref| {outcome.maxError:.2e}"
                          if ok else outcome.reason)
                if not ok and got is not None and args.static_check:
                    ok, detail = staticCrossCheck(
                        args, name, onnxPath, modelDir, batch, sample, device,
                        ds, got)
                failures += not ok
                print(f"{'PASS' if ok else 'FAIL'} {name} batch {batch} on "
                      f"{device} (the one module): {detail} "
                      f"(run {outcome.seconds:.2f}s)", flush=True)
        if args.compare_static:
            compareStatic(args, name, onnxPath, modelDir, module, batches,
                          sets, sample, devices)
    print(f"{'FAILED' if failures else 'passed'}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
