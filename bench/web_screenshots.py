"""Screenshots of the project's web board with known positions: the ``web`` set of
``bench/bench_photo.py``.

Starts the board server, opens it in headless Chromium (``arena.board.chromium``: Debian's
``chromium`` and Playwright, both of the dev setup), sets up random positions through
the board's own WebSocket request ``new`` (two people, so no brain moves), and saves a
screenshot of the whole window for each: ``NAME.png`` with the position in ``NAME.json``
(``stones[y][x]``: 0 empty, 1 black, 2 white).

    .venv/bin/python bench/web_screenshots.py --count 40 --out /tmp/web-shots
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from playwright.sync_api import sync_playwright

from arena.board.app import board_server
from arena.board.chromium import launch
from arena.photo.position import Position
from arena.photo.synth import random_position

#: Window sizes of the screenshots: a desktop browser, a laptop, a narrow window.
VIEWPORTS = ((1280, 860), (1024, 768), (1500, 950), (700, 900))
SIZES = (15, 15, 15, 20, 20, 19, 10)


def _send_script(setup: dict[str, object]) -> str:
    """JavaScript that sends ``setup`` as a ``new`` request on a socket of its own."""
    return ("new Promise((done) => { const ws = new WebSocket(`ws://${location.host}/ws`);"
            f" ws.onopen = () => {{ ws.send(JSON.stringify({json.dumps(setup)}));"
            " setTimeout(() => { ws.close(); done(); }, 400); }; })")


def shoot(count: int, out: Path, seed: int = 0) -> list[Path]:
    """Write ``count`` screenshots with their positions into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = []
    server = board_server([], port=0)
    server.start()
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            for k in range(count):
                width, height = VIEWPORTS[k % len(VIEWPORTS)]
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(server.url)
                page.wait_for_selector("#play-board line", state="attached")
                size = int(SIZES[k % len(SIZES)])
                stones = random_position(rng, size, size)
                moves = Position(stones, np.ones(stones.shape), "points").moves()
                page.evaluate(_send_script({"op": "new", "width": size, "height": size,
                                            "rule": 0, "black": "human", "white": "human",
                                            "moves": [list(m) for m in moves]}))
                page.wait_for_function(
                    f"document.querySelectorAll('#play-board .stone').length === {len(moves)}")
                name = out / f"web{k:03d}"
                page.screenshot(path=str(name.with_suffix(".png")))
                name.with_suffix(".json").write_text(json.dumps(
                    {"stones": stones.astype(int).tolist(), "viewport": [width, height]}))
                written.append(name.with_suffix(".png"))
                page.close()
            browser.close()
    finally:
        server.stop()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    written = shoot(args.count, args.out, args.seed)
    print(f"{len(written)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
