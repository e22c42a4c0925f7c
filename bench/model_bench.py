#!/usr/bin/env python3
"""Whole models on the GPU: Kiln against PyTorch eager, eager captured in
a CUDA graph, and torch.compile captured in a CUDA graph, on the same GPU
in the same process. Prints a markdown table (progress on stderr); numbers
are printed, never asserted.

The models come from tests/models/export_models.py (seeded weights and
inputs, float64 references): MobileNetV2 and ResNet50 from torchvision at
batch 1 and 32 in f32 and f16, and the transformers of
tests/models/transformer_models.py (a ViT, a GPT-style decoder's
128-token prefill, a BERT-style encoder) in f32 and f16; named with
--models, more torchvision classifiers (`zoo`: ZOO_ROWS, ConvNeXt-T among
them), Swin-T in f32 and f16 (EXTRA_ROWS) and ResNet-18/34/50,
MobileNetV3-Small, RegNetX-400MF and the transformers at batch
(MORE_ROWS). Three steps, the first two where the compiler is, the last
where the GPU is:

  # a kit: export, compile for cuda, describe each dispatch (needs torch,
  # torchvision, onnx and kiln-compile)
  /usr/bin/python3 bench/model_bench.py --kit KIT --make-kit
  # after a compiler change: the kit's modules compiled again
  /usr/bin/python3 bench/model_bench.py --kit KIT --recompile --models vit,gpt
  # optionally, some rows' files packed small enough to carry (modules
  # deduplicated and compressed, large inputs left to be regenerated;
  # --part-mib 45 cuts a larger pack, ResNet50 f32's, into parts that
  # travel one at a time to the same CARRY)
  /usr/bin/python3 bench/model_bench.py --kit KIT --pack CARRY --models vit,gpt
  # run (needs kiln-benchmark-module, numpy, torch with CUDA and
  # torchvision; ncu for --profile)
  python3 bench/model_bench.py --kit KIT_OR_CARRY [--profile vit,gpt] \\
      [--out-dir DIR]

bench/README.md says how the figures are computed.
"""

import argparse
import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

# As run_gpu_bench.py: Kiln and torch number GPUs alike.
os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "onnx"))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import kernel_profile  # noqa: E402
import kitpack  # noqa: E402
import onnxharness as harness  # noqa: E402
import run_gpu_bench as gpu  # noqa: E402

log = gpu.log
OPSET = 17
# (model of export_models.py, row label), in the table's order.
ROWS = (
    ("mobilenetv2", "MobileNetV2 f32 batch 1"),
    ("mobilenetv2_b32", "MobileNetV2 f32 batch 32"),
    ("mobilenetv2_f16", "MobileNetV2 f16 batch 1"),
    ("mobilenetv2_b32_f16", "MobileNetV2 f16 batch 32"),
    ("resnet50_f16", "ResNet50 f16 batch 1"),
    ("resnet50_b32_f16", "ResNet50 f16 batch 32"),
    ("resnet50", "ResNet50 f32 batch 1"),
    ("vit", "ViT (6 layers, width 384, patch 16) f32 batch 1"),
    ("gpt", "GPT-style decoder (4 layers, width 256, vocab 4096) f32, "
     "128-token prefill"),
    ("bert", "BERT-style encoder (4 layers, width 256) f32, 64 tokens"),
    ("vit_f16", "ViT f16 batch 1"),
    ("gpt_f16", "GPT-style decoder f16, 128-token prefill"),
    ("bert_f16", "BERT-style encoder f16, 64 tokens"),
    # f32 models compiled with --precision=f16 (matmuls and convolutions in
    # f16, the rest in f32); PyTorch runs the model in f16, as the f16 rows.
    ("mobilenetv2_p16", "MobileNetV2 f32 batch 1, --precision=f16"),
    ("mobilenetv2_b32_p16", "MobileNetV2 f32 batch 32, --precision=f16"),
    ("resnet50_p16", "ResNet50 f32 batch 1, --precision=f16"),
    ("vit_p16", "ViT f32, --precision=f16"),
    ("gpt_p16", "GPT-style decoder f32, --precision=f16"),
    ("bert_p16", "BERT-style encoder f32, --precision=f16"),
    # f32 models compiled with --precision=tf32; PyTorch runs them with TF32
    # on for matmuls and convolutions.
    ("mobilenetv2_tf32", "MobileNetV2 f32 batch 1, --precision=tf32"),
    ("mobilenetv2_b32_tf32", "MobileNetV2 f32 batch 32, --precision=tf32"),
    ("resnet50_tf32", "ResNet50 f32 batch 1, --precision=tf32"),
    ("vit_tf32", "ViT f32, --precision=tf32"),
    ("gpt_tf32", "GPT-style decoder f32, --precision=tf32"),
    ("bert_tf32", "BERT-style encoder f32, --precision=tf32"),
)
# More torchvision classifiers (export_models.ZOO), f32 at batch 1 and 32:
# not in the default table, named with --models (or --models zoo).
ZOO_ROWS = tuple(
    row for name, label in (
        ("shufflenet_v2_x1_0", "ShuffleNetV2 x1.0"), ("googlenet", "GoogLeNet"),
        ("densenet121", "DenseNet-121"), ("efficientnet_b0", "EfficientNet-B0"),
        ("mobilenet_v3_large", "MobileNetV3-Large"),
        ("regnet_y_400mf", "RegNetY-400MF"), ("mnasnet1_0", "MNASNet 1.0"),
        ("squeezenet1_1", "SqueezeNet 1.1"), ("convnext_tiny", "ConvNeXt-T"))
    for row in ((name, f"{label} f32 batch 1"),
                (f"{name}_b32", f"{label} f32 batch 32")))
# A row's --precision, by the suffix of its name, and the exported model
# it compiles.
PRECISIONS = {"_p16": "f16", "_tf32": "tf32"}


def precision_of(model):
    """(the exported model a row compiles, its --precision or None)."""
    for suffix, precision in PRECISIONS.items():
        if model.endswith(suffix):
            return model[:-len(suffix)], precision
    return model, None
# Larger models, named with --models: torchvision's Swin-T (shifted-window
# attention) in f32 and f16 at batch 1.
EXTRA_ROWS = (("swin_t", "Swin-T f32 batch 1"),
              ("swin_t_f16", "Swin-T f16 batch 1"))
# Other torchvision classifiers at batch 32 (export_models.MORE), ResNet50
# in f32 at batch 32, and the transformers serving a batch (32 images or
# sequences, 8 GPT prefills), named with --models.
MORE_ROWS = (("resnet18_b32", "ResNet-18 f32 batch 32"),
             ("resnet34_b32", "ResNet-34 f32 batch 32"),
             ("mobilenet_v3_small_b32", "MobileNetV3-Small f32 batch 32"),
             ("regnet_x_400mf_b32", "RegNetX-400MF f32 batch 32"),
             ("resnet50_b32", "ResNet50 f32 batch 32"),
             ("vit_b32", "ViT f32 batch 32"),
             ("vit_b32_f16", "ViT f16 batch 32"),
             ("bert_b32", "BERT-style encoder f32, 32 x 64 tokens"),
             ("gpt_b8", "GPT-style decoder f32, 8 x 128-token prefill"))
LABELS = dict(ROWS + ZOO_ROWS + EXTRA_ROWS + MORE_ROWS)
PROFILE_DEFAULT = "vit,gpt,resnet50_b32_f16"
# Inputs up to this size travel in a pack; larger ones are regenerated
# from their seed where the kit is run (and checked against their digest).
PACKED_INPUT_BYTES = 1 << 16


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--kit", required=True,
                   help="the kit directory (written by --make-kit), or a "
                   "folder written by --pack")
    p.add_argument("--bin-dir", default=None,
                   help="kiln-compile for --make-kit (default build/bin); "
                   "kiln-benchmark-module to run (default KIT/bin, which "
                   "--make-kit fills, else build/bin)")
    p.add_argument("--make-kit", action="store_true",
                   help="export and compile the models into --kit, then stop")
    p.add_argument("--recompile", action="store_true",
                   help="compile the kit's --models rows again with the "
                   "current kiln-compile (exports and references kept), "
                   "then stop")
    p.add_argument("--pack", metavar="DIR",
                   help="write the files of --models into DIR, packed "
                   "(bench/kitpack.py), then stop")
    p.add_argument("--part-mib", type=float, default=None,
                   help="with --pack, cut the packed blocks into parts "
                   "(blocks.xz.1, .2, ...) of at most this many MiB, each "
                   "carried on its own into DIR (run unpacks once all are "
                   "there)")
    p.add_argument("--models", default=None,
                   help="comma-separated rows (models of "
                   "tests/models/export_models.py; default: the table's, "
                   "and for a run every row the kit holds; `zoo` names "
                   "the zoo rows, ZOO_ROWS)")
    p.add_argument("--cuda-target", default="sm_90a",
                   help="kiln-compile --cuda-target for --make-kit")
    p.add_argument("--reps", type=int, default=100,
                   help="timed calls per engine (default 100)")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--no-compile", action="store_true",
                   help="leave torch.compile out (its column says so)")
    p.add_argument("--compile-until", type=float, default=float("inf"),
                   metavar="SECONDS",
                   help="start no torch.compile this long after the run "
                   "began (to end within a time limit; default: no limit)")
    p.add_argument("--profile", default="", metavar="MODELS",
                   help="comma-separated models to profile per kernel with "
                   f"ncu first (e.g. {PROFILE_DEFAULT})")
    p.add_argument("--out-dir", default=None,
                   help="where the run writes model_bench.json, the table, "
                   "the ncu reports and their summaries (default: none kept)")
    args = p.parse_args()
    args.kit = os.path.abspath(args.kit)
    args.models_given = args.models is not None
    args.models = [m for m in (args.models or ",".join(
        m for m, _ in ROWS)).split(",") if m]
    if "zoo" in args.models:
        at = args.models.index("zoo")
        args.models[at:at + 1] = [m for m, _ in ZOO_ROWS]
    unknown = [m for m in args.models if m not in LABELS]
    if unknown:
        p.error(f"unknown row(s): {', '.join(unknown)}")
    args.profile = [m for m in args.profile.split(",") if m]
    return args


def state_digest(state_dict):
    """SHA-256 over a state dict's names, types, shapes and bytes."""
    digest = hashlib.sha256()
    for name, tensor in sorted(state_dict.items()):
        array = tensor.detach().cpu().contiguous().numpy()
        digest.update(f"{name} {array.dtype} {array.shape}\n".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def array_digest(array):
    """SHA-256 over an array's type, shape and bytes (not its .npy
    header, which numpy versions may write differently)."""
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype} {array.shape}\n".encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def kiln_version():
    try:
        return subprocess.run(
            ["git", "-C", REPO, "describe", "--always", "--dirty"],
            capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


# --- the kit (where the compiler is) ---------------------------------------


def compile_and_describe(bin_dir, model, onnx, module, cuda_target):
    """Compiles `onnx` into `module` (with the row's --precision) and
    describes its dispatches next to it; returns (harness.Compiled, the
    description's path or None)."""
    _, precision = precision_of(model)
    extra = [f"--precision={precision}"] if precision else []
    compiled = harness.compileOnnx(bin_dir, onnx, module, "cuda",
                                   cuda_target, timeout=3600,
                                   extraArgs=extra)
    log(f"compiled {model} in {compiled.seconds:.1f}s" +
        (f": {compiled.reason}" if compiled.reason else ""))
    described = os.path.join(os.path.dirname(module),
                             f"{model}.dispatches.json")
    if compiled.status != harness.PASS:
        return compiled, None
    try:
        with open(described, "w", encoding="utf-8") as f:
                json.dump(kernel_profile.describe_dispatches(
                bin_dir, onnx, cuda_target, extra=extra), f,
                      indent=1)
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        log(f"{model}: dispatches not described: {e}")
        return compiled, None
    return compiled, described


def make_kit(args):
    """Exports the models into KIT/export, compiles each into
    KIT/modules/<model>.kiln with its dispatches described in
    <model>.dispatches.json, copies the runtime tools into KIT/bin;
    returns False when any step failed."""
    import torch
    import export_models
    bin_dir = os.path.abspath(args.bin_dir or
                              os.path.join(REPO, "build", "bin"))
    export_dir = os.path.join(args.kit, "export")
    command = [sys.executable,
               os.path.join(REPO, "tests", "models", "export_models.py"),
               "--out", export_dir, "--models",
               ",".join(dict.fromkeys(precision_of(m)[0] for m in args.models)),
               "--opsets", str(OPSET), "--torch-files=state"]
    log("$ " + " ".join(command))
    if subprocess.run(command).returncode != 0:
        log("model_bench: export_models.py failed")
        return False
    os.makedirs(os.path.join(args.kit, "bin"), exist_ok=True)
    shutil.copy2(os.path.join(bin_dir, "kiln-benchmark-module"),
                 os.path.join(args.kit, "bin", "kiln-benchmark-module"))
    modules = os.path.join(args.kit, "modules")
    os.makedirs(modules, exist_ok=True)
    rel = lambda p: os.path.relpath(p, args.kit)  # noqa: E731
    entries, ok, digests = [], True, {}
    for model in args.models:
        exported_model, precision = precision_of(model)
        arch, batch, dtype = export_models.parseModel(exported_model)
        exported = os.path.join(export_dir, f"{exported_model}_opset{OPSET}")
        onnx = os.path.join(exported, "model.onnx")
        module = os.path.join(modules, f"{model}.kiln")
        compiled, described = compile_and_describe(
            bin_dir, model, onnx, module, args.cuda_target)
        ok &= compiled.status == harness.PASS
        state = os.path.join(export_dir, arch, "state.pt")
        if arch not in digests:
            digests[arch] = state_digest(torch.load(state, map_location="cpu"))
        x = np.load(os.path.join(exported, "input.npy"))
        # IEEE f32 rows are judged by their tolerance alone: they have no
        # emulated reference.
        mode = precision or ("storage-f16" if dtype == "f16" else None)
        emulated = (os.path.join(exported, f"emulated-{mode}.npy")
                    if mode else None)
        entries.append(harness.KitEntry(
            model,
            [harness.DataSet([os.path.join(exported, "input.npy")],
                             [os.path.join(exported, "expected.npy")],
                             [emulated if emulated and
                              os.path.isfile(emulated) else None])],
            compiled.status, compiled.reason,
            module if compiled.status == harness.PASS else None,
            {"label": LABELS[model], "arch": arch, "batch": batch,
             "dtype": precision or dtype, "input_shape": list(x.shape),
             "input_dtype": str(x.dtype),
             "input_sha256": array_digest(x),
             "onnx": rel(onnx), "state": rel(state),
             "state_digest": digests[arch],
             "dispatches": rel(described) if described else None,
             "compile_seconds": round(compiled.seconds, 1)}))
    made = datetime.datetime.now(datetime.timezone.utc)
    harness.writeKit(args.kit, {
        "target_device": "cuda", "cuda_target": args.cuda_target,
        "opset": OPSET, "kiln": kiln_version(),
        "made": f"{made:%Y-%m-%d %H:%M} UTC"}, entries)
    return ok


def recompile_kit(args):
    """Compiles the kit's --models rows again from their exported ONNX with
    the current kiln-compile (the export and references stay), describes
    their dispatches again, and records the compiler's version in the
    kit's header; returns False when any compile failed."""
    bin_dir = os.path.abspath(args.bin_dir or
                              os.path.join(REPO, "build", "bin"))
    meta, entries = harness.readKit(args.kit)
    missing = set(args.models) - {e.name for e in entries}
    if missing:
        log(f"model_bench: not in the kit: {', '.join(sorted(missing))}")
        return False
    ok = True
    for entry in entries:
        if entry.name not in args.models:
            continue
        module = os.path.join(args.kit, "modules", f"{entry.name}.kiln")
        compiled, described = compile_and_describe(
            bin_dir, entry.name, os.path.join(args.kit, entry.info["onnx"]),
            module, meta["cuda_target"])
        ok &= compiled.status == harness.PASS
        entry.compileStatus, entry.reason = compiled.status, compiled.reason
        entry.module = module if compiled.status == harness.PASS else None
        entry.info["dispatches"] = (os.path.relpath(described, args.kit)
                                    if described else None)
        entry.info["compile_seconds"] = round(compiled.seconds, 1)
    made = datetime.datetime.now(datetime.timezone.utc)
    meta["kiln"] = kiln_version()
    meta["made"] = f"{made:%Y-%m-%d %H:%M} UTC"
    harness.writeKit(args.kit, meta, entries)
    return ok


def pack_kit(args):
    """Writes the --models rows of the kit into args.pack: their manifest
    and a kitpack of their modules, references, dispatch descriptions,
    small inputs and kiln-benchmark-module."""
    meta, entries = harness.readKit(args.kit)
    entries = [e for e in entries if e.name in args.models]
    missing = set(args.models) - {e.name for e in entries}
    if missing:
        log(f"model_bench: not in the kit: {', '.join(sorted(missing))}")
        return False
    out = os.path.abspath(args.pack)
    rel = lambda p: os.path.relpath(p, args.kit)  # noqa: E731
    moved = lambda p: os.path.join(out, rel(p))  # noqa: E731
    files = [os.path.join("bin", "kiln-benchmark-module")]
    for entry in entries:
        files += [rel(p) for s in entry.sets for p in s.outputs]
        files += [rel(p) for s in entry.sets for p in s.emulated if p]
        files += [rel(p) for s in entry.sets for p in s.inputs
                  if os.path.getsize(p) <= PACKED_INPUT_BYTES]
        if entry.module:
            files.append(rel(entry.module))
            entry.module = moved(entry.module)
        if entry.info.get("dispatches"):
            files.append(entry.info["dispatches"])
        for s in entry.sets:
            s.inputs = [moved(p) for p in s.inputs]
            s.outputs = [moved(p) for p in s.outputs]
            s.emulated = [p and moved(p) for p in s.emulated]
    os.makedirs(out, exist_ok=True)
    harness.writeKit(out, meta, entries)
    part = int(args.part_mib * 2**20) if args.part_mib else None
    size = kitpack.pack(args.kit, files, out, part_bytes=part)
    parts = (f" in parts of at most {args.part_mib:g} MiB"
             if part and size > part else "")
    log(f"model_bench: packed {len(files)} files of "
        f"{', '.join(e.name for e in entries)} into {out}: "
        f"{size / 2**20:.1f} MiB{parts}")
    return True


# --- the run (where the GPU is) --------------------------------------------


def ensure_input(entry):
    """The entry's input .npy, regenerated from its seed when the kit came
    without it (export_models.makeInput, rounded as the model's dtype
    asks), then checked against the kit's digest."""
    path = entry.sets[0].inputs[0]
    if os.path.isfile(path):
        return path
    import export_models
    info = entry.info
    shape = tuple(info["input_shape"])
    kind = "tokens" if info["input_dtype"] == "int64" else "image"
    x = export_models.makeInput(info["arch"], shape, kind)
    x = x.astype(info["input_dtype"])
    if array_digest(x) != info["input_sha256"]:
        raise RuntimeError("the input regenerated from its seed differs "
                           "from the kit's (another numpy?)")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, x)
    log(f"{entry.name}: input regenerated from its seed (digest matches)")
    return path


def emulated_reference(entry):
    """The row's emulated reference (tests/models/emulate.py) or None."""
    paths = entry.sets[0].emulated
    return np.load(paths[0]) if paths and paths[0] else None


def check(label, got, expected, precision=None, emulated=None):
    """Checks an output against the float64 reference with its type's
    tolerance, or its --precision's (f16, bf16, tf32); outside it, within
    twice the excess of the row's emulated reference where it has one."""
    ok, err, detail = harness.checkOutput(np.asarray(got), expected,
                                          scaleByMax=True,
                                          floatTolerance=precision,
                                          emulated=emulated)
    name = precision or ("f16" if expected.dtype == np.float16 else "f32")
    atol, rtol = harness.cases.TOLERANCES[name]
    bound = f"{name}: {atol:g} max|ref| + {rtol:g} |ref|"
    return ok, (f"{label}: {'pass' if ok else 'FAIL'} (max |out - float64 "
                f"ref| = {err:.1e}, max |ref| {np.abs(expected).max():.3g}; "
                f"{bound}" + (f"; {detail}" if detail else "") + ")")


def torch_model(torch, entry, kit, notes):
    """(the model on cuda:0 in the row's dtype, whether it holds the kit's
    weights, the float16 model with the f16 graph's weights for checking
    an f16 row or None): the architecture rebuilt by export_models.build
    (seeded as the kit was made), given the kit's state dict when it was
    carried."""
    import export_models
    info = entry.info
    model, _, _ = export_models.build(info["arch"])
    state = os.path.join(kit, info["state"])
    if os.path.isfile(state):
        model.load_state_dict(torch.load(state, map_location="cpu"))
    same = state_digest(model.state_dict()) == info["state_digest"]
    notes.append(f"{entry.name}: PyTorch runs " + (
        "the kit's weights" if same else "weights rebuilt from the seed "
        "that differ from the kit's (timing only: its outputs are not "
        "checked)"))
    checker = None
    if precision_of(entry.name)[1] in ("f16", "bf16"):
        # The f32 graph's reference does not hold an f16 PyTorch model to
        # f16's tolerance: timed, not checked.
        notes.append(f"{entry.name}: PyTorch runs the model in f16 (timing "
                     "only: its outputs are not checked)")
        return model.half().cuda().eval(), False, None
    if info["dtype"] == "f16":
        if same:
            try:
                checker = export_models.roundedToHalf(model).half().cuda()
            except Exception as e:  # noqa: BLE001 - only the check is lost
                notes.append(f"{entry.name}: no f16 check model: {e}")
                same = False
        model = model.half()
    return model.cuda().eval(), same, checker


def torch_times(torch, args, entry, kit, notes, results, compile_torch):
    """PyTorch's device times for the row: eager, eager in a CUDA graph,
    torch.compile in a CUDA graph (each a gpu.stats dict or an error
    string), with its outputs checked once."""
    precision = precision_of(entry.name)[1]
    if precision == "tf32":
        # Read when torch.compile traces, so set before it and reset after.
        notes.append(f"{entry.name}: PyTorch runs with "
                     f"{gpu.set_matmul_tf32(torch, True)}, "
                     f"{gpu.set_conv_tf32(torch, True)}")
        try:
            return torch_times_of(torch, args, entry, kit, notes, results,
                                  compile_torch)
        finally:
            gpu.set_matmul_tf32(torch, False)
            gpu.set_conv_tf32(torch, False)
    return torch_times_of(torch, args, entry, kit, notes, results,
                          compile_torch)


def torch_times_of(torch, args, entry, kit, notes, results, compile_torch):
    model, same, checker = torch_model(torch, entry, kit, notes)
    precision = precision_of(entry.name)[1]
    x = torch.from_numpy(np.load(entry.sets[0].inputs[0])).cuda()
    if precision in ("f16", "bf16") and x.is_floating_point():
        x = x.half()
    expected = np.load(entry.sets[0].outputs[0])
    out = {}
    with torch.no_grad():
        eager = lambda: model(x)  # noqa: E731
        if same:
            reference = checker or model
            results["torch_check"] = check(
                "PyTorch eager" + (" (the f16 graph's weights)" if checker
                                   else ""),
                reference(x).cpu().numpy(), expected, precision,
                emulated_reference(entry))[1]
        out["eager"] = gpu.torch_device_times(torch, eager, args.warmup,
                                              args.reps)
        graph = gpu.capture_cuda_graph(torch, eager)
        out["graph"] = gpu.torch_device_times(torch, graph.replay,
                                              args.warmup, args.reps)
        del graph
        if not compile_torch:
            out["compile"] = ("not run (--no-compile)" if args.no_compile
                              else "not run (past --compile-until)")
        else:
            try:
                start = time.monotonic()
                compiled = torch.compile(model)
                for _ in range(3):
                    y = compiled(x)
                torch.cuda.synchronize()
                results["compile_seconds"] = round(time.monotonic() - start, 1)
                if same and not checker:
                    results["compile_check"] = check(
                        "torch.compile", y.cpu().numpy(), expected,
                        precision, emulated_reference(entry))[1]
                cgraph = gpu.capture_cuda_graph(torch, lambda: compiled(x))
                out["compile"] = gpu.torch_device_times(
                    torch, cgraph.replay, args.warmup, args.reps)
                del cgraph, compiled
            except Exception as e:  # noqa: BLE001 - reported in the table
                out["compile"] = f"{type(e).__name__}: {str(e)[:200]}"
    return out


def kiln_times(args, entry, work, results):
    out = os.path.join(work, f"{entry.name}.npy")
    run_args = argparse.Namespace(bin_dir=args.bin_dir, device="cuda",
                                  modules_dir=args.kit, warmup=args.warmup)
    report = gpu.run_kiln(run_args, os.path.relpath(entry.module, args.kit),
                          None, [f"@{entry.sets[0].inputs[0]}"], args.reps,
                          [f"--output=@{out}"])
    ok, note = check("Kiln", np.load(out), np.load(entry.sets[0].outputs[0]),
                     precision_of(entry.name)[1], emulated_reference(entry))
    results["kiln_ok"], results["kiln_check"] = ok, note
    times, clock = gpu.timed(report)
    if clock != "device":
        raise RuntimeError("no device clock in kiln-benchmark-module's report")
    return times


def profile(args, entry):
    """ncu over a few calls of kiln-benchmark-module; the last call's
    kernels summarized (kernel_profile.summarize) into OUT/profile_<model>.md
    and returned."""
    ncu = kernel_profile.find_ncu()
    if ncu is None:
        raise RuntimeError("ncu not found")
    out_dir = args.out_dir or tempfile.mkdtemp(prefix="kiln-model-profile-")
    descriptions = {}
    if entry.info.get("dispatches"):
        path = os.path.join(args.kit, entry.info["dispatches"])
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                descriptions = json.load(f)
    start = time.monotonic()
    summary, argv = kernel_profile.profile_call(
        ncu, args.bin_dir, entry.module, [f"@{entry.sets[0].inputs[0]}"],
        out_dir, entry.name, descriptions,
        header=f"### {entry.info['label']}\n\n")
    log(f"profiled {entry.name} in {time.monotonic() - start:.0f}s: "
        f"{' '.join(argv)}")
    return summary


cell = gpu.ms_cell


def markdown(rows, notes, header):
    lines = [header, "",
             "| Model | Kiln | PyTorch eager | eager + CUDA graph | "
             "torch.compile + CUDA graph | Kiln ÷ torch.compile (time; < 1: "
             "Kiln faster) | Kiln output |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        kiln, compiled = row.get("kiln"), row.get("compile")
        ratio = (f"{kiln['median'] / compiled['median']:.2f}"
                 if isinstance(kiln, dict) and isinstance(compiled, dict)
                 else "–")
        verdict = ("pass" if row.get("kiln_ok") else "FAIL"
                   if "kiln_ok" in row else "–")
        if row.get("kiln_ok") and "budget" in row.get("kiln_check", ""):
            verdict += " (emulated budget)"
        lines.append(f"| {row['label']} | {cell(kiln)} | "
                     f"{cell(row.get('eager'))} | {cell(row.get('graph'))} | "
                     f"{cell(compiled)} | {ratio} | {verdict} |")
    lines.append("")
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def run(args):
    if os.path.isfile(os.path.join(args.kit, "pack.json")):
        written = kitpack.unpack(args.kit)
        log(f"model_bench: unpacked {len(written)} files into {args.kit}")
    meta, entries = harness.readKit(args.kit)
    # Without --models, every row the kit holds (the table's order first).
    if not args.models_given:
        args.models = [m for m in LABELS if m in {e.name for e in entries}]
    order = {m: k for k, m in enumerate(args.models)}
    entries = sorted((e for e in entries if e.name in order),
                     key=lambda e: order[e.name])
    args.bin_dir = os.path.abspath(args.bin_dir or (
        os.path.join(args.kit, "bin")
        if os.path.isdir(os.path.join(args.kit, "bin"))
        else os.path.join(REPO, "build", "bin")))
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
    import torch
    if not torch.cuda.is_available():
        log("model_bench: torch sees no CUDA device")
        return 2
    notes = [gpu.set_matmul_tf32(torch), gpu.set_conv_tf32(torch),
             "torch.backends.cuda.matmul."
             "allow_fp16_reduced_precision_reduction = False",
             "torch.backends.cudnn.benchmark = True"]
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cudnn.benchmark = True
    started = datetime.datetime.now(datetime.timezone.utc)
    clock = time.monotonic()
    header = (f"Measured {started:%Y-%m-%d %H:%M} UTC on "
              f"{gpu.gpu_description(torch)}; Kiln {meta.get('kiln')} "
              f"(modules compiled {meta.get('made')} for "
              f"{meta.get('cuda_target')}), ONNX opset {meta.get('opset')}; "
              f"device time per call in ms, median (p10–p90) of {args.reps} "
              f"calls after {args.warmup} warm-up calls.")
    profiles, rows = [], []

    def write():
        """The results so far into --out-dir (a run cut short keeps them)."""
        if not args.out_dir:
            return
        with open(os.path.join(args.out_dir, "model_bench.json"), "w",
                  encoding="utf-8") as f:
            json.dump({"meta": meta, "header": header, "rows": rows,
                       "notes": notes}, f, indent=1)
        with open(os.path.join(args.out_dir, "model_bench.md"), "w",
                  encoding="utf-8") as f:
            f.write(markdown(rows, notes, header) + "\n" +
                    "\n".join(profiles))

    for entry in entries:
        if entry.name in args.profile and entry.module:
            try:
                ensure_input(entry)
                profiles.append(profile(args, entry))
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                profiles.append(f"### {entry.info['label']}\n\nnot profiled: "
                                f"{e}\n")
            log(profiles[-1])
            write()
    work = tempfile.mkdtemp(prefix="kiln-model-bench-")
    try:
        for entry in entries:
            log(f"== {entry.name}")
            row = {"model": entry.name, "label": entry.info["label"]}
            rows.append(row)
            try:
                ensure_input(entry)
            except (RuntimeError, OSError) as e:
                row["kiln"] = f"no input: {e}"
                continue
            compile_torch = (not args.no_compile and
                             time.monotonic() - clock < args.compile_until)
            try:
                row.update(torch_times(torch, args, entry, args.kit, notes,
                                       row, compile_torch))
            except Exception as e:  # noqa: BLE001 - reported in the table
                row["eager"] = f"{type(e).__name__}: {str(e)[:200]}"
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            if entry.module is None:
                row["kiln"] = f"did not compile: {entry.reason}"
            else:
                try:
                    row["kiln"] = kiln_times(args, entry, work, row)
                except RuntimeError as e:
                    row["kiln"] = f"failed: {e}"
            for key in ("kiln_check", "torch_check", "compile_check"):
                if key in row:
                    notes.append(f"{entry.name}: {row[key]}")
            if "compile_seconds" in row:
                notes.append(f"{entry.name}: torch.compile took "
                             f"{row['compile_seconds']} s (3 calls)")
            write()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("\n".join(profiles))
    print(markdown(rows, notes, header))
    return 0


def main():
    args = parse_args()
    if args.make_kit:
        os.makedirs(args.kit, exist_ok=True)
        return 0 if make_kit(args) else 1
    if args.recompile:
        return 0 if recompile_kit(args) else 1
    if args.pack:
        return 0 if pack_kit(args) else 1
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
