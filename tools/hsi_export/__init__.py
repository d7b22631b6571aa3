"""Exports a PyTorch model to the planner's custom layer list (the ModelSpec JSON of
core/src/graph.rs), so `hsi-gpu estimate` and the web app can size your own model.

    # your model: an importable class (or function) and its constructor arguments
    python3 tools/export_model.py --module mypkg.models:MyNet --args '[200, 16]' \\
        --kwargs '{"width": 32}' --input 1,200,9,9 --output mynet.json
    # a whole model saved with torch.save(model) (not a state_dict, not TorchScript)
    python3 tools/export_model.py --pickle mynet.pt --input 1,200,9,9 --output mynet.json
    # a torch.export.save file; the input shape comes from its example input
    python3 tools/export_model.py --exported mynet.pt2 --output mynet.json
    # a zoo model's PyTorch version (tools/torch_zoo/)
    python3 tools/export_model.py --zoo hybridsn --bands 30 --patch 25 --classes 16
    # wrap the layer list in a Scenario ready for `hsi-gpu estimate`
    python3 tools/export_model.py ... --scenario scenario.json --bands 200 --patch 9 --classes 16
    # regenerate core/tests/fixtures/exported/ and run the self-check
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

from .common import ExportError
from .exporter import export

__all__ = ["ExportError", "export"]
