#!/usr/bin/env python3
"""Measures the no-grad forward pass of zoo models in PyTorch on the CPU and writes
core/tests/fixtures/pytorch_no_grad.json, which core/tests/inference.rs checks the
estimate's no-grad activation peak (`inference::no_grad_peak_per_sample`) against.

    python3 tools/validate_no_grad.py

Method: the model in eval mode under torch.no_grad(), fp32, a random batch held by the
caller (as a prediction loop holds it). A TorchDispatchMode sees every ATen op; after
each op it records the storage of every output (views share their source's) with a
weak reference, and sums the bytes of the storages still alive: the tensors Python and
the ops still reference, freed when the last reference goes (CPython frees at once).
Parameters and buffers are excluded, the input batch included. The peak of that sum
over the pass is the activation peak the estimate models; what a kernel allocates and
frees inside itself (cuDNN or oneDNN workspace) is not seen, nor is the allocator's
rounding (the estimate's `memory.fragmentation` stands for it). LSTM/GRU run fused
(oneDNN), as cuDNN runs them on a GPU.
"""

import json
import os
import sys

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from torch_zoo import all_models  # noqa: E402
from hsi_export.common import tensors_in  # noqa: E402
from validate_zoo import write_fixture  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "pytorch_no_grad.json")
BATCH = 8


class LiveBytes(TorchDispatchMode):
    """The largest sum of live activation storages after any op."""

    def __init__(self, excluded, held):
        super().__init__()
        self.excluded = excluded
        self.storages = {}
        self.peak = 0
        for tensor in held:
            self.track(tensor)

    def track(self, tensor):
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if storage.nbytes() == 0 or key in self.excluded:
            return
        known = self.storages.get(key)
        if known is None or known[0].expired():
            self.storages[key] = (StorageWeakRef(storage), storage.nbytes())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in tensors_in(out):
            self.track(tensor)
        live = sum(n for ref, n in self.storages.values() if not ref.expired())
        self.peak = max(self.peak, live)
        return out


def measure(entry, p):
    torch.manual_seed(0)
    model = entry["build"](p["bands"], p["patch"], p["classes"], width=p["width"], size=p["size"]).eval()
    x = torch.randn(BATCH, *entry["input"](p["bands"], p["patch"]))
    excluded = {t.untyped_storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
    with torch.no_grad(), LiveBytes(excluded, [x]) as live:
        model(x)
    return live.peak


def main():
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    cases = []
    for model_id, entry in sorted(all_models().items()):
        p = entry["points"][0]
        peak = measure(entry, p)
        case = {"model": model_id, "options": {k: p[k] for k in ("bands", "patch", "classes", "width", "size")},
                "batch": BATCH, "precision": "fp32", "peak_bytes": peak}
        print(json.dumps(case), flush=True)
        cases.append(case)
    write_fixture(FIXTURE, cases, "tools/validate_no_grad.py", __doc__.split("\n\n")[2].replace("\n", " "))
    print(f"wrote {len(cases)} cases to {FIXTURE}")


if __name__ == "__main__":
    main()
