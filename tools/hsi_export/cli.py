"""Exports a PyTorch model to the planner's custom layer list (the ModelSpec JSON of
core/src/graph.rs), so `hsi-gpu estimate` and the web app can size your own model.
`hsi-gpu-export` (pip install ./tools) or python3 tools/export_model.py in a checkout.

    # your model: an importable class (or function) and its constructor arguments
    hsi-gpu-export --module mypkg.models:MyNet --args '[200, 16]' \\
        --kwargs '{"width": 32}' --input 1,200,9,9 --output mynet.json
    # a whole model saved with torch.save(model) (not a state_dict, not TorchScript)
    hsi-gpu-export --pickle mynet.pt --input 1,200,9,9 --output mynet.json
    # a torch.export.save file; the input shape comes from its example input
    hsi-gpu-export --exported mynet.pt2 --output mynet.json
    # a zoo model's PyTorch version (tools/torch_zoo/)
    hsi-gpu-export --zoo hybridsn --bands 30 --patch 25 --classes 16
    # wrap the layer list in a Scenario ready for `hsi-gpu estimate`
    hsi-gpu-export ... --scenario scenario.json --bands 200 --patch 9 --classes 16
    # in a checkout: regenerate core/tests/fixtures/exported/ and run the self-check
    python3 tools/export_model.py --fixtures
    python3 tools/export_model.py --self-test

`--input` is the per-sample input shape (no batch dimension), channels first as the
model's forward takes it. `--path DIR` (repeatable) puts DIR on sys.path first.

How it works: one forward pass (train mode, batch 2, random input, no gradients) runs
under module hooks and a TorchFunctionMode that see every module call and every torch
function called on a tensor derived from the input. Modules whose class is in
`modules.MODULE_HANDLERS` (nn.Conv1d/2d/3d, Linear, BatchNorm, LayerNorm, GroupNorm,
activations, Dropout, pools, Upsample, Flatten) and self-attention blocks
(`attention.py`: vit-pytorch style `to_qkv`/`to_out`/`heads`, timm style
`qkv`/`proj`/`num_heads` including Swin's windows and relative position bias tables,
nn.MultiheadAttention) become one layer each; anything else, subclasses of those
classes included, is traced through, and its torch calls become layers by
`functions.FUNCTION_HANDLERS` (add/sub, mul, cat, matmul/bmm/einsum, views, permutes,
slices and chunks, token selection, functional activations, norms, pools, means,
interpolate). A parameter concatenated in front of the tokens becomes `class_token`,
one added to the tokens `position_embedding`, a matrix product with a parameter a
bias-free `linear`, a product with a learned vector (layer scale) `scale`, a product
with a per-sample random factor (stochastic depth) `drop_path`. A view that folds the
batch with other dimensions (Swin's window partition) keeps the folded factor as the
first per-sample dimension. Every layer names the layers it reads (`from`), so residual
adds and concatenations survive. Layers that do not reach the output are left out.
`tools/export_coverage.py` checks one model per torchvision and timm family against
PyTorch.

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
module names. Its attention blocks are decomposed (qkv.chunk, einsum, ...) into ops this
exporter cannot regroup into its attention op: export transformers from the Python
class. The example input the program was exported with sets the input shape and batch.

Not handled: TorchScript (its forward runs outside Python: export from the Python class
or save with torch.export), recurrent layers, data-dependent control flow beyond the one
traced path.
"""

import argparse
import json
import os
import sys

from .env import TOOLS, require_torch
from .errors import ExportError


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
    require_torch("hsi-gpu-export")
    import torch

    from .common import TRACE_BATCH
    from .exporter import trace
    from .loading import load_exported_model, load_module_model, load_pickled_model, load_zoo_model, scenario_for, write_json
    from .selftest import EXPORTED_ATTENTION_HINT, decomposed_attention, regenerate_fixtures, self_test

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
        spec, info = trace(model, input_shape, args.name or default_name, batch)
    except (ExportError, json.JSONDecodeError) as e:
        print(f"export_model: {e}", file=sys.stderr)
        if args.exported and decomposed_attention(str(e)):
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
    if args.exported and any(decomposed_attention(u["what"]) for u in info["unsupported"]):
        print(EXPORTED_ATTENTION_HINT, file=sys.stderr)
    if info["unsupported"] and not args.allow_unsupported:
        print("export_model: unsupported layers (above); rerun with --allow-unsupported to write nearest equivalents", file=sys.stderr)
        return 3
    write_json(args.output, spec)
    if args.scenario:
        write_json(args.scenario, scenario_for(spec, info, args.bands, args.patch, args.classes))
    return 0
