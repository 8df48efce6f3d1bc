"""Where the brain finds the data files it ships with."""

from __future__ import annotations

import sys
from pathlib import Path


def weights_dir() -> Path:
    """The ``weights/`` folder: next to the ``brain`` package in a checkout, or inside the
    PyInstaller bundle (``sys._MEIPASS``) when the brain runs frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    root = Path(bundle) if bundle is not None else Path(__file__).resolve().parent.parent
    return root / "weights"
