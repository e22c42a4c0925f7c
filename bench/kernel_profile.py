"""A per-kernel time breakdown of a Kiln module on the GPU, with what each
kernel computes.

Two halves, for the two machines of bench/model_bench.py:

  describe_dispatches(bin_dir, onnx, cuda_target)
      where the compiler is: compiles the model once more with MLIR's
      --mlir-print-ir-after-all and reads, for each dispatch function, its
      ops as dispatch formation left them (a linalg.generic is named by its
      loops and body: a contraction, a sum or max reduction, or elementwise
      with its arithmetic) and the attributes the GPU code generator gave
      it (kiln.lowering_config: the kernel kind and tiles; the workgroup
      size). Returns {entry point name: {"ops": ..., "config": ...}}.

  profile(ncu, bench_argv, csv_path) and summarize(csv_path, descriptions)
      where the GPU is: runs kiln-benchmark-module under Nsight Compute
      (`ncu --metrics gpu__time_duration.sum`, clocks and caches left as
      they are), keeps the launches of the last call (the sequence of
      kernel names repeats once per call) and sums them by kernel, grid
      and block, largest first, as markdown.

Needs the standard library only.
"""

import collections
import csv
import glob
import os
import re
import shutil
import subprocess
import tempfile

SECTION = re.compile(r"^// -----// IR Dump After (\w+)")
HEADER = re.compile(r"^  func\.func private @(\w+)\((.*?)\)(?: -> (.*?))?"
                    r"(?: attributes \{(.*)\})? \{$")
TYPE = re.compile(r"(?:tensor|memref)<([0-9x]*[a-z][a-z0-9]*)>")
# Ops that only name or initialize buffers.
QUIET = {"tensor.empty", "tensor.expand_shape", "tensor.collapse_shape",
         "linalg.fill", "linalg.yield", "linalg.index"}


def _generic_label(iterators, operands, body):
    """contraction, reduction(body ops) or elementwise(body ops), with the
    loop counts: [3p+1r] is three parallel loops and one reduction."""
    parallel = iterators.count('"parallel"')
    reduction = iterators.count('"reduction"')
    loops = f"{parallel}p" + (f"+{reduction}r" if reduction else "")
    ops = sorted({op.split(".", 1)[1] for op in body})
    if reduction and operands >= 2 and (
            {"mulf", "addf"} <= set(ops) or {"muli", "addi"} <= set(ops)):
        kind = "contraction"
    elif reduction:
        kind = "reduction(" + ",".join(ops) + ")"
    else:
        kind = "elementwise(" + ",".join(ops) + ")"
    return f"{kind} [{loops}]"


def _describe_body(lines):
    """One string for a dispatch function's tensor ops: each op with the
    type of what it makes."""
    parts = []
    generic = None  # [iterators, inputs, body ops] inside a linalg.generic
    for line in lines:
        stripped = line.strip()
        if generic is not None:
            if stripped.startswith("} ->"):
                types = TYPE.findall(stripped)
                parts.append(_generic_label(*generic) +
                             (f" -> {types[0]}" if types else ""))
                generic = None
                continue
            generic[2] += re.findall(r"\b((?:arith|math)\.\w+)", stripped)
            continue
        match = re.search(r"\b(linalg|tensor)\.(\w+)", stripped)
        if not match:
            continue
        op = f"{match.group(1)}.{match.group(2)}"
        if op in QUIET:
            continue
        if op == "linalg.generic":
            iterators = re.search(r"iterator_types = \[(.*?)\]", stripped)
            inputs = re.search(r"\bins\((.*?) :", stripped)
            generic = [iterators.group(1) if iterators else "",
                       len(inputs.group(1).split(",")) if inputs else 0, []]
            continue
        types = (TYPE.findall(stripped.split("->")[-1]) or
                 TYPE.findall(stripped))
        parts.append(op.split(".", 1)[1] +
                     (f" -> {types[-1]}" if types else ""))
    return "; ".join(parts)


def read_ir_dump(lines):
    """{dispatch name: {"ops", "config"}} from the lines of an
    --mlir-print-ir-after-all dump."""
    found = {}
    current, body = None, []
    for line in lines:
        line = line.rstrip("\n")
        if SECTION.match(line):
            current = None
            continue
        header = HEADER.match(line)
        if header and header.group(4) and "kiln.dispatch" in header.group(4):
            name, arguments, _, attributes = header.groups()
            entry = found.setdefault(name, {"ops": "", "config": ""})
            config = re.sub(r"\bkiln\.(dispatch,? ?)?", "", attributes)
            config = re.sub(r"array<i64: ([^>]*)>", r"[\1]", config)
            entry["config"] = re.sub(r" : i64\b", "", config).strip()
            current = (name, "tensor<" in arguments)
            body = []
            continue
        if current is None:
            continue
        if line == "  }":
            name, tensors = current
            if tensors:
                found[name]["ops"] = _describe_body(body)
            current = None
            continue
        body.append(line)
    return found


def describe_dispatches(bin_dir, onnx, cuda_target, timeout=3600, extra=()):
    """Compiles `onnx` for cuda once more (with the `extra` arguments it was
    compiled with) with the IR printed after every pass (constants elided)
    and reads the dispatches from it."""
    with tempfile.TemporaryDirectory() as scratch:
        argv = [os.path.join(bin_dir, "kiln-compile"), onnx,
                "--target-device=cuda", f"--cuda-target={cuda_target}",
                *extra, "-o", os.path.join(scratch, "model.kiln"),
                "--mlir-print-ir-after-all",
                "--mlir-elide-elementsattrs-if-larger=16",
                "--mlir-elide-resource-strings-if-larger=16"]
        with subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              errors="replace") as process:
            found = read_ir_dump(process.stderr)
            process.wait(timeout)
        if process.returncode != 0:
            raise RuntimeError(f"kiln-compile exited {process.returncode}")
    return found


# --- on the GPU machine -----------------------------------------------------


def find_ncu():
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in ("/usr/local/cuda/bin/ncu", "/usr/local/cuda*/bin/ncu",
                    "/opt/nvidia/nsight-compute/*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def profile(ncu, bench_argv, csv_path, timeout=600):
    """Runs bench_argv (a kiln-benchmark-module command) under ncu, the
    kernels' durations written to csv_path. Raises RuntimeError when ncu
    fails."""
    options = ["--clock-control", "none", "--cache-control", "none",
               "--print-units", "base"]
    errors = []
    # The fewest options that give the metric, should an ncu refuse some.
    for extra in (options, options[:2]):
        argv = [ncu, *extra, "--metrics", "gpu__time_duration.sum", "--csv",
                "--log-file", csv_path, *bench_argv]
        result = subprocess.run(argv, capture_output=True, text=True,
                                timeout=timeout)
        if result.returncode == 0:
            return argv
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        errors.append(f"ncu exited {result.returncode}: " + " | ".join(tail))
    raise RuntimeError("; ".join(errors))


def profile_call(ncu, bin_dir, module, inputs, out_dir, name,
                 descriptions=None, header="", top=15):
    """ncu over one call of `module` (kiln-benchmark-module on cuda, one
    warm-up call, streams so each kernel is its own launch) at `inputs`
    (--input values): its kernels summarized (summarize) into
    OUT_DIR/profile_NAME.md, after `header`, and returned, with the ncu
    command run."""
    csv_path = os.path.join(out_dir, f"ncu_{name}.csv")
    bench = [os.path.join(bin_dir, "kiln-benchmark-module"), "--device=cuda",
             f"--module={module}", *[f"--input={i}" for i in inputs],
             "--warmup=1", "--benchmark_repetitions=1", "--cuda_use_streams"]
    argv = profile(ncu, bench, csv_path)
    summary = header + summarize(csv_path, descriptions or {}, top)
    with open(os.path.join(out_dir, f"profile_{name}.md"), "w",
              encoding="utf-8") as f:
        f.write(summary)
    return summary, argv


UNITS = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6,
         "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0}


def read_ncu_csv(csv_path):
    """[(kernel name, grid, block, seconds)] in launch order."""
    with open(csv_path, encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]
    launches = {}
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"].split("(", 1)[0].strip()
        value = float(row["Metric Value"].replace(",", ""))
        scale = UNITS.get(row.get("Metric Unit", "nsecond").strip(), 1e-9)
        launches[int(row["ID"])] = (name, row["Grid Size"].replace(" ", ""),
                                    row["Block Size"].replace(" ", ""),
                                    value * scale)
    return [launches[k] for k in sorted(launches)]


def last_call(launches):
    """(launches of the last call, calls seen): the shortest period that
    the launch sequence repeats with, once any launches seen only at the
    start (first-call setup) are dropped."""
    names = [l[0] for l in launches]
    for start in range(min(len(names), 64)):
        seq = names[start:]
        for period in range(1, len(seq) // 2 + 1):
            if len(seq) % period:
                continue
            if all(seq[i] == seq[i - period] for i in range(period, len(seq))):
                return launches[-period:], len(seq) // period
    return launches, 1


def _lookup(descriptions, kernel):
    """The description of the dispatch a kernel was made from: its entry
    point name, or the longest dispatch name inside the kernel's (should
    the back end decorate it)."""
    if kernel in descriptions:
        return descriptions[kernel]
    inside = [n for n in descriptions
              if re.search(r"(?<![\w])" + re.escape(n) + r"(?![0-9])", kernel)]
    return descriptions[max(inside, key=len)] if inside else {}


def summarize(csv_path, descriptions, top=15):
    """Markdown: the last call's kernels summed by name, grid and block,
    the `top` largest, with what each dispatch computes."""
    launches = read_ncu_csv(csv_path)
    if not launches:
        return "no kernels in the ncu report\n"
    call, calls = last_call(launches)
    total = sum(l[3] for l in call)
    groups = collections.OrderedDict()
    for name, grid, block, seconds in call:
        group = groups.setdefault((name, grid, block), [0, 0.0])
        group[0] += 1
        group[1] += seconds
    ranked = sorted(groups.items(), key=lambda item: -item[1][1])
    lines = [f"{len(call)} kernel launches per call ({calls} calls "
             f"profiled, the last one summed), {total * 1e3:.3f} ms of "
             f"kernel time, {len(groups)} distinct kernel/grid/block; top "
             f"{min(top, len(ranked))}:", "",
             "| # | kernel | grid | block | launches | total µs | share | "
             "what it computes | lowering |",
             "| ---: | --- | --- | --- | ---: | ---: | ---: | --- | --- |"]
    for rank, ((name, grid, block), (count, seconds)) in enumerate(
            ranked[:top], 1):
        info = _lookup(descriptions, name)
        # The kernel kind and tiles; ncu gives the grid and block.
        config = re.sub(r"^lowering_config = \{(.*?)\}(,|$).*", r"\1",
                        info.get("config") or "")
        lines.append(
            f"| {rank} | `{name}` | {grid} | {block} | {count} | "
            f"{seconds * 1e6:.1f} | {100 * seconds / total:.1f}% | "
            f"{info.get('ops') or '–'} | {config or '–'} |")
    return "\n".join(lines) + "\n"
