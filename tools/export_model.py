#!/usr/bin/env python3
"""Exports a PyTorch model to the planner's custom layer list (the ModelSpec JSON of
core/src/graph.rs), so `hsi-gpu estimate` and the web app can size your own model.

    # your model: an importable class (or function) and its constructor arguments
    python3 tools/export_model.py --module mypkg.models:MyNet --args '[200, 16]' \\
        --kwargs '{"width": 32}' --input 1,200,9,9 --output mynet.json
    # a whole model saved with torch.save(model) (not a state_dict, not TorchScript)
    python3 tools/export_model.py --pickle mynet.pt --input 1,200,9,9 --output mynet.json
    # a torch.export.save file; the input shape comes from its example input
    python3 tools/export_model.py --exported mynet.pt2 --output mynet.json
    # a zoo model's PyTorch version (tools/torch_zoo/)
    python3 tools/export_model.py --zoo hybridsn --bands 30 --patch 25 --classes 16
    # wrap the layer list in a Scenario ready for `hsi-gpu estimate`
    python3 tools/export_model.py ... --scenario scenario.json --bands 200 --patch 9 --classes 16
    # regenerate core/tests/fixtures/exported/ and run the self-check
    python3 tools/export_model.py --fixtures
    python3 tools/export_model.py --self-test

`--input` is the per-sample input shape (no batch dimension), channels first as the
model's forward takes it. `--path DIR` (repeatable) puts DIR on sys.path first.

How it works: one forward pass (train mode, batch 2, random input, no gradients) runs
under module hooks and a TorchFunctionMode that see every module call and every torch
function called on a tensor derived from the input. Known modules (nn.Conv1d/2d/3d,
Linear, BatchNorm, LayerNorm, GroupNorm, activations, Dropout, pools, Upsample, Flatten,
and self-attention modules written vit-pytorch style (`to_qkv`, `to_out`, `heads`) or
timm style (`qkv`, `proj`, `num_heads`)) become one layer each; anything else is traced
through, and its torch calls (add, mul, cat, matmul/bmm/einsum, reshape/view/flatten/
permute/transpose/(un)squeeze, [:, i] token selection, functional activations, pools,
interpolate) become layers. A parameter concatenated in front of the tokens becomes
`class_token`, one added to the tokens `position_embedding`, a matrix product with a
parameter a bias-free `linear`. Every layer names the layers it reads (`from`), so
residual adds and concatenations survive. Layers that do not reach the output are left
out.

Unsupported layers are never dropped silently: each is listed by name with the nearest
supported equivalent, and the export fails (exit 3) unless `--allow-unsupported`, which
writes the nearest equivalent where one keeps the shape (an activation, a norm) or
passes the input through where the layer keeps the shape, and fails where neither is
possible. Parameters that no layer represents are listed too. The info on stderr (and
`--info FILE` as JSON) gives torch's trainable parameter count to compare with the
estimate's.

A torch.export file (`torch.export.save`, .pt2) is read the same way: its graph calls
ATen ops (aten.conv2d, aten.batch_norm, aten.linear, aten.mean, ...), which map to
layers like the functional calls above (functional conv, norms and spatial means are
read in Python models too). Layers are then named after the ops, as the graph keeps no
module names. Its attention blocks are decomposed (qkv.chunk, ...) into ops this
exporter cannot regroup into its attention op: export transformers from the Python
class. The example input the program was exported with sets the input shape and batch.

Not handled: TorchScript (its forward runs outside Python: export from the Python class
or save with torch.export), recurrent layers, data-dependent control flow beyond the one
traced path.
"""

import argparse
import importlib
import json
import os
import re
import sys

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

TOOLS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TOOLS)
FIXTURES = os.path.join(REPO, "core", "tests", "fixtures", "exported")
TRACE_BATCH = 2  # batch norm in train mode needs more than one value per channel

ACTIVATION_MODULES = {
    nn.ReLU: "relu",
    nn.LeakyReLU: "leaky_relu",
    nn.GELU: "gelu",
    nn.Mish: "mish",
    nn.SiLU: "silu",
    nn.Tanh: "tanh",
    nn.Sigmoid: "sigmoid",
}
# Functional activations with the same name as the op's kind (in-place `_` variants
# included: function names are compared without leading and trailing underscores).
ACTIVATION_FUNCTIONS = {"relu", "leaky_relu", "gelu", "mish", "silu", "tanh", "sigmoid"}
# Modules the planner has no op for, with the nearest op: (text, op JSON that keeps the
# shape or None).
NEAREST_MODULES = {
    nn.PReLU: ("act leaky_relu (PReLU's slope is learned)", {"op": "act", "kind": "leaky_relu"}),
    nn.ELU: ("act leaky_relu", {"op": "act", "kind": "leaky_relu"}),
    nn.SELU: ("act leaky_relu", {"op": "act", "kind": "leaky_relu"}),
    nn.CELU: ("act leaky_relu", {"op": "act", "kind": "leaky_relu"}),
    nn.Softplus: ("act silu", {"op": "act", "kind": "silu"}),
    nn.Hardswish: ("act silu", {"op": "act", "kind": "silu"}),
    nn.Hardsigmoid: ("act sigmoid", {"op": "act", "kind": "sigmoid"}),
    nn.ReLU6: ("act relu", {"op": "act", "kind": "relu"}),
    nn.Hardtanh: ("act relu", {"op": "act", "kind": "relu"}),
    nn.InstanceNorm1d: ("group_norm with groups = channels", "group_norm"),
    nn.InstanceNorm2d: ("group_norm with groups = channels", "group_norm"),
    nn.InstanceNorm3d: ("group_norm with groups = channels", "group_norm"),
    nn.LSTM: ("linear layers (an LSTM step is 4 gate Linears over input and state)", None),
    nn.GRU: ("linear layers (a GRU step is 3 gate Linears over input and state)", None),
    nn.RNN: ("linear layers (one Linear over input and state per step)", None),
    nn.Embedding: ("linear (out_features = embedding_dim)", None),
    nn.ConvTranspose1d: ("upsample + conv", None),
    nn.ConvTranspose2d: ("upsample + conv", None),
    nn.ConvTranspose3d: ("upsample + conv", None),
    nn.MultiheadAttention: ("attention (write the block as self-attention on [T, D] tokens)", None),
}
NEAREST_FUNCTIONS = {
    "elu": "act leaky_relu",
    "selu": "act leaky_relu",
    "softplus": "act silu",
    "hardswish": "act silu",
    "log_softmax": "act softmax",
    "mean": "adaptive_avg_pool (global average) or avg_pool",
    "sum": "adaptive_avg_pool",
    "max": "max_pool",
    "chunk": "separate linear layers, one per chunk",
    "split": "separate linear layers, one per piece",
    "expand": "reshape",
    "repeat": "concat",
    "sub": "add",
    "div": "mul",
    "bilinear": "upsample (nearest)",
}


class ExportError(Exception):
    pass


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


def attention_parts(module):
    """(qkv Linear, output Linear, heads) if `module` is a self-attention block written
    vit-pytorch style (to_qkv, to_out, heads) or timm style (qkv, proj, num_heads)."""
    for qkv_name, out_name, heads_name in (("to_qkv", "to_out", "heads"), ("qkv", "proj", "num_heads")):
        qkv = getattr(module, qkv_name, None)
        out = getattr(module, out_name, None)
        heads = getattr(module, heads_name, None)
        if isinstance(out, nn.Sequential):
            out = next((m for m in out if isinstance(m, nn.Linear)), None)
        if isinstance(qkv, nn.Linear) and isinstance(out, nn.Linear) and isinstance(heads, int):
            return qkv, out, heads
    return None


class Exporter:
    """Records one forward pass of `model` as a ModelSpec layer list."""

    def __init__(self, model, input_shape, name, batch=TRACE_BATCH):
        self.model = model
        self.input_shape = list(input_shape)
        self.name = name
        self.batch = batch
        self.layers = []
        self.producer = {}  # id(tensor) -> layer name ("input", or BROKEN after an unsupported layer)
        self.param_origin = {}  # id(tensor) -> parameter name, for tensors made from one parameter
        self.param_names = {id(p): n for n, p in model.named_parameters()}
        self.used_params = set()
        self.unsupported = []
        self.keep = []  # every tensor seen stays alive so no id() is reused
        self.module_names = {m: n for n, m in model.named_modules()}
        self.scope = []  # names of the non-leaf modules being run
        self.leaf_depth = 0
        self.leaf_calls = []  # submodules called inside the current leaf, in order
        self.busy = False  # True while the exporter itself runs torch code
        self.recorded = set()  # leaf modules already written as a layer
        self.warnings = []

    BROKEN = "<unsupported>"

    # --- bookkeeping -------------------------------------------------------------------

    def unique_name(self, base):
        base = base or "layer"
        taken = {layer["name"] for layer in self.layers}
        if base not in taken:
            return base
        i = 1
        while f"{base}_{i}" in taken:
            i += 1
        return f"{base}_{i}"

    def scoped(self, base):
        return ".".join(self.scope + [base]) if self.scope else base

    def source(self, tensor):
        return self.producer.get(id(tensor))

    def emit(self, name, inputs, op, output, params=()):
        """Adds a layer reading `inputs` (tensors) and producing `output`."""
        sources = [self.source(t) for t in inputs]
        if self.BROKEN in sources:
            self.mark(output, self.BROKEN)
            return
        layer_name = self.unique_name(name)
        self.layers.append({"name": layer_name, "from": sources, **op})
        self.used_params.update(params)
        self.mark(output, layer_name)

    def alias(self, source_tensor, output):
        """`output` is the same activation as `source_tensor` (identity, no-op view)."""
        self.mark(output, self.source(source_tensor))

    def mark(self, output, layer_name):
        for t in tensors_in(output):
            self.keep.append(t)
            self.producer[id(t)] = layer_name

    def report(self, name, what, nearest, inputs, output, substitute=None, params=()):
        """Records an unsupported layer; keeps the graph going where the shape allows."""
        sources = [self.source(t) for t in inputs]
        if self.BROKEN in sources:
            self.mark(output, self.BROKEN)
            return
        layer_name = self.unique_name(name)
        entry = {"layer": layer_name, "what": what, "nearest": nearest}
        same_shape = (
            isinstance(output, torch.Tensor) and inputs and tuple(inputs[0].shape) == tuple(output.shape)
        )
        if substitute is not None and same_shape:
            entry["substitute"] = substitute
            self.layers.append({"name": layer_name, "from": sources[:1], **substitute})
            if substitute.get("op") == "group_norm":  # same affine parameters as the norm
                self.used_params.update(params)
            self.mark(output, layer_name)
        elif same_shape:
            entry["substitute"] = "pass-through"
            self.alias(inputs[0], output)
        else:
            entry["substitute"] = None
            self.mark(output, self.BROKEN)
        self.unsupported.append(entry)

    # --- module hooks ------------------------------------------------------------------

    def is_leaf(self, module):
        return (
            isinstance(module, LEAF_TYPES)
            or type(module) in NEAREST_MODULES
            or (attention_parts(module) is not None)
        )

    def pre_hook(self, module, args):
        if self.busy:
            return
        if self.leaf_depth:
            self.leaf_calls.append(module)
            if self.is_leaf(module):
                self.leaf_depth += 1
        elif self.is_leaf(module):
            self.leaf_depth = 1
            self.leaf_calls = []
        elif module is not self.model:
            self.scope.append(self.module_names[module].rsplit(".", 1)[-1])

    def post_hook(self, module, args, output):
        if self.busy:
            return
        if self.is_leaf(module):
            self.leaf_depth -= 1
            if self.leaf_depth == 0:
                self.busy = True
                try:
                    self.record_module(module, list(tensors_in(args)), output)
                finally:
                    self.busy = False
        elif not self.leaf_depth and module is not self.model:
            self.scope.pop()

    def record_module(self, module, inputs, output):
        name = self.module_names[module]
        params = {f"{name}.{n}" if name else n for n, _ in module.named_parameters()}
        acts = [t for t in inputs if self.source(t) is not None]
        if not acts:
            raise ExportError(f"module {name} ({module_kind(module)}) reads no activation of the model input")
        x = acts[0]
        if module in self.recorded and params:
            self.warnings.append(f"{name} runs more than once: the layer list counts its parameters each time")
        self.recorded.add(module)
        if type(module) in NEAREST_MODULES:
            text, substitute = NEAREST_MODULES[type(module)]
            if substitute == "group_norm":
                substitute = {"op": "group_norm", "groups": int(x.shape[1])}
            self.report(name, module_kind(module), text, acts, output, substitute, params)
            return
        op, extra = self.module_op(module, name, x, output)
        if op is None:
            self.alias(x, output)
            return
        if extra is None:
            self.emit(name, [x], op, output, params)
            return
        # Attention followed by its own output dropout: two layers.
        attn_out = torch.empty(0)
        self.emit(name, [x], op, attn_out, params)
        self.emit(f"{name}.dropout", [attn_out], extra, output)

    def module_op(self, m, name, x, output):
        """(op, trailing op or None); op None = the module is an identity here."""
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            dims = len(m.kernel_size)
            if m.padding_mode != "zeros":
                self.unsupported.append(
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
            }, None
        if isinstance(m, nn.Linear):
            return {"op": "linear", "out_features": m.out_features, "bias": m.bias is not None}, None
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            return {"op": "batch_norm"}, None
        if isinstance(m, nn.LayerNorm):
            if len(m.normalized_shape) != 1:
                raise ExportError(f"{name}: LayerNorm over {tuple(m.normalized_shape)}: only the last dimension is supported")
            return {"op": "layer_norm"}, None
        if isinstance(m, nn.GroupNorm):
            return {"op": "group_norm", "groups": m.num_groups}, None
        if type(m) in ACTIVATION_MODULES:
            return {"op": "act", "kind": ACTIVATION_MODULES[type(m)]}, None
        if isinstance(m, nn.Softmax):
            if m.dim not in (-1, x.dim() - 1):
                raise ExportError(f"{name}: Softmax over dim {m.dim}: only the last dimension is supported (permute first)")
            return {"op": "act", "kind": "softmax"}, None
        if isinstance(m, nn.modules.dropout._DropoutNd):
            return (dropout_op(m.p) if m.training else None), None
        if isinstance(m, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)):
            dims = x.dim() - 2
            if getattr(m, "ceil_mode", False) or as_list(getattr(m, "dilation", 1), dims) != [1] * dims:
                raise ExportError(f"{name}: {module_kind(m)} with ceil_mode or dilation is not supported")
            kind = "max_pool" if "Max" in type(m).__name__ else "avg_pool"
            return pool_op(kind, dims, m.kernel_size, m.stride, m.padding), None
        if isinstance(m, (nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d)):
            dims = x.dim() - 2
            return {"op": "adaptive_avg_pool", "dims": dims, "output": list(output.shape[2:])}, None
        if isinstance(m, nn.Upsample):
            return upsample_op(name, x, output, m.mode), None
        if isinstance(m, nn.Flatten):
            return view_op(x, output), None
        if isinstance(m, nn.Identity):
            return None, None
        parts = attention_parts(m)
        if parts is not None:
            return self.attention_op(m, name, x, output, parts)
        raise ExportError(f"{name}: {module_kind(m)} has no mapping")  # LEAF_TYPES and this list disagree

    def attention_op(self, m, name, x, output, parts):
        qkv, out, heads = parts
        if x.dim() != 3 or tuple(output.shape) != tuple(x.shape):
            raise ExportError(f"{name}: attention must map tokens [T, D] to [T, D], got {tuple(x.shape[1:])}")
        head_dim = qkv.out_features // 3 // heads
        op = {"op": "attention", "heads": heads, "qkv_bias": qkv.bias is not None}
        if head_dim * heads != x.shape[-1]:
            op["head_dim"] = head_dim
        # Dropouts after the output projection are the block's output dropout; one on the
        # attention probabilities has no op and is reported.
        calls = self.leaf_calls
        last_out = max((i for i, c in enumerate(calls) if c is out), default=len(calls))
        trailing = None
        for i, c in enumerate(calls):
            if isinstance(c, nn.modules.dropout._DropoutNd) and c.p > 0 and m.training:
                if i > last_out:
                    trailing = dropout_op(c.p)
                else:
                    self.unsupported.append(
                        {"layer": f"{name}.{self.module_names[c].rsplit('.', 1)[-1]}",
                         "what": "dropout on the attention probabilities",
                         "nearest": "none (its 1-byte mask per score is not counted)",
                         "substitute": "pass-through"}
                    )
        return op, trailing

    # --- torch functions ---------------------------------------------------------------

    def on_function(self, func, args, kwargs, result):
        flat = list(tensors_in(args)) + list(tensors_in(kwargs))
        acts = [t for t in flat if self.source(t) is not None]
        if not acts:
            origins = [self.param_origin.get(id(t)) or self.param_names.get(id(t)) for t in flat]
            origins = [o for o in origins if o]
            if len(origins) == 1 and isinstance(result, torch.Tensor):
                self.keep.append(result)
                self.param_origin[id(result)] = origins[0]
            return
        if not any(True for _ in tensors_in(result)):
            return  # sizes, dims, dtypes
        # ATen ops (a torch.export graph) by their op name: aten.conv2d.default -> conv2d.
        packet = getattr(func, "overloadpacket", None)
        name = getattr(packet or func, "__name__", str(func)).lstrip("_").rstrip("_") or "op"
        name = {"add": "add", "iadd": "add", "radd": "add", "mul": "mul", "imul": "mul", "rmul": "mul", "matmul": "matmul", "rmatmul": "matmul"}.get(name, name)
        handler = getattr(self, f"fn_{name}", None)
        layer = self.scoped(name)
        if handler is None:
            nearest = NEAREST_FUNCTIONS.get(name, "none")
            self.report(layer, f"torch function {name}", nearest, acts, result)
            return
        handler(layer, args, kwargs, acts, result)

    def arg(self, args, kwargs, index, key, default=None):
        if len(args) > index:
            return args[index]
        return kwargs.get(key, default)

    def fn_views(self, layer, args, kwargs, acts, result):
        x = acts[0]
        if result.shape[0] != x.shape[0]:
            self.report(layer, "a view that folds the batch dimension", "reshape keeping the batch first", acts, result)
        elif tuple(result.shape) == tuple(x.shape):
            self.alias(x, result)
        else:
            self.emit(layer, [x], view_op(x, result), result)

    fn_reshape = fn_view = fn_unsafe_view = fn_flatten = fn_unsqueeze = fn_squeeze = fn_views
    fn_contiguous = fn_view_as = fn_views

    def fn_permute(self, layer, args, kwargs, acts, result):
        x = acts[0]
        dims = args[1:] if len(args) > 1 else kwargs.get("dims")
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = dims[0]
        self.emit_permute(layer, x, [d % x.dim() for d in dims], result)

    def fn_transpose(self, layer, args, kwargs, acts, result):
        x = acts[0]
        a, b = (self.arg(args, kwargs, 1, "dim0") % x.dim(), self.arg(args, kwargs, 2, "dim1") % x.dim())
        order = list(range(x.dim()))
        order[a], order[b] = order[b], order[a]
        self.emit_permute(layer, x, order, result)

    def emit_permute(self, layer, x, order, result):
        if order[0] != 0:
            self.report(layer, "a permute that moves the batch dimension", "permute keeping the batch first", [x], result)
        elif order == sorted(order):
            self.alias(x, result)
        else:
            self.emit(layer, [x], {"op": "permute", "order": [d - 1 for d in order[1:]]}, result)

    def fn_getitem(self, layer, args, kwargs, acts, result):
        x, index = args[0], args[1]
        if (
            x.dim() == 3
            and isinstance(index, tuple)
            and len(index) == 2
            and index[0] == slice(None)
            and isinstance(index[1], int)
        ):
            self.emit(layer, [x], {"op": "take_token", "index": index[1] % x.shape[1]}, result)
        else:
            self.report(layer, f"indexing {index!r}", "take_token (x[:, i] on tokens) or reshape", acts, result)

    def fn_activation(self, layer, args, kwargs, acts, result, kind):
        self.emit(layer, acts[:1], {"op": "act", "kind": kind}, result)

    def fn_softmax(self, layer, args, kwargs, acts, result):
        x = acts[0]
        dim = self.arg(args, kwargs, 1, "dim")
        if dim is None or dim % x.dim() != x.dim() - 1:
            self.report(layer, f"softmax over dim {dim}", "permute so the dimension is last, then act softmax", acts, result)
        else:
            self.emit(layer, [x], {"op": "act", "kind": "softmax"}, result)

    def fn_dropout(self, layer, args, kwargs, acts, result):
        p = self.arg(args, kwargs, 1, "p", 0.5)
        training = self.arg(args, kwargs, 2, "training", True)
        if p > 0 and training:
            self.emit(layer, acts[:1], dropout_op(p), result)
        else:
            self.alias(acts[0], result)

    def fn_add(self, layer, args, kwargs, acts, result):
        operands = [a for a in args[:2] if isinstance(a, torch.Tensor)]
        if len(acts) >= 2 and all(tuple(a.shape) == tuple(result.shape) for a in acts):
            self.emit(layer, acts, {"op": "add"}, result)
            return
        params = [self.param_origin.get(id(t)) or self.param_names.get(id(t)) for t in operands if self.source(t) is None]
        x = acts[0]
        if len(params) == 1 and params[0] and operands_numel(operands, x) == x[0].numel():
            self.emit(layer, [x], {"op": "position_embedding"}, result, [params[0]])
        else:
            self.report(layer, "add of a constant or a broadcast tensor", "none (an element-wise pass)", acts, result)

    def fn_mul(self, layer, args, kwargs, acts, result):
        if len(acts) == 2:
            a, b = acts
            if tuple(a.shape) != tuple(result.shape):
                a, b = b, a  # the second input is the one that broadcasts
            self.emit(layer, [a, b], {"op": "mul"}, result)
        else:
            self.report(layer, "multiplication by a constant or a parameter", "none (an element-wise pass)", acts, result)

    def fn_cat(self, layer, args, kwargs, acts, result):
        items = list(self.arg(args, kwargs, 0, "tensors"))
        dim = self.arg(args, kwargs, 1, "dim", 0) % result.dim()
        if dim == 0:
            self.report(layer, "concatenation along the batch", "none", acts, result)
            return
        if len(acts) == len(items):
            self.emit(layer, acts, {"op": "concat", "axis": dim - 1}, result)
            return
        origin = self.param_origin.get(id(items[0])) or self.param_names.get(id(items[0]))
        x = items[-1]
        if len(items) == 2 and origin and x is acts[0] and x.dim() == 3 and dim == 1 and items[0].shape[1] == 1:
            self.emit(layer, [x], {"op": "class_token"}, result, [origin])
        else:
            self.report(layer, "concatenation with a constant or parameter", "class_token (a parameter token in front)", acts, result)

    fn_concat = fn_cat

    def fn_matmul(self, layer, args, kwargs, acts, result):
        a, b = args[0], args[1]
        self.emit_matmul(layer, a, b, acts, result)

    fn_bmm = fn_mm = fn_matmul

    def fn_einsum(self, layer, args, kwargs, acts, result):
        equation, operands = args[0], list(tensors_in(args[1:]))
        if len(operands) == 2 and is_batched_matmul(equation.replace(" ", "")):
            self.emit_matmul(layer, operands[0], operands[1], acts, result)
        else:
            self.report(layer, f"einsum {equation!r}", "matmul with permutes", acts, result)

    def emit_matmul(self, layer, a, b, acts, result):
        if len(acts) == 2:
            self.emit(layer, [a, b], {"op": "matmul"}, result)
            return
        origin = self.param_origin.get(id(b)) or self.param_names.get(id(b))
        if self.source(a) is not None and origin and b.shape[-2] == a.shape[-1] and b.numel() == b.shape[-2] * b.shape[-1]:
            # x @ W with W a parameter [K, N] (or [1, K, N]): a bias-free Linear.
            self.emit(layer, [a], {"op": "linear", "out_features": int(b.shape[-1]), "bias": False}, result, [origin])
        else:
            self.report(layer, "matrix product with a parameter on the left", "linear", acts, result)

    def fn_linear(self, layer, args, kwargs, acts, result):
        weight = self.arg(args, kwargs, 1, "weight")
        bias = self.arg(args, kwargs, 2, "bias")
        params = [self.param_names.get(id(t)) for t in (weight, bias) if t is not None]
        self.emit(layer, acts[:1], {"op": "linear", "out_features": int(weight.shape[0]), "bias": bias is not None}, result, [p for p in params if p])

    def param_names_in(self, args, kwargs):
        """Names of the parameters among a call's tensors (weights, biases)."""
        tensors = list(tensors_in(args)) + list(tensors_in(kwargs))
        return [self.param_names[id(t)] for t in tensors if id(t) in self.param_names]

    def fn_conv(self, layer, args, kwargs, acts, result):
        """F.conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups), and the
        same ATen ops in a torch.export graph."""
        weight, bias = self.arg(args, kwargs, 1, "weight"), self.arg(args, kwargs, 2, "bias")
        dims = weight.dim() - 2
        kernel = list(weight.shape[2:])
        dilation = as_list(self.arg(args, kwargs, 5, "dilation", 1), dims)
        padding = self.arg(args, kwargs, 4, "padding", 0)
        if isinstance(padding, str):  # 'valid' or 'same' (stride 1)
            padding = [0] * dims if padding == "valid" else [d * (k - 1) // 2 for k, d in zip(kernel, dilation)]
        op = {
            "op": "conv",
            "dims": dims,
            "out_channels": int(weight.shape[0]),
            "kernel": kernel,
            "stride": as_list(self.arg(args, kwargs, 3, "stride", 1), dims),
            "padding": as_list(padding, dims),
            "dilation": dilation,
            "groups": int(self.arg(args, kwargs, 6, "groups", 1)),
            "bias": bias is not None,
        }
        self.emit(layer, acts[:1], op, result, self.param_names_in(args, kwargs))

    fn_conv1d = fn_conv2d = fn_conv3d = fn_conv

    def fn_batch_norm(self, layer, args, kwargs, acts, result):
        self.emit(layer, acts[:1], {"op": "batch_norm"}, result, self.param_names_in(args, kwargs))

    def fn_layer_norm(self, layer, args, kwargs, acts, result):
        shape = self.arg(args, kwargs, 1, "normalized_shape")
        if len(shape) != 1:
            self.report(layer, f"layer_norm over {tuple(shape)}", "layer_norm over the last dimension", acts, result)
        else:
            self.emit(layer, acts[:1], {"op": "layer_norm"}, result, self.param_names_in(args, kwargs))

    def fn_group_norm(self, layer, args, kwargs, acts, result):
        groups = int(self.arg(args, kwargs, 1, "num_groups"))
        self.emit(layer, acts[:1], {"op": "group_norm", "groups": groups}, result, self.param_names_in(args, kwargs))

    def fn_mean(self, layer, args, kwargs, acts, result):
        """x.mean(spatial dims): a global average pool (then a flatten unless keepdim)."""
        x = acts[0]
        dims = self.arg(args, kwargs, 1, "dim")
        dims = sorted(d % x.dim() for d in ([dims] if isinstance(dims, int) else dims or []))
        if x.dim() < 3 or dims != list(range(2, x.dim())):
            self.report(layer, f"mean over dims {dims}", NEAREST_FUNCTIONS["mean"], acts, result)
            return
        spatial = x.dim() - 2
        pooled = torch.empty(0)
        self.emit(layer, [x], {"op": "adaptive_avg_pool", "dims": spatial, "output": [1] * spatial}, pooled)
        if result.dim() == x.dim():
            self.alias(pooled, result)
        else:
            self.emit(f"{layer}.flatten", [pooled], {"op": "reshape", "shape": list(result.shape[1:])}, result)

    def fn_upsample_nearest(self, layer, args, kwargs, acts, result):
        self.emit(layer, acts[:1], upsample_op(layer, acts[0], result, "nearest"), result)

    fn_upsample_nearest1d = fn_upsample_nearest2d = fn_upsample_nearest3d = fn_upsample_nearest

    def fn_pool(self, layer, args, kwargs, acts, result, kind):
        x = acts[0]
        kernel = self.arg(args, kwargs, 1, "kernel_size")
        stride = self.arg(args, kwargs, 2, "stride") or kernel
        padding = self.arg(args, kwargs, 3, "padding", 0)
        self.emit(layer, [x], pool_op(kind, x.dim() - 2, kernel, stride, padding), result)

    def fn_adaptive_avg_pool(self, layer, args, kwargs, acts, result):
        x = acts[0]
        self.emit(layer, [x], {"op": "adaptive_avg_pool", "dims": x.dim() - 2, "output": list(result.shape[2:])}, result)

    fn_adaptive_avg_pool1d = fn_adaptive_avg_pool2d = fn_adaptive_avg_pool3d = fn_adaptive_avg_pool

    def fn_interpolate(self, layer, args, kwargs, acts, result):
        mode = self.arg(args, kwargs, 3, "mode", "nearest")
        try:
            self.emit(layer, acts[:1], upsample_op(layer, acts[0], result, mode), result)
        except ExportError as e:
            self.report(layer, str(e), "upsample (nearest, integer scale)", acts, result)

    def fn_to(self, layer, args, kwargs, acts, result):
        self.alias(acts[0], result)  # dtype casts: the precision is the scenario's

    fn_float = fn_clone = fn_detach = fn_to

    def __getattr__(self, attr):
        # Functional activations and pools share two handlers.
        if attr.startswith("fn_"):
            name = attr[3:]
            if name in ACTIVATION_FUNCTIONS:
                return lambda *a: self.fn_activation(*a, kind=name)
            pool = re.fullmatch(r"(max|avg)_pool[123]d", name)
            if pool:
                kind = "max_pool" if pool.group(1) == "max" else "avg_pool"
                return lambda *a: self.fn_pool(*a, kind=kind)
        raise AttributeError(attr)

    # --- driver ------------------------------------------------------------------------

    def run(self):
        x = torch.randn(self.batch, *self.input_shape)
        self.mark(x, "input")
        handles = []
        for module in self.model.modules():
            handles.append(module.register_forward_pre_hook(self.pre_hook))
            handles.append(module.register_forward_hook(self.post_hook))
        if not is_exported_graph(self.model):  # an exported graph keeps its traced mode
            self.model.train()
        try:
            with torch.no_grad(), Recorder(self):
                output = self.model(x)
        except (RuntimeError, ValueError, TypeError) as e:  # e.g. an --input the model rejects
            raise ExportError(f"the forward pass on an input of shape {list(x.shape)} failed: {e}") from e
        finally:
            for h in handles:
                h.remove()
        if not isinstance(output, torch.Tensor):
            raise ExportError(f"the model returns {type(output).__name__}; the planner needs one output tensor")
        last = self.source(output)
        if last == self.BROKEN:
            raise ExportError("the output depends on an unsupported layer with no same-shape substitute: " + self.summary())
        if last in (None, "input"):
            raise ExportError("the output is the input: no layer was recorded")
        return self.spec(last)

    def spec(self, last):
        """The layers the output depends on, in execution order, ending with `last`."""
        by_name = {layer["name"]: layer for layer in self.layers}
        needed, stack = set(), [last]
        while stack:
            name = stack.pop()
            if name in needed or name == "input":
                continue
            needed.add(name)
            stack.extend(by_name[name]["from"])
        layers = [layer for layer in self.layers if layer["name"] in needed]
        if layers[-1]["name"] != last:
            raise ExportError(f"the output layer {last} is not the last one run")
        return {"name": self.name, "input": self.input_shape, "layers": layers}

    def missing_params(self):
        return sorted(n for n, p in self.model.named_parameters() if p.requires_grad and n not in self.used_params)

    def summary(self):
        return "; ".join(f"{u['layer']} ({u['what']}): nearest {u['nearest']}" for u in self.unsupported)


class Recorder(TorchFunctionMode):
    def __init__(self, exporter):
        super().__init__()
        self.exporter = exporter

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        e = self.exporter
        if not e.busy and not e.leaf_depth:
            e.busy = True
            try:
                e.on_function(func, args, kwargs, result)
            finally:
                e.busy = False
        return result


LEAF_TYPES = (
    nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear, nn.modules.batchnorm._BatchNorm, nn.LayerNorm,
    nn.GroupNorm, nn.Softmax, nn.modules.dropout._DropoutNd, nn.MaxPool1d, nn.MaxPool2d,
    nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.AdaptiveAvgPool1d,
    nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d, nn.Upsample, nn.Flatten, nn.Identity,
    *ACTIVATION_MODULES,
)


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


def upsample_op(name, x, output, mode):
    scales = {o // i for i, o in zip(x.shape[2:], output.shape[2:])}
    exact = all(o % i == 0 for i, o in zip(x.shape[2:], output.shape[2:]))
    if mode != "nearest" or len(scales) != 1 or not exact:
        raise ExportError(f"{name}: upsampling mode {mode} to {tuple(output.shape[2:])}: only nearest with one integer factor")
    return {"op": "upsample", "dims": x.dim() - 2, "scale": scales.pop()}


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


def export(model, input_shape, name, batch=TRACE_BATCH):
    """(spec, info) for `model` with per-sample input `input_shape`."""
    exporter = Exporter(model, input_shape, name, batch)
    spec = exporter.run()
    info = {
        "torch": torch.__version__,
        "torch_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "unsupported": exporter.unsupported,
        "params_not_represented": exporter.missing_params(),
        "warnings": exporter.warnings,
    }
    return spec, info


# --- loading models ----------------------------------------------------------------------


def load_module_model(target, ctor_args, ctor_kwargs):
    module_path, _, attr = target.partition(":")
    if not attr:
        raise ExportError(f"--module {target}: expected package.module:ClassName")
    try:
        factory = getattr(importlib.import_module(module_path), attr)
    except (ImportError, AttributeError) as e:
        raise ExportError(f"--module {target}: {e} (--path adds an import directory)") from e
    try:
        return factory(*ctor_args, **ctor_kwargs)
    except Exception as e:  # the user's constructor: report whatever it raises
        raise ExportError(f"--module {target} with --args {ctor_args} --kwargs {ctor_kwargs}: {e}") from e


def load_pickled_model(path):
    model = torch.load(path, map_location="cpu", weights_only=False)
    if isinstance(model, torch.jit.ScriptModule):
        raise ExportError(
            f"{path}: TorchScript hides the Python modules the exporter reads; "
            "export from the Python class (--module) or a torch.export file (--exported)"
        )
    if not isinstance(model, nn.Module):
        raise ExportError(f"{path}: holds a {type(model).__name__}, not a whole nn.Module (torch.save(model), not its state_dict)")
    return model


def is_exported_graph(model):
    """True for the module of a torch.export program (its train/eval mode is traced in)."""
    return isinstance(model, torch.fx.GraphModule) and any(
        str(node.target).startswith("aten.") for node in model.graph.nodes
    )


def is_torchscript_archive(path):
    """True for a torch.jit.save file: a zip holding `<name>/code/` and `constants.pkl`."""
    import zipfile

    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    return any("/code/" in n for n in names) and any(n.endswith("constants.pkl") for n in names)


def load_exported_model(path):
    """(module, per-sample input shape, batch) of a torch.export.save file (.pt2), from the
    example input it was exported with."""
    if not os.path.isfile(path):
        raise ExportError(f"{path}: no such file")
    if is_torchscript_archive(path):
        raise ExportError(
            f"{path}: a TorchScript file, whose forward runs outside Python; export from the "
            "Python class (--module), or save with torch.export.export + torch.export.save"
        )
    try:
        program = torch.export.load(path)
    except Exception as e:  # torch raises many kinds for a file of another format
        raise ExportError(
            f"{path}: not a torch.export file ({e}); TorchScript is not read: "
            "export with torch.export.export + torch.export.save, or use --module"
        ) from e
    example = getattr(program, "example_inputs", None)
    args = example[0] if example else ()
    if len(args) != 1 or not isinstance(args[0], torch.Tensor):
        raise ExportError(f"{path}: expected a program exported with one example input tensor")
    shape = list(args[0].shape)
    return program.module(), shape[1:], shape[0]


def zoo_models():
    sys.path.insert(0, TOOLS)
    from torch_zoo import all_models

    return all_models()


def load_zoo_model(model_id, bands, patch, classes, width=None, size=None):
    models = zoo_models()
    if model_id not in models:
        raise ExportError(f"--zoo {model_id}: allowed {', '.join(sorted(models))}")
    entry = models[model_id]
    model = entry["build"](bands, patch, classes, width=width, size=size)
    return model, list(entry["input"](bands, patch))


def scenario_for(spec, bands, patch, classes):
    """A Scenario (defaults elsewhere) with the exported layer list as a custom model."""
    scenario = {"model": {"kind": "custom", "spec": spec}}
    scenario.update({k: v for k, v in (("bands", bands), ("patch", patch), ("classes", classes)) if v is not None})
    return scenario


def write_json(path, value):
    text = json.dumps(value, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)


# --- fixtures and self-test --------------------------------------------------------------


def write_fixture(name, source, spec, info):
    os.makedirs(FIXTURES, exist_ok=True)
    fixture = {"generated_by": "tools/export_model.py --fixtures", "source": source, **info, "spec": spec}
    write_json(os.path.join(FIXTURES, f"{name}.json"), fixture)


def regenerate_fixtures():
    """One fixture per torch_zoo model (at its first validation point) and the sample ResNet."""
    torch.manual_seed(0)
    for model_id, entry in sorted(zoo_models().items()):
        p = entry["points"][0]
        model, input_shape = load_zoo_model(model_id, p["bands"], p["patch"], p["classes"], p["width"], p["size"])
        spec, info = export(model, input_shape, model_id)
        if info["unsupported"] or info["params_not_represented"]:
            raise ExportError(f"zoo model {model_id} did not export cleanly: {info}")
        source = {"zoo": model_id, **{k: p[k] for k in ("bands", "patch", "classes", "width", "size")}}
        write_fixture(f"zoo_{model_id}", source, spec, info)
        print(f"zoo_{model_id}: {len(spec['layers'])} layers, {info['torch_params']} params")
        if model_id in TORCH_EXPORT_ZOO:
            exported, shape, batch = through_torch_export(model, input_shape)
            spec, info = export(exported, shape, model_id, batch)
            if info["unsupported"] or info["params_not_represented"]:
                raise ExportError(f"zoo model {model_id} did not export cleanly through torch.export: {info}")
            write_fixture(f"zoo_{model_id}_torch_export", {**source, "via": "torch.export"}, spec, info)
            print(f"zoo_{model_id}_torch_export: {len(spec['layers'])} layers")
    from samples.example_models import ResNet18

    bands, patch, classes = 30, 32, 16
    model = ResNet18(bands, classes)
    source = {"module": "tools/samples/example_models.py:ResNet18", "bands": bands, "patch": patch, "classes": classes}
    measured = measure_in_torch(model, [bands, patch, patch], classes, RESNET_BATCH)
    for name, via in (("resnet18", None), ("resnet18_torch_export", "torch.export")):
        traced = through_torch_export(model, [bands, patch, patch]) if via else (model, [bands, patch, patch], TRACE_BATCH)
        spec, info = export(traced[0], traced[1], "ResNet-18 (torchvision-style)", traced[2])
        info["torch_measured"] = measured
        write_fixture(name, {**source, "via": via} if via else source, spec, info)
        print(f"{name}: {len(spec['layers'])} layers, {info['torch_params']} params")


# Zoo models whose torch.export graph the exporter reads back exactly. The transformers'
# attention is decomposed into ATen ops (qkv.chunk, ...) that the exporter cannot regroup
# into its attention op: export those from the Python class.
TORCH_EXPORT_ZOO = ("dbda", "hamida3d", "hu1d", "hybridsn", "ssrn", "unet")


EXPORTED_ATTENTION_HINT = (
    "note: a torch.export graph decomposes attention into ATen ops (chunk, ...) the exporter "
    "cannot regroup; export a transformer from its Python class (--module) instead"
)


def through_torch_export(model, input_shape):
    """(module, input shape, batch) as `--exported` reads them after a torch.export.save
    round trip of `model` (train mode, the exporter's trace batch)."""
    import tempfile

    model.train()
    program = torch.export.export(model, (torch.randn(TRACE_BATCH, *input_shape),))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt2")
        torch.export.save(program, path)
        return load_exported_model(path)


RESNET_BATCH = 8


def measure_in_torch(model, input_shape, classes, batch):
    """FLOPs and saved-for-backward bytes of one training step on the CPU, measured as
    tools/validate_zoo.py measures the zoo (flop counter, saved-tensor hooks, CUDA
    autocast emulated for amp_bf16)."""
    import validate_zoo

    torch.manual_seed(0)
    model.train()
    x = torch.randn(batch, *input_shape)
    y = torch.randint(0, classes, (batch,))
    cases = []
    for precision in validate_zoo.PRECISIONS:
        fwd, bwd = validate_zoo.flops(model, x, y, precision)
        saved = validate_zoo.saved_bytes(model, x, y, precision)
        cases.append({"batch": batch, "precision": precision, "fwd_flops": fwd, "bwd_flops": bwd, "saved_bytes": saved})
    return cases


def self_test():
    """Checks the exporter on the sample ResNet, a model with an unknown layer and the zoo."""
    from samples.example_models import ResNet18, WithCustomLayers

    spec, info = export(ResNet18(30, 16), [30, 32, 32], "resnet18")
    assert not info["unsupported"] and not info["params_not_represented"], info
    adds = [layer for layer in spec["layers"] if layer["op"] == "add"]
    assert len(adds) == 8, f"ResNet-18 has 8 residual adds, exported {len(adds)}"
    assert all(len(a["from"]) == 2 and a["from"][0] != a["from"][1] for a in adds), adds
    downsample = [layer for layer in spec["layers"] if ".downsample." in layer["name"]]
    assert len(downsample) == 6, "three 1x1 conv + BN shortcut branches"

    _, info = export(WithCustomLayers(30, 16), [30, 9, 9], "custom")
    reported = {u["layer"]: u for u in info["unsupported"]}
    assert "act2" in reported and "leaky_relu" in reported["act2"]["nearest"], reported
    assert reported["spectral_sum.cumsum"]["substitute"] == "pass-through", reported
    assert info["params_not_represented"] == ["act2.weight"], info

    for model_id, entry in sorted(zoo_models().items()):
        p = entry["points"][0]
        model, input_shape = load_zoo_model(model_id, p["bands"], p["patch"], p["classes"], p["width"], p["size"])
        _, info = export(model, input_shape, model_id)
        assert not info["unsupported"] and not info["params_not_represented"], (model_id, info)
    # torch.export files: a CNN reads back as its Python class does; a transformer's
    # decomposed attention is reported, not guessed.
    model, input_shape = load_zoo_model("hybridsn", 30, 25, 16)
    from_class, _ = export(model, input_shape, "hybridsn")
    exported, shape, batch = through_torch_export(model, input_shape)
    from_file, info = export(exported, shape, "hybridsn", batch)
    assert [layer["op"] for layer in from_file["layers"]] == [layer["op"] for layer in from_class["layers"]]
    assert not info["unsupported"] and not info["params_not_represented"], info
    vit, vit_shape = load_zoo_model("vit", 30, 9, 16, None, "small")
    try:
        export(*through_torch_export(vit, vit_shape)[:2], "vit")
        raise AssertionError("an exported ViT should report its decomposed attention")
    except ExportError as e:
        assert "chunk" in str(e), e
    shared = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    twice = nn.Sequential(shared, shared)
    spec, info = export(twice, [8], "shared")
    assert len(spec["layers"]) == 4 and len(info["warnings"]) == 1, (spec, info)
    print("export_model self-test: ok")


def parse_shape(text):
    try:
        shape = [int(v) for v in text.split(",")]
    except ValueError:
        shape = []
    if not shape or min(shape) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers separated by commas, e.g. 1,200,9,9")
    return shape


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--module", help="package.module:Class (or factory function)")
    source.add_argument("--pickle", help="a model saved whole with torch.save(model)")
    source.add_argument("--exported", help="a torch.export.save file (.pt2); its example input gives the shape")
    source.add_argument("--zoo", help="a zoo model id (tools/torch_zoo/)")
    source.add_argument("--fixtures", action="store_true", help="regenerate core/tests/fixtures/exported/")
    source.add_argument("--self-test", action="store_true", help="check the exporter and exit")
    parser.add_argument("--args", default="[]", help="constructor arguments, a JSON list")
    parser.add_argument("--kwargs", default="{}", help="constructor keyword arguments, a JSON object")
    parser.add_argument("--path", action="append", default=[], help="directory to import from (repeatable)")
    parser.add_argument("--input", type=parse_shape, help="per-sample input shape, e.g. 1,200,9,9")
    parser.add_argument("--name", help="model name in the spec (default: the class name)")
    parser.add_argument("--bands", type=int)
    parser.add_argument("--patch", type=int)
    parser.add_argument("--classes", type=int)
    parser.add_argument("--width", type=int, help="zoo model width option")
    parser.add_argument("--size", help="zoo model size option (vit)")
    parser.add_argument("--output", default="-", help="ModelSpec JSON file (default: stdout)")
    parser.add_argument("--scenario", help="also write a Scenario JSON using the spec as a custom model")
    parser.add_argument("--info", help="write torch's parameter count and the unsupported layers as JSON")
    parser.add_argument("--allow-unsupported", action="store_true", help="write the spec with nearest equivalents")
    args = parser.parse_args()
    sys.path[:0] = [TOOLS] + args.path
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    try:
        if args.self_test:
            self_test()
            return 0
        if args.fixtures:
            regenerate_fixtures()
            return 0
        if args.zoo:
            missing = [f"--{k}" for k in ("bands", "patch", "classes") if getattr(args, k) is None]
            if missing:
                raise ExportError(f"--zoo needs {', '.join(missing)}")
            model, input_shape = load_zoo_model(args.zoo, args.bands, args.patch, args.classes, args.width, args.size)
            batch = TRACE_BATCH
        elif args.exported:
            model, input_shape, batch = load_exported_model(args.exported)
            if args.input is not None and args.input != input_shape:
                raise ExportError(f"--input {args.input} differs from the exported example input {input_shape}")
        else:
            if args.input is None:
                raise ExportError("--input (per-sample shape) is required")
            model = (
                load_module_model(args.module, json.loads(args.args), json.loads(args.kwargs))
                if args.module
                else load_pickled_model(args.pickle)
            )
            input_shape = args.input
            batch = TRACE_BATCH
        default_name = args.zoo or (os.path.splitext(os.path.basename(args.exported))[0] if args.exported else type(model).__name__)
        spec, info = export(model, input_shape, args.name or default_name, batch)
    except (ExportError, json.JSONDecodeError) as e:
        print(f"export_model: {e}", file=sys.stderr)
        if args.exported and "chunk" in str(e):
            print(EXPORTED_ATTENTION_HINT, file=sys.stderr)
        return 3
    for u in info["unsupported"]:
        written = json.dumps(u["substitute"]) if isinstance(u["substitute"], dict) else u["substitute"]
        print(f"unsupported: {u['layer']} ({u['what']}); nearest: {u['nearest']}; written as: {written}", file=sys.stderr)
    for warning in info["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    if info["params_not_represented"]:
        print(f"parameters no layer represents: {', '.join(info['params_not_represented'])}", file=sys.stderr)
    print(f"{len(spec['layers'])} layers; torch counts {info['torch_params']} trainable parameters", file=sys.stderr)
    if args.info:
        write_json(args.info, info)
    if args.exported and any("chunk" in u["what"] for u in info["unsupported"]):
        print(EXPORTED_ATTENTION_HINT, file=sys.stderr)
    if info["unsupported"] and not args.allow_unsupported:
        print("export_model: unsupported layers (above); rerun with --allow-unsupported to write nearest equivalents", file=sys.stderr)
        return 3
    write_json(args.output, spec)
    if args.scenario:
        write_json(args.scenario, scenario_for(spec, args.bands, args.patch, args.classes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
