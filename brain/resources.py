"""Where the brain finds the data files it ships with, and the team's shared data."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

#: Environment variable that names the shared data folder explicitly.
SHARED_DATA_ENV = "PBRAIN_SHARED_DATA"
_CHECKOUT = Path(__file__).resolve().parent.parent


def weights_dir() -> Path:
    """The ``weights/`` folder: next to the ``brain`` package in a checkout, or inside the
    PyInstaller bundle (``sys._MEIPASS``) when the brain runs frozen."""
    bundle = getattr(sys, "_MEIPASS", None)
    root = Path(bundle) if bundle is not None else _CHECKOUT
    return root / "weights"


#: File at the root of a build that holds the ABOUT author and country it was made with.
ABOUT_FILE = "about.json"


def bundled_about() -> dict[str, str]:
    """The ``author`` and ``country`` a build was made with (``python -m brain.build
    --author --country``); empty outside a build, or if the file is unreadable."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is None:
        return {}
    try:
        data = json.loads((Path(bundle) / ABOUT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: str(data[key]) for key in ("author", "country") if data.get(key)}


@functools.cache
def shared_data_dir() -> Path:
    """The team's read-only data folder (game records, openings, tactics): the
    ``PBRAIN_SHARED_DATA`` environment variable if set, else ``shared/data`` beside the
    checkout, else beside the checkout this one was cloned from (a local clone in a
    temporary folder, as CI makes). The path is returned even if missing: callers name
    it in their error."""
    override = os.environ.get(SHARED_DATA_ENV)
    if override:
        return Path(override)
    beside = _CHECKOUT.parent / "shared" / "data"
    if beside.is_dir():
        return beside
    origin = _clone_origin(_CHECKOUT)
    if origin is not None and (origin.parent / "shared" / "data").is_dir():
        return origin.parent / "shared" / "data"
    return beside


def _clone_origin(checkout: Path) -> Path | None:
    """The local folder ``checkout`` was cloned from, if it was a local clone."""
    try:
        url = subprocess.run(["git", "-C", str(checkout), "config", "--get",
                              "remote.origin.url"], capture_output=True, text=True,
                             timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    url = url.removeprefix("file://")
    if not url or "://" in url or (":" in url and not Path(url).exists()):
        return None  # a remote repository: nothing beside it on this machine
    return (checkout / url).resolve()
