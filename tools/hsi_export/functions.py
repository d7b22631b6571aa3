"""Function handlers: torch calls on activations (traced through non-leaf modules, and
the ATen ops of a torch.export graph) that become layers.

`FUNCTION_HANDLERS` maps a function's name (without leading/trailing underscores, so
in-place variants share it; ATen ops by their overload packet's name) to a handler
`(ex, layer, args, kwargs, acts, result)`. A name not in the table is reported with
`NEAREST_FUNCTIONS`' suggestion."""

import torch

from . import arithmetic, resampling
from .common import arg, as_list, dropout_op, is_batched_matmul, tensors_in

NEAREST_FUNCTIONS = {
    "einsum": "matmul with permutes",
    "repeat": "expand",
    "bilinear": "linear",
    "where": "mul",
    "masked_fill": "mul",
}
# Python operators and in-place forms under one name.
ALIASES = {
    "iadd": "add", "radd": "add", "isub": "sub", "imul": "mul", "rmul": "mul", "itruediv": "div", "truediv": "div",
    "idiv": "div", "ipow": "pow", "rmatmul": "matmul", "concat": "cat", "concatenate": "cat",
    "swapaxes": "transpose", "swapdims": "transpose", "broadcast_to": "expand",
}
# Functions torch's FLOP counter counts: where one reads only constants (a positional
# encoding computed from a fixed grid) it is written as a layer that runs once per step.
COUNTED_FUNCTIONS = {"conv1d", "conv2d", "conv3d", "linear", "matmul", "mm", "bmm", "einsum"}
# Functions that read a tensor whose batch dimension is not first (q, k and v taken from
# qkv.permute(2, 0, 3, 1, 4)); the others refuse it.
BATCH_MOVED_FUNCTIONS = {"permute", "transpose", "unbind", "getitem", "contiguous", "clone", "to", "float", "detach"}


def views(ex, layer, args, kwargs, acts, result):
    x = acts[0]
    if ex.is_batchless(x):
        shape = ex.constant_shape(result)
        if shape == ex.sample_shape(x):
            ex.alias(x, result)
        else:
            ex.emit(layer, [x], {"op": "reshape", "shape": shape}, result)
        return
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
    if ex.batch_dim(x) and len(index) == 1 and isinstance(index[0], int):
        take(ex, layer, x, 0, index[0] % x.shape[0], result)  # q = qkv[0]
    elif ex.batch_dim(x):
        ex.report(layer, f"indexing {index!r} of a tensor whose batch is not first", "x[i]", acts, result)
    elif isinstance(result, torch.Tensor) and tuple(result.shape) == tuple(x.shape):
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
        op = {"op": "act", "kind": kind}
        if kind == "leaky_relu" and result is args[0]:
            op["inplace"] = True  # F.leaky_relu(x, inplace=True): keeps its output
        ex.emit(layer, acts[:1], op, result)

    return handler


def hardtanh(ex, layer, args, kwargs, acts, result):
    """F.relu6 and F.hardtanh(x, 0, 6) (see modules.clamp_activation)."""
    bounds = (arg(args, kwargs, 1, "min_val", -1.0), arg(args, kwargs, 2, "max_val", 1.0))
    if "relu6" not in layer and bounds != (0, 6):
        ex.report(layer, f"hardtanh from {bounds[0]} to {bounds[1]}", "act relu6 (0 to 6)", acts, result)
    else:
        ex.emit(layer, acts[:1], {"op": "act", "kind": "relu6"}, result)


def softmax(kind):
    """softmax / log_softmax over one per-sample dimension (which one changes nothing the
    estimate counts)."""

    def handler(ex, layer, args, kwargs, acts, result):
        x = acts[0]
        dim = arg(args, kwargs, 1, "dim")
        if dim is None or (dim % x.dim() == 0 and not ex.is_batchless(x)):
            ex.report(layer, f"{kind} over dim {dim}", f"act {kind} over a per-sample dimension", acts, result)
        else:
            ex.emit(layer, [x], {"op": "act", "kind": kind}, result)

    return handler


def dropout(ex, layer, args, kwargs, acts, result):
    p = arg(args, kwargs, 1, "p", 0.5)
    training = arg(args, kwargs, 2, "training", True)
    if p > 0 and training:
        ex.emit(layer, acts[:1], dropout_op(p), result)
    else:
        ex.alias(acts[0], result)


def cat(ex, layer, args, kwargs, acts, result):
    items = list(arg(args, kwargs, 0, "tensors"))
    dim = arg(args, kwargs, 1, "dim", 0) % result.dim()
    if dim == 0:
        ex.report(layer, "concatenation along the batch", "none", acts, result)
        return
    origin = ex.origin(items[0])
    x = items[-1]
    if len(items) == 2 and origin and origin not in ex.used_params and x is acts[0] and x.dim() == 3 and dim == 1 \
            and items[0].shape[1] == 1:
        ex.emit(layer, [x], {"op": "class_token"}, result, [origin])
        return
    # Also a list of one tensor (DenseNet's first layer); tensors that are no activation
    # (learned tokens expanded over the batch) are constants.
    inputs = tensors_of(ex, layer, items, result)
    ex.emit(layer, inputs, {"op": "concat", "axis": ex.sample_dim(acts[0], dim)}, result)


def tensors_of(ex, layer, items, result):
    """A list's tensors as layer inputs, those that are no activation as constants (one
    per sample where expanded over the batch)."""
    for i, t in enumerate(items):
        if ex.source(t) is None:
            ex.constant(f"{layer}.item{i}", t, arithmetic.constant_shape(ex, t, result))
    return items


def stack(ex, layer, args, kwargs, acts, result):
    """torch.stack: each input with a new dimension (a view), then a concatenation."""
    items = list(arg(args, kwargs, 0, "tensors"))
    dim = arg(args, kwargs, 1, "dim", 0) % result.dim()
    if dim == 0 or any(ex.folded(t) for t in items):
        ex.report(layer, "stacking along the batch", "stack along a per-sample dimension", acts, result)
        return
    expanded = []
    for i, t in enumerate(tensors_of(ex, layer, items, result)):
        one = t.unsqueeze(dim)
        shape = ex.sample_shape(t)
        ex.emit(f"{layer}.unsqueeze{i}", [t], {"op": "reshape", "shape": shape[:dim - 1] + [1] + shape[dim - 1:]}, one)
        expanded.append(one)
    ex.emit(layer, expanded, {"op": "concat", "axis": dim - 1}, result)


def unbind(ex, layer, args, kwargs, acts, result):
    """x.unbind(dim), torch.unbind: a slice per index (views), each without the dimension."""
    x = acts[0]
    dim = arg(args, kwargs, 1, "dim", 0) % x.dim()
    if dim == ex.batch_dim(x) or ex.is_batchless(x):
        ex.report(layer, "unbinding the batch", "unbind a per-sample dimension", acts, result)
        return
    for i, piece in enumerate(result):
        take(ex, f"{layer}.{i}", x, dim, i, piece)


def take(ex, layer, x, dim, i, piece):
    """x.select(dim, i) as a slice (a view) and a reshape without the dimension; a batch
    after `dim` moves one place forward."""
    at = ex.batch_dim(x)
    cut = x.narrow(dim, i, 1)
    ex.batch_at.pop(id(cut), None)
    if at:
        ex.batch_at[id(cut)] = at
    if ex.folded(x):
        ex.fold[id(cut)] = ex.fold[id(piece)] = ex.fold[id(x)]
    ex.emit_slice(layer, x, dim, i, i + 1, cut)
    if at - (dim < at):
        ex.batch_at[id(piece)] = at - (dim < at)
    ex.emit(f"{layer}.squeeze", [cut], {"op": "reshape", "shape": ex.sample_shape(piece)}, piece)


def expand(ex, layer, args, kwargs, acts, result):
    """x.expand(...), expand_as, broadcast_to: a broadcast view; a constant expanded over
    the batch becomes one per sample."""
    x = acts[0]
    over_batch = ex.is_batchless(x) and result.dim() >= 1 and result.shape[0] == ex.batch and \
        (x.dim() < result.dim() or x.shape[0] == 1)
    if ex.is_batchless(x) and not over_batch:
        ex.report(layer, "a broadcast of a constant within itself", "expand over the batch", acts, result)
    elif tuple(result.shape) == tuple(x.shape):
        ex.alias(x, result)
    elif ex.folded(x) or (not ex.is_batchless(x) and result.shape[0] != x.shape[0]):
        ex.report(layer, "a broadcast over the batch", "expand of per-sample dimensions", acts, result)
    else:
        ex.emit(layer, [x], {"op": "expand", "shape": [int(d) for d in result.shape[1:]]}, result)


def repeat(ex, layer, args, kwargs, acts, result):
    """x.repeat(sizes): tiles, as a view with new dimensions of 1, a broadcast view over
    them and a copy (keeps nothing); a constant repeated over the batch is one copy per
    sample (XCiT's positional encoding)."""
    x = acts[0]
    sizes = [int(r) for r in (args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:])]
    shape = ex.sample_shape(x)
    over_batch = ex.is_batchless(x) and sizes[0] == ex.batch and result.shape[0] == ex.batch
    if len(sizes[1:]) != len(shape) or ex.folded(x) or ex.batch_dim(x) or not (over_batch or sizes[0] == 1) \
            or (ex.is_batchless(x) and not over_batch):
        ex.report(layer, f"repeat {sizes}", "repeat of per-sample dimensions (batch first)", acts, result)
        return
    ones, tiled = torch.empty(0), torch.empty(0)
    ex.emit(f"{layer}.view", [x], {"op": "reshape", "shape": [v for d in shape for v in (1, d)]}, ones)
    wide = [v for r, d in zip(sizes[1:], shape) for v in (r, d)]
    ex.emit(f"{layer}.expand", [ones], {"op": "expand", "shape": wide}, tiled)
    ex.emit(layer, [tiled], {"op": "reshape", "shape": [int(d) for d in result.shape[1:]]}, result)


def matmul(ex, layer, args, kwargs, acts, result):
    emit_matmul(ex, layer, args[0], args[1], acts, result)


def einsum(ex, layer, args, kwargs, acts, result):
    equation, operands = args[0], list(tensors_in(args[1:]))
    if len(operands) == 2 and is_batched_matmul(equation.replace(" ", "")):
        emit_matmul(ex, layer, operands[0], operands[1], acts, result)
    else:
        ex.report(layer, f"einsum {equation!r}", NEAREST_FUNCTIONS["einsum"], acts, result)


def emit_matmul(ex, layer, a, b, acts, result):
    origin = ex.origin(b)
    if len(acts) == 1 and ex.source(a) is not None and origin and origin not in ex.used_params \
            and b.shape[-2] == a.shape[-1] \
            and b.numel() == b.shape[-2] * b.shape[-1]:
        # x @ W with W a parameter [K, N] (or [1, K, N]): a bias-free Linear.
        ex.emit(layer, [a], {"op": "linear", "out_features": int(b.shape[-1]), "bias": False}, result, [origin])
        return
    if a.dim() < 2 or b.dim() < 2 or ex.folded(a) != ex.folded(b):
        ex.report(layer, "a matrix-vector product or one of windows with other tensors", "matmul", acts, result)
        return
    # A parameter or constant on either side is a constant; operands whose leading
    # dimensions broadcast are expanded first, as torch.matmul expands them (and copies
    # them where it folds them into one bmm).
    a, b = tensors_of(ex, layer, [a, b], result)
    operands = []
    for i, t in enumerate((a, b)):
        lead = tuple(result.shape[:-2])
        folds = ex.is_batchless(t) and t.dim() == 2  # x @ W or W @ x with W 2-D: torch folds x
        if not folds and tuple(t.shape[:-2]) != lead:
            wide = t.expand(*lead, *t.shape[-2:])
            ex.emit(f"{layer}.expand{i}", [t], {"op": "expand", "shape": [int(d) for d in wide.shape[1:]]}, wide)
            t = wide
        operands.append(t)
    ex.emit(layer, operands, {"op": "matmul"}, result)


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
    **{name: views for name in ("reshape", "view", "unsafe_view", "flatten", "unflatten", "unsqueeze", "squeeze", "view_as",
                                "reshape_as")},
    "permute": permute,
    "transpose": transpose,
    "getitem": getitem,
    "narrow": narrow,
    "chunk": split,
    "split": split,
    **{name: activation(name) for name in ("relu", "leaky_relu", "gelu", "mish", "silu", "tanh", "sigmoid", "hardswish", "hardsigmoid")},
    "hardtanh": hardtanh,
    "relu6": hardtanh,
    "softmax": softmax("softmax"),
    "log_softmax": softmax("log_softmax"),
    "dropout": dropout,
    "roll": roll,
    "cat": cat,
    "stack": stack,
    "unbind": unbind,
    **{name: expand for name in ("expand", "expand_as")},
    "repeat": repeat,
    **{name: matmul for name in ("matmul", "bmm", "mm")},
    "einsum": einsum,
    "linear": linear,
    **{name: conv for name in ("conv1d", "conv2d", "conv3d")},
    "batch_norm": batch_norm,
    "layer_norm": layer_norm,
    "group_norm": group_norm,
    **{name: same for name in ("to", "float", "half", "bfloat16", "clone", "detach", "contiguous", "type_as")},
    **{name: constant for name in ("new_empty", "new_zeros", "new_ones", "new_full", "empty_like", "zeros_like", "ones_like", "rand_like", "randn_like")},
    **arithmetic.HANDLERS,
    **resampling.HANDLERS,
}
