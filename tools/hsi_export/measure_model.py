"""The model `tools/measure.py` trains: a zoo preset from tools/torch_zoo/, or a custom
layer list (core/src/graph.rs ModelSpec) built into an nn.Module layer by layer."""

import torch
from torch import nn
import torch.nn.functional as F


class ScenarioError(Exception):
    pass


def op_kind(op):
    """The Rust `Op::kind()` name, used for default layer names `<kind><index>`."""
    name = op["op"]
    if name == "conv":
        return f"conv{op['dims']}d"
    if name == "act":
        return op["kind"]
    return {"batch_norm": "batchnorm", "layer_norm": "layernorm", "group_norm": "groupnorm",
            "max_pool": "maxpool", "avg_pool": "avgpool", "adaptive_avg_pool": "adaptive_avgpool"}.get(name, name)


def per_dim(values, dims, default):
    """A graph.rs list (one entry per spatial dimension, one entry repeated, empty = default)."""
    if not values:
        return (default,) * dims
    return tuple(values) * dims if len(values) == 1 else tuple(values)


ACTIVATIONS = {
    "relu": nn.ReLU, "leaky_relu": nn.LeakyReLU, "gelu": nn.GELU, "mish": nn.Mish,
    "silu": nn.SiLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "softmax": lambda: nn.Softmax(dim=-1),
    "hardswish": nn.Hardswish, "hardsigmoid": nn.Hardsigmoid, "relu6": nn.ReLU6,
    "log_softmax": lambda: nn.LogSoftmax(dim=-1),
}
CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
BATCH_NORM = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d}
MAX_POOL = {1: nn.MaxPool1d, 2: nn.MaxPool2d, 3: nn.MaxPool3d}
AVG_POOL = {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}
ADAPTIVE_AVG_POOL = {1: nn.AdaptiveAvgPool1d, 2: nn.AdaptiveAvgPool2d, 3: nn.AdaptiveAvgPool3d}
ADAPTIVE_MAX_POOL = {1: nn.AdaptiveMaxPool1d, 2: nn.AdaptiveMaxPool2d, 3: nn.AdaptiveMaxPool3d}
INTERPOLATE_MODES = {("linear", 1): "linear", ("linear", 2): "bilinear", ("linear", 3): "trilinear",
                     ("cubic", 2): "bicubic"}
# A `pointwise` op as a function with what its gradient keeps (graph.rs Keeps): the
# layer list records only that, so any such function measures the same memory.
POINTWISE = {"nothing": lambda x: x * 0.5, "input": lambda x: x.abs(), "output": lambda x: x.exp()}
REDUCTIONS = {
    "sum": torch.sum, "mean": torch.mean, "amax": torch.amax, "amin": torch.amin, "var": torch.var,
    "std": torch.std, "norm": lambda x, dim, keepdim: torch.linalg.vector_norm(x, dim=dim, keepdim=keepdim),
    "logsumexp": torch.logsumexp,
    # max, min and prod take one dimension: reduce the last one first.
    "max": lambda x, dim, keepdim: _one_at_a_time(x, dim, keepdim, lambda t, d, k: t.max(d, k).values),
    "min": lambda x, dim, keepdim: _one_at_a_time(x, dim, keepdim, lambda t, d, k: t.min(d, k).values),
    "prod": lambda x, dim, keepdim: _one_at_a_time(x, dim, keepdim, lambda t, d, k: t.prod(d, k)),
}


def _one_at_a_time(x, dims, keepdim, reduce):
    for d in sorted(dims, reverse=True):
        x = reduce(x, d, keepdim)
    return x


class Prepend(nn.Module):
    """Learnable class token in front of the tokens [N, T, D] -> [N, T + 1, D]."""

    def __init__(self, dim):
        super().__init__()
        self.token = nn.Parameter(torch.zeros(1, 1, dim))

    def forward(self, x):
        return torch.cat((self.token.expand(x.shape[0], -1, -1), x), dim=1)


class Recurrent(nn.Module):
    """The `rnn` op: nn.LSTM / nn.GRU on [N, T, D], every step's output (batch-first here
    either way: the same parameters and FLOPs)."""

    def __init__(self, features, op):
        super().__init__()
        cell = nn.LSTM if op["cell"] == "lstm" else nn.GRU
        self.rnn = cell(features, op["hidden"], op.get("layers", 1), bias=op.get("bias", True),
                        batch_first=True, bidirectional=op.get("bidirectional", False))

    def forward(self, x):
        return self.rnn(x)[0]


class DropPath(nn.Module):
    """Stochastic depth: each sample's branch times 0 or 1 / (1 - p) in training."""

    P = 0.1

    def forward(self, x):
        if not self.training:
            return x
        shape = (x.shape[0],) + (1,) * (x.dim() - 1)
        keep = torch.empty(shape, dtype=x.dtype).bernoulli_(1 - self.P).div_(1 - self.P)
        return x * keep


UPSAMPLE_MODES = {1: "linear", 2: "bilinear", 3: "trilinear"}


class AddEmbedding(nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.embedding = nn.Parameter(torch.randn(1, *shape) * 0.02)

    def forward(self, x):
        return x + self.embedding


class Scale(nn.Module):
    """Layer scale: x times a learned tensor (plus a learned bias of the same shape)."""

    def __init__(self, shape, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(*shape))
        self.bias = nn.Parameter(torch.zeros(*shape)) if bias else None

    def forward(self, x):
        return x * self.weight if self.bias is None else x * self.weight + self.bias


class Constant(nn.Module):
    """A tensor the same for every sample, [1, *shape]: a buffer, or made from `params`
    learned values (their sum broadcast, so they train)."""

    def __init__(self, shape, learned, params):
        super().__init__()
        self.register_buffer("value", torch.zeros(1, *shape))
        self.learned = nn.Parameter(torch.zeros(params)) if learned and params else None

    def forward(self, *_ignored):
        return self.value if self.learned is None else self.value + self.learned.sum()


class SpecAttention(nn.Module):
    """The `attention` op on [N, .., T, D] (leading dimensions are independent token sets),
    with its `extra_params` (a position bias table, q/v biases) as one parameter that
    trains, so it is stored and has optimizer states; its use in the scores is not rebuilt."""

    def __init__(self, dim, op):
        from torch_zoo.transformers import Attention

        super().__init__()
        self.attention = Attention(dim, op["heads"], op.get("head_dim"), op.get("qkv_bias", False))
        extra = op.get("extra_params", 0)
        self.extra = nn.Parameter(torch.zeros(extra)) if extra else None

    def forward(self, x):
        out = self.attention(x.reshape(-1, *x.shape[-2:])).reshape(x.shape)
        return out if self.extra is None else out + 0 * self.extra.sum()


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def layer_module(op, shapes):
    """The nn.Module for one graph.rs op, given its inputs' per-sample shapes."""
    name, shape = op["op"], shapes[0]
    channels = shape[0]
    if name == "conv":
        d = op["dims"]
        return CONV[d](channels, op["out_channels"], per_dim(op["kernel"], d, 1), per_dim(op.get("stride"), d, 1),
                       per_dim(op.get("padding"), d, 0), per_dim(op.get("dilation"), d, 1), op.get("groups", 1),
                       op.get("bias", True))
    if name == "linear":
        return nn.Linear(shape[-1], op["out_features"], op.get("bias", True))
    if name == "batch_norm":
        return BATCH_NORM[max(1, len(shape) - 1)](channels)
    if name == "layer_norm":
        weight, bias = op.get("weight", True), op.get("bias", True)
        return nn.LayerNorm(shape[-1], elementwise_affine=weight, bias=bias and weight)
    if name == "group_norm":
        if op.get("weight", True) != op.get("bias", True):
            raise ScenarioError("model.spec: a group_norm with a weight but no bias is not built by measure.py")
        return nn.GroupNorm(op["groups"], channels, affine=op.get("weight", True))
    if name == "act":
        return ACTIVATIONS[op["kind"]]()
    if name == "dropout":
        return nn.Dropout(op["p"])
    if name in ("max_pool", "avg_pool"):
        d = op["dims"]
        table = MAX_POOL if name == "max_pool" else AVG_POOL
        # An empty stride is the kernel, as in PyTorch.
        return table[d](per_dim(op["kernel"], d, 1), per_dim(op.get("stride") or op["kernel"], d, 1),
                        per_dim(op.get("padding"), d, 0), ceil_mode=op.get("ceil_mode", False))
    if name == "adaptive_avg_pool":
        return ADAPTIVE_AVG_POOL[op["dims"]](tuple(op["output"]))
    if name == "upsample":
        if op.get("mode", "nearest") == "nearest":
            return nn.Upsample(scale_factor=op["scale"], mode="nearest")
        return nn.Upsample(scale_factor=op["scale"], mode=UPSAMPLE_MODES[op["dims"]], align_corners=False)
    if name == "rnn":
        return Recurrent(shape[-1], op)
    if name == "drop_path":
        return DropPath()
    if name == "flatten":
        return nn.Flatten()
    if name == "reshape":
        return Lambda(lambda x: x.reshape(x.shape[0], *op["shape"]))
    if name == "permute":
        return Lambda(lambda x: x.permute(0, *(o + 1 for o in op["order"])))
    if name == "add":
        return Lambda(lambda *xs: sum(xs[1:], xs[0]))
    if name == "mul":
        return Lambda(lambda a, b: a * b)
    if name == "concat":
        return Lambda(lambda *xs: torch.cat(xs, dim=op["axis"] + 1))
    if name == "matmul":
        return Lambda(torch.matmul)
    if name == "attention":
        return SpecAttention(shape[-1], op)
    if name == "class_token":
        return Prepend(shape[-1])
    if name == "position_embedding":
        return AddEmbedding(shape)
    if name == "take_token":
        return Lambda(lambda x: x[:, op["index"]])
    if name == "gather_tokens":
        def gather(x):
            index = torch.randint(0, x.shape[1], (x.shape[0], op["count"], 1), device=x.device)
            return torch.gather(x, 1, index.expand(-1, -1, x.shape[2]))
        return Lambda(gather)
    if name == "scale":
        return Scale(op["shape"], op.get("bias", False))
    if name == "slice":
        def take(x):
            index = [slice(None)] * x.dim()
            index[op["axis"] + 1] = slice(op["start"], op["end"], op.get("step", 1))
            return x[tuple(index)]
        return Lambda(take)
    if name == "pad":
        return Lambda(lambda x: F.pad(x, list(op["pad"]), mode=op.get("mode", "constant")))
    if name == "pointwise":
        return Lambda(POINTWISE[op.get("keeps", "nothing")])
    if name == "div":
        return Lambda(lambda a, b: a / b)
    if name == "expand":
        # A constant ([1, ...]) stays [1, ...] here and broadcasts where it is used.
        return Lambda(lambda x: x.expand(x.shape[0], *op["shape"]))
    if name == "reduce":
        axes = tuple(a + 1 for a in op["axes"])
        return Lambda(lambda x: REDUCTIONS[op["kind"]](x, dim=axes, keepdim=op.get("keepdim", False)))
    if name == "adaptive_max_pool":
        return ADAPTIVE_MAX_POOL[op["dims"]](tuple(op["output"]))
    if name == "resize":
        mode = op.get("mode", "nearest")
        mode = mode if mode == "nearest" else INTERPOLATE_MODES[(mode, op["dims"])]
        corners = None if mode == "nearest" else False
        return Lambda(lambda x: F.interpolate(x, size=tuple(op["size"]), mode=mode, align_corners=corners))
    if name in ("unfold", "fold"):
        kw = dict(kernel_size=per_dim(op["kernel"], 2, 1), stride=per_dim(op.get("stride"), 2, 1),
                  padding=per_dim(op.get("padding"), 2, 0), dilation=per_dim(op.get("dilation"), 2, 1))
        if name == "unfold":
            return nn.Unfold(**kw)
        return nn.Fold(tuple(op["output"]), **kw)
    if name == "windows":
        return Lambda(lambda x: x.unfold(op["axis"] + 1, op["size"], op["step"]))
    if name == "constant":
        return Constant(op["shape"], op.get("learned", False), op.get("params", 0))
    raise ScenarioError(f"model.spec: op {name!r} is not known to measure.py")


class SpecModel(nn.Module):
    """A graph.rs ModelSpec as an nn.Module: layers run in order, each reading the named
    earlier outputs (`from`; empty = the previous layer)."""

    def __init__(self, spec):
        super().__init__()
        self.steps = []  # (name, input names)
        self.blocks = nn.ModuleList()
        outputs = {"input": list(spec["input"])}
        previous = "input"
        probe = {"input": torch.zeros(1, *spec["input"])}
        modules = {}
        for index, layer in enumerate(spec["layers"]):
            name = layer.get("name") or f"{op_kind(layer)}{index}"
            sources = layer.get("from") or [previous]
            missing = [s for s in sources if s not in outputs]
            if missing:
                raise ScenarioError(f"model.spec.layers[{index}] ({name}): from {missing[0]!r} is not an earlier layer")
            # A layer that `shares` another's parameters calls the same module again.
            shares = layer.get("shares")
            if shares and shares not in modules:
                raise ScenarioError(f"model.spec.layers[{index}] ({name}): shares {shares!r}, not an earlier layer")
            module = modules[shares] if shares else layer_module(layer, [outputs[s] for s in sources])
            modules[name] = module
            # Shapes come from running the layer once on a probe sample (eval mode, no grad).
            module.eval()
            with torch.no_grad():
                probe[name] = module(*(probe[s] for s in sources))
            module.train()
            outputs[name] = list(probe[name].shape[1:])
            self.blocks.append(module)
            self.steps.append((name, sources))
            previous = name
        # After which step each output is read for the last time (the last one: never).
        last_read = {name: index for index, (_, sources) in enumerate(self.steps) for name in sources}
        self.done_after = [[name for name in dict.fromkeys(sources) if last_read[name] == index]
                           for index, (_, sources) in enumerate(self.steps)]

    def forward(self, x):
        # Each output is dropped after its last reader, as a module's locals are when
        # reassigned: autograd frees what backward does not need, as the estimate assumes.
        # (Before 2026-12-02 the dict kept every output until the forward returned; the
        # H200 fixtures' layer-list steps were measured so: docs/validation.md.)
        values = {"input": x}
        for (name, sources), module, done in zip(self.steps, self.blocks, self.done_after):
            values[name] = module(*(values[s] for s in sources))
            for source in done:
                del values[source]
        return values[self.steps[-1][0]]


def build_model(scenario):
    """(model, per-sample input shape, per-sample label shape, classes, model name). A
    classifier ends in [classes] and takes one label per sample; a segmenter ends in
    [classes, H, W] and takes one label per pixel, [H, W]. A custom layer list's classes
    are its output's."""
    choice = scenario["model"]
    bands, patch, classes = scenario["bands"], scenario["patch"], scenario["classes"]
    if choice.get("kind") == "custom":
        spec = choice["spec"]
        model = SpecModel(spec)
        with torch.no_grad():
            output = model.eval()(torch.zeros(1, *spec["input"]))
        return model.train(), list(spec["input"]), list(output.shape[2:]), output.shape[1], spec["name"]
    if choice.get("kind") == "preset":
        from torch_zoo import all_models, options

        models = all_models()
        model_id = choice["id"]
        if model_id not in models:
            raise ScenarioError(f"model.id: {model_id!r} has no PyTorch version in tools/torch_zoo ({', '.join(sorted(models))})")
        entry = models[model_id]
        model = entry["build"](bands, patch, classes, width=choice.get("width"), size=choice.get("size"))
        try:
            model = options.apply(model, scenario.get("attention", "sdpa"), scenario.get("finetune"))
        except options.OptionError as e:
            raise ScenarioError(str(e)) from e
        target = entry["target"]
        if callable(target):  # a class per token out of the decoder's (the MAE presets)
            labels = list(target(bands, patch))
            classes = model.decoder_pred.out_features
        else:
            labels = [patch, patch] if target == "pixel" else []
        return model, list(entry["input"](bands, patch)), labels, classes, model_id
    raise ScenarioError(f"model.kind: {choice.get('kind')!r}; allowed: preset, custom")
