#!/usr/bin/python3
"""The malformed-model CLI suite of issue 16: every hostile model of
make_hostile.py through both kiln-import-onnx and kiln-compile.

  /usr/bin/python3 tests/onnx/hostile/run_hostile.py --bin-dir build/bin
  /usr/bin/python3 tests/onnx/hostile/run_hostile.py --bin-dir build/bin \\
      --filter '^ext_' --keep

Each tool runs with its working directory set to the case's scratch `cwd/`
folder (which holds planted secrets: a relative read of the working
directory shows), TMPDIR set to the case's `tmp/`, a wall-clock timeout and
an address-space limit (RLIMIT_AS, --mem-gib, 8 GiB by default;
valid_small_matmul shows that a real compile fits in it). Then, per case
kind (see make_hostile.py):

- error: exit code 1 (not 0, not a signal, not the timeout); stderr's first
  line contains `error:` and the name the case expects; kiln-import-onnx
  prints that one line and nothing else (kiln-compile may add MLIR notes);
  no output file is left in `out/` and nothing new in `cwd/`;
- valid: exit code 0 and an output written; where the case gives inputs,
  the module runs on kiln-run-module --device=local-sync and matches numpy;
  the time of each tool is printed, never asserted;
- bounded: exit 0 with an output, or a clean error as above.

External-data cases (and the valid ones) also run each tool under
`strace -f -y`: no file outside the model's folder may be opened (besides
system libraries, /proc, /sys, /dev/null, the build tree and the case's
out/ and tmp/), no planted secret may be opened through any path outside
the folder, and no secret's inode may be read or mapped at all (a hard link
inside the folder may be opened to fstat it, never read). Without strace
those checks print `skipped: strace not installed`.

Prints `PASS name [tool]: detail` or `FAIL ...` per check, ends with
`N passed, N failed` (`, N skipped`), and exits 1 when any check failed.
"""

import argparse
import concurrent.futures
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import List, NamedTuple, Optional, Set, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_hostile as mh  # noqa: E402

IMPORT = "kiln-import-onnx"
COMPILE = "kiln-compile"
RUN = "kiln-run-module"

# System calls traced for the external-data checks: those that open a file,
# and those that read or map one through a descriptor (-y prints each
# descriptor's path, so a read through a hard link shows up by its inode).
OPEN_CALLS = ["open", "openat", "openat2", "creat"]
READ_CALLS = ["read", "pread64", "readv", "preadv", "preadv2", "mmap",
              "sendfile", "copy_file_range", "splice"]


def parseArgs():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True,
                   help="directory holding kiln-import-onnx, kiln-compile "
                   "and kiln-run-module")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds one tool run may take (cases may set "
                   "their own; default 60)")
    p.add_argument("--mem-gib", type=float, default=8.0,
                   help="address-space limit of every tool run, GiB")
    p.add_argument("--jobs", type=int, default=2,
                   help="cases run at once (default 2)")
    p.add_argument("--filter", help="regular expression on case names")
    p.add_argument("--no-strace", action="store_true",
                   help="skip the strace checks even where strace exists")
    p.add_argument("--keep", action="store_true",
                   help="keep the scratch folder and print where it is")
    return p.parse_args()


class Report:
    """Collects the checks of one case and prints them together, so that
    parallel cases do not interleave their lines."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.lock = threading.Lock()

    def emit(self, lines: List[Tuple[str, str, str]]):
        with self.lock:
            for status, name, detail in lines:
                if status == "PASS":
                    self.passed += 1
                elif status == "FAIL":
                    self.failed += 1
                else:
                    self.skipped += 1
                print(f"{status} {name}" + (f": {detail}" if detail else ""),
                      flush=True)

    def finish(self) -> int:
        line = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            line += f", {self.skipped} skipped"
        print(line, flush=True)
        return 1 if self.failed else 0


class Result(NamedTuple):
    rc: Optional[int]
    stdout: str
    stderr: str
    seconds: float
    problem: str  # a signal, the timeout or a tool that would not start

    def firstLine(self) -> str:
        lines = self.stderr.splitlines()
        return lines[0] if lines else ""


def text(data) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def clip(s: str, limit: int = 240) -> str:
    return s if len(s) <= limit else s[:limit] + "..."


# LLVM's crash handler prints these before and after what went wrong.
CRASH_BOILERPLATE = re.compile(
    r"^(PLEASE submit a bug report|Stack dump:|\s*#\d+ |\s*\d+\.\s)")


def crashLine(stderr: str) -> str:
    """The first stderr line of a crashed tool that says something: its own
    message or LLVM's ("LLVM ERROR: out of memory"), not the stack dump."""
    for line in stderr.splitlines():
        if line.strip() and not CRASH_BOILERPLATE.match(line):
            return line.strip()
    return ""


class Runner:
    """Runs the tools the way every check needs: scratch cwd and TMPDIR,
    timeout, address-space limit, stdin closed."""

    def __init__(self, binDir: str, memBytes: int):
        self.binDir = binDir
        self.memBytes = memBytes

    def tool(self, name: str) -> str:
        return os.path.join(self.binDir, name)

    def limits(self):
        # Runs in the child between fork and exec. The address-space limit
        # turns a runaway allocation into a quick failure of the tool
        # (which must never happen: the check sees a signal) instead of
        # swapping the machine; no core files for the same reason.
        resource.setrlimit(resource.RLIMIT_AS, (self.memBytes, self.memBytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def run(self, argv: List[str], place: mh.Place,
            timeout: float) -> Result:
        env = dict(os.environ, TMPDIR=place.tmp)
        start = time.monotonic()
        try:
            # A session of its own, so that a timeout kills the tool and
            # anything it started (strace and its tracee, a linker).
            p = subprocess.Popen(argv, cwd=place.cwd, env=env,
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 preexec_fn=self.limits,
                                 start_new_session=True)
        except OSError as e:
            return Result(None, "", "", 0.0, f"cannot start {argv[0]}: {e}")
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = p.communicate()
            return Result(None, text(out), text(err), timeout,
                          f"timed out after {timeout:.0f} s")
        seconds = time.monotonic() - start
        if p.returncode < 0:
            try:
                name = signal.Signals(-p.returncode).name
            except ValueError:
                name = f"signal {-p.returncode}"
            why = crashLine(text(err))
            return Result(p.returncode, text(out), text(err), seconds,
                          f"killed by {name}" + (f" ({clip(why)})"
                                                 if why else ""))
        return Result(p.returncode, text(out), text(err), seconds, "")


def toolArgv(runner: Runner, tool: str, model: str, out: str) -> List[str]:
    if tool == IMPORT:
        return [runner.tool(IMPORT), model, "-o", out]
    return [runner.tool(COMPILE), model, "--target-device=cpu", "-o", out]


def outPath(place: mh.Place, tool: str) -> str:
    return os.path.join(place.out, "out.mlir" if tool == IMPORT else
                        "out.kiln")


def clearOut(place: mh.Place):
    for entry in os.listdir(place.out):
        path = os.path.join(place.out, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def expectAlternatives(expect) -> List[str]:
    return list(expect) if isinstance(expect, tuple) else [expect]


def checkError(case: mh.Case, tool: str, r: Result, place: mh.Place,
               cwdBefore: Set[str]) -> Tuple[bool, str]:
    """Exit 1, the first stderr line an `error:` naming what the case
    expects, one line only from kiln-import-onnx, nothing left behind."""
    first = r.firstLine()
    if r.problem:
        return False, r.problem
    if r.rc != 1:
        return False, f"exit code {r.rc}, want 1; first stderr line " \
            f"{clip(first)!r}"
    if "error:" not in first:
        return False, f"first stderr line has no 'error:': {clip(first)!r}"
    names = expectAlternatives(case.expect)
    if not any(n in first for n in names) or not all(a in first
                                                     for a in case.also):
        return False, (f"first stderr line does not name "
                       f"{mh.expectText(case.expect, case.also)}: "
                       f"{clip(first)!r}")
    lines = r.stderr.splitlines()
    if tool == IMPORT and len(lines) != 1:
        return False, (f"{len(lines)} stderr lines, want 1: "
                       f"{clip(' | '.join(lines[:4]))!r}")
    left = leftovers(place, cwdBefore)
    if left:
        return False, f"left behind after failing: {', '.join(left)}"
    return True, clip(first)


def leftovers(place: mh.Place, cwdBefore: Set[str]) -> List[str]:
    """What a failed run must not leave: anything in out/ (the output or a
    half-written temporary) and anything new in the working directory."""
    left = [os.path.join("out", e) for e in sorted(os.listdir(place.out))]
    left += [os.path.join("cwd", e)
             for e in sorted(set(os.listdir(place.cwd)) - cwdBefore)]
    return left


def checkValid(tool: str, r: Result, out: str) -> Tuple[bool, str]:
    if r.problem:
        return False, r.problem
    if r.rc != 0:
        return False, f"exit code {r.rc}, want 0; first stderr line " \
            f"{clip(r.firstLine())!r}"
    if not os.path.isfile(out) or os.path.getsize(out) == 0:
        return False, "exit 0 but no output written"
    return True, f"exit 0 in {r.seconds:.2f} s"


def checkBounded(case: mh.Case, tool: str, r: Result, place: mh.Place,
                 cwdBefore: Set[str], out: str) -> Tuple[bool, str]:
    """A valid but large model: any clean outcome."""
    if r.problem:
        return False, r.problem
    if r.rc == 0:
        ok, detail = checkValid(tool, r, out)
        return ok, detail
    first = r.firstLine()
    lines = r.stderr.splitlines()
    if r.rc != 1 or "error:" not in first:
        return False, f"exit code {r.rc}, want 0 or a clean 1: {clip(first)!r}"
    if tool == IMPORT and len(lines) != 1:
        return False, f"{len(lines)} stderr lines, want 1"
    left = leftovers(place, cwdBefore)
    if left:
        return False, f"left behind after failing: {', '.join(left)}"
    return True, f"refused in {r.seconds:.2f} s: {clip(first)}"


# --- strace ---------------------------------------------------------------

QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"(?:\.\.\.)?')
CALL = re.compile(r'^\d+\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()')
FD_PATH = re.compile(r'(?<![\w<])\d+<(/[^>]*)>')
RETURN_FD = re.compile(r'=\s+\d+<(/[^>]*)>\s*$')


def straceUsable() -> str:
    """'' when strace can trace here, else why not."""
    exe = shutil.which("strace")
    if not exe:
        return "strace not installed"
    try:
        p = subprocess.run([exe, "-f", "-qq", "-o", os.devnull, "/bin/true"],
                           capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"strace does not run: {e}"
    if p.returncode != 0:
        return f"strace cannot trace here: {clip(text(p.stderr).strip())}"
    return ""


def straceArgv(log: str, argv: List[str]) -> List[str]:
    return ["strace", "-f", "-qq", "-y", "-s", "8", "-e", "signal=none",
            "-e", "trace=" + ",".join(OPEN_CALLS + READ_CALLS), "-o", log,
            "--"] + argv


def parseStrace(log: str) -> Tuple[Set[str], Set[str]]:
    """(paths opened successfully, paths read or mapped), as strace -y
    resolved the descriptors (real paths, links followed)."""
    opened: Set[str] = set()
    read: Set[str] = set()
    with open(log, errors="replace") as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue
            call = m.group(1) or m.group(2)
            bare = QUOTED.sub('""', line)
            if call in OPEN_CALLS:
                ret = RETURN_FD.search(bare)
                if ret:
                    opened.add(ret.group(1))
            elif call in READ_CALLS:
                read.update(FD_PATH.findall(bare))
    return opened, read


def under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def short(path: str, place: mh.Place) -> str:
    """A path inside the case's folder relative to it (model/..., outside/...,
    cwd/...), others as they are."""
    root = os.path.realpath(place.root)
    return os.path.relpath(path, root) if under(path, root) else path


def inode(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def allowedPrefixes(place: mh.Place, binDir: str) -> List[str]:
    """Where a tool may open files besides the model's folder: its own
    build tree, the system's libraries and pseudo-files, and the case's
    out/ and tmp/."""
    build = os.path.dirname(os.path.realpath(binDir))
    own = [os.path.realpath(d) for d in (place.model_dir, place.out,
                                         place.tmp)]
    system = [build, "/usr", "/lib", "/lib32", "/lib64", "/proc", "/sys",
              "/dev/null", "/dev/urandom", "/dev/random", "/dev/tty",
              "/etc/ld.so.cache", "/etc/ld.so.preload"]
    # A scratch folder inside one of these (TMPDIR in the build tree) must
    # not make the whole case, secrets and cwd included, allowed.
    root = os.path.realpath(place.root)
    return own + [s for s in system if not under(root, s)]


def checkOpens(place: mh.Place, binDir: str, log: str,
               r: Result) -> Tuple[bool, str]:
    if not os.path.exists(log):
        return False, f"strace wrote no log ({r.problem or r.rc}: " \
            f"{clip(r.firstLine())!r})"
    opened, read = parseStrace(log)
    modelDir = os.path.realpath(place.model_dir)
    secrets = {inode(s): s for s in place.secrets}
    secrets.pop(None, None)
    # Secrets first: they are the point, the allow-list is a safety net.
    problems, strays = [], []
    for path in sorted(opened):
        secret = secrets.get(inode(path))
        if secret and not under(path, modelDir):
            problems.append(f"opened secret {short(path, place)}")
        elif not any(under(path, a) for a in allowedPrefixes(place, binDir)):
            strays.append(f"opened {short(path, place)} outside the model's "
                          f"folder")
    for path in sorted(read):
        secret = secrets.get(inode(path))
        if secret:
            problems.append(f"read secret {short(secret, place)} through "
                            f"{short(path, place)}")
    problems += strays
    if problems:
        return False, clip("; ".join(problems), 400)
    inside = sum(1 for p in opened if under(p, modelDir))
    return True, (f"nothing outside opened ({len(opened)} files opened, "
                  f"{inside} in the model's folder)")


# --- a valid case's module against numpy -----------------------------------


def checkRun(runner: Runner, case: mh.Case, module: str, place: mh.Place,
             timeout: float) -> Tuple[bool, str]:
    inputs, wants = case.io()
    argv = [runner.tool(RUN), "--device=local-sync", f"--module={module}"]
    for i, x in enumerate(inputs):
        path = os.path.join(place.tmp, f"in{i}.npy")
        np.save(path, x)
        argv.append(f"--input=@{path}")
    outs = [os.path.join(place.tmp, f"out{i}.npy") for i in range(len(wants))]
    argv += [f"--output=@{o}" for o in outs]
    r = runner.run(argv, place, timeout)
    if r.problem or r.rc != 0:
        return False, (f"{r.problem or f'exit code {r.rc}'}: "
                       f"{clip(r.firstLine())!r}")
    worst = 0.0
    for i, (path, want) in enumerate(zip(outs, wants)):
        try:
            got = np.load(path)
        except (OSError, ValueError) as e:
            return False, f"output {i} unreadable: {e}"
        if got.shape != want.shape or got.dtype != want.dtype:
            return False, (f"output {i} is {got.dtype}{list(got.shape)}, "
                           f"want {want.dtype}{list(want.shape)}: "
                           f"{clip(repr(got.ravel()[:8]))}")
        if not np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True):
            return False, (f"output {i} is {clip(repr(got.ravel()[:8]))}, "
                           f"want {clip(repr(want.ravel()[:8]))}")
        if got.size:
            worst = max(worst, float(np.max(np.abs(
                got.astype(np.float64) - want.astype(np.float64)))))
    return True, f"matches numpy (max abs error {worst:g})"


# --- one case -----------------------------------------------------------


def runCase(case: mh.Case, runner: Runner, root: str, args,
            straceWhy: str) -> List[Tuple[str, str, str]]:
    lines: List[Tuple[str, str, str]] = []

    def result(ok: bool, label: str, detail: str):
        lines.append(("PASS" if ok else "FAIL", label, detail))

    place = mh.Place(os.path.join(root, case.name))
    try:
        model = case.build(place)
    except mh.Unsupported as e:
        return [("SKIP", case.name, str(e))]
    except Exception as e:  # a broken builder is a failure of the suite
        return [("FAIL", f"{case.name} [build]", f"{type(e).__name__}: {e}")]
    timeout = case.timeout or args.timeout
    module = None
    for tool in (IMPORT, COMPILE):
        label = f"{case.name} [{tool}]"
        clearOut(place)
        cwdBefore = set(os.listdir(place.cwd))
        out = outPath(place, tool)
        r = runner.run(toolArgv(runner, tool, model, out), place, timeout)
        if case.kind == "error":
            ok, detail = checkError(case, tool, r, place, cwdBefore)
        elif case.kind == "valid":
            ok, detail = checkValid(tool, r, out)
        else:
            ok, detail = checkBounded(case, tool, r, place, cwdBefore, out)
        result(ok, label, detail)
        if tool == COMPILE and ok and case.kind == "valid" and case.io:
            module = os.path.join(place.tmp, "module.kiln")
            shutil.copyfile(out, module)
    if case.io and case.kind == "valid":
        if module:
            ok, detail = checkRun(runner, case, module, place, timeout)
            result(ok, f"{case.name} [{RUN}]", detail)
        else:
            lines.append(("SKIP", f"{case.name} [{RUN}]",
                          "not compiled, nothing to run"))
    if case.external and not args.no_strace:
        for tool in (IMPORT, COMPILE):
            label = f"{case.name} [{tool}, strace]"
            if straceWhy:
                lines.append(("SKIP", label, f"skipped: {straceWhy}"))
                continue
            clearOut(place)
            log = os.path.join(place.root, f"strace-{tool}.log")
            argv = toolArgv(runner, tool, model, outPath(place, tool))
            r = runner.run(straceArgv(log, argv), place, timeout)
            ok, detail = checkOpens(place, runner.binDir, log, r)
            result(ok, label, detail)
    return lines


def main() -> int:
    args = parseArgs()
    binDir = os.path.abspath(args.bin_dir)
    missing = [t for t in (IMPORT, COMPILE, RUN)
               if not os.access(os.path.join(binDir, t), os.X_OK)]
    if missing:
        print(f"error: missing tool(s) in {binDir}: {', '.join(missing)}; "
              f"build them first", file=sys.stderr)
        return 1
    cases = mh.selected(args.filter)
    if not cases:
        print(f"error: no case matches {args.filter!r}", file=sys.stderr)
        return 1
    straceWhy = "" if args.no_strace else straceUsable()
    if straceWhy:
        print(f"skipped: {straceWhy} (the external-data open checks)",
              flush=True)
    runner = Runner(binDir, int(args.mem_gib * 2**30))
    print(f"{len(cases)} cases; each tool run: {args.timeout:.0f} s, "
          f"{args.mem_gib:g} GiB address space, cwd a scratch folder",
          flush=True)
    root = tempfile.mkdtemp(prefix="kiln-hostile-")
    report = Report()
    start = time.monotonic()
    # The slowest case first, so it overlaps the many quick ones.
    cases.sort(key=lambda c: -(c.timeout or 0) if c.kind == "valid" else 0)
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(runCase, c, runner, root, args, straceWhy)
                       for c in cases]
            for f in concurrent.futures.as_completed(futures):
                report.emit(f.result())
    finally:
        if args.keep:
            print(f"kept {root}", flush=True)
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"took {time.monotonic() - start:.0f} s", flush=True)
    return report.finish()


if __name__ == "__main__":
    sys.exit(main())
