#!/usr/bin/env python3
"""Measures nn.LSTM and nn.GRU in PyTorch over the `rnn` op's options and writes
core/tests/fixtures/pytorch_rnn.json, which core/tests/recurrent.rs checks the estimate
against (parameters, FLOPs and saved bytes; every case carries its layer list).

    python3 tools/validate_rnn.py

Each case is a small model: [Linear D ->] LSTM/GRU -> the last step -> Linear C, with
cell, layers, bidirectional, bias, batch_first and a Linear before the RNN (so its input
needs a gradient) varied, measured as tools/validate_zoo.py measures the zoo (one
training step with cross-entropy, flop_counter, saved-tensor hooks; fp32 and emulated
CUDA bf16 autocast; aten's native LSTM/GRU cells with oneDNN off). batch_first=False
reads a time-major input, as a model that keeps its sequence time-major does.
"""

import itertools
import os
import sys

import torch
from torch import nn

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from validate_zoo import PRECISIONS, measure_step, write_fixture  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(TOOLS), "core", "tests", "fixtures", "pytorch_rnn.json")
STEPS, FEATURES, HIDDEN, CLASSES, BATCH = 9, 5, 6, 3, 4


class Wrapped(nn.Module):
    def __init__(self, cell, layers, bidirectional, bias, batch_first, pre_linear):
        super().__init__()
        self.pre = nn.Linear(FEATURES, FEATURES) if pre_linear else None
        rnn = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = rnn(FEATURES, HIDDEN, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional)
        self.batch_first = batch_first
        self.fc = nn.Linear(HIDDEN * (2 if bidirectional else 1), CLASSES)

    def forward(self, x):
        if self.pre is not None:
            x = self.pre(x)
        out = self.rnn(x)[0]
        return self.fc(out[:, -1] if self.batch_first else out[-1])


def spec(cell, layers, bidirectional, bias, batch_first, pre_linear):
    rnn = {"op": "rnn", "cell": cell, "hidden": HIDDEN, "layers": layers, "bidirectional": bidirectional,
           "bias": bias, "batch_first": batch_first}
    pre = [{"op": "linear", "out_features": FEATURES}] if pre_linear else []
    tail = [{"op": "take_token", "index": STEPS - 1}, {"op": "linear", "out_features": CLASSES}]
    return {"name": "rnn", "input": [STEPS, FEATURES], "layers": pre + [rnn] + tail}


def main():
    torch.set_num_threads(min(2, os.cpu_count() or 1))
    cases = []
    grid = itertools.product(("lstm", "gru"), (1, 2), (False, True), (True, False), (True, False), (False, True))
    for cell, layers, bidirectional, bias, batch_first, pre_linear in grid:
        if pre_linear and not batch_first:
            continue  # a Linear's output is batch-first: the RNN would get a transposed copy
        torch.manual_seed(0)
        model = Wrapped(cell, layers, bidirectional, bias, batch_first, pre_linear).train()
        shape = (BATCH, STEPS, FEATURES) if batch_first else (STEPS, BATCH, FEATURES)
        x = torch.randn(*shape)
        y = torch.randint(0, CLASSES, (BATCH,))
        for precision in PRECISIONS:
            fwd, bwd, saved = measure_step(model, x, y, precision)
            case = {
                "spec": spec(cell, layers, bidirectional, bias, batch_first, pre_linear),
                "batch": BATCH,
                "precision": precision,
                "params": sum(p.numel() for p in model.parameters()),
                "fwd_flops": fwd,
                "bwd_flops": bwd,
                "saved_bytes": saved,
            }
            print(case, flush=True)
            cases.append(case)
    write_fixture(FIXTURE, cases, "tools/validate_rnn.py")
    print(f"wrote {len(cases)} cases to {FIXTURE}")


if __name__ == "__main__":
    main()
