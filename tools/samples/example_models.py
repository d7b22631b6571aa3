"""Example models for tools/export_model.py's self-test and fixtures.

ResNet18 is torchvision's resnet18 (torchvision/models/resnet.py, BasicBlock with an
in-place `out += identity`, ReLU(inplace=True), 1x1 conv + BN shortcut where the shape
changes) with the first convolution taking `bands` channels, so a B-band s x s patch goes
in. WithCustomLayers holds two layers the planner has no op for (a PReLU and a cumulative
sum over the bands), to check that the exporter reports them by name. VisionBlocks uses,
in one small network, the pieces of torchvision's and timm's architectures that have
their own handlers (tools/export_coverage.py checks the real models).
"""

import torch
from torch import nn


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet18(nn.Module):
    def __init__(self, bands, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(bands, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        widths = [64, 128, 256, 512]
        inplanes = 64
        for i, planes in enumerate(widths):
            stride = 1 if i == 0 else 2
            setattr(self, f"layer{i + 1}", nn.Sequential(BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes)))
            inplanes = planes
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class SpectralCumsum(nn.Module):
    """A custom layer: cumulative sum over the bands (no planner op)."""

    def forward(self, x):
        return torch.cumsum(x, dim=1)


class WithCustomLayers(nn.Module):
    def __init__(self, bands, classes):
        super().__init__()
        self.spectral_sum = SpectralCumsum()
        self.conv = nn.Conv2d(bands, 32, 3)
        self.act2 = nn.PReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.act2(self.conv(self.spectral_sum(x)))
        return self.fc(self.pool(x).flatten(1))


class VisionBlocks(nn.Module):
    """A concat of one tensor (DenseNet), Hardswish and a Hardsigmoid gate
    (MobileNetV3's squeeze-excitation), ReLU6, channels-last LayerNorm with a layer
    scale (ConvNeXt), stochastic depth in training, a channel slice (GhostNet) and a
    mean over the spatial dimensions of a channels-last tensor."""

    def __init__(self, bands, classes, width=8):
        super().__init__()
        self.conv = nn.Conv2d(bands, width, 3, padding=1)
        self.act = nn.Hardswish()
        self.se_reduce = nn.Conv2d(width, 4, 1)
        self.se_expand = nn.Conv2d(4, width, 1)
        self.gate = nn.Hardsigmoid()
        self.clip = nn.ReLU6(inplace=True)
        self.norm = nn.LayerNorm(width)
        self.gamma = nn.Parameter(torch.full((width,), 1e-6))
        self.head = nn.Linear(width // 2, classes)

    def forward(self, x):
        x = torch.cat([self.act(self.conv(x))], 1)
        x = x * self.gate(self.se_expand(self.clip(self.se_reduce(x.mean((2, 3), keepdim=True)))))
        y = self.norm(x.permute(0, 2, 3, 1)) * self.gamma
        keep = torch.empty(x.shape[0], 1, 1, 1).bernoulli_(0.9) / 0.9
        x = x + y.permute(0, 3, 1, 2) * keep
        return self.head(x[:, : x.shape[1] // 2].permute(0, 2, 3, 1).mean((1, 2)))

