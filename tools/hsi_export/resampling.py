"""Function handlers for ops that move or reduce elements: padding, reductions (sum,
mean, max, norm, ...), pools, interpolation, unfold / fold and sliding windows, pixel
shuffles."""

import torch

from .common import ExportError, arg, as_list, interpolation_op, pool_op

PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(ex, layer, args, kwargs, acts, result):
    """F.pad in every mode; by nothing (torchvision's Swin pads to a window multiple) the
    same tensor."""
    x = acts[0]
    amounts = [int(p) for p in arg(args, kwargs, 1, "pad")]
    mode = arg(args, kwargs, 2, "mode", "constant")
    if tuple(result.shape) == tuple(x.shape) and not any(amounts):
        ex.alias(x, result)
    elif min(amounts) < 0 or mode not in PAD_MODES or len(amounts) > 2 * (x.dim() - 1) or ex.folded(x):
        ex.report(layer, f"padding by {amounts} ({mode})", "pad by positive amounts of the per-sample dimensions",
                  acts, result)
    else:
        op = {"op": "pad", "pad": amounts}
        if mode != "constant":
            op["mode"] = mode
        ex.emit(layer, [x], op, result)


def reduced_dims(ex, x, dims):
    """The per-sample axes of a reduction over torch dims `dims` (an int, a list or None),
    or None where it reduces the batch."""
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        return None
    dims = sorted({d % x.dim() for d in ([dims] if isinstance(dims, int) else dims)})
    if ex.is_batchless(x):
        lead = x.dim() - len(ex.sample_shape(x))
        return [d - lead for d in dims] if min(dims) >= lead else None
    if 0 in dims or ex.folded(x):
        return None
    return [d - 1 for d in dims]


def reduction(kind, dim_at=1, keepdim_at=2):
    """x.sum(dim), x.amax(dim), x.max(dim) (values and indices), x.norm(p, dim), ...: one
    `reduce` layer over the per-sample axes."""

    def handler(ex, layer, args, kwargs, acts, result):
        x = acts[0]
        axes = reduced_dims(ex, x, arg(args, kwargs, dim_at, "dim"))
        values = result[0] if isinstance(result, tuple) else result
        if axes is None or not isinstance(values, torch.Tensor):
            ex.report(layer, f"{kind} over the batch or every dimension", "reduce over per-sample dimensions",
                      acts, result)
            return
        op = {"op": "reduce", "kind": kind, "axes": axes}
        if arg(args, kwargs, keepdim_at, "keepdim", False):
            op["keepdim"] = True
        if isinstance(result, tuple):  # (values, indices): the indices are not followed
            ex.mark(result[1], ex.BROKEN)
            ex.unfollowed.append(f"{layer}: the indices of a max or min are not followed")
        ex.emit(layer, [x], op, values)

    return handler


def extreme(kind):
    """torch.max / min: over a dimension (values and indices), or of two tensors."""
    reduce_over = reduction(kind)

    def handler(ex, layer, args, kwargs, acts, result):
        other = arg(args, kwargs, 1, "dim")
        if isinstance(other, torch.Tensor):
            ex.report(layer, f"element-wise {kind} of two tensors", "mul (it keeps both)", acts, result)
        else:
            reduce_over(ex, layer, args, kwargs, acts, result)

    return handler


def mean(ex, layer, args, kwargs, acts, result):
    """x.mean(dims): over spatial dimensions a global average pool (permuted last when they
    are not, a view) then a reshape to the result; a `reduce` otherwise."""
    x = acts[0]
    axes = reduced_dims(ex, x, arg(args, kwargs, 1, "dim"))
    dims = [a + 1 for a in axes] if axes is not None else []
    kept = [d for d in range(1, x.dim()) if d not in dims]
    if axes is None or ex.is_batchless(x) or len(kept) != 1 or not 1 <= len(dims) <= 3:
        reduction("mean")(ex, layer, args, kwargs, acts, result)
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


def pool(kind):
    def handler(ex, layer, args, kwargs, acts, result):
        x = acts[0]
        kernel = arg(args, kwargs, 1, "kernel_size")
        stride = arg(args, kwargs, 2, "stride") or kernel
        padding = arg(args, kwargs, 3, "padding", 0)
        if isinstance(result, tuple):  # max_pool with return_indices
            ex.mark(result[1], ex.BROKEN)
            result = result[0]
        ex.emit(layer, [x], pool_op(kind, x.dim() - 2, kernel, stride, padding), result)

    return handler


def adaptive_pool(kind):
    def handler(ex, layer, args, kwargs, acts, result):
        x = acts[0]
        if isinstance(result, tuple):  # return_indices=True
            ex.mark(result[1], ex.BROKEN)
            result = result[0]
        ex.emit(layer, [x], {"op": kind, "dims": x.dim() - 2, "output": [int(d) for d in result.shape[2:]]}, result)

    return handler


def interpolate(ex, layer, args, kwargs, acts, result):
    """F.interpolate in every mode, to a size or by a factor."""
    try:
        op = interpolation_op(layer, acts[0], result, arg(args, kwargs, 3, "mode", "nearest"))
    except ExportError as e:
        ex.report(layer, str(e), "upsample or resize", acts, result)
        return
    ex.emit(layer, acts[:1], op, result)


def aten_upsample(mode):
    """aten.upsample_<mode><d>d in a torch.export graph: the mode from the op's name."""

    def handler(ex, layer, args, kwargs, acts, result):
        ex.emit(layer, acts[:1], interpolation_op(layer, acts[0], result, mode), result)

    return handler


def unfold(ex, layer, args, kwargs, acts, result):
    """F.unfold(x, kernel, dilation, padding, stride) (im2col), or Tensor.unfold(dim, size,
    step), which returns a view with one more dimension."""
    x = acts[0]
    if result.dim() == x.dim() + 1:
        dim = arg(args, kwargs, 1, "dimension") % x.dim()
        if dim == 0 or ex.folded(x):
            ex.report(layer, "sliding windows over the batch", "windows over a per-sample dimension", acts, result)
            return
        op = {"op": "windows", "axis": ex.sample_dim(x, dim), "size": int(arg(args, kwargs, 2, "size")),
              "step": int(arg(args, kwargs, 3, "step"))}
        ex.emit(layer, [x], op, result)
        return
    ex.emit(layer, [x], {"op": "unfold", **window_fields(args, kwargs, 1)}, result)


def fold(ex, layer, args, kwargs, acts, result):
    """F.fold(x, output_size, kernel, dilation, padding, stride) (col2im)."""
    op = {"op": "fold", "output": as_list(arg(args, kwargs, 1, "output_size"), 2), **window_fields(args, kwargs, 2)}
    ex.emit(layer, acts[:1], op, result)


def window_fields(args, kwargs, at):
    """kernel, dilation, padding and stride of F.unfold / F.fold, from argument `at` on."""
    names = ("kernel_size", "dilation", "padding", "stride")
    defaults = (None, 1, 0, 1)
    values = [as_list(arg(args, kwargs, at + i, n, d), 2) for i, (n, d) in enumerate(zip(names, defaults))]
    return dict(zip(("kernel", "dilation", "padding", "stride"), values))


def pixel_shuffle(ex, layer, args, kwargs, acts, result):
    """F.pixel_shuffle / pixel_unshuffle as the view, permute and copy they are."""
    x = acts[0]
    if x.dim() != 4 or ex.folded(x):
        ex.report(layer, "a pixel shuffle of other than [N, C, H, W]", "reshape, permute, reshape", acts, result)
        return
    (c, h, w), (oc, oh, ow) = x.shape[1:], result.shape[1:]
    if oh > h:  # shuffle: [C r r, H, W] -> [C, r, r, H, W] -> [C, H, r, W, r]
        r = oh // h
        steps = [[oc, r, r, h, w], [0, 3, 1, 4, 2]]
    else:  # unshuffle: [C, H, W] -> [C, H/r, r, W/r, r] -> [C, r, r, H/r, W/r]
        r = h // oh
        steps = [[c, oh, r, ow, r], [0, 2, 4, 1, 3]]
    viewed, permuted = torch.empty(0), torch.empty(0)
    ex.emit(f"{layer}.view", [x], {"op": "reshape", "shape": steps[0]}, viewed)
    ex.emit(f"{layer}.permute", [viewed], {"op": "permute", "order": steps[1]}, permuted)
    ex.emit(layer, [permuted], {"op": "reshape", "shape": [int(d) for d in result.shape[1:]]}, result)


HANDLERS = {
    "pad": pad,
    "constant_pad_nd": pad,
    **{kind: reduction(kind) for kind in ("sum", "amax", "amin", "prod", "var", "std", "logsumexp")},
    "max": extreme("max"),
    "min": extreme("min"),
    "norm": reduction("norm", dim_at=2, keepdim_at=3),
    "vector_norm": reduction("norm", dim_at=2, keepdim_at=3),
    "mean": mean,
    **{f"{kind}_pool{d}d": pool(f"{kind}_pool") for kind in ("max", "avg") for d in (1, 2, 3)},
    **{f"max_pool{d}d_with_indices": pool("max_pool") for d in (1, 2, 3)},
    **{f"adaptive_avg_pool{d}d": adaptive_pool("adaptive_avg_pool") for d in (1, 2, 3)},
    **{f"adaptive_max_pool{d}d{suffix}": adaptive_pool("adaptive_max_pool")
       for d in (1, 2, 3) for suffix in ("", "_with_indices")},
    "interpolate": interpolate,
    "upsample": interpolate,
    **{f"upsample_{mode}{d}d": aten_upsample(mode) for mode in ("nearest", "linear", "bilinear", "bicubic", "trilinear")
       for d in (1, 2, 3)},
    "unfold": unfold,
    "im2col": unfold,
    "fold": fold,
    "col2im": fold,
    "pixel_shuffle": pixel_shuffle,
    "pixel_unshuffle": pixel_shuffle,
}
