"""Spectral presets of the zoo in PyTorch, layer for layer as core/src/zoo/recurrent.rs
and core/src/zoo/unmixing.rs build them (deviations as in their doc comments)."""

import torch
from torch import nn
import torch.nn.functional as F

from . import point


class MouRnn(nn.Module):
    """Mou et al. 2017, band-sequence GRU; DeepHyperX models.py `MouEtAl`, read
    batch-first. Input [N, B, 1]. `width` = GRU units (paper: 64)."""

    def __init__(self, bands, classes, width=None):
        super().__init__()
        units = width or 64
        self.gru = nn.GRU(1, units, 1, batch_first=True)
        self.bn = nn.BatchNorm1d(units * bands)
        self.fc = nn.Linear(units * bands, classes)

    def forward(self, x):
        x = self.gru(x)[0].permute(0, 2, 1).flatten(1)
        return self.fc(torch.tanh(self.bn(x)))


class UnmixingAE(nn.Module):
    """Palsson et al. 2018, DAEU. Input [N, B]. `width` = endmembers R (default 4)."""

    def __init__(self, bands, width=None):
        super().__init__()
        r = width or 4
        sizes = [bands, 9 * r, 6 * r, 3 * r, r]
        self.encoder = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(sizes, sizes[1:]))
        self.bn = nn.BatchNorm1d(r)
        self.dropout = nn.Dropout(0.0045)
        self.decoder = nn.Linear(r, bands, bias=False)

    def forward(self, x):
        for layer in self.encoder:
            x = F.leaky_relu(layer(x), 0.1)
        abundances = torch.softmax(F.relu(self.bn(x)), dim=-1)
        return self.decoder(self.dropout(abundances))


MODELS = {
    "mou_rnn": {
        "build": lambda bands, patch, classes, width=None, size=None: MouRnn(bands, classes, width),
        "input": lambda bands, patch: (bands, 1),
        "target": "class",
        "points": [point(200, 1, 16, 4), point(103, 1, 9, 8), point(30, 1, 6, 16, width=16)],
    },
    "unmixing_ae": {
        "build": lambda bands, patch, classes, width=None, size=None: UnmixingAE(bands, width),
        "input": lambda bands, patch: (bands,),
        "target": "class",
        "points": [point(198, 1, 16, 64), point(156, 1, 9, 32), point(162, 1, 6, 128, width=6)],
    },
}
