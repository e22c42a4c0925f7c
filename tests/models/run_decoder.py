#!/usr/bin/python3
"""Greedy decoding with a key/value cache (issue 19, item 5): the decoder
of decoder_model.py (seeded weights) exported to ONNX with dynamic
position axes, compiled once without --input-shape, then a prompt's
prefill and --tokens decode steps, each a call of that one module at its
own shapes (the cache each call returns is the next call's past), against
the same decoder in PyTorch float64:

  /usr/bin/python3 tests/models/run_decoder.py --bin-dir build/bin \\
      --work-dir build/decoder [--device local-task] [--tokens 64] \\
      [--prompt 8] [--target-device cpu]

Every step's logits must match float64's within the fp32 tolerance
(|kiln - ref| <= 1e-5 max|ref| + 1e-4 |ref|), and the greedy tokens must
be PyTorch's: a random-weight decoder often repeats one token, so the
tokens alone would not show a broken cache, the logits do. A step whose
two best float64 logits are closer than the tolerance could pick either;
the report says so instead of failing on the token (the logits still
count).

This comparison passes the cache through the host between calls
(kiln-run-module reads and writes .npy files); then kiln-generate
(examples/generate, when built) decodes the same prompt through the C
API's device-buffer calls, the cache kept in device memory, and its
tokens must be PyTorch's.
--prebuilt DIR runs a module compiled elsewhere (DIR/decoder.kiln, with
the weights it was compiled from in DIR/decoder.pt, both written by a
--compile-only run), for the GPU machine.

Exits 1 on any mismatch.
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import decoder_model  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work-dir", required=True)
    p.add_argument("--device", action="append",
                   help="kiln-run-module --device, repeatable "
                   "(default local-task)")
    p.add_argument("--target-device", default="cpu",
                   help="kiln-compile --target-device (cpu or cuda)")
    p.add_argument("--cuda-target", default="sm_90a")
    p.add_argument("--tokens", type=int, default=64)
    p.add_argument("--prompt", type=int, default=8)
    p.add_argument("--specialize", action="append", default=[],
                   help="kiln-compile --specialize, repeatable (new=1: the "
                   "decode steps run a function compiled for one new token)")
    p.add_argument("--mask-inside", action="store_true",
                   help="export the decoder computing its causal mask from "
                   "its inputs' shapes (as Hugging Face's do) instead of "
                   "taking it as an input")
    p.add_argument("--prebuilt", metavar="DIR",
                   help="run DIR/decoder.kiln instead of compiling")
    p.add_argument("--compile-only", action="store_true",
                   help="export and compile into --work-dir, then stop")
    args = p.parse_args()
    args.device = args.device or ["local-task"]
    if args.tokens < 1 or args.prompt < 1:
        p.error("--tokens and --prompt must be at least 1")
    if args.prompt + args.tokens > decoder_model.CONFIG["context"]:
        p.error("--prompt + --tokens exceeds the decoder's context of "
                f"{decoder_model.CONFIG['context']}")
    return args


def build_model(mask_inside=False):
    torch.manual_seed(0)
    return decoder_model.build(torch.Generator().manual_seed(1),
                               mask_inside=mask_inside)


def compile_module(args, onnx_path, module):
    argv = [os.path.join(args.bin_dir, "kiln-compile"), onnx_path,
            f"--target-device={args.target_device}", "-o", module]
    if args.target_device == "cuda":
        argv.append(f"--cuda-target={args.cuda_target}")
    argv += [f"--specialize={spec}" for spec in args.specialize]
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"FAIL compile: {result.stderr.strip()}")


class KilnDecoder:
    """Calls the module once per step through kiln-run-module."""

    def __init__(self, args, device, module, work):
        self.args, self.device, self.module = args, device, module
        self.work = work
        self.calls = 0

    def __call__(self, ids, positions, mask, past):
        step = os.path.join(self.work, f"call{self.calls}")
        os.makedirs(step, exist_ok=True)
        self.calls += 1
        argv = [os.path.join(self.args.bin_dir, "kiln-run-module"),
                f"--device={self.device}", f"--module={self.module}"]
        masks = [] if mask is None else [mask]
        for i, value in enumerate([ids, positions, *masks, *past]):
            path = os.path.join(step, f"in{i}.npy")
            np.save(path, value)
            argv.append(f"--input=@{path}")
        outputs = [os.path.join(step, f"out{i}.npy")
                   for i in range(1 + len(past))]
        argv += [f"--output=@{o}" for o in outputs]
        result = subprocess.run(argv, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip().splitlines()[-1]
                               if result.stderr.strip() else
                               f"exit {result.returncode}")
        values = [np.load(o) for o in outputs]
        return values[0], values[1:]


def main():
    args = parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    model = build_model(args.mask_inside)
    if args.prebuilt:
        # The weights the module was compiled from (another PyTorch may
        # draw the seeded initialization differently).
        module = os.path.join(args.prebuilt, "decoder.kiln")
        model.load_state_dict(torch.load(
            os.path.join(args.prebuilt, "decoder.pt")))
    else:
        onnx_path = os.path.join(args.work_dir, "decoder.onnx")
        decoder_model.export(model, onnx_path)
        torch.save(model.state_dict(),
                   os.path.join(args.work_dir, "decoder.pt"))
        module = os.path.join(args.work_dir, "decoder.kiln")
        started = time.time()
        compile_module(args, onnx_path, module)
        print(f"compiled for {args.target_device} in "
              f"{time.time() - started:.1f}s (no --input-shape"
              + "".join(f", --specialize={s}" for s in args.specialize)
              + ")")
        if args.compile_only:
            return 0
    reference = model.double()
    failed = False
    for device in args.device:
        work = os.path.join(args.work_dir, device)
        kiln = KilnDecoder(args, device, module, work)
        failures, prompt, tokens = decode(args, device, reference, kiln)
        failed |= failures != 0
        if args.mask_inside:
            # kiln-generate feeds a mask input; this module has none.
            print(f"skipped: kiln-generate on {device}: the module computes "
                  "its mask (--mask-inside)")
            continue
        failed |= not generate(args, device, module, prompt, tokens)
    return 1 if failed else 0


def generate(args, device, module, prompt, expected):
    """kiln-generate (examples/generate: the C API's device-buffer calls,
    the cache never leaving the device) from the same prompt: its tokens
    must be PyTorch's greedy ones. True when they are, or when the binary
    is absent (said so)."""
    binary = os.path.join(args.bin_dir, "kiln-generate")
    if not os.path.exists(binary):
        print(f"skipped: kiln-generate on {device}: no {binary}")
        return True
    argv = [binary, f"--device={device}", f"--module={module}",
            f"--tokens={args.tokens}", *map(str, prompt)]
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL kiln-generate on {device}: {result.stderr.strip()}")
        return False
    tokens = [int(t) for t in result.stdout.split()]
    same = sum(a == b for a, b in zip(tokens, expected))
    good = tokens == expected
    print(f"{'PASS' if good else 'FAIL'} kiln-generate on {device} (cache "
          f"in device buffers): {same}/{len(expected)} tokens equal to "
          f"PyTorch's greedy decode")
    return good


def decode(args, device, reference, kiln):
    """Prefill and decode steps on `device`: (failures, the prompt,
    PyTorch's greedy tokens)."""
    vocab = decoder_model.CONFIG["vocab"]
    prompt = np.random.default_rng(2).integers(0, vocab, (1, args.prompt),
                                               dtype=np.int64)
    ids = prompt
    past_ref = decoder_model.empty_cache(torch.float64)
    past_kiln = [p.numpy().astype(np.float32)
                 for p in decoder_model.empty_cache()]
    generated_ref, generated_kiln = [], []
    failures = ties = 0
    worst = 0.0
    for step in range(args.tokens):
        past = past_ref[0].shape[2]
        new = ids.shape[1]
        positions = np.arange(past, past + new, dtype=np.int64)[None]
        mask = decoder_model.causal_mask(past, new)
        with torch.no_grad():
            masks = [] if args.mask_inside else [mask.double()]
            out = reference(torch.from_numpy(ids), torch.from_numpy(positions),
                            *masks, *past_ref)
        ref_logits, past_ref = out[0].numpy(), list(out[1:])
        try:
            logits, past_kiln = kiln(ids, positions,
                                     None if args.mask_inside else
                                     mask.numpy(), past_kiln)
        except RuntimeError as e:
            print(f"FAIL step {step} (past {past}, new {new}): {e}")
            return 1, [int(t) for t in prompt[0]], generated_ref
        shapes = [logits.shape] + [p.shape for p in past_kiln]
        expected = [ref_logits.shape] + [tuple(r.shape) for r in past_ref]
        if shapes != expected:
            print(f"FAIL step {step}: output shapes {shapes}, PyTorch's "
                  f"{expected}")
            return 1, [int(t) for t in prompt[0]], generated_ref
        budget = 1e-5 * np.abs(ref_logits).max() + 1e-4 * np.abs(ref_logits)
        err = np.abs(logits.astype(np.float64) - ref_logits)
        worst = max(worst, float((err / budget).max()))
        if (err > budget).any():
            failures += 1
            print(f"FAIL step {step}: logits off by {err.max():.2e} "
                  f"({(err / budget).max():.2f}x the tolerance)")
        last_ref, last_kiln = ref_logits[0, -1], logits[0, -1]
        token_ref = int(last_ref.argmax())
        token_kiln = int(last_kiln.argmax())
        top2 = np.sort(last_ref)[-2:]
        if token_ref != token_kiln:
            if top2[1] - top2[0] <= budget[0, -1].max():
                ties += 1
                print(f"note step {step}: tokens {token_kiln} vs "
                      f"{token_ref} at a tie within the tolerance")
            else:
                failures += 1
                print(f"FAIL step {step}: token {token_kiln}, PyTorch "
                      f"{token_ref}")
        generated_ref.append(token_ref)
        generated_kiln.append(token_kiln)
        # Both continue from PyTorch's token, so one tie cannot derail
        # the rest of the comparison.
        ids = np.array([[token_ref]], dtype=np.int64)
    same = sum(a == b for a, b in zip(generated_ref, generated_kiln))
    print(f"{device}: {args.tokens} tokens after a {args.prompt}-token "
          f"prompt, {same}/{args.tokens} equal to PyTorch's greedy tokens"
          f"{f' ({ties} ties)' if ties else ''}; every step's logits within "
          f"{worst:.3f}x the fp32 tolerance of float64 "
          f"({kiln.calls} calls of one module, context {args.prompt} to "
          f"{args.prompt + args.tokens - 1})")
    print("tokens:", " ".join(map(str, generated_kiln)))
    print(f"{'FAIL' if failures else 'PASS'} decoder on {device}")
    return failures, [int(t) for t in prompt[0]], generated_ref


if __name__ == "__main__":
    sys.exit(main())
