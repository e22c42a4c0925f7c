"""Emulated references: a model evaluated in float64 except for the
roundings a precision defines, for judging whole networks in half
precision.

The f16, bf16 and tf32 tolerances hold one op's rounding. A deep network
repeats that rounding fifty times and, with random weights, amplifies it:
PyTorch's own f16 ResNet50 misses the f16 tolerance against the float64
reference as Kiln does. An emulated reference measures what the precision
itself costs on this network, so a check can ask "no worse than the
precision allows" (onnxharness.checkOutput's `emulated`) instead of a
bound no implementation meets. Modes:

  storage-f16  every value the graph computes is rounded to f16 (an f16
               ONNX model's own semantics: each node's output is f16); the
               model's parameters must already hold f16 values
  f16, bf16, tf32
               --precision=P: the operands of every convolution, linear
               layer and matmul rounded to P (weights after batch norms are
               folded in, as the compiler does), everything else float64

Needs torch; the model must trace with torch.fx. A model whose graph
multiplies inside a module this file cannot see into (e.g.
nn.MultiheadAttention) raises Unsupported rather than give a reference
that skips roundings.
"""

import copy
import operator

import numpy as np
import torch
import torch.fx

MODES = ("storage-f16", "f16", "bf16", "tf32")
# Modules whose operands the compiler rounds; their weights are rounded in
# the model copy and their input where they are called.
_MULTIPLYING_MODULES = (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d,
                        torch.nn.Linear)
# Leaf modules that multiply internally, which this evaluation cannot reach.
_OPAQUE_MODULES = (torch.nn.MultiheadAttention,
                   torch.nn.TransformerEncoderLayer,
                   torch.nn.TransformerDecoderLayer)
_MULTIPLYING_FUNCTIONS = {torch.matmul, operator.matmul, torch.bmm,
                          torch.mm, torch.nn.functional.linear,
                          torch.nn.functional.conv1d,
                          torch.nn.functional.conv2d,
                          torch.nn.functional.conv3d}


class Unsupported(Exception):
    """The model cannot be emulated faithfully."""


def rounded(tensor, mode):
    """The float64 tensor with its values rounded as `mode` stores them."""
    if not isinstance(tensor, torch.Tensor) or not tensor.is_floating_point():
        return tensor
    if mode in ("storage-f16", "f16"):
        return tensor.half().double()
    if mode == "bf16":
        return tensor.float().bfloat16().double()
    if mode == "tf32":
        # 10 fraction bits, rounded to nearest with ties away from zero (the
        # GPU's cvt.rna.tf32.f32): add half of the dropped 13 bits, clear them.
        bits = tensor.float().view(torch.int32)
        finite = torch.isfinite(tensor.float())
        bits = torch.where(finite, (bits + 0x1000) & ~0x1FFF, bits)
        return bits.view(torch.float32).double()
    raise ValueError(f"unknown mode {mode}")


def _foldedCopy(model):
    """A float64 copy with batch norms folded into the convolutions before
    them (as the compiler folds them before rounding weights)."""
    if any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
           for m in model.modules()):
        from torch.fx.experimental.optimization import fuse
        model = fuse(copy.deepcopy(model).float().eval())
    else:
        model = copy.deepcopy(model)
    return model.double().eval()


class _Rounding(torch.fx.Interpreter):
    def __init__(self, module, mode):
        super().__init__(module)
        self.mode = mode

    def run_node(self, node):
        if self.mode != "storage-f16" and self._multiplies(node):
            args = tuple(rounded(a, self.mode) for a in
                         self.map_nodes_to_values(node.args, node))
            kwargs = {k: rounded(v, self.mode) for k, v in
                      self.map_nodes_to_values(node.kwargs, node).items()}
            return getattr(self, node.op)(node.target, args, kwargs)
        result = super().run_node(node)
        if self.mode == "storage-f16" and node.op != "output":
            result = rounded(result, self.mode)
        return result

    def _multiplies(self, node):
        if node.op == "call_module":
            module = self.fetch_attr(node.target)
            if isinstance(module, _OPAQUE_MODULES):
                raise Unsupported(f"{type(module).__name__} multiplies "
                                  "inside a module fx does not trace")
            return isinstance(module, _MULTIPLYING_MODULES)
        return node.op == "call_function" and (
            node.target in _MULTIPLYING_FUNCTIONS)


def reference(model, x, mode):
    """The model's output on numpy input x, evaluated in float64 with
    `mode`'s roundings (MODES), as a float64 numpy array. Raises
    Unsupported when the model cannot be emulated."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode}")
    # Folding the batch norms traces the model with fx too (ShuffleNet's
    # channel shuffle unpacks x.size(), which fx cannot).
    try:
        wide = _foldedCopy(model)
        if mode != "storage-f16":
            with torch.no_grad():
                for m in wide.modules():
                    if isinstance(m, _MULTIPLYING_MODULES):
                        m.weight.copy_(rounded(m.weight, mode))
        graph = torch.fx.symbolic_trace(wide)
    except Exception as e:  # noqa: BLE001 - any tracing failure
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise Unsupported(f"torch.fx cannot trace it ({first[:100]})") from e
    inputs = torch.from_numpy(x.astype(np.float64) if x.dtype.kind == "f"
                              else x)
    if mode == "storage-f16":
        inputs = rounded(inputs, mode)
    with torch.no_grad():
        out = _Rounding(graph, mode).run(inputs)
    return out.numpy()
