#!/usr/bin/env python3
"""ONNX NonMaxSuppression (issue 19 item 4: its kept count is computed on
the device and read by the host, so the function runs as two phases):
Kiln against torchvision's batched_nms doing the same (a per-class limit
on what it keeps), on the same GPU in the same process. Prints a markdown
table (progress on stderr); numbers are printed, never asserted.

One NonMaxSuppression over --classes classes of --boxes random boxes
(corners on a 20x20 field, limit 100 per class, IoU 0.5, score threshold
0.05), seeded. Two steps, the first where the compiler is, the second
where the GPU is:

  /usr/bin/python3 bench/nms_bench.py --kit KIT --make-kit
  python3 bench/nms_bench.py --kit KIT [--bin-dir DIR]

Both answers are checked against a float64 implementation of ONNX's
definition (tests/onnx/check_ops.py's nmsRef, run by --make-kit) before
they are timed. A phased function is timed by kiln-benchmark-module's host
clock; here with --benchmark_include_transfers, around call(): the inputs
uploaded and the kept indices read back.
PyTorch's time is the host's clock around the same work: the inputs
copied to the GPU, batched_nms, the per-class limit, the result copied
back. Medians with p10-p90 of --reps calls after --warmup.
"""

import argparse
import os
import subprocess
import sys

os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run_gpu_bench as gpu  # noqa: E402

log = gpu.log
LIMIT, IOU, FLOOR = 100, 0.5, 0.05
INPUTS = ("boxes", "scores", "limit", "iou", "floor")


def make_kit(args):
    sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
    import onnx
    from onnx import TensorProto, helper
    from check_ops import nmsRef
    os.makedirs(args.kit, exist_ok=True)
    n, c = args.boxes, args.classes
    graph = helper.make_graph(
        [helper.make_node("NonMaxSuppression", list(INPUTS), ["kept"])],
        "nms",
        [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, n, 4]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT,
                                       [1, c, n]),
         helper.make_tensor_value_info("limit", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("iou", TensorProto.FLOAT, [1]),
         helper.make_tensor_value_info("floor", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("kept", TensorProto.INT64, None)])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = os.path.join(args.kit, "nms.onnx")
    onnx.save(model, path)
    rng = np.random.default_rng(5)
    values = {
        "boxes": (rng.random((1, n, 4)) * 20).astype(np.float32),
        "scores": rng.random((1, c, n)).astype(np.float32),
        "limit": np.array([LIMIT], np.int64),
        "iou": np.array([IOU], np.float32),
        "floor": np.array([FLOOR], np.float32),
    }
    for name, value in values.items():
        np.save(os.path.join(args.kit, name + ".npy"), value)
    np.save(os.path.join(args.kit, "ref.npy"),
            nmsRef(values["boxes"], values["scores"], LIMIT, np.float32(IOU),
                   np.float32(FLOOR), False))
    command = [os.path.join(args.bin_dir, "kiln-compile"), path,
               "--target-device=cuda", f"--cuda-target={args.cuda_target}",
               "-o", os.path.join(args.kit, "nms.kiln")]
    log("$ " + " ".join(command))
    subprocess.run(command, check=True)


def torch_nms(torch, torchvision, values, device):
    """ONNX's NonMaxSuppression on one batch by torchvision: boxes above
    the score threshold, greedy per class, at most LIMIT per class, ordered
    by class then score."""
    b = torch.from_numpy(values["boxes"]).to(device)[0]
    s = torch.from_numpy(values["scores"]).to(device)[0]
    classes, n = s.shape
    # [y1, x1, y2, x2], either diagonal: as [x1, y1, x2, y2] ordered.
    xyxy = torch.stack([torch.minimum(b[:, 1], b[:, 3]),
                        torch.minimum(b[:, 0], b[:, 2]),
                        torch.maximum(b[:, 1], b[:, 3]),
                        torch.maximum(b[:, 0], b[:, 2])], 1)
    cls = torch.arange(classes, device=device).repeat_interleave(n)
    box = torch.arange(n, device=device).repeat(classes)
    score = s.reshape(-1)
    m = score > FLOOR
    keep = torchvision.ops.batched_nms(xyxy[box[m]], score[m], cls[m], IOU)
    kc, kb = cls[m][keep], box[m][keep]
    order = torch.sort(kc, stable=True).indices
    kc, kb = kc[order], kb[order]
    counts = torch.bincount(kc, minlength=classes)
    start = torch.cumsum(counts, 0) - counts
    rank = torch.arange(kc.numel(), device=device) - start[kc]
    sel = rank < LIMIT
    out = torch.stack([torch.zeros_like(kc[sel]), kc[sel], kb[sel]], 1)
    return out.cpu().numpy()


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    gpu.add_kit_arguments(parser, reps=50, warmup=5)
    parser.add_argument("--boxes", type=int, default=512)
    parser.add_argument("--classes", type=int, default=80)
    args = parser.parse_args()
    if args.make_kit:
        return make_kit(args)

    import torch
    import torchvision
    values = {name: np.load(os.path.join(args.kit, name + ".npy"))
              for name in INPUTS}
    ref = np.load(os.path.join(args.kit, "ref.npy"))
    module = os.path.join(args.kit, "nms.kiln")
    inputs = [f"@{os.path.join(args.kit, name + '.npy')}" for name in INPUTS]
    out = os.path.join(args.kit, "kiln_out.npy")
    subprocess.run([os.path.join(args.bin_dir, "kiln-run-module"),
                    "--device=cuda", f"--module={module}",
                    *[f"--input={i}" for i in inputs], f"--output=@{out}"],
                   check=True, capture_output=True)
    notes = [f"Kiln keeps {len(np.load(out))} boxes: "
             f"{'equal to' if np.array_equal(np.load(out), ref) else 'NOT'} "
             f"the float64 definition's {len(ref)}"]
    got = torch_nms(torch, torchvision, values, "cuda")
    notes.append(f"torchvision keeps {len(got)}: "
                 f"{'equal to' if np.array_equal(got, ref) else 'NOT'} "
                 "the definition's")
    run = argparse.Namespace(bin_dir=args.bin_dir, device="cuda",
                             modules_dir=args.kit, warmup=args.warmup)
    kiln = gpu.run_kiln(run, "nms.kiln", None, inputs, args.reps,
                        ["--benchmark_include_transfers"])["host"]
    torch_times = gpu.torch_host_times(
        torch, lambda: torch_nms(torch, torchvision, values, "cuda"),
        args.warmup, args.reps)
    print(f"GPU: {gpu.gpu_description(torch)}; {args.classes} classes of "
          f"{args.boxes} boxes, host clock, ms\n")
    print("| | median | p10-p90 |\n| --- | ---: | --- |")
    for name, t in (("Kiln", kiln), ("torchvision batched_nms", torch_times)):
        print(f"| {name} | {t['median'] * 1e3:.3f} | "
              f"{t['p10'] * 1e3:.3f}-{t['p90'] * 1e3:.3f} |")
    print(f"\nKiln / torchvision: {kiln['median'] / torch_times['median']:.2f}")
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    sys.exit(main())
