#!/usr/bin/python3
"""Robustness of the command-line tools against bad input, and the
acceptance example.

Every bad input must end the tool with exit code 1 (not 0, not a signal, not
a hang) and exactly one non-empty stderr line starting with `error:`.
kiln-compile's errors follow MLIR's diagnostic format
`file:line:col: error: ...` (notes may follow), so for it only the first
line is checked, and it must name the offending op.

  /usr/bin/python3 tests/e2e/run_cli_errors.py --bin-dir build/bin

The unsupported op used is `tosa.custom` (cli/unsupported_op.mlir): an opaque
operator that no upstream pass lowers either.

It also checks the step dependencies kiln-dump-module prints for
@two_chains in cases/branches.mlir, compiled for the CPU and for cuda: two
chains of matmuls that must not wait for each other.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2elib  # noqa: E402

CLI_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli")
CASES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
DRIVERS = ["local-sync", "local-task"]
GOOD_A = "--input=4xf32=[1 2 3 4]"
GOOD_B = "--input=4xf32=[2 2 2 2]"

# Each is passed as the first of add's two inputs.
MALFORMED_INPUTS = [
    ("too_few_values", "4xf32=[1 2 3]"),
    ("too_many_values", "4xf32=[1 2 3 4 5]"),
    ("not_a_number", "4xf32=[1 2 x 4]"),
    ("unknown_element_type", "4xq32=[1 2 3 4]"),
    ("unclosed_bracket", "4xf32=[1 2 3 4"),
    ("extra_bracket", "4xf32=[1 2 3 4]]"),
    ("negative_dim", "-4xf32=[1 2 3 4]"),
    ("missing_element_type", "4x=[1 2 3 4]"),
    ("empty_type", "=[1 2 3 4]"),
    ("nesting_mismatch", "4xf32=[[1 2][3 4]]"),
    ("element_count_overflow", "4000000000x4000000000xf32=0"),
    ("float_for_int", "4xi32=[1 2 3.5 4]"),
    ("trailing_garbage", "4xf32=[1 2 3 4] junk"),
    ("empty_string", ""),
    ("missing_npy", "@/nonexistent/kiln/in.npy"),
    # Files made in the work directory; see makeFiles().
    ("garbage_npy", "@{work}/garbage.npy"),
    ("truncated_npy", "@{work}/truncated.npy"),
    ("lying_npy_header", "@{work}/lying.npy"),
]


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-run-module, kiln-dump-module")
    p.add_argument("--compiler-bin-dir",
                   help="directory holding kiln-compile (default: --bin-dir); "
                   "lets a sanitizer build's runtime tools, which come "
                   "without a compiler, be checked")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds allowed for one tool invocation")
    return p.parse_args()


class Suite:

    def __init__(self, binDir, compilerDir, workDir, timeout):
        self.binDir = binDir
        self.compilerDir = compilerDir
        self.work = workDir
        self.timeout = timeout
        self.report = e2elib.Report()

    def tool(self, name):
        if name == "kiln-compile":
            return os.path.join(self.compilerDir, name)
        return os.path.join(self.binDir, name)

    def run(self, argv):
        return e2elib.runTool(argv, self.timeout, cwd=self.work)

    def expectError(self, name, argv):
        """Exit code 1 and exactly one non-empty `error:` line on stderr."""
        r = self.run(argv)
        if r.problem:
            return self.report.result(False, name, r.problem)
        lines = r.stderr.splitlines()
        if r.rc != 1:
            return self.report.result(
                False, name, f"exit code {r.rc}, want 1 (stderr: "
                f"{' | '.join(lines[:3]) or 'empty'})")
        if len(lines) != 1:
            return self.report.result(
                False, name, f"{len(lines)} stderr lines, want 1: "
                f"{' | '.join(lines[:4])}")
        line = lines[0]
        if not line.startswith("error:") or not line[len("error:"):].strip():
            return self.report.result(
                False, name, f"stderr line does not start with 'error: ...': "
                f"{line!r}")
        self.report.result(True, name, line)

    def expectCompileError(self, name, source, mustName, line=None):
        """MLIR-style `file:line:col: error:` naming `mustName`, exit 1, and
        no output file left behind."""
        out = os.path.join(self.work, f"{name.replace('/', '_')}.kiln")
        r = self.run([self.tool("kiln-compile"), source,
                      "--target-device=cpu", "-o", out])
        if r.problem:
            return self.report.result(False, name, r.problem)
        lines = r.stderr.splitlines()
        first = lines[0] if lines else ""
        if r.rc != 1:
            return self.report.result(
                False, name, f"exit code {r.rc}, want 1 (stderr: {first!r})")
        if "error:" not in first or mustName not in first:
            return self.report.result(
                False, name, f"first stderr line must contain 'error:' and "
                f"'{mustName}': {first!r}")
        if line is not None:
            m = re.match(r"^(.+):(\d+):(\d+): error: ", first)
            if not m:
                return self.report.result(
                    False, name, f"not in 'file:line:col: error: ' form: "
                    f"{first!r}")
            if not m.group(1).endswith(os.path.basename(source)) or int(
                    m.group(2)) != line:
                return self.report.result(
                    False, name, f"location {m.group(1)}:{m.group(2)}, want "
                    f"{os.path.basename(source)}:{line}")
        if os.path.exists(out):
            return self.report.result(False, name,
                                      "a failed compile left an output file")
        self.report.result(True, name, first)

    def runAdd(self, module, *extra, driver="local-sync"):
        return [self.tool("kiln-run-module"), f"--device={driver}",
                f"--module={module}", "--function=add", *extra]


def makeFiles(work, module):
    """Corrupt modules and npy files; returns {name: path} of bad modules."""
    data = open(module, "rb").read()
    n = len(data)
    bad = {}
    lengths = sorted({0, 1, 3, 4, 7, 8, 16, 32, 64, n // 4, n // 2,
                      3 * n // 4, n - 16, n - 1} - {n})
    for length in lengths:
        if 0 <= length < n:
            path = os.path.join(work, f"truncated_{length}.kiln")
            with open(path, "wb") as f:
                f.write(data[:length])
            bad[f"truncated_{length}_of_{n}"] = path
    rng = np.random.default_rng(20240611)
    positions = sorted(set(int(p) for p in rng.integers(0, n, size=10)))
    # Also the root offset, the file identifier and the checksum footer
    # (its magic and its value).
    for pos in sorted(set(positions) | {0, 5, n - 16, n - 9, n - 1}):
        flipped = bytearray(data)
        flipped[pos] ^= 0xFF
        path = os.path.join(work, f"flipped_{pos}.kiln")
        with open(path, "wb") as f:
            f.write(flipped)
        bad[f"flipped_byte_{pos}_of_{n}"] = path
    garbage = rng.integers(0, 256, size=4096, dtype=np.uint8).tobytes()
    path = os.path.join(work, "garbage.kiln")
    with open(path, "wb") as f:
        f.write(garbage)
    bad["garbage"] = path
    # Right file identifier, nonsense everywhere else: reaches the verifier.
    path = os.path.join(work, "garbage_with_identifier.kiln")
    with open(path, "wb") as f:
        f.write(garbage[:4] + b"KILN" + garbage[8:])
    bad["garbage_with_identifier"] = path
    # Valid root offset and identifier from the real module, garbage after.
    path = os.path.join(work, "garbage_after_header.kiln")
    with open(path, "wb") as f:
        f.write(data[:8] + garbage[8:max(n, 64)])
    bad["garbage_after_header"] = path
    bad["missing_file"] = os.path.join(work, "does_not_exist.kiln")
    bad["directory"] = work

    with open(os.path.join(work, "garbage.npy"), "wb") as f:
        f.write(garbage[:200])
    good = os.path.join(work, "good.npy")
    np.save(good, np.array([1, 2, 3, 4], dtype=np.float32))
    npy = open(good, "rb").read()
    with open(os.path.join(work, "truncated.npy"), "wb") as f:
        f.write(npy[:-5])
    with open(os.path.join(work, "lying.npy"), "wb") as f:
        f.write(npy.replace(b"(4,)", b"(9,)"))
    return bad


def main():
    args = parseArgs()
    # Tools run with the work directory as cwd: resolve relative paths now.
    args.bin_dir = os.path.abspath(args.bin_dir)
    compilerDir = os.path.abspath(args.compiler_bin_dir or args.bin_dir)
    missing = e2elib.missingTools(compilerDir, ["kiln-compile"])
    missing += e2elib.missingTools(args.bin_dir,
                                   ["kiln-run-module", "kiln-dump-module"])
    if missing:
        return e2elib.fatal(f"missing tool(s): {', '.join(missing)}; build "
                            f"them first (cmake --build build)")
    work = tempfile.mkdtemp(prefix="kiln-cli-")
    try:
        return runAll(Suite(args.bin_dir, compilerDir, work, args.timeout))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def runAll(s: Suite) -> int:
    rep = s.report
    module = os.path.join(s.work, "add.kiln")
    r = s.run([s.tool("kiln-compile"), os.path.join(CLI_DIR, "add.mlir"),
               "--target-device=cpu", "-o", module])
    if r.problem or r.rc != 0 or not os.path.isfile(module):
        rep.result(False, "compile add.mlir", r.describe())
        return rep.finish()
    rep.result(True, "compile add.mlir")

    # The acceptance example, on both drivers.
    for d in DRIVERS:
        r = s.run(s.runAdd(module, GOOD_A, GOOD_B, driver=d))
        want = ["EXEC @add", "4xf32=3 4 5 6"]
        got = [l.rstrip() for l in r.stdout.splitlines()]
        ok = not r.problem and r.rc == 0 and got == want and not r.stderr
        rep.result(ok, f"acceptance add [{d}]", "" if ok else
                   f"{r.describe()}; stdout {got!r}, stderr {r.stderr!r}")
        out = os.path.join(s.work, f"add_{d}.npy")
        r = s.run(s.runAdd(module, GOOD_A, GOOD_B, f"--output=@{out}",
                           driver=d))
        try:
            value = np.load(out) if os.path.exists(out) else None
        except ValueError as e:
            value = f"unreadable: {e}"
        ok = (not r.problem and r.rc == 0 and isinstance(value, np.ndarray)
              and value.dtype == np.float32
              and value.tolist() == [3.0, 4.0, 5.0, 6.0])
        rep.result(ok, f"acceptance add --output=@npy [{d}]", "" if ok else
                   f"{r.describe()}; got {value!r}")

    checkIreeSpellings(s, module)
    checkNoGpuLibraries(s, module)
    checkPrintStatistics(s, module)

    bad = makeFiles(s.work, module)
    for name, path in bad.items():
        s.expectError(f"run-module/{name}",
                      s.runAdd(path, GOOD_A, GOOD_B))
    for name, path in bad.items():
        s.expectError(f"dump-module/{name}",
                      [s.tool("kiln-dump-module"), path])
    r = s.run([s.tool("kiln-dump-module"), module])
    ok = not r.problem and r.rc == 0 and "add" in r.stdout
    rep.result(ok, "dump-module/valid", "" if ok else
               f"{r.describe()}; stdout {r.stdout[:200]!r}")

    calls = [
        ("unknown_function", ["--function=nope"]),
        ("empty_function", ["--function="]),
    ]
    for name, flags in calls:
        s.expectError(f"run-module/{name}", [
            s.tool("kiln-run-module"), "--device=local-sync",
            f"--module={module}", *flags, GOOD_A, GOOD_B
        ])
    argSets = [
        ("no_inputs", []),
        ("one_input", [GOOD_A]),
        ("three_inputs", [GOOD_A, GOOD_B, GOOD_B]),
        ("wrong_shape_5", [GOOD_A, "--input=5xf32=[1 2 3 4 5]"]),
        ("wrong_shape_2x2", [GOOD_A, "--input=2x2xf32=[[1 2][3 4]]"]),
        ("wrong_shape_rank0", [GOOD_A, "--input=f32=1"]),
        ("wrong_dtype_i32", [GOOD_A, "--input=4xi32=[1 2 3 4]"]),
        ("wrong_dtype_f16", [GOOD_A, "--input=4xf16=[1 2 3 4]"]),
        ("wrong_dtype_f64", [GOOD_A, "--input=4xf64=[1 2 3 4]"]),
        ("wrong_dtype_npy", [GOOD_A, "--input=@{work}/i64.npy"]),
        ("unknown_flag", [GOOD_A, GOOD_B, "--frobnicate=1"]),
    ]
    np.save(os.path.join(s.work, "i64.npy"), np.array([1, 2, 3, 4], np.int64))
    for d in DRIVERS:
        for name, inputs in argSets:
            inputs = [i.replace("{work}", s.work) for i in inputs]
            s.expectError(f"run-module/{name} [{d}]",
                          s.runAdd(module, *inputs, driver=d))
    for name, text in MALFORMED_INPUTS:
        s.expectError(f"run-module/malformed_input/{name}",
                      s.runAdd(module, "--input=" +
                               text.replace("{work}", s.work), GOOD_B))
    for device in ["nosuchdevice", "local-sync-nope", ""]:
        s.expectError(f"run-module/unknown_device '{device}'", [
            s.tool("kiln-run-module"), f"--device={device}",
            f"--module={module}", "--function=add", GOOD_A, GOOD_B
        ])
    s.expectError("run-module/no_module_flag", [
        s.tool("kiln-run-module"), "--device=local-sync", "--function=add",
        GOOD_A, GOOD_B
    ])

    s.expectCompileError("compile/parse_error",
                         os.path.join(CLI_DIR, "parse_error.mlir"), "error:",
                         line=3)
    s.expectCompileError("compile/unsupported_op",
                         os.path.join(CLI_DIR, "unsupported_op.mlir"),
                         "tosa.custom", line=5)
    s.expectCompileError("compile/elided_resource",
                         os.path.join(CLI_DIR, "elided_resource.mlir"),
                         "dense_resource", line=4)
    s.expectCompileError("compile/short_resource",
                         os.path.join(CLI_DIR, "short_resource.mlir"),
                         "dense_resource", line=3)
    s.expectCompileError("compile/missing_file",
                         os.path.join(s.work, "no_such_input.mlir"), "error:")
    empty = os.path.join(s.work, "garbage.mlir")
    with open(empty, "wb") as f:
        f.write(bytes(range(256)) * 4)
    s.expectCompileError("compile/binary_garbage", empty, "error:")
    out = os.path.join(s.work, "bad_target.kiln")
    r = s.run([s.tool("kiln-compile"), os.path.join(CLI_DIR, "add.mlir"),
               "--target-device=nosuchtarget", "-o", out])
    first = (r.stderr.splitlines() or [""])[0]
    ok = (not r.problem and r.rc == 1 and "error:" in first
          and "cpu" in r.stderr and not os.path.exists(out))
    rep.result(ok, "compile/unknown_target_device_lists_known", first if ok
               else f"{r.describe()}; stderr {r.stderr[:300]!r}")
    checkRefusedBeforeReading(s, module)
    checkTwoChainsDependencies(s)
    checkDynamicShapeErrors(s)
    checkOnnxErrors(s)
    checkInputBounds(s)
    checkSpecialize(s)
    checkPhases(s)
    checkLoops(s)
    return rep.finish()


def checkOnnxErrors(s: Suite):
    """Bad ONNX files give one-line errors naming the problem from both
    kiln-import-onnx and kiln-compile, and kiln-compile leaves no output:
    a file that is not ONNX, a truncated model, an unsupported op (named
    with its node), a symbolic dimension reaching an op that takes static
    shapes (named with its node and input) and a missing external data
    file. The models come from the
    importer's lit-test generator (compiler/onnx/test/make_model.py)."""
    importer = os.path.join(s.compilerDir, "kiln-import-onnx")
    if not os.access(importer, os.X_OK):
        s.report.result(False, "onnx errors", f"missing {importer}")
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))), "compiler", "onnx",
        "test"))
    import make_model  # noqa: E402
    work = os.path.join(s.work, "onnx")
    os.makedirs(work)

    def save(name, builder):
        path = os.path.join(work, f"{name}.onnx")
        m = builder(path) if builder.__code__.co_argcount else builder()
        with open(path, "wb") as f:
            f.write(m.SerializeToString())
        return path

    good = save("good", make_model.names)
    data = open(good, "rb").read()
    truncated = os.path.join(work, "truncated.onnx")
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 2])
    corrupt = os.path.join(work, "corrupt.onnx")
    with open(corrupt, "wb") as f:
        f.write(bytes(range(256)) * 8)
    external = save("external", make_model.external_data)
    os.remove(external + ".data")
    cases = [
        ("not_onnx", corrupt, "not an ONNX model"),
        ("truncated", truncated, "truncated"),
        ("unsupported_op", save("op", make_model.unsupported_op),
         "node 'coin' (Bernoulli): unsupported op"),
        ("dynamic_dim_unsupported_op",
         save("dynop", make_model.dynamic_unsupported),
         "node 'hm' (Hardmax): unsupported dynamic dimension: input 0 'x' "
         "is ?x3"),
        ("missing_external_data", external, "external.onnx.data"),
    ]
    for name, path, mustName in cases:
        r = s.run([importer, path, "-o", os.path.join(work, "out.mlir")])
        lines = r.stderr.splitlines()
        ok = (not r.problem and r.rc == 1 and len(lines) == 1 and
              lines[0].startswith("error: ") and mustName in lines[0])
        s.report.result(ok, f"import-onnx/{name}", lines[0] if ok else
                        f"{r.describe()}; want one 'error:' line naming "
                        f"{mustName!r}, stderr {r.stderr[:300]!r}")
        s.expectCompileError(f"compile/onnx_{name}", path, mustName)
    r = s.run([importer, good, "-o", os.path.join(work, "good.mlir")])
    ok = not r.problem and r.rc == 0 and not r.stderr
    s.report.result(ok, "import-onnx/valid", "" if ok else r.describe())
    # --onnx-max-tensor-bytes lowers the per-tensor limit for both tools: at
    # one byte every float tensor of the valid model is past it.
    for tool in ("kiln-import-onnx", "kiln-compile"):
        r = s.run([os.path.join(s.compilerDir, tool), good,
                   "--onnx-max-tensor-bytes=1", "-o",
                   os.path.join(work, "limited.out")])
        lines = r.stderr.splitlines()
        ok = (not r.problem and r.rc == 1 and lines and
              "--onnx-max-tensor-bytes" in lines[0] and
              not os.path.exists(os.path.join(work, "limited.out")))
        s.report.result(ok, f"{tool}/onnx_max_tensor_bytes",
                        lines[0] if ok else f"{r.describe()}; stderr "
                        f"{r.stderr[:300]!r}")
    # An unknown flag starting with h once printed the help and exited 0
    # (LLVM groups -h with what follows). --hip-target is kiln-compile's
    # own flag now, and still unknown to kiln-import-onnx.
    for tool, flag in (("kiln-import-onnx", "--hip-target=gfx942"),
                       ("kiln-compile", "--hop-target=gfx942")):
        s.expectError(f"{tool}/unknown_flag_starting_with_h", [
            os.path.join(s.compilerDir, tool), flag, good,
            "-o", os.path.join(work, "unused.out")])


def tinyBatchModel(s: Suite, name):
    """S.work/NAME/tiny.onnx: y = x @ [[1, -1], [2, 0]] over x of shape
    [batch, 2], the batch symbolic; (its folder, its path)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    work = os.path.join(s.work, name)
    os.makedirs(work)
    w = numpy_helper.from_array(np.array([[1, -1], [2, 0]], np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])],
        [w])
    model = os.path.join(work, "tiny.onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    return work, model


def checkInputBounds(s: Suite):
    """--input-shape=x:1..4x2 keeps the batch dynamic within bounds: the
    module says so (kiln-dump-module: "(dim 0 in 1..4)"), runs at batches 1
    and 4, and refuses batch 5 in one line naming the input, the dimension
    and the bounds; a reversed range or a range for a static dimension is a
    one-line compile error."""
    work, model = tinyBatchModel(s, "bounds")
    module = os.path.join(work, "tiny.kiln")
    r = s.run([s.tool("kiln-compile"), model, "--input-shape=x:1..4x2", "-o",
               module])
    if r.problem or r.rc != 0:
        return s.report.result(False, "bounds/compile", r.describe())
    r = s.run([s.tool("kiln-dump-module"), module])
    ok = not r.problem and "(?x2xf32 (dim 0 in 1..4))" in r.stdout
    s.report.result(ok, "bounds/dump", "" if ok else r.stdout[:400])
    for batch in (1, 4):
        r = s.run([s.tool("kiln-run-module"), "--device=local-sync",
                   f"--module={module}", f"--input={batch}x2xf32=1"])
        ok = not r.problem and r.rc == 0 and f"{batch}x2xf32=" in r.stdout
        s.report.result(ok, f"bounds/run_batch_{batch}",
                        "" if ok else r.describe())
    s.expectError("bounds/run_batch_5_refused", [
        s.tool("kiln-run-module"), "--device=local-sync", f"--module={module}",
        "--input=5x2xf32=1"])
    r = s.run([s.tool("kiln-run-module"), "--device=local-sync",
               f"--module={module}", "--input=5x2xf32=1"])
    ok = "input 0 dimension 0 is 5, outside its bounds 1..4" in r.stderr
    s.report.result(ok, "bounds/run_batch_5_names_bounds",
                    "" if ok else r.stderr[:300])
    for name, spec in (("reversed", "x:4..1x2"), ("static_dim", "x:1..4x1..3")):
        s.expectError(f"bounds/compile_{name}", [
            s.tool("kiln-compile"), model, f"--input-shape={spec}", "-o",
            os.path.join(work, "unused.kiln")])


def checkSpecialize(s: Suite):
    """--specialize=batch=2 adds a function for batch 2 beside the general
    one (kiln-dump-module names both), the module still lists one function
    and answers right at batches 2 and 3; an unknown dimension name, a
    malformed spec and --specialize on MLIR input are one-line errors."""
    work, model = tinyBatchModel(s, "specialize")
    module = os.path.join(work, "tiny.kiln")
    r = s.run([s.tool("kiln-compile"), model, "--specialize=batch=2", "-o",
               module])
    if r.problem or r.rc != 0:
        return s.report.result(False, "specialize/compile", r.describe())
    r = s.run([s.tool("kiln-dump-module"), module])
    ok = (not r.problem and "specialized by 'tiny_specialized1'" in r.stdout
          and "function 'tiny_specialized1' (2x2xf32) -> (2x2xf32)"
          in r.stdout and "specialization of 'tiny'" in r.stdout)
    s.report.result(ok, "specialize/dump", "" if ok else r.stdout[:600])
    # x = [[1, 2], ...] rows: y = x @ w = [1 + 4, -1 + 0] = [5, -1].
    for batch in (2, 3):
        r = s.run([s.tool("kiln-run-module"), "--device=local-sync",
                   f"--module={module}",
                   f"--input={batch}x2xf32=" + " ".join(["1 2"] * batch)])
        want = f"{batch}x2xf32=" + "[5 -1]" * batch
        ok = not r.problem and r.rc == 0 and want in r.stdout
        s.report.result(ok, f"specialize/run_batch_{batch}",
                        "" if ok else r.describe())
    for name, spec in (("unknown_name", "seq=2"), ("malformed", "batch"),
                       ("negative", "batch=-1"), ("twice", "batch=1,batch=2")):
        s.expectError(f"specialize/compile_{name}", [
            s.tool("kiln-compile"), model, f"--specialize={spec}", "-o",
            os.path.join(work, "unused.kiln")])
    mlir = os.path.join(work, "id.mlir")
    with open(mlir, "w", encoding="utf-8") as f:
        f.write("func.func @id(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
                "  return %x : tensor<?xf32>\n}\n")
    s.expectError("specialize/mlir_input", [
        s.tool("kiln-compile"), mlir, "--specialize=batch=2", "-o",
        os.path.join(work, "unused.kiln")])
    r = s.run([s.tool("kiln-compile"), model, "--specialize=seq=2", "-o",
               os.path.join(work, "unused.kiln")])
    ok = ("no graph input has a symbolic dimension named 'seq' (the inputs' "
          "symbolic dimensions: batch)" in r.stderr)
    s.report.result(ok, "specialize/unknown_name_lists_names",
                    "" if ok else r.stderr[:300])
    # Within --input-shape bounds: the specialization's dimension is
    # static (its bounds its size); the bounds still hold for every call.
    bounded = os.path.join(work, "bounded.kiln")
    r = s.run([s.tool("kiln-compile"), model, "--input-shape=x:1..4x2",
               "--specialize=batch=2", "-o", bounded])
    if r.problem or r.rc != 0:
        return s.report.result(False, "specialize/bounded_compile",
                               r.describe())
    r = s.run([s.tool("kiln-run-module"), "--device=local-sync",
               f"--module={bounded}", "--input=2x2xf32=1 2 1 2"])
    ok = not r.problem and r.rc == 0 and "2x2xf32=[5 -1][5 -1]" in r.stdout
    s.report.result(ok, "specialize/bounded_run", "" if ok else r.describe())
    s.expectError("specialize/bounded_call_outside", [
        s.tool("kiln-run-module"), "--device=local-sync", f"--module={bounded}",
        "--input=5x2xf32=" + " ".join(["1 2"] * 5)])
    s.expectError("specialize/compile_outside_bounds", [
        s.tool("kiln-compile"), model, "--input-shape=x:1..4x2",
        "--specialize=batch=9", "-o", os.path.join(work, "unused.kiln")])
    # For GPUs only, a model whose one symbolic dimension is its batch is
    # also compiled at batch 1 (--specialize-batch-one, on by default); not
    # for the CPU, when turned off, or beside --specialize.
    cuda = ["--target-device=cuda", "--cuda-target=sm_90a"]
    batchOne = "function 'tiny_specialized1' (1x2xf32) -> (1x2xf32)"
    for name, argv, want in (
            ("gpu", cuda, True),
            ("gpu_off", cuda + ["--specialize-batch-one=false"], False),
            ("gpu_explicit", cuda + ["--specialize=batch=2"], False),
            ("gpu_bounded_past_one", cuda + ["--input-shape=x:2..64x2"],
             False),
            ("gpu_bounded", cuda + ["--input-shape=x:1..64x2"], True),
            ("cpu", [], False)):
        out = os.path.join(work, f"batch_one_{name}.kiln")
        r = s.run([s.tool("kiln-compile"), model, *argv, "-o", out])
        if r.problem or r.rc != 0:
            s.report.result(False, f"specialize/batch_one_{name}",
                            r.describe())
            continue
        r = s.run([s.tool("kiln-dump-module"), out])
        ok = not r.problem and (batchOne in r.stdout) == want
        s.report.result(ok, f"specialize/batch_one_{name}",
                        "" if ok else r.stdout[:600])


def checkPhases(s: Suite):
    """A model whose output's extent depends on a value it computes (NonZero
    of y > 0) runs as phases: on the CPU it prints the nonzero positions;
    compiled for a GPU with its batch-1 specialization (another symbolic
    input), both functions are phased and the module loads;
    kiln-benchmark-module times it by the host's clock
    (its output shapes are known only by calling it) and says so."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    work = os.path.join(s.work, "phases")
    os.makedirs(work)
    def nonZeroOfPositive(name):
        """NonZero(NAME > 0) into `nz`: a count the model computes."""
        return [helper.make_node("Constant", [], ["zero"],
                                 value=helper.make_tensor(
                                     "z", TensorProto.FLOAT, [], [0.0])),
                helper.make_node("Greater", [name, "zero"], ["c"]),
                helper.make_node("NonZero", ["c"], ["nz"])]

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"])] + nonZeroOfPositive("y"),
        "picks",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, ["batch", 2]),
         helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    model = os.path.join(work, "picks.onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    cpu = os.path.join(work, "picks.kiln")
    r = s.run([s.tool("kiln-compile"), model, "-o", cpu])
    if r.problem or r.rc != 0:
        return s.report.result(False, "phases/compile", r.describe())
    y = "--input=2x3xf32=1 -1 2 0 3 -4"
    r = s.run([s.tool("kiln-run-module"), "--device=local-sync",
               f"--module={cpu}", "--input=1x2xf32=-1 2", y])
    ok = (not r.problem and r.rc == 0 and "1x2xf32=[0 2]" in r.stdout
          and "2x3xi64=[0 0 1][0 2 1]" in r.stdout)
    s.report.result(ok, "phases/run", "" if ok else r.describe())
    # Timed by the host's clock, which it says.
    r = s.run([s.tool("kiln-benchmark-module"), "--device=local-sync",
               f"--module={cpu}", "--input=1x2xf32=-1 2", y,
               "--benchmark_repetitions=2"])
    ok = (not r.problem and r.rc == 0 and "timed by the host's clock only"
          in r.stdout + r.stderr)
    s.report.result(ok, "phases/benchmark_host_clock",
                    "" if ok else r.describe())
    # A condition over a dynamic batch: its length is checked per call
    # (at most 65536 elements where a kernel counts them), an error naming
    # the function and its phase.
    graph = helper.make_graph(
        nonZeroOfPositive("x"), "where",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    batched = os.path.join(work, "where.onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), batched)
    where = os.path.join(work, "where.kiln")
    r = s.run([s.tool("kiln-compile"), batched, "-o", where])
    if r.problem or r.rc != 0:
        return s.report.result(False, "phases/where_compile", r.describe())
    s.expectError("phases/condition_too_long", [
        s.tool("kiln-run-module"), "--device=local-sync", f"--module={where}",
        "--input=22000x3xf32=1"])
    gpu = os.path.join(work, "picks_cuda.kiln")
    r = s.run([s.tool("kiln-compile"), model, "--target-device=cuda",
               "--cuda-target=sm_90a", "-o", gpu])
    if r.problem or r.rc != 0:
        return s.report.result(False, "phases/gpu_compile", r.describe())
    r = s.run([s.tool("kiln-dump-module"), gpu])
    ok = (not r.problem and r.rc == 0
          and "specialized by 'picks_specialized1'" in r.stdout
          and "phase 1: 'picks_phase1'" in r.stdout
          and "phase 1: 'picks_specialized1_phase1'" in r.stdout)
    s.report.result(ok, "phases/gpu_specialized",
                    "" if ok else (r.stdout + r.stderr)[:600])


def checkLoops(s: Suite):
    """An ONNX Loop the runtime repeats (no trip count: its condition, given
    per call and passed through by the body, alone ends it): with the
    condition false it runs no step; true, it never ends, and the call
    stops at the runtime's bound on steps with one line. Compiled for a GPU
    with its batch-1 specialization, each function has its own loop body."""
    import onnx
    from onnx import TensorProto, helper
    work = os.path.join(s.work, "loops")
    os.makedirs(work)
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Add", ["v", "v"], ["v_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, ["batch", 2])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT,
                                       ["batch", 2])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["", "go", "x"], ["y"], body=body)],
        "spin",
        [helper.make_tensor_value_info("go", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2])])
    model = os.path.join(work, "spin.onnx")
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    cpu = os.path.join(work, "spin.kiln")
    r = s.run([s.tool("kiln-compile"), model, "-o", cpu])
    if r.problem or r.rc != 0:
        return s.report.result(False, "loops/compile", r.describe())
    run = [s.tool("kiln-run-module"), "--device=local-sync",
           f"--module={cpu}"]
    x = "--input=1x2xf32=1 -2"
    r = s.run(run + ["--input=i1=0", x])
    ok = not r.problem and r.rc == 0 and "1x2xf32=[1 -2]" in r.stdout
    s.report.result(ok, "loops/no_step", "" if ok else r.describe())
    s.expectError("loops/never_ends", run + ["--input=i1=1", x])
    gpu = os.path.join(work, "spin_cuda.kiln")
    r = s.run([s.tool("kiln-compile"), model, "--target-device=cuda",
               "--cuda-target=sm_90a", "-o", gpu])
    if r.problem or r.rc != 0:
        return s.report.result(False, "loops/gpu_compile", r.describe())
    r = s.run([s.tool("kiln-dump-module"), gpu])
    ok = (not r.problem and r.rc == 0 and "version 1.11" in r.stdout
          and "loop of 'spin_loop0' carrying 1" in r.stdout
          and "loop of 'spin_loop0_specialized1' carrying 1" in r.stdout)
    s.report.result(ok, "loops/gpu_specialized",
                    "" if ok else (r.stdout + r.stderr)[:600])


def checkPrintStatistics(s: Suite, module):
    """--print_statistics adds the allocator's table to stderr at exit and
    leaves stdout as it was, on both runtime tools; the add's 16-byte output
    is counted in device memory's peak."""
    rep = s.report
    runs = [
        ("run-module", s.runAdd(module, GOOD_A, GOOD_B, "--print_statistics"),
         ["EXEC @add", "4xf32=3 4 5 6"]),
        ("benchmark-module", [
            s.tool("kiln-benchmark-module"), "--device=local-sync",
            f"--module={module}", "--function=add", GOOD_A, GOOD_B,
            "--benchmark_repetitions=2", "--print_statistics"
        ], None),
    ]
    for name, argv, wantStdout in runs:
        r = s.run(argv)
        lines = [l.rstrip() for l in r.stderr.splitlines()]
        rows = {l.split()[0]: l.split()[1:] for l in lines[2:-1] if l.split()}
        problems = []
        if r.problem or r.rc != 0:
            problems.append(r.describe())
        if wantStdout is not None and r.stdout.splitlines() != wantStdout:
            problems.append(f"stdout {r.stdout!r}")
        if not lines or lines[0] != "allocator statistics (local-sync):":
            problems.append(f"first stderr line {lines[:1]!r}")
        if len(lines) < 2 or lines[1].split()[:3] != ["memory", "live",
                                                      "bytes"]:
            problems.append(f"no header line: {lines[1:2]!r}")
        if not lines or lines[-1] != "  refused for lack of memory: 0":
            problems.append(f"last stderr line {lines[-1:]!r}")
        # The output is device memory (on local-sync's unified memory
        # kiln-run-module's is host-visible too); peak bytes are column 3.
        deviceRows = [rows.get(t, []) for t in
                      ["DeviceLocal", "DeviceLocal|HostVisible"]]
        if any(len(row) != 6 for row in deviceRows) or sum(
                int(row[2]) for row in deviceRows) < 16:
            problems.append(f"device memory rows {deviceRows!r}")
        if "imported" not in rows:
            problems.append("no imported row")
        rep.result(not problems, f"{name} --print_statistics [local-sync]",
                   "; ".join(problems))


def checkNoGpuLibraries(s: Suite, module):
    """The runtime tools link no vendor library (libcuda, libcudart,
    libamdhip64, libhsa-runtime64) nor LLVM/MLIR: the GPU drivers open
    theirs at run time. Without a device, --device=cuda|hip|amdgpu is a
    one-line error; the AMD ones name their library and the flag that
    points at it, and --list_drivers says why each is unavailable."""
    rep = s.report
    for tool in ["kiln-run-module", "kiln-benchmark-module"]:
        r = s.run(["ldd", s.tool(tool)])
        banned = [l.split()[0] for l in r.stdout.splitlines()
                  if re.search(r"libcuda|libcudart|libamdhip64|libhsa|"
                               r"libLLVM|libMLIR", l)]
        ok = not r.problem and r.rc == 0 and not banned
        rep.result(ok, f"ldd {tool}: no CUDA, HIP, HSA, LLVM or MLIR library",
                   "" if ok else f"{r.describe()}; links {banned}")
    devices = s.run([s.tool("kiln-run-module"), "--list_devices"]).stdout
    drivers = s.run([s.tool("kiln-run-module"), "--list_drivers"]).stdout
    checks = [("cuda", None, None),
              ("hip", "libamdhip64", "--hip_dylib_path="),
              ("amdgpu", "libhsa-runtime64", "--amdgpu_libhsa_search_path=")]
    for driver, library, flag in checks:
        name = f"run-module/{driver}_without_device"
        if f"{driver}://" in devices:
            rep.result(True, name, f"skipped: this machine has a {driver} "
                       "device")
            continue
        if not re.search(rf"^{driver}\b", drivers, re.M):
            rep.result(True, name, f"skipped: no {driver} driver built")
            continue
        s.expectError(name, s.runAdd(module, GOOD_A, GOOD_B, driver=driver))
        line = next((l for l in drivers.splitlines()
                     if l.split(" ")[0] == driver), "")
        # A driver that works but finds no GPU says so instead.
        if library is None or "(unavailable: " not in line:
            continue
        r = s.run(s.runAdd(module, GOOD_A, GOOD_B, driver=driver))
        ok = library in r.stderr and flag in r.stderr
        rep.result(ok, f"{name}: names {library} and {flag}",
                   "" if ok else r.stderr.strip()[:300])
        ok = library in line
        rep.result(ok, f"--list_drivers: {driver} unavailable, saying why",
                   line[:300])


def checkIreeSpellings(s: Suite, module):
    """The acceptance example as IREE's CUDA design note spells the flags
    (single dash, older names, one comma-separated --function_inputs), on
    the CPU; and --help lists those aliases."""
    rep = s.report
    r = s.run([s.tool("kiln-run-module"), "-driver=local-sync",
               f"-module_file={module}", "-entry_function=add",
               "--function_inputs=4xf32=[1 2 3 4], 4xf32=[2 2 2 2]"])
    want = ["EXEC @add", "4xf32=3 4 5 6"]
    got = [l.rstrip() for l in r.stdout.splitlines()]
    ok = not r.problem and r.rc == 0 and got == want and not r.stderr
    rep.result(ok, "acceptance add, IREE flag spellings [local-sync]",
               "" if ok else f"{r.describe()}; stdout {got!r}, "
               f"stderr {r.stderr!r}")
    s.expectError("run-module/function_inputs_empty_piece", [
        s.tool("kiln-run-module"), "-driver=local-sync",
        f"-module_file={module}", "-entry_function=add",
        "--function_inputs=4xf32=[1 2 3 4],,4xf32=[2 2 2 2]"
    ])
    r = s.run([s.tool("kiln-run-module"), "--help"])
    missing = [a for a in ["--driver=", "--module_file=", "--entry_function=",
                           "--function_inputs=", "--cuda_use_streams",
                           "single dash"] if a not in r.stdout]
    ok = not r.problem and r.rc == 0 and not missing
    rep.result(ok, "run-module --help lists the IREE spellings", "" if ok
               else f"{r.describe()}; missing {missing}")


# An input that cannot be right is refused before the tools allocate, fill
# or read its size (issue 6): a 1 GiB splat or .npy file for a 4xf32 input,
# a 1 GiB file that is not a module. Each fails within FAST_SECONDS and
# FAST_PEAK_BYTES of resident memory (the ASan build's tools included); the
# large files are sparse, so they cost nothing to make.
FAST_SECONDS = 5.0
FAST_PEAK_BYTES = 256 << 20
LARGE_BYTES = 1 << 30

# Runs a tool (argv[3:]) with a timeout (argv[2]), passing its output and
# exit status through, and records its wall time, peak resident memory and
# stderr in a JSON file (argv[1]). It runs as a process of its own, so the
# tool is its only child and RUSAGE_CHILDREN measures the tool alone.
MEASURED_RUN = r"""
import json, os, resource, signal, subprocess, sys, time
record, timeout, argv = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
start = time.monotonic()
try:
    p = subprocess.run(argv, capture_output=True, timeout=timeout)
except subprocess.TimeoutExpired:
    sys.stderr.write(f"tool timed out after {timeout:.0f}s\n")
    sys.exit(124)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
with open(record, "w") as f:
    json.dump({"seconds": time.monotonic() - start, "peakBytes": peak,
               "stderr": p.stderr.decode(errors="replace")}, f)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
sys.stdout.flush()
sys.stderr.flush()
if p.returncode < 0:
    signal.signal(-p.returncode, signal.SIG_DFL)
    os.kill(os.getpid(), -p.returncode)
sys.exit(p.returncode)
"""


def expectRefusedFast(s: Suite, name, argv, mustName):
    """The usual one-line error, within FAST_SECONDS and FAST_PEAK_BYTES,
    and the message contains every string of `mustName`."""
    record = os.path.join(s.work, f"{name.replace('/', '_')}.json")
    s.expectError(name, [sys.executable, "-c", MEASURED_RUN, record,
                         str(4 * FAST_SECONDS), *argv])
    try:
        with open(record) as f:
            measured = json.load(f)
    except (OSError, ValueError) as e:
        return s.report.result(False, f"{name} [fast]",
                               f"no measurement: {e}")
    problems = []
    if measured["seconds"] > FAST_SECONDS:
        problems.append(f"took {measured['seconds']:.1f}s, want <= "
                        f"{FAST_SECONDS:.0f}s")
    if measured["peakBytes"] > FAST_PEAK_BYTES:
        problems.append(f"peak memory {measured['peakBytes'] >> 20} MiB, "
                        f"want <= {FAST_PEAK_BYTES >> 20} MiB")
    missing = [n for n in mustName if n not in measured["stderr"]]
    if missing:
        problems.append(f"message does not name {missing}: "
                        f"{measured['stderr'].strip()!r}")
    s.report.result(not problems, f"{name} [fast]", "; ".join(problems) or
                    f"{measured['seconds']:.2f}s, "
                    f"{measured['peakBytes'] >> 20} MiB")


def writeSparse(path, head, size):
    """A file of `size` bytes that starts with `head`, the rest a hole."""
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)


def checkRefusedBeforeReading(s: Suite, module):
    splat = "--input=256x1024x1024xf32=0"
    expectRefusedFast(s, "run-module/fails_fast/huge_splat_for_4xf32",
                      s.runAdd(module, splat, GOOD_B),
                      ["input 0", "4xf32", "256x1024x1024xf32"])
    expectRefusedFast(s, "benchmark-module/fails_fast/huge_splat_for_4xf32", [
        s.tool("kiln-benchmark-module"), "--device=local-sync",
        f"--module={module}", "--function=add", GOOD_A, splat
    ], ["input 1", "4xf32", "256x1024x1024xf32"])

    header = (b"{'descr': '<f4', 'fortran_order': False, "
              b"'shape': (16384, 16384), }\n")
    npy = os.path.join(s.work, "large.npy")
    writeSparse(npy, b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little")
                + header, 10 + len(header) + LARGE_BYTES)
    expectRefusedFast(s, "run-module/fails_fast/huge_npy_for_4xf32",
                      s.runAdd(module, GOOD_A, f"--input=@{npy}"),
                      ["input 1", "4xf32", "16384x16384xf32"])

    with open(module, "rb") as f:
        moduleHead = f.read(8)
    large = {
        "large_non_module": (b"PK\x03\x04" + bytes(60), "not a Kiln module"),
        "large_module_without_footer": (moduleHead, "no checksum footer"),
    }
    for name, (head, why) in large.items():
        path = os.path.join(s.work, f"{name}.kiln")
        writeSparse(path, head, LARGE_BYTES)
        expectRefusedFast(s, f"run-module/fails_fast/{name}",
                          s.runAdd(path, GOOD_A, GOOD_B), [path, why])
        expectRefusedFast(s, f"dump-module/fails_fast/{name}",
                          [s.tool("kiln-dump-module"), path], [path, why])


# Step dependencies in the dump. @two_chains (cases/branches.mlir) computes
# ((a w) w) w and ((b w) w) w: chain A starts from input0, chain B from
# input1, and they share only input2 (w), which nothing writes. A step's
# chain is found from the dump alone, by following the bytes it reads back
# to the step that last wrote them (arena bytes may be reused, so the latest
# writer of each byte counts), not from step numbers, which depend on how the
# compiler orders and fuses the dispatches.
TWO_CHAINS_TARGETS = [
    ("cpu", ["--target-device=cpu"]),
    ("cuda", ["--target-device=cuda", "--cuda-target=sm_90a"]),
]
_RANGE_RE = re.compile(r"(input\d+|output\d+|arena|constants)\[(\d+), (\d+)\)"
                       r"(?: (read-write|read|write))?")


def parseSteps(dump: str, function: str):
    """The steps of `function` in a kiln-dump-module listing: a list of
    {"index", "reads", "writes", "after"}, reads and writes being
    (storage, begin, end) ranges and after the set of step indices waited
    for. Raises ValueError on a line it cannot read."""
    steps, inside = [], False
    for line in dump.splitlines():
        if line.startswith("function "):
            inside = line.startswith(f"function '{function}' ")
            continue
        if not inside or not line.startswith("  step "):
            if inside and not line.startswith("  "):
                inside = False
            continue
        m = re.match(r"^  step (\d+): (.*)$", line)
        if not m or int(m.group(1)) != len(steps):
            raise ValueError(f"unexpected step line {line!r}")
        body, _, after = m.group(2).partition("; after ")
        if not after:
            waits = set()
        elif after == "every earlier step":
            waits = set(range(len(steps)))
        else:
            am = re.match(r"^steps? (\d+(?:, \d+)*)$", after)
            if not am:
                raise ValueError(f"unexpected dependencies in {line!r}")
            waits = {int(n) for n in am.group(1).split(", ")}
        reads, writes = [], []
        if body.startswith("dispatch "):
            bindings = re.search(r"bindings \[(.*?)\]", body)
            if not bindings:
                raise ValueError(f"no bindings in {line!r}")
            for r in _RANGE_RE.finditer(bindings.group(1)):
                rng = (r.group(1), int(r.group(2)), int(r.group(3)))
                access = r.group(4) or "read-write"
                if access in ("read", "read-write"):
                    reads.append(rng)
                if access in ("write", "read-write"):
                    writes.append(rng)
        elif body.startswith("copy "):
            found = [(r.group(1), int(r.group(2)), int(r.group(3)))
                     for r in _RANGE_RE.finditer(body)]
            reads, writes = found[:1], found[1:2]
        elif body.startswith("fill "):
            found = _RANGE_RE.search(body)
            writes = [(found.group(1), int(found.group(2)),
                       int(found.group(3)))] if found else []
        else:
            raise ValueError(f"unknown step kind in {line!r}")
        steps.append({"index": len(steps), "reads": reads, "writes": writes,
                      "after": waits})
    return steps


def chainOfSteps(steps, seeds):
    """{step index: set of chains whose data it reads}, following bytes from
    the seed storages (e.g. {"input0": "A"}) through every later write."""
    # storage -> [(begin, end, chains)], non-overlapping, latest writer wins.
    written = {}
    chains = {}
    for step in steps:
        taint = set()
        for storage, lo, hi in step["reads"]:
            if storage in seeds:
                taint.add(seeds[storage])
            for b, e, t in written.get(storage, []):
                if b < hi and lo < e:
                    taint |= t
        chains[step["index"]] = taint
        for storage, lo, hi in step["writes"]:
            kept = []
            for b, e, t in written.get(storage, []):
                if b < lo:
                    kept.append((b, min(e, lo), t))
                if e > hi:
                    kept.append((max(b, hi), e, t))
            kept.append((lo, hi, set(taint)))
            written[storage] = kept
    return chains


def twoChainsProblems(dump: str):
    """What is wrong with @two_chains' dependencies in `dump` (empty when
    nothing is), and a summary of the chains found."""
    try:
        steps = parseSteps(dump, "two_chains")
    except ValueError as e:
        return [str(e)], ""
    if not steps:
        return ["no steps of function 'two_chains' in the dump"], ""
    taint = chainOfSteps(steps, {"input0": "A", "input1": "B"})
    problems = []
    members = {"A": [], "B": []}
    for step in steps:
        t = taint[step["index"]]
        if len(t) != 1:
            problems.append(f"step {step['index']} reads data of "
                            f"{'both chains' if t else 'neither chain'}")
        else:
            members[next(iter(t))].append(step["index"])
    for chain, output in (("A", "output0"), ("B", "output1")):
        writers = [s["index"] for s in steps
                   if any(w[0] == output for w in s["writes"])]
        if not writers or any(i not in members[chain] for i in writers):
            problems.append(f"{output} is written by steps {writers}, not by "
                            f"chain {chain} {members[chain]}")
    for chain, own in members.items():
        if len(own) < 3:
            problems.append(f"chain {chain} has steps {own}, want 3 or more "
                            f"(one per matmul)")
        for k, i in enumerate(own):
            foreign = sorted(steps[i]["after"] - set(own))
            if foreign:
                problems.append(f"step {i} of chain {chain} waits for step(s) "
                                f"{foreign} outside it")
            if k > 0 and own[k - 1] not in steps[i]["after"]:
                problems.append(f"step {i} of chain {chain} does not wait for "
                                f"step {own[k - 1]}, whose result it reads")
    # With no edge between the chains, neither may write bytes the other
    # touches (the arena must not reuse bytes across independent branches).
    for i in members["A"]:
        for j in members["B"]:
            a, b = steps[i], steps[j]
            pairs = [(w, x) for w in a["writes"] for x in b["reads"] +
                     b["writes"]] + [(w, x) for w in b["writes"]
                                     for x in a["reads"]]
            for w, x in pairs:
                if w[0] == x[0] and w[1] < x[2] and x[1] < w[2]:
                    problems.append(f"steps {i} (chain A) and {j} (chain B) "
                                    f"share bytes of {w[0]}: "
                                    f"[{max(w[1], x[1])}, {min(w[2], x[2])})")
    return problems, f"chain A steps {members['A']}, chain B steps " \
                     f"{members['B']}"


def checkDynamicShapeErrors(s: Suite):
    """A module over dynamic dimensions called with shapes that contradict
    it: one line naming the input and the dimension, on both drivers."""
    module = os.path.join(s.work, "dynamic.kiln")
    r = s.run([s.tool("kiln-compile"), os.path.join(CASES_DIR, "dynamic.mlir"),
               "--target-device=cpu", "-o", module])
    if r.problem or r.rc != 0:
        s.report.result(False, "compile dynamic.mlir", r.describe())
        return
    calls = {
        # add_1d's two lengths must be equal.
        "unequal_lengths": ("add_1d", ["3xf32=1 2 3", "4xf32=1 2 3 4"],
                            "input 1 dimension 0 is 4 but must equal input 0 "
                            "dimension 0, which is 3"),
        # bias_relu_2d's bias is as long as the matrix's rows.
        "unequal_broadcast": ("bias_relu_2d", ["2x3xf32=1", "2xf32=1"],
                              "input 1 dimension 0 is 2 but must equal input "
                              "0 dimension 1, which is 3"),
        # scale_columns' second dimension is static.
        "static_dimension": ("scale_columns", ["2x5xf32=1"],
                             "must be ?x4xf32, but --input='2x5xf32=1' is "
                             "2x5xf32 (dimension 1 must be 4)"),
        "rank": ("row_sum", ["7xf32=1"], "must be ?x?xf32"),
    }
    for d in DRIVERS:
        for name, (function, inputs, mustName) in calls.items():
            argv = [s.tool("kiln-run-module"), f"--device={d}",
                    f"--module={module}", f"--function={function}"]
            argv += [f"--input={i}" for i in inputs]
            label = f"run-module/dynamic_{name} [{d}]"
            r = s.run(argv)
            lines = r.stderr.splitlines()
            if (r.problem or r.rc != 1 or len(lines) != 1 or
                    not lines[0].startswith("error:") or
                    mustName not in lines[0]):
                s.report.result(False, label, f"{r.describe()}; stderr "
                                f"{lines[:3]!r}, want one error line naming "
                                f"{mustName!r}")
            else:
                s.report.result(True, label, lines[0])
    checkBenchmarkInputSets(s, module)


def checkBenchmarkInputSets(s: Suite, module):
    """kiln-benchmark-module times a dynamic function at each --input_set
    in one run (issue 19, item 6): a report per set and a summary line per
    set; a set the function refuses, or --input beside --input_set, is one
    error line naming it."""
    bench = [s.tool("kiln-benchmark-module"), f"--module={module}",
             "--function=add_1d", "--benchmark_repetitions=3", "--warmup=1"]
    sets = ["--input_set=3xf32=1, 3xf32=2", "--input_set=257xf32=1,257xf32=2"]
    for d in DRIVERS:
        label = f"benchmark-module/dynamic_input_sets [{d}]"
        r = s.run(bench + [f"--device={d}", "--output=-"] + sets)
        want = ["input set 1 of 2: 3xf32, 3xf32",
                "input set 2 of 2: 257xf32, 257xf32",
                "3xf32=3 3 3", "median per input set",
                "  set 1 (3xf32, 3xf32): host ",
                "  set 2 (257xf32, 257xf32): host "]
        missing = [w for w in want if w not in r.stdout]
        ok = not r.problem and r.rc == 0 and not missing
        s.report.result(ok, label, "" if ok else
                        f"{r.describe()}; stdout lacks {missing!r}")
        for name, extra, mustName in [
                ("contradicting_set", ["--input_set=4xf32=1, 5xf32=1"],
                 "--input_set 3: function @add_1d input 1 dimension 0 is 5 "
                 "but must equal input 0 dimension 0, which is 4"),
                ("input_beside_sets", ["--input=3xf32=1"],
                 "--input and --input_set cannot be mixed")]:
            label = f"benchmark-module/dynamic_{name} [{d}]"
            r = s.run(bench + [f"--device={d}"] + sets + extra)
            lines = r.stderr.splitlines()
            ok = (not r.problem and r.rc == 1 and len(lines) == 1 and
                  lines[0].startswith("error:") and mustName in lines[0])
            s.report.result(ok, label, lines[0] if ok else
                            f"{r.describe()}; stderr {lines[:3]!r}, want one "
                            f"error line naming {mustName!r}")


def checkTwoChainsDependencies(s: Suite):
    source = os.path.join(CASES_DIR, "branches.mlir")
    for target, flags in TWO_CHAINS_TARGETS:
        name = f"dump-module/two_chains_dependencies [{target}]"
        out = os.path.join(s.work, f"branches_{target}.kiln")
        r = s.run([s.tool("kiln-compile"), source, *flags, "-o", out])
        if r.problem or r.rc != 0:
            s.report.result(False, name, f"compile: {r.describe()}; "
                            f"{r.stderr[:300]!r}")
            continue
        r = s.run([s.tool("kiln-dump-module"), out])
        if r.problem or r.rc != 0:
            s.report.result(False, name, f"dump: {r.describe()}")
            continue
        problems, summary = twoChainsProblems(r.stdout)
        s.report.result(not problems, name, "; ".join(problems) or summary)


if __name__ == "__main__":
    sys.exit(main())
