#!/usr/bin/env python3
"""MobileNetV2 and ResNet50 at batch 1, imported from ONNX and run by
kiln-benchmark-module, against a reference on the same machine in the same
run: onnxruntime's CPU execution provider for --device local-task, PyTorch
eager and a CUDA graph of it for --device cuda. Prints a markdown table
(progress on stderr); numbers are printed, never asserted.

Two steps, which may run on different machines:

  # a kit: the models exported (tests/models/export_models.py) and compiled
  # (needs torch, torchvision, onnx and kiln-compile)
  python3 bench/onnx_bench.py --bin-dir build/bin --kit KIT --make-kit \\
      --target-device cuda --cuda-target sm_90a --no-run
  # run it (needs kiln-benchmark-module, numpy, and onnxruntime or torch
  # with CUDA; torchvision is used when present, else the traced models)
  python3 bench/onnx_bench.py --bin-dir build/bin --kit KIT --device cuda

On the CPU both at once, in the environment of scripts/bench-venv.sh
(Debian's packages plus onnxruntime):

  build/bench-venv/bin/python bench/onnx_bench.py --bin-dir build/bin \\
      --kit build/onnx-bench-cpu --make-kit

bench/README.md says how the figures are computed.
"""

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
import onnxharness as harness  # noqa: E402
import run_gpu_bench as gpu  # noqa: E402

MODELS = ("mobilenetv2", "resnet50")
log = gpu.log


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="holds kiln-benchmark-module (and kiln-compile for "
                   "--make-kit)")
    p.add_argument("--kit", required=True,
                   help="the kit directory (written by --make-kit)")
    p.add_argument("--make-kit", action="store_true",
                   help="export and compile the models into --kit first")
    p.add_argument("--no-run", action="store_true",
                   help="only make the kit")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--opset", type=int, default=17,
                   help="ONNX opset the models are exported at (default 17)")
    p.add_argument("--target-device", default="cpu",
                   help="kiln-compile --target-device for --make-kit")
    p.add_argument("--cuda-target", default="",
                   help="kiln-compile --cuda-target for --make-kit")
    p.add_argument("--device", default="local-task",
                   help="local-task (against onnxruntime) or cuda, cuda:N "
                   "(against PyTorch on cuda:0)")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                   help="CPU threads for both Kiln's local-task workers and "
                   "onnxruntime's intra-op pool (default: all)")
    p.add_argument("--reps", type=int, default=0,
                   help="timed calls per engine (default 20 on the CPU, 200 "
                   "on cuda)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--torch-weights", choices=("kit", "random"),
                   default="kit",
                   help="cuda: PyTorch runs the kit's weights (state.pt, "
                   "checked against float64) or torchvision's random "
                   "initialization (timing only, for a kit carried without "
                   "state.pt)")
    args = p.parse_args()
    args.kit = os.path.abspath(args.kit)
    args.cuda = args.device.startswith("cuda")
    args.reps = args.reps or (200 if args.cuda else 20)
    return args


# --- the kit -------------------------------------------------------------------


def make_kit(args):
    """Exports the models into KIT/export and compiles each into
    KIT/<model>.kiln; returns False when any step failed."""
    export_dir = os.path.join(args.kit, "export")
    command = [sys.executable,
               os.path.join(REPO, "tests", "models", "export_models.py"),
               "--out", export_dir, "--models", args.models,
               "--opsets", str(args.opset), "--torch-files"]
    log("$ " + " ".join(command))
    if subprocess.run(command).returncode != 0:
        log("onnx_bench: export_models.py failed")
        return False
    entries, ok = [], True
    for model in args.models.split(","):
        exported = os.path.join(export_dir, f"{model}_opset{args.opset}")
        module = os.path.join(args.kit, f"{model}.kiln")
        compiled = harness.compileOnnx(
            args.bin_dir, os.path.join(exported, "model.onnx"), module,
            args.target_device, args.cuda_target, timeout=3600)
        log(f"compiled {model} for {args.target_device} in "
            f"{compiled.seconds:.1f}s" +
            (f": {compiled.reason}" if compiled.reason else ""))
        ok &= compiled.status == harness.PASS
        rel = lambda p: os.path.relpath(p, args.kit)  # noqa: E731
        entries.append(harness.KitEntry(
            model,
            [harness.DataSet([os.path.join(exported, "input.npy")],
                             [os.path.join(exported, "expected.npy")])],
            compiled.status, compiled.reason,
            module if compiled.status == harness.PASS else None,
            {"onnx": rel(os.path.join(exported, "model.onnx")),
             "state": rel(os.path.join(export_dir, model, "state.pt")),
             "traced": rel(os.path.join(export_dir, model, "traced.pt")),
             "compile_seconds": round(compiled.seconds, 1)}))
    harness.writeKit(args.kit, {"target_device": args.target_device,
                                "cuda_target": args.cuda_target,
                                "opset": args.opset}, entries)
    return ok


# --- timing --------------------------------------------------------------------


def kiln_times(args, entry, work):
    """kiln-benchmark-module's report for the entry; also checks its
    output against the float64 reference. Returns (report, note)."""
    out = os.path.join(work, f"{entry.name}_kiln.npy")
    device = args.device
    if not args.cuda:
        device = f"local-task://?workers={args.threads}"
    run_args = argparse.Namespace(bin_dir=args.bin_dir, device=device,
                                  modules_dir=args.kit, warmup=args.warmup)
    report = gpu.run_kiln(run_args, os.path.relpath(entry.module, args.kit),
                          None, [f"@{entry.sets[0].inputs[0]}"], args.reps,
                          [f"--output=@{out}"])
    return report, check(f"{entry.name}, Kiln", np.load(out), entry)


def check(label, got, entry):
    expected = np.load(entry.sets[0].outputs[0])
    ok, err, detail = harness.checkOutput(np.asarray(got), expected,
                                          scaleByMax=True)
    return gpu.check_note(
        label, ok, f"max |out - float64 ref| = {err:.1e}; tolerance 1e-5 "
        "max|ref| + 1e-4 |ref|" + (f"; {detail}" if detail else ""))


def ort_rows(args, entries, work, notes):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    notes.append(f"onnxruntime {ort.__version__}, CPUExecutionProvider, "
                 f"{args.threads} intra-op threads, graph optimizations "
                 "at their default (all); Kiln on "
                 f"local-task://?workers={args.threads}")
    rows = []
    for entry in entries:
        row = gpu.Row(f"{entry.name} batch 1, host ms/call")
        row.reference_name = "onnxruntime CPUExecutionProvider"
        rows.append(row)
        session = ort.InferenceSession(
            os.path.join(args.kit, entry.info["onnx"]), options,
            providers=["CPUExecutionProvider"])
        x = np.load(entry.sets[0].inputs[0])
        feed = {session.get_inputs()[0].name: x}
        run = lambda: session.run(None, feed)  # noqa: E731
        notes.append(check(f"{entry.name}, onnxruntime", run()[0], entry))
        for _ in range(args.warmup):
            run()
        samples = []
        for _ in range(args.reps):
            start = time.perf_counter()
            run()
            samples.append(time.perf_counter() - start)
        row.reference_time = gpu.stats(samples)
        row.reference = f"{row.reference_time['median'] * 1e3:.2f}"
        if entry.module is None:
            row.error = entry.reason
            continue
        try:
            report, note = kiln_times(args, entry, work)
        except RuntimeError as error:
            row.error = str(error)
            continue
        notes.append(note)
        row.kiln_time, row.kiln_time_kind = report["host"], "host"
        row.kiln = f"{row.kiln_time['median'] * 1e3:.2f}"
        row.ratio = row.reference_time["median"] / row.kiln_time["median"]
    return rows


def torch_model(torch, args, entry, notes):
    """The model on cuda:0: torchvision's architecture with the kit's
    weights, or the traced TorchScript where torchvision is missing."""
    try:
        import torchvision
        model = getattr(torchvision.models, {
            "mobilenetv2": "mobilenet_v2", "resnet50": "resnet50"}[entry.name])()
        if args.torch_weights == "kit":
            state = torch.load(os.path.join(args.kit, entry.info["state"]),
                               map_location="cpu")
            model.load_state_dict(state)
        kind = f"eager (torchvision {torchvision.__version__}, " + (
            "the kit's weights)" if args.torch_weights == "kit" else
            "random weights: timing only)")
    except ImportError:
        model = torch.jit.load(os.path.join(args.kit, entry.info["traced"]),
                               map_location="cpu")
        kind = "TorchScript trace (no torchvision here)"
    notes.append(f"{entry.name}: PyTorch runs {kind}")
    return model.eval().cuda()


def torch_rows(args, entries, work, notes):
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("torch sees no CUDA device")
    notes += [gpu.set_matmul_tf32(torch), gpu.set_conv_tf32(torch),
              "torch.backends.cudnn.benchmark = True",
              "the TF32 rows: " + gpu.set_matmul_tf32(torch, True) + ", " +
              gpu.set_conv_tf32(torch, True) + " (PyTorch's default for "
              "convolutions), for that graph only"]
    gpu.set_matmul_tf32(torch)
    gpu.set_conv_tf32(torch)
    torch.backends.cudnn.benchmark = True
    rows = []
    for entry in entries:
        model = torch_model(torch, args, entry, notes)
        x = torch.from_numpy(np.load(entry.sets[0].inputs[0])).cuda()
        with torch.inference_mode():
            eager = lambda: model(x)  # noqa: E731
            if args.torch_weights == "kit":
                notes.append(check(f"{entry.name}, PyTorch",
                                   eager().float().cpu().numpy(), entry))
            graph = gpu.capture_cuda_graph(torch, eager)
            references = {
                ("device", "eager"): gpu.torch_device_times(
                    torch, eager, args.warmup, args.reps),
                ("host", "eager"): gpu.torch_host_times(
                    torch, eager, args.warmup, args.reps),
                ("device", "graph"): gpu.torch_device_times(
                    torch, graph.replay, args.warmup, args.reps),
                ("host", "graph"): gpu.torch_host_times(
                    torch, graph.replay, args.warmup, args.reps),
            }
            # PyTorch as it runs by default: convolutions on TF32 tensor
            # cores (about 1e-3 relative error, which Kiln's f32 tolerance
            # would refuse).
            gpu.set_matmul_tf32(torch, True)
            gpu.set_conv_tf32(torch, True)
            tf32 = gpu.capture_cuda_graph(torch, eager)
            references[("device", "graph_tf32")] = gpu.torch_device_times(
                torch, tf32.replay, args.warmup, args.reps)
            references[("host", "graph_tf32")] = gpu.torch_host_times(
                torch, tf32.replay, args.warmup, args.reps)
            gpu.set_matmul_tf32(torch)
            gpu.set_conv_tf32(torch)
        del graph, tf32, model, x
        torch.cuda.empty_cache()
        report, error = None, entry.reason if entry.module is None else None
        if entry.module is not None:
            try:
                report, note = kiln_times(args, entry, work)
                notes.append(note)
            except RuntimeError as e:
                error = str(e)
        for clock in ("device", "host"):
            for mode, label in (("eager", "PyTorch eager"),
                                ("graph", "PyTorch eager captured in a "
                                 "torch.cuda.CUDAGraph, replayed"),
                                ("graph_tf32", "the same CUDA graph with "
                                 "TF32 convolutions and matmuls")):
                row = gpu.Row(f"{entry.name} batch 1, {clock} ms/call")
                row.reference_name = label
                row.reference_time = references[(clock, mode)]
                row.reference = f"{row.reference_time['median'] * 1e3:.3f}"
                rows.append(row)
                if error is not None or report[clock] is None:
                    row.error = error or f"no {clock} time"
                    continue
                row.kiln_time, row.kiln_time_kind = report[clock], clock
                row.kiln = f"{row.kiln_time['median'] * 1e3:.3f}"
                row.ratio = (row.reference_time["median"] /
                             row.kiln_time["median"])
    return rows


# --- output --------------------------------------------------------------------


def cpu_description():
    name = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    return f"{name}, {os.cpu_count()} CPUs (load average {load})"


def print_markdown(rows, notes, header):
    print(header)
    print()
    print("| Benchmark | Kiln | Reference (same machine, same run) | "
          "Reference | Kiln ÷ reference (speed, > 1: Kiln faster) | Kiln per "
          "call: median (p10–p90, MAD) | Reference per call |")
    print("| --- | ---: | --- | ---: | ---: | --- | --- |")
    for row in rows:
        kiln = row.kiln if row.error is None else f"failed: {row.error}"
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "–"
        kiln_time = gpu.format_time(row.kiln_time)
        if row.kiln_time is not None:
            kiln_time = f"{row.kiln_time_kind}: {kiln_time}"
        print(f"| {row.name} | {kiln or '–'} | {row.reference_name} | "
              f"{row.reference or '–'} | {ratio} | {kiln_time} | "
              f"{gpu.format_time(row.reference_time)} |")
    print()
    for note in notes:
        print(f"- {note}")


def main():
    args = parse_args()
    if args.make_kit:
        os.makedirs(args.kit, exist_ok=True)
        if not make_kit(args):
            log("onnx_bench: some models did not compile; their rows say why")
    if args.no_run:
        return 0
    try:
        meta, entries = harness.readKit(args.kit)
    except ValueError as e:
        log(f"onnx_bench: {e}")
        return 2
    targets = meta.get("target_device", "").split(",")
    if ("cuda" if args.cuda else "cpu") not in targets:
        log(f"onnx_bench: the kit was compiled for {meta.get('target_device')}, "
            f"not for {args.device}")
        return 2
    wanted = args.models.split(",")
    entries = [e for e in entries if e.name in wanted]
    started = datetime.datetime.now(datetime.timezone.utc)
    notes = []
    work = tempfile.mkdtemp(prefix="kiln-onnx-bench-")
    try:
        if args.cuda:
            import torch
            rows = torch_rows(args, entries, work, notes)
            machine = gpu.gpu_description(torch)
        else:
            machine = cpu_description()
            rows = ort_rows(args, entries, work, notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    header = (f"Measured {started:%Y-%m-%d %H:%M} UTC on {machine}; ONNX "
              f"opset {meta.get('opset')}; medians of {args.reps} calls "
              f"after {args.warmup} warm-up calls.")
    print_markdown(rows, notes, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())
