#!/usr/bin/env python3
"""Measures every zoo model in PyTorch and writes core/tests/fixtures/pytorch_zoo.json,
the fixture core/tests/pytorch_fixtures.rs checks the Rust estimator against.

The Rust tests never need torch: this script only regenerates the fixture.

    pip install torch          # CPU build is enough; the fixture records the version
    python3 tools/validate_zoo.py                   # every model
    python3 tools/validate_zoo.py --model hybridsn  # only these (repeatable); other
                                                    # models' cases in the fixture are kept
    python3 tools/validate_zoo.py --list            # the model ids found

Models come from every module of tools/torch_zoo/ (see its __init__.py). For each model,
point (bands, patch, classes, batch, width, size) and precision it measures, in train
mode, with a float32 random input and int64 random targets:
- params: elements of the trainable parameters;
- fwd_flops, bwd_flops: torch.utils.flop_counter.FlopCounterMode totals (conv, linear,
  matmul; multiply-add = 2) over forward + cross-entropy and over backward, whole batch
  (a grouped conv's weight gradient counted once per group's weights: see
  `conv_backward_flop`);
- saved_bytes: every tensor autograd packs for backward during forward + cross-entropy
  (torch.autograd.graph.saved_tensors_hooks), taken as its whole untyped storage,
  storages of parameters and buffers skipped, de-duplicated by storage address.

The GPU is what the estimator models, so a TorchFunctionMode makes the CPU run behave
as CUDA does where the two differ: dropout uses the fused kernel (1-byte mask).
Precisions: "fp32", and "amp_bf16" = CUDA autocast's policy emulated on CPU (CPU
autocast casts different ops): the mode casts the float inputs of
conv/linear/matmul/mm/bmm/einsum/baddbmm/addmm and of lstm/gru (CUDA autocasts cuDNN's RNN,
inputs and weights) to bfloat16, casting each parameter once
per forward as CUDA autocast's weight cache does, and the inputs of softmax/log_softmax/
layer_norm/group_norm/cross_entropy to float32; every other op runs in its input dtype.
LSTM and GRU run aten's native cells (oneDNN off: see `native_rnn`).
"""

import argparse
import contextlib
import itertools
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils.flop_counter import FlopCounterMode

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from torch_zoo import all_models  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "pytorch_zoo.json")
PRECISIONS = ("fp32", "amp_bf16")
NOTES = (
    "FLOPs: torch.utils.flop_counter totals (conv/linear/matmul, multiply-add = 2), whole "
    "batch, forward including cross-entropy, backward separately. saved_bytes: storages "
    "packed by saved_tensors_hooks during forward + cross-entropy, parameters and buffers "
    "excluded, de-duplicated by storage. Input float32, targets int64, train mode, CPU, "
    "dropout as CUDA's fused native_dropout (1-byte mask). LSTM/GRU: aten's native cells "
    "(oneDNN off), whose gate matmuls flop_counter counts (cuDNN's and oneDNN's fused RNN count 0). "
    "amp_bf16 emulates CUDA autocast (not CPU autocast): conv/linear/matmul/mm/bmm/einsum/"
    "baddbmm/addmm/lstm/gru inputs cast to bfloat16 (parameters cast once per forward, like the "
    "autocast weight cache), softmax/log_softmax/layer_norm/group_norm/cross_entropy inputs "
    "cast to float32, other ops in their input dtype."
)

T = torch.Tensor
# CUDA autocast's lower-precision and fp32 op lists, restricted to what the zoo uses.
LOWER_PRECISION_OPS = {
    F.conv1d, F.conv2d, F.conv3d, F.linear, torch.lstm, torch.gru,
    torch.matmul, torch.mm, torch.bmm, torch.einsum, torch.baddbmm, torch.addmm,
    T.matmul, T.__matmul__, T.__rmatmul__, T.mm, T.bmm, T.baddbmm, T.addmm,
}
FP32_OPS = {
    F.softmax, F.log_softmax, torch.softmax, torch.log_softmax, T.softmax, T.log_softmax,
    F.layer_norm, F.group_norm, torch.layer_norm, torch.group_norm, F.cross_entropy,
    # Element-wise functions in the fp32 policy (aten/src/ATen/autocast_mode.h, AT_FORALL_FP32);
    # Python's 1 / x is x.reciprocal() * 1.
    torch.exp, T.exp, torch.expm1, T.expm1, torch.log, T.log, torch.log2, T.log2, torch.log10, T.log10,
    torch.log1p, T.log1p, torch.reciprocal, T.reciprocal, torch.rsqrt, T.rsqrt, torch.pow, T.pow,
    T.__pow__, T.__rpow__, T.__rtruediv__, T.__rdiv__, F.softplus, torch.logsumexp, T.logsumexp,
}
# Reductions that compute in fp32 from their 16-bit input without casting it (AT_FORALL_FP32_SET_OPT_DTYPE
# and norm's fp32_append_dtype): the emulation passes dtype=torch.float32.
FP32_DTYPE_OPS = {
    torch.sum, T.sum, torch.prod, T.prod, torch.cumsum, T.cumsum, torch.norm, T.norm, torch.linalg.vector_norm,
}


class CudaEmulation(TorchFunctionMode):
    """Runs a forward pass as CUDA would, on CPU; use one instance per forward pass.

    Always: F.dropout in training becomes torch.native_dropout, the fused kernel CUDA
    uses, which keeps a 1-byte mask (CPU's F.dropout keeps a mask in the input dtype).
    With `autocast_dtype`: CUDA autocast's casting policy (see the module docstring).
    """

    def __init__(self, autocast_dtype=None):
        super().__init__()
        self.autocast_dtype = autocast_dtype
        self.weight_cache = {}

    def __enter__(self):
        # nn.LSTM/GRU refuse an input whose dtype is not their weights' unless autocast
        # is on (RNNBase.check_input asks torch._C._is_any_autocast_enabled): say it is.
        if self.autocast_dtype is not None:
            self.autocast_query = torch._C._is_any_autocast_enabled
            torch._C._is_any_autocast_enabled = lambda: True
        return super().__enter__()

    def __exit__(self, *exc):
        if self.autocast_dtype is not None:
            torch._C._is_any_autocast_enabled = self.autocast_query
        return super().__exit__(*exc)

    def cast(self, value, dtype):
        if isinstance(value, (list, tuple)):
            return type(value)(self.cast(v, dtype) for v in value)
        if not (isinstance(value, torch.Tensor) and value.is_floating_point()) or value.dtype == dtype:
            return value
        if value.is_leaf and value.requires_grad:
            key = (id(value), dtype)
            if key not in self.weight_cache:
                self.weight_cache[key] = value.to(dtype)
            return self.weight_cache[key]
        return value.to(dtype)

    def cast_dtype(self, func):
        if self.autocast_dtype is None:
            return None
        if func in LOWER_PRECISION_OPS:
            return self.autocast_dtype
        return torch.float32 if func in FP32_OPS else None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.dropout:
            return cuda_dropout(*args, **kwargs)
        if self.autocast_dtype is not None and func is F.normalize:
            return fp32_normalize(*args, **kwargs)
        if self.autocast_dtype is not None and func in FP32_DTYPE_OPS and kwargs.get("dtype") is None \
                and isinstance(args[0], torch.Tensor) and args[0].is_floating_point():
            kwargs = {**kwargs, "dtype": torch.float32}
        dtype = self.cast_dtype(func)
        if dtype is not None:
            args = self.cast(args, dtype)
            kwargs = {k: self.cast(v, dtype) for k, v in kwargs.items()}
        return func(*args, **kwargs)


def fp32_normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """F.normalize as its ATen ops run under CUDA autocast: the norm in fp32 (its input
    kept as it is), then the division promoted to fp32."""
    denom = torch.linalg.vector_norm(input, p, dim, keepdim=True, dtype=torch.float32).clamp_min(eps)
    return input / denom.expand_as(input)


def cuda_dropout(input, p=0.5, training=True, inplace=False):
    if not training or p == 0:
        return input
    return torch.native_dropout(input, p, True)[0]


def precision_mode(precision):
    return CudaEmulation(torch.bfloat16 if precision == "amp_bf16" else None)


def make_batch(entry, p):
    torch.manual_seed(0)
    x = torch.randn(p["batch"], *entry["input"](p["bands"], p["patch"]))
    if callable(entry["target"]):  # a target per token (the MAE presets)
        target_shape = (p["batch"], *entry["target"](p["bands"], p["patch"]))
        classes = entry["build"](p["bands"], p["patch"], 1, size=p["size"]).decoder_pred.out_features
    else:
        target_shape = (p["batch"],) if entry["target"] == "class" else (p["batch"], p["patch"], p["patch"])
        classes = p["classes"]
    y = torch.randint(0, classes, target_shape)
    return x, y


def saved_bytes(model, x, y, precision):
    return measure_step(model, x, y, precision)[2]


def native_rnn(model):
    """oneDNN off for a model with an LSTM or GRU: the CPU then runs aten's native cells,
    whose gate matmuls the flop counter sees (oneDNN's mkldnn_rnn, like cuDNN's
    _cudnn_rnn, counts 0) and whose saved tensors are the per-step ones the estimate
    describes. Other models run as before."""
    if any(isinstance(m, torch.nn.RNNBase) for m in model.modules()):
        return torch.backends.mkldnn.flags(enabled=False)
    return contextlib.nullcontext()


def measure_step(model, x, y, precision):
    """(forward FLOPs, backward FLOPs, saved bytes) of one training step, in one pass."""
    packed = []

    def pack(tensor):
        packed.append(tensor)
        return tensor

    with native_rnn(model):
        with FlopCounterMode(display=False, custom_mapping=FLOP_FIXES) as forward:
            with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
                with precision_mode(precision):
                    loss = F.cross_entropy(model(x), y)
        with FlopCounterMode(display=False, custom_mapping=FLOP_FIXES) as backward:
            loss.backward()
    return forward.get_total_flops(), backward.get_total_flops(), storage_bytes(model, packed)


def storage_bytes(model, packed):
    """Bytes of the distinct storages among `packed`, parameters and buffers excluded."""
    excluded = {t.untyped_storage().data_ptr() for t in itertools.chain(model.parameters(), model.buffers())}
    seen, total = set(), 0
    # `packed` keeps every tensor alive until here, so no storage address is reused.
    for tensor in packed:
        storage = tensor.untyped_storage()
        address = storage.data_ptr()
        if address in excluded or address in seen:
            continue
        seen.add(address)
        total += storage.nbytes()
    return total


def flops(model, x, y, precision):
    with native_rnn(model):
        with FlopCounterMode(display=False, custom_mapping=FLOP_FIXES) as forward:
            with precision_mode(precision):
                loss = F.cross_entropy(model(x), y)
        with FlopCounterMode(display=False, custom_mapping=FLOP_FIXES) as backward:
            loss.backward()
    return forward.get_total_flops(), backward.get_total_flops()


def conv_backward_flop(grad_out_shape, x_shape, w_shape, bias, stride, padding, dilation, transposed,
                       output_padding, groups, output_mask, out_shape, **kwargs):
    """flop_counter's convolution backward with the weight gradient counted per group:
    torch <= 2.14 counts it `groups` times over (all input x output channel pairs), which
    PyTorch's own fix (pull request 183405, "the transposed shapes lose the group
    division") divides out. Only installed when the running torch overcounts."""
    from torch.utils.flop_counter import conv_flop_count

    def t(shape):
        return [shape[1], shape[0]] + list(shape[2:])

    count = 0
    if output_mask[0]:
        count += conv_flop_count(grad_out_shape, w_shape, out_shape[0], not transposed)
    if output_mask[1]:
        pair = (t(grad_out_shape), t(x_shape)) if transposed else (t(x_shape), t(grad_out_shape))
        count += conv_flop_count(*pair, t(out_shape[1]), transposed=False) // groups
    return count


def grouped_conv_overcounted():
    """True when this torch's flop counter counts a depthwise conv's weight gradient
    more than once per weight and output position."""
    conv = torch.nn.Conv2d(4, 4, 3, groups=4, bias=False)
    x = torch.randn(1, 4, 5, 5)
    with FlopCounterMode(display=False) as counter:
        conv(x).sum().backward()
    forward = 2 * 4 * 9 * 3 * 3  # 2 x out channels x positions x (1 input channel x 3 x 3)
    return counter.get_total_flops() > 2 * forward  # forward + weight gradient


FLOP_FIXES = {torch.ops.aten.convolution_backward: conv_backward_flop} if grouped_conv_overcounted() else {}


def measure(model_id, entry, p, precision):
    model = entry["build"](p["bands"], p["patch"], p["classes"], width=p["width"], size=p["size"])
    model.train()
    x, y = make_batch(entry, p)
    fwd, bwd = flops(model, x, y, precision)
    return {
        "model": model_id,
        "options": {k: p[k] for k in ("bands", "patch", "classes", "width", "size")},
        "batch": p["batch"],
        "precision": precision,
        "params": sum(t.numel() for t in model.parameters() if t.requires_grad),
        "fwd_flops": fwd,
        "bwd_flops": bwd,
        "saved_bytes": saved_bytes(model, x, y, precision),
    }


def load_cases(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return json.load(f)["cases"]


def write_fixture(path, cases, generated_by="tools/validate_zoo.py", notes=NOTES):
    """Writes a fixture one case per line, so that a change shows as a diff of its cases."""
    header = {"generated_by": generated_by, "torch": torch.__version__, "notes": notes}
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in header.items()]
    lines.append('  "cases": [')
    lines.append(",\n".join("    " + json.dumps(case) for case in cases))
    lines += ["  ]", "}"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    models = all_models()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", action="append", choices=sorted(models), help="only this model (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the model ids and exit")
    parser.add_argument("--output", default=FIXTURE, help="fixture path (default: %(default)s)")
    args = parser.parse_args()
    if args.list:
        print("\n".join(sorted(models)))
        return
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    chosen = args.model or sorted(models)
    measured = []
    for model_id in chosen:
        entry = models[model_id]
        for p in entry["points"]:
            for precision in PRECISIONS:
                case = measure(model_id, entry, p, precision)
                print(json.dumps(case), flush=True)
                measured.append(case)
    # Read the fixture only now, so cases another run wrote meanwhile are kept.
    cases = [c for c in load_cases(args.output) if c["model"] not in chosen] + measured
    order = {model_id: i for i, model_id in enumerate(sorted(models))}
    cases.sort(key=lambda c: order.get(c["model"], len(order)))
    write_fixture(args.output, cases)
    print(f"wrote {len(cases)} cases to {args.output}")


if __name__ == "__main__":
    main()
