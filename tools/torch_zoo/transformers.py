"""Transformer models of the zoo in PyTorch: SSFTT, SpectralFormer and the ViT foundation
model, written the way their reference code writes them (explicit einsum attention, no
nn.MultiheadAttention or scaled_dot_product_attention, einops rearranges spelled out as
reshape/permute, non-inplace ops) so that what autograd saves is what the reference
saves. The Rust builders (core/src/zoo/ssftt.rs, spectralformer.rs, vit.rs) describe
the same models; their doc comments name the sources and deviations.
"""

import torch
from torch import nn
import torch.nn.functional as F

from . import point


class Attention(nn.Module):
    """vit-pytorch / SSFTT / SpectralFormer attention: qkv Linear, chunk, per-head einsum
    q k^T * scale, softmax, einsum with v, heads merged, output Linear (+ dropout)."""

    def __init__(self, dim, heads, head_dim=None, qkv_bias=False, dropout=0.0):
        super().__init__()
        head_dim = head_dim or dim // heads
        inner = heads * head_dim
        self.heads = heads
        self.scale = head_dim**-0.5
        self.to_qkv = nn.Linear(dim, 3 * inner, bias=qkv_bias)
        self.to_out = nn.Linear(inner, dim)
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()

    def forward(self, x):
        n, t, _ = x.shape
        # rearrange 'b n (h d) -> b h n d': views of the qkv output.
        q, k, v = (c.reshape(n, t, self.heads, -1).permute(0, 2, 1, 3) for c in self.to_qkv(x).chunk(3, dim=-1))
        dots = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale
        attn = dots.softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v)
        # rearrange 'b h n d -> b n (h d)'
        out = out.permute(0, 2, 1, 3).reshape(n, t, -1)
        return self.dropout(self.to_out(out))


class EncoderBlock(nn.Module):
    """Pre-norm block: x + Attention(LN(x)), then x + MLP(LN(x)), MLP = Linear, GELU,
    Dropout, Linear, Dropout (dropouts left out when p = 0)."""

    def __init__(self, dim, heads, mlp_hidden, head_dim=None, qkv_bias=False, dropout=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, head_dim, qkv_bias, dropout)
        self.norm2 = nn.LayerNorm(dim)
        drop = [nn.Dropout(dropout)] if dropout > 0 else []
        self.mlp = nn.Sequential(
            nn.Linear(dim, mlp_hidden), nn.GELU(), *drop, nn.Linear(mlp_hidden, dim), *drop
        )

    def forward(self, x):
        x = self.attn(self.norm1(x)) + x
        return self.mlp(self.norm2(x)) + x


class Ssftt(nn.Module):
    """Sun et al. 2022, SSFTT; zgr6010/HSI_SSFTT cls_SSFTT_IP/SSFTTnet.py `SSFTTnet`
    (num_tokens 4, dim 64, depth 1, heads 8, mlp_dim 8, dropout 0.1). Input [N, 1, B, s, s]
    with B = PCA components. The Gaussian-weighted tokenizer uses the reference's
    einsums on parameters token_wA [1, L, 64] and token_wV [1, 64, dim]."""

    tokens = 4

    def __init__(self, bands, patch, classes, width=None):
        super().__init__()
        dim = width or 64
        self.conv3d = nn.Sequential(nn.Conv3d(1, 8, 3), nn.BatchNorm3d(8), nn.ReLU())
        self.conv2d = nn.Sequential(nn.Conv2d(8 * (bands - 2), 64, 3), nn.BatchNorm2d(64), nn.ReLU())
        self.token_wA = nn.Parameter(nn.init.xavier_normal_(torch.empty(1, self.tokens, 64)))
        self.token_wV = nn.Parameter(nn.init.xavier_normal_(torch.empty(1, 64, dim)))
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.randn(1, self.tokens + 1, dim) * 0.02)
        self.dropout = nn.Dropout(0.1)
        self.block = EncoderBlock(dim, 8, 8, qkv_bias=True, dropout=0.1)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.conv3d(x)
        n, c, d, h, w = x.shape
        x = self.conv2d(x.reshape(n, c * d, h, w))
        x = x.flatten(2).permute(0, 2, 1)  # 'b c h w -> b (h w) c', a strided view
        a = torch.einsum("bij,bjk->bik", x, self.token_wA.permute(0, 2, 1))
        a = a.permute(0, 2, 1).softmax(dim=-1)
        values = torch.einsum("bij,bjk->bik", x, self.token_wV)
        tokens = torch.einsum("bij,bjk->bik", a, values)
        x = torch.cat((self.cls_token.expand(n, -1, -1), tokens), dim=1)
        x = self.dropout(x + self.pos_embedding)
        x = self.block(x)
        return self.head(x[:, 0])


class SpectralFormer(nn.Module):
    """Hong et al. 2021, SpectralFormer patch-wise with CAF; danfenghong/IEEE_TGRS_SpectralFormer
    vit_pytorch.py `ViT(mode='CAF')` as demo.py builds it (dim 64, depth 5, heads 4,
    dim_head 16, mlp_dim 8, dropout 0.1, emb_dropout 0.1, band_patches 3).
    Input [N, B, s*s*3]: per band, the s x s neighbourhood of 3 neighbouring bands."""

    depth = 5

    def __init__(self, bands, patch, classes, width=None):
        super().__init__()
        dim = width or 64
        tokens = bands + 1
        self.embedding = nn.Linear(patch * patch * 3, dim)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.randn(1, tokens, dim))
        self.dropout = nn.Dropout(0.1)
        self.blocks = nn.ModuleList(
            EncoderBlock(dim, 4, 8, head_dim=16, qkv_bias=False, dropout=0.1) for _ in range(self.depth)
        )
        self.skipcat = nn.ModuleList(nn.Conv2d(tokens, tokens, (1, 2)) for _ in range(self.depth - 2))
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, classes))

    def forward(self, x):
        x = self.embedding(x)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.dropout(x + self.pos_embedding)
        block_inputs = []
        for i, block in enumerate(self.blocks):
            block_inputs.append(x)
            if i > 1:  # cross-layer adaptive fusion with the input of block i - 2
                stacked = torch.cat([x.unsqueeze(3), block_inputs[i - 2].unsqueeze(3)], dim=3)
                x = self.skipcat[i - 2](stacked).squeeze(3)
            x = block(x)
        return self.head(x[:, 0])


VIT_SIZES = {"small": (384, 12, 6), "base": (768, 12, 12), "large": (1024, 24, 16), "huge": (1280, 32, 16),
             "giant": (1408, 40, 16)}
# MLP width where it is not 4 x dim: ViT-g/14 (Zhai et al., Scaling Vision Transformers, 2022).
VIT_MLP = {"giant": 6144}
VIT_PATCH = 8


class Vit(nn.Module):
    """ViT-style HSI foundation model (SpectralGPT / HyperSIGMA family, simplified as in
    core/src/zoo/vit.rs): Conv2d 8x8 patch embedding of the B-band tile, class token,
    position embedding, pre-norm blocks (qkv bias, MLP 4d, no dropout), LayerNorm, head on
    the class token. Input [N, B, s, s], s a multiple of 8."""

    def __init__(self, bands, patch, classes, size=None):
        super().__init__()
        dim, depth, heads = VIT_SIZES[size or "base"]
        tokens = (patch // VIT_PATCH) ** 2 + 1
        self.patch_embed = nn.Conv2d(bands, dim, VIT_PATCH, stride=VIT_PATCH)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        mlp = VIT_MLP.get(size or "base", 4 * dim)
        self.blocks = nn.Sequential(*(EncoderBlock(dim, heads, mlp, qkv_bias=True) for _ in range(depth)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)
        x = self.blocks(x + self.pos_embedding)
        return self.head(self.norm(x)[:, 0])


MODELS = {
    "ssftt": {
        "build": lambda bands, patch, classes, width=None, size=None: Ssftt(bands, patch, classes, width),
        "input": lambda bands, patch: (1, bands, patch, patch),
        "target": "class",
        "points": [point(30, 13, 16, 8), point(15, 9, 9, 16), point(40, 7, 5, 4, width=32)],
    },
    "spectralformer": {
        "build": lambda bands, patch, classes, width=None, size=None: SpectralFormer(bands, patch, classes, width),
        "input": lambda bands, patch: (bands, patch * patch * 3),
        "target": "class",
        "points": [point(200, 7, 16, 4), point(103, 5, 9, 8), point(48, 1, 5, 16, width=32)],
    },
    "vit": {
        "build": lambda bands, patch, classes, width=None, size=None: Vit(bands, patch, classes, size),
        "input": lambda bands, patch: (bands, patch, patch),
        "target": "class",
        "points": [
            point(32, 32, 10, 2, size="small"),
            point(16, 16, 5, 1, size="base"),
            point(8, 8, 4, 1, size="large"),
            point(4, 8, 3, 1, size="huge"),
        ],
    },
}
