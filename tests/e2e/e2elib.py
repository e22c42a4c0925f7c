"""What the e2e scripts share: reading function signatures out of MLIR,
running a tool without ever raising, and the one-line-per-check report that
ends in `N passed, M failed`."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

TensorSig = Tuple[Tuple[int, ...], str]

_FUNC_RE = re.compile(
    r"func\.func\s+(?:private\s+)?@([\w$.]+)\s*\((.*?)\)\s*"
    r"(?:->\s*(\([^{]*?\)|tensor<[^>]*>))?\s*(?:attributes\s*\{[^}]*\}\s*)?\{",
    re.S)
_TENSOR_RE = re.compile(r"tensor<([^>]*)>")


def _tensorSig(body: str) -> TensorSig:
    """'4x?xf32' -> ((4, -1), 'f32'): a dynamic dimension is -1."""
    parts = body.split("x")
    dims = tuple(-1 if p == "?" else int(p) for p in parts[:-1])
    return dims, parts[-1]


def typesMatch(declared: Sequence[TensorSig],
               signature: Sequence[TensorSig]) -> bool:
    """Whether a case's input types fit a signature's: a dynamic
    dimension (-1) takes any size, every other one must be equal."""
    return len(declared) == len(signature) and all(
        d[1] == s[1] and len(d[0]) == len(s[0]) and all(
            want < 0 or want == got for got, want in zip(d[0], s[0]))
        for d, s in zip(declared, signature))


def concreteOutputs(outs: Sequence[TensorSig],
                    refs: Sequence) -> List[TensorSig]:
    """Output types with each dynamic one's shape taken from its reference
    (static ones stay what the signature says, to be checked)."""
    return [(tuple(ref.shape) if any(d < 0 for d in shape) else shape, dtype)
            for ref, (shape, dtype) in zip(refs, outs)]


def parseSignatures(
        path: str) -> Dict[str, Tuple[List[TensorSig], List[TensorSig]]]:
    """Maps each func.func in an MLIR file to (input types, output types)."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"//[^\n]*", "", f.read())
    sigs = {}
    for m in _FUNC_RE.finditer(text):
        ins = [_tensorSig(t) for t in _TENSOR_RE.findall(m.group(2))]
        outs = [_tensorSig(t) for t in _TENSOR_RE.findall(m.group(3) or "")]
        sigs[m.group(1)] = (ins, outs)
    return sigs


class ToolResult:

    def __init__(self, rc: Optional[int], stdout: str, stderr: str,
                 seconds: float, problem: str = ""):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds
        # Set when the tool did not run to an exit code of its own choosing.
        self.problem = problem

    def describe(self) -> str:
        """A one-line account of a failed run."""
        if self.problem:
            return self.problem
        lines = [l.strip() for l in self.stderr.splitlines() if l.strip()]
        # A sanitizer report opens with a rule of '=' signs; its ERROR line
        # is the one that says what went wrong.
        errors = [l for l in lines if "error" in l.lower()]
        first = (errors or lines or ["(no stderr)"])[0]
        return f"exit {self.rc}: {first}"


def runTool(argv: Sequence[str], timeout: float,
            cwd: Optional[str] = None) -> ToolResult:
    """Runs a tool; never raises. A signal, a timeout or a missing binary
    comes back in `problem`."""
    start = time.monotonic()
    try:
        p = subprocess.run(list(argv), capture_output=True, timeout=timeout,
                           cwd=cwd)
    except FileNotFoundError:
        return ToolResult(None, "", "", 0.0, f"tool not found: {argv[0]}")
    except PermissionError:
        return ToolResult(None, "", "", 0.0, f"tool not executable: {argv[0]}")
    except subprocess.TimeoutExpired as e:
        return ToolResult(None, _text(e.stdout), _text(e.stderr), timeout,
                          f"timed out after {timeout:.0f}s")
    seconds = time.monotonic() - start
    out, err = _text(p.stdout), _text(p.stderr)
    if p.returncode < 0:
        try:
            name = signal.Signals(-p.returncode).name
        except ValueError:
            name = f"signal {-p.returncode}"
        tail = " | ".join(err.strip().splitlines()[-2:])
        return ToolResult(p.returncode, out, err, seconds,
                          f"killed by {name}" + (f": {tail}" if tail else ""))
    return ToolResult(p.returncode, out, err, seconds)


def _text(data) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data


def missingTools(binDir: str, names: Sequence[str]) -> List[str]:
    return [
        os.path.join(binDir, n) for n in names
        if not os.access(os.path.join(binDir, n), os.X_OK)
    ]


class Report:
    """Prints one line per check and the closing `N passed, M failed`."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures: List[str] = []
        self._lock = threading.Lock()

    def result(self, ok: bool, name: str, detail: str = ""):
        with self._lock:
            if ok:
                self.passed += 1
            else:
                self.failed += 1
                self.failures.append(name)
            line = f"{'PASS' if ok else 'FAIL'} {name}"
            print(line + (f": {detail}" if detail else ""), flush=True)

    def skip(self, name: str, why: str):
        with self._lock:
            self.skipped += 1
            print(f"SKIP {name}: {why}", flush=True)

    def finish(self) -> int:
        if self.failures:
            print(f"failed: {' '.join(self.failures)}", flush=True)
        line = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            line += f", {self.skipped} skipped"
        print(line, flush=True)
        return 1 if self.failed else 0


def fatal(message: str, report: Optional[Report] = None,
          failedCount: int = 1) -> int:
    """Reports a problem that stops the whole suite, closing with the
    summary line so a reader of the log sees the count."""
    print(f"error: {message}", file=sys.stderr, flush=True)
    report = report or Report()
    report.failed += failedCount
    return report.finish()
