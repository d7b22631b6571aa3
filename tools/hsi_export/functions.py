"""Function handlers: torch calls on activations (traced through non-leaf modules, and
the ATen ops of a torch.export graph) that become layers.

`FUNCTION_HANDLERS` maps a function's name (without leading/trailing underscores, so
in-place variants share it; ATen ops by their overload packet's name) to a handler
`(ex, layer, args, kwargs, acts, result)`. A name not in the table is reported with
`NEAREST_FUNCTIONS`' suggestion."""

import torch

from .common import (
    ExportError, arg, as_list, dropout_op, is_batched_matmul, operands_numel, pool_op, tensors_in, upsample_op,
)

NEAREST_FUNCTIONS = {
    "elu": "act leaky_relu",
    "selu": "act leaky_relu",
    "softplus": "act silu",
    "log_softmax": "act softmax",
    "mean": "adaptive_avg_pool (global average) or avg_pool",
    "sum": "adaptive_avg_pool",
    "max": "max_pool",
    "expand": "reshape",
    "repeat": "concat",
    "div": "mul",
    "pad": "conv padding",
    "bilinear": "upsample",
}
# Python operators and in-place forms under one name.
ALIASES = {
    "iadd": "add", "radd": "add", "imul": "mul", "rmul": "mul", "rmatmul": "matmul", "concat": "cat",
    "swapaxes": "transpose", "swapdims": "transpose",
}


def views(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    shape = ex.fold_shape(x, result)
    if shape is None:
        ex.report(layer, "a view that mixes the batch with other dimensions", "reshape keeping the batch first", acts, result)
    elif shape == ex.sample_shape(x):
        ex.alias(x, result)
    elif len(shape) == 1 and len(ex.sample_shape(x)) > 1:
        ex.emit(layer, [x], {"op": "flatten"}, result)
    else:
        ex.emit(layer, [x], {"op": "reshape", "shape": shape}, result)


def permute(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    dims = args[1:] if len(args) > 1 else kwargs.get("dims")
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    ex.emit_permute(layer, x, [d % x.dim() for d in dims], result)


def transpose(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    a, b = (arg(args, kwargs, 1, "dim0") % x.dim(), arg(args, kwargs, 2, "dim1") % x.dim())
    order = list(range(x.dim()))
    order[a], order[b] = order[b], order[a]
    ex.emit_permute(layer, x, order, result)


def getitem(ex, layer, args, kwargs, acts, result):
    x, index = args[0], args[1]
    index = index if isinstance(index, tuple) else (index,)
    if isinstance(result, torch.Tensor) and tuple(result.shape) == tuple(x.shape):
        ex.alias(x, result)  # x[:, :n] with n the full size
    elif x.dim() == 3 and len(index) == 2 and index[0] == slice(None) and isinstance(index[1], int) and not ex.folded(x):
        ex.emit(layer, [x], {"op": "take_token", "index": index[1] % x.shape[1]}, result)
    else:
        slices = expand_ellipsis(index, x.dim())
        if slices is None or slices[0] != slice(None):
            ex.report(layer, f"indexing {index!r}", "take_token (x[:, i] on tokens) or slices (x[:, a:b:s])", acts, result)
            return
        # One strided view per sliced dimension (Swin's patch merging: x[..., 0::2, 0::2, :]).
        cuts = [(dim, s.indices(x.shape[dim])) for dim, s in enumerate(slices) if s != slice(None)]
        current = x
        for i, (dim, (start, stop, step)) in enumerate(cuts):
            out = result if i == len(cuts) - 1 else torch.empty(0)
            ex.emit_slice(layer, current, dim, start, stop, out, step, x)
            current = out


def expand_ellipsis(index, dims):
    """`index` as one slice per dimension, or None when it holds anything but slices and
    one Ellipsis (integers, tensors, None)."""
    if not all(isinstance(i, slice) or i is Ellipsis for i in index) or sum(i is Ellipsis for i in index) > 1:
        return None
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (dims - len(index) + 1) + index[at + 1:]
    return list(index) + [slice(None)] * (dims - len(index))


def narrow(ex, layer, args, kwargs, acts, result):
    x, dim, start, length = args[0], arg(args, kwargs, 1, "dim"), arg(args, kwargs, 2, "start"), arg(args, kwargs, 3, "length")
    ex.emit_slice(layer, x, dim % x.dim(), int(start), int(start) + int(length), result)


def split(ex, layer, args, kwargs, acts, result):
    """x.chunk(n, dim), x.split(size, dim): one slice layer per piece."""
    x = acts[0]
    dim = arg(args, kwargs, 2, "dim", 0) % x.dim()
    start = 0
    for i, piece in enumerate(result):
        ex.emit_slice(f"{layer}.{i}", x, dim, start, start + piece.shape[dim], piece)
        start += piece.shape[dim]


def activation(kind):
    def handler(ex, layer, args, kwargs, acts, result):
        ex.emit(layer, acts[:1], {"op": "act", "kind": kind}, result)

    return handler


def hardtanh(ex, layer, args, kwargs, acts, result):
    """F.relu6 and F.hardtanh(x, 0, 6) (see modules.clamp_activation)."""
    bounds = (arg(args, kwargs, 1, "min_val", -1.0), arg(args, kwargs, 2, "max_val", 1.0))
    if "relu6" not in layer and bounds != (0, 6):
        ex.report(layer, f"hardtanh from {bounds[0]} to {bounds[1]}", "act relu6 (0 to 6)", acts, result)
    else:
        ex.emit(layer, acts[:1], {"op": "act", "kind": "relu6"}, result)


def softmax(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    dim = arg(args, kwargs, 1, "dim")
    if dim is None or dim % x.dim() != x.dim() - 1:
        ex.report(layer, f"softmax over dim {dim}", "permute so the dimension is last, then act softmax", acts, result)
    else:
        ex.emit(layer, [x], {"op": "act", "kind": "softmax"}, result)


def dropout(ex, layer, args, kwargs, acts, result):
    p = arg(args, kwargs, 1, "p", 0.5)
    training = arg(args, kwargs, 2, "training", True)
    if p > 0 and training:
        ex.emit(layer, acts[:1], dropout_op(p), result)
    else:
        ex.alias(acts[0], result)


def add(ex, layer, args, kwargs, acts, result):
    operands = [a for a in args[:2] if isinstance(a, torch.Tensor)]
    if len(acts) >= 2 and all(tuple(a.shape) == tuple(result.shape) for a in acts):
        ex.emit(layer, acts, {"op": "add"}, result)
        return
    params = [ex.origin(t) for t in operands if ex.source(t) is None]
    x = acts[0]
    if len(params) == 1 and params[0] and operands_numel(operands, x) == x[0].numel():
        ex.emit(layer, [x], {"op": "position_embedding"}, result, [params[0]])
    else:
        ex.report(layer, "add of a constant or a broadcast tensor", "none (an element-wise pass)", acts, result)


def sub(ex, layer, args, kwargs, acts, result):
    """a - b of two activations (PoolFormer's pool(x) - x): FLOPs and kept bytes of a sum."""
    if len(acts) == 2 and all(tuple(a.shape) == tuple(result.shape) for a in acts):
        ex.emit(layer, acts, {"op": "add"}, result)
    else:
        ex.report(layer, "subtraction of a constant or a broadcast tensor", "none (an element-wise pass)", acts, result)


def addcmul(ex, layer, args, kwargs, acts, result):
    """torch.addcmul(beta, alpha, x) = alpha * x + beta with learned vectors (ResMLP's
    Affine): a scale with a bias."""
    beta, alpha, x = args[0], args[1], args[2]
    names = [ex.origin(beta), ex.origin(alpha)]
    shape = param_shape(alpha, x)
    if acts == [x] and all(names) and shape is not None and param_shape(beta, x) == shape and arg(args, kwargs, 3, "value", 1) == 1:
        ex.emit(layer, [x], {"op": "scale", "shape": shape, "bias": True}, result, names)
    else:
        ex.report(layer, "addcmul other than learned alpha * x + beta", "scale", acts, result)


def pad(ex, layer, args, kwargs, acts, result):
    """F.pad by nothing (torchvision's Swin pads to a window multiple): the same tensor."""
    if tuple(result.shape) == tuple(acts[0].shape):
        ex.alias(acts[0], result)
    else:
        ex.report(layer, f"padding by {arg(args, kwargs, 1, 'pad')}", NEAREST_FUNCTIONS["pad"], acts, result)


def mul(ex, layer, args, kwargs, acts, result):
    if len(acts) == 2:
        a, b = acts
        if tuple(a.shape) != tuple(result.shape):
            a, b = b, a  # the second input is the one that broadcasts
        ex.emit(layer, [a, b], {"op": "mul"}, result)
        return
    x = acts[0]
    other = next((t for t in args[:2] if t is not x), None)
    if not isinstance(other, torch.Tensor) or tuple(result.shape) != tuple(x.shape):
        ex.report(layer, "multiplication by a constant", "none (an element-wise pass)", acts, result)
        return
    origin = ex.origin(other)
    shape = param_shape(other, x)
    if origin and shape is not None:
        # Layer scale (ConvNeXt, CaiT, timm LayerScale): x times a learned vector.
        ex.emit(layer, [x], {"op": "scale", "shape": shape}, result, [origin])
    elif origin is None and other.dim() == x.dim() and other.shape[0] == x.shape[0] and other[0].numel() == 1:
        # Stochastic depth: each sample's branch times 0 or 1/keep (a per-sample mask).
        ex.emit(layer, [x], {"op": "drop_path"}, result)
    else:
        ex.report(layer, "multiplication by a constant or a parameter", "scale (a learned vector) or mul", acts, result)


def param_shape(p, x):
    """The per-sample shape a parameter broadcasts over `x` with, or None."""
    shape = list(p.shape)
    if len(shape) == x.dim():
        if shape[0] != 1:
            return None
        shape = shape[1:]
    if len(shape) >= x.dim() or p.numel() != torch.Size(shape).numel():
        return None
    per_sample = list(x.shape[1:])
    aligned = per_sample[len(per_sample) - len(shape):]
    return shape if all(s in (1, d) for s, d in zip(shape, aligned)) else None


def cat(ex, layer, args, kwargs, acts, result):
    items = list(arg(args, kwargs, 0, "tensors"))
    dim = arg(args, kwargs, 1, "dim", 0) % result.dim()
    if dim == 0:
        ex.report(layer, "concatenation along the batch", "none", acts, result)
        return
    if len(acts) == len(items):  # also a list of one tensor (DenseNet's first layer)
        ex.emit(layer, acts, {"op": "concat", "axis": ex.sample_dim(items[0], dim)}, result)
        return
    origin = ex.origin(items[0])
    x = items[-1]
    if len(items) == 2 and origin and x is acts[0] and x.dim() == 3 and dim == 1 and items[0].shape[1] == 1:
        ex.emit(layer, [x], {"op": "class_token"}, result, [origin])
    else:
        ex.report(layer, "concatenation with a constant or parameter", "class_token (a parameter token in front)", acts, result)


def matmul(ex, layer, args, kwargs, acts, result):
    emit_matmul(ex, layer, args[0], args[1], acts, result)


def einsum(ex, layer, args, kwargs, acts, result):
    equation, operands = args[0], list(tensors_in(args[1:]))
    if len(operands) == 2 and is_batched_matmul(equation.replace(" ", "")):
        emit_matmul(ex, layer, operands[0], operands[1], acts, result)
    else:
        ex.report(layer, f"einsum {equation!r}", "matmul with permutes", acts, result)


def emit_matmul(ex, layer, a, b, acts, result):
    if len(acts) == 2:
        ex.emit(layer, [a, b], {"op": "matmul"}, result)
        return
    origin = ex.origin(b)
    if ex.source(a) is not None and origin and b.shape[-2] == a.shape[-1] and b.numel() == b.shape[-2] * b.shape[-1]:
        # x @ W with W a parameter [K, N] (or [1, K, N]): a bias-free Linear.
        ex.emit(layer, [a], {"op": "linear", "out_features": int(b.shape[-1]), "bias": False}, result, [origin])
    else:
        ex.report(layer, "matrix product with a parameter on the left", "linear", acts, result)


def linear(ex, layer, args, kwargs, acts, result):
    weight = arg(args, kwargs, 1, "weight")
    bias = arg(args, kwargs, 2, "bias")
    params = [ex.param_names.get(id(t)) for t in (weight, bias) if t is not None]
    op = {"op": "linear", "out_features": int(weight.shape[0]), "bias": bias is not None}
    ex.emit(layer, acts[:1], op, result, [p for p in params if p])


def conv(ex, layer, args, kwargs, acts, result):
    """F.conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups), and the
    same ATen ops in a torch.export graph."""
    weight, bias = arg(args, kwargs, 1, "weight"), arg(args, kwargs, 2, "bias")
    dims = weight.dim() - 2
    kernel = list(weight.shape[2:])
    dilation = as_list(arg(args, kwargs, 5, "dilation", 1), dims)
    padding = arg(args, kwargs, 4, "padding", 0)
    if isinstance(padding, str):  # 'valid' or 'same' (stride 1)
        padding = [0] * dims if padding == "valid" else [d * (k - 1) // 2 for k, d in zip(kernel, dilation)]
    op = {
        "op": "conv",
        "dims": dims,
        "out_channels": int(weight.shape[0]),
        "kernel": kernel,
        "stride": as_list(arg(args, kwargs, 3, "stride", 1), dims),
        "padding": as_list(padding, dims),
        "dilation": dilation,
        "groups": int(arg(args, kwargs, 6, "groups", 1)),
        "bias": bias is not None,
    }
    ex.emit(layer, acts[:1], op, result, ex.param_names_in(args, kwargs))


def batch_norm(ex, layer, args, kwargs, acts, result):
    ex.emit(layer, acts[:1], {"op": "batch_norm"}, result, ex.param_names_in(args, kwargs))


def layer_norm(ex, layer, args, kwargs, acts, result):
    shape = arg(args, kwargs, 1, "normalized_shape")
    if len(shape) != 1:
        ex.report(layer, f"layer_norm over {tuple(shape)}", "layer_norm over the last dimension", acts, result)
    else:
        ex.emit(layer, acts[:1], {"op": "layer_norm"}, result, ex.param_names_in(args, kwargs))


def group_norm(ex, layer, args, kwargs, acts, result):
    groups = int(arg(args, kwargs, 1, "num_groups"))
    ex.emit(layer, acts[:1], {"op": "group_norm", "groups": groups}, result, ex.param_names_in(args, kwargs))


def mean(ex, layer, args, kwargs, acts, result):
    """x.mean(dims): a global average pool over the reduced dimensions (permuted last
    when they are not, a view), then a reshape to the result."""
    x = acts[0]
    dims = arg(args, kwargs, 1, "dim")
    dims = sorted(d % x.dim() for d in ([dims] if isinstance(dims, int) else dims or []))
    kept = [d for d in range(1, x.dim()) if d not in dims]
    if ex.folded(x) or 0 in dims or len(kept) != 1 or not 1 <= len(dims) <= 3:
        ex.report(layer, f"mean over dims {dims}", NEAREST_FUNCTIONS["mean"], acts, result)
        return
    source = x
    if kept[0] != 1:  # e.g. channels-last [H, W, C] -> [C, H, W]
        source = torch.empty((x.shape[0], *[x.shape[d] for d in kept + dims]))
        ex.emit(f"{layer}.permute", [x], {"op": "permute", "order": [d - 1 for d in kept + dims]}, source)
    pooled = torch.empty((x.shape[0], x.shape[kept[0]], *[1] * len(dims)))
    ex.emit(layer, [source], {"op": "adaptive_avg_pool", "dims": len(dims), "output": [1] * len(dims)}, pooled)
    if tuple(result.shape) == tuple(pooled.shape):
        ex.alias(pooled, result)
    else:
        ex.emit(f"{layer}.reshape", [pooled], {"op": "reshape", "shape": list(result.shape[1:])}, result)


def upsample_nearest(ex, layer, args, kwargs, acts, result):
    ex.emit(layer, acts[:1], upsample_op(layer, acts[0], result, "nearest"), result)


def pool(kind):
    def handler(ex, layer, args, kwargs, acts, result):
        x = acts[0]
        kernel = arg(args, kwargs, 1, "kernel_size")
        stride = arg(args, kwargs, 2, "stride") or kernel
        padding = arg(args, kwargs, 3, "padding", 0)
        ex.emit(layer, [x], pool_op(kind, x.dim() - 2, kernel, stride, padding), result)

    return handler


def adaptive_avg_pool(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    ex.emit(layer, [x], {"op": "adaptive_avg_pool", "dims": x.dim() - 2, "output": list(result.shape[2:])}, result)


def interpolate(ex, layer, args, kwargs, acts, result):
    mode = arg(args, kwargs, 3, "mode", "nearest")
    try:
        ex.emit(layer, acts[:1], upsample_op(layer, acts[0], result, mode), result)
    except ExportError as e:
        ex.report(layer, str(e), "upsample (one integer factor)", acts, result)


def same(ex, layer, args, kwargs, acts, result):
    """dtype casts (the precision is the scenario's), clones, contiguous copies (a later
    reshape of a strided view copies as PyTorch's does)."""
    ex.alias(acts[0], result)


def roll(ex, layer, args, kwargs, acts, result):
    """torch.roll (Swin's shifted windows): a copy that keeps nothing for backward, read
    only by the window partition's reshape, which copies again: written as the same
    tensor (the FLOPs and kept bytes are those of the partition)."""
    ex.alias(acts[0], result)


def constant(ex, layer, args, kwargs, acts, result):
    """x.new_empty(...), torch.zeros_like(x), ...: a new tensor that is no activation."""


FUNCTION_HANDLERS = {
    **{name: views for name in ("reshape", "view", "unsafe_view", "flatten", "unflatten", "unsqueeze", "squeeze", "view_as")},
    "permute": permute,
    "transpose": transpose,
    "getitem": getitem,
    "narrow": narrow,
    "chunk": split,
    "split": split,
    **{name: activation(name) for name in ("relu", "leaky_relu", "gelu", "mish", "silu", "tanh", "sigmoid", "hardswish", "hardsigmoid")},
    "hardtanh": hardtanh,
    "relu6": hardtanh,
    "softmax": softmax,
    "dropout": dropout,
    "add": add,
    "sub": sub,
    "addcmul": addcmul,
    "pad": pad,
    "roll": roll,
    "mul": mul,
    "cat": cat,
    **{name: matmul for name in ("matmul", "bmm", "mm")},
    "einsum": einsum,
    "linear": linear,
    **{name: conv for name in ("conv1d", "conv2d", "conv3d")},
    "batch_norm": batch_norm,
    "layer_norm": layer_norm,
    "group_norm": group_norm,
    "mean": mean,
    **{name: upsample_nearest for name in ("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d")},
    **{f"{kind}_pool{d}d": pool(f"{kind}_pool") for kind in ("max", "avg") for d in (1, 2, 3)},
    **{f"adaptive_avg_pool{d}d": adaptive_avg_pool for d in (1, 2, 3)},
    "interpolate": interpolate,
    **{name: same for name in ("to", "float", "clone", "detach", "contiguous", "type_as")},
    **{name: constant for name in ("new_empty", "new_zeros", "new_ones", "new_full", "empty_like", "zeros_like", "ones_like", "rand_like", "randn_like")},
}
