"""The PyTorch side of HSI GPU Planner: export a model to the planner's layer list (the
ModelSpec JSON of core/src/graph.rs) and measure training steps on a CUDA card.

    pip install ./tools            # from a checkout; torch, torchvision, timm are yours
    pip install './tools[torch]'   # or with PyTorch (extras: torch, torchvision, timm, all)

In a notebook:

    import hsi_export
    spec = hsi_export.export(model, (1, 200, 9, 9))    # the layer list, a dict
    scenario = hsi_export.scenario(model, (1, 200, 9, 9), bands=200, patch=9, classes=16,
                                   batch_per_gpu=64, gpu="rtx_a5500", precision="amp_bf16")
    hsi_export.save(scenario, "mynet-scenario.json")   # hsi-gpu estimate mynet-scenario.json
    spec, info = hsi_export.trace(model, (1, 200, 9, 9))   # + what the trace found

On the command line: `hsi-gpu-export --help`, `hsi-gpu-measure --help` (or
tools/export_model.py and tools/measure.py in a checkout). Importing the package needs
no torch; exporting and measuring do.
"""

from .api import export, save, scenario, trace
from .errors import ExportError

__all__ = ["ExportError", "export", "save", "scenario", "trace"]
