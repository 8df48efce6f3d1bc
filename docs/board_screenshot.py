"""Make docs/board.png, the README's picture of the web board: pbrain-zero thinking on a
position, with its heat map, candidates and principal variation, in headless Chromium.

Run: ``.venv/bin/python docs/board_screenshot.py [OUT.png]`` (needs the dev extra and
Debian's chromium).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from arena.board.app import board_server
from arena.board.chromium import launch
from arena.brainspec import builtin_brain
from brain.game.records import GameRecord, GameResult, write_sgf

#: A quiet opening, white to move.
POSITION = ((7, 7), (8, 6), (8, 8), (6, 6), (9, 9), (7, 6), (9, 6))


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "board.png")
    server = board_server([builtin_brain()], port=0)
    server.start()
    try:
        with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
            game = Path(folder) / "opening.sgf"
            game.write_text(write_sgf(GameRecord(15, 15, 0, "opening", "opening", POSITION,
                                                 GameResult.DRAW, "draw")), encoding="utf-8")
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1140, "height": 700})
            page.goto(server.url)
            expect(page.locator("#connection")).to_have_text("connected")
            page.select_option("#black", "human")
            page.select_option("#white", label="pbrain-zero")
            page.fill("#turn-ms", "6000")
            page.click(".tab[data-view='viewer']")
            page.set_input_files("#file", str(game))
            page.click("#play-from-here")
            page.mouse.move(0, 0)  # off the panel: pointing at the PV would draw it
            heat = page.locator("#play-board .heatmap[data-state='thinking'] .heat")
            expect(heat.nth(5)).to_be_visible(timeout=20_000)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": 1140, "height": 700})
            browser.close()
    finally:
        server.stop()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
