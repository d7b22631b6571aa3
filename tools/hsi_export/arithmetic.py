"""Function handlers for arithmetic: sums, products and quotients of activations with
each other, with parameters and with constants (which broadcast), and element-wise
functions (`pointwise`: what each keeps for backward, and whether CUDA autocast runs it
in fp32, as derivatives.yaml and the autocast op lists say; checked against PyTorch by
tools/export_coverage.py)."""

import torch

from .common import arg, operands_numel

# CUDA autocast's fp32 list: "CUDA Ops that can autocast to float32" in PyTorch's
# "Automatic Mixed Precision package" documentation (torch.amp).
NOTHING = {"op": "pointwise"}
KEEPS_INPUT = {"op": "pointwise", "keeps": "input"}
KEEPS_OUTPUT = {"op": "pointwise", "keeps": "output"}
FP32_KEEPS_INPUT = {**KEEPS_INPUT, "fp32": True}
FP32_KEEPS_OUTPUT = {**KEEPS_OUTPUT, "fp32": True}

# Element-wise functions of one activation: name -> op.
POINTWISE = {
    **{name: NOTHING for name in ("neg", "negative", "positive", "floor", "ceil", "round", "trunc", "sign",
                                  "nan_to_num")},
    **{name: KEEPS_INPUT for name in ("abs", "clamp", "clip", "clamp_min", "clamp_max", "sin", "cos", "erf",
                                      "elu", "selu", "celu", "logsigmoid", "hardshrink", "softshrink", "square")},
    **{name: KEEPS_OUTPUT for name in ("sqrt",)},
    **{name: FP32_KEEPS_INPUT for name in ("log", "log2", "log10", "log1p", "softplus", "pow")},
    **{name: FP32_KEEPS_OUTPUT for name in ("exp", "expm1", "rsqrt", "reciprocal", "rpow", "rtruediv", "rdiv")},
}


def operands(ex, layer, items, result):
    """A binary op's operands as layer inputs: activations as they are, other tensors
    (buffers, parameters, what forward makes of them) as `constant` layers; numbers and
    one-element tensors that are no parameter drop out (a pointwise op)."""
    inputs = []
    for i, t in enumerate(items):
        if not isinstance(t, torch.Tensor):
            continue
        if ex.source(t) is None:
            if t.numel() == 1 and not ex.params_of(t):
                continue
            ex.constant(f"{layer}.operand{i}" if i else f"{layer}.operand", t, constant_shape(ex, t, result))
        inputs.append(t)
    return inputs


def constant_shape(ex, t, result):
    """A constant operand's per-sample shape: as it broadcasts, or without the batch when
    it has been expanded over it (dimension 0 the result's)."""
    if t.dim() == result.dim() and t.shape[0] == result.shape[0] > 1:
        return [int(d) for d in t.shape[1:]]
    return None


# Run in place, these keep their output (the input they overwrote) instead of their input;
# the other functions of KEEPS_INPUT keep a copy of their input in place too.
KEEPS_OUTPUT_IN_PLACE = ("elu", "selu", "celu")


def pointwise(op, name=None):
    def handler(ex, layer, args, kwargs, acts, result):
        in_place = result is args[0] and name in KEEPS_OUTPUT_IN_PLACE
        ex.emit(layer, acts[:1], KEEPS_OUTPUT if in_place else op, result)

    return handler


def add(ex, layer, args, kwargs, acts, result):
    """x + y (residual adds), x + bias (a parameter or constant that broadcasts), x + c, and
    x - y through `sub`: none keeps anything."""
    items = [args[0], arg(args, kwargs, 1, "other")]
    params = [ex.origin(t) for t in items if isinstance(t, torch.Tensor) and ex.source(t) is None]
    x = acts[0]
    if len(acts) == 1 and len(params) == 1 and params[0] and params[0] not in ex.used_params \
            and operands_numel(items, x) == x[0].numel():
        ex.emit(layer, [x], {"op": "position_embedding"}, result, [params[0]])
        return
    inputs = operands(ex, layer, items, result)
    ex.emit(layer, inputs, {"op": "add"} if len(inputs) > 1 else NOTHING, result)


def mul(ex, layer, args, kwargs, acts, result):
    items = [args[0], arg(args, kwargs, 1, "other")]
    x = acts[0]
    other = next((t for t in items if t is not x), None)
    if len(acts) == 1 and isinstance(other, torch.Tensor) and tuple(result.shape) == tuple(x.shape):
        origin = ex.origin(other)
        shape = param_shape(other, x)
        if origin and origin not in ex.used_params and shape is not None:
            # Layer scale (ConvNeXt, CaiT, timm LayerScale): x times a learned vector.
            ex.emit(layer, [x], {"op": "scale", "shape": shape}, result, [origin])
            return
        if not ex.params_of(other) and other.dim() == x.dim() and other.shape[0] == x.shape[0] > 1 \
                and other[0].numel() == 1:
            # Stochastic depth: each sample's branch times 0 or 1/keep (a per-sample mask).
            ex.emit(layer, [x], {"op": "drop_path"}, result)
            return
    inputs = operands(ex, layer, items, result)
    if len(inputs) == 2 and tuple(inputs[0].shape) != tuple(result.shape):
        inputs.reverse()  # the larger first, as a gate multiplies its input
    ex.emit(layer, inputs, {"op": "mul"} if len(inputs) > 1 else NOTHING, result)


def div(ex, layer, args, kwargs, acts, result):
    """a / b of activations and constants; x / c keeps nothing."""
    inputs = operands(ex, layer, [args[0], arg(args, kwargs, 1, "other")], result)
    ex.emit(layer, inputs, {"op": "div"} if len(inputs) > 1 else NOTHING, result)


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


def power(ex, layer, args, kwargs, acts, result):
    """x ** c keeps x (an fp32 copy under autocast); c ** x keeps its output."""
    base, exponent = args[0], arg(args, kwargs, 1, "exponent")
    if len(acts) != 1 or (isinstance(base, torch.Tensor) and isinstance(exponent, torch.Tensor)
                          and exponent.numel() > 1):
        ex.report(layer, "a power of two tensors", "pointwise", acts, result)
    else:
        ex.emit(layer, acts, FP32_KEEPS_INPUT if base is acts[0] else FP32_KEEPS_OUTPUT, result)


def normalize(ex, layer, args, kwargs, acts, result):
    """F.normalize(x, p, dim): x / max(norm(x), eps), as the ops it runs: the norm (kept
    with x), its clamp, a broadcast view and the division."""
    x = acts[0]
    dim = arg(args, kwargs, 2, "dim", 1) % x.dim()
    if dim == ex.batch_dim(x) or ex.is_batchless(x):
        ex.report(layer, f"normalize over dim {dim}", "reduce norm, then div", acts, result)
        return
    reduced = x.norm(dim=dim, keepdim=True)
    clamped = reduced.clone()
    ex.emit(f"{layer}.norm", [x], {"op": "reduce", "kind": "norm", "axes": [ex.sample_dim(x, dim)], "keepdim": True},
            reduced)
    ex.emit(f"{layer}.clamp", [reduced], KEEPS_INPUT, clamped)
    expanded = clamped.expand_as(x)
    ex.emit(f"{layer}.expand", [clamped], {"op": "expand", "shape": ex.sample_shape(x)}, expanded)
    ex.emit(layer, [x, expanded], {"op": "div"}, result)


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


HANDLERS = {
    **{name: pointwise(op, name) for name, op in POINTWISE.items() if name != "pow"},
    "add": add,
    "sub": add,
    "rsub": add,
    "mul": mul,
    "div": div,
    "true_divide": div,
    "addcmul": addcmul,
    "pow": power,
    "normalize": normalize,
}
