"""Small transformers written in plain torch.nn for the model suite and the
whole-model benchmark (tests/models/export_models.py, bench/model_bench.py).

Plain modules only (Linear, LayerNorm, GELU, Embedding, Conv2d and tensor
ops; no nn.MultiheadAttention or fused kernels), so that they export to
ONNX at opset 17 with PyTorch 1.13 and build the same network under a
recent PyTorch from a saved state dict: build(name) makes the architecture
with its parameters, load_state_dict() gives it the exported weights.

  vit   ViT: 6 pre-LN layers, width 384, 6 heads, MLP 1536, patch 16,
        1x3x224x224 input, class token, learned positions, 1000 classes
  gpt   GPT-2-style decoder: 4 pre-LN layers, width 256, 4 heads, MLP 1024,
        vocabulary 4096, learned positions, causal mask, LM head tied to
        the token embedding; int64 token ids 1x128 in (a 128-token
        prefill), logits 1x128x4096 out
  bert  BERT-style encoder: 4 post-LN layers, width 256, 4 heads, MLP 1024,
        learned positions and the embedding LayerNorm over float
        embeddings 1x64x256 (what a token embedding would give), hidden
        states 1x64x256 out

Attention is written out as the ONNX exporter then writes it: MatMul for
Q·Kᵀ, a Mul by 1/sqrt(head width), the causal mask as an Add of 0 / -inf,
Softmax, MatMul by V, with Reshape/Transpose for the heads.
"""

import math

import torch
from torch import nn

# name -> (constructor keyword arguments, input shape, input kind)
CONFIGS = {
    "vit": (dict(layers=6, width=384, heads=6, mlp=1536, patch=16,
                 image=224, classes=1000), (1, 3, 224, 224), "image"),
    "gpt": (dict(layers=4, width=256, heads=4, mlp=1024, vocab=4096,
                 tokens=128), (1, 128), "tokens"),
    "bert": (dict(layers=4, width=256, heads=4, mlp=1024, tokens=64),
             (1, 64, 256), "embeddings"),
}
NAMES = tuple(CONFIGS)


class Attention(nn.Module):
    """Multi-head self-attention over batch x tokens x width; `mask`, if
    given, is added to the scores (0 where a query may look, -inf where
    not)."""

    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.scale = 1.0 / math.sqrt(width // heads)

    def forward(self, x, mask=None):
        batch, tokens, width = x.shape
        qkv = self.qkv(x).reshape(batch, tokens, 3, self.heads,
                                  width // self.heads)
        # Each batch x heads x tokens x head width.
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        if mask is not None:
            scores = scores + mask
        out = torch.matmul(scores.softmax(dim=-1), v)
        return self.proj(out.transpose(1, 2).reshape(batch, tokens, width))


class Mlp(nn.Sequential):
    def __init__(self, width, hidden):
        super().__init__(nn.Linear(width, hidden), nn.GELU(),
                         nn.Linear(hidden, width))


class PreNormBlock(nn.Module):
    """ViT and GPT-2: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, width, heads, mlp):
        super().__init__()
        self.ln1 = nn.LayerNorm(width)
        self.attn = Attention(width, heads)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = Mlp(width, mlp)

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.mlp(self.ln2(x))


class PostNormBlock(nn.Module):
    """BERT: ln(x + attn(x)), then ln(x + mlp(x))."""

    def __init__(self, width, heads, mlp):
        super().__init__()
        self.attn = Attention(width, heads)
        self.ln1 = nn.LayerNorm(width)
        self.mlp = Mlp(width, mlp)
        self.ln2 = nn.LayerNorm(width)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.mlp(x))


class ViT(nn.Module):
    def __init__(self, layers, width, heads, mlp, patch, image, classes):
        super().__init__()
        patches = (image // patch) ** 2
        self.patch = nn.Conv2d(3, width, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, width))
        self.pos = nn.Parameter(torch.zeros(1, patches + 1, width))
        self.blocks = nn.ModuleList(
            PreNormBlock(width, heads, mlp) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)  # batch, patches, width
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        x = x + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x[:, 0]))


class Gpt(nn.Module):
    def __init__(self, layers, width, heads, mlp, vocab, tokens):
        super().__init__()
        self.wte = nn.Embedding(vocab, width)
        self.wpe = nn.Embedding(tokens, width)
        self.blocks = nn.ModuleList(
            PreNormBlock(width, heads, mlp) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        # Not in the state dict: constants of the architecture.
        self.register_buffer("positions", torch.arange(tokens),
                             persistent=False)
        self.register_buffer("mask", torch.full(
            (tokens, tokens), float("-inf")).triu(1), persistent=False)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(self.positions)
        for block in self.blocks:
            x = block(x, self.mask)
        # The LM head is the token embedding, transposed (tied weights).
        return torch.matmul(self.ln(x), self.wte.weight.t())


class Bert(nn.Module):
    def __init__(self, layers, width, heads, mlp, tokens):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(1, tokens, width))
        self.ln = nn.LayerNorm(width)
        self.blocks = nn.ModuleList(
            PostNormBlock(width, heads, mlp) for _ in range(layers))

    def forward(self, embeddings):
        x = self.ln(embeddings + self.pos)
        for block in self.blocks:
            x = block(x)
        return x


def build(name, generator=None):
    """(model in eval mode, input shape, input kind) for one of NAMES.
    Linear and Conv2d keep torch's default initialization (from the global
    seed: seed it first); from `generator`, LayerNorms get random affine
    parameters, the class token and positions N(0, 0.5) values, so no
    parameter is left at a constant, and the GPT's embeddings GPT-2's
    N(0, 0.02) and N(0, 0.01)."""
    kwargs, shape, kind = CONFIGS[name]
    model = {"vit": ViT, "gpt": Gpt, "bert": Bert}[name](**kwargs)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.normal_(0.0, 0.25, generator=generator)
        for parameter in (getattr(model, "cls", None),
                          getattr(model, "pos", None)):
            if parameter is not None:
                parameter.normal_(0.0, 0.5, generator=generator)
        if isinstance(model, Gpt):
            # GPT-2's: the tied embedding's N(0, 1) would make logits of
            # hundreds.
            model.wte.weight.normal_(0.0, 0.02, generator=generator)
            model.wpe.weight.normal_(0.0, 0.01, generator=generator)
    return model.eval(), shape, kind
