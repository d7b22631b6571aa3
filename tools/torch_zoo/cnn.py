"""CNN models of the zoo in PyTorch, layer for layer as the Rust builders in core/src/zoo/
define them (same order, same hyper-parameters, non-inplace activations). Each class
names its paper and reference implementation; deviations are the same as in the Rust
builder's doc comment.
"""

import math

import torch
from torch import nn
import torch.nn.functional as F

from . import point


class Hu1d(nn.Module):
    """Hu et al. 2015, 1-D CNN; nshaud/DeepHyperX models.py `HuEtAl`.
    Input [N, 1, B]: one pixel's spectrum. `width` = conv kernels (paper: 20)."""

    def __init__(self, bands, classes, width=None):
        super().__init__()
        kernels = width or 20
        kernel = math.ceil(bands / 9)
        pool = math.ceil(kernel / 5)
        self.conv = nn.Conv1d(1, kernels, kernel)
        self.pool = nn.MaxPool1d(pool)
        features = kernels * ((bands - kernel + 1) // pool)
        self.fc1 = nn.Linear(features, 100)
        self.fc2 = nn.Linear(100, classes)

    def forward(self, x):
        x = torch.tanh(self.pool(self.conv(x)))
        x = torch.tanh(self.fc1(x.flatten(1)))
        return self.fc2(x)


class Hamida3d(nn.Module):
    """Ben Hamida et al. 2018, 3-D CNN; DeepHyperX models.py `HamidaEtAl`. Input [N, 1, B, s, s]."""

    def __init__(self, bands, patch, classes):
        super().__init__()
        self.conv1 = nn.Conv3d(1, 20, 3, padding=1 if patch == 3 else 0)
        self.pool1 = nn.Conv3d(20, 20, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0))
        self.conv2 = nn.Conv3d(20, 35, 3, padding=(1, 0, 0))
        self.pool2 = nn.Conv3d(35, 35, (3, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0))
        self.conv3 = nn.Conv3d(35, 35, (3, 1, 1), padding=(1, 0, 0))
        self.conv4 = nn.Conv3d(35, 35, (2, 1, 1), stride=(2, 1, 1), padding=(1, 0, 0))
        with torch.no_grad():
            features = self._features(torch.zeros(1, 1, bands, patch, patch)).numel()
        self.fc = nn.Linear(features, classes)

    def _features(self, x):
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = F.relu(self.conv3(x))
        return F.relu(self.conv4(x))

    def forward(self, x):
        return self.fc(self._features(x).flatten(1))


class HybridSN(nn.Module):
    """Roy et al. 2020, HybridSN; gokriznastic/HybridSN (Keras notebook). Input [N, 1, B, s, s]."""

    def __init__(self, bands, patch, classes):
        super().__init__()
        self.conv3d_1 = nn.Conv3d(1, 8, (7, 3, 3))
        self.conv3d_2 = nn.Conv3d(8, 16, (5, 3, 3))
        self.conv3d_3 = nn.Conv3d(16, 32, (3, 3, 3))
        self.conv2d = nn.Conv2d(32 * (bands - 12), 64, 3)
        self.fc1 = nn.Linear(64 * (patch - 8) ** 2, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, classes)
        self.dropout = nn.Dropout(0.4)

    def forward(self, x):
        x = F.relu(self.conv3d_1(x))
        x = F.relu(self.conv3d_2(x))
        x = F.relu(self.conv3d_3(x))
        n, c, d, h, w = x.shape
        x = F.relu(self.conv2d(x.reshape(n, c * d, h, w)))
        x = self.dropout(F.relu(self.fc1(x.flatten(1))))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.fc3(x)


class SsrnResidual(nn.Module):
    """lironui's `Residual`: conv-ReLU-BN-ReLU, conv-BN, add the input, ReLU."""

    def __init__(self, channels, kernel, padding):
        super().__init__()
        self.conv1 = nn.Conv3d(channels, channels, kernel, padding=padding)
        self.bn1 = nn.BatchNorm3d(channels)
        self.conv2 = nn.Conv3d(channels, channels, kernel, padding=padding)
        self.bn2 = nn.BatchNorm3d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(F.relu(self.conv1(x))))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class Ssrn(nn.Module):
    """Zhong et al. 2018, SSRN; PyTorch port lironui/Double-Branch-Dual-Attention-Mechanism-Network
    global_module/network.py `SSRN_network` (original Keras: zilongzhong/SSRN).
    Input [N, 1, s, s, B] (bands last). `width` = residual-block kernels (paper: 24)."""

    def __init__(self, bands, patch, classes, width=None):
        super().__init__()
        kernels = width or 24
        self.conv1 = nn.Conv3d(1, kernels, (1, 1, 7), stride=(1, 1, 2))
        self.bn1 = nn.BatchNorm3d(kernels)
        self.res1 = SsrnResidual(kernels, (1, 1, 7), (0, 0, 3))
        self.res2 = SsrnResidual(kernels, (1, 1, 7), (0, 0, 3))
        self.conv2 = nn.Conv3d(kernels, 128, (1, 1, math.ceil((bands - 6) / 2)))
        self.bn2 = nn.BatchNorm3d(128)
        self.conv3 = nn.Conv3d(1, kernels, (3, 3, 128))
        self.bn3 = nn.BatchNorm3d(kernels)
        self.res3 = SsrnResidual(kernels, (3, 3, 1), (1, 1, 0))
        self.res4 = SsrnResidual(kernels, (3, 3, 1), (1, 1, 0))
        # The port's AvgPool3d((5, 5, 1)) at s = 7: a global average over what is left.
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(kernels, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.res2(self.res1(x))
        x = F.relu(self.bn2(self.conv2(x)))
        x = x.permute(0, 4, 2, 3, 1)
        x = F.relu(self.bn3(self.conv3(x)))
        x = self.res4(self.res3(x))
        return self.fc(self.pool(x).flatten(1))


class BnMish(nn.Sequential):
    def __init__(self, channels):
        super().__init__(nn.BatchNorm3d(channels), nn.Mish())


class DenseBlock(nn.Module):
    """DBDA's dense block: a first conv, then three BN-Mish-conv steps, each fed by the
    concatenation of everything before it; returns all four outputs concatenated."""

    def __init__(self, first, kernel, padding, growth=12, steps=3):
        super().__init__()
        self.first = first
        channels = first.out_channels
        self.norms = nn.ModuleList()
        self.convs = nn.ModuleList()
        for _ in range(steps):
            self.norms.append(BnMish(channels))
            self.convs.append(nn.Conv3d(channels, growth, kernel, padding=padding))
            channels += growth
        self.out_channels = channels

    def forward(self, x):
        features = [self.first(x)]
        for norm, conv in zip(self.norms, self.convs):
            joined = features[0] if len(features) == 1 else torch.cat(features, dim=1)
            features.append(conv(norm(joined)))
        return torch.cat(features, dim=1)


class ChannelAttention(nn.Module):
    """DANet/DBDA `CAM_Module` without gamma: softmax(X X^T) X + X over channels."""

    def forward(self, x):
        n, c = x.shape[:2]
        flat = x.reshape(n, c, -1)
        attention = torch.softmax(torch.bmm(flat, flat.permute(0, 2, 1)), dim=-1)
        return torch.bmm(attention, flat).reshape(x.shape) + x


class PositionAttention(nn.Module):
    """DANet/DBDA `PAM_Module` without gamma: 1x1x1 query/key (C/8) and value (C) convs,
    softmax(Q^T K) over positions, V A^T + X."""

    def __init__(self, channels):
        super().__init__()
        self.query = nn.Conv3d(channels, channels // 8, 1)
        self.key = nn.Conv3d(channels, channels // 8, 1)
        self.value = nn.Conv3d(channels, channels, 1)

    def forward(self, x):
        n, c = x.shape[:2]
        positions = math.prod(x.shape[2:])
        query = self.query(x).reshape(n, -1, positions).permute(0, 2, 1)
        key = self.key(x).reshape(n, -1, positions)
        attention = torch.softmax(torch.bmm(query, key), dim=-1)
        value = self.value(x).reshape(n, c, -1)
        out = torch.bmm(value, attention.permute(0, 2, 1))
        return out.reshape(x.shape) + x


class Dbda(nn.Module):
    """Li et al. 2020, DBDA; lironui/Double-Branch-Dual-Attention-Mechanism-Network
    global_module/network.py `DBDA_network_MISH` (+ DBMA/attontion.py). Input [N, 1, s, s, B].
    Deviations (as in core/src/zoo/dbda.rs): no gamma scalars, no max-shift in the
    channel attention (softmax is shift-invariant), the unused `conv25` left out."""

    def __init__(self, bands, patch, classes):
        super().__init__()
        self.spectral = DenseBlock(
            nn.Conv3d(1, 24, (1, 1, 7), stride=(1, 1, 2)), (1, 1, 7), (0, 0, 3)
        )
        self.spectral_norm = BnMish(60)
        self.spectral_conv = nn.Conv3d(60, 60, (1, 1, (bands - 6) // 2))
        self.channel_attention = ChannelAttention()
        self.spatial = DenseBlock(nn.Conv3d(1, 24, (1, 1, bands)), (3, 3, 1), (1, 1, 0))
        self.position_attention = PositionAttention(60)
        self.spectral_head = nn.Sequential(BnMish(60), nn.Dropout(0.5))
        self.spatial_head = nn.Sequential(BnMish(60), nn.Dropout(0.5))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(120, classes)

    def forward(self, x):
        x16 = self.spectral_conv(self.spectral_norm(self.spectral(x)))
        x1 = self.channel_attention(x16) * x16
        x25 = self.spatial(x)
        x2 = self.position_attention(x25) * x25
        x1 = self.pool(self.spectral_head(x1)).flatten(1)
        x2 = self.pool(self.spatial_head(x2)).flatten(1)
        return self.fc(torch.cat((x1, x2), dim=1))


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1),
        nn.BatchNorm2d(cout),
        nn.ReLU(),
    )


class UNet(nn.Module):
    """Our simplified whole-scene U-Net (after Ronneberger et al. 2015 and FreeNet,
    Z-Zheng/FreeNet): input [N, B, s, s] tile; four levels of double conv + 2x2 max-pool,
    a bottleneck at s/16, four levels of nearest x2 upsample + concat skip + double conv,
    1x1 conv to classes. `width` = first level's channels (default 32), doubling per level."""

    LEVELS = 4

    def __init__(self, bands, classes, width=None):
        super().__init__()
        base = width or 32
        widths = [base * 2**i for i in range(self.LEVELS + 1)]
        self.down = nn.ModuleList()
        cin = bands
        for w in widths[:-1]:
            self.down.append(double_conv(cin, w))
            cin = w
        self.bottleneck = double_conv(widths[-2], widths[-1])
        self.up = nn.ModuleList(
            double_conv(widths[i + 1] + widths[i], widths[i])
            for i in reversed(range(self.LEVELS))
        )
        self.head = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        skips = []
        for block in self.down:
            x = block(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.bottleneck(x)
        for block, skip in zip(self.up, reversed(skips)):
            x = F.interpolate(x, scale_factor=2, mode="nearest")
            x = block(torch.cat((x, skip), dim=1))
        return self.head(x)


MODELS = {
    "hu1d": {
        "build": lambda bands, patch, classes, width=None, size=None: Hu1d(bands, classes, width),
        "input": lambda bands, patch: (1, bands),
        "target": "class",
        "points": [point(200, 1, 16, 16), point(103, 1, 9, 64), point(48, 1, 5, 3, width=32)],
    },
    "hamida3d": {
        "build": lambda bands, patch, classes, width=None, size=None: Hamida3d(bands, patch, classes),
        "input": lambda bands, patch: (1, bands, patch, patch),
        "target": "class",
        "points": [point(200, 5, 16, 8), point(103, 7, 9, 4), point(30, 3, 6, 16)],
    },
    "hybridsn": {
        "build": lambda bands, patch, classes, width=None, size=None: HybridSN(bands, patch, classes),
        "input": lambda bands, patch: (1, bands, patch, patch),
        "target": "class",
        "points": [point(30, 25, 16, 2), point(15, 25, 9, 4), point(20, 11, 7, 8)],
    },
    "ssrn": {
        "build": lambda bands, patch, classes, width=None, size=None: Ssrn(bands, patch, classes, width),
        "input": lambda bands, patch: (1, patch, patch, bands),
        "target": "class",
        "points": [point(200, 7, 16, 4), point(103, 9, 9, 2), point(30, 5, 6, 8, width=16)],
    },
    "dbda": {
        "build": lambda bands, patch, classes, width=None, size=None: Dbda(bands, patch, classes),
        "input": lambda bands, patch: (1, patch, patch, bands),
        "target": "class",
        "points": [point(200, 9, 16, 2), point(103, 7, 9, 4), point(40, 11, 6, 2)],
    },
    "unet": {
        "build": lambda bands, patch, classes, width=None, size=None: UNet(bands, classes, width),
        "input": lambda bands, patch: (bands, patch, patch),
        "target": "pixel",
        "points": [point(103, 64, 9, 1), point(30, 32, 16, 2, width=16), point(8, 16, 4, 4, width=8)],
    },
}
