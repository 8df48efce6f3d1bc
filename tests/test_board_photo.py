"""The web board's "open a photo": the server's ``POST /api/photo`` on a real sample
picture and on pictures it must refuse, and the Photo tab in headless Chromium (file
picker, drag and drop, paste): the stones read drawn over the picture, corrected by
clicks, then played and opened in the viewer.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from arena.board.app import board_server
from arena.board.server import BoardServer

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "photo" / "web_board.png"
KNOWN = json.loads((SAMPLE.parent / "positions.json").read_text())["web_board.png"]["stones"]
BLACKS = sum(row.count(1) for row in KNOWN)
WHITES = sum(row.count(2) for row in KNOWN)


@pytest.fixture(scope="module")
def server() -> Iterator[BoardServer]:
    board = board_server([], port=0)
    board.start()
    yield board
    board.stop()


@pytest.fixture()
def page(browser: Browser, server: BoardServer) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(server.url)
    tab.wait_for_selector("#connection[data-ready]", state="attached")
    yield tab
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def _post(server: BoardServer, body: bytes) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(server.url + "api/photo", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_server_reads_a_picture(server: BoardServer) -> None:
    status, reading = _post(server, SAMPLE.read_bytes())
    assert status == 200
    assert reading["stones"] == KNOWN and reading["layout"] == "points"
    assert (reading["width"], reading["height"]) == (len(KNOWN[0]), len(KNOWN))
    assert reading["problems"] == []
    points = reading["points"]
    assert len(points) == len(KNOWN) and len(points[0]) == len(KNOWN[0])  # type: ignore[arg-type]


def test_the_server_says_why_it_cannot_read(server: BoardServer) -> None:
    status, answer = _post(server, b"these are no pixels")
    assert status == 400 and "not a picture" in str(answer["error"])


#: Hands the page a picture the way a browser does on a drop or a paste.
DELIVER = """([bytes, event]) => {
  const file = new File([new Uint8Array(bytes)], "board.png", {type: "image/png"});
  const transfer = new DataTransfer();
  transfer.items.add(file);
  const init = {bubbles: true, cancelable: true};
  if (event === "drop") {
    document.getElementById("photo-drop").dispatchEvent(
      new DragEvent("drop", {...init, dataTransfer: transfer}));
  } else {
    document.dispatchEvent(new ClipboardEvent("paste", {...init, clipboardData: transfer}));
  }
}"""


def _marks(page: Page, kind: str) -> int:
    return page.locator(f"#photo-marks .mark.{kind}").count()


def test_a_photo_opened_corrected_and_played(page: Page) -> None:
    page.click("nav .tab[data-view=photo]")
    page.set_input_files("#photo-file", str(SAMPLE))
    page.wait_for_selector("#photo-marks .photo-point", state="attached", timeout=60_000)
    assert page.locator("#photo-marks .photo-point").count() == len(KNOWN) * len(KNOWN[0])
    assert (_marks(page, "black"), _marks(page, "white")) == (BLACKS, WHITES)
    assert f"{BLACKS} black, {WHITES} white" in page.inner_text("#photo-summary")
    # An empty point clicked once is black: the counts are then impossible, and playing
    # is refused until it is corrected again (white, then empty).
    y, x = next((y, x) for y, row in enumerate(KNOWN) for x, v in enumerate(row) if v == 0)
    point = page.locator(f"#photo-marks .photo-point[data-x='{x}'][data-y='{y}'] .hit")
    point.dispatch_event("click")
    assert _marks(page, "black") == BLACKS + 1
    if BLACKS + 1 - WHITES not in (0, 1):
        assert page.is_disabled("#photo-play")
        assert "cannot come from a game" in page.inner_text("#photo-problems")
    point.dispatch_event("click")
    assert (_marks(page, "black"), _marks(page, "white")) == (BLACKS, WHITES + 1)
    # White one stone ahead, as in a program in which white moves first: refused, with
    # the way out named; the colours swapped, it plays.
    assert BLACKS == WHITES  # (the sample's counts, which this relies on)
    assert page.is_disabled("#photo-play")
    assert "swap the colours" in page.inner_text("#photo-problems")
    page.click("#photo-swap")
    assert (_marks(page, "black"), _marks(page, "white")) == (WHITES + 1, BLACKS)
    assert not page.is_disabled("#photo-play")
    page.click("#photo-swap")
    point.dispatch_event("click")
    assert (_marks(page, "black"), _marks(page, "white")) == (BLACKS, WHITES)
    page.click("#photo-play")
    page.wait_for_function(
        f"document.querySelectorAll('#play-board .stone').length === {BLACKS + WHITES}")
    assert page.locator("#play-board .stone.black").count() == BLACKS
    assert page.is_visible("#play-board")


def test_a_photo_dropped_or_pasted_opens_in_the_viewer(page: Page) -> None:
    data = list(SAMPLE.read_bytes())
    for event in ("drop", "paste"):
        page.evaluate(DELIVER, [data, event])
        page.wait_for_function("document.querySelectorAll('#photo-marks .mark').length === "
                               f"{BLACKS + WHITES}", timeout=60_000)
        assert page.is_visible("#photo-stage")
        page.evaluate("document.getElementById('photo-marks').replaceChildren()")
    page.click("#photo-analyse")
    page.wait_for_function(
        f"document.querySelectorAll('#viewer-board .stone').length === {BLACKS + WHITES}")
    assert page.is_visible("#viewer-board")
