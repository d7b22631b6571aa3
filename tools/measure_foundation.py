#!/usr/bin/env python3
"""Measures the zoo's ViT (tools/torch_zoo/transformers.py `Vit`, core/src/zoo/vit.rs) in
PyTorch on the CPU with the foundation-model options and writes
core/tests/fixtures/pytorch_foundation.json, which core/tests/foundation.rs checks the
estimator against:

- attention "math" (the zoo's written-out einsum attention) and "sdpa" (the same
  weights through F.scaled_dot_product_attention the way timm 1.x calls it: q, k, v
  unbound from the permuted qkv output, the output transposed and reshaped). On the CPU
  PyTorch runs its flash kernel (`_scaled_dot_product_flash_attention_for_cpu`), which
  keeps what CUDA's flash kernel keeps: q, k, v, the output and the fp32 log-sum-exp;
- finetune "frozen" (requires_grad=False on everything outside the trainable layers) and
  "lora" (a minimal LoRA wrapper, Hu et al. 2022 / peft's defaults: y = W x + B A x *
  alpha / r, A r x in, B out x r, no dropout, base frozen).

Each case is measured at two batches, so that the fixture also holds the saved bytes
extrapolated to batch 64 (the memory is linear in the batch; the two points check it):
the issue's ViT-Base at 224 px, batch 64, is too large to run here.

FLOPs: torch.utils.flop_counter, with the CPU flash kernel counted by the formulas the
counter registers for CUDA's SDPA kernels (forward 2 batched matmuls, backward 5: the
scores are recomputed). Saved bytes: tools/validate_zoo.py's method.

    tools/.venv/bin/python tools/measure_foundation.py
"""

import json
import os
import sys

import torch
from torch.utils import flop_counter

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import validate_zoo  # noqa: E402
from torch_zoo import options  # noqa: E402
from torch_zoo.transformers import Vit  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "pytorch_foundation.json")
aten = torch.ops.aten


def cpu_flash_flops(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs):
    return flop_counter.sdpa_flop_count(query_shape, key_shape, value_shape)


def cpu_flash_backward_flops(grad_out_shape, query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs):
    return flop_counter.sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


validate_zoo.FLOP_FIXES.update({
    aten._scaled_dot_product_flash_attention_for_cpu: cpu_flash_flops,
    aten._scaled_dot_product_flash_attention_for_cpu_backward: cpu_flash_backward_flops,
})


def build(case):
    o = case["options"]
    torch.manual_seed(0)
    model = Vit(o["bands"], o["patch"], o["classes"], o["size"])
    return options.apply(model, case["attention"], case["finetune"]).train()


def measure(case, batch):
    model = build(case)
    o = case["options"]
    torch.manual_seed(0)
    x = torch.randn(batch, o["bands"], o["patch"], o["patch"])
    y = torch.randint(0, o["classes"], (batch,))
    fwd, bwd, saved = validate_zoo.measure_step(model, x, y, case["precision"])
    return {
        "params": sum(p.numel() for p in model.parameters()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "fwd_flops": fwd,
        "bwd_flops": bwd,
        "saved_bytes": saved,
    }


VIT_B_224 = {"bands": 3, "patch": 224, "classes": 10, "size": "base"}
VIT_B_64 = {"bands": 32, "patch": 64, "classes": 16, "size": "base"}
CASES = [
    {"options": VIT_B_224, "precision": p, "attention": a, "finetune": {"mode": "full"}, "batches": [2, 4]}
    for a in ("math", "sdpa") for p in ("fp32", "amp_bf16")
] + [
    {"options": VIT_B_64, "precision": p, "attention": "sdpa", "finetune": ft, "batches": [2, 4]}
    for p in ("fp32", "amp_bf16")
    for ft in (
        {"mode": "frozen", "trainable": ["head"]},
        {"mode": "frozen", "trainable": ["block11", "head"]},
        {"mode": "lora", "rank": 8, "targets": ["qkv", "proj"]},
    )
]


def main():
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    cases = []
    for case in CASES:
        points = {b: measure(case, b) for b in case["batches"]}
        (b1, m1), (b2, m2) = points.items()
        per_sample = (m2["saved_bytes"] - m1["saved_bytes"]) / (b2 - b1)
        out = {k: v for k, v in case.items() if k != "batches"}
        out["measured"] = [{"batch": b, **m} for b, m in points.items()]
        out["saved_bytes_at_64"] = m1["saved_bytes"] + per_sample * (64 - b1)
        print(json.dumps(out), flush=True)
        cases.append(out)
    validate_zoo.write_fixture(FIXTURE, cases, "tools/measure_foundation.py",
                               "saved_bytes_at_64: the two measured batches extrapolated linearly to batch 64")
    print(f"wrote {len(cases)} cases to {FIXTURE}")


if __name__ == "__main__":
    main()
