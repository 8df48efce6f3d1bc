"""Shared fixtures: where the team's read-only data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.resources import shared_data_dir

SHARED_DATA = shared_data_dir()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The team's read-only data folder (:func:`brain.resources.shared_data_dir`; see its
    README)."""
    if not SHARED_DATA.is_dir():
        raise RuntimeError(f"shared data not found at {SHARED_DATA}: check out next to "
                           "shared/, or set PBRAIN_SHARED_DATA")
    return SHARED_DATA
