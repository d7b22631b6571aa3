"""The command line of tools/export_model.py."""

import argparse
import json
import os
import sys

import torch

from . import __doc__ as DOC
from .common import TRACE_BATCH, ExportError
from .exporter import export
from .loading import TOOLS, load_exported_model, load_module_model, load_pickled_model, load_zoo_model, scenario_for, write_json
from .selftest import EXPORTED_ATTENTION_HINT, decomposed_attention, regenerate_fixtures, self_test


def parse_shape(text):
    try:
        shape = [int(v) for v in text.split(",")]
    except ValueError:
        shape = []
    if not shape or min(shape) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers separated by commas, e.g. 1,200,9,9")
    return shape


def main():
    parser = argparse.ArgumentParser(description=DOC.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=DOC.split("\n\n", 1)[1])
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
        write_json(args.scenario, scenario_for(spec, args.bands, args.patch, args.classes))
    return 0
