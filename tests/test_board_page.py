"""The web board's page in a real headless Chromium (Debian's ``chromium``, driven by
Playwright): a person plays pbrain-zero by clicks and watches its heat map while it
thinks, a renju forbidden point is refused, a saved game is stepped through and analysed,
and the tournament page follows an arena run. Screenshots are saved in a temporary folder
(printed at the end of each test) as artifacts.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from arena.board.app import board_server
from arena.board.chromium import launch
from arena.board.server import BoardServer
from arena.brainspec import builtin_brain
from arena.records import GameRecord, GameResult, write_sgf
from tests.system_packages import require_commands

ROOT = Path(__file__).resolve().parents[1]
#: Black's stones 6,7 7,7 and 8,8 8,9 with white far away: 8,7 is a double three.
RENJU_DOUBLE_THREE = ((6, 7), (0, 0), (7, 7), (0, 14), (8, 8), (14, 0), (8, 9), (14, 14))


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    paths = require_commands({"chromium": "chromium"})
    with sync_playwright() as playwright:
        chromium = launch(playwright, paths["chromium"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("board-screenshots")


@pytest.fixture()
def server() -> Iterator[BoardServer]:
    board = board_server([builtin_brain(), builtin_brain("heuristic")], port=0)
    board.start()
    yield board
    board.stop()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 820})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def click_point(page: Page, board: str, x: int, y: int) -> None:
    """Click the intersection (x, y) of the board ``board`` (an svg id)."""
    svg = page.locator(f"#{board}")
    width = int(svg.get_attribute("data-width") or 0)
    height = int(svg.get_attribute("data-height") or 0)
    box = svg.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * (x + 1) / (width + 1),
                     box["y"] + box["height"] * (y + 1) / (height + 1))


def stones(page: Page, board: str) -> Any:
    return page.locator(f"#{board} .stone")


def open_board(page: Page, server: BoardServer) -> None:
    page.goto(server.url)
    expect(page.locator("#connection")).to_have_text("connected")


def test_a_person_plays_pbrain_zero_by_clicks(page: Page, server: BoardServer,
                                              shots: Path) -> None:
    open_board(page, server)
    page.select_option("#black", "human")
    page.select_option("#white", label="pbrain-zero")
    page.select_option("#size", "15")
    page.select_option("#rule", "0")
    page.fill("#turn-ms", "5000")  # its first move pays for its start-up
    page.click("#new-game")
    expect(stones(page, "play-board")).to_have_count(0)
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#play-board .stone.black[data-x='7'][data-y='7']")).to_have_count(1)
    # While it thinks, its visit shares light up the board.
    expect(page.locator("#status")).to_contain_text("white (pbrain-zero) is thinking")
    live = page.locator("#play-board .heatmap[data-state='thinking'] .heat")
    expect(live.first).to_be_visible(timeout=10_000)
    page.screenshot(path=str(shots / "thinking.png"))
    assert live.count() >= 3
    expect(page.locator("#play-board .stone.white")).to_have_count(1, timeout=10_000)
    expect(page.locator("#status")).to_contain_text("black to move (you)")
    expect(page.locator("#candidates tbody tr").first).to_be_visible()
    expect(page.locator("#search-line")).to_contain_text("done")
    expect(page.locator("#winrate-graph circle")).to_have_count(1)
    # The person answers by a click; an occupied square is refused; undo takes back
    # both the brain's move and the person's.
    white = page.locator("#play-board .stone.white")
    wx, wy = int(white.get_attribute("data-x") or 0), int(white.get_attribute("data-y") or 0)
    click_point(page, "play-board", wx, wy)
    expect(page.locator("#status")).to_contain_text("is taken")
    page.click("#undo")
    expect(stones(page, "play-board")).to_have_count(0)
    page.screenshot(path=str(shots / "after-undo.png"))
    print(f"screenshots in {shots}")


def test_saved_game_stepped_analysed_and_renju_foul_refused(
        page: Page, server: BoardServer, shots: Path, tmp_path: Path) -> None:
    record = GameRecord(15, 15, 4, "alice", "bob", RENJU_DOUBLE_THREE, GameResult.DRAW,
                        "draw: adjourned")
    sgf = tmp_path / "renju.sgf"
    sgf.write_text(write_sgf(record), encoding="utf-8")
    open_board(page, server)
    page.select_option("#black", "human")
    page.select_option("#white", "human")
    page.click(".tab[data-view='viewer']")
    page.set_input_files("#file", str(sgf))
    expect(stones(page, "viewer-board")).to_have_count(8)
    page.click("#first")
    expect(stones(page, "viewer-board")).to_have_count(0)
    for count in (1, 2, 3):
        page.click("#next")
        expect(stones(page, "viewer-board")).to_have_count(count)
    page.click("#prev")
    expect(stones(page, "viewer-board")).to_have_count(2)
    # pbrain-zero analyses the position: a heat map on the viewer's board.
    page.select_option("#analyst", label="pbrain-zero")
    page.fill("#analyse-ms", "4000")  # its first move pays for its start-up
    page.click("#analyse")
    expect(page.locator("#viewer-board .heat").first).to_be_visible(timeout=10_000)
    expect(page.locator("#viewer-board .best")).to_have_count(1, timeout=10_000)
    expect(page.locator("#viewer-search")).to_contain_text("done")
    page.screenshot(path=str(shots / "viewer-analysis.png"))
    page.click("#last")
    expect(page.locator("#viewer-status")).to_contain_text("move 8 of 8")
    expect(page.locator("#viewer-board .heat")).to_have_count(0)
    # Played on from there under renju, black's double three is marked and refused.
    page.click("#play-from-here")
    expect(stones(page, "play-board")).to_have_count(8)
    expect(page.locator("#play-board .forbidden[data-x='8'][data-y='7']")).to_have_count(1)
    click_point(page, "play-board", 8, 7)
    expect(page.locator("#status")).to_contain_text("forbidden for black (double-three)")
    expect(stones(page, "play-board")).to_have_count(8)
    page.screenshot(path=str(shots / "renju-forbidden.png"))
    click_point(page, "play-board", 3, 3)
    expect(stones(page, "play-board")).to_have_count(9)
    print(f"screenshots in {shots}")


def _serve(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start an ``arena`` command with ``--serve`` and read its page's URL."""
    process = subprocess.Popen([sys.executable, "-m", "arena", *command], cwd=ROOT,
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stderr is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        found = re.search(r"http://\S+/", line)
        if found:
            return process, found.group(0)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"no URL from arena {' '.join(command)}")


def test_tournament_page_follows_a_run(page: Page, shots: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process, url = _serve(["run", "builtin:heuristic", "builtin:alphabeta:0", "--tc", "300",
                           "--pairs", "3", "--board", "10", "--random-openings", "2",
                           "--sprt", "0", "50", "--out", str(out), "--serve", "127.0.0.1:0"])
    try:
        page.goto(url)
        expect(page.locator(".tab[data-view='tournament']")).to_be_visible()
        expect(page.locator("#standings tbody tr")).to_have_count(2, timeout=30_000)
        # Every game ends up in the list, the SPRT's LLR is drawn against its bounds.
        expect(page.locator("#finished tbody tr")).to_have_count(6, timeout=60_000)
        expect(page.locator("#sprt-line")).to_contain_text("LLR")
        expect(page.locator("#llr-chart polyline")).to_have_count(1)
        expect(page.locator("#elo-chart .errorbar")).to_have_count(2)
        page.screenshot(path=str(shots / "tournament.png"), full_page=True)
        with urllib.request.urlopen(url + "api/run", timeout=10) as answer:
            data = json.loads(answer.read())
        assert data["report"]["games"] == 6 and len(data["llr"]) == 3
        page.locator("#finished tbody tr").first.click()
        expect(page.locator("#viewer")).to_be_visible()
        moves = data["games"][-1]["moves"]
        expect(stones(page, "viewer-board")).to_have_count(moves)
        page.click("#prev")
        expect(stones(page, "viewer-board")).to_have_count(moves - 1)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert process.returncode == 0
    # The saved run on the same page, from arena rate.
    process, url = _serve(["rate", str(out), "--serve", "127.0.0.1:0"])
    try:
        with urllib.request.urlopen(url + "api/run", timeout=10) as answer:
            assert json.loads(answer.read())["report"]["games"] == 6
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    print(f"screenshots in {shots}")
