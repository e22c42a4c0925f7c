#!/usr/bin/env python3
"""ONNX Loop with a trip count given per call (issue 19 item 4: the runtime
repeats the body, a loop phase): Kiln against PyTorch running the same
steps from Python, on the same GPU in the same process. Prints a markdown
table (progress on stderr); numbers are printed, never asserted.

The loop carries acc (--rows x --cols f32, first x) and takes
acc = tanh(acc) * 0.5 + x per step, x read from outside the body; the
trip count is an input, so one module serves every step count. Two steps,
the first where the compiler is, the second where the GPU is:

  /usr/bin/python3 bench/loop_bench.py --kit KIT --make-kit
  python3 bench/loop_bench.py --kit KIT [--bin-dir DIR]

Each answer is checked against float64 numpy (fp32 tolerance 1e-5 +
1e-4*|ref|) before it is timed. Kiln's time is kiln-benchmark-module's host
clock around a call (a loop phase reads its trip count and each step's
condition back, so the device clock does not time it as one); the inputs
stay on the device. PyTorch's is the host's clock around the same steps
from a Python loop (eager), and around the replay of a CUDA graph captured
for that step count (a graph per count; Kiln's module serves all), each
followed by a synchronize. Medians with p10-p90 of --reps calls after
--warmup.
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
STEPS = (1, 10, 100, 1000)


def reference(x, steps):
    acc, wide = x.astype(np.float64), x.astype(np.float64)
    for _ in range(steps):
        acc = np.tanh(acc) * 0.5 + wide
    return acc


def make_kit(args):
    import onnx
    from onnx import TensorProto, helper
    os.makedirs(args.kit, exist_ok=True)
    shape = [args.rows, args.cols]
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Constant", [], ["half"],
                          value=helper.make_tensor("half", TensorProto.FLOAT,
                                                   [], [0.5])),
         helper.make_node("Tanh", ["acc"], ["t"]),
         helper.make_node("Mul", ["t", "half"], ["h"]),
         helper.make_node("Add", ["h", "x"], ["acc_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, shape)])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "x"], ["y"], body=body)], "loop",
        [helper.make_tensor_value_info("n", TensorProto.INT64, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    path = os.path.join(args.kit, "loop.onnx")
    onnx.save(model, path)
    x = np.random.default_rng(9).standard_normal(shape).astype(np.float32)
    np.save(os.path.join(args.kit, "x.npy"), x)
    for steps in STEPS:
        np.save(os.path.join(args.kit, f"n{steps}.npy"),
                np.array(steps, np.int64))
    command = [os.path.join(args.bin_dir, "kiln-compile"), path,
               "--target-device=cuda", f"--cuda-target={args.cuda_target}",
               "-o", os.path.join(args.kit, "loop.kiln")]
    log("$ " + " ".join(command))
    subprocess.run(command, check=True)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    gpu.add_kit_arguments(parser, reps=20, warmup=3)
    parser.add_argument("--rows", type=int, default=64)
    parser.add_argument("--cols", type=int, default=256)
    args = parser.parse_args()
    if args.make_kit:
        return make_kit(args)

    import torch
    x = np.load(os.path.join(args.kit, "x.npy"))
    xt = torch.from_numpy(x).cuda()
    module = os.path.join(args.kit, "loop.kiln")
    run = argparse.Namespace(bin_dir=args.bin_dir, device="cuda",
                             modules_dir=args.kit, warmup=args.warmup)
    rows, notes = [], []
    for steps in STEPS:
        n = f"@{os.path.join(args.kit, f'n{steps}.npy')}"
        xs = f"@{os.path.join(args.kit, 'x.npy')}"
        out = os.path.join(args.kit, f"out{steps}.npy")
        subprocess.run([os.path.join(args.bin_dir, "kiln-run-module"),
                        "--device=cuda", f"--module={module}",
                        f"--input={n}", f"--input={xs}", f"--output=@{out}"],
                       check=True, capture_output=True)
        want = reference(x, steps)
        got = np.load(out).astype(np.float64)
        ok = bool(np.all(np.abs(got - want) <= 1e-5 + 1e-4 * np.abs(want)))

        def steps_in_torch(steps=steps):
            acc = xt
            for _ in range(steps):
                acc = torch.tanh(acc) * 0.5 + xt
            return acc

        torch_got = steps_in_torch().cpu().numpy().astype(np.float64)
        torch_ok = bool(np.all(np.abs(torch_got - want) <=
                               1e-5 + 1e-4 * np.abs(want)))
        notes.append(f"{steps} steps: Kiln {'matches' if ok else 'DOES NOT'}"
                     f" float64 numpy, PyTorch "
                     f"{'matches' if torch_ok else 'does not'}")
        kiln = gpu.run_kiln(run, "loop.kiln", None, [n, xs], args.reps)["host"]
        eager = gpu.torch_host_times(torch, steps_in_torch, args.warmup,
                                     args.reps)
        graph = gpu.capture_cuda_graph(torch, steps_in_torch)
        replay = gpu.torch_host_times(torch, graph.replay, args.warmup,
                                      args.reps)
        rows.append((steps, kiln, eager, replay))
    print(f"GPU: {gpu.gpu_description(torch)}; acc of {args.rows}x{args.cols}"
          " f32, host clock, ms\n")
    print("| steps | Kiln | Kiln per step (us) | PyTorch eager | "
          "PyTorch CUDA graph | Kiln / eager |\n"
          "| ---: | ---: | ---: | ---: | ---: | ---: |")
    for steps, kiln, eager, replay in rows:
        cell = (lambda t: f"{t['median'] * 1e3:.3f} "
                f"({t['p10'] * 1e3:.3f}-{t['p90'] * 1e3:.3f})")
        print(f"| {steps} | {cell(kiln)} | "
              f"{kiln['median'] * 1e6 / steps:.1f} | {cell(eager)} | "
              f"{cell(replay)} | {kiln['median'] / eager['median']:.2f} |")
    print()
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    sys.exit(main())
