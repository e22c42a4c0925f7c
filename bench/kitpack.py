"""Packs files of a benchmark kit into as few bytes as they allow, for
carrying them to a GPU machine under a size limit, and unpacks them there.

Kiln modules are mostly weights: float32 or float16 values whose high
bytes (sign and exponent) repeat and whose low bytes are close to random,
and models compiled at several batch sizes hold the same weights in a
4096-byte-aligned constants segment. So a pack

  - cuts every file into 4096-byte blocks and keeps each distinct block
    once (a batch-32 module next to its batch-1 one adds little more than
    its code),
  - shuffles the kept bytes into four planes (byte 0 of every 4-byte word,
    then byte 1, ...), so the exponent bytes sit together,
  - compresses that with LZMA (about 0.8 of the size for float32 weights).

  pack(root, paths, out_dir)    writes out_dir/pack.json and blocks.xz
  pack(..., part_bytes=N)       blocks.xz cut into blocks.xz.1, .2, ... of
                                at most N bytes each, for packs larger than
                                one carry (ResNet50 in f32): each part can
                                travel on its own to the same place
  unpack(out_dir)               writes the files back under out_dir,
                                checking each one's SHA-256, with their
                                permission bits (joining the parts, which
                                must all be there)

Needs numpy and the standard library only.
"""

import hashlib
import json
import lzma
import os

import numpy as np

BLOCK = 4096
FORMAT = "kiln-kitpack 1"


def _shuffle(data):
    words = np.frombuffer(data, np.uint8).reshape(-1, 4)
    return words.T.tobytes()


def _unshuffle(data):
    planes = np.frombuffer(data, np.uint8).reshape(4, -1)
    return planes.T.tobytes()


def pack(root, paths, out_dir, part_bytes=None):
    """Packs root/<path> for each relative path into out_dir; returns the
    size of blocks.xz in bytes (of all its parts, with part_bytes)."""
    os.makedirs(out_dir, exist_ok=True)
    index, blocks, files = {}, [], {}
    for path in paths:
        with open(os.path.join(root, path), "rb") as f:
            data = f.read()
        ids = []
        for start in range(0, len(data), BLOCK):
            block = data[start:start + BLOCK].ljust(BLOCK, b"\0")
            key = hashlib.sha256(block).digest()
            if key not in index:
                index[key] = len(blocks)
                blocks.append(block)
            ids.append(index[key])
        mode = os.stat(os.path.join(root, path)).st_mode & 0o777
        files[path] = {"size": len(data), "mode": mode,
                       "sha256": hashlib.sha256(data).hexdigest(),
                       "blocks": ids}
    compressed = lzma.compress(_shuffle(b"".join(blocks)), preset=6)
    doc = {"format": FORMAT, "block": BLOCK, "blocks": len(blocks),
           "files": files}
    if part_bytes and len(compressed) > part_bytes:
        parts = [compressed[i:i + part_bytes]
                 for i in range(0, len(compressed), part_bytes)]
        for n, part in enumerate(parts, 1):
            with open(os.path.join(out_dir, f"blocks.xz.{n}"), "wb") as f:
                f.write(part)
        doc["parts"] = [{"size": len(p),
                         "sha256": hashlib.sha256(p).hexdigest()}
                        for p in parts]
    else:
        with open(os.path.join(out_dir, "blocks.xz"), "wb") as f:
            f.write(compressed)
    with open(os.path.join(out_dir, "pack.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return len(compressed)


def _compressed(out_dir, doc):
    """blocks.xz, or its parts joined; ValueError naming a missing or
    damaged part."""
    if "parts" not in doc:
        with open(os.path.join(out_dir, "blocks.xz"), "rb") as f:
            return f.read()
    joined = []
    for n, part in enumerate(doc["parts"], 1):
        path = os.path.join(out_dir, f"blocks.xz.{n}")
        if not os.path.isfile(path):
            raise ValueError(f"{path} is missing: every part of the pack "
                             f"({len(doc['parts'])}) must be carried there")
        with open(path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != part["sha256"]:
            raise ValueError(f"{path} differs from the part packed")
        joined.append(data)
    return b"".join(joined)


def unpack(out_dir):
    """Writes every packed file under out_dir that is not there already
    with its recorded size; returns the paths written. ValueError when a
    file comes out other than it went in."""
    with open(os.path.join(out_dir, "pack.json"), encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != FORMAT:
        raise ValueError(f"{out_dir}/pack.json is not a {FORMAT} index")
    todo = {p: e for p, e in doc["files"].items()
            if not (os.path.isfile(os.path.join(out_dir, p)) and
                    os.path.getsize(os.path.join(out_dir, p)) == e["size"])}
    if not todo:
        return []
    data = _unshuffle(lzma.decompress(_compressed(out_dir, doc)))
    block = doc["block"]
    for path, entry in todo.items():
        content = b"".join(data[i * block:(i + 1) * block]
                           for i in entry["blocks"])[:entry["size"]]
        if hashlib.sha256(content).hexdigest() != entry["sha256"]:
            raise ValueError(f"{path}: unpacked content differs from the "
                             "packed file")
        target = os.path.join(out_dir, path)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "wb") as f:
            f.write(content)
        os.chmod(target, entry["mode"])
    return sorted(todo)
