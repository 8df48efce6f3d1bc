"""Export a trained model to the numpy weights file read by :mod:`brain.eval.network`.

Batch norm is folded into the convolution before it: for a convolution ``W`` (no bias)
followed by batch norm with scale ``g``, shift ``b``, running mean ``m`` and variance
``v``, the folded convolution has weight ``W * s`` and bias ``b - m * s`` with
``s = g / sqrt(v + eps)`` per output channel, which equals the pair in eval mode.

:func:`unfold` goes the other way, to train on from a weights file: each folded
convolution becomes a convolution and a batch norm again, with running statistics taken
from real inputs so that a training step starts where the file is.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from brain.eval.features import FEATURE_VERSION
from brain.eval.network import NetMetadata, PolicyValueNet, save_weights
from brain.train.checkpoint import load_checkpoint, model_from_checkpoint
from brain.train.model import ConvBN, Group, PolicyValueModel


def fold_conv_bn(layer: ConvBN) -> tuple[torch.Tensor, torch.Tensor]:
    """Weight and bias of the single convolution equal to ``layer`` in eval mode."""
    bn = layer.bn
    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
    weight = layer.conv.weight * scale.reshape(-1, 1, 1, 1)
    return weight, bn.bias - bn.running_mean * scale


@torch.no_grad()
def fold(model: PolicyValueModel) -> dict[str, np.ndarray]:
    """The float32 arrays of the exported network, named as in
    :meth:`brain.eval.network.Architecture.array_shapes`."""
    arrays: dict[str, np.ndarray] = {}
    for name, module in model.named_modules():
        if isinstance(module, ConvBN):
            weight, bias = fold_conv_bn(module)
        elif isinstance(module, nn.Conv2d | nn.Linear) and module.bias is not None:
            weight, bias = module.weight, module.bias
        else:
            continue
        arrays[f"{name}.weight"] = weight.detach().float().cpu().numpy()
        arrays[f"{name}.bias"] = bias.detach().float().cpu().numpy()
    return arrays


def training_summary(payload: dict[str, Any], checkpoint: str) -> dict[str, Any]:
    """What a weights file records about the checkpoint it came from."""
    history = payload.get("history", [])
    return {
        "checkpoint": checkpoint,
        "exported": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "steps": payload.get("step"),
        "samples": payload.get("samples"),
        "wall_time_s": round(float(payload.get("wall_time_s", 0.0)), 1),
        "config": payload.get("config", {}),
        "data": payload.get("data", {}),
        "validation": history[-1] if history else None,
    }


def export_checkpoint(checkpoint: str | Path, out: str | Path) -> NetMetadata:
    """Write the weights file ``out`` for the checkpoint file ``checkpoint``; returns its
    metadata."""
    payload = load_checkpoint(checkpoint)
    model = model_from_checkpoint(payload)
    metadata = NetMetadata(model.architecture, FEATURE_VERSION,
                           training_summary(payload, Path(checkpoint).name))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    save_weights(out, fold(model), metadata)
    return metadata


@torch.no_grad()
def unfold(weights: str | Path, calibration: Group) -> PolicyValueModel:
    """The torch model of the weights file ``weights``, ready to train on (eval mode).

    A folded convolution (weight ``W'``, bias ``b'``) becomes the convolution ``W'`` and a
    batch norm whose running mean ``m`` and variance ``v`` are those of ``W' x`` over the
    ``calibration`` planes (a list of (B, C, H, W) tensors, a training batch), with scale
    ``sqrt(v + eps)`` and shift ``b' + m``. In eval mode that is ``W' x + b'`` exactly; in
    training mode, on batches like ``calibration``, nearly so, where the identity batch
    norm (``m = 0``, ``v = 1``) would renormalise every layer and lose what was learned.

    :raises brain.eval.network.WeightsError: ``weights`` is not a usable weights file.
    """
    architecture = PolicyValueNet.load(weights).architecture  # checks the file
    with np.load(weights, allow_pickle=False) as archive:
        arrays = {name: torch.from_numpy(archive[name]) for name in archive.files
                  if name != "metadata"}
    model = PolicyValueModel(architecture).eval()
    layers = {name: module for name, module in model.named_modules()
              if isinstance(module, ConvBN)}
    for name, module in model.named_modules():
        if isinstance(module, ConvBN):
            module.conv.weight.copy_(arrays[f"{name}.weight"])
            module.bn.weight.fill_(1.0)
            module.bn.bias.copy_(arrays[f"{name}.bias"])
            module.bn.running_mean.zero_()
            module.bn.running_var.fill_(1.0 - module.bn.eps)
        elif isinstance(module, nn.Conv2d | nn.Linear) and module.bias is not None:
            module.weight.copy_(arrays[f"{name}.weight"])
            module.bias.copy_(arrays[f"{name}.bias"])
    # Every layer now computes W' x + b': one pass gives each convolution's real inputs.
    # Per layer: cells seen, and the per-channel sums of W' x and of its square.
    stats = {name: [0, torch.zeros(layer.conv.out_channels, dtype=torch.float64),
                    torch.zeros(layer.conv.out_channels, dtype=torch.float64)]
             for name, layer in layers.items()}

    def record(name: str) -> Any:
        def hook(_module: nn.Module, _inputs: Any, output: torch.Tensor) -> None:
            channels = output.transpose(0, 1).reshape(output.shape[1], -1).double()
            entry = stats[name]
            entry[0] += channels.shape[1]
            entry[1] += channels.sum(dim=1)
            entry[2] += (channels ** 2).sum(dim=1)
        return hook

    handles = [layer.conv.register_forward_hook(record(name))
               for name, layer in layers.items()]
    model.forward_groups(list(calibration))
    for handle in handles:
        handle.remove()
    for name, layer in layers.items():
        count, total, squares = stats[name]
        mean = total / count
        variance = (squares / count - mean ** 2).clamp(min=0)
        bn = layer.bn
        bn.running_mean.copy_(mean.float())
        bn.running_var.copy_(variance.float())
        bn.weight.copy_(torch.sqrt(variance + bn.eps).float())
        bn.bias.add_(mean.float())
    return model
