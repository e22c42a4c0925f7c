"""A GPT-2-style decoder with a key/value cache, for issue 19's decoding:
one module serves the prompt (prefill) and every generated token (decode
step), the cache passed in and returned as the exporters of Hugging Face
models write it (past_key_values in, present key/values out, dynamic axes
on the positions).

  inputs   ids [1, new] int64, positions [1, new] int64 (absolute),
           mask [1, 1, new, past + new] float (0 where a query may look,
           -inf where not: causal in a prefill, zeros in a step),
           past_key_i / past_value_i [1, heads, past, head width] per layer
  outputs  logits [1, new, vocab], present_key_i / present_value_i
           [1, heads, past + new, head width]

Plain torch.nn (Linear, LayerNorm, GELU, Embedding and tensor ops) so that
PyTorch 1.13 exports it at opset 17 and a later PyTorch rebuilds it from a
state dict, as transformer_models.py's models.
"""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transformer_models  # noqa: E402

CONFIG = dict(layers=2, width=64, heads=4, mlp=256, vocab=512, context=256)
# The GPT of transformer_models.py (4 layers, width 256, vocab 4096) with a
# cache, for bench/decode_bench.py's decode steps at contexts to 1024.
BENCH_CONFIG = dict(layers=4, width=256, heads=4, mlp=1024, vocab=4096,
                    context=2048)


class CachedAttention(transformer_models.Attention):
    """transformer_models' attention, its keys and values joined to the
    past ones and returned."""

    def forward(self, x, mask, past_k, past_v):
        width = x.shape[-1]
        qkv = self.qkv(x).reshape(1, -1, 3, self.heads, width // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale + mask
        out = torch.matmul(scores.softmax(dim=-1), v)
        return self.proj(out.transpose(1, 2).reshape(1, -1, width)), k, v


class CachedBlock(transformer_models.PreNormBlock):
    def __init__(self, width, heads, mlp):
        super().__init__(width, heads, mlp)
        self.attn = CachedAttention(width, heads)

    def forward(self, x, mask, past_k, past_v):
        a, k, v = self.attn(self.ln1(x), mask, past_k, past_v)
        x = x + a
        return x + self.mlp(self.ln2(x)), k, v


class CachedDecoder(nn.Module):
    def __init__(self, layers, width, heads, mlp, vocab, context,
                 mask_inside=False):
        super().__init__()
        self.heads = heads
        # The causal mask computed from the inputs' shapes (as Hugging
        # Face's decoders export it: Range, LessOrEqual, Where over shape
        # values) instead of taken as an input.
        self.mask_inside = mask_inside
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(context, width)
        self.blocks = nn.ModuleList(
            CachedBlock(width, heads, mlp) for _ in range(layers))
        self.ln = nn.LayerNorm(width)

    def forward(self, ids, positions, *rest):
        if self.mask_inside:
            past = rest
            new = ids.shape[1]
            total = past[0].shape[2] + new
            keys = torch.arange(total)
            queries = torch.arange(total - new, total)
            allowed = keys[None, :] <= queries[:, None]
            mask = torch.zeros(new, total).masked_fill(
                ~allowed, float("-inf"))[None, None]
        else:
            mask, past = rest[0], rest[1:]
        x = self.wte(ids) + self.wpe(positions)
        present = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, mask, past[2 * i], past[2 * i + 1])
            present += [k, v]
        # The LM head is the token embedding, transposed (tied weights).
        return (torch.matmul(self.ln(x), self.wte.weight.t()), *present)


def build(generator, config=CONFIG, mask_inside=False):
    """The decoder with seeded weights: Linear layers torch's default
    initialization from the global seed (seed it first), embeddings and
    LayerNorms from `generator` (GPT-2's N(0, 0.02) and N(0, 0.01), affine
    parameters around 1 and 0)."""
    model = CachedDecoder(**config, mask_inside=mask_inside)
    with torch.no_grad():
        model.wte.weight.normal_(0.0, 0.02, generator=generator)
        model.wpe.weight.normal_(0.0, 0.01, generator=generator)
        for module in model.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.normal_(0.0, 0.25, generator=generator)
    return model.eval()


def input_names(config=CONFIG, mask_inside=False):
    names = ["ids", "positions"] + ([] if mask_inside else ["mask"])
    for i in range(config["layers"]):
        names += [f"past_key_{i}", f"past_value_{i}"]
    return names


def output_names(config=CONFIG):
    names = ["logits"]
    for i in range(config["layers"]):
        names += [f"present_key_{i}", f"present_value_{i}"]
    return names


def causal_mask(past, new, dtype=torch.float32):
    """[1, 1, new, past + new]: query j (position past + j) sees keys up to
    its own position."""
    keys = torch.arange(past + new)
    queries = torch.arange(past, past + new)
    allowed = keys[None, :] <= queries[:, None]
    mask = torch.zeros(new, past + new, dtype=dtype)
    mask[~allowed] = float("-inf")
    return mask[None, None]


def empty_cache(dtype=torch.float32, config=CONFIG):
    width, heads = config["width"], config["heads"]
    return [torch.zeros(1, heads, 0, width // heads, dtype=dtype)
            for _ in range(2 * config["layers"])]


def random_cache(past, dtype=torch.float32, config=CONFIG, generator=None):
    """A cache of `past` positions per layer, N(0, 1) (empty for 0)."""
    width, heads = config["width"], config["heads"]
    return [torch.randn(1, heads, past, width // heads, dtype=dtype,
                        generator=generator)
            for _ in range(2 * config["layers"])]


def export(model, path, config=CONFIG):
    """ONNX at opset 17, the position axes dynamic."""
    ids = torch.zeros(1, 3, dtype=torch.int64)
    positions = torch.arange(3)[None]
    width, heads = config["width"], config["heads"]
    past = [torch.zeros(1, heads, 2, width // heads)
            for _ in range(2 * config["layers"])]
    axes = {"ids": {1: "new"}, "positions": {1: "new"},
            "mask": {2: "new", 3: "total"}, "logits": {1: "new"}}
    for i in range(config["layers"]):
        for kind in ("key", "value"):
            axes[f"past_{kind}_{i}"] = {2: "past"}
            axes[f"present_{kind}_{i}"] = {2: "total"}
    inside = getattr(model, "mask_inside", False)
    if inside:
        del axes["mask"]
    mask = () if inside else (causal_mask(2, 3),)
    torch.onnx.export(model, (ids, positions, *mask, *past), path,
                      opset_version=17,
                      input_names=input_names(config, inside),
                      output_names=output_names(config), dynamic_axes=axes)
