#!/usr/bin/env python3
"""Decode steps of a GPT-style decoder with a key/value cache (issue 19):
Kiln against PyTorch eager and eager captured in a CUDA graph, on the same
GPU in the same process, at each --contexts length of the cache. Prints a
markdown table (progress on stderr); numbers are printed, never asserted.

The decoder is tests/models/decoder_model.py's CachedDecoder at
BENCH_CONFIG (the GPT of model_bench.py, 4 layers, width 256, vocab 4096,
with past key/value inputs and present outputs), seeded weights, exported
at opset 17 with dynamic position axes and compiled once, without
--input-shape: one module times every context. A step is one new token:
ids and positions [1, 1], a mask of zeros [1, 1, 1, context + 1] and a
cache of `context` positions (random, seeded); it returns the logits and
the cache grown by one position. Two steps, the first where the compiler
is, the second where the GPU is:

  /usr/bin/python3 bench/decode_bench.py --kit KIT --make-kit \
      [--specialize new=1]
  python3 bench/decode_bench.py --kit KIT [--contexts 128,1024] \\
      [--bin-dir DIR] [--out-dir DIR]

Each step's logits are checked against the same decoder in PyTorch
float64 on the host (fp32 tolerance: |a - b| <= 1e-5 max|ref| +
1e-4 |ref|) before it is timed. Kiln's times are kiln-benchmark-module's
device clock; PyTorch's are CUDA events around each call (IEEE f32:
TF32 off), both medians with p10-p90 of --reps calls after --warmup.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# As run_gpu_bench.py: Kiln and torch number GPUs alike.
os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
import onnxharness as harness  # noqa: E402
import run_gpu_bench as gpu  # noqa: E402

log = gpu.log


def parse_args():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kit", required=True,
                        help="the kit directory (written by --make-kit)")
    parser.add_argument("--make-kit", action="store_true",
                        help="export and compile the decoder into --kit, "
                        "then stop (needs torch, onnx and kiln-compile)")
    parser.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"),
                        help="kiln-compile for --make-kit, "
                        "kiln-benchmark-module to run (default build/bin)")
    parser.add_argument("--cuda-target", default="sm_90a",
                        help="kiln-compile --cuda-target for --make-kit")
    parser.add_argument("--specialize", action="append", default=[],
                        help="kiln-compile --specialize for --make-kit, "
                        "repeatable (new=1: the steps run a function "
                        "compiled for one new token)")
    parser.add_argument("--contexts", default="128,1024",
                        help="comma-separated cache lengths (default 128,1024)")
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--profile", action="store_true",
                        help="also run one step at each context under ncu "
                        "and write the kernels' times (profile_<context>.md "
                        "in --out-dir, and stdout)")
    parser.add_argument("--out-dir",
                        help="where the run writes decode_bench.json and the "
                        "table (default: none kept)")
    args = parser.parse_args()
    try:
        args.contexts = [int(c) for c in args.contexts.split(",")]
    except ValueError:
        parser.error(f"--contexts: not a comma-separated list of integers: "
                     f"{args.contexts}")
    return args


def make_kit(args):
    import torch

    import decoder_model

    config = decoder_model.BENCH_CONFIG
    os.makedirs(args.kit, exist_ok=True)
    torch.manual_seed(0)
    model = decoder_model.build(torch.Generator().manual_seed(1), config)
    onnx_path = os.path.join(args.kit, "decoder.onnx")
    decoder_model.export(model, onnx_path, config)
    torch.save(model.state_dict(), os.path.join(args.kit, "decoder.pt"))
    module = os.path.join(args.kit, "decoder.kiln")
    argv = [os.path.join(args.bin_dir, "kiln-compile"), onnx_path,
            "--target-device=cuda", f"--cuda-target={args.cuda_target}",
            "-o", module] + [f"--specialize={x}" for x in args.specialize]
    log("$ " + " ".join(argv))
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"decode_bench: kiln-compile failed: {result.stderr.strip()}")
    with open(os.path.join(args.kit, "kit.json"), "w", encoding="utf-8") as f:
        json.dump({"config": config, "cuda_target": args.cuda_target,
                   "specialize": args.specialize}, f, indent=1)
    log(f"kit written to {args.kit}")


def step_inputs(config, context, seed):
    """One decode step's inputs at a cache of `context` positions, as numpy
    arrays in the module's order."""
    import torch

    import decoder_model

    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, config["vocab"], (1, 1), generator=generator)
    positions = torch.tensor([[context]], dtype=torch.int64)
    mask = torch.zeros(1, 1, 1, context + 1)
    cache = decoder_model.random_cache(context, config=config,
                                       generator=generator)
    return [t.numpy() for t in (ids, positions, mask, *cache)]


def check(got, expected):
    """The fp32 tolerance against float64, atol scaled by max |ref| (as
    run_decoder.py holds logits)."""
    excess = harness.toleranceExcess(got, expected, "f32",
                                     float(np.max(np.abs(expected))))
    err = float(np.max(np.abs(got.astype(np.float64) - expected)))
    return excess <= 1.0, (f"max |kiln - ref| {err:.2e}, {excess:.3f}x the "
                           "tolerance")


def profile_step(args, paths, context):
    """ncu over one step at `context`: the kernels summed, markdown (or the
    reason there is none)."""
    import kernel_profile

    ncu = kernel_profile.find_ncu()
    if ncu is None:
        return "not profiled: ncu not found"
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="kiln-decode-profile-")
    os.makedirs(out_dir, exist_ok=True)
    try:
        summary, _ = kernel_profile.profile_call(
            ncu, args.bin_dir, os.path.join(args.kit, "decoder.kiln"),
            [f"@{p}" for p in paths], out_dir, str(context), top=20)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        return f"not profiled: {e}"
    return summary


def cell(stats):
    return gpu.ms_cell(stats, digits=4)


def run(args):
    import torch

    import decoder_model

    with open(os.path.join(args.kit, "kit.json"), encoding="utf-8") as f:
        kit = json.load(f)
    config = kit["config"]
    for context in args.contexts:
        if not 0 < context < config["context"]:
            sys.exit(f"decode_bench: context {context} outside the decoder's "
                     f"1..{config['context'] - 1} positions")
    gpu.set_matmul_tf32(torch, False)
    model = decoder_model.CachedDecoder(**config)
    model.load_state_dict(torch.load(os.path.join(args.kit, "decoder.pt"),
                                     map_location="cpu"))
    model.eval()
    reference = decoder_model.CachedDecoder(**config).double().eval()
    reference.load_state_dict(model.state_dict())
    model = model.cuda()
    work = tempfile.mkdtemp(prefix="kiln-decode-bench-")
    run_args = argparse.Namespace(bin_dir=args.bin_dir, device="cuda",
                                  modules_dir=args.kit, warmup=args.warmup)
    rows = []
    for context in args.contexts:
        inputs = step_inputs(config, context, seed=context)
        paths = []
        for i, value in enumerate(inputs):
            paths.append(os.path.join(work, f"c{context}_in{i}.npy"))
            np.save(paths[-1], value)
        logits_path = os.path.join(work, f"c{context}_logits.npy")
        row = {"context": context}
        with torch.no_grad():
            expected = reference(*[
                torch.from_numpy(v).double() if v.dtype == np.float32
                else torch.from_numpy(v) for v in inputs])[0].numpy()
            try:
                report = gpu.run_kiln(run_args, "decoder.kiln", None,
                                      [f"@{p}" for p in paths], args.reps,
                                      [f"--output=@{logits_path}"])
                row["kiln"], clock = gpu.timed(report)
                if clock != "device":
                    raise RuntimeError("no device clock in the report")
                ok, row["kiln_check"] = check(np.load(logits_path), expected)
                row["kiln_ok"] = ok
            except RuntimeError as e:
                row["kiln"], row["kiln_ok"] = f"failed: {e}", False
            cuda = [torch.from_numpy(v).cuda() for v in inputs]
            eager = lambda: model(*cuda)  # noqa: E731
            ok, row["torch_check"] = check(eager()[0].cpu().numpy(), expected)
            row["torch_ok"] = ok
            row["eager"] = gpu.torch_device_times(torch, eager, args.warmup,
                                                  args.reps)
            graph = gpu.capture_cuda_graph(torch, eager)
            row["graph"] = gpu.torch_device_times(torch, graph.replay,
                                                  args.warmup, args.reps)
            del graph
        if args.profile:
            row["profile"] = profile_step(args, paths, context)
        rows.append(row)
        log(f"context {context}: Kiln {cell(row['kiln'])}, eager "
            f"{cell(row['eager'])}, graph {cell(row['graph'])} ms")
    lines = [f"Decode step, {gpu.gpu_description(torch)}; decoder "
             f"{config['layers']} layers, width {config['width']}, "
             f"{config['heads']} heads, vocab {config['vocab']}, f32"
             + "".join(f", --specialize={x}" for x in kit.get("specialize", []))
             + ". "
             f"Median (p10–p90) of {args.reps} calls, ms.", "",
             "| context | Kiln | PyTorch eager | eager + CUDA graph | "
             "Kiln ÷ graph | Kiln logits | PyTorch logits |",
             "| ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for row in rows:
        ratio = ("–" if isinstance(row["kiln"], str) else
                 f"{row['kiln']['median'] / row['graph']['median']:.2f}")
        kiln_check = ("FAIL " if not row["kiln_ok"] else "pass, ") + \
            row.get("kiln_check", "")
        lines.append(
            f"| {row['context']} | {cell(row['kiln'])} | {cell(row['eager'])} "
            f"| {cell(row['graph'])} | {ratio} | {kiln_check} | "
            f"{'pass' if row['torch_ok'] else 'FAIL'}, {row['torch_check']} |")
    for row in rows:
        if row.get("profile"):
            lines += ["", f"Kernels of a step at context {row['context']} "
                      "(ncu):", "", row["profile"]]
    table = "\n".join(lines)
    print(table)
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
        with open(os.path.join(args.out_dir, "decode_bench.md"), "w",
                  encoding="utf-8") as f:
            f.write(table + "\n")
        with open(os.path.join(args.out_dir, "decode_bench.json"), "w",
                  encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0 if all(r["kiln_ok"] for r in rows) else 1


def main():
    args = parse_args()
    if args.make_kit:
        make_kit(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
