"""Example models for tools/export_model.py's self-test and fixtures.

ResNet18 is torchvision's resnet18 (torchvision/models/resnet.py, BasicBlock with an
in-place `out += identity`, ReLU(inplace=True), 1x1 conv + BN shortcut where the shape
changes) with the first convolution taking `bands` channels, so a B-band s x s patch goes
in. WithCustomLayers holds two layers the planner has no op for (a PReLU and a cumulative
sum over the bands), to check that the exporter reports them by name.
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
