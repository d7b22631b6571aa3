"""Single operators tools/measure_lent_gpu.py times, the device model's op classes that
its fixtures do not settle (issue 22): depthwise and grouped convolutions at the shapes
of the models that use them, ConvNeXt's LayerNorm, and SDPA per backend; and the timing
every section shares (`seconds_per_call`)."""

import statistics
import time

import torch
import torch.nn.functional as F

from profile_trace import trace_events

# (case, channels, groups, kernel, side, batch): the models' own shapes at timm's batch.
CONVS = [("convnext_t dw7", c, c, 7, s, 256) for c, s in ((96, 56), (192, 28), (384, 14), (768, 7))]
CONVS += [("mobilenetv2 dw3", c, c, 3, s, 512) for c, s in ((144, 56), (192, 28), (576, 14))]
CONVS += [("efficientnet_b0 dw5", c, c, 5, s, 384) for c, s in ((240, 28), (672, 14))]
CONVS += [("resnext50 g32", c, 32, 3, s, 384) for c, s in ((128, 56), (256, 28), (512, 14), (1024, 7))]
CONVS += [("regnety_016 g24", c, c // 24, 3, s, 512) for c, s in ((48, 56), (120, 28), (336, 14), (888, 7))]
CONV_PRECISIONS = {"fp32": (torch.float32, False), "tf32": (torch.float32, True), "fp16": (torch.float16, False)}


def conv_ops():
    """Every shape in both layouts; grouped ones in FP32, TF32 and FP16, depthwise ones
    (CUDA cores whatever TF32 allows) in FP32 and FP16."""
    return [{"case": f"{name} C{c} {s}x{s} {p} {layout}", "kind": "conv", "channels": c, "groups": g, "kernel": k,
             "side": s, "batch": b, "precision": p, "channels_last": layout == "nhwc"}
            for name, c, g, k, s, b in CONVS for p in CONV_PRECISIONS for layout in ("nchw", "nhwc")
            if not (g == c and p == "tf32")]


def layer_norm_ops():
    """ConvNeXt-T's first-stage LayerNorm: over a permuted NCHW tensor (a copy first) and
    over a contiguous NHWC one."""
    return [{"case": f"layer_norm C96 56x56 {dtype} {src}", "kind": "layer_norm", "dtype": dtype, "permuted": src == "permuted"}
            for dtype in ("fp32", "fp16") for src in ("permuted", "contiguous")]


SDPA_SHAPES = {"vit_b8": (64, 12, 785, 64), "vit_b16": (192, 12, 197, 64)}
SDPA_BACKENDS = ("default", "math", "efficient", "flash", "cudnn")


def sdpa_ops():
    return [{"case": f"sdpa {shape} {dtype} {backend}", "kind": "sdpa", "shape": shape, "dtype": dtype, "backend": backend}
            for shape in SDPA_SHAPES for dtype in ("fp32", "tf32", "bf16", "fp16") for backend in SDPA_BACKENDS]


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def seconds_per_call(fn, device, reps):
    """Median of 3 rounds of `reps` calls after two warm-up calls (cudnn.benchmark tries
    its algorithms on the first)."""
    fn()
    fn()
    sync(device)
    rounds = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        sync(device)
        rounds.append((time.perf_counter() - start) / reps)
    return statistics.median(rounds)


def run_conv(op, device):
    dtype, tf32 = CONV_PRECISIONS[op["precision"]]
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cudnn.benchmark = True  # as timm's benchmark runs
    c, b, s = op["channels"], op["batch"], op["side"]
    conv = torch.nn.Conv2d(c, c, op["kernel"], padding=op["kernel"] // 2, groups=op["groups"]).to(device, dtype)
    x = torch.randn(b, c, s, s, device=device, dtype=dtype, requires_grad=True)
    if op["channels_last"]:
        conv = conv.to(memory_format=torch.channels_last)
        x = x.detach().to(memory_format=torch.channels_last).requires_grad_()
    reps = 3 if device.type == "cuda" else 1
    out = {"forward_s": seconds_per_call(lambda: conv(x), device, reps),
           "step_s": seconds_per_call(lambda: conv(x).sum().backward(), device, reps)}
    out["forward_flops"] = 2 * b * c * s * s * (c // op["groups"]) * op["kernel"] ** 2
    return out


def run_layer_norm(op, device):
    dtype = torch.float16 if op["dtype"] == "fp16" else torch.float32
    b, c, s = (256, 96, 56) if device.type == "cuda" else (2, 8, 4)
    norm = torch.nn.LayerNorm(c).to(device, dtype)
    x = torch.randn(b, c, s, s, device=device, dtype=dtype, requires_grad=True)
    if not op["permuted"]:
        x = x.detach().to(memory_format=torch.channels_last).requires_grad_()
    reps = 5 if device.type == "cuda" else 1
    step = lambda: norm(x.permute(0, 2, 3, 1)).sum().backward()  # noqa: E731
    return {"step_s": seconds_per_call(step, device, reps), "input": [b, c, s, s]}


def sdpa_backend(name):
    from torch.nn.attention import SDPBackend

    return {"math": SDPBackend.MATH, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}.get(name)


def run_sdpa(op, device):
    import contextlib

    from torch.nn.attention import sdpa_kernel

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(op["dtype"], torch.float32)
    torch.backends.cuda.matmul.allow_tf32 = op["dtype"] == "tf32"
    n, heads, tokens, dim = SDPA_SHAPES[op["shape"]] if device.type == "cuda" else (2, 2, 16, 8)
    # q, k and v as a ViT makes them: views of one [N, T, 3, heads, dim] projection, the
    # layout cuDNN's attention checks for (sdp_utils.cpp, check_cudnn_layout).
    qkv = torch.randn(n, tokens, 3, heads, dim, device=device, dtype=dtype, requires_grad=True)
    q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
    backend = sdpa_backend(op["backend"])
    scope = sdpa_kernel([backend]) if backend is not None else contextlib.nullcontext()
    reps = 3 if device.type == "cuda" else 1
    forward = lambda: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
    step = lambda: F.scaled_dot_product_attention(q, k, v).sum().backward()  # noqa: E731
    try:
        with scope:
            out = {"forward_s": seconds_per_call(forward, device, reps), "step_s": seconds_per_call(step, device, reps)}
            if op["backend"] == "default":  # which kernels PyTorch's own choice ran
                events = trace_events(step, device.type == "cuda")
                out["kernels"] = sorted({e["name"] for e in events if e.get("cat") == "kernel"})
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    return out


def run_op(op, device):
    runner = {"conv": run_conv, "layer_norm": run_layer_norm, "sdpa": run_sdpa}[op["kind"]]
    return {"op_timing": {**op, **runner(op, device)}}
