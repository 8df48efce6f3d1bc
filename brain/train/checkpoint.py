"""Training checkpoints: one ``torch.save`` dictionary per file, written atomically.

A checkpoint holds ``model`` (state dict), ``architecture`` (a dict of
:class:`~brain.eval.network.Architecture` fields), ``optimizer`` (state dict), ``step``,
``samples``, ``wall_time_s`` (wall-clock training time so far), ``config`` (the run's settings),
``data`` (what was loaded) and ``history`` (validation records, one per evaluation).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

from brain.errors import PbrainError
from brain.eval.network import Architecture
from brain.train.model import PolicyValueModel

LAST = "last.pt"
BEST = "best.pt"


class CheckpointError(PbrainError, ValueError):
    """A checkpoint file that is missing or is not one of ours."""


def save_checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` via a temporary file, so a crash never leaves half a
    checkpoint behind."""
    partial = path.with_name(path.name + ".partial")
    torch.save(payload, partial)
    os.replace(partial, path)


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint (on the CPU); raises :class:`CheckpointError` if unusable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    payload = torch.load(path, map_location="cpu", weights_only=False)
    if not isinstance(payload, dict) or "model" not in payload or "architecture" not in payload:
        raise CheckpointError(f"{path} is not a pbrain-zero training checkpoint")
    return payload


def model_from_checkpoint(payload: dict[str, Any]) -> PolicyValueModel:
    """The model of a loaded checkpoint, in eval mode."""
    model = PolicyValueModel(Architecture(**payload["architecture"]))
    model.load_state_dict(payload["model"])
    return model.eval()
