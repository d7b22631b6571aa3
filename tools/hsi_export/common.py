"""Shared pieces of the exporter: its error, tensor walking and the op JSON builders."""

import re

import torch

TRACE_BATCH = 2  # batch norm in train mode needs more than one value per channel


from .errors import ExportError  # noqa: F401  (raised by every part of the exporter)


def module_kind(module):
    return f"nn.{type(module).__name__}" if type(module).__module__.startswith("torch.nn") else type(module).__qualname__


def as_list(value, dims):
    """A module's int-or-tuple hyper-parameter as a list of `dims` ints."""
    if isinstance(value, int):
        return [value] * dims
    return [int(v) for v in value]


def tensors_in(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors_in(v)


def arg(args, kwargs, index, key, default=None):
    """A call's argument by position or keyword."""
    if len(args) > index:
        return args[index]
    return kwargs.get(key, default)


def dropout_op(p):
    return {"op": "dropout", "p": float(p)} if p > 0 else None


def pool_op(kind, dims, kernel, stride, padding):
    stride = stride if stride not in (None, []) else kernel
    return {
        "op": kind,
        "dims": dims,
        "kernel": as_list(kernel, dims),
        "stride": as_list(stride, dims),
        "padding": as_list(padding, dims),
    }


# Interpolation modes with an op (upsample's and resize's `mode`); none keeps anything.
INTERPOLATION_MODES = {"nearest": "nearest", "nearest-exact": "nearest", "linear": "linear", "bilinear": "linear",
                       "trilinear": "linear", "bicubic": "cubic"}


def interpolation_op(name, x, output, mode):
    """F.interpolate / nn.Upsample from x to output's size: `upsample` by one integer
    factor, `resize` to any other size, `area` as the adaptive average pool it runs."""
    dims = x.dim() - 2
    size = [int(d) for d in output.shape[2:]]
    if mode == "area":
        return {"op": "adaptive_avg_pool", "dims": dims, "output": size}
    if mode not in INTERPOLATION_MODES:
        raise ExportError(f"{name}: interpolation mode {mode!r}: one of {', '.join(INTERPOLATION_MODES)} or area")
    scales = {o // i for i, o in zip(x.shape[2:], size)}
    exact = all(o % i == 0 for i, o in zip(x.shape[2:], size))
    op = {"op": "upsample", "dims": dims, "scale": scales.pop()} if len(scales) == 1 and exact else \
        {"op": "resize", "dims": dims, "size": size}
    if INTERPOLATION_MODES[mode] != "nearest":
        op["mode"] = INTERPOLATION_MODES[mode]
    return op


def view_op(x, output):
    """Flatten when everything but the batch is folded into one dimension, else reshape."""
    shape = [int(d) for d in output.shape[1:]]
    if len(shape) == 1 and x.dim() > 2:
        return {"op": "flatten"}
    return {"op": "reshape", "shape": shape}


def operands_numel(operands, x):
    """Per-sample size of the non-activation operand of x + p (p broadcast over the batch)."""
    other = [t for t in operands if t is not x]
    return other[0].numel() if other and other[0].shape[0] == 1 else -1


def is_batched_matmul(equation):
    """True for einsum equations of the form '...ij,...jk->...ik' (same batch letters)."""
    m = re.fullmatch(r"([a-z]*)([a-z])([a-z]),([a-z]*)([a-z])([a-z])->([a-z]*)([a-z])([a-z])", equation)
    if not m:
        return False
    b1, i, j, b2, j2, k, b3, i2, k2 = m.groups()
    return b1 == b2 == b3 and j == j2 and i == i2 and k == k2 and len({i, j, k}) == 3
