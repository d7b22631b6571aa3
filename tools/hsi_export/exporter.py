"""The trace: one forward pass under module hooks and a TorchFunctionMode, written down
as a ModelSpec layer list. Leaf modules go through `modules.MODULE_HANDLERS` (and
`attention.py`), torch calls on activations through `functions.FUNCTION_HANDLERS`."""

import math

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from .attention import attention_layout, attention_op, attention_parts, partitions_windows, window_attention_layers
from .common import TRACE_BATCH, ExportError, module_kind, tensors_in
from .functions import ALIASES, BATCH_MOVED_FUNCTIONS, COUNTED_FUNCTIONS, FUNCTION_HANDLERS, NEAREST_FUNCTIONS
from .modules import MODULE_HANDLERS, NEAREST_MODULES


class Exporter:
    """Records one forward pass of `model` as a ModelSpec layer list."""

    BROKEN = "<unsupported>"

    def __init__(self, model, input_shape, name, batch=TRACE_BATCH):
        self.model = model
        self.input_shape = list(input_shape)
        self.name = name
        self.batch = batch
        self.layers = []
        self.producer = {}  # id(tensor) -> layer name ("input", or BROKEN after an unsupported layer)
        self.fold = {}  # id(tensor) -> k where its first dimension is batch x k (Swin's windows)
        self.param_origin = {}  # id(tensor) -> parameter name, for tensors made from one parameter
        self.derived = {}  # id(tensor) -> the parameters a tensor that is no activation is made from
        self.batchless = set()  # ids of tensors the same for every sample (`constant` layers and after)
        self.batch_at = {}  # id(tensor) -> where its batch dimension is, where not first (qkv.permute(2, 0, ...))
        self.param_names = {id(p): n for n, p in model.named_parameters()}
        self.param_sizes = {n: p.numel() for n, p in model.named_parameters()}
        self.used_params = set()
        self.param_layer = {}  # parameter name -> the first layer that counts it
        self.unsupported = []
        self.keep = []  # every tensor seen stays alive so no id() is reused
        self.module_names = {m: n for n, m in model.named_modules()}
        self.scope = []  # names of the non-leaf modules being run
        self.leaf_depth = 0
        self.leaf_calls = []  # submodules called inside the current leaf, in order
        self.busy = False  # True while the exporter itself runs torch code
        self.warnings = []
        self.fused_attention = False  # an attention block runs F.scaled_dot_product_attention
        self.unfollowed = []  # outputs the layer list does not follow, and why
        self.layouts = {}  # attention block -> how it attends (attention.attention_layout)

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

    def origin(self, tensor):
        """The parameter `tensor` is (or was made from by a view, a broadcast, a cast or an
        element-wise function: as many distinct elements), or None."""
        name = self.param_origin.get(id(tensor)) or self.param_names.get(id(tensor))
        distinct = 1
        for size, stride in zip(tensor.shape, tensor.stride()):
            distinct *= size if stride else 1
        return name if name and distinct == self.param_sizes[name] else None

    def params_of(self, tensor):
        """The parameters a tensor that is no activation is made from (empty for buffers
        and tensors made in forward)."""
        name = self.param_names.get(id(tensor))
        return {name} if name else self.derived.get(id(tensor), set())

    def constant(self, name, tensor, shape=None):
        """Writes `tensor`, which does not depend on the input, as a `constant` layer (a
        buffer or a fixed grid, or made from parameters: counted here unless an earlier
        layer counts them), so layers can read it; `shape` overrides its per-sample shape
        (a tensor expanded over the batch)."""
        if shape is None and tensor.dim() > 1 and tensor.shape[0] == self.batch and tensor.stride(0) == 0:
            # Expanded over the batch (convit's rel_indices.expand(B, ...)): the constant,
            # then the broadcast view, one per sample.
            one = tensor[:1]
            self.keep.append(one)
            self.derived[id(one)] = self.params_of(tensor)
            self.constant(name, one)
            self.emit(f"{name}.expand", [one], {"op": "expand", "shape": [int(d) for d in tensor.shape[1:]]}, tensor)
            return
        names = self.params_of(tensor)
        op = {"op": "constant", "shape": shape or self.constant_shape(tensor)}
        if names:
            op["learned"] = True
            fresh = names - self.used_params
            if fresh:
                op["params"] = sum(self.param_sizes[n] for n in fresh)
        self.batchless.add(id(tensor))
        self.emit(name, [], op, tensor, names)

    def constant_shape(self, tensor):
        """A batch-independent tensor's per-sample shape: a leading 1 (a batch of one) dropped."""
        shape = [int(d) for d in tensor.shape] or [1]
        return shape[1:] if len(shape) > 1 and shape[0] == 1 else shape

    def is_batchless(self, tensor):
        return id(tensor) in self.batchless

    def param_names_in(self, args, kwargs):
        """Names of the parameters among a call's tensors (weights, biases)."""
        tensors = list(tensors_in(args)) + list(tensors_in(kwargs))
        return [self.param_names[id(t)] for t in tensors if id(t) in self.param_names]

    def folded(self, tensor):
        return self.fold.get(id(tensor), 1) > 1

    def batch_dim(self, tensor):
        return self.batch_at.get(id(tensor), 0)

    def sample_shape(self, tensor):
        """Per-sample shape: without the batch, with a folded factor where the batch is."""
        if self.is_batchless(tensor):
            return self.constant_shape(tensor)
        at = self.batch_dim(tensor)
        if self.folded(tensor):
            return [self.fold[id(tensor)] if i == at else int(d) for i, d in enumerate(tensor.shape)]
        return [int(d) for i, d in enumerate(tensor.shape) if i != at]

    def sample_dim(self, tensor, dim):
        """The per-sample index of dimension `dim` (not the batch's) of `tensor`."""
        if self.is_batchless(tensor):
            return dim - (tensor.dim() - len(self.sample_shape(tensor)))
        if self.folded(tensor):  # every dimension is a per-sample one, the batch's too
            return dim
        return dim - (dim > self.batch_dim(tensor))

    def fold_shape(self, x, result):
        """Per-sample shape of `result`, a view of `x` that may fold the batch with the
        next dimensions or unfold it (batch outermost either way), or None."""
        per_sample = x.numel() // self.batch
        if result.shape[0] % self.batch or result.numel() != x.numel() or result.dim() == 0:
            return None
        k = result.shape[0] // self.batch
        self.fold[id(result)] = k
        shape = ([k] if k > 1 else []) + [int(d) for d in result.shape[1:]]
        return shape if per_sample == torch.Size(shape).numel() else None

    def emit(self, name, inputs, op, output, params=()):
        """Adds a layer reading `inputs` (tensors) and producing `output`."""
        sources = [self.source(t) for t in inputs]
        if self.BROKEN in sources:
            self.mark(output, self.BROKEN)
            return
        layer_name = self.unique_name(name)
        layer = {"name": layer_name, "from": sources}
        owner = {self.param_layer.get(p) for p in params}
        if params and op["op"] != "constant" and len(owner) == 1 and None not in owner:
            layer["shares"] = owner.pop()  # a module run again: its parameters are the first run's
        for p in params:
            self.param_layer.setdefault(p, layer_name)
        self.layers.append({**layer, **op})
        self.used_params.update(params)
        self.mark(output, layer_name)
        # What reads only constants is one per step (core/src/analysis: `once`).
        if inputs and op["op"] != "expand" and all(self.is_batchless(t) for t in inputs):
            self.batchless.update(id(t) for t in tensors_in(output))
        if inputs and isinstance(output, torch.Tensor) and id(output) not in self.fold:
            if self.folded(inputs[0]) and output.shape[0] == inputs[0].shape[0]:
                self.fold[id(output)] = self.fold[id(inputs[0])]

    def alias(self, source_tensor, output):
        """`output` is the same activation as `source_tensor` (identity, no-op view)."""
        self.mark(output, self.source(source_tensor))
        if self.is_batchless(source_tensor):
            self.batchless.update(id(t) for t in tensors_in(output))
        # A view that unfolds the batch has set its own factor (fold_shape).
        if self.folded(source_tensor) and id(output) not in self.fold:
            self.fold[id(output)] = self.fold[id(source_tensor)]
        if self.batch_dim(source_tensor) and isinstance(output, torch.Tensor):
            self.batch_at[id(output)] = self.batch_dim(source_tensor)

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

    def emit_permute(self, layer, x, order, result):
        at = self.batch_dim(x)
        if self.is_batchless(x):
            self.emit_batchless_permute(layer, x, order, result)
        elif order == sorted(order):
            self.alias(x, result)
        else:
            # The per-sample dimensions in their new order; the batch may move (q, k and v
            # first: qkv.permute(2, 0, 3, 1, 4)), which the layer list does not see. Folded
            # windows move as a per-sample dimension.
            kept = order if self.folded(x) else [d for d in order if d != at]
            self.emit(layer, [x], {"op": "permute", "order": [self.sample_dim(x, d) for d in kept]}, result)
            self.batch_at.pop(id(result), None)
            if order.index(at):
                self.batch_at[id(result)] = order.index(at)
            if self.folded(x):
                self.fold[id(result)] = self.fold[id(x)]

    def emit_batchless_permute(self, layer, x, order, result):
        """A permute of a constant: a permute of its per-sample dimensions, or a reshape
        where it moves only dimensions of size 1 (the order of the data is unchanged)."""
        lead = x.dim() - len(self.sample_shape(x))
        if order[:lead] == list(range(lead)) and sorted(order[lead:]) == order[lead:]:
            self.alias(x, result)
        elif order[:lead] == list(range(lead)):
            self.emit(layer, [x], {"op": "permute", "order": [d - lead for d in order[lead:]]}, result)
        elif [d for d in order if x.shape[d] > 1] == [d for d in range(x.dim()) if x.shape[d] > 1]:
            self.emit(layer, [x], {"op": "reshape", "shape": self.constant_shape(result)}, result)
        else:
            self.report(layer, f"a permute {order} of a constant of shape {list(x.shape)}", "permute", [x], result)

    def emit_slice(self, layer, x, dim, start, end, result, step=1, shape_of=None):
        """x[:, .., start:end:step] along `dim` (>= 1): a strided view of x's storage.
        `shape_of` is the tensor whose dimensions x has, where x is an earlier slice's
        placeholder."""
        shape_of = shape_of if shape_of is not None else x
        full = shape_of.shape[dim]
        if dim == self.batch_dim(shape_of) and not self.is_batchless(shape_of):
            self.report(layer, "a slice of the batch", "none", [x], result)
        elif (start, end, step) == (0, full, 1):
            self.alias(x, result)
        else:
            op = {"op": "slice", "axis": self.sample_dim(shape_of, dim), "start": start, "end": end}
            if step != 1:
                op["step"] = step
            self.emit(layer, [x], op, result)

    # --- module hooks ------------------------------------------------------------------

    def is_leaf(self, module):
        if attention_parts(module) is not None:
            return self.layouts.get(module) is not None
        return type(module) in MODULE_HANDLERS or type(module) in NEAREST_MODULES

    def pre_hook(self, module, args, kwargs):
        if self.busy:
            return
        if not self.leaf_depth and attention_parts(module) is not None:
            self.busy = True  # a first run, to see how the block attends
            try:
                self.layouts[module] = attention_layout(self, module, args, kwargs)
            finally:
                self.busy = False
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
        if not acts and type(module) in NEAREST_MODULES:
            # A module of constants alone that has no op (nn.Embedding of fixed indices):
            # its output is a tensor made from its parameters.
            if isinstance(output, torch.Tensor):
                self.keep.append(output)
                self.derived[id(output)] = params | set().union(*(self.params_of(t) for t in inputs))
            return
        if not acts:
            if not inputs:
                raise ExportError(f"module {name} ({module_kind(module)}) reads no tensor")
            # A branch of constants (a positional encoding made by a convolution over a
            # fixed grid): the inputs become `constant` layers, the module runs once per step.
            for i, t in enumerate(inputs):
                self.constant(f"{name}.input{i}" if i else f"{name}.input", t)
            acts = inputs
        x = acts[0]
        if isinstance(output, tuple) and isinstance(module, nn.MultiheadAttention):
            output = output[0]  # (attention output, weights or None)
        if isinstance(output, tuple) and isinstance(module, (nn.LSTM, nn.GRU)):
            output, states = output  # (every step's output, final states h_n (and c_n))
            self.mark(states, self.BROKEN)  # [layers x directions, N, H]: the batch is not first
            self.unfollowed.append(
                f"{name}: its final states (h_n, c_n) are not followed: read the output's last step "
                "(out[:, -1]) instead"
            )
        if type(module) in NEAREST_MODULES:
            text, substitute = NEAREST_MODULES[type(module)]
            if substitute == "group_norm":
                substitute = {"op": "group_norm", "groups": int(x.shape[1])}
            self.report(name, module_kind(module), text, acts, output, substitute, params)
            return
        if partitions_windows(module):
            window_attention_layers(self, module, name, x, output, params)
            return
        if isinstance(module, nn.modules.batchnorm._BatchNorm) and self.folded(x):
            self.folded_batch_norm(name, x, output, params)
            return
        if attention_parts(module) is not None and self.layouts[module] == "tokens":
            # [H, W, C] attended as H x W tokens: the tokens as one set around the block.
            merged, attended = torch.empty(0), torch.empty(0)
            shape = self.sample_shape(x)
            self.emit(f"{name}.tokens", [x], {"op": "reshape", "shape": [math.prod(shape[:-1]), shape[-1]]}, merged)
            op, trailing = attention_op(self, module, name, x.flatten(1, -2), output.flatten(1, -2))
            self.emit(name, [merged], op, attended, params)
            last = attended
            if trailing is not None:
                last = torch.empty(0)
                self.emit(f"{name}.dropout", [attended], trailing, last)
            self.emit(f"{name}.map", [last], {"op": "reshape", "shape": shape}, output)
            return
        if attention_parts(module) is not None:
            op, trailing = attention_op(self, module, name, x, output)
        else:
            op, trailing = MODULE_HANDLERS[type(module)](self, module, name, x, output), None
        if op is None:
            self.alias(x, output)
        elif trailing is None:
            self.emit(name, [x], op, output, params)
        else:  # attention followed by its own output dropout: two layers
            attn_out = torch.empty(0)
            self.emit(name, [x], op, attn_out, params)
            self.emit(f"{name}.dropout", [attn_out], trailing, output)

    def folded_batch_norm(self, name, x, output, params):
        """BatchNorm1d over tokens folded into the batch (LeViT's [N x T, C]): its channels
        are the folded tensor's second dimension, moved first around the norm (views)."""
        order = [1, 0] + list(range(2, x.dim()))
        moved, normed = torch.empty(0), torch.empty(0)
        self.emit(f"{name}.channels_first", [x], {"op": "permute", "order": order}, moved)
        self.emit(name, [moved], {"op": "batch_norm"}, normed, params)
        self.emit(f"{name}.channels_back", [normed], {"op": "permute", "order": order}, output)

    # --- torch functions ---------------------------------------------------------------

    def on_function(self, func, args, kwargs, result):
        flat = list(tensors_in(args)) + list(tensors_in(kwargs))
        acts = [t for t in flat if self.source(t) is not None]
        # ATen ops (a torch.export graph) by their op name: aten.conv2d.default -> conv2d.
        packet = getattr(func, "overloadpacket", None)
        name = getattr(packet or func, "__name__", str(func)).lstrip("_").rstrip("_") or "op"
        name = ALIASES.get(name, name)
        handler = FUNCTION_HANDLERS.get(name)
        layer = self.scoped(name)
        if not acts and name in COUNTED_FUNCTIONS and flat and isinstance(result, torch.Tensor):
            # A convolution or product of constants (FLOPs torch counts): its input becomes a
            # `constant` layer and the layer runs once per step.
            self.constant(f"{layer}.input", flat[0])
            acts = [flat[0]]
        if not acts:
            origins = [o for o in (self.origin(t) for t in flat) if o]
            names = set().union(*(self.params_of(t) for t in flat))
            for i, t in enumerate(tensors_in(result)):
                self.keep.append(t)
                if len(origins) == 1 and i == 0:
                    self.param_origin[id(t)] = origins[0]
                if names:
                    self.derived[id(t)] = names
            return
        if not any(True for _ in tensors_in(result)):
            return  # sizes, dims, dtypes
        if any(self.batch_dim(t) for t in acts) and name not in BATCH_MOVED_FUNCTIONS:
            self.report(layer, f"{name} of a tensor whose batch dimension is not first", "permute the batch first",
                        acts, result)
            return
        if handler is None:
            self.report(layer, f"torch function {name}", NEAREST_FUNCTIONS.get(name, "none"), acts, result)
            return
        handler(self, layer, args, kwargs, acts, result)

    # --- driver ------------------------------------------------------------------------

    def run(self):
        from .loading import is_exported_graph

        x = torch.randn(self.batch, *self.input_shape)
        self.mark(x, "input")
        handles = []
        for module in self.model.modules():
            handles.append(module.register_forward_pre_hook(self.pre_hook, with_kwargs=True))
            handles.append(module.register_forward_hook(self.post_hook))
        if not is_exported_graph(self.model):  # an exported graph keeps its traced mode
            self.model.train()
        try:
            with torch.no_grad(), Recorder(self):
                output = self.model(x)
        except (RuntimeError, ValueError, TypeError, AssertionError) as e:  # e.g. an --input the model rejects
            raise ExportError(f"the forward pass on an input of shape {list(x.shape)} failed: {e}") from e
        finally:
            for h in handles:
                h.remove()
        if isinstance(output, dict) and len(output) == 1:
            output = next(iter(output.values()))  # torchvision segmentation: {"out": ...}
        if not isinstance(output, torch.Tensor):
            raise ExportError(f"the model returns {type(output).__name__}; the planner needs one output tensor")
        last = self.source(output)
        if last == self.BROKEN:
            reasons = self.summary() or "; ".join(self.unfollowed)
            raise ExportError("the output depends on an unsupported layer with no same-shape substitute: " + reasons)
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


def trace(model, input_shape, name, batch=TRACE_BATCH):
    """(spec, info) for `model` with per-sample input `input_shape`: the layer list, and
    torch's parameter count, the unsupported layers with their nearest op, the
    parameters no layer represents, warnings and the attention kernel the model runs."""
    exporter = Exporter(model, input_shape, name, batch)
    spec = exporter.run()
    info = {
        "torch": torch.__version__,
        "torch_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "unsupported": exporter.unsupported,
        "params_not_represented": exporter.missing_params(),
        "warnings": exporter.warnings,
        # The scenario's "attention" that matches how the model runs.
        "attention": "sdpa" if exporter.fused_attention else "math",
    }
    return spec, info
