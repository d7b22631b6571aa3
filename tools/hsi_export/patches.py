"""A synthetic hyperspectral cube and DeepHyperX-style patch Datasets over it: what
tools/bench_pipeline.py times and `hsi-gpu-measure --num-workers` feeds a DataLoader
with. numpy only; torch tensors and torch's Dataset when torch is installed."""

import numpy as np

try:
    import torch
    from torch.utils.data import Dataset
except ImportError:  # numpy only
    torch = None
    Dataset = object


class CutPatches(Dataset):
    """DeepHyperX-style: a window around a labelled pixel, cut per sample."""

    def __init__(self, cube, labels, patch, augment, samples=4096, seed=0):
        m = patch // 2
        self.data = np.pad(cube, ((m, m), (m, m), (0, 0)))
        self.labels = labels
        self.patch = patch
        self.augment = augment
        self.rng = np.random.default_rng(seed)
        labelled = np.argwhere(labels > 0)
        # A training split's worth of pixels (keeps the pre-cut copy small).
        self.indices = labelled[self.rng.permutation(len(labelled))[:samples]]

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        x, y = self.indices[i]
        s = self.patch
        window = self.data[x : x + s, y : y + s]
        label = self.labels[x, y] - 1
        if self.augment:
            if self.rng.random() < 0.5:
                window = np.fliplr(window)
            if self.rng.random() < 0.5:
                window = np.flipud(window)
            window = np.rot90(window, int(self.rng.integers(4)))
        window = np.asarray(np.copy(window).transpose((2, 0, 1)), dtype="float32")
        if torch is None:
            return window, label
        return torch.from_numpy(window), torch.tensor(label, dtype=torch.long)


class PrecutPatches(Dataset):
    """SSFTT/HybridSN-style: every patch cut once; a sample is an index."""

    def __init__(self, cube, labels, patch, samples=4096):
        cut = CutPatches(cube, labels, patch, augment=False, samples=samples)
        patches = np.stack([cut[i][0] if torch is None else cut[i][0].numpy() for i in range(len(cut))])
        targets = np.array([labels[x, y] - 1 for x, y in cut.indices])
        if torch is None:
            self.x, self.y = patches, targets
        else:
            self.x, self.y = torch.from_numpy(patches), torch.from_numpy(targets)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def synthetic_cube(height, width, bands, labelled=0.5, seed=0):
    rng = np.random.default_rng(seed)
    cube = rng.standard_normal((height, width, bands), dtype=np.float32)
    labels = np.where(rng.random((height, width)) < labelled, rng.integers(1, 17, (height, width)), 0)
    return cube, labels
