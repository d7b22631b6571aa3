"""The notebook API: a model in memory to the planner's layer list, or to a whole
Scenario to estimate (`hsi-gpu estimate FILE`) or load on the page."""

import json
import warnings


def _shape(input_shape):
    try:
        shape = [int(d) for d in input_shape]
    except TypeError as e:
        raise ValueError(f"input_shape {input_shape!r}: a sequence of sizes, e.g. (1, 200, 9, 9)") from e
    if not shape or min(shape) < 1:
        raise ValueError(f"input_shape {input_shape!r}: positive sizes, without the batch dimension")
    return shape


def trace(model, input_shape, name=None, batch=None):
    """(spec, info): the layer list and what the trace found (torch's trainable parameter
    count `torch_params`, `unsupported` layers with their nearest op, the
    `params_not_represented`, `warnings`, and the `attention` kernel the model runs).
    `batch` is the trace's (default 2: batch norm in training needs more than one value)."""
    from .common import TRACE_BATCH
    from .exporter import trace as run

    return run(model, _shape(input_shape), name or type(model).__name__, batch or TRACE_BATCH)


def export(model, input_shape, name=None, allow_unsupported=False):
    """The layer list (core/src/graph.rs's ModelSpec, a dict) of `model` for one sample of
    `input_shape` (no batch dimension, as forward takes it: e.g. (1, 200, 9, 9) for a 3-D
    CNN). Raises ExportError when a layer has no op, naming each with its nearest op;
    `allow_unsupported=True` writes the nearest op instead (or passes the input through)
    and warns. The trace's other remarks are Python warnings."""
    return _checked(model, input_shape, name, allow_unsupported)[0]


def scenario(model, input_shape, bands=None, patch=None, classes=None, name=None, allow_unsupported=False, **fields):
    """A Scenario (dict) with `model`'s layer list as a custom model (as `export` writes
    it), the attention kernel the model runs, and `bands`, `patch`, `classes` and any
    other Scenario field given by keyword (`batch_per_gpu=64`, `gpu="rtx_a5500"`,
    `precision="amp_bf16"`, ...; the rest keep their defaults). `hsi-gpu estimate`
    refuses a field it does not know, with its path. `save(scenario, "my.json")` writes it."""
    from .loading import scenario_for

    spec, info = _checked(model, input_shape, name, allow_unsupported)
    return scenario_for(spec, info, bands, patch, classes, **fields)


def _checked(model, input_shape, name, allow_unsupported):
    from .errors import ExportError

    spec, info = trace(model, input_shape, name)
    unsupported = [f"{u['layer']} ({u['what']}): nearest {u['nearest']}" for u in info["unsupported"]]
    if unsupported and not allow_unsupported:
        raise ExportError("unsupported layers (allow_unsupported=True writes the nearest op): " + "; ".join(unsupported))
    remarks = [f"unsupported, written as its nearest op: {u}" for u in unsupported] + info["warnings"]
    if info["params_not_represented"]:
        remarks.append(f"parameters no layer represents: {', '.join(info['params_not_represented'])}")
    for remark in remarks:
        warnings.warn(remark, stacklevel=3)
    return spec, info


def save(value, path):
    """Writes a layer list or a Scenario as JSON (what `hsi-gpu estimate` and the page read)."""
    with open(path, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
