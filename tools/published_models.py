#!/usr/bin/env python3
"""Exports the image models of core/tests/fixtures/published_steps.json to layer lists
(core/tests/fixtures/published_models/<id>.json), each at the input size its published
measurements used (224 px images; 4 x 128^3 volumes for the 3-D U-Net). Needs torch, torchvision and timm (see tools/README-tools.md).

    python3 tools/published_models.py            # all models
    python3 tools/published_models.py resnet50   # one

Layers the planner has no op for are written as their nearest equivalent (hardswish as
SiLU, hardsigmoid as sigmoid, ...); published_models/index.json lists them per model with
its source and torch's parameter count.
"""

import json
import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(TOOLS, "..", "core", "tests", "fixtures", "published_models")


def timm_model(name):
    def build():
        import timm

        return timm.create_model(name, pretrained=False)

    return build


def torchvision_model(name):
    def build():
        import torchvision

        return getattr(torchvision.models, name)(weights=None)

    return build


def nnunet_3d():
    """DeepLearningExamples PyTorch/Segmentation/nnUNet `UNet` for BraTS in 3-D: 4 input
    channels, 128^3 patches, kernels 3^3, strides [1, 2, 2, 2, 2, 2], filters
    min(2^(5+i), 320), conv -> InstanceNorm -> LeakyReLU(0.01) twice per block, 4
    classes. Its 2x2x2 stride-2 transposed convolutions are written as nearest upsampling
    followed by a 1x1x1 convolution (same output shape, FLOPs and parameters but the
    bias); the deep-supervision heads (two 1x1x1 convs) are left out."""
    from torch import nn

    def block(cin, cout, stride):
        return nn.Sequential(
            nn.Conv3d(cin, cout, 3, stride, 1, bias=False), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01),
            nn.Conv3d(cout, cout, 3, 1, 1, bias=False), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01),
        )

    class UNet3D(nn.Module):
        def __init__(self, cin=4, classes=4):
            super().__init__()
            filters = [min(2 ** (5 + i), 320) for i in range(6)]
            self.down = nn.ModuleList(
                [block(cin, filters[0], 1)] + [block(filters[i - 1], filters[i], 2) for i in range(1, 6)]
            )
            self.up = nn.ModuleList(
                [nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv3d(filters[i], filters[i - 1], 1, bias=False))
                 for i in range(5, 0, -1)]
            )
            self.merge = nn.ModuleList([block(2 * filters[i - 1], filters[i - 1], 1) for i in range(5, 0, -1)])
            self.head = nn.Conv3d(filters[0], classes, 1)

        def forward(self, x):
            import torch

            skips = []
            for d in self.down:
                x = d(x)
                skips.append(x)
            skips.pop()
            for up, merge in zip(self.up, self.merge):
                x = merge(torch.cat([up(x), skips.pop()], dim=1))
            return self.head(x)

    return UNet3D()


# id -> (constructor, source name, per-sample input shape).
MODELS = {
    "resnet18": (torchvision_model("resnet18"), "torchvision resnet18 (= timm resnet18)", [3, 224, 224]),
    "resnet34": (torchvision_model("resnet34"), "torchvision resnet34 (= timm resnet34)", [3, 224, 224]),
    "resnet50": (torchvision_model("resnet50"), "torchvision resnet50 (= timm resnet50, DLE resnet50 v1.5)", [3, 224, 224]),
    "mobilenetv2_100": (timm_model("mobilenetv2_100"), "timm mobilenetv2_100", [3, 224, 224]),
    "mobilenetv3_large_100": (timm_model("mobilenetv3_large_100"), "timm mobilenetv3_large_100", [3, 224, 224]),
    "efficientnet_b0": (timm_model("efficientnet_b0"), "timm efficientnet_b0", [3, 224, 224]),
    "convnext_tiny": (timm_model("convnext_tiny"), "timm convnext_tiny", [3, 224, 224]),
    "densenet121": (timm_model("densenet121"), "timm densenet121", [3, 224, 224]),
    "vgg16": (timm_model("vgg16"), "timm vgg16", [3, 224, 224]),
    "vit_tiny_patch16_224": (timm_model("vit_tiny_patch16_224"), "timm vit_tiny_patch16_224", [3, 224, 224]),
    "vit_small_patch16_224": (timm_model("vit_small_patch16_224"), "timm vit_small_patch16_224", [3, 224, 224]),
    "vit_base_patch16_224": (timm_model("vit_base_patch16_224"), "timm vit_base_patch16_224", [3, 224, 224]),
    "convnext_nano": (timm_model("convnext_nano"), "timm convnext_nano (1x1-conv MLP, LayerNorm2d)", [3, 224, 224]),
    "convnext_small": (timm_model("convnext_small"), "timm convnext_small", [3, 224, 224]),
    "convnext_base": (timm_model("convnext_base"), "timm convnext_base", [3, 224, 224]),
    "resnext50_32x4d": (timm_model("resnext50_32x4d"), "timm resnext50_32x4d", [3, 224, 224]),
    "resnext101_32x4d": (timm_model("resnext101_32x4d"), "timm resnext101_32x4d (= DLE resnext101-32x4d)", [3, 224, 224]),
    "resnext101_32x8d": (timm_model("resnext101_32x8d"), "timm resnext101_32x8d", [3, 224, 224]),
    "resnext101_64x4d": (timm_model("resnext101_64x4d"), "timm resnext101_64x4d", [3, 224, 224]),
    "seresnext50_32x4d": (timm_model("seresnext50_32x4d"), "timm seresnext50_32x4d", [3, 224, 224]),
    "seresnext101_32x4d": (timm_model("seresnext101_32x4d"), "timm seresnext101_32x4d (= DLE se-resnext101-32x4d)", [3, 224, 224]),
    "regnety_008": (timm_model("regnety_008"), "timm regnety_008", [3, 224, 224]),
    "regnety_016": (timm_model("regnety_016"), "timm regnety_016", [3, 224, 224]),
    "regnety_032": (timm_model("regnety_032"), "timm regnety_032", [3, 224, 224]),
    "regnety_040": (timm_model("regnety_040"), "timm regnety_040", [3, 224, 224]),
    "regnety_080": (timm_model("regnety_080"), "timm regnety_080", [3, 224, 224]),
    "regnetx_016": (timm_model("regnetx_016"), "timm regnetx_016", [3, 224, 224]),
    "regnetx_032": (timm_model("regnetx_032"), "timm regnetx_032", [3, 224, 224]),
    "nnunet_3d_brats": (nnunet_3d, "DeepLearningExamples nnUNet UNet, 3-D BraTS (see nnunet_3d)", [4, 128, 128, 128]),
}


def drop_single_concats(spec):
    """torch.cat of a one-tensor list (DenseNet's first dense layer) is traced as a
    concat with one input, which the planner refuses: readers of it read its input."""
    alias = {}
    layers = []
    for layer in spec["layers"]:
        layer["from"] = [alias.get(f, f) for f in layer.get("from", [])]
        if layer["op"] == "concat" and len(layer["from"]) == 1:
            alias[layer["name"]] = layer["from"][0]
            continue
        layers.append(layer)
    spec["layers"] = layers
    return spec


def main(ids):
    sys.path.insert(0, TOOLS)
    import torch
    from hsi_export import trace

    torch.set_num_threads(min(2, os.cpu_count() or 1))
    os.makedirs(OUT, exist_ok=True)
    index_path = os.path.join(OUT, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else {}
    for model_id in ids or MODELS:
        build, source, shape = MODELS[model_id]
        model = build()
        spec, info = trace(model, shape, model_id)
        spec = drop_single_concats(spec)
        substituted = sorted({f"{u['what']} -> {u['nearest']}" for u in info["unsupported"]})
        index[model_id] = {"source": source, "input": shape, "torch_params": info["torch_params"], "substituted": substituted}
        with open(os.path.join(OUT, f"{model_id}.json"), "w") as f:
            json.dump(spec, f, separators=(",", ":"))
            f.write("\n")
        print(f"{model_id}: {len(spec['layers'])} layers, {info['torch_params']} params, substituted {substituted}")
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
