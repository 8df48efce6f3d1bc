"""Shared fixtures: where the team's read-only data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only ../shared/data folder next to the checkout (see its README)."""
    if not SHARED_DATA.is_dir():
        raise RuntimeError(f"shared data not found at {SHARED_DATA}: check out next to shared/")
    return SHARED_DATA
