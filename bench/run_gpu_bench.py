#!/usr/bin/env python3
"""Kiln's GPU benchmarks against PyTorch on the same GPU, in the same run.

Runs prebuilt modules (bench/compile.sh) with kiln-benchmark-module
--device=cuda and the PyTorch references in this process, then prints a
markdown table for bench/README.md on stdout (progress goes to stderr).
Numbers are printed, never asserted: a benchmark that fails shows its error
in the table and the others still run.

  python3 bench/run_gpu_bench.py --bin-dir build/bin --modules-dir MODULES

Needs numpy and torch with CUDA. bench/README.md says what each row
measures and how the numbers are computed.
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile
import time

# Kiln opens the driver API, torch the runtime: make both number GPUs alike
# (only matters on machines with more than one).
os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")

import numpy as np  # noqa: E402

MATMUL_N = 4096
ADD_N = 1 << 26
CHAIN_N = 1024
CHAIN_STEPS = 50
SOFTMAX_SHAPES = ((1, 1000), (64, 4096))

UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def log(message):
    print(message, file=sys.stderr, flush=True)


# --- statistics, defined as kiln-benchmark-module defines them -------------


def stats(samples):
    """Median, p10, p90 (linear interpolation) and median absolute deviation,
    in seconds."""
    values = np.asarray(samples, dtype=np.float64)
    median = float(np.median(values))
    return {
        "median": median,
        "p10": float(np.percentile(values, 10)),
        "p90": float(np.percentile(values, 90)),
        "mad": float(np.median(np.abs(values - median))),
        "count": len(values),
    }


# --- kiln-benchmark-module ---------------------------------------------------

DURATION = r"([0-9.]+) (s|ms|us|ns)"


def seconds(value, unit):
    return float(value) * UNITS[unit]


def parse_report(text):
    """The host and device sections of kiln-benchmark-module's report (see
    runtime/tooling/BenchmarkReport.h); device is None when not measured."""
    sections = {"host": None, "device": None}
    current = None
    for line in text.splitlines():
        header = re.match(r"^(host|device) time per call", line)
        if header:
            current = header.group(1)
            sections[current] = (
                None if "not measured" in line else {"count": None}
            )
            continue
        if current is None or sections[current] is None:
            continue
        section = sections[current]
        match = re.match(r"^\s+median\s+" + DURATION + r"$", line)
        if match:
            section["median"] = seconds(*match.groups())
        match = re.match(r"^\s+p10-p90\s+" + DURATION + " - " + DURATION, line)
        if match:
            section["p10"] = seconds(*match.groups()[0:2])
            section["p90"] = seconds(*match.groups()[2:4])
        match = re.match(r"^\s+MAD\s+" + DURATION, line)
        if match:
            section["mad"] = seconds(*match.groups())
    for name, section in sections.items():
        if section is not None and "median" not in section:
            raise RuntimeError(f"no {name} median in the report:\n{text}")
    return sections


def timed(report):
    """The device clock's numbers, or the host's on a device without one
    (a dry run on a CPU device)."""
    if report["device"] is not None:
        return report["device"], "device"
    return report["host"], "host"


def run_kiln(args, module, function, inputs, repetitions, extra=()):
    command = [
        os.path.join(args.bin_dir, "kiln-benchmark-module"),
        f"--device={args.device}",
        f"--module={os.path.join(args.modules_dir, module)}",
        # None: the module's only function.
        *([f"--function={function}"] if function else []),
        *[f"--input={value}" for value in inputs],
        f"--benchmark_repetitions={repetitions}",
        f"--warmup={args.warmup}",
        *extra,
    ]
    log("$ " + " ".join(command))
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip().splitlines()
        raise RuntimeError(message[-1] if message else "exit %d" % result.returncode)
    log(result.stdout.rstrip())
    report = parse_report(result.stdout)
    for repeat in report.values():
        if repeat is not None:
            repeat["count"] = repetitions
    return report


# --- PyTorch -----------------------------------------------------------------


def torch_device_times(torch, fn, warmup, repetitions):
    """CUDA events around each call on torch's stream, one call at a time,
    as kiln-benchmark-module's device clock times each call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(repetitions):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e-3)
    return stats(samples)


def torch_host_times(torch, fn, warmup, repetitions):
    """The host's clock around each call and the wait for it, as
    kiln-benchmark-module's host clock times each call."""
    for _ in range(warmup):
        fn()
        torch.cuda.synchronize()
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append(time.perf_counter() - start)
    return stats(samples)


def set_matmul_tf32(torch, on=False):
    """TF32 for f32 matmuls on or off, through one API only: PyTorch refuses
    to read its TF32 state once both the legacy and the new one were
    written. Returns the setting as a note."""
    matmul = torch.backends.cuda.matmul
    if hasattr(matmul, "fp32_precision"):
        matmul.fp32_precision = "tf32" if on else "ieee"
        return f"torch.backends.cuda.matmul.fp32_precision = '{matmul.fp32_precision}'"
    matmul.allow_tf32 = on
    return f"torch.backends.cuda.matmul.allow_tf32 = {on}"


# --- the benchmarks ------------------------------------------------------------


class Row:
    def __init__(self, name):
        self.name = name
        self.kiln = None  # formatted metric
        self.reference_name = ""
        self.reference = None
        self.ratio = None  # Kiln's speed / the reference's
        self.kiln_time = None  # stats dict
        self.kiln_time_kind = ""
        self.reference_time = None
        self.error = None


def add_kit_arguments(parser, reps, warmup):
    """The options a benchmark made of a kit shares: where the kit is,
    whether to make it here, the tools, the GPU's target, repetitions."""
    parser.add_argument("--kit", required=True)
    parser.add_argument("--make-kit", action="store_true",
                        help="write the model and inputs and compile the "
                        "module into --kit, then stop")
    parser.add_argument("--bin-dir", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build",
        "bin"))
    parser.add_argument("--cuda-target", default="sm_90a")
    parser.add_argument("--reps", type=int, default=reps)
    parser.add_argument("--warmup", type=int, default=warmup)


def check_note(name, ok, detail):
    return f"{name}: result {'matches' if ok else 'DOES NOT MATCH'} the reference ({detail})"


def relative_error_note(name, got, expected, dtype):
    """The check of a result against torch's, relative to torch's largest
    magnitude: within 1e-4 for f32, 1e-2 for f16."""
    error = float(np.max(np.abs(got - expected)) / np.max(np.abs(expected)))
    bound = 1e-4 if dtype == "f32" else 1e-2
    return check_note(
        name, error <= bound,
        f"max |Kiln - torch| / max |torch| = {error:.1e}, bound {bound:.0e}")


def capture_cuda_graph(torch, fn):
    """`fn` captured in a CUDA graph, after the warm-up on a side stream that
    torch asks for before a capture."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


def matmul_rows(args, torch, work, notes):
    rows = []
    flops = 2.0 * MATMUL_N**3
    rng = np.random.default_rng(7)
    a32 = rng.standard_normal((MATMUL_N, MATMUL_N), dtype=np.float32)
    b32 = rng.standard_normal((MATMUL_N, MATMUL_N), dtype=np.float32)
    for dtype, label in (("f32", "TF32 off"), ("f16", "f32 accumulation")):
        row = Row(f"matmul {dtype} {MATMUL_N}³ ({label}), TFLOP/s")
        rows.append(row)
        np_type = np.float32 if dtype == "f32" else np.float16
        a, b = a32.astype(np_type), b32.astype(np_type)
        a_path = os.path.join(work, f"matmul_{dtype}_a.npy")
        b_path = os.path.join(work, f"matmul_{dtype}_b.npy")
        out_path = os.path.join(work, f"matmul_{dtype}_out.npy")
        np.save(a_path, a)
        np.save(b_path, b)
        row.reference_name = "torch.matmul"
        ta = torch.from_numpy(a).cuda()
        tb = torch.from_numpy(b).cuda()
        reference = torch_device_times(
            torch, lambda: torch.matmul(ta, tb), args.warmup, args.matmul_reps
        )
        row.reference_time = reference
        row.reference = f"{flops / reference['median'] / 1e12:.1f}"
        expected = torch.matmul(ta, tb).float().cpu().numpy()
        del ta, tb
        torch.cuda.empty_cache()
        try:
            report = run_kiln(
                args,
                f"matmul_{dtype}.kiln",
                "matmul",
                [f"@{a_path}", f"@{b_path}"],
                args.matmul_reps,
                [f"--output=@{out_path}"],
            )
        except RuntimeError as error:
            row.error = str(error)
            continue
        device, kind = timed(report)
        row.kiln_time, row.kiln_time_kind = device, kind
        row.kiln = f"{flops / device['median'] / 1e12:.1f}"
        row.ratio = reference["median"] / device["median"]
        notes.append(relative_error_note(
            f"matmul {dtype}", np.load(out_path).astype(np.float32), expected,
            dtype))
    return rows


def add_rows(args, torch, work, notes):
    rng = np.random.default_rng(8)
    a = rng.standard_normal(ADD_N, dtype=np.float32)
    b = rng.standard_normal(ADD_N, dtype=np.float32)
    a_path = os.path.join(work, "add_a.npy")
    b_path = os.path.join(work, "add_b.npy")
    out_path = os.path.join(work, "add_out.npy")
    np.save(a_path, a)
    np.save(b_path, b)
    element = 4
    add_bytes = 3 * ADD_N * element  # two operands read, one result written
    copy_bytes = 2 * ADD_N * element  # one tensor read, one written

    ta = torch.from_numpy(a).cuda()
    tb = torch.from_numpy(b).cuda()
    tc = torch.empty_like(ta)
    copy = torch_device_times(
        torch, lambda: tc.copy_(ta), args.warmup, args.add_reps
    )
    torch_add = torch_device_times(
        torch, lambda: torch.add(ta, tb, out=tc), args.warmup, args.add_reps
    )
    del ta, tb, tc
    torch.cuda.empty_cache()

    versus_copy = Row("add 2^26 f32, GB/s (read + written)")
    versus_copy.reference_name = "device-to-device copy of 2^26 f32 (Tensor.copy_)"
    versus_copy.reference = f"{copy_bytes / copy['median'] / 1e9:.0f}"
    versus_copy.reference_time = copy
    versus_add = Row("add 2^26 f32, GB/s (read + written)")
    versus_add.reference_name = "torch.add"
    versus_add.reference = f"{add_bytes / torch_add['median'] / 1e9:.0f}"
    versus_add.reference_time = torch_add
    rows = [versus_copy, versus_add]
    try:
        report = run_kiln(
            args, "add.kiln", "add", [f"@{a_path}", f"@{b_path}"],
            args.add_reps, [f"--output=@{out_path}"],
        )
    except RuntimeError as error:
        for row in rows:
            row.error = str(error)
        return rows
    device, kind = timed(report)
    kiln_rate = add_bytes / device["median"]
    for row in rows:
        row.kiln_time, row.kiln_time_kind = device, kind
        row.kiln = f"{kiln_rate / 1e9:.0f}"
    versus_copy.ratio = kiln_rate / (copy_bytes / copy["median"])
    versus_add.ratio = torch_add["median"] / device["median"]
    got = np.load(out_path)
    notes.append(check_note("add", np.array_equal(got, a + b), "exact"))
    return rows


def chain_rows(args, torch, work, notes):
    x = np.arange(CHAIN_N, dtype=np.float32)
    x_path = os.path.join(work, "chain50_x.npy")
    out_path = os.path.join(work, "chain50_out.npy")
    np.save(x_path, x)

    # The references: 50 dependent one-kernel steps on 1024 floats.
    tx = torch.from_numpy(x).cuda()

    def eager():
        y = tx
        for _ in range(CHAIN_STEPS):
            y = y + 1
        return y

    graph = capture_cuda_graph(torch, eager)
    graph_times = torch_host_times(torch, graph.replay, args.warmup,
                                   args.chain_reps)
    graph_device = torch_device_times(torch, graph.replay, args.warmup,
                                      args.chain_reps)
    eager_times = torch_host_times(torch, eager, args.warmup, args.chain_reps)
    notes.append(
        f"chain50, torch CUDA graph: device time per call "
        f"{format_time(graph_device)}; host overhead per call (host median "
        f"− device median) {(graph_times['median'] - graph_device['median']) * 1e6:.1f} µs"
    )

    rows = []
    for mode, extra, reference_name, reference in (
        ("CUDA graph (default)", [], "torch.cuda.CUDAGraph replay of 50 "
         "dependent kernels", graph_times),
        ("--cuda_use_streams", ["--cuda_use_streams"], "torch eager, 50 "
         "dependent kernel launches", eager_times),
    ):
        row = Row(f"chain50 ({CHAIN_STEPS} dispatches), {mode}, host µs/call")
        row.reference_name = reference_name
        row.reference = f"{reference['median'] * 1e6:.1f}"
        row.reference_time = reference
        rows.append(row)
        try:
            report = run_kiln(
                args, "chain50.kiln", "chain50", [f"@{x_path}"],
                args.chain_reps, [*extra, f"--output=@{out_path}"],
            )
        except RuntimeError as error:
            row.error = str(error)
            continue
        host = report["host"]
        row.kiln_time, row.kiln_time_kind = host, "host"
        row.kiln = f"{host['median'] * 1e6:.1f}"
        row.ratio = reference["median"] / host["median"]
        if report["device"] is not None:
            # What the host adds to a synchronous call beyond the GPU's own
            # time: issuing, and learning that the GPU is done.
            overhead = host["median"] - report["device"]["median"]
            notes.append(
                f"chain50, {mode}: device time per call "
                f"{format_time(report['device'])}; host overhead per call "
                f"(host median − device median) {overhead * 1e6:.1f} µs"
            )
        got = np.load(out_path)
        notes.append(
            check_note(f"chain50, {mode}", np.array_equal(got, x + CHAIN_STEPS),
                       "x + 50, exact")
        )
    return rows


def softmax_rows(args, torch, work, notes):
    rows = []
    rng = np.random.default_rng(9)
    for m, n in SOFTMAX_SHAPES:
        name = f"softmax_{m}x{n}"
        x = rng.standard_normal((m, n), dtype=np.float32)
        x_path = os.path.join(work, f"{name}_x.npy")
        out_path = os.path.join(work, f"{name}_out.npy")
        np.save(x_path, x)
        row = Row(f"softmax {m}x{n} f32 over rows, device µs/call")
        rows.append(row)
        row.reference_name = "torch.softmax(x, dim=1)"
        tx = torch.from_numpy(x).cuda()
        reference = torch_device_times(
            torch, lambda: torch.softmax(tx, dim=1), args.warmup,
            args.softmax_reps,
        )
        row.reference_time = reference
        row.reference = f"{reference['median'] * 1e6:.1f}"
        del tx
        try:
            report = run_kiln(
                args, f"{name}.kiln", "softmax", [f"@{x_path}"],
                args.softmax_reps, [f"--output=@{out_path}"],
            )
        except RuntimeError as error:
            row.error = str(error)
            continue
        device, kind = timed(report)
        row.kiln_time, row.kiln_time_kind = device, kind
        row.kiln = f"{device['median'] * 1e6:.1f}"
        row.ratio = reference["median"] / device["median"]
        wide = x.astype(np.float64)
        exp = np.exp(wide - wide.max(axis=1, keepdims=True))
        expected = exp / exp.sum(axis=1, keepdims=True)
        error = np.abs(np.load(out_path).astype(np.float64) - expected)
        notes.append(
            check_note(
                f"softmax {m}x{n}",
                bool(np.all(error <= 1e-5 + 1e-4 * np.abs(expected))),
                f"max |Kiln - float64| = {error.max():.1e}, fp32 tolerance "
                "1e-5 + 1e-4 |ref|",
            )
        )
    return rows


# (name, function, input shapes: NHWC input, HWCF / HWC filter; kind)
CONV_CASES = (
    ("conv 1x56x56x64 * 3x3x64x64", "conv56", ((1, 58, 58, 64), (3, 3, 64, 64)),
     "conv"),
    ("conv 1x14x14x256 * 3x3x256x256", "conv14",
     ((1, 16, 16, 256), (3, 3, 256, 256)), "conv"),
    ("depthwise 1x112x112x32 * 3x3", "depthwise112",
     ((1, 114, 114, 32), (3, 3, 32)), "depthwise"),
    ("max pool 1x113x113x64 3x3 stride 2", "maxpool112", ((1, 113, 113, 64),),
     "maxpool"),
)


def set_conv_tf32(torch, on=False):
    """TF32 for f32 convolutions on (cuDNN's default) or off, through one
    API only, as for matmuls."""
    cudnn = torch.backends.cudnn
    if hasattr(cudnn, "conv") and hasattr(cudnn.conv, "fp32_precision"):
        cudnn.conv.fp32_precision = "tf32" if on else "ieee"
        return f"torch.backends.cudnn.conv.fp32_precision = '{cudnn.conv.fp32_precision}'"
    cudnn.allow_tf32 = on
    return f"torch.backends.cudnn.allow_tf32 = {on}"


def conv_rows(args, torch, work, notes):
    """The layers of bench/conv.mlir (f32) and conv_f16.mlir, each against
    torch.nn.functional on the same inputs in channels-last layout (for
    which cuDNN runs NHWC kernels), in device µs per call."""
    functional = torch.nn.functional
    rows = []
    rng = np.random.default_rng(10)
    for dtype in ("f32", "f16"):
        np_type = np.float32 if dtype == "f32" else np.float16
        module = "conv.kiln" if dtype == "f32" else "conv_f16.kiln"
        for name, function, shapes, kind in CONV_CASES:
            if dtype == "f16" and kind != "conv":
                continue
            row = Row(f"{name} {dtype}, device µs/call")
            rows.append(row)
            arrays = [rng.standard_normal(shape, dtype=np.float32).astype(np_type)
                      for shape in shapes]
            paths = []
            for i, array in enumerate(arrays):
                paths.append(os.path.join(work, f"{function}_{dtype}_{i}.npy"))
                np.save(paths[-1], array)
            out_path = os.path.join(work, f"{function}_{dtype}_out.npy")
            # NCHW views of NHWC memory: channels-last tensors.
            x = torch.from_numpy(arrays[0]).cuda().permute(0, 3, 1, 2)
            if kind == "conv":
                w = np.ascontiguousarray(arrays[1].transpose(3, 0, 1, 2))
                tw = torch.from_numpy(w).cuda().permute(0, 3, 1, 2)
                row.reference_name = "torch.nn.functional.conv2d"
                fn = lambda: functional.conv2d(x, tw)  # noqa: E731
            elif kind == "depthwise":
                w = np.ascontiguousarray(
                    arrays[1].transpose(2, 0, 1)[:, :, :, None])
                tw = torch.from_numpy(w).cuda().permute(0, 3, 1, 2)
                groups = arrays[1].shape[2]
                row.reference_name = "torch.nn.functional.conv2d, groups = C"
                fn = lambda: functional.conv2d(x, tw, groups=groups)  # noqa: E731
            else:
                row.reference_name = "torch.nn.functional.max_pool2d"
                fn = lambda: functional.max_pool2d(x, 3, stride=2)  # noqa: E731
            reference = torch_device_times(torch, fn, args.warmup, args.conv_reps)
            row.reference_time = reference
            row.reference = f"{reference['median'] * 1e6:.1f}"
            expected = fn().permute(0, 2, 3, 1).float().cpu().numpy()
            try:
                report = run_kiln(
                    args, module, function, [f"@{p}" for p in paths],
                    args.conv_reps, [f"--output=@{out_path}"],
                )
            except RuntimeError as error:
                row.error = str(error)
                continue
            device, time_kind = timed(report)
            row.kiln_time, row.kiln_time_kind = device, time_kind
            row.kiln = f"{device['median'] * 1e6:.1f}"
            row.ratio = reference["median"] / device["median"]
            notes.append(relative_error_note(
                f"{function} {dtype}", np.load(out_path).astype(np.float32),
                expected, dtype))
    return rows


# --- output ------------------------------------------------------------------


def ms_cell(stats, digits=3):
    """A table cell: median (p10–p90) in ms, or the text of a run that
    gave none."""
    if isinstance(stats, str):
        return stats
    if stats is None:
        return "–"
    return (f"{stats['median'] * 1e3:.{digits}f} ({stats['p10'] * 1e3:.{digits}f}"
            f"–{stats['p90'] * 1e3:.{digits}f})")


def format_time(s):
    if s is None:
        return "–"
    median = s["median"]
    scale, unit = (1e3, "ms") if median >= 1e-3 else (1e6, "µs")
    return (f"{median * scale:.3f} {unit} ({s['p10'] * scale:.3f}–"
            f"{s['p90'] * scale:.3f}, MAD {100 * s['mad'] / median:.1f}%)"
            if median > 0 else "0")


def gpu_description(torch):
    name = torch.cuda.get_device_name(0)
    driver = ""
    try:
        driver = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader",
             "-i", "0"], capture_output=True, text=True, timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    parts = [name]
    if driver:
        parts.append(f"driver {driver}")
    parts.append(f"PyTorch {torch.__version__} (CUDA {torch.version.cuda})")
    return ", ".join(parts)


def print_markdown(rows, notes, header):
    print(header)
    print()
    print("| Benchmark | Kiln | Reference (same GPU, same run) | Reference | "
          "Kiln ÷ reference (speed, > 1: Kiln faster) | Kiln per call: median "
          "(p10–p90, MAD) | Reference per call |")
    print("| --- | ---: | --- | ---: | ---: | --- | --- |")
    for row in rows:
        kiln = row.kiln if row.error is None else f"failed: {row.error}"
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "–"
        kiln_time = format_time(row.kiln_time)
        if row.kiln_time is not None:
            kiln_time = f"{row.kiln_time_kind}: {kiln_time}"
        print(f"| {row.name} | {kiln or '–'} | {row.reference_name} | "
              f"{row.reference or '–'} | {ratio} | {kiln_time} | "
              f"{format_time(row.reference_time)} |")
    print()
    for note in notes:
        print(f"- {note}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", required=True,
                        help="holds kiln-benchmark-module")
    parser.add_argument("--modules-dir", required=True,
                        help="holds the modules of bench/compile.sh")
    parser.add_argument("--work-dir", default=None,
                        help="for input and output .npy files (default: a "
                        "temporary directory, removed after)")
    parser.add_argument("--device", default="cuda",
                        help="Kiln's device (cuda, cuda:N); torch uses cuda:0")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--matmul-reps", type=int, default=50)
    parser.add_argument("--add-reps", type=int, default=200)
    parser.add_argument("--chain-reps", type=int, default=2000)
    parser.add_argument("--softmax-reps", type=int, default=500)
    parser.add_argument("--conv-reps", type=int, default=200)
    parser.add_argument("--only", default="matmul,add,chain50,softmax,conv",
                        help="comma-separated subset of "
                        "matmul,add,chain50,softmax,conv")
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        log("run_gpu_bench: torch sees no CUDA device")
        return 2
    tf32 = set_matmul_tf32(torch)
    conv_tf32 = set_conv_tf32(torch)
    # cuBLAS may otherwise reduce f16 matmuls in f16; Kiln accumulates in f32.
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False

    started = datetime.datetime.now(datetime.timezone.utc)
    notes = [tf32, "torch.backends.cuda.matmul."
             "allow_fp16_reduced_precision_reduction = False", conv_tf32]
    rows = []
    wanted = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work_dir or scratch
        os.makedirs(work, exist_ok=True)
        for name, function in (("matmul", matmul_rows), ("add", add_rows),
                               ("chain50", chain_rows),
                               ("softmax", softmax_rows),
                               ("conv", conv_rows)):
            if name in wanted:
                log(f"== {name}")
                rows += function(args, torch, work, notes)
    header = (f"Measured {started:%Y-%m-%d %H:%M} UTC on {gpu_description(torch)}; "
              f"medians of {args.matmul_reps} (matmul), {args.add_reps} (add), "
              f"{args.chain_reps} (chain50), {args.softmax_reps} (softmax) "
              f"and {args.conv_reps} (conv) calls after {args.warmup} warm-up "
              f"calls.")
    print_markdown(rows, notes, header)
    return 0


if __name__ == "__main__":
    sys.exit(main())
