#!/usr/bin/env python3
"""A torchvision detector end to end (issue 19 item 4: per-class score
thresholds by NonZero, TopK of min(300, candidates), batched_nms as an If
on whether any box is left around NonMaxSuppression over a count known per
call): Kiln against PyTorch's float64 output, then timed next to PyTorch
eager and torch.compile on the same GPU in the same process. Prints a
markdown table (progress on stderr); numbers are printed, never asserted.

`ssdlite320_mobilenet_v3_large` (torchvision 0.14 defaults, no weights
loaded), seeded: batch norms randomized as export_models.py does for the
zoo, and the classification head's parameters N(0, 0.5), since a random
head gives every class the same score and ties would decide every box.
One 1x3x320x320 image. Two steps, the first where the compiler is
(Debian's torch 1.13), the second where the GPU is:

  /usr/bin/python3 bench/detector_bench.py --kit KIT --make-kit [--check-cpu]
  python3 bench/detector_bench.py --kit KIT [--bin-dir DIR]

--make-kit writes the ONNX model (opset 17), the state dict, the image and
PyTorch's float64 boxes, scores and labels, and compiles the module for
cuda (and, with --check-cpu, for the CPU, checking it on local-task).
Outputs pass within model_bench's budget (|a - b| <= 1e-5 max|ref| +
1e-4 |ref|; labels equal). Kiln's function runs in phases (its extents
depend on values it computes), so kiln-benchmark-module times it by the
host's clock on device buffers; PyTorch by CUDA events (and the host's
clock) around each call, eager and torch.compile, medians with p10-p90.
"""

import argparse
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_gpu_bench as gpu  # noqa: E402

log = gpu.log
NAME = "ssdlite320_mobilenet_v3_large"
OUTPUTS = ("boxes", "scores", "labels")


def build(torch, torchvision):
    torch.manual_seed(0)
    model = getattr(torchvision.models.detection, NAME)(
        weights=None, weights_backbone=None).eval()
    return model


def make_kit(args):
    import torch
    import torchvision
    sys.path.insert(0, os.path.join(REPO, "tests", "models"))
    from export_models import randomizeBatchNorms
    os.makedirs(args.kit, exist_ok=True)
    model = build(torch, torchvision)
    randomizeBatchNorms(model.backbone, (1, 3, 320, 320),
                        torch.Generator().manual_seed(3))
    model.eval()
    generator = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for p in model.head.classification_head.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.5)
    torch.save(model.state_dict(), os.path.join(args.kit, NAME + ".pt"))
    x = torch.rand(1, 3, 320, 320, generator=torch.Generator().manual_seed(1))
    np.save(os.path.join(args.kit, "x.npy"), x.numpy())
    with torch.no_grad():
        ref = model.double()(x.double())[0]
        model.float()
    for name in OUTPUTS:
        np.save(os.path.join(args.kit, f"ref_{name}.npy"), ref[name].numpy())
    log(f"float64: {len(ref['boxes'])} boxes")
    path = os.path.join(args.kit, NAME + ".onnx")
    torch.onnx.export(model, (x,), path, opset_version=17,
                      input_names=["images"], output_names=list(OUTPUTS))
    compile = os.path.join(args.bin_dir, "kiln-compile")
    command = [compile, path, "--target-device=cuda",
               f"--cuda-target={args.cuda_target}",
               "-o", os.path.join(args.kit, "detector.kiln")]
    log("$ " + " ".join(command))
    subprocess.run(command, check=True)
    if args.check_cpu:
        cpu = os.path.join(args.kit, "detector_cpu.kiln")
        subprocess.run([compile, path, "--target-device=cpu", "-o", cpu],
                       check=True)
        notes = check(args, cpu, "local-task")
        os.remove(cpu)
        for note in notes:
            print(f"- local-task: {note}")


def check(args, module, device):
    """Runs `module` once and compares each output with float64."""
    outs = [os.path.join(args.kit, f"got_{name}.npy") for name in OUTPUTS]
    subprocess.run([os.path.join(args.bin_dir, "kiln-run-module"),
                    f"--device={device}", f"--module={module}",
                    f"--input=@{os.path.join(args.kit, 'x.npy')}",
                    *[f"--output=@{o}" for o in outs]],
                   check=True, capture_output=True)
    notes = []
    for name, out in zip(OUTPUTS, outs):
        got = np.load(out)
        ref = np.load(os.path.join(args.kit, f"ref_{name}.npy"))
        os.remove(out)
        if got.shape != ref.shape:
            notes.append(f"{name}: {got.shape} against {ref.shape}: FAIL")
            continue
        error = np.abs(got.astype(np.float64) - ref)
        budget = 1e-5 * np.abs(ref).max() + 1e-4 * np.abs(ref)
        worst = float((error / np.maximum(budget, 1e-300)).max())
        ok = bool((error <= budget).all())
        notes.append(f"{name} {list(got.shape)}: worst error {worst:.3g} of "
                     f"the budget: {'pass' if ok else 'FAIL'}")
    return notes


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    gpu.add_kit_arguments(parser, reps=50, warmup=5)
    parser.add_argument("--check-cpu", action="store_true",
                        help="with --make-kit: also compile for the CPU and "
                        "check it on local-task")
    args = parser.parse_args()
    if args.make_kit:
        return make_kit(args)

    import torch
    import torchvision
    module = os.path.join(args.kit, "detector.kiln")
    notes = [f"cuda: {n}" for n in check(args, module, "cuda")]
    run = argparse.Namespace(bin_dir=args.bin_dir, device="cuda",
                             modules_dir=args.kit, warmup=args.warmup)
    kiln = gpu.run_kiln(run, "detector.kiln", None,
                        [f"@{os.path.join(args.kit, 'x.npy')}"],
                        args.reps)["host"]
    model = build(torch, torchvision)
    model.load_state_dict(torch.load(os.path.join(args.kit, NAME + ".pt")))
    model = model.eval().cuda()
    x = torch.from_numpy(np.load(os.path.join(args.kit, "x.npy"))).cuda()
    rows = [("Kiln (host clock)", kiln)]
    with torch.no_grad():
        def eager():
            return model(x)
        rows.append(("PyTorch eager", gpu.torch_device_times(
            torch, eager, args.warmup, args.reps)))
        rows.append(("PyTorch eager (host clock)", gpu.torch_host_times(
            torch, eager, args.warmup, args.reps)))
        log("torch.compile (a minute or two)")
        compiled = torch.compile(model)
        rows.append(("torch.compile", gpu.torch_device_times(
            torch, lambda: compiled(x), args.warmup, args.reps)))
        rows.append(("torch.compile (host clock)", gpu.torch_host_times(
            torch, lambda: compiled(x), args.warmup, args.reps)))
    print(f"GPU: {gpu.gpu_description(torch)}; {NAME}, 1x3x320x320, ms\n")
    print("| | median | p10-p90 |\n| --- | ---: | --- |")
    for name, t in rows:
        print(f"| {name} | {t['median'] * 1e3:.3f} | "
              f"{t['p10'] * 1e3:.3f}-{t['p90'] * 1e3:.3f} |")
    best = min(t["median"] for name, t in rows[1:] if "compile" in name)
    print(f"\nKiln / torch.compile (host clocks): "
          f"{kiln['median'] / rows[-1][1]['median']:.2f}; "
          f"against torch.compile's device clock {kiln['median'] / best:.2f}")
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    sys.exit(main())
