"""Module handlers: the torch.nn classes the exporter writes as one layer each.

A leaf module is one whose class is listed here exactly (a subclass may do more in its
forward, e.g. timm's BatchNormAct2d or LayerNorm2d, so it is traced through and its
torch calls are recorded), or a self-attention block (see `attention.py`). Each handler
returns the layer's op JSON, or None where the module is an identity here."""

from torch import nn

from .common import ExportError, as_list, dropout_op, interpolation_op, module_kind, pool_op, view_op

ACTIVATION_MODULES = {
    nn.ReLU: "relu",
    nn.LeakyReLU: "leaky_relu",
    nn.GELU: "gelu",
    nn.Mish: "mish",
    nn.SiLU: "silu",
    nn.Tanh: "tanh",
    nn.Sigmoid: "sigmoid",
    nn.Hardswish: "hardswish",
    nn.Hardsigmoid: "hardsigmoid",
}
# Modules the planner has no op for, with the nearest op: (text, op JSON that keeps the
# shape or None).
NEAREST_MODULES = {
    nn.PReLU: ("act leaky_relu (PReLU's slope is learned)", {"op": "act", "kind": "leaky_relu"}),
    nn.InstanceNorm1d: ("group_norm with groups = channels", "group_norm"),
    nn.InstanceNorm2d: ("group_norm with groups = channels", "group_norm"),
    nn.InstanceNorm3d: ("group_norm with groups = channels", "group_norm"),
    nn.RNN: ("linear layers (one Linear over input and state per step)", None),
    nn.Embedding: ("linear (out_features = embedding_dim)", None),
    nn.ConvTranspose1d: ("upsample + conv", None),
    nn.ConvTranspose2d: ("upsample + conv", None),
    nn.ConvTranspose3d: ("upsample + conv", None),
}


def conv(ex, m, name, x, output):
    dims = len(m.kernel_size)
    if m.padding_mode != "zeros":
        ex.unsupported.append(
            {"layer": name, "what": f"padding_mode={m.padding_mode}", "nearest": "zero padding", "substitute": "zero padding"}
        )
    padding = m.padding
    if isinstance(padding, str):  # 'valid' or 'same' (stride 1)
        padding = [0] * dims if padding == "valid" else [d * (k - 1) // 2 for k, d in zip(m.kernel_size, m.dilation)]
    return {
        "op": "conv",
        "dims": dims,
        "out_channels": m.out_channels,
        "kernel": as_list(m.kernel_size, dims),
        "stride": as_list(m.stride, dims),
        "padding": as_list(padding, dims),
        "dilation": as_list(m.dilation, dims),
        "groups": m.groups,
        "bias": m.bias is not None,
    }


def linear(ex, m, name, x, output):
    return {"op": "linear", "out_features": m.out_features, "bias": m.bias is not None}


def batch_norm(ex, m, name, x, output):
    return {"op": "batch_norm"}


def layer_norm(ex, m, name, x, output):
    if len(m.normalized_shape) != 1:
        raise ExportError(f"{name}: LayerNorm over {tuple(m.normalized_shape)}: only the last dimension is supported")
    return {"op": "layer_norm"}


def group_norm(ex, m, name, x, output):
    return {"op": "group_norm", "groups": m.num_groups}


def activation(ex, m, name, x, output):
    op = {"op": "act", "kind": ACTIVATION_MODULES[type(m)]}
    if isinstance(m, nn.LeakyReLU) and m.inplace:
        op["inplace"] = True  # keeps its output, the input it overwrote
    return op


def clamp_activation(ex, m, name, x, output):
    """ReLU6 and Hardtanh(0, 6): a ReLU that also clips, and keeps its input (in place
    too: autograd then keeps a copy of it)."""
    if (m.min_val, m.max_val) != (0, 6):
        raise ExportError(f"{name}: {module_kind(m)} from {m.min_val} to {m.max_val}: only ReLU6 (0 to 6) has an op")
    return {"op": "act", "kind": "relu6"}


def softmax(ex, m, name, x, output):
    """Softmax and LogSoftmax over one per-sample dimension (which one changes nothing the
    estimate counts)."""
    if m.dim is None or m.dim % x.dim() == 0:
        raise ExportError(f"{name}: {module_kind(m)} over dim {m.dim}: only over a per-sample dimension")
    return {"op": "act", "kind": "softmax" if isinstance(m, nn.Softmax) else "log_softmax"}


# Element-wise modules without an act kind, by what their gradient reads (and whether CUDA
# autocast runs them in fp32): they keep their input, in place or not.
POINTWISE_MODULES = {nn.ELU: False, nn.SELU: False, nn.CELU: False, nn.Softplus: True}


def pointwise(ex, m, name, x, output):
    # In place, the ELUs keep their output (the input they overwrote).
    op = {"op": "pointwise", "keeps": "output" if getattr(m, "inplace", False) else "input"}
    if POINTWISE_MODULES[type(m)]:
        op["fp32"] = True
    return op


def dropout(ex, m, name, x, output):
    return dropout_op(m.p) if m.training else None


def pool(ex, m, name, x, output):
    dims = x.dim() - 2
    if as_list(getattr(m, "dilation", 1), dims) != [1] * dims:
        raise ExportError(f"{name}: {module_kind(m)} with dilation is not supported")
    kind = "max_pool" if "Max" in type(m).__name__ else "avg_pool"
    op = pool_op(kind, dims, m.kernel_size, m.stride, m.padding)
    if getattr(m, "ceil_mode", False) and list(output.shape[2:]) != floor_windows(x, op):
        op["ceil_mode"] = True  # a last, partial window where floor mode has none
    return op


def floor_windows(x, op):
    """Output sizes of a pool in floor mode (PyTorch's formula)."""
    sizes = zip(x.shape[2:], op["kernel"], op["stride"], op["padding"])
    return [(n + 2 * p - k) // s + 1 for n, k, s, p in sizes]


def adaptive_pool(ex, m, name, x, output):
    if getattr(m, "return_indices", False):
        raise ExportError(f"{name}: {module_kind(m)} with return_indices: the indices are not followed")
    kind = "adaptive_max_pool" if "Max" in type(m).__name__ else "adaptive_avg_pool"
    return {"op": kind, "dims": x.dim() - 2, "output": list(output.shape[2:])}


def upsample(ex, m, name, x, output):
    return interpolation_op(name, x, output, m.mode)


def flatten(ex, m, name, x, output):
    return view_op(x, output)


def recurrent(ex, m, name, x, output):
    """nn.LSTM / nn.GRU on a batch-first sequence [N, T, D]: the `rnn` op, whose output is
    every step's (the exporter follows `output`, not the final states: see
    `Exporter.record_module`)."""
    kind = module_kind(m)
    if not m.batch_first:
        raise ExportError(
            f"{name}: {kind} with batch_first=False reads [T, N, D]; the layer list keeps the batch first: "
            "construct it with batch_first=True (the same weights) and pass [N, T, D]"
        )
    if x.dim() != 3:
        raise ExportError(f"{name}: {kind} on an input of shape {tuple(x.shape)}: only a batched sequence [N, T, D]")
    if getattr(m, "proj_size", 0):
        raise ExportError(f"{name}: {kind} with proj_size={m.proj_size}: no op (projected LSTM)")
    if m.dropout and m.training and m.num_layers > 1:
        raise ExportError(f"{name}: {kind} with dropout={m.dropout} between its layers: no op; set dropout=0")
    return {
        "op": "rnn",
        "cell": "lstm" if isinstance(m, nn.LSTM) else "gru",
        "hidden": m.hidden_size,
        "layers": m.num_layers,
        "bidirectional": m.bidirectional,
        "bias": m.bias,
        "batch_first": True,
    }


def identity(ex, m, name, x, output):
    return None


# Exact classes -> handler (a subclass is traced through, see the module docstring).
MODULE_HANDLERS = {
    **{t: conv for t in (nn.Conv1d, nn.Conv2d, nn.Conv3d)},
    nn.Linear: linear,
    **{t: batch_norm for t in (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)},
    nn.LayerNorm: layer_norm,
    nn.GroupNorm: group_norm,
    **{t: activation for t in ACTIVATION_MODULES},
    nn.ReLU6: clamp_activation,
    nn.Hardtanh: clamp_activation,
    nn.Softmax: softmax,
    nn.LogSoftmax: softmax,
    **{t: pointwise for t in POINTWISE_MODULES},
    **{t: dropout for t in (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d)},
    **{t: pool for t in (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)},
    **{t: adaptive_pool for t in (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d,
                                  nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d, nn.AdaptiveMaxPool3d)},
    nn.Upsample: upsample,
    nn.Flatten: flatten,
    nn.LSTM: recurrent,
    nn.GRU: recurrent,
    nn.Identity: identity,
}
