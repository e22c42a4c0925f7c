#!/usr/bin/python3
"""Compiles every e2e case file (and, with --models-dir, the exported ONNX
models) for AMD chips and checks each code object as the runtime will read
it, without an AMD GPU:

  /usr/bin/python3 tests/e2e/check_amdgpu_code_objects.py --bin-dir build/bin \
      --chip gfx942 --chip gfx1100 [--precision f16] [--models-dir DIR]

For each module: one variant of format 'amdgpu-hsaco' whose target is the
chip; its code object (kiln-compile --dump-executable-binaries-to) read with
llvm-readelf --notes has target amdgcn-amd-amdhsa--<chip>, code-object
version 5 (amdhsa.version 1.2), one kernel per entry point of the module,
each with its descriptor symbol, a kernarg segment of 8 bytes a binding
and 4 a push constant word, the workgroup size of its entry point, the
chip's wavefront size, LDS within the chip's 64 KiB, register, scratch
and spill counts; and it defines every symbol it uses. --all-names also compiles
a small function for every --hip-target name and checks that a product or
code name gives the same code object as its architecture.

Prints one PASS/FAIL line per module, then `N passed, M failed`.
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as manifest  # noqa: E402
import e2elib  # noqa: E402

CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
LLVM_BIN = "/usr/lib/llvm-22/bin"
TIMEOUT = 600.0
# LDS a workgroup may allocate (HipTarget.cpp): 64 KiB but on gfx950.
LDS_BYTES = {"gfx950": 160 * 1024}
SMALL_FUNCTION = """
func.func @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.add ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>)
                  outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
"""


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-compile and kiln-dump-module")
    p.add_argument("--chip", action="append", default=[],
                   help="--hip-target to compile for (repeatable; default "
                   "gfx942 and gfx1100)")
    p.add_argument("--precision", action="append", default=[],
                   help="--precision to compile with (repeatable; default "
                   "f32)")
    p.add_argument("--models-dir",
                   help="also compile DIR/*/model.onnx (run_models.py's "
                   "exports)")
    p.add_argument("--models-filter", default="",
                   help="only the models whose folder name contains this")
    p.add_argument("--all-names", action="store_true",
                   help="also compile for every --hip-target name")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    args.chip = args.chip or ["gfx942", "gfx1100"]
    args.precision = args.precision or ["f32"]
    return args


def wavefrontSize(chip):
    # GCN and CDNA run wave64, RDNA (gfx10 and later) wave32.
    return 64 if re.fullmatch(r"gfx9\w\w", chip) else 32


def parseEntryPoints(dump):
    """(format, target) of each variant and the entry points' (name,
    workgroup size, bindings, push constants), from kiln-dump-module."""
    variants = re.findall(r"variant \d+: format '([^']*)', target '([^']*)'",
                          dump)
    entries = {}
    for m in re.finditer(
            r"entry point \d+ '([^']*)': workgroup size (\d+)x(\d+)x(\d+), "
            r"workgroup count \S+, (\d+) bindings, (\d+) push constants",
            dump):
        size = int(m.group(2)) * int(m.group(3)) * int(m.group(4))
        entries[m.group(1)] = (size, int(m.group(5)), int(m.group(6)))
    return variants, entries


def parseKernels(notes):
    """Each amdhsa.kernels entry of llvm-readelf --notes as a dict of its
    scalar fields, and the target and version lines."""
    kernels, current = [], None
    for line in notes.splitlines():
        if re.match(r"\s*- \.(agpr_count|args):", line):
            current = {}
            kernels.append(current)
        m = re.match(r"\s*-?\s*\.(\w+):\s*(\S+)\s*$", line)
        if m and current is not None:
            current.setdefault(m.group(1), m.group(2))
    target = re.search(r"amdhsa\.target:\s*(\S+)", notes)
    version = re.search(r"amdhsa\.version:\s*\n\s*- (\d+)\s*\n\s*- (\d+)",
                        notes)
    return (kernels, target.group(1) if target else "",
            (int(version.group(1)), int(version.group(2))) if version else ())


def checkCodeObject(chip, image, entries):
    """Problems with `image` (a path), or []."""
    notes = e2elib.runTool([os.path.join(LLVM_BIN, "llvm-readelf"), "--notes",
                            image], TIMEOUT)
    syms = e2elib.runTool([os.path.join(LLVM_BIN, "llvm-readelf"),
                           "--dyn-syms", image], TIMEOUT)
    if notes.rc != 0 or syms.rc != 0:
        return [f"llvm-readelf failed ({notes.describe()})"]
    kernels, target, version = parseKernels(notes.stdout)
    problems = []
    if target != f"amdgcn-amd-amdhsa--{chip}":
        problems.append(f"target '{target}'")
    if version != (1, 2):
        problems.append(f"amdhsa.version {version} (not code object v5)")
    names = {k.get("name") for k in kernels}
    if names != set(entries):
        problems.append(f"kernels {sorted(names)} are not the entry points "
                        f"{sorted(entries)}")
    lds = LDS_BYTES.get(chip, 64 * 1024)
    for k in kernels:
        name = k.get("name", "?")
        if name not in entries:
            continue
        size, bindings, words = entries[name]
        expected = {
            "symbol": f"{name}.kd",
            "wavefront_size": str(wavefrontSize(chip)),
            "kernarg_segment_size": str(8 * bindings + 4 * words),
            "max_flat_workgroup_size": str(size),
        }
        for field, value in expected.items():
            if k.get(field) != value:
                problems.append(f"{name}: .{field} {k.get(field)}, "
                                f"expected {value}")
        # Spills are slow, not wrong: counted, not checked.
        for field in ("sgpr_count", "vgpr_count", "group_segment_fixed_size",
                      "private_segment_fixed_size", "vgpr_spill_count"):
            if not k.get(field, "").isdigit():
                problems.append(f"{name}: no .{field}")
        if int(k.get("group_segment_fixed_size", "0") or 0) > lds:
            problems.append(f"{name}: {k['group_segment_fixed_size']} bytes "
                            f"of LDS")
    for line in syms.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[6] == "UND":
            problems.append(f"undefined symbol {fields[7]}")
    return problems


def compileAndCheck(binDir, source, chip, precision, workDir):
    """(ok, detail, image path) for one source and chip."""
    os.makedirs(workDir, exist_ok=True)
    module = os.path.join(workDir, "module.kiln")
    argv = [os.path.join(binDir, "kiln-compile"), source,
            "--target-device=hip", f"--hip-target={chip}",
            f"--precision={precision}",
            f"--dump-executable-binaries-to={workDir}", "-o", module]
    r = e2elib.runTool(argv, TIMEOUT)
    if r.rc != 0 or r.problem:
        return False, f"compile failed ({r.describe()})", None
    dump = e2elib.runTool([os.path.join(binDir, "kiln-dump-module"), module],
                          TIMEOUT)
    if dump.rc != 0:
        return False, f"kiln-dump-module failed ({dump.describe()})", None
    variants, entries = parseEntryPoints(dump.stdout)
    images = [f for f in os.listdir(workDir) if f.endswith(".amdgpu-hsaco")]
    if not variants:
        # A program without dispatches has no executable to check.
        return True, "no dispatches", None
    if len(images) != 1:
        return False, f"code objects written: {images}", None
    arch = images[0][len("hip_"):-len(".amdgpu-hsaco")]
    if variants != [("amdgpu-hsaco", arch)]:
        return False, f"variants {variants}", None
    image = os.path.join(workDir, images[0])
    problems = checkCodeObject(arch, image, entries)
    if problems:
        return False, "; ".join(problems[:5]), image
    return True, f"{len(entries)} kernels, {r.seconds:.1f}s", image


def knownNames(binDir, workDir):
    """Every --hip-target name, from the error an unknown one gives."""
    r = e2elib.runTool([os.path.join(binDir, "kiln-compile"), "-",
                        "--target-device=hip", "--hip-target=?", "-o",
                        os.path.join(workDir, "x.kiln")], TIMEOUT)
    m = re.search(r"known: (.*)", r.stderr)
    return [n.strip() for n in m.group(1).split(",")] if m else []


def main():
    args = parseArgs()
    missing = e2elib.missingTools(args.bin_dir,
                                  ["kiln-compile", "kiln-dump-module"])
    if missing:
        return e2elib.fatal(f"missing tools: {' '.join(missing)}")
    report = e2elib.Report()
    work = tempfile.mkdtemp(prefix="kiln-amdgpu-")
    jobs = []
    # Files of dynamic-shape cases only: GPU targets refuse them so far
    # (issue 19; run_cli_errors.py and a lit test check that error).
    dynamicOnly = ({c.file for c in manifest.CASES if c.dynamic} -
                   {c.file for c in manifest.CASES if not c.dynamic})
    for case in sorted(os.listdir(CASES_DIR)):
        if case.endswith(".mlir") and case not in dynamicOnly:
            jobs.append((case[:-len(".mlir")], os.path.join(CASES_DIR, case)))
    if args.models_dir:
        for model in sorted(os.listdir(args.models_dir)):
            path = os.path.join(args.models_dir, model, "model.onnx")
            if args.models_filter in model and os.path.exists(path):
                jobs.append((model, path))
    tasks = [(name, source, chip, precision)
             for name, source in jobs for chip in args.chip
             for precision in args.precision]
    smallFunction = os.path.join(work, "add.mlir")
    with open(smallFunction, "w", encoding="utf-8") as f:
        f.write(SMALL_FUNCTION)
    names = knownNames(args.bin_dir, work) if args.all_names else []
    if args.all_names and not names:
        report.result(False, "hip-target names", "no list of known names")
    tasks += [(f"add[{n}]", smallFunction, n, "f32") for n in names]

    def run(task):
        name, source, chip, precision = task
        workDir = os.path.join(work, f"{name}-{chip}-{precision}")
        return task, compileAndCheck(args.bin_dir, source, chip, precision,
                                     workDir)

    images = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (name, _, chip, precision), (ok, detail, image) in pool.map(
                run, tasks):
            label = f"{name} {chip}" + (f" {precision}"
                                        if precision != "f32" else "")
            report.result(ok, label, detail)
            if image and name.startswith("add["):
                images[chip] = image
    # A product or code name gives its architecture's code object.
    for name in names:
        image = images.get(name)
        if not image:
            continue
        arch = os.path.basename(image)[len("hip_"):-len(".amdgpu-hsaco")]
        if arch == name:
            continue
        same = (arch in images and
                open(image, "rb").read() == open(images[arch], "rb").read())
        report.result(same, f"{name} is {arch}",
                      "" if same else "a different code object")
    shutil.rmtree(work, ignore_errors=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
