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
}
CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
BATCH_NORM = {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d}
MAX_POOL = {1: nn.MaxPool1d, 2: nn.MaxPool2d, 3: nn.MaxPool3d}
AVG_POOL = {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}
ADAPTIVE_AVG_POOL = {1: nn.AdaptiveAvgPool1d, 2: nn.AdaptiveAvgPool2d, 3: nn.AdaptiveAvgPool3d}


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


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *inputs):
        return self.fn(*inputs)


def layer_module(op, shapes):
    """The nn.Module for one graph.rs op, given its inputs' per-sample shapes."""
    from torch_zoo.transformers import Attention

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
                        per_dim(op.get("padding"), d, 0))
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
        return Attention(shape[-1], op["heads"], op.get("head_dim"), op.get("qkv_bias", False))
    if name == "class_token":
        return Prepend(shape[-1])
    if name == "position_embedding":
        return AddEmbedding(shape)
    if name == "take_token":
        return Lambda(lambda x: x[:, op["index"]])
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
        for index, layer in enumerate(spec["layers"]):
            name = layer.get("name") or f"{op_kind(layer)}{index}"
            sources = layer.get("from") or [previous]
            missing = [s for s in sources if s not in outputs]
            if missing:
                raise ScenarioError(f"model.spec.layers[{index}] ({name}): from {missing[0]!r} is not an earlier layer")
            module = layer_module(layer, [outputs[s] for s in sources])
            # Shapes come from running the layer once on a probe sample (eval mode, no grad).
            module.eval()
            with torch.no_grad():
                probe[name] = module(*(probe[s] for s in sources))
            module.train()
            outputs[name] = list(probe[name].shape[1:])
            self.blocks.append(module)
            self.steps.append((name, sources))
            previous = name

    def forward(self, x):
        values = {"input": x}
        for (name, sources), module in zip(self.steps, self.blocks):
            values[name] = module(*(values[s] for s in sources))
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
