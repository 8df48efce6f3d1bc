"""Shared fixtures: where the team's read-only data lives; Ctrl-C reaches the programs
the tests start."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from arena.board.chromium import launch
from brain.resources import shared_data_dir
from tests.system_packages import require_commands

SHARED_DATA = shared_data_dir()


def pytest_configure(config: pytest.Config) -> None:
    """Tests that press Ctrl-C (SIGINT) expect what a person at a terminal gets. A shell
    runs a background job (``pytest &``, ``nohup``) with SIGINT ignored, which every
    program it starts inherits, and Python then never raises KeyboardInterrupt: a run
    asked to stop would play on. A handled signal is reset to the default at exec, so
    handling it here gives the programs the tests start the terminal's disposition."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The team's read-only data folder (:func:`brain.resources.shared_data_dir`; see its
    README)."""
    if not SHARED_DATA.is_dir():
        raise RuntimeError(f"shared data not found at {SHARED_DATA}: check out next to "
                           "shared/, or set PBRAIN_SHARED_DATA")
    return SHARED_DATA


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Chromium (Debian's, installed if missing), one for the whole session:
    playwright's synchronous API runs one event loop at a time, so the board's page tests
    and its photo tests share it."""
    paths = require_commands({"chromium": "chromium"})
    with sync_playwright() as playwright:
        chromium = launch(playwright, paths["chromium"])
        yield chromium
        chromium.close()
