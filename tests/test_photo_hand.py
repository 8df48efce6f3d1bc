"""A board's grid set by hand (:mod:`arena.photo.hand`): its four corners clicked in any
order and its size, on committed sample pictures whose positions are known; what makes
no grid refused with the reason; and ``arena photo --corners --size`` as a real
subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from arena.photo.errors import PhotoError
from arena.photo.hand import BadHandGrid, HandGrid, grid_corners
from arena.photo.read import read_board

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "data" / "photo"
KNOWN = json.loads((SAMPLES / "positions.json").read_text())


def _corners(name: str) -> tuple[tuple[float, float], ...]:
    """The sample's grid corners as a person clicks them (:func:`grid_corners` of the
    reader's own reading), in a shuffled order."""
    reading = read_board(SAMPLES / name)
    corners = grid_corners(np.array(reading.points), reading.position.layout)
    return tuple((float(corners[k][0]), float(corners[k][1])) for k in (2, 0, 3, 1))


@pytest.mark.parametrize("name", ["photo_ink.jpg", "screen_rect.png", "scan_paper.jpg"])
def test_a_grid_set_by_hand_reads_the_known_position(name: str) -> None:
    """A photo at an angle, a 15x20 screen board in cells (columns and rows not to be
    swapped) and a scan, read on the grid their corners and size give."""
    known = KNOWN[name]
    rows, columns = len(known["stones"]), len(known["stones"][0])
    hand = HandGrid(_corners(name), columns, rows, known["layout"])
    reading = read_board(SAMPLES / name, hand=hand)
    assert reading.position.layout == known["layout"]
    assert reading.position.stones.tolist() == known["stones"]


@pytest.mark.parametrize("name", ["photo_pincushion.jpg", "photo_ink.jpg", "screen_rect.png"])
def test_corners_clicked_a_little_off_are_fitted_to_the_lines(name: str) -> None:
    """Corners a fifth of a cell off their places, as a click on a phone lands: the
    grid they give is fitted to the board's lines (and a lens's curve) before the
    stones are read (28 of a photo's points were read wrong on the grid as clicked)."""
    known = KNOWN[name]
    rows, columns = len(known["stones"]), len(known["stones"][0])
    cell = read_board(SAMPLES / name).cell
    offsets = np.array([(0.2, -0.15), (-0.2, 0.2), (0.15, 0.2), (-0.15, -0.2)]) * cell
    corners = np.array(_corners(name)) + offsets
    hand = HandGrid(tuple(map(tuple, corners)), columns, rows, known["layout"])
    assert read_board(SAMPLES / name, hand=hand).position.stones.tolist() == known["stones"]


def board_without_lines() -> tuple[np.ndarray, tuple[tuple[float, float], ...], list[list[int]]]:
    """A 13x13 screen board in cells (a committed sample) with its lines erased but for
    stubs at its edges, no grid to find; its corners, and its stones."""
    name = "screen_cells.png"
    corners = _corners(name)
    picture = cv2.imread(str(SAMPLES / name))
    # The board's cells painted over in its colour, all but the stones.
    board_colour = np.median(picture.reshape(-1, 3), axis=0)
    xs, ys = zip(*corners, strict=True)
    inner = picture[round(min(ys)) + 2:round(max(ys)) - 1, round(min(xs)) + 2:round(max(xs)) - 1]
    lines = np.abs(inner.astype(np.int16) - board_colour).max(axis=2) > 12
    stones = cv2.morphologyEx(lines.astype(np.uint8), cv2.MORPH_OPEN, np.ones((7, 7), np.uint8))
    inner[lines & (stones == 0)] = board_colour
    return picture, corners, KNOWN[name]["stones"]


def test_a_grid_set_by_hand_reads_a_board_the_search_cannot_find() -> None:
    picture, corners, known = board_without_lines()
    with pytest.raises(PhotoError):
        read_board(picture)
    reading = read_board(picture, hand=HandGrid(corners, len(known[0]), len(known), "cells"))
    assert reading.position.stones.tolist() == known


def test_a_grid_set_by_hand_on_a_turned_board_is_numbered_as_a_found_one() -> None:
    """The corners of a photo's board turned by about 30 degrees (a Go photo's, read
    turned a quarter against the reader's own reading before): its rows run nearer the
    picture's rows than its columns do, and downwards, as a grid found is numbered."""
    hand = HandGrid(((24, 265), (279, 114), (570, 264), (323, 531)), 19, 19, "points")
    grid = hand.grid(600, 600)
    x, y = grid.image_points(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]))
    along_u, along_v = (x[1] - x[0], y[1] - y[0]), (x[2] - x[0], y[2] - y[0])
    assert along_u[0] > 0 and abs(along_u[0]) > abs(along_v[0]) and along_v[1] > 0
    assert (round(x[0]), round(y[0])) == (279, 114)


@pytest.mark.parametrize(("corners", "size", "reason"), [
    ("10,10 200,10 200,200", "15", "3 corners given"),
    ("10,10 200,10 200,200 10,200", "4", "from 5 to 39 points"),
    ("10,10 200,10 200,200 10,200", "40x15", "from 5 to 39 points"),
    ("10,10 200,10 200,200 10,200", "15x", "is not N or COLUMNSxROWS"),
    ("10,10 200;10 200,200 10,200", "15", "is not X,Y"),
])
def test_what_makes_no_hand_grid_is_refused_with_the_reason(corners: str, size: str,
                                                             reason: str) -> None:
    with pytest.raises(BadHandGrid, match=reason):
        HandGrid.parse(corners, size, "points")


@pytest.mark.parametrize(("corners", "reason"), [
    ("10,10 9000,10 200,200 10,200", "outside the picture"),
    ("10,10 200,10 105,105 10,200", "make no board"),
    ("10,10 40,10 40,40 10,40", "make no board"),  # 15 lines in 30 pixels
])
def test_corners_that_make_no_board_in_the_picture_are_refused(corners: str,
                                                                reason: str) -> None:
    hand = HandGrid.parse(corners, "15", "points")
    with pytest.raises(BadHandGrid, match=reason):
        read_board(SAMPLES / "photo_ink.jpg", hand=hand)


def _photo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "photo", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_reads_on_a_grid_set_by_hand() -> None:
    name = "screen_rect.png"
    known = KNOWN[name]
    corners = [f"{x:.0f},{y:.0f}" for x, y in _corners(name)]
    size = f"{len(known['stones'][0])}x{len(known['stones'])}"
    done = _photo(str(SAMPLES / name), "--corners", *corners, "--size", size, "--layout", "cells")
    assert done.returncode == 0, done.stderr
    blacks = sum(row.count(1) for row in known["stones"])
    assert f"{size} board, stones in the cells" in done.stdout
    assert f"{blacks} black (X)" in done.stdout
    half = _photo(str(SAMPLES / name), "--corners", *corners)
    assert half.returncode == 1 and "needs both --corners" in half.stderr
    outside = _photo(str(SAMPLES / name), "--corners", "1,1", "2,1", "2,99999", "1,2",
                     "--size", "15")
    assert outside.returncode == 1 and "outside the picture" in outside.stderr


def test_cli_names_the_grid_by_hand_where_it_finds_none(tmp_path: Path) -> None:
    picture, corners, known = board_without_lines()
    path = tmp_path / "no_lines.png"
    cv2.imwrite(str(path), picture)
    refused = _photo(str(path))
    assert refused.returncode == 1 and refused.stdout == ""
    assert "--corners X,Y X,Y X,Y X,Y --size N" in refused.stderr
    done = _photo(str(path), "--corners", *(f"{x:.0f},{y:.0f}" for x, y in corners),
                  "--size", str(len(known)), "--layout", "cells")
    assert done.returncode == 0, done.stderr
    assert f"{len(known)}x{len(known)} board, stones in the cells" in done.stdout
