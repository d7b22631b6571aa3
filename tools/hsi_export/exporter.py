"""The trace: one forward pass under module hooks and a TorchFunctionMode, written down
as a ModelSpec layer list. Leaf modules go through `modules.MODULE_HANDLERS` (and
`attention.py`), torch calls on activations through `functions.FUNCTION_HANDLERS`."""

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from .attention import attention_op, attention_parts, partitions_windows, window_attention_layers
from .common import TRACE_BATCH, ExportError, module_kind, tensors_in
from .functions import ALIASES, FUNCTION_HANDLERS, NEAREST_FUNCTIONS
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
        self.fused_attention = False  # an attention block runs F.scaled_dot_product_attention
        self.unfollowed = []  # outputs the layer list does not follow, and why

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
        """The parameter `tensor` is (or was made from by a view or cast), or None."""
        return self.param_origin.get(id(tensor)) or self.param_names.get(id(tensor))

    def param_names_in(self, args, kwargs):
        """Names of the parameters among a call's tensors (weights, biases)."""
        tensors = list(tensors_in(args)) + list(tensors_in(kwargs))
        return [self.param_names[id(t)] for t in tensors if id(t) in self.param_names]

    def folded(self, tensor):
        return self.fold.get(id(tensor), 1) > 1

    def sample_shape(self, tensor):
        """Per-sample shape: without the batch, with a folded factor first."""
        k = self.fold.get(id(tensor), 1)
        return ([k] if k > 1 else []) + [int(d) for d in tensor.shape[1:]]

    def sample_dim(self, tensor, dim):
        """The per-sample index of dimension `dim` (>= 1) of `tensor`."""
        return dim - 1 + self.folded(tensor)

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
        self.layers.append({"name": layer_name, "from": sources, **op})
        self.used_params.update(params)
        self.mark(output, layer_name)
        if inputs and isinstance(output, torch.Tensor) and id(output) not in self.fold:
            if self.folded(inputs[0]) and output.shape[0] == inputs[0].shape[0]:
                self.fold[id(output)] = self.fold[id(inputs[0])]

    def alias(self, source_tensor, output):
        """`output` is the same activation as `source_tensor` (identity, no-op view)."""
        self.mark(output, self.source(source_tensor))
        if self.folded(source_tensor):
            self.fold[id(output)] = self.fold[id(source_tensor)]

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
        if order[0] != 0:
            self.report(layer, "a permute that moves the batch dimension", "permute keeping the batch first", [x], result)
        elif order == sorted(order):
            self.alias(x, result)
        else:
            fold = [0] if self.folded(x) else []
            sample_order = fold + [self.sample_dim(x, d) for d in order[1:]]
            self.emit(layer, [x], {"op": "permute", "order": sample_order}, result)

    def emit_slice(self, layer, x, dim, start, end, result, step=1, shape_of=None):
        """x[:, .., start:end:step] along `dim` (>= 1): a strided view of x's storage.
        `shape_of` is the tensor whose dimensions x has, where x is an earlier slice's
        placeholder."""
        shape_of = shape_of if shape_of is not None else x
        full = shape_of.shape[dim]
        if dim == 0:
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
        return type(module) in MODULE_HANDLERS or type(module) in NEAREST_MODULES or attention_parts(module) is not None

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
        if isinstance(output, tuple) and isinstance(module, nn.MultiheadAttention):
            output = output[0]  # (attention output, weights or None)
        if isinstance(output, tuple) and isinstance(module, (nn.LSTM, nn.GRU)):
            output, states = output  # (every step's output, final states h_n (and c_n))
            self.mark(states, self.BROKEN)  # [layers x directions, N, H]: the batch is not first
            self.unfollowed.append(
                f"{name}: its final states (h_n, c_n) are not followed: read the output's last step "
                "(out[:, -1]) instead"
            )
        if module in self.recorded and params:
            self.warnings.append(f"{name} runs more than once: the layer list counts its parameters each time")
        self.recorded.add(module)
        if type(module) in NEAREST_MODULES:
            text, substitute = NEAREST_MODULES[type(module)]
            if substitute == "group_norm":
                substitute = {"op": "group_norm", "groups": int(x.shape[1])}
            self.report(name, module_kind(module), text, acts, output, substitute, params)
            return
        if partitions_windows(module):
            window_attention_layers(self, module, name, x, output, params)
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

    # --- torch functions ---------------------------------------------------------------

    def on_function(self, func, args, kwargs, result):
        flat = list(tensors_in(args)) + list(tensors_in(kwargs))
        acts = [t for t in flat if self.source(t) is not None]
        if not acts:
            origins = [o for o in (self.origin(t) for t in flat) if o]
            if len(origins) == 1 and isinstance(result, torch.Tensor):
                self.keep.append(result)
                self.param_origin[id(result)] = origins[0]
            return
        if not any(True for _ in tensors_in(result)):
            return  # sizes, dims, dtypes
        # ATen ops (a torch.export graph) by their op name: aten.conv2d.default -> conv2d.
        packet = getattr(func, "overloadpacket", None)
        name = getattr(packet or func, "__name__", str(func)).lstrip("_").rstrip("_") or "op"
        name = ALIASES.get(name, name)
        handler = FUNCTION_HANDLERS.get(name)
        layer = self.scoped(name)
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
            handles.append(module.register_forward_pre_hook(self.pre_hook))
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
