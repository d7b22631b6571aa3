"""The exporter's fixtures (core/tests/fixtures/exported/) and its self-test."""

import torch
from torch import nn

from .common import TRACE_BATCH, ExportError
from .env import repository_path
from .exporter import trace
from .loading import load_zoo_model, through_torch_export, write_json, zoo_models


def exported_zoo():
    """The zoo models the exporter reads: all but those marked `"exports": False` (the MAE
    presets: random masking by argsort and gather has no handler)."""
    return {k: e for k, e in zoo_models().items() if e.get("exports", True)}


def write_fixture(name, source, spec, info):
    fixture = {"generated_by": "tools/export_model.py --fixtures", "source": source, **info, "spec": spec}
    write_json(repository_path("core", "tests", "fixtures", "exported", f"{name}.json"), fixture)


def regenerate_fixtures():
    """One fixture per torch_zoo model (at its first validation point) and the sample ResNet."""
    repository_path("tools", "samples")
    torch.manual_seed(0)
    for model_id, entry in sorted(exported_zoo().items()):
        p = entry["points"][0]
        model, input_shape = load_zoo_model(model_id, p["bands"], p["patch"], p["classes"], p["width"], p["size"])
        spec, info = trace(model, input_shape, model_id)
        if info["unsupported"] or info["params_not_represented"]:
            raise ExportError(f"zoo model {model_id} did not export cleanly: {info}")
        source = {"zoo": model_id, **{k: p[k] for k in ("bands", "patch", "classes", "width", "size")}}
        write_fixture(f"zoo_{model_id}", source, spec, info)
        print(f"zoo_{model_id}: {len(spec['layers'])} layers, {info['torch_params']} params")
        if model_id in TORCH_EXPORT_ZOO:
            exported, shape, batch = through_torch_export(model, input_shape)
            spec, info = trace(exported, shape, model_id, batch)
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
        spec, info = trace(traced[0], traced[1], "ResNet-18 (torchvision-style)", traced[2])
        info["torch_measured"] = measured
        write_fixture(name, {**source, "via": via} if via else source, spec, info)
        print(f"{name}: {len(spec['layers'])} layers, {info['torch_params']} params")


# Zoo models whose torch.export graph the exporter reads back exactly. The transformers'
# attention is decomposed into ATen ops (qkv.chunk, einsum, ...) that the exporter cannot regroup
# into its attention op: export those from the Python class.
TORCH_EXPORT_ZOO = ("dbda", "hamida3d", "hu1d", "hybridsn", "ssrn", "unet")


EXPORTED_ATTENTION_HINT = (
    "note: a torch.export graph decomposes attention into ATen ops (chunk, einsum, ...) the exporter "
    "cannot regroup; export a transformer from its Python class (--module) instead"
)


def decomposed_attention(text):
    """True when an error names one of the ops a decomposed attention block is made of."""
    return any(op in text for op in ("chunk", "einsum", "unbind"))


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
    repository_path("tools", "samples")
    from samples.example_models import ResNet18, VisionBlocks, WithCustomLayers

    spec, info = trace(ResNet18(30, 16), [30, 32, 32], "resnet18")
    assert not info["unsupported"] and not info["params_not_represented"], info
    adds = [layer for layer in spec["layers"] if layer["op"] == "add"]
    assert len(adds) == 8, f"ResNet-18 has 8 residual adds, exported {len(adds)}"
    assert all(len(a["from"]) == 2 and a["from"][0] != a["from"][1] for a in adds), adds
    downsample = [layer for layer in spec["layers"] if ".downsample." in layer["name"]]
    assert len(downsample) == 6, "three 1x1 conv + BN shortcut branches"

    _, info = trace(WithCustomLayers(30, 16), [30, 9, 9], "custom")
    reported = {u["layer"]: u for u in info["unsupported"]}
    assert "act2" in reported and "leaky_relu" in reported["act2"]["nearest"], reported
    assert reported["spectral_sum.cumsum"]["substitute"] == "pass-through", reported
    assert info["params_not_represented"] == ["act2.weight"], info

    for model_id, entry in sorted(exported_zoo().items()):
        p = entry["points"][0]
        model, input_shape = load_zoo_model(model_id, p["bands"], p["patch"], p["classes"], p["width"], p["size"])
        _, info = trace(model, input_shape, model_id)
        assert not info["unsupported"] and not info["params_not_represented"], (model_id, info)
    # torch.export files: a CNN reads back as its Python class does; a transformer's
    # decomposed attention is reported, not guessed.
    model, input_shape = load_zoo_model("hybridsn", 30, 25, 16)
    from_class, _ = trace(model, input_shape, "hybridsn")
    exported, shape, batch = through_torch_export(model, input_shape)
    from_file, info = trace(exported, shape, "hybridsn", batch)
    assert [layer["op"] for layer in from_file["layers"]] == [layer["op"] for layer in from_class["layers"]]
    assert not info["unsupported"] and not info["params_not_represented"], info
    vit, vit_shape = load_zoo_model("vit", 30, 9, 16, None, "small")
    try:
        trace(*through_torch_export(vit, vit_shape)[:2], "vit")
        raise AssertionError("an exported ViT should report its decomposed attention")
    except ExportError as e:
        assert decomposed_attention(str(e)), e
    spec, info = trace(VisionBlocks(30, 16), [30, 9, 9], "blocks")
    assert not info["unsupported"] and not info["params_not_represented"], info
    ops = {(layer["op"], layer.get("kind")) for layer in spec["layers"]}
    for op in (("concat", None), ("act", "hardswish"), ("act", "hardsigmoid"), ("act", "relu6"),
               ("layer_norm", None), ("scale", None), ("drop_path", None), ("slice", None)):
        assert op in ops, (op, sorted(ops, key=str))
    concat = next(layer for layer in spec["layers"] if layer["op"] == "concat")
    assert len(concat["from"]) == 1, concat
    shared = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    twice = nn.Sequential(shared, shared)
    spec, info = trace(twice, [8], "shared")
    assert len(spec["layers"]) == 4 and not info["warnings"], (spec, info)
    assert spec["layers"][2]["shares"] == spec["layers"][0]["name"], spec  # counted once
    print("export_model self-test: ok")
