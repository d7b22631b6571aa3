"""Where models come from: an importable class or factory, a pickled module, a
torch.export file, or the zoo's PyTorch versions; and the files the exporter writes."""

import importlib
import json
import os
import sys
import tempfile
import zipfile

import torch
from torch import nn

from .common import TRACE_BATCH, ExportError
from .env import TOOLS


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


def through_torch_export(model, input_shape):
    """(module, input shape, batch) as `--exported` reads them after a torch.export.save
    round trip of `model` (train mode, the exporter's trace batch)."""
    model.train()
    program = torch.export.export(model, (torch.randn(TRACE_BATCH, *input_shape),))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt2")
        torch.export.save(program, path)
        return load_exported_model(path)


def zoo_models():
    if TOOLS not in sys.path:
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


def scenario_for(spec, info, bands, patch, classes, **fields):
    """A Scenario (defaults elsewhere) with the exported layer list as a custom model and
    the attention kernel the model runs (sdpa for F.scaled_dot_product_attention, math
    for attention written out), then `fields` as given."""
    scenario = {"model": {"kind": "custom", "spec": spec}, "attention": info["attention"]}
    scenario.update({k: v for k, v in (("bands", bands), ("patch", patch), ("classes", classes)) if v is not None})
    scenario.update(fields)
    return scenario


def write_json(path, value):
    text = json.dumps(value, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w") as f:
            f.write(text)
