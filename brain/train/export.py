"""Export a trained model to the numpy weights file read by :mod:`brain.eval.network`.

Batch norm is folded into the convolution before it: for a convolution ``W`` (no bias)
followed by batch norm with scale ``g``, shift ``b``, running mean ``m`` and variance
``v``, the folded convolution has weight ``W * s`` and bias ``b - m * s`` with
``s = g / sqrt(v + eps)`` per output channel, which equals the pair in eval mode.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from brain.eval.features import FEATURE_VERSION
from brain.eval.network import NetMetadata, save_weights
from brain.train.checkpoint import load_checkpoint, model_from_checkpoint
from brain.train.model import ConvBN, PolicyValueModel


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
