"""The web board's "open a photo": the server's ``POST /api/photo`` on a real sample
picture and on pictures it must refuse, and the Photo tab in headless Chromium (file
picker, drag and drop, paste): the stones read drawn over the picture, corrected by
clicks, then played and opened in the viewer.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest
from playwright.sync_api import Browser, Page
from test_photo_hand import board_without_lines

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


def _post(server: BoardServer, body: bytes, query: str = "") -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(server.url + "api/photo" + query, data=body, method="POST")
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


def test_the_server_reads_on_a_grid_set_by_hand(server: BoardServer) -> None:
    picture, corners, known = board_without_lines()
    body = cv2.imencode(".png", picture)[1].tobytes()
    status, answer = _post(server, body)
    assert status == 400 and "set its grid by hand" in str(answer["error"])
    query = "?" + urllib.parse.urlencode({
        "corners": ";".join(f"{x:.0f},{y:.0f}" for x, y in corners),
        "size": f"{len(known[0])}x{len(known)}", "layout": "cells"})
    status, reading = _post(server, body, query)
    assert status == 200 and reading["stones"] == known and reading["layout"] == "cells"
    status, answer = _post(server, body, query.replace("layout=cells", "layout=cells&size=3"))
    assert status == 400 and "from 5 to 39 points" in str(answer["error"])
    status, answer = _post(server, body, query.replace("layout=cells", "layout=squares"))
    assert status == 400 and "no layout 'squares'" in str(answer["error"])


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


def test_a_board_whose_grid_is_not_found_is_read_on_corners_clicked(page: Page,
                                                                      tmp_path: Path) -> None:
    """The picture the server refuses stays shown with the reason; the board's size
    given and its four corners clicked on the picture, it is read on that grid."""
    picture, corners, known = board_without_lines()
    path = tmp_path / "no_lines.png"
    cv2.imwrite(str(path), picture)
    page.click("nav .tab[data-view=photo]")
    page.set_input_files("#photo-file", str(path))
    page.wait_for_function("document.getElementById('photo-summary').textContent"
                           ".startsWith('No position read')", timeout=60_000)
    assert page.is_visible("#photo-image") and page.is_disabled("#photo-play")
    assert "set its grid by hand" in page.inner_text("#photo-problems")
    page.fill("#photo-size", str(len(known)))
    page.select_option("#photo-layout", "cells")
    page.click("#photo-corners")
    for k, (x, y) in enumerate(corners):
        if k == 3:
            assert page.locator("#photo-marks .photo-corner").count() == 3
            assert "1 more corner" in page.inner_text("#photo-corner-status")
        at = page.evaluate("""([x, y]) => {
          const svg = document.getElementById("photo-marks");
          const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
          return [p.x, p.y];
        }""", [x, y])
        page.mouse.click(*at)
    blacks = sum(row.count(1) for row in known)
    whites = sum(row.count(2) for row in known)
    page.wait_for_function("document.querySelectorAll('#photo-marks .photo-point').length === "
                           f"{len(known) * len(known[0])}", timeout=60_000)
    assert (_marks(page, "black"), _marks(page, "white")) == (blacks, whites)
    assert f"{blacks} black, {whites} white" in page.inner_text("#photo-summary")
    assert not page.is_disabled("#photo-play")
