"""Small HSI models written the way research code writes them, each using a group of the
operations the exporter takes (tools/export_coverage.py checks them against PyTorch):
F.pad in every mode and arithmetic with constants; squeeze-excitation with expand_as,
CBAM's pools and reductions, F.normalize; selective kernels over a stack; every
interpolate mode; unfold / fold and sliding windows; positional encodings computed from
fixed grids and parameters alone; matrix products that broadcast parameters and heads.
Input [bands, s, s] (or [1, bands, s, s] for the 3-D one), output [classes]."""

import torch
from torch import nn
import torch.nn.functional as F


def conv_bn(c_in, c_out, k=3, **kw):
    return nn.Sequential(nn.Conv2d(c_in, c_out, k, bias=False, **kw), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True))


class PaddedSpectralNet(nn.Module):
    """F.pad in each mode before unpadded convolutions, and element-wise arithmetic."""

    def __init__(self, bands=30, classes=10, width=32):
        super().__init__()
        self.c1 = conv_bn(bands, width)
        self.c2 = conv_bn(width, width)
        self.c3 = conv_bn(width, width)
        self.c4 = conv_bn(width, width, 2)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.c1(F.pad(x, (1, 1, 1, 1), mode="reflect"))
        x = self.c2(F.pad(x, (1, 1, 1, 1), mode="replicate")) * 0.5 + 1.0
        x = self.c3(F.pad(x, (1, 1, 1, 1), mode="circular"))
        x = self.c4(F.pad(x, (0, 1, 0, 1)))  # TF "same" padding of an even kernel
        x = (1 - torch.sigmoid(x)) * x ** 2 + torch.exp(-x.abs()) / 2 - x.clamp(0, 1).sqrt()
        return self.fc(x.mean((2, 3)))


class AttentionGates(nn.Module):
    """SENet's gate with expand_as, CBAM's channel (average and max pools) and spatial
    (mean and max over channels) attention, band statistics and F.normalize."""

    def __init__(self, bands=30, classes=10, width=32, reduction=4):
        super().__init__()
        self.stem = conv_bn(bands, width, padding=1)
        self.se = nn.Sequential(nn.Linear(width, width // reduction), nn.ReLU(), nn.Linear(width // reduction, width))
        self.mlp = nn.Sequential(nn.Conv2d(width, width // reduction, 1), nn.ReLU(), nn.Conv2d(width // reduction, width, 1))
        self.spatial = nn.Conv2d(2, 1, 7, padding=3)
        self.fc = nn.Linear(2 * width + 1, classes)

    def forward(self, x):
        stats = x.std(1).mean((1, 2), keepdim=True).flatten(1)  # spectral spread per pixel
        x = self.stem(x)
        b, c, _, _ = x.shape
        y = self.se(F.adaptive_avg_pool2d(x, 1).view(b, c)).sigmoid().view(b, c, 1, 1)
        x = x * y.expand_as(x)
        gate = self.mlp(F.adaptive_avg_pool2d(x, 1)) + self.mlp(F.adaptive_max_pool2d(x, 1))
        x = x * torch.sigmoid(gate)
        spatial = torch.cat([x.mean(1, keepdim=True), x.amax(1, keepdim=True)], dim=1)
        x = x * torch.sigmoid(self.spatial(spatial))
        pooled = torch.cat([x.amax((2, 3)), F.normalize(x.flatten(2).var(2), dim=1), stats], dim=1)
        return self.fc(pooled)


class SelectiveKernel(nn.Module):
    """SKNet: branches stacked, summed over the split, softmax over the branches."""

    def __init__(self, bands=30, classes=10, width=32, branches=3):
        super().__init__()
        self.stem = conv_bn(bands, width, 1)
        self.paths = nn.ModuleList(conv_bn(width, width, 3, padding=d, dilation=d) for d in range(1, branches + 1))
        self.reduce = nn.Linear(width, width // 2)
        self.select = nn.Linear(width // 2, width * branches)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.stem(x)
        paths = torch.stack([p(x) for p in self.paths], dim=1)  # [B, K, C, H, W]
        b, k, c = paths.shape[:3]
        z = F.relu(self.reduce(paths.sum(1).mean((2, 3))))
        weights = self.select(z).view(b, k, c, 1, 1).softmax(dim=1)
        x = (paths * weights).sum(1)
        first, *rest = torch.unbind(paths, dim=1)
        x = x + first - sum(rest) / len(rest)
        return self.fc(x.amax((2, 3)))


class Resampler(nn.Module):
    """F.interpolate in every mode: bicubic and nearest-exact by a factor, bilinear and
    area to a size, trilinear over a 3-D cube, and nn.Upsample by a fractional factor."""

    def __init__(self, bands=30, classes=10, width=16):
        super().__init__()
        self.spectral = nn.Conv3d(1, 4, (7, 3, 3), padding=(0, 1, 1))
        self.c1 = conv_bn(4 * (bands - 6), width, padding=1)
        self.c2 = conv_bn(width, width, padding=1)
        self.up = nn.Upsample(scale_factor=1.5, mode="bilinear")
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.spectral(x)
        x = F.interpolate(x, scale_factor=(1, 2, 2), mode="trilinear")
        x = self.c1(x.flatten(1, 2))
        x = F.interpolate(x, scale_factor=2, mode="bicubic") + F.interpolate(x, scale_factor=2, mode="nearest-exact")
        x = self.c2(F.interpolate(x, size=(23, 23), mode="bilinear", align_corners=True))
        x = F.interpolate(self.up(x), size=(8, 8), mode="area")
        return self.fc(x.mean((2, 3)))


class UnfoldMixer(nn.Module):
    """Patches by F.unfold mixed by a Linear and put back by F.fold (VOLO's outlook
    attention pattern), band windows by Tensor.unfold."""

    def __init__(self, bands=30, classes=10, width=16, kernel=3):
        super().__init__()
        self.k = kernel
        self.band_window = 5
        self.stem = conv_bn(bands - self.band_window + 1, width, padding=1)
        self.mix = nn.Linear(width * kernel * kernel, width * kernel * kernel)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = x.unfold(1, self.band_window, 1).mean(-1)  # [B, bands - 4, H, W]: band windows
        x = self.stem(x)
        h, w = x.shape[2:]
        patches = F.unfold(x, self.k, padding=1)  # [B, C k k, H W]
        patches = self.mix(patches.transpose(1, 2)).transpose(1, 2)
        x = F.fold(patches, (h, w), self.k, padding=1) / (self.k * self.k)
        return self.fc(x.mean((2, 3)))


class GridPositionNet(nn.Module):
    """Positional encodings that read no input: a 1x1 convolution over a fixed coordinate
    grid (XCiT's Fourier encoding), a relative position table gathered by an index buffer
    (Swin, BEiT) and an MLP over fixed coordinates; a token whose learned query is
    expanded over the batch."""

    def __init__(self, bands=30, classes=10, width=32, patch=9, heads=4):
        super().__init__()
        self.embed = nn.Conv2d(bands, width, 1)
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, patch), torch.linspace(-1, 1, patch), indexing="ij")
        self.register_buffer("grid", torch.stack([ys, xs])[None])  # [1, 2, s, s]
        self.pos = nn.Conv2d(2, width, 1)
        tokens = patch * patch
        index = torch.arange(tokens)
        self.register_buffer("relative_index", (index[:, None] - index[None, :]).abs())
        self.table = nn.Parameter(torch.zeros(tokens, heads))
        self.register_buffer("coords", torch.stack([ys.flatten(), xs.flatten()], dim=1))  # [T, 2]
        self.coord_mlp = nn.Sequential(nn.Linear(2, width), nn.ReLU(), nn.Linear(width, width))
        self.query = nn.Parameter(torch.zeros(1, 1, width))
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        x = self.embed(x) + self.pos(self.grid)
        tokens = x.flatten(2).transpose(1, 2) + self.coord_mlp(self.coords)  # [B, T, C]
        b, t, c = tokens.shape
        q, k, v = self.qkv(tokens).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        bias = self.table[self.relative_index].permute(2, 0, 1)  # [heads, T, T]
        attn = ((q @ k.transpose(-2, -1)) * (c // self.heads) ** -0.5 + bias).softmax(-1)
        tokens = (attn @ v).transpose(1, 2).reshape(b, t, c)
        query = self.query.expand(b, -1, -1)
        pooled = (query @ tokens.transpose(1, 2)).softmax(-1) @ tokens
        return self.fc(pooled[:, 0])


class HeadwiseMatmul(nn.Module):
    """Matrix products that broadcast: a per-head parameter [heads, d, d] over tokens, a
    2-D mixing parameter on the left of the tokens, and the heads' scores against values
    shared by all heads ([B, h, T, T] @ [B, 1, T, d])."""

    def __init__(self, bands=30, classes=10, width=32, heads=4, patch=9):
        super().__init__()
        self.heads, self.d = heads, width // heads
        self.embed = nn.Linear(bands, width)
        self.per_head = nn.Parameter(torch.randn(heads, self.d, self.d) * 0.1)
        self.shared_value = nn.Linear(width, self.d)
        tokens = patch * patch
        self.mix = nn.Parameter(torch.eye(tokens) + 0.01 * torch.randn(tokens, tokens))  # token mixing
        self.fc = nn.Linear(width, classes)

    def forward(self, x):
        tokens = self.embed(x.flatten(2).transpose(1, 2))  # [B, T, C]
        b, t, c = tokens.shape
        heads = tokens.view(b, t, self.heads, self.d).transpose(1, 2)  # [B, h, T, d]
        heads = heads @ self.per_head  # [B, h, T, d] @ [h, d, d]
        scores = (heads @ heads.transpose(-2, -1)).softmax(-1)  # [B, h, T, T]
        values = self.shared_value(tokens).unsqueeze(1)  # [B, 1, T, d]
        out = (scores @ values).transpose(1, 2).reshape(b, t, c)
        out = self.mix @ out  # [T, T] @ [B, T, C]
        return self.fc(out.mean(1))


MODELS = {
    "padded_spectral": PaddedSpectralNet,
    "attention_gates": AttentionGates,
    "selective_kernel": SelectiveKernel,
    "resampler": Resampler,
    "unfold_mixer": UnfoldMixer,
    "grid_position": GridPositionNet,
    "headwise_matmul": HeadwiseMatmul,
}
