"""PyTorch mirrors of the Rust model zoo (core/src/zoo/), used only to regenerate the
validation fixture core/tests/fixtures/pytorch_zoo.json (see tools/validate_zoo.py).

Every module in this package defines ``MODELS = {zoo_id: entry}`` where entry is
``{"build": fn(bands, patch, classes, width=None, size=None) -> nn.Module,
"input": fn(bands, patch) -> per-sample input shape, "target": "class" | "pixel" | fn(bands,
patch) -> per-sample target shape (a class per token: the MAE presets),
"exports": False when the exporter cannot read it (default True),
"points": [dict(bands=, patch=, classes=, batch=, width=None, size=None), ...]}``.
``all_models()`` merges the registries of every module found here, so a new model
family only needs a new module.
"""

import importlib
import pkgutil


def point(bands, patch, classes, batch, width=None, size=None):
    """One measurement point of a model's ``points`` list."""
    return dict(bands=bands, patch=patch, classes=classes, batch=batch, width=width, size=size)


def all_models():
    """Every zoo model of every module in this package, by zoo id."""
    models = {}
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for model_id, entry in getattr(module, "MODELS", {}).items():
            if model_id in models:
                raise ValueError(f"zoo id {model_id!r} defined twice (in {info.name})")
            models[model_id] = entry
    return models
