"""Self-attention blocks as one `attention` layer each.

Recognised by their parts: vit-pytorch style (`to_qkv`, `to_out`, `heads`), timm style
(`qkv`, `proj`, `num_heads`, with Swin's `relative_position_bias_table`), torchvision's
MaxViT (`to_qkv`, `merge`, `n_heads`), and
nn.MultiheadAttention used as self-attention (one input for query, key and value)."""

import torch
from torch import nn

from .common import ExportError, dropout_op, module_kind, tensors_in

# Learned tensors of an attention block besides its projections, which change neither its
# FLOPs nor its kept bytes: a relative position bias table added to the scores (Swin,
# BEiT), BEiT's separate q and v biases (k has none).
EXTRA_PARAMS = ("relative_position_bias_table", "q_bias", "v_bias")


def attention_parts(module):
    """(qkv out_features, qkv has bias, output Linear, heads) of a self-attention block,
    or None."""
    if isinstance(module, nn.MultiheadAttention):
        if not module._qkv_same_embed_dim or module.in_proj_weight is None:
            return None
        return module.in_proj_weight.shape[0], module.in_proj_bias is not None, module.out_proj, module.num_heads
    parts = (("to_qkv", "to_out", "heads"), ("qkv", "proj", "num_heads"), ("to_qkv", "merge", "n_heads"))
    for qkv_name, out_name, heads_name in parts:
        qkv = getattr(module, qkv_name, None)
        out = getattr(module, out_name, None)
        heads = getattr(module, heads_name, None)
        if isinstance(out, nn.Sequential):
            out = next((m for m in out if isinstance(m, nn.Linear)), None)
        if isinstance(qkv, nn.Linear) and isinstance(out, nn.Linear) and isinstance(heads, int) \
                and is_plain_attention(module, qkv, out):
            return qkv.out_features, qkv.bias is not None, out, heads
    return None


def is_plain_attention(module, qkv, out):
    """True where q, k and v are equal thirds of the qkv projection, the output projection
    reads them, and the block holds no parameters but these and EXTRA_PARAMS: what the
    `attention` op describes. Other blocks (LeViT's and EfficientFormer's narrower keys
    and attention biases) are traced through, op by op."""
    extra = [getattr(module, n, None) for n in EXTRA_PARAMS]
    known = sum(p.numel() for m in (qkv, out) for p in m.parameters())
    known += sum(t.numel() for t in extra if isinstance(t, nn.Parameter))
    return qkv.out_features % 3 == 0 and qkv.out_features // 3 == out.in_features and \
        known == sum(p.numel() for p in module.parameters())


def partitions_windows(module):
    """True for torchvision's Swin attention, which cuts its [H, W, C] input into
    (shifted) windows inside its forward."""
    return hasattr(module, "shift_size") and hasattr(module, "window_size")


def window_attention_layers(ex, m, name, x, output, params):
    """torchvision's ShiftedWindowAttention as the layers its functional forward amounts
    to: the window partition (a view, a permute, and a reshape that copies), attention
    over [windows, window area, C], and the reverse. The roll of a shifted block copies
    before the partition and keeps nothing, as in timm's Swin (see functions.roll)."""
    if getattr(m, "logit_scale", None) is not None:
        raise ExportError(
            f"{name}: {module_kind(m)} (Swin V2) computes cosine attention with a continuous position "
            "bias MLP: no op"
        )
    if x.dim() != 4:
        raise ExportError(f"{name}: {module_kind(m)} expects [H, W, C], got {list(x.shape[1:])}")
    (h, w, c), (wh, ww) = x.shape[1:], m.window_size
    if h % wh or w % ww:
        raise ExportError(
            f"{name}: {module_kind(m)} pads {h}x{w} to a multiple of its {wh}x{ww} windows: no op "
            "(choose an input whose feature maps divide by the window)"
        )
    if m.training and (m.dropout > 0 or m.attention_dropout > 0):
        raise ExportError(f"{name}: {module_kind(m)} with dropout inside its forward: no op")
    op, _ = attention_op(ex, m, name, x, output)
    steps = [
        ("partition", {"op": "reshape", "shape": [h // wh, wh, w // ww, ww, c]}),
        ("partition.permute", {"op": "permute", "order": [0, 2, 1, 3, 4]}),
        ("partition.windows", {"op": "reshape", "shape": [h // wh * (w // ww), wh * ww, c]}),
        ("", op),
        ("reverse", {"op": "reshape", "shape": [h // wh, w // ww, wh, ww, c]}),
        ("reverse.permute", {"op": "permute", "order": [0, 2, 1, 3, 4]}),
        ("reverse.merge", {"op": "reshape", "shape": [h, w, c]}),
    ]
    current = x
    for i, (suffix, step) in enumerate(steps):
        last = i == len(steps) - 1
        nxt = output if last else torch.empty(0)
        ex.emit(f"{name}.{suffix}" if suffix else name, [current], step, nxt, params if step is op else ())
        current = nxt


def attention_layout(ex, m, args, kwargs):
    """How block `m` attends on its input, told by the FLOPs it counts when run once on
    it: "sets" (over the last two dimensions' tokens [.., T, D], each leading index a set
    of its own, as torchvision's MaxViT), "tokens" (over all tokens of [H, W, C]: VOLO
    reshapes them to [H x W, C]), or None where neither matches: the block is no softmax
    attention over T x T scores (CoaT's factorized attention, linear attention) and is
    traced through op by op. Window attention (Swin) has its own layers."""
    if partitions_windows(m):
        return "sets"
    from torch.utils import flop_counter

    x = next(iter(tensors_in(args)), None)
    if x is None or x.dim() < 3:
        return None
    qkv_features, _, _, _ = attention_parts(m)
    try:
        # (The CPU's flash kernel has no formula in the counter: the CUDA kernels' one.)
        cpu_flash = {torch.ops.aten._scaled_dot_product_flash_attention_for_cpu:
                     lambda q, k, v, *_, out_shape=None, **__: flop_counter.sdpa_flop_count(q, k, v)}
        with torch.enable_grad(), flop_counter.FlopCounterMode(display=False, custom_mapping=cpu_flash) as counter:
            m(*args, **kwargs)  # grad on: no inference fast path (nn.MultiheadAttention's)
    except Exception:  # the block refuses to run twice: trace it
        return None
    inner, dim = qkv_features // 3, x.shape[-1]
    rows = x.numel() // dim
    projections = 2 * rows * dim * (qkv_features + inner)
    layouts = {"sets": x.shape[-2], "tokens": rows // x.shape[0]}
    for layout, tokens in layouts.items():
        expected = projections + 4 * rows * tokens * inner
        if abs(counter.get_total_flops() - expected) <= 0.01 * expected:
            return layout
    return None


def attention_op(ex, m, name, x, output):
    """(op, trailing dropout op or None) for self-attention block `m` on tokens `x`."""
    qkv_features, qkv_bias, out, heads = attention_parts(m)
    tokens = ex.sample_shape(x)
    if partitions_windows(m):
        tokens = tokens[-1:]  # attention over each window's tokens: only D matters here
    elif len(tokens) < 2 or tuple(x.shape) != tuple(output.shape):
        raise ExportError(f"{name}: attention must map tokens [.., T, D] to the same shape, got {tokens}")
    if isinstance(m, nn.MultiheadAttention) and not getattr(m, "batch_first", False):
        raise ExportError(f"{name}: nn.MultiheadAttention with batch_first=False puts the tokens first: only batch_first has an op")
    head_dim = qkv_features // 3 // heads
    op = {"op": "attention", "heads": heads, "qkv_bias": qkv_bias}
    if head_dim * heads != tokens[-1]:
        op["head_dim"] = head_dim
    extra = [getattr(m, n, None) for n in EXTRA_PARAMS]
    extra = sum(int(t.numel()) for t in extra if isinstance(t, torch.Tensor) and t.requires_grad)
    if extra:
        op["extra_params"] = extra
    if getattr(m, "fused_attn", False) or isinstance(m, nn.MultiheadAttention):
        ex.fused_attention = True
        fused = f"{module_kind(m)} runs F.scaled_dot_product_attention"
        if not any(w.startswith(fused) for w in ex.warnings):  # once per kind of block
            ex.warnings.append(
                f"{fused} (first: {name}): estimate it with the scenario's \"attention\": \"sdpa\" "
                "(the default; the fused kernels keep the log-sum-exp, not the T x T scores)"
            )
    # Dropouts after the output projection are the block's output dropout; one on the
    # attention probabilities has no op and is reported.
    calls = ex.leaf_calls
    last_out = max((i for i, c in enumerate(calls) if c is out), default=len(calls))
    trailing = None
    for i, c in enumerate(calls):
        if isinstance(c, nn.modules.dropout._DropoutNd) and c.p > 0 and m.training:
            if i > last_out:
                trailing = dropout_op(c.p)
            else:
                ex.unsupported.append(
                    {"layer": f"{name}.{ex.module_names[c].rsplit('.', 1)[-1]}",
                     "what": "dropout on the attention probabilities",
                     "nearest": "none (its 1-byte mask per score is not counted)",
                     "substitute": "pass-through"}
                )
    if isinstance(m, nn.MultiheadAttention) and m.dropout > 0 and m.training:
        ex.unsupported.append(
            {"layer": name, "what": "dropout on the attention probabilities",
             "nearest": "none (its 1-byte mask per score is not counted)", "substitute": "pass-through"}
        )
    return op, trailing
