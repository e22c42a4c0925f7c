#!/usr/bin/python3
"""Regenerates the seeds of the onnx_importer fuzz target (fuzz/corpus/
onnx_importer/) from small models:

  node-*.onnx     ONNX's own node tests (Debian's libonnx-testdata): for each
                  op type with a one-node test, one to four of its variants
                  spread over the sorted test names (one for ops the
                  importer does not convert), one smallest "expanded"
                  (function body) test per op, and If/Loop/Scan/Sequence
                  ones for subgraphs;
  simple-*.onnx   libonnx-testdata's small multi-node models of converted
                  op types;
  lit-*.onnx      every model compiler/onnx/test/make_model.py writes;

and the target's dictionary, fuzz/onnx_importer.dict: the op types
compiler/onnx/ names and the attribute names the node tests use (the
importer looks both up by hash, which libFuzzer's comparison tracing does
not see).

  scripts/fuzz-onnx-seeds.py [testdata dir]

It replaces only files with those prefixes: the crash reproducers kept
beside them (crash-*, oom-*, timeout-*, ...) stay. The selection depends on
the testdata and on which op types compiler/onnx/ names, nothing else, so a
rerun writes the same files.
"""

import glob
import math
import os
import re
import subprocess
import sys
import tempfile

import onnx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "corpus", "onnx_importer")
MAKE_MODEL = os.path.join(ROOT, "compiler", "onnx", "test", "make_model.py")
DICT = os.path.join(ROOT, "fuzz", "onnx_importer.dict")
PREFIXES = ("node-", "simple-", "lit-")
MAX_BYTES = 16 * 1024  # per seed; libFuzzer mutates small inputs faster
# Subgraph-carrying ops the importer may not convert, still worth a seed.
ALWAYS = {"If", "Loop", "Scan", "SequenceMap", "SequenceInsert"}


def converted_op_types():
    """Op types the importer names: capitalized string literals in
    compiler/onnx (a superset; extra names only add seeds)."""
    names = set()
    for path in glob.glob(os.path.join(ROOT, "compiler", "onnx", "**",
                                       "*.cpp"), recursive=True):
        with open(path) as f:
            names.update(re.findall(r'"([A-Z][A-Za-z0-9]*)"', f.read()))
    return names


def attribute_names(testdata):
    names = set()
    for model_path in glob.glob(os.path.join(testdata, "node", "*",
                                             "model.onnx")):
        m = onnx.load(model_path, load_external_data=False)
        names.update(a.name for n in m.graph.node for a in n.attribute)
    return names


def write_dict(words):
    with open(DICT, "w") as f:
        f.write("# Written by scripts/fuzz-onnx-seeds.py: ONNX op types and "
                "attribute names.\n")
        for word in sorted(words):
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", word):
                f.write(f'"{word}"\n')


def spread(items, count):
    """`count` items spread evenly over the sorted `items`."""
    if count >= len(items):
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def node_seeds(testdata, converted):
    single, expanded, op_of = {}, {}, {}
    for model_path in sorted(glob.glob(os.path.join(testdata, "node", "*",
                                                    "model.onnx"))):
        size = os.path.getsize(model_path)
        if size > MAX_BYTES:
            continue
        test = os.path.basename(os.path.dirname(model_path))
        m = onnx.load(model_path, load_external_data=False)
        ops = [n.op_type for n in m.graph.node]
        if len(ops) == 1:
            single.setdefault(ops[0], []).append(test)
            op_of[test] = ops[0]
        elif "_expanded" in test:
            expanded.setdefault(test.split("_expanded")[0], []).append(
                (size, test))
    picks = []
    for op, tests in sorted(single.items()):
        if op in converted:
            count = min(4, math.ceil(len(tests) / 4))
        elif op in ALWAYS:
            count = 2
        else:
            count = 1
        picks += spread(tests, count)
    # The smallest expanded (function body) test of each converted op.
    smallest = {}
    for base, tests in expanded.items():
        op = op_of.get(base)
        if op in converted:
            smallest[op] = min(smallest.get(op, min(tests)), min(tests))
    picks += [test for _, test in smallest.values()]
    return [(os.path.join(testdata, "node", t, "model.onnx"),
             "node-" + t[len("test_"):] + ".onnx") for t in sorted(set(picks))]


def simple_seeds(testdata, converted):
    seeds = []
    for model_path in sorted(glob.glob(os.path.join(testdata, "simple", "*",
                                                    "model.onnx"))):
        m = onnx.load(model_path, load_external_data=False)
        if os.path.getsize(model_path) <= MAX_BYTES and all(
                n.op_type in converted for n in m.graph.node):
            test = os.path.basename(os.path.dirname(model_path))
            seeds.append((model_path, "simple-" + test[len("test_"):] +
                          ".onnx"))
    return seeds


def lit_models(tmp):
    """Every builder of make_model.py, written into `tmp`."""
    with open(MAKE_MODEL) as f:
        builders = re.findall(r"^def ([a-z_0-9]+)\(", f.read(), re.M)
    seeds = []
    for name in builders:
        # make_model.py's helpers, which build no model by themselves (as
        # its own main() leaves them out).
        if name in ("main", "tensor", "model", "weights", "i64",
                    "recurrent") or name.startswith("_"):
            continue
        out = os.path.join(tmp, name + ".onnx")
        subprocess.run(["/usr/bin/python3", MAKE_MODEL, name, out],
                       check=True)
        seeds.append((out, "lit-" + name.replace("_", "-") + ".onnx"))
    return seeds


def main():
    testdata = sys.argv[1] if len(sys.argv) > 1 else \
        "/usr/share/libonnx-testdata/data"
    if not os.path.isdir(os.path.join(testdata, "node")):
        sys.exit(f"fuzz-onnx-seeds: no node tests in {testdata} "
                 "(apt-get install libonnx-testdata)")
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.startswith(PREFIXES):
            os.remove(os.path.join(OUT, name))
    with tempfile.TemporaryDirectory() as tmp:
        converted = converted_op_types()
        seeds = (node_seeds(testdata, converted) +
                 simple_seeds(testdata, converted) + lit_models(tmp))
        total = 0
        for src, name in seeds:
            with open(src, "rb") as f:
                data = f.read()
            total += len(data)
            with open(os.path.join(OUT, name), "wb") as f:
                f.write(data)
    write_dict(converted | attribute_names(testdata))
    print(f"fuzz-onnx-seeds: {len(seeds)} seeds, {total} bytes in "
          f"{os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
