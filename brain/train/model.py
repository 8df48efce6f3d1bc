"""The torch model of the policy/value network described in :mod:`brain.eval.network`.

Module names match the exported array names, so that :func:`brain.train.export.fold`
maps ``stem`` (a convolution followed by batch norm) to ``stem.weight``/``stem.bias``.

A training batch mixes sources, and sources differ in board size, so a batch is a list
of tensors, one per board shape (:meth:`PolicyValueModel.forward_groups`). Batch norm
takes its statistics over all of them together (:class:`JointBatchNorm2d`): were each
shape (or each source) normalised on its own, the network could not see what tells
them apart in training (a plane that is constant over a batch is normalised away, such
as the rule planes), and the running statistics used after training would fit none of
them.
"""

from __future__ import annotations

import torch
from torch import nn

from brain.eval.network import Architecture

Group = list[torch.Tensor]


class JointBatchNorm2d(nn.BatchNorm2d):
    """Batch norm over a list of (B_i, C, H_i, W_i) tensors with statistics shared by all
    cells of all of them; on one tensor it is plain :class:`torch.nn.BatchNorm2d`."""

    def forward(self, xs: Group) -> Group:  # type: ignore[override]
        if len(xs) == 1:
            return [super().forward(xs[0])]
        channels = xs[0].shape[1]
        # (B, C, H, W) -> (C, B*H*W), side by side, viewed as one (1, C, N, 1) image.
        flat = torch.cat([x.transpose(0, 1).reshape(channels, -1) for x in xs], dim=1)
        normed = super().forward(flat[None, :, :, None])[0, :, :, 0]
        out, start = [], 0
        for x in xs:
            batch, _, height, width = x.shape
            size = batch * height * width
            part = normed[:, start:start + size].reshape(channels, batch, height, width)
            out.append(part.transpose(0, 1))
            start += size
        return out


class ConvBN(nn.Module):
    """A convolution without bias followed by batch norm; folded into one convolution at
    export."""

    def __init__(self, in_channels: int, out_channels: int, kernel: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel, padding=kernel // 2,
                              bias=False)
        self.bn = JointBatchNorm2d(out_channels)

    def forward(self, xs: Group) -> Group:
        return self.bn([self.conv(x) for x in xs])


def _relu(xs: Group) -> Group:
    return [torch.relu(x) for x in xs]


class ResidualBlock(nn.Module):
    """Two 3x3 ConvBN layers with a skip connection: relu(x + bn(conv(relu(bn(conv(x))))))."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = ConvBN(channels, channels, 3)
        self.conv2 = ConvBN(channels, channels, 3)

    def forward(self, xs: Group) -> Group:
        ys = self.conv2(_relu(self.conv1(xs)))
        return [torch.relu(x + y) for x, y in zip(xs, ys, strict=True)]


class PolicyHead(nn.Module):
    """1x1 ConvBN, ReLU, 1x1 convolution to one logit per cell: (B, H*W) per group."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.conv = ConvBN(channels, hidden, 1)
        self.out = nn.Conv2d(hidden, 1, 1)

    def forward(self, xs: Group) -> Group:
        return [self.out(h).flatten(1) for h in _relu(self.conv(xs))]


class ValueHead(nn.Module):
    """1x1 ConvBN, ReLU, mean and max pooling over the board, two linear layers: (B, 3)
    win/draw/loss logits of the side to move, per group."""

    def __init__(self, channels: int, hidden_channels: int, hidden: int) -> None:
        super().__init__()
        self.conv = ConvBN(channels, hidden_channels, 1)
        self.fc1 = nn.Linear(2 * hidden_channels, hidden)
        self.fc2 = nn.Linear(hidden, 3)

    def forward(self, xs: Group) -> Group:
        out = []
        for v in _relu(self.conv(xs)):
            flat = v.flatten(2)
            pooled = torch.cat([flat.mean(dim=2), flat.amax(dim=2)], dim=1)
            out.append(self.fc2(torch.relu(self.fc1(pooled))))
        return out


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

    def forward_groups(self, groups: Group) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """(policy logits (B_i, H_i*W_i), win/draw/loss logits (B_i, 3)) for each tensor of
        planes in ``groups``, with batch statistics shared by all groups in training."""
        xs = _relu(self.stem(groups))
        for block in self.blocks:
            xs = block(xs)
        return list(zip(self.policy(xs), self.value(xs), strict=True))

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits (B, H*W) and win/draw/loss logits (B, 3)."""
        return self.forward_groups([planes])[0]
