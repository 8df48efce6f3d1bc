"""The torch model of the policy/value network described in :mod:`brain.network`.

Module names match the exported array names, so that :func:`brain.train.export.fold`
maps ``stem`` (a convolution followed by batch norm) to ``stem.weight``/``stem.bias``.
"""

from __future__ import annotations

import torch
from torch import nn

from brain.network import Architecture


class ConvBN(nn.Module):
    """A convolution without bias followed by batch norm; folded into one convolution at
    export."""

    def __init__(self, in_channels: int, out_channels: int, kernel: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2,
                              bias=False)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(self.conv(x))


class ResidualBlock(nn.Module):
    """Two 3x3 ConvBN layers with a skip connection: relu(x + bn(conv(relu(bn(conv(x))))))."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = ConvBN(channels, channels, 3)
        self.conv2 = ConvBN(channels, channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class PolicyHead(nn.Module):
    """1x1 ConvBN, ReLU, 1x1 convolution to one logit per cell: (B, H*W)."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.conv = ConvBN(channels, hidden, 1)
        self.out = nn.Conv2d(hidden, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.conv(x))).flatten(1)


class ValueHead(nn.Module):
    """1x1 ConvBN, ReLU, mean and max pooling over the board, two linear layers: (B, 3)
    win/draw/loss logits of the side to move."""

    def __init__(self, channels: int, hidden_channels: int, hidden: int) -> None:
        super().__init__()
        self.conv = ConvBN(channels, hidden_channels, 1)
        self.fc1 = nn.Linear(2 * hidden_channels, hidden)
        self.fc2 = nn.Linear(hidden, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        v = torch.relu(self.conv(x)).flatten(2)
        pooled = torch.cat([v.mean(dim=2), v.amax(dim=2)], dim=1)
        return self.fc2(torch.relu(self.fc1(pooled)))


class PolicyValueModel(nn.Module):
    """Residual tower with a policy and a value head; input (B, C, H, W) feature planes."""

    def __init__(self, architecture: Architecture) -> None:
        super().__init__()
        self.architecture = architecture
        a = architecture
        self.stem = ConvBN(a.in_planes, a.channels, 3)
        self.blocks = nn.ModuleList(ResidualBlock(a.channels) for _ in range(a.blocks))
        self.policy = PolicyHead(a.channels, a.policy_channels)
        self.value = ValueHead(a.channels, a.value_channels, a.value_hidden)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits (B, H*W) and win/draw/loss logits (B, 3)."""
        x = torch.relu(self.stem(planes))
        for block in self.blocks:
            x = block(x)
        return self.policy(x), self.value(x)
