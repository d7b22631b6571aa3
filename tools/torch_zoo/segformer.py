"""SegFormer-B0 for HSI tiles in PyTorch, layer for layer as core/src/zoo/segformer.rs
builds it: Xie et al., "SegFormer: Simple and Efficient Design for Semantic Segmentation
with Transformers", NeurIPS 2021; reference code github.com/NVlabs/SegFormer
(mmseg/models/backbones/mix_transformer.py `mit_b0`, decode_heads/segformer_head.py).

MiT-B0: four stages of overlapping patch embeddings (Conv2d 7x7 stride 4, then 3x3
stride 2; LayerNorm), 2 blocks each of efficient self-attention (keys and values from the
tokens reduced by a Conv2d of kernel and stride R, then LayerNorm) and Mix-FFN (Linear,
3x3 depthwise conv, GELU, Linear), stochastic depth rising to 0.1, a LayerNorm per stage.
Dims 32, 64, 160, 256; heads 1, 2, 5, 8; R 8, 4, 2, 1; MLP ratio 4. All-MLP decoder:
a Linear to 256 per stage, bilinear upsampling to 1/4, concat, 1x1 conv + BN + ReLU,
dropout 0.1, 1x1 conv to the classes; the logits upsampled x4 to the tile (as the loss
does). Deviations, none of which changes parameters, counted FLOPs or kept bytes: the
1/sqrt(d) attention scale folded into the query projection, keys and values as two
Linear layers (one kv Linear of twice the width in the reference), the decoder's
Dropout2d element-wise (nn.Dropout), the decoder's Linear layers reading each stage's
tokens (the reference turns the stage's map back into the same tokens).
"""

import torch
from torch import nn
import torch.nn.functional as F

from . import point

DIMS = (32, 64, 160, 256)
HEADS = (1, 2, 5, 8)
REDUCTION = (8, 4, 2, 1)
DEPTHS = (2, 2, 2, 2)
MLP_RATIO = 4
DROP_PATH = 0.1
DECODER_DIM = 256


def tokens(x):
    """[N, C, H, W] -> [N, H*W, C] (a strided view)."""
    return x.flatten(2).transpose(1, 2)


def image(x, h, w):
    """[N, H*W, C] -> [N, C, H, W] (a strided view: reshape first, then permute)."""
    return x.reshape(x.shape[0], h, w, -1).permute(0, 3, 1, 2)


class StochasticDepth(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = torch.empty(x.shape[0], 1, 1, dtype=x.dtype, device=x.device).bernoulli_(1 - self.p).div_(1 - self.p)
        return x * keep


class EfficientAttention(nn.Module):
    def __init__(self, dim, heads, reduction):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.reduction = reduction
        if reduction > 1:
            self.sr = nn.Conv2d(dim, dim, reduction, stride=reduction)
            self.norm = nn.LayerNorm(dim)

    def split(self, x):
        n, t, c = x.shape
        return x.reshape(n, t, self.heads, c // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, h, w):
        n, t, c = x.shape
        q = self.split(self.q(x))
        kv = self.norm(tokens(self.sr(image(x, h, w)))) if self.reduction > 1 else x
        k, v = self.split(self.k(kv)), self.split(self.v(kv))
        attn = torch.matmul(q, k.transpose(-2, -1)).softmax(dim=-1)
        out = torch.matmul(attn, v).permute(0, 2, 1, 3).reshape(n, t, c)
        return self.proj(out)


class MixFfn(nn.Module):
    def __init__(self, dim):
        super().__init__()
        hidden = dim * MLP_RATIO
        self.fc1 = nn.Linear(dim, hidden)
        self.dwconv = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x, h, w):
        x = tokens(self.dwconv(image(self.fc1(x), h, w)))
        return self.fc2(self.act(x))


class Block(nn.Module):
    def __init__(self, dim, heads, reduction, drop_path):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = EfficientAttention(dim, heads, reduction)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MixFfn(dim)
        self.drop_path = StochasticDepth(drop_path)

    def forward(self, x, h, w):
        x = x + self.drop_path(self.attn(self.norm1(x), h, w))
        return x + self.drop_path(self.mlp(self.norm2(x), h, w))


class Stage(nn.Module):
    def __init__(self, cin, dim, heads, reduction, first, drop_paths):
        super().__init__()
        kernel, stride = (7, 4) if first else (3, 2)
        self.embed = nn.Conv2d(cin, dim, kernel, stride=stride, padding=kernel // 2)
        self.embed_norm = nn.LayerNorm(dim)
        self.blocks = nn.ModuleList(Block(dim, heads, reduction, p) for p in drop_paths)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        """The stage's tokens [N, h*w, C] and (h, w)."""
        x = self.embed(x)
        h, w = x.shape[2:]
        x = self.embed_norm(tokens(x))
        for block in self.blocks:
            x = block(x, h, w)
        return self.norm(x), (h, w)


class SegFormer(nn.Module):
    """SegFormer-B0 on a tile [N, B, s, s], s a multiple of 32 -> [N, classes, s, s]."""

    def __init__(self, bands, classes):
        super().__init__()
        rates = torch.linspace(0, DROP_PATH, sum(DEPTHS), device="cpu").tolist()
        self.stages = nn.ModuleList()
        cin = bands
        for i, (dim, heads, reduction, depth) in enumerate(zip(DIMS, HEADS, REDUCTION, DEPTHS)):
            start = sum(DEPTHS[:i])
            self.stages.append(Stage(cin, dim, heads, reduction, i == 0, rates[start:start + depth]))
            cin = dim
        self.mlps = nn.ModuleList(nn.Linear(dim, DECODER_DIM) for dim in DIMS)
        self.fuse = nn.Conv2d(4 * DECODER_DIM, DECODER_DIM, 1, bias=False)
        self.fuse_bn = nn.BatchNorm2d(DECODER_DIM)
        self.dropout = nn.Dropout(0.1)
        self.pred = nn.Conv2d(DECODER_DIM, classes, 1)

    def forward(self, x):
        features = []
        for stage in self.stages:
            x, (h, w) = stage(x)
            features.append((x, h, w))
            x = image(x, h, w)
        size = features[0][1:]
        decoded = []
        for (feature, h, w), mlp in zip(reversed(features), reversed(self.mlps)):
            y = image(mlp(feature), h, w)
            if (h, w) != size:
                y = F.interpolate(y, size=size, mode="bilinear", align_corners=False)
            decoded.append(y)
        x = F.relu(self.fuse_bn(self.fuse(torch.cat(decoded, dim=1))))
        x = self.pred(self.dropout(x))
        return F.interpolate(x, scale_factor=4, mode="bilinear", align_corners=False)


MODELS = {
    "segformer": {
        "build": lambda bands, patch, classes, width=None, size=None: SegFormer(bands, classes),
        "input": lambda bands, patch: (bands, patch, patch),
        "target": "pixel",
        "points": [point(30, 64, 16, 2), point(103, 32, 9, 2), point(8, 64, 4, 1)],
    },
}

if __name__ == "__main__":
    model = SegFormer(3, 150)
    print("SegFormer-B0, 3 channels, 150 classes (ADE20K):", sum(p.numel() for p in model.parameters()))
    encoder = sum(p.numel() for p in model.stages.parameters())
    print("  encoder (MiT-B0):", encoder, " decoder:", sum(p.numel() for p in model.parameters()) - encoder)
