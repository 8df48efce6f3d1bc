"""The web board's page in a real headless Chromium (Debian's ``chromium``, driven by
Playwright), as a player meets it: games by clicks against a Rapfi-like engine
(``tests/brains/rapfi_like.py``: Rapfi's way of reading INFO and of reporting its
search), against pbrain-zero and against an engine that reports nothing; a fresh panel
after New game and nothing "thinking" between two people; the winning five, the row
labels and a layout that holds at 1280 and 420 px; the viewer (saved games, analysis,
play from here, a renju foul refused, a file it cannot open); clicks while disconnected;
and the tournament page following an arena run, its games numbered the same live and
finished, and ``arena board --open RUN`` landing on the viewer.

Screenshots at 1280 and 420 px wide are saved in a temporary folder (printed at the end
of each test; ``-s`` shows it).
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
from playwright.sync_api import Browser, Page, expect

from arena.board.app import board_server
from arena.board.server import BoardServer
from arena.brainspec import builtin_brain, parse_brain
from brain.game.records import GameRecord, GameResult, write_sgf

ROOT = Path(__file__).resolve().parents[1]
RAPFI_LIKE = ROOT / "tests" / "brains" / "rapfi_like.py"
#: Black's stones 6,7 7,7 and 8,8 8,9 with white far away: 8,7 is a double three.
RENJU_DOUBLE_THREE = ((6, 7), (0, 0), (7, 7), (0, 14), (8, 8), (14, 0), (8, 9), (14, 14))
#: Black to move, far from white's open threes 3..5,7 and 6,4..6: white wins by threats.
WHITE_WINS = ((0, 0), (3, 7), (0, 14), (4, 7), (14, 0), (5, 7), (12, 12), (6, 4),
              (0, 10), (6, 5), (10, 0), (6, 6))
WIDE, NARROW = 1280, 420


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("board-screenshots")


def _board() -> BoardServer:
    rapfi_like = parse_brain(f"{sys.executable} {RAPFI_LIKE}", name="rapfi-like")
    board = board_server([builtin_brain("linenet"), rapfi_like, builtin_brain("heuristic")],
                         port=0)
    board.start()
    return board


@pytest.fixture()
def server() -> Iterator[BoardServer]:
    board = _board()
    yield board
    board.stop()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
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


def new_game(page: Page, black: str, white: str, turn_ms: int = 2000, size: int = 15,
             rule: int = 0) -> None:
    page.select_option("#black", label=black)
    page.select_option("#white", label=white)
    page.select_option("#size", str(size))
    page.select_option("#rule", str(rule))
    page.fill("#turn-ms", str(turn_ms))
    page.click("#new-game")
    expect(stones(page, "play-board")).to_have_count(0)


def search(page: Page, part: str, panel: str = "play-search") -> Any:
    return page.locator(f"#{panel} .search-{part}")


def screenshots(page: Page, shots: Path, name: str) -> None:
    """Save the page at 1280 and at 420 px wide; at both widths nothing scrolls sideways
    and the board fits the window."""
    for width in (WIDE, NARROW):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(200)
        page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width, f"{name} at {width} px scrolls sideways ({scroll} px)"
        for board in page.locator("svg.board:visible").all():
            box = board.bounding_box()
            assert box is not None and box["x"] + box["width"] <= width
    page.set_viewport_size({"width": WIDE, "height": 900})


def test_a_person_plays_a_rapfi_like_engine(page: Page, server: BoardServer,
                                            shots: Path) -> None:
    """Point 1: an engine that reports in Rapfi's way plays; its depth, evaluation,
    principal variation and best move are shown while it thinks and after its move."""
    open_board(page, server)
    new_game(page, "human", "rapfi-like", turn_ms=2000)
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#status")).to_contain_text("white (rapfi-like) is thinking")
    expect(search(page, "head")).to_contain_text("white · rapfi-like · thinking")
    expect(page.locator("#play-search .search-stats[data-state='thinking']")).to_contain_text(
        "depth", timeout=5000)
    expect(search(page, "stats")).to_contain_text("eval")
    expect(page.locator("#play-board .best")).to_have_count(1)
    page.screenshot(path=str(shots / f"rapfi-like-thinking-{WIDE}.png"))
    # A move refused while it thinks stays on the screen after its move arrives.
    click_point(page, "play-board", 3, 3)
    expect(page.locator("#notice")).to_contain_text("not your turn: rapfi-like is to move")
    expect(page.locator("#play-board .stone.white")).to_have_count(1, timeout=10_000)
    expect(page.locator("#notice")).to_contain_text("not your turn")
    expect(search(page, "head")).to_contain_text(re.compile(r"white · rapfi-like · played "
                                                            r"\d+,\d+ in [\d.]+ m?s"))
    expect(search(page, "stats")).to_contain_text("depth 4")
    expect(search(page, "engine")).to_contain_text("its words: Speed")
    expect(search(page, "pv")).to_contain_text("PV ")
    expect(page.locator("#status")).to_contain_text("black to move (you)")
    expect(page.locator("#winrate-graph circle")).to_have_count(1)
    # It keeps playing: no forfeit at its first move.
    for count in (2, 3):
        taken = {(int(s.get_attribute("data-x") or 0), int(s.get_attribute("data-y") or 0))
                 for s in stones(page, "play-board").all()}
        x, y = next(p for p in ((7, 9), (9, 7), (5, 5), (9, 9), (5, 9)) if p not in taken)
        click_point(page, "play-board", x, y)
        expect(page.locator("#play-board .stone.white")).to_have_count(count, timeout=10_000)
    expect(page.locator("#status")).not_to_contain_text("Game over")
    screenshots(page, shots, "rapfi-like-played")
    print(f"screenshots in {shots}")


def test_a_person_plays_pbrain_zero_then_a_fresh_game(page: Page, server: BoardServer,
                                                     shots: Path) -> None:
    """pbrain-zero's heat map while it thinks (no disc for a move tried once); after New
    game nothing of the last search stays, and between two people nothing thinks."""
    open_board(page, server)
    expect(page.locator("#white option", has_text="pbrain-zero")).to_have_count(1)
    new_game(page, "human", "pbrain-zero", turn_ms=5000)  # its first move pays its start-up
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#status")).to_contain_text("white (pbrain-zero) is thinking")
    live = page.locator("#play-board .heatmap[data-state='thinking'] .heat")
    expect(live.first).to_be_visible(timeout=10_000)
    page.screenshot(path=str(shots / f"pbrain-zero-thinking-{WIDE}.png"))
    titles = page.locator("#play-board .heat title").all_text_contents()
    visits = [int(re.match(r"\d+,\d+: (\d+) visits", t)[1]) for t in titles]  # type: ignore[index]
    assert visits and min(visits) >= 2, titles
    expect(page.locator("#play-board .stone.white")).to_have_count(1, timeout=10_000)
    expect(search(page, "head")).to_contain_text("white · pbrain-zero · played")
    expect(search(page, "stats")).to_contain_text("playouts")
    expect(page.locator("#play-search table.candidates tbody tr").first).to_be_visible()
    expect(page.locator("#winrate-graph circle")).to_have_count(1)
    screenshots(page, shots, "pbrain-zero-played")
    # An occupied square is refused; undo takes back both moves, and their search.
    white = page.locator("#play-board .stone.white")
    wx, wy = int(white.get_attribute("data-x") or 0), int(white.get_attribute("data-y") or 0)
    click_point(page, "play-board", wx, wy)
    expect(page.locator("#notice")).to_contain_text("is taken")
    page.click("#undo")
    expect(stones(page, "play-board")).to_have_count(0)
    expect(search(page, "head")).to_have_text("No search yet in this game.")
    # Point 2: after a search, New game starts with an empty panel...
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#play-board .stone.white")).to_have_count(1, timeout=10_000)
    page.click("#new-game")
    expect(stones(page, "play-board")).to_have_count(0)
    expect(search(page, "head")).to_have_text("No search yet in this game.")
    expect(search(page, "stats")).to_have_text("")
    expect(search(page, "pv")).to_have_text("")
    expect(page.locator("#play-search table.candidates")).to_be_hidden()
    expect(page.locator("#winrate-graph circle")).to_have_count(0)
    # ... and between two people nothing thinks.
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#status")).to_contain_text("white (pbrain-zero) is thinking")
    new_game(page, "human", "human")
    expect(search(page, "head")).to_have_text("No brain plays in this game: nothing to show here.")
    for count, (x, y) in enumerate(((7, 7), (8, 8), (7, 8)), start=1):
        click_point(page, "play-board", x, y)
        expect(stones(page, "play-board")).to_have_count(count)
        expect(page.locator("#status")).not_to_contain_text("thinking")
        expect(page.locator("#play-search")).not_to_contain_text("thinking")
    print(f"screenshots in {shots}")


def test_an_engine_that_reports_nothing_says_so(page: Page, server: BoardServer) -> None:
    open_board(page, server)
    new_game(page, "human", "heuristic", turn_ms=1000)
    click_point(page, "play-board", 7, 7)
    expect(page.locator("#play-board .stone.white")).to_have_count(1, timeout=15_000)
    expect(search(page, "head")).to_contain_text("white · heuristic · played")
    expect(search(page, "note")).to_have_text("this engine reports no search details")
    expect(page.locator("#play-search table.candidates")).to_be_hidden()


def test_the_winning_five_the_labels_and_the_layout(page: Page, server: BoardServer,
                                                    shots: Path) -> None:
    """Point 3: black's five in the first column is marked, its row labels stay in
    sight, a long status line does not widen the board, the step buttons are drawn."""
    open_board(page, server)
    new_game(page, "human", "human")
    for y in range(5):
        click_point(page, "play-board", 0, y)
        if y < 4:
            click_point(page, "play-board", 6 + y, 6 + y)
    expect(page.locator("#status")).to_have_text("Game over: black wins by five")
    expect(page.locator("#play-board .five")).to_have_count(1)
    overlaps = page.evaluate("""() => {
        const boxes = [...document.querySelectorAll('#play-board .stone circle')]
            .map((c) => c.getBoundingClientRect());
        return [...document.querySelectorAll('#play-board .labels text.row')]
            .map((t) => t.getBoundingClientRect())
            .filter((l) => boxes.some((b) => l.right > b.left && l.left < b.right
                                      && l.bottom > b.top && l.top < b.bottom)).length;
    }""")
    assert overlaps == 0, "stones hide row labels"
    before = page.locator("#play .boardcol").bounding_box()
    page.evaluate("document.getElementById('status').textContent = 'a-long-word'.repeat(80)")
    after = page.locator("#play .boardcol").bounding_box()
    assert before is not None and after is not None and after["width"] == before["width"]
    screenshots(page, shots, "five")
    page.click(".tab[data-view='viewer']")
    for button in ("first", "prev", "next", "last"):
        expect(page.locator(f"#{button} svg path")).to_have_count(1)
        box = page.locator(f"#{button} svg").bounding_box()
        assert box is not None and box["width"] >= 12
    print(f"screenshots in {shots}")


def test_saved_game_analysed_and_played_on(page: Page, server: BoardServer, shots: Path,
                                           tmp_path: Path) -> None:
    """The viewer steps through a saved game, pbrain-zero and the Rapfi-like engine
    analyse it; played on from there under renju, black's foul is refused and the
    Rapfi-like engine answers. A file that holds no games says what the viewer opens."""
    record = GameRecord(15, 15, 4, "alice", "bob", RENJU_DOUBLE_THREE, GameResult.DRAW,
                        "draw: adjourned")
    sgf = tmp_path / "renju.sgf"
    sgf.write_text(write_sgf(record), encoding="utf-8")
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"players": []}), encoding="utf-8")
    open_board(page, server)
    page.select_option("#black", "human")
    page.select_option("#white", label="rapfi-like")
    page.click(".tab[data-view='viewer']")
    page.set_input_files("#file", str(results))
    expect(page.locator("#notice")).to_contain_text("the viewer opens games, as .sgf, .psq "
                                                     "or an arena run's games.jsonl")
    page.set_input_files("#file", str(sgf))
    expect(stones(page, "viewer-board")).to_have_count(8)
    page.click("#first")
    expect(stones(page, "viewer-board")).to_have_count(0)
    for count in (1, 2, 3):
        page.click("#next")
        expect(stones(page, "viewer-board")).to_have_count(count)
    page.click("#prev")
    expect(stones(page, "viewer-board")).to_have_count(2)
    page.select_option("#analyst", label="pbrain-zero")
    page.fill("#analyse-ms", "4000")  # its first move pays for its start-up
    page.click("#analyse")
    expect(page.locator("#viewer-board .heat").first).to_be_visible(timeout=10_000)
    expect(search(page, "head", "viewer-search")).to_contain_text("pbrain-zero would play",
                                                                  timeout=10_000)
    expect(page.locator("#viewer-board .best")).to_have_count(1)
    expect(search(page, "stats", "viewer-search")).to_contain_text("playouts")
    page.select_option("#analyst", label="rapfi-like")
    page.click("#analyse")
    expect(search(page, "head", "viewer-search")).to_contain_text("rapfi-like would play",
                                                                  timeout=10_000)
    expect(search(page, "stats", "viewer-search")).to_contain_text("depth")
    screenshots(page, shots, "viewer-analysis")
    page.click("#last")
    expect(page.locator("#viewer-status")).to_contain_text("move 8 of 8")
    expect(page.locator("#viewer-board .heat")).to_have_count(0)
    page.click("#play-from-here")
    expect(stones(page, "play-board")).to_have_count(8)
    expect(page.locator("#play-board .forbidden[data-x='8'][data-y='7']")).to_have_count(1)
    click_point(page, "play-board", 8, 7)
    expect(page.locator("#notice")).to_contain_text("forbidden for black (double-three)")
    expect(stones(page, "play-board")).to_have_count(8)
    page.screenshot(path=str(shots / f"renju-forbidden-{WIDE}.png"))
    click_point(page, "play-board", 3, 3)
    expect(stones(page, "play-board")).to_have_count(10, timeout=10_000)
    expect(search(page, "head")).to_contain_text("white · rapfi-like · played")
    print(f"screenshots in {shots}")


def test_a_threat_solver_win_is_shown_as_such(page: Page, server: BoardServer,
                                              tmp_path: Path) -> None:
    """pbrain-zero's move from its threat solver is a proven win, not "0 playouts"; its
    five then ends the game, marked on the board."""
    sgf = tmp_path / "threats.sgf"
    sgf.write_text(write_sgf(GameRecord(15, 15, 0, "a", "b", WHITE_WINS, GameResult.DRAW,
                                        "draw: adjourned")), encoding="utf-8")
    open_board(page, server)
    page.fill("#turn-ms", "3000")
    page.select_option("#black", "human")
    page.select_option("#white", label="pbrain-zero")
    page.click(".tab[data-view='viewer']")
    page.set_input_files("#file", str(sgf))
    # The file is read asynchronously: play on only once the viewer shows the game.
    expect(stones(page, "viewer-board")).to_have_count(12)
    page.click("#play-from-here")
    expect(stones(page, "play-board")).to_have_count(12)
    click_point(page, "play-board", 14, 14)
    expect(stones(page, "play-board")).to_have_count(14, timeout=10_000)
    expect(search(page, "stats")).to_contain_text("a proven win (the threat search's")
    expect(search(page, "stats")).not_to_contain_text("0 playouts")
    while not page.locator("#status").text_content().startswith("Game over"):  # type: ignore[union-attr]
        count = stones(page, "play-board").count()
        taken = {(int(s.get_attribute("data-x") or 0), int(s.get_attribute("data-y") or 0))
                 for s in stones(page, "play-board").all()}
        x, y = next((x, 14) for x in range(14, 0, -1) if (x, 14) not in taken)
        click_point(page, "play-board", x, y)
        expect(stones(page, "play-board")).to_have_count(count + 2, timeout=10_000)
        page.wait_for_timeout(300)
    expect(page.locator("#status")).to_contain_text("white wins by five")
    expect(page.locator("#play-board .five")).to_have_count(1)


def test_a_click_while_disconnected_is_reported(browser: Browser) -> None:
    board = _board()
    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    try:
        page = context.new_page()
        open_board(page, board)
        board.stop()
        expect(page.locator("#connection")).to_contain_text("disconnected", timeout=15_000)
        click_point(page, "play-board", 7, 7)
        expect(page.locator("#notice")).to_contain_text(
            "Not connected to the board server (reconnecting…): your move 7,7 was not sent.")
    finally:
        context.close()


def _serve(command: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start an ``arena`` command that serves a page and read its URL."""
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


def _stop(process: subprocess.Popen[str]) -> int:
    """Ctrl-C, as a person ends it; its exit status."""
    process.send_signal(signal.SIGINT)
    return process.wait(timeout=20)


def test_tournament_page_follows_a_run(page: Page, shots: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process, url = _serve(["run", "builtin:heuristic", "builtin:alphabeta:0", "--tc", "300",
                           "--pairs", "3", "--board", "10", "--random-openings", "2",
                           "--sprt", "0", "50", "--out", str(out), "--serve", "127.0.0.1:0"])
    seen_live: dict[str, str] = {}
    try:
        page.goto(url)
        expect(page.locator(".tab[data-view='tournament']")).to_be_visible()
        expect(page.locator("#standings tbody tr")).to_have_count(2, timeout=30_000)
        # Every game ends up in the list, the SPRT's LLR is drawn against its bounds;
        # a game keeps the number it had while it was played.
        deadline = time.monotonic() + 60
        while page.locator("#finished tbody tr").count() < 6 and time.monotonic() < deadline:
            minis = page.evaluate("[...document.querySelectorAll('#live-games .mini')]"
                                  ".map((m) => [m.dataset.game, m.textContent])")
            for number, text in minis:  # "#3 heuristic – alphabeta-L0"
                seen_live[number] = text.split(" ", 1)[1]
            page.wait_for_timeout(100)
        expect(page.locator("#finished tbody tr")).to_have_count(6)
        expect(page.locator("#sprt-line")).to_contain_text("LLR")
        expect(page.locator("#llr-chart polyline")).to_have_count(1)
        expect(page.locator("#elo-chart .errorbar")).to_have_count(2)
        assert seen_live, "no game was seen in progress"
        for number, players in seen_live.items():
            row = page.locator(f"#finished tbody tr[data-game='{number}'] td")
            assert " – ".join(row.nth(i).text_content() or "" for i in (1, 2)) == players
        # The standings fit: every column in sight, names on one line.
        table = page.locator("#standings").bounding_box()
        frame = page.locator("#standings").locator("xpath=..").bounding_box()
        assert table is not None and frame is not None
        assert table["x"] + table["width"] <= frame["x"] + frame["width"] + 1
        faults = page.locator("#standings th").last.bounding_box()
        assert faults is not None
        assert faults["x"] + faults["width"] <= frame["x"] + frame["width"] + 1
        heights = {round((r.bounding_box() or {"height": 0})["height"])
                   for r in page.locator("#standings tbody tr").all()}
        assert max(heights) < 30, heights
        screenshots(page, shots, "tournament")
        with urllib.request.urlopen(url + "api/run", timeout=10) as answer:
            data = json.loads(answer.read())
        assert data["report"]["games"] == 6 and len(data["llr"]) == 3
        assert sorted(g["number"] for g in data["games"]) == list(range(1, 7))
        page.locator("#finished tbody tr").first.click()
        expect(page.locator("#viewer")).to_be_visible()
        moves = data["games"][-1]["moves"]
        expect(stones(page, "viewer-board")).to_have_count(moves)
        page.click("#prev")
        expect(stones(page, "viewer-board")).to_have_count(moves - 1)
    finally:
        assert _stop(process) == 0
    # The saved run on the same page, from arena rate.
    process, url = _serve(["rate", str(out), "--serve", "127.0.0.1:0"])
    try:
        with urllib.request.urlopen(url + "api/run", timeout=10) as answer:
            assert json.loads(answer.read())["report"]["games"] == 6
    finally:
        _stop(process)
    # Its games opened on the board land in the viewer.
    process, url = _serve(["board", "--open", str(out), "--port", "0"])
    try:
        page.goto(url)
        expect(page.locator("#viewer")).to_be_visible()
        expect(page.locator("#game-list option")).to_have_count(6)
        expect(stones(page, "viewer-board").first).to_be_visible()
    finally:
        _stop(process)
    print(f"screenshots in {shots}")
