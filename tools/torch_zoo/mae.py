"""MAE pre-training presets (core/src/zoo/mae.rs) in PyTorch, simplified the same way:
facebookresearch/mae models_mae.py `MaskedAutoencoderViT` (random masking by
argsort of noise and torch.gather, class token, encoder blocks, decoder embedding, mask
tokens appended and restored by gather, decoder blocks, prediction Linear, class token
dropped) without its fixed sin-cos position embeddings, with the zoo's encoder block.
The output is [N, pixels per patch, T] for a cross-entropy over the tokens (the
estimator's loss; see mae.rs for why its kept bytes equal MAE's squared error's)."""

import torch
from torch import nn

from . import point
from .transformers import VIT_MLP, VIT_PATCH, VIT_SIZES, EncoderBlock

MASK_RATIO, DECODER_DIM, DECODER_DEPTH, DECODER_HEADS = 0.75, 512, 8, 16


class Mae(nn.Module):
    def __init__(self, bands, patch, size=None, group=None):
        super().__init__()
        dim, depth, heads = VIT_SIZES[size or "base"]
        grid = (patch // VIT_PATCH) ** 2
        if group:
            self.patch_embed = nn.Conv3d(1, dim, (group, VIT_PATCH, VIT_PATCH), stride=(group, VIT_PATCH, VIT_PATCH))
            self.tokens, pixels = bands // group * grid, group * VIT_PATCH * VIT_PATCH
        else:
            self.patch_embed = nn.Conv2d(bands, dim, VIT_PATCH, stride=VIT_PATCH)
            self.tokens, pixels = grid, bands * VIT_PATCH * VIT_PATCH
        self.kept = max(1, int(self.tokens * (1 - MASK_RATIO)))
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        mlp = VIT_MLP.get(size or "base", 4 * dim)
        self.blocks = nn.Sequential(*(EncoderBlock(dim, heads, mlp, qkv_bias=True) for _ in range(depth)))
        self.norm = nn.LayerNorm(dim)
        self.decoder_embed = nn.Linear(dim, DECODER_DIM)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, DECODER_DIM))
        self.decoder_blocks = nn.Sequential(
            *(EncoderBlock(DECODER_DIM, DECODER_HEADS, 4 * DECODER_DIM, qkv_bias=True) for _ in range(DECODER_DEPTH))
        )
        self.decoder_norm = nn.LayerNorm(DECODER_DIM)
        self.decoder_pred = nn.Linear(DECODER_DIM, pixels)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        n, t, d = x.shape
        ids_shuffle = torch.argsort(torch.rand(n, t, device=x.device), dim=1)
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, : self.kept]
        x = torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, d))
        x = torch.cat((self.cls_token.expand(n, -1, -1), x), dim=1)
        x = self.decoder_embed(self.norm(self.blocks(x)))
        mask_tokens = self.mask_token.repeat(n, t - self.kept, 1)
        x_ = torch.cat([x[:, 1:, :], mask_tokens], dim=1)
        x_ = torch.gather(x_, 1, ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        x = torch.cat([x[:, :1, :], x_], dim=1)
        x = self.decoder_pred(self.decoder_norm(self.decoder_blocks(x)))
        return x[:, 1:, :].permute(0, 2, 1)


def tokens(bands, patch, group=None):
    grid = (patch // VIT_PATCH) ** 2
    return (bands // group * grid,) if group else (grid,)


MODELS = {
    "mae_vit": {
        "build": lambda bands, patch, classes, width=None, size=None: Mae(bands, patch, size),
        "input": lambda bands, patch: (bands, patch, patch),
        "target": lambda bands, patch: tokens(bands, patch),
        "exports": False,  # the exporter has no handler for the random masking (argsort, gather)
        "points": [point(8, 32, 1, 2, size="small"), point(4, 16, 1, 1, size="base")],
    },
    "mae_spectralgpt": {
        "build": lambda bands, patch, classes, width=None, size=None: Mae(bands, patch, size, group=3),
        "input": lambda bands, patch: (1, bands, patch, patch),
        "target": lambda bands, patch: tokens(bands, patch, 3),
        "exports": False,
        "points": [point(12, 32, 1, 2, size="small"), point(6, 16, 1, 1, size="base")],
    },
}
