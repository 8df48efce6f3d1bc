"""Headless Chromium for the board's browser tests and its README screenshot.

Launches the system's Chromium (Debian's ``chromium`` package) through Playwright for
Python, never a browser Playwright would download. Needs the ``playwright`` package (in
the ``dev`` extra); this module is not imported by the board itself.
"""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

__all__ = ["CHROMIUM_ARGS", "launch"]

#: Flags for a quiet, self-contained headless browser (no sandbox: tests may run as root).
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync")


def launch(playwright: Playwright, executable: str | None = None) -> Browser:
    """Start headless Chromium (``executable``, default the ``chromium`` on the PATH).

    :raises FileNotFoundError: no Chromium (install Debian's ``chromium`` package).
    """
    path = executable or shutil.which("chromium")
    if path is None:
        raise FileNotFoundError("no chromium on the PATH: install it (apt-get install "
                                "chromium)")
    return playwright.chromium.launch(executable_path=path, headless=True,
                                      args=list(CHROMIUM_ARGS))
