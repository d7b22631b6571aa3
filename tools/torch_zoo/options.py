"""The Scenario's `attention` and `finetune` applied to a zoo model (core/src/foundation.rs),
so that tools/measure.py trains and tools/measure_foundation.py counts what the estimate
describes. The zoo's own attention (transformers.Attention) is the written-out einsum one,
i.e. `attention: "math"`."""

import torch.nn.functional as F
from torch import nn

from .transformers import Attention


def sdpa_forward(self, x):
    """The zoo attention's forward through F.scaled_dot_product_attention (timm 1.x): q, k,
    v unbound from the permuted qkv output, the output transposed and reshaped."""
    n, t, _ = x.shape
    qkv = self.to_qkv(x).reshape(n, t, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
    q, k, v = qkv.unbind(0)
    out = F.scaled_dot_product_attention(q, k, v)
    return self.dropout(self.to_out(out.transpose(1, 2).reshape(n, t, -1)))


class Lora(nn.Module):
    """A frozen nn.Linear plus a trainable rank-r update (peft's LoraLayer, dropout 0)."""

    def __init__(self, base, rank, alpha=16):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, rank, bias=False)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


class OptionError(ValueError):
    """An option this mirror cannot build; the message names the field."""


def apply(model, attention="sdpa", finetune=None):
    """`model` with the zoo attention run as `attention` ("math" | "sdpa") and trained as
    `finetune` ({"mode": "full"} | {"mode": "frozen", "trainable": [...]} | {"mode": "lora",
    "rank": r, "targets": [...]}). Frozen and LoRA follow the ViT's layer names (`blockN`,
    `head`; targets `qkv`, `proj`), the cases the fixtures measure."""
    if attention not in ("math", "sdpa"):
        raise OptionError(f"attention: {attention!r}; allowed: math, sdpa")
    attentions = [m for m in model.modules() if isinstance(m, Attention)]
    if attention == "sdpa":
        for attn in attentions:
            attn.forward = sdpa_forward.__get__(attn)
    finetune = finetune or {"mode": "full"}
    mode = finetune.get("mode")
    if mode == "full":
        return model
    if not hasattr(model, "blocks") or not hasattr(model, "head"):
        raise OptionError(f"finetune.mode {mode!r}: built for the ViT presets only (blocks, head)")
    model.requires_grad_(False)
    if mode == "frozen":
        for name in finetune["trainable"]:
            if name == "head":
                model.head.requires_grad_(True)
            elif name.startswith("block") and name[len("block"):].isdigit():
                model.blocks[int(name[len("block"):])].requires_grad_(True)
            else:
                raise OptionError(f"finetune.trainable: {name!r}; allowed here: head, block<N>")
    elif mode == "lora":
        unknown = set(finetune["targets"]) - {"qkv", "proj"}
        if unknown:
            raise OptionError(f"finetune.targets: {sorted(unknown)}; allowed here: qkv, proj")
        for block in model.blocks:
            if "qkv" in finetune["targets"]:
                block.attn.to_qkv = Lora(block.attn.to_qkv, finetune["rank"])
            if "proj" in finetune["targets"]:
                block.attn.to_out = Lora(block.attn.to_out, finetune["rank"])
    else:
        raise OptionError(f"finetune.mode: {mode!r}; allowed: full, frozen, lora")
    return model
