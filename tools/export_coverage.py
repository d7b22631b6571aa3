#!/usr/bin/env python3
"""Exports one model per architecture family the exporter promises (torchvision's
classification and segmentation models, the common timm families), and checks each
against PyTorch on the CPU:

- the layer list represents every trainable parameter (torch's count exactly);
- `hsi-gpu estimate` accepts it, and its forward and backward FLOPs and its
  saved-for-backward bytes are within 1 % of what PyTorch measures (fp32 and emulated
  CUDA bf16 autocast, at the batch below; tools/validate_zoo.py's method);
- no model that exports is more than 2x off PyTorch's FLOPs or saved bytes, known
  failures included.

The families are torchvision's and timm's, this repository's HSI models, and small HSI
models written as research code writes them (tools/samples/research_models.py: padding
modes, constant arithmetic, gates, stacks, reductions, interpolation, unfold / fold,
positional encodings from fixed grids, broadcast products), each group of operations in a
family that uses it.

    tools/.venv/bin/python tools/export_coverage.py [--family NAME ...] [--markdown]

Models are built with random weights (pretrained=False: nothing is downloaded) at a small
input so the run stays short on two cores. A family listed in KNOWN_FAILURES must fail
with the reason given there; any other failure, or a known failure that now passes,
fails the run (so docs/guide.md's coverage table stays true).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TIMM_FUSED_ATTN", "0")  # timm's written-out attention (see KNOWN_FAILURES)

import torch  # noqa: E402
from torch import nn  # noqa: E402

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)

import validate_zoo  # noqa: E402
from hsi_export import ExportError, trace  # noqa: E402

CLI = os.path.join(os.path.dirname(TOOLS), "target", "debug", "hsi-gpu")
BATCH = 2
TOLERANCE = 0.01
# No model that exports may be off by more than 2x, known failures included (a cliff).
CLIFF = 1.0
CLASSES = 10

# swin_t's architecture (torchvision/models/swin_transformer.py) with 2 x 2 windows, so
# a 64-pixel input divides into windows at every stage (7 x 7 needs 224 pixels).
SWIN_T_WINDOW_2 = {"patch_size": [4, 4], "embed_dim": 96, "depths": [2, 2, 6, 2], "num_heads": [3, 6, 12, 24],
                   "window_size": [2, 2], "stochastic_depth_prob": 0.2, "num_classes": 10}

# maxvit_t's architecture with 2 x 2 partitions for a 64-pixel input (7 x 7 needs 224).
MAXVIT_T_PARTITION_2 = {"input_size": (64, 64), "stem_channels": 64, "block_channels": [64, 128, 256, 512],
                        "block_layers": [2, 2, 5, 2], "head_dim": 32, "stochastic_depth_prob": 0.2,
                        "partition_size": 2, "num_classes": 10}

# (family, library, model name, constructor kwargs, per-sample input shape); library
# "torchvision.class" builds a class of torchvision.models with the kwargs alone.
FAMILIES = [
    ("tv alexnet", "torchvision", "alexnet", {}, [3, 64, 64]),
    ("tv convnext", "torchvision", "convnext_tiny", {}, [3, 64, 64]),
    ("tv densenet", "torchvision", "densenet121", {}, [3, 32, 32]),
    ("tv efficientnet", "torchvision", "efficientnet_b0", {}, [3, 32, 32]),
    ("tv efficientnet_v2", "torchvision", "efficientnet_v2_s", {}, [3, 32, 32]),
    ("tv googlenet", "torchvision", "googlenet", {"aux_logits": False, "init_weights": False}, [3, 64, 64]),
    ("tv inception", "torchvision", "inception_v3", {"aux_logits": False, "init_weights": False}, [3, 96, 96]),
    ("tv maxvit", "torchvision.class", "MaxVit", MAXVIT_T_PARTITION_2, [3, 64, 64]),
    ("tv mnasnet", "torchvision", "mnasnet0_5", {}, [3, 64, 64]),
    ("tv mobilenet_v2", "torchvision", "mobilenet_v2", {}, [3, 64, 64]),
    ("tv mobilenet_v3", "torchvision", "mobilenet_v3_large", {}, [3, 64, 64]),
    ("tv regnet_x", "torchvision", "regnet_x_400mf", {}, [3, 64, 64]),
    ("tv regnet_y", "torchvision", "regnet_y_400mf", {}, [3, 64, 64]),
    ("tv resnet", "torchvision", "resnet18", {}, [3, 64, 64]),
    ("tv resnext", "torchvision", "resnext50_32x4d", {}, [3, 32, 32]),
    ("tv shufflenet", "torchvision", "shufflenet_v2_x0_5", {}, [3, 64, 64]),
    ("tv squeezenet", "torchvision", "squeezenet1_1", {}, [3, 64, 64]),
    ("tv swin", "torchvision.class", "SwinTransformer", SWIN_T_WINDOW_2, [3, 64, 64]),
    ("tv swin_v2", "torchvision", "swin_v2_t", {}, [3, 64, 64]),
    ("tv vgg", "torchvision", "vgg11_bn", {}, [3, 64, 64]),
    ("tv vit", "torchvision", "vit_b_32", {"image_size": 64}, [3, 64, 64]),
    ("tv wide_resnet", "torchvision", "wide_resnet50_2", {}, [3, 32, 32]),
    ("tv fcn", "torchvision.segmentation", "fcn_resnet50", {"weights_backbone": None}, [3, 32, 32]),
    ("tv deeplabv3", "torchvision.segmentation", "deeplabv3_mobilenet_v3_large", {"weights_backbone": None}, [3, 64, 64]),
    ("tv lraspp", "torchvision.segmentation", "lraspp_mobilenet_v3_large", {"weights_backbone": None}, [3, 64, 64]),
    ("timm resnet", "timm", "resnet18", {}, [3, 64, 64]),
    ("timm resnext", "timm", "resnext50_32x4d", {}, [3, 32, 32]),
    ("timm wide_resnet", "timm", "wide_resnet50_2", {}, [3, 32, 32]),
    ("timm densenet", "timm", "densenet121", {}, [3, 32, 32]),
    ("timm efficientnet", "timm", "efficientnet_b0", {}, [3, 32, 32]),
    ("timm efficientnetv2", "timm", "efficientnetv2_rw_t", {}, [3, 32, 32]),
    ("timm mobilenetv2", "timm", "mobilenetv2_100", {}, [3, 64, 64]),
    ("timm mobilenetv3", "timm", "mobilenetv3_large_100", {}, [3, 32, 32]),
    ("timm convnext", "timm", "convnext_tiny", {}, [3, 64, 64]),
    ("timm regnet", "timm", "regnety_002", {}, [3, 64, 64]),
    ("timm vit", "timm", "vit_tiny_patch16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm deit", "timm", "deit_tiny_patch16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm vit sdpa", "timm.fused", "vit_small_patch16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm swin", "timm", "swin_tiny_patch4_window7_224", {"img_size": 64, "window_size": 2}, [3, 64, 64]),
    ("timm beit", "timm", "beit_base_patch16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm mixer", "timm", "mixer_s16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm resmlp", "timm", "resmlp_12_224", {"img_size": 64}, [3, 64, 64]),
    ("timm poolformer", "timm", "poolformer_s12", {}, [3, 64, 64]),
    ("timm ghostnet", "timm", "ghostnet_100", {}, [3, 64, 64]),
    ("timm mnasnet", "timm", "mnasnet_100", {}, [3, 64, 64]),
    ("timm inception_v3", "timm", "inception_v3", {}, [3, 96, 96]),
    ("timm vgg", "timm", "vgg11", {}, [3, 64, 64]),
    ("timm mobilevit", "timm", "mobilevit_xxs", {"img_size": 64}, [3, 64, 64]),
    ("timm tf_efficientnet", "timm", "tf_efficientnet_b0", {}, [3, 32, 32]),
    ("timm resnest", "timm", "resnest14d", {}, [3, 32, 32]),
    ("timm cspnet", "timm", "cspresnet50", {}, [3, 32, 32]),
    ("timm levit", "timm", "levit_128s", {"img_size": 64}, [3, 64, 64]),
    ("timm coatnet", "timm", "coatnet_nano_rw_224", {"img_size": 64}, [3, 64, 64]),
    ("timm coat", "timm", "coat_lite_tiny", {"img_size": 64}, [3, 64, 64]),
    ("timm xcit", "timm", "xcit_nano_12_p16_224", {"img_size": 64}, [3, 64, 64]),
    ("timm volo", "timm", "volo_d1_224", {"img_size": 64}, [3, 64, 64]),
    ("timm lambda", "timm", "lambda_resnet26t", {"img_size": 64}, [3, 64, 64]),
    ("hsi lstm", "local", "band_lstm", {}, [20, 10]),
    ("hsi gru", "local", "mou_rnn", {"bands": 30}, [30, 1]),
    ("hsi segformer", "local", "segformer", {"bands": 30}, [30, 64, 64]),
    ("hsi pads", "local", "padded_spectral", {}, [30, 9, 9]),
    ("hsi attention gates", "local", "attention_gates", {}, [30, 9, 9]),
    ("hsi selective kernel", "local", "selective_kernel", {}, [30, 9, 9]),
    ("hsi resampler", "local", "resampler", {}, [1, 30, 9, 9]),
    ("hsi unfold", "local", "unfold_mixer", {}, [30, 9, 9]),
    ("hsi grid position", "local", "grid_position", {}, [30, 9, 9]),
    ("hsi headwise matmul", "local", "headwise_matmul", {}, [30, 9, 9]),
]

# family -> the reason it does not export unchanged (a part of the error it gives).
KNOWN_FAILURES = {
    # Its continuous position bias: an MLP's table gathered by a tensor of indices.
    "tv swin_v2": "attn.getitem (indexing (tensor(",
    "tv vit": "amp_bf16 saved",
    # Its crpe reshapes q, k and v as views PyTorch can make and the estimator, which does
    # not follow strides, copies (fp32 +3.2 %).
    "timm coat": "fp32 saved",
}

# Families whose layer list and PyTorch figures core/tests/exporter_families.rs checks
# (the estimator without Python): together they use every op the exporter added for
# these architectures.
FIXTURE_FAMILIES = {
    "timm densenet": "concat of one input",
    "timm mobilenetv3": "hardswish, hardsigmoid, squeeze-excitation",
    "tv mobilenet_v2": "relu6",
    "timm convnext": "layer scale on channels-last, layer norm over channels",
    "tv efficientnet": "stochastic depth",
    "tv googlenet": "ceil-mode pools",
    "tv lraspp": "bilinear upsampling",
    "timm swin": "window attention with a relative position bias, batch-folded windows",
    "tv swin": "window partition inside the attention, strided slices (patch merging)",
    "tv maxvit": "block and grid attention over [.., G, P, D], swapaxes",
    "timm beit": "separate q/v biases, layer scale",
    "timm resmlp": "scale with bias (affine)",
    "timm ghostnet": "channel slices",
    "hsi lstm": "a 2-layer bidirectional LSTM (rnn), its last step",
    "hsi pads": "F.pad in every mode, constant arithmetic",
    "hsi attention gates": "expand_as gates, max and mean over channels, F.normalize",
    "hsi selective kernel": "stack, sum over a split, softmax over branches",
    "hsi resampler": "interpolate in every mode (bicubic, area, nearest-exact, trilinear)",
    "hsi unfold": "F.unfold / F.fold, Tensor.unfold",
    "hsi grid position": "branches that read only parameters (a convolution over a fixed grid)",
    "hsi headwise matmul": "matmuls that broadcast a parameter or a shared operand",
    "timm mobilevit": "unfolded patches folded into the batch (a permute of a flattened window)",
    "timm levit": "attention biases indexed from a parameter, strided subsampling of tokens",
    "timm cspnet": "cross-stage splits and concats",
    "timm xcit": "cross-covariance attention, a Fourier positional encoding",
    "timm volo": "outlook attention (unfold / fold)",
}
FIXTURES = os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "families")


def write_fixture(family, fixture):
    name = family.replace(" ", "_") + ".json"
    fixture = {"generated_by": "tools/export_coverage.py --fixtures", "uses": FIXTURE_FAMILIES[family], **fixture}
    with open(os.path.join(FIXTURES, name), "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")


class BandLstm(nn.Module):
    """A spectral LSTM classifier: 200 bands as 20 steps of 10, a 2-layer bidirectional
    LSTM, the last step's output, a Linear (the shape of the band-group RNNs in HSI
    papers)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(10, 32, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(64, CLASSES)

    def forward(self, x):
        return self.fc(self.lstm(x)[0][:, -1])


def local_model(name, kwargs):
    """This repository's models: a local class, a zoo model's PyTorch mirror, or one of
    tools/samples/research_models.py (written as research code writes them)."""
    from samples.research_models import MODELS as RESEARCH
    from torch_zoo.segformer import SegFormer
    from torch_zoo.spectral import MouRnn

    models = {
        **{name: lambda cls=cls: cls(classes=CLASSES) for name, cls in RESEARCH.items()},
        "band_lstm": BandLstm,
        "mou_rnn": lambda bands: MouRnn(bands, CLASSES),
        "segformer": lambda bands: SegFormer(bands, CLASSES),
    }
    return models[name](**kwargs)


def build(library, name, kwargs):
    torch.manual_seed(0)
    if library == "local":
        return local_model(name, kwargs)
    if library.startswith("timm"):
        import timm

        if name not in timm.list_models():
            raise AssertionError(f"timm {timm.__version__} has no model {name}")
        # "timm.fused": timm's default F.scaled_dot_product_attention (fixed at construction).
        timm.layers.set_fused_attn(library == "timm.fused")
        try:
            return timm.create_model(name, pretrained=False, num_classes=CLASSES, **kwargs)
        finally:
            timm.layers.set_fused_attn(False)
    import torchvision

    if library == "torchvision.class":
        return getattr(torchvision.models, name)(**kwargs)
    module = torchvision.models.segmentation if library.endswith("segmentation") else torchvision.models
    return getattr(module, name)(weights=None, num_classes=CLASSES, **kwargs)


class MainOutput(nn.Module):
    """The tensor a segmentation model returns under "out" (what the exporter reads)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        out = self.model(x)
        return out["out"] if isinstance(out, dict) else out


def measured(model, input_shape, output_shape, precision):
    torch.manual_seed(0)
    x = torch.randn(BATCH, *input_shape)
    y = torch.randint(0, CLASSES, (BATCH, *output_shape[1:]))  # a class per sample or per pixel
    fwd, bwd, saved = validate_zoo.measure_step(MainOutput(model).train(), x, y, precision)
    return {"fwd": fwd, "bwd": bwd, "saved": saved}


def estimated(cli, spec, precision, attention):
    scenario = {"model": {"kind": "custom", "spec": spec}, "batch_per_gpu": BATCH, "precision": precision,
                "attention": attention}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(scenario, f)
        f.flush()
        run = subprocess.run([cli, "estimate", f.name], capture_output=True, text=True)
    if run.returncode != 0:
        raise ExportError(f"hsi-gpu estimate refused the layer list: {run.stderr.strip()}")
    report = json.loads(run.stdout)
    out = report["layers"][-1]["output_shape"]
    elements = 1
    for d in out:
        elements *= d
    # Cross-entropy keeps the fp32 log-probabilities and the int64 targets (+ a 4-byte
    # total weight), as core/src/analysis.rs counts them.
    loss = BATCH * (elements * 4 + elements // out[0] * 8) + 4
    return {
        "output_shape": out,
        "params": report["params"],
        "fwd": report["fwd_flops_per_sample"] * BATCH,
        "bwd": report["bwd_flops_per_sample"] * BATCH,
        "saved": sum(layer["saved_bytes"] for layer in report["layers"]) + loss,
    }


def check(cli, library, name, kwargs, input_shape):
    """(status, detail, fixture, worst): "ok", or "fail" with the first reason found; the
    fixture holds the layer list and PyTorch's figures; worst is the largest relative
    error of FLOPs and saved bytes (None where the model does not estimate)."""
    model = build(library, name, kwargs)
    spec, info = trace(model, input_shape, name)
    if info["unsupported"]:
        u = info["unsupported"][0]
        return "fail", f"unsupported {u['layer']}: {u['what']}", None, None
    if info["params_not_represented"]:
        return "fail", f"parameters not represented: {', '.join(info['params_not_represented'][:3])}", None, None
    fixture = {"source": {"library": library, "model": name, "kwargs": kwargs, "input": input_shape},
               "torch": torch.__version__, "torch_params": info["torch_params"], "torch_measured": [], "spec": spec}
    worst, failure = 0.0, None
    for precision in validate_zoo.PRECISIONS:
        got = estimated(cli, spec, precision, info["attention"])
        want = measured(model, input_shape, got["output_shape"], precision)
        fixture["torch_measured"].append({"batch": BATCH, "precision": precision, "fwd_flops": want["fwd"],
                                          "bwd_flops": want["bwd"], "saved_bytes": want["saved"]})
        if got["params"] != info["torch_params"] and not failure:
            failure = f"estimate counts {got['params']} parameters, torch {info['torch_params']}"
        for key in ("fwd", "bwd", "saved"):
            error = got[key] / max(want[key], 1) - 1
            if abs(error) > TOLERANCE and not failure:
                failure = f"{precision} {key} {got[key]:.4g} vs torch {want[key]:.4g} ({error * 100:+.1f} %)"
            worst = max(worst, abs(error))
    if failure:
        return "fail", failure, None, worst
    return "ok", f"{info['torch_params']} params, {len(spec['layers'])} layers, largest error {worst:.2%}", fixture, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="only this family (repeatable), e.g. 'timm swin'")
    parser.add_argument("--cli", default=CLI, help="the hsi-gpu binary (default: %(default)s)")
    parser.add_argument("--fixtures", action="store_true",
                        help="write core/tests/fixtures/families/*.json for FIXTURE_FAMILIES")
    parser.add_argument("--markdown", action="store_true", help="print the coverage table for docs/guide.md")
    args = parser.parse_args()
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    chosen = [f for f in FAMILIES if not args.family or f[0] in args.family]
    results, unexpected = [], []
    for family, library, name, kwargs, input_shape in chosen:
        start = time.monotonic()
        try:
            status, detail, fixture, worst = check(args.cli, library, name, kwargs, input_shape)
        except ExportError as e:
            status, detail, fixture, worst = "fail", str(e).splitlines()[0], None, None
        except Exception as e:  # a crash is a failure too, reported as unexpected below
            status, detail, fixture, worst = "fail", f"crash: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", None, None
        if args.fixtures and family in FIXTURE_FAMILIES and fixture:
            write_fixture(family, fixture)
        seconds = time.monotonic() - start
        results.append((family, name, status, detail))
        print(f"{family:22} {name:32} {status:4} {seconds:5.1f}s  {detail}", flush=True)
        known = KNOWN_FAILURES.get(family)
        if worst is not None and worst > CLIFF:
            unexpected.append(f"{family}: estimated {worst:.1f}x off PyTorch's FLOPs or saved bytes ({detail})")
        elif status == "ok" and known:
            unexpected.append(f"{family} passes now: remove it from KNOWN_FAILURES ({known})")
        elif status == "fail" and not (known and known in detail):
            unexpected.append(f"{family}: {detail}")
    passed = sum(1 for r in results if r[2] == "ok")
    print(f"\n{passed} of {len(results)} families export unchanged and match PyTorch within {TOLERANCE:.0%}")
    if args.markdown:
        print("\n| family | model | result |\n|---|---|---|")
        for family, name, status, detail in results:
            print(f"| {family} | `{name}` | {detail} |")
    for line in unexpected:
        print(f"unexpected: {line}", file=sys.stderr)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
