#!/usr/bin/env python3
"""Times single 3-D and 2-D convolutions on a CUDA card, forward and forward + backward, to
see how cuDNN's speed depends on the channel count (the step model's `conv3d_*` factors):
a sweep of C -> C convolutions at about the same FLOPs each, and every convolution of
the zoo's 3-D HSI CNNs at the shape it runs in a training step. One JSON line per
convolution, written as it finishes.

    python3 tools/measure_conv.py --output conv.jsonl            # CUDA
    python3 tools/measure_conv.py --dry-run --output dry.jsonl   # CPU, tiny: checks it runs
"""

import argparse
import json
import os
import sys
import time

import torch
from torch import nn

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)

PRECISIONS = {"fp32": (torch.float32, False), "tf32": (torch.float32, True), "bf16": (torch.bfloat16, False)}
# The zoo's 3-D CNNs at the sizes tools/measure_suite.py trains them (batch 256).
ZOO = [("hybridsn", 30, 25), ("ssrn", 200, 7), ("dbda", 200, 9), ("hamida3d", 200, 5)]


def conv_shapes(model_id, bands, patch, batch):
    """(module, input shape) of every Conv3d/Conv2d the zoo model runs, recorded by a
    forward hook on one sample and scaled to `batch`."""
    from torch_zoo import all_models

    entry = all_models()[model_id]
    model = entry["build"](bands, patch, 16)
    seen = []
    hooks = [m.register_forward_hook(lambda m, i, o: seen.append((m, (batch, *i[0].shape[1:]))))
             for m in model.modules() if isinstance(m, (nn.Conv3d, nn.Conv2d))]
    with torch.no_grad():
        model.eval()(torch.zeros(1, *entry["input"](bands, patch)))
    for h in hooks:
        h.remove()
    return seen


def flops(conv, shape):
    """Forward multiply-adds x 2 over the output."""
    with torch.no_grad():
        out = conv(torch.zeros(1, *shape[1:], device=conv.weight.device, dtype=conv.weight.dtype)).shape
    per_out = 2 * conv.in_channels // conv.groups
    for k in conv.kernel_size:
        per_out *= k
    n = shape[0]
    for d in out[1:]:
        n *= d
    return per_out * n


def time_conv(conv, shape, input_grad, device, reps):
    x = torch.randn(*shape, device=device, dtype=conv.weight.dtype, requires_grad=input_grad)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    def forward():
        return conv(x)

    def step():
        conv(x).sum().backward()

    out = {}
    for name, fn in (("forward_s", forward), ("step_s", step)):
        for _ in range(3):  # cudnn.benchmark times its algorithms on the first calls
            fn()
        sync()
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        out[name] = (time.perf_counter() - start) / reps
    return out


def sweep_shapes(target_flops, dims):
    """C -> C convolutions, kernel 3, batch 32, a cube (or square) sized for about
    `target_flops` forward FLOPs."""
    for c in (4, 8, 16, 24, 32, 64, 128, 256):
        per_voxel = 2 * c * c * 3**dims
        side = max(4, round((target_flops / per_voxel / 32) ** (1 / dims))) + 2
        yield f"sweep C{c}", nn.Conv3d(c, c, 3) if dims == 3 else nn.Conv2d(c, c, 3), (32, c, *(side,) * dims)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", required=True)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--budget-s", type=float, default=150.0)
    args = parser.parse_args()
    device = torch.device("cpu" if args.dry_run else "cuda")
    target, reps, batch = (2e7, 1, 2) if args.dry_run else (2e10, 10, 256)
    cases = [(name, conv, shape, True) for dims in (3, 2) for name, conv, shape in sweep_shapes(target, dims)]
    for model_id, bands, patch in ZOO:
        for i, (conv, shape) in enumerate(conv_shapes(model_id, bands, patch, batch)):
            # The first layer's input is the data: no gradient flows into it.
            cases.append((f"{model_id} {i}", conv, shape, i > 0))
    start = time.perf_counter()
    with open(args.output, "w") as out:
        for bench in (True, False):
            torch.backends.cudnn.benchmark = bench
            for precision, (dtype, tf32) in PRECISIONS.items():
                torch.backends.cudnn.allow_tf32 = tf32
                for name, conv, shape, input_grad in cases:
                    if time.perf_counter() - start > args.budget_s:
                        break
                    conv = conv.to(device=device, dtype=dtype)
                    record = {"case": name, "precision": precision, "cudnn_benchmark": bench, "input": list(shape),
                              "in_channels": conv.in_channels, "out_channels": conv.out_channels,
                              "kernel": list(conv.kernel_size), "stride": list(conv.stride),
                              "padding": list(conv.padding), "groups": conv.groups, "input_grad": input_grad,
                              "forward_flops": flops(conv, shape)}
                    try:
                        record.update(time_conv(conv, shape, input_grad, device, reps))
                    except Exception as e:  # noqa: BLE001 - one shape's failure must not end the run
                        record["error"] = f"{type(e).__name__}: {e}"
                    out.write(json.dumps(record) + "\n")
                    out.flush()
            print(f"{time.perf_counter() - start:6.1f} s  benchmark={bench}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
