"""Reading boards from pictures (``arena.photo``): committed sample pictures with known
positions (a photographed wooden board, paper boards photographed and scanned, a screen
board and a screenshot of the project's own web board), freshly generated pictures, the
pictures that must be refused with a reason (no board, a board cut off, too dark, too
blurred, stone counts no game reaches), the position's file formats, and ``python -m
arena photo`` as a real subprocess, with a real brain asked for its move.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from arena.errors import ArenaError
from arena.photo.alike import read_by_lookalikes
from arena.photo.errors import (
    BoardCutOff,
    ImpossiblePosition,
    NoBoardFound,
    PoorImage,
    UncertainStones,
    UnreadableImage,
)
from arena.photo.fit import Points, collect, collect_folder, measuring_code, train
from arena.photo.fit import main as fit_main
from arena.photo.grid import Grid, lighter_lines
from arena.photo.position import BLACK, TRADED, WHITE, Position, count_problem
from arena.photo.read import USUAL_RADIUS, measure, read_board, stone_radius
from arena.photo.stones import CELL, StoneModel, lattice_centres
from arena.photo.synth import (
    draw_board,
    make_sample,
    no_board,
    photograph,
    random_position,
    scan,
)
from brain.game.records import GameResult, parse_psq

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "data" / "photo"
KNOWN = json.loads((SAMPLES / "positions.json").read_text())


#: Samples the reader does not read with confidence everywhere: photo_ink.jpg has an
#: empty point on the board's bottom edge (7,14) with the table a third of a cell below
#: the line, which every classifier fitted so far doubts or misreads.
IN_DOUBT = {"photo_ink.jpg"}


def sample_ids() -> list[str]:
    return sorted(set(KNOWN) - IN_DOUBT)


@pytest.mark.parametrize("name", sample_ids())
def test_committed_samples_are_read_exactly(name: str) -> None:
    known = KNOWN[name]
    reading = read_board(SAMPLES / name)
    position = reading.position
    assert position.layout == known["layout"]
    assert position.stones.tolist() == known["stones"]
    assert position.confidence.min() > 0.8, reading.uncertain()
    assert reading.problems() == []


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_no_sample_point_is_misread_with_confidence(name: str) -> None:
    """The reader's contract: a point is read right or its doubt is said, and then the
    reading is refused with the point named, never guessed."""
    known = np.array(KNOWN[name]["stones"])
    reading = read_board(SAMPLES / name)
    unsure = reading.uncertain()
    assert len(unsure) <= 2, unsure
    for y, x in np.argwhere(reading.position.stones != known):
        assert (int(x), int(y)) in unsure
    if unsure:
        x, y = unsure[0]
        with pytest.raises(UncertainStones, match=f"{x},{y}"):
            reading.verify()


@pytest.mark.parametrize(("seed", "kind"), [(3, "photo"), (4, "photo"), (1, "scan"),
                                            (2, "screen")])
def test_generated_pictures_are_read_exactly(seed: int, kind: str) -> None:
    sample = make_sample(seed, kind)  # type: ignore[arg-type]
    reading = read_board(sample.image)
    assert reading.position.layout == sample.position.layout
    assert reading.position.stones.tolist() == sample.position.stones.tolist()


def test_a_crowded_board_keeps_its_lattice() -> None:
    """A 20x20 photo with 186 stones (seed 9,000,043): 37 % of its lattice's 232
    crossings look like T-junctions, those of a variant of 21x5 lines 30 % of 46, and
    taken by the share alone the variant won and was grown to 20x19. Generated, not
    committed: a JPEG of it is read with other lines at some qualities by the reader
    before and after alike (the board is as crowded as the reader goes)."""
    sample = make_sample(9_000_043, "photo")
    reading = read_board(sample.image)
    assert reading.position.stones.shape == (20, 20)
    assert np.mean(reading.position.stones == sample.position.stones) > 0.99


def test_a_screen_board_with_stones_all_along_an_edge_keeps_that_line() -> None:
    """A 15x15 screen board with 100 stones (seed 12,000,039), 12 of them on its bottom
    line: they hide the outer half of the band above it, so its lines looked as if they
    stopped half way, as a board drawn in tiles' do, and the line was trimmed (read as
    15x14). The bare points of that line, where a column runs on to it, tell a line."""
    sample = make_sample(12_000_039, "screen")
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()


def test_a_screen_board_with_every_other_column_hidden_is_read_with_every_line() -> None:
    """A 9x9 screen board with 40 stones (seed 10,000,059): its stones hide much of every
    other column, and the lattice of the others, 5 columns, crosses the rows as cleanly (0 of
    9 crossings T-junctions) as the lattice of every column (0 of 18): read as 5x9."""
    sample = make_sample(10_000_059, "screen")
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()


def test_a_crowded_board_with_half_its_crossings_hidden_is_read() -> None:
    """A 19x22 photo with 159 stones (seed 11,000,070): beside its stones and their
    shadows the lines vanish from the line map, and 50.4 % of the 270 crossings of its
    grid, found right, looked like T-junctions; refused as no board's grid at over half
    before. Generated, as the crowded board above."""
    sample = make_sample(11_000_070, "photo")
    reading = read_board(sample.image)
    assert reading.position.stones.shape == (22, 19)
    assert np.mean(reading.position.stones == sample.position.stones) > 0.99


def test_a_crowded_photo_keeps_outer_rows_full_of_stones() -> None:
    """A 9x9 photo with 56 stones (seed 14,000,074), 7 and 8 of them on its top and
    bottom lines and the next rows as full: the columns cross the top band at two
    points alone, where the next row's stones hide its inner half, so the band looked
    like a board's margin and two rows were trimmed (read as 9x7). A column running
    on to a bare point of the outer line through the band's outer half tells a line."""
    sample = make_sample(14_000_074, "photo")
    reading = read_board(sample.image)
    assert reading.position.stones.shape == (9, 9)
    assert np.mean(reading.position.stones == sample.position.stones) > 0.98


def test_an_empty_board_too_big_on_the_intersections_is_read_in_the_cells() -> None:
    """An empty screen board of 23x23 lines (seed 13,000,011): nothing in the picture
    tells where stones would stand, and 23x23 intersections are more than any Gomoku
    board has (the engine's 22), so it is 22x22 cells (read as 23x23 before)."""
    sample = make_sample(13_000_011, "screen")
    reading = read_board(sample.image)
    assert reading.position.layout == "cells"
    assert reading.position.stones.shape == (22, 22)
    assert not reading.position.stones.any()


@pytest.mark.parametrize("seed", [14_000_006, 19_000_120])
def test_a_last_move_dot_on_a_white_stone_is_painted_over(seed: int) -> None:
    """9x9 screen boards whose last white stone bears a grey dot: one of a few pixels
    (seed 14,000,006), which filled less than half the disc whose median told a dot;
    one on a face shaded from 229 to 246 (19,000,120), too uneven for a face that
    bears a dot. Both were left, and the stones read as empty points."""
    sample = make_sample(seed, "screen")
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.problems() == []


def test_an_empty_corner_between_black_stones_is_empty() -> None:
    """A 10x10 screen board (seed 16,000,014) whose top-right corner point is empty, a
    black stone on each of its two neighbours: they cover most of the board the point's
    ring reaches, the ring's median was theirs, and against it the point looked like a
    white stone (0.79, in doubt)."""
    sample = make_sample(16_000_014, "screen")
    reading = read_board(sample.image)
    assert sample.position.stones[0, 9] == 0 and sample.position.stones[0, 8] == BLACK
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.position.confidence[0, 9] > 0.9


@pytest.mark.parametrize("seed", [16_000_087, 16_000_029])
def test_faint_white_stones_on_a_screen_are_read_by_their_look_alikes(seed: int) -> None:
    """Crowded grey screen boards in cells (19x19 with 8 white stones read empty and 26
    points in doubt; 13x13 with 3 read empty): their white stones' faint grey outline
    was all that told them from the board, and the classifier, fitted on photos too,
    missed it. Each is a near copy of white stones read with confidence."""
    sample = make_sample(seed, "screen")
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.problems() == []


@pytest.mark.parametrize("seed", [16_000_050, 16_000_084, 16_000_018])
def test_a_dark_theme_board_is_read(seed: int) -> None:
    """Light lines on a dark ground (generated screens in negative): the dark strokes
    beside the light lines (their anti-aliased edges) made a grid of dark lines a fifth
    of a cell off them, and the points were classified on a dark board the classifier
    never saw: a 19x19 board read with every empty point white (seed 16,000,050), a
    15x15 one with 35 white stones invented (084), a 19x19 one read as 19x17 (018)."""
    sample = make_sample(seed, "screen", dark=True)
    reading = read_board(sample.image)
    assert reading.position.layout == sample.position.layout
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.problems() == []


@pytest.mark.parametrize("seed", [16_000_002, 16_000_004, 16_000_012, 16_000_010, 16_000_015])
def test_stones_numbered_in_move_order_are_read(seed: int) -> None:
    """Screens with a move number on every stone, as programs show a game: the numbers
    on white stones in cells were read as lines crossing, empty points (a 22x20 board
    with 155 stones and 60 points wrong, 002; a 9x9 one whose white stones are as light
    as the board, only their outline telling them, 004; a 15x15 one, 012, whose stones
    are smaller than the faces sought before), and on the intersections as crosses,
    black stones (010, 015)."""
    sample = make_sample(seed, "screen", numbered=True)
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.problems() == []


def test_the_stones_radius_is_measured_on_a_screenshot() -> None:
    """Stones of a third of a cell in the cells of a canvas, black ones and white ones
    outlined on a board as light as them; none on an empty board."""
    lines, rows = 10, 9
    canvas = np.full(((lines + 1) * CELL, (lines + 1) * CELL), 240, np.uint8)
    for k in range(lines):
        place = (k + 1) * CELL
        canvas[CELL:lines * CELL + 1, place] = canvas[place, CELL:lines * CELL + 1] = 60
    empty = canvas.astype(np.float32)
    ys, xs = lattice_centres(rows, rows, 1.0, "cells")
    for k in range(0, len(ys), 4):
        centre = (int(xs[k]), int(ys[k]))
        if k % 8:
            cv2.circle(canvas, centre, round(0.34 * CELL), 250, -1, cv2.LINE_AA)
            cv2.circle(canvas, centre, round(0.34 * CELL), 90, 1, cv2.LINE_AA)
        else:
            cv2.circle(canvas, centre, round(0.34 * CELL), 20, -1, cv2.LINE_AA)
    radius, shown = stone_radius(canvas.astype(np.float32), ys, xs)
    assert radius == pytest.approx(0.34, abs=0.021) and shown > 0
    assert stone_radius(empty, ys, xs) == (USUAL_RADIUS, 0.0)
    # Seen from the points (the cells' corners), those stones show no edge all round.
    corners = lattice_centres(lines, lines, 1.0, "points")
    assert stone_radius(canvas.astype(np.float32), *corners)[1] < shown / 4


def _program_board(stones: np.ndarray, cell: int, radius: float, board: np.ndarray,
                   pad: tuple[int, int, int, int], overhang: float = 0.0, white: int = 222
                   ) -> np.ndarray:
    """A program's board: ``board`` (BGR, the grid's size plus ``pad`` pixels above,
    below, left and right) with black lines through the points, each running on
    ``overhang`` cells past the outer lines, and shaded stones of ``radius`` cells on
    the points: a black one dark grey at its top left, a white one (grey level
    ``white``) outlined in grey."""
    top, _, left, _ = pad
    rows, columns = stones.shape
    canvas = board.copy()
    run = round(overhang * cell)
    for k in range(columns):
        x = left + k * cell
        cv2.line(canvas, (x, top - run), (x, top + (rows - 1) * cell + run), (0, 0, 0), 2)
    for k in range(rows):
        y = top + k * cell
        cv2.line(canvas, (left - run, y), (left + (columns - 1) * cell + run, y), (0, 0, 0), 2)
    r = round(radius * cell)
    for y, x in np.argwhere(stones):
        cx, cy = left + x * cell, top + y * cell
        if stones[y, x] == BLACK:
            cv2.circle(canvas, (cx, cy), r, (15, 15, 15), -1, cv2.LINE_AA)
            cv2.circle(canvas, (cx - r // 3, cy - r // 3), max(r // 4, 2), (90, 90, 90), -1,
                       cv2.LINE_AA)
        else:
            cv2.circle(canvas, (cx, cy), r, (white,) * 3, -1, cv2.LINE_AA)
            cv2.circle(canvas, (cx, cy), r, (150, 150, 150), 1, cv2.LINE_AA)
    return canvas


def _plain(rows: int, columns: int, cell: int, pad: tuple[int, int, int, int],
           colour: tuple[int, int, int]) -> np.ndarray:
    top, bottom, left, right = pad
    return np.full(((rows - 1) * cell + top + bottom + 1,
                    (columns - 1) * cell + left + right + 1, 3), colour, np.uint8)


def test_small_stones_on_a_screenshot_are_read() -> None:
    """A program that draws its stones a quarter of a cell across (an empty board was
    read, with every point sure, before their radius was measured and the points
    seen magnified)."""
    stones = random_position(np.random.default_rng(45), 9, 9)
    pad = (90, 40, 40, 40)
    picture = _program_board(stones, 78, 0.23, _plain(9, 9, 78, pad, (244, 242, 246)), pad)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_board_lit_from_its_centre_grows_no_stones() -> None:
    """A web page's board shaded from a light centre to darker edges: its bare points
    in the light, lighter than most points, passed for stones with a mark (the lines
    crossing) that was painted over, and were read as white stones."""
    stones = np.zeros((19, 19), np.int8)
    stones[5, 11] = stones[6, 10] = stones[8, 9] = BLACK
    stones[6, 9] = stones[7, 8] = WHITE
    cell, pad = 26, (150, 180, 400, 400)
    board = _plain(19, 19, cell, pad, (0, 0, 0))
    ys, xs = np.mgrid[0:board.shape[0], 0:board.shape[1]]
    away = np.hypot(ys - pad[0] - 9 * cell, xs - pad[2] - 9 * cell) / (9 * cell * 1.45)
    for channel, (edge, centre) in enumerate(((58, 173), (169, 225), (216, 234))):
        board[:, :, channel] = np.round(centre - (centre - edge) * np.clip(away, 0, 1))
    reading = read_board(_program_board(stones, cell, 0.44, board, pad, white=245))
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def _flat_discs(stones: np.ndarray, cell: int, ground: tuple[int, int, int],
                line: tuple[int, int, int], colours: dict[int, tuple[int, int, int]],
                pad: int = 60) -> np.ndarray:
    """A flat screen board: lines of ``line`` on ``ground`` and each colour's stones
    drawn as plain discs of ``colours`` (BGR), 0.4 cell across, without outline."""
    rows, columns = stones.shape
    picture = _plain(rows, columns, cell, (pad,) * 4, ground)
    for k in range(columns):
        x = pad + k * cell
        cv2.line(picture, (x, pad), (x, pad + (rows - 1) * cell), line, 2)
    for k in range(rows):
        y = pad + k * cell
        cv2.line(picture, (pad, y), (pad + (columns - 1) * cell, y), line, 2)
    for y, x in np.argwhere(stones):
        cv2.circle(picture, (pad + x * cell, pad + y * cell), round(0.4 * cell),
                   colours[int(stones[y, x])], -1, cv2.LINE_AA)
    return picture


def test_two_colours_of_dark_stones_are_told_apart() -> None:
    """A program that draws one player's stones navy and the other's teal: both read as
    black (10 black, no white: no game's counts) before the looks were split in two,
    the lighter white."""
    stones = random_position(np.random.default_rng(46), 15, 15)
    picture = _flat_discs(stones, 40, (248, 247, 245), (215, 215, 215),
                          {BLACK: (80, 62, 44), WHITE: (156, 188, 24)})
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


@pytest.mark.parametrize("seed", [9, 11])
def test_two_hues_of_stones_are_told_by_their_counts(seed: int) -> None:
    """Yellow and purple discs: the lighter read white gives no game's counts (yellow
    played one more), the other order does, and neither hue is black or white to say
    otherwise: yellow moved first (read white before). The classifier reads no yellow
    disc; one on a star point (9's) is read by its look as those off them are (it was
    left empty, and the counts passed for a game's)."""
    stones = random_position(np.random.default_rng(seed), 15, 15)
    assert np.count_nonzero(stones == BLACK) == np.count_nonzero(stones == WHITE) + 1
    picture = _flat_discs(stones, 40, (255, 255, 255), (160, 160, 160),
                          {BLACK: (80, 216, 250), WHITE: (120, 20, 115)})
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_framed_flat_board_is_fitted_without_a_lens() -> None:
    """A screenshot's board in cells framed 0.4 cell beyond its outer lines, off the
    picture's centre: the coarse search took in the frame and fitted a lens of k1
    -0.17, and the finer ones searched only near it (the bent grid no longer counted as
    flat, so the screenshot's cream stones went unread)."""
    stones = random_position(np.random.default_rng(1), 9, 9)
    cell, top, left = 88, 100, 860
    picture = np.full((9 * cell + 200, 1920, 3), 220, np.uint8)
    for k in range(10):
        cv2.line(picture, (left + k * cell, top), (left + k * cell, top + 9 * cell),
                 (128, 128, 128), 2)
        cv2.line(picture, (left, top + k * cell), (left + 9 * cell, top + k * cell),
                 (128, 128, 128), 2)
    gap = round(0.4 * cell)
    cv2.rectangle(picture, (left - gap, top - gap), (left + 9 * cell + gap, top + 9 * cell + gap),
                  (40, 30, 30), 3)
    for y, x in np.argwhere(stones):
        colour = (45, 40, 40) if stones[y, x] == BLACK else (248, 252, 252)
        cv2.circle(picture, (left + x * cell + cell // 2, top + y * cell + cell // 2),
                   round(0.38 * cell), colour, -1, cv2.LINE_AA)
    assert measure(picture).grid.k1 == 0.0
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_board_drawn_to_the_pictures_edges_is_read_whole() -> None:
    """A board's canvas saved alone, its outer lines drawn thick on the picture's first
    and last pixels, stones on them cut in half by its edges: a line there was a dark
    band to the line filter, no stroke (15x15 read as 13x13), and a stone on it would
    have been refused as cut off; the board is read mirrored about those lines."""
    stones = random_position(np.random.default_rng(0), 15, 15)
    stones[0, 3] = stones[9, 14] = BLACK
    stones[14, 9] = stones[6, 0] = WHITE
    cell, pad = 40, (1, 1, 1, 1)
    picture = _program_board(stones, cell, 0.46, _plain(15, 15, cell, pad, (225, 237, 243)),
                             pad, white=240)
    height, width = picture.shape[:2]
    cv2.rectangle(picture, (0, 0), (width - 1, height - 1), (0, 0, 0), 3)
    reading = read_board(picture)
    assert reading.position.layout == "points"
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_letters_x_and_o_on_a_dark_screen_are_read() -> None:
    """A caro program's window: white lines on black, the board's left line on the
    picture's first pixels and its right one on the last, red letters X and yellow
    letters O of a font in the cells. The letters are faint in grey (the red 76 of 255)
    and strong in their own colours; the X is steeper than a pen's cross, the O an oval
    with a small hole; and the fit took the picture's edge, repeated past it, for the
    left line (its grid skewed off the picture, refused as cut off)."""
    stones = random_position(np.random.default_rng(5), 8, 8)
    cell, bar = 50, 30
    picture = np.zeros((8 * cell + 2 * bar, 8 * cell + 1, 3), np.uint8)
    picture[:bar] = (60, 60, 60)
    for k in range(9):
        cv2.line(picture, (k * cell, bar), (k * cell, bar + 8 * cell), (255, 255, 255), 2)
        cv2.line(picture, (0, bar + k * cell), (8 * cell, bar + k * cell), (255, 255, 255), 2)
    (wide, high), _ = cv2.getTextSize("O", cv2.FONT_HERSHEY_SIMPLEX, 1.3, 3)
    for y, x in np.argwhere(stones):
        cx, cy = x * cell + cell // 2, bar + y * cell + cell // 2
        if stones[y, x] == WHITE:
            cv2.putText(picture, "O", (cx - wide // 2, cy + high // 2), cv2.FONT_HERSHEY_SIMPLEX,
                        1.3, (0, 230, 230), 3, cv2.LINE_AA)
            continue
        for turn in (-1, 1):  # a letter X, 0.4 cell wide and 0.58 high
            cv2.line(picture, (cx - 10, cy - turn * 15), (cx + 10, cy + turn * 15), (0, 0, 230), 4,
                     cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.position.count(BLACK) > 10 and reading.problems() == []


def test_red_and_blue_stones_among_star_points_are_read() -> None:
    """A program that plays red discs against blue ones on a board with thick outer
    lines and nine square star points: the star points passed for small stones (the
    board was measured magnified, every stone a blob), their dark faces made a third
    look beside the two colours, and red and blue, as light as each other by the mean
    of their channels, gave the split in two no start. The lighter colour in grey,
    red, is white."""
    stones = random_position(np.random.default_rng(8), 15, 15)
    cell, pad = 30, (40, 40, 40, 40)
    picture = _plain(15, 15, cell, pad, (140, 190, 225))
    for k in range(15):
        width = 4 if k in (0, 14) else 2
        cv2.line(picture, (40 + k * cell, 40), (40 + k * cell, 40 + 14 * cell), (0, 0, 0), width)
        cv2.line(picture, (40, 40 + k * cell), (40 + 14 * cell, 40 + k * cell), (0, 0, 0), width)
    for y, x in itertools.product((3, 7, 11), repeat=2):
        cv2.rectangle(picture, (40 + x * cell - 4, 40 + y * cell - 4),
                      (40 + x * cell + 4, 40 + y * cell + 4), (0, 0, 0), -1)
    for y, x in np.argwhere(stones):
        colour = (255, 0, 0) if stones[y, x] == BLACK else (0, 0, 255)
        cv2.circle(picture, (40 + x * cell, 40 + y * cell), 13, colour, -1, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def _numbered_discs(stones: np.ndarray, colours: dict[int, tuple[int, int, int]],
                    numbers: dict[int, tuple[int, int, int]]) -> np.ndarray:
    """A program's 15x15 board on pale yellow paper: thin black lines 36 pixels apart
    and each colour's stones flat discs of ``colours`` (BGR) bearing their move's number
    in ``numbers``."""
    cell, pad = 36, 50
    picture = _plain(15, 15, cell, (pad,) * 4, (120, 235, 250))
    for k in range(15):
        cv2.line(picture, (pad + k * cell, pad), (pad + k * cell, pad + 14 * cell), (0, 0, 0), 1)
        cv2.line(picture, (pad, pad + k * cell), (pad + 14 * cell, pad + k * cell), (0, 0, 0), 1)
    for number, (y, x) in enumerate(np.argwhere(stones), 1):
        centre = (pad + int(x) * cell, pad + int(y) * cell)
        cv2.circle(picture, centre, 16, colours[int(stones[y, x])], -1, cv2.LINE_AA)
        text = str(number)
        cv2.putText(picture, text, (centre[0] - 6 * len(text), centre[1] + 6),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.45, numbers[int(stones[y, x])], 1, cv2.LINE_AA)
    return picture


def test_red_stones_are_no_last_move_marks() -> None:
    """A program that plays black discs against red ones, each numbered (a Java
    program's README): red patches the size of a stone were painted over as last-move
    marks (the program's 16 red stones read as empty points or crosses; here one of 25
    was). Three red discs or more are stones."""
    stones = random_position(np.random.default_rng(14), 15, 15)
    picture = _numbered_discs(stones, {BLACK: (0, 0, 0), WHITE: (0, 0, 255)},
                              {BLACK: (0, 0, 255), WHITE: (0, 0, 0)})
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_red_cross_on_an_empty_point_among_stones_is_no_stone() -> None:
    """A program that marks a forbidden point with a red cross on a board of black and
    white stones: the cross was read as the first player's stone (crosses are the
    pieces of boards drawn with letters). Crosses few beside black discs are marks."""
    stones = random_position(np.random.default_rng(13), 15, 15)
    empty = np.argwhere(stones == 0)
    y, x = (int(v) for v in empty[len(empty) // 2])
    cell, pad = 36, (50, 50, 50, 50)
    picture = _program_board(stones, cell, 0.45, _plain(15, 15, cell, pad, (120, 190, 230)), pad)
    cx, cy = 50 + x * cell, 50 + y * cell
    for turn in (-1, 1):
        cv2.line(picture, (cx - 14, cy - turn * 14), (cx + 14, cy + turn * 14), (37, 43, 184), 2,
                 cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()


def _framed_cells(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A web page's board of light cells in a dark wooden frame, its coordinates in
    white on the frame, its lines drawn between the cells only (the outer ones are the
    frame's edge), black and white discs in the cells: the position and the picture."""
    stones = random_position(np.random.default_rng(seed), 15, 15)
    cell, frame = 40, 60
    side = 15 * cell + 2 * frame
    picture = np.full((side, side, 3), (40, 60, 110), np.uint8)
    picture[frame:frame + 15 * cell, frame:frame + 15 * cell] = (140, 185, 222)
    for k in range(1, 15):
        cv2.line(picture, (frame + k * cell, frame), (frame + k * cell, frame + 15 * cell),
                 (50, 60, 90), 2)
        cv2.line(picture, (frame, frame + k * cell), (frame + 15 * cell, frame + k * cell),
                 (50, 60, 90), 2)
    for k in range(15):
        cv2.putText(picture, "ABCDEFGHJKLMNOP"[k], (frame + k * cell + 14, frame - 20),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.putText(picture, str(k + 1), (18, frame + k * cell + 26),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    for y, x in np.argwhere(stones):
        colour = (30, 30, 30) if stones[y, x] == BLACK else (245, 245, 245)
        cv2.circle(picture, (frame + x * cell + cell // 2, frame + y * cell + cell // 2), 15,
                   colour, -1, cv2.LINE_AA)
    return stones, picture


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_board_of_light_cells_in_a_dark_frame_keeps_its_outer_lines(seed: int) -> None:
    """The outer lines of a board of light cells in a dark frame are only the step from
    one colour to the other, which the line filter does not see: they were trimmed as
    rows of coordinates (digits standing apart on one colour), 15x15 cells read as
    13x13."""
    grid = measure(_framed_cells(seed)[1]).grid
    assert (grid.lines_x, grid.lines_y) == (16, 16)


def test_a_board_of_light_cells_in_a_dark_frame_is_read() -> None:
    """Such a board with 100 stones, read in its cells. (With 8, seed 0, its outer
    intersections, half board and half frame, pass for stones in doubt and outweigh
    them: read on the intersections, *Not done*.)"""
    stones, picture = _framed_cells(2)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


@pytest.mark.parametrize("seed", [0, 2])
def test_dots_a_third_of_a_cell_across_are_stones(seed: int) -> None:
    """A terminal's board: white lines on red, the stones black and white dots a third
    of a cell across in the cells (emoji). Each dot stood at the centre of an even
    face, the board, and was painted over as a last-move mark: every stone read
    empty."""
    stones = random_position(np.random.default_rng(seed), 15, 15)
    cell, pad = 44, 40
    picture = np.full((15 * cell + 2 * pad, 15 * cell + 2 * pad, 3), (64, 64, 255), np.uint8)
    for k in range(16):
        cv2.line(picture, (pad + k * cell, pad), (pad + k * cell, pad + 15 * cell), (255,) * 3, 1)
        cv2.line(picture, (pad, pad + k * cell), (pad + 15 * cell, pad + k * cell), (255,) * 3, 1)
    for y, x in np.argwhere(stones):
        colour = (20, 20, 20) if stones[y, x] == BLACK else (250, 250, 250)
        cv2.circle(picture, (pad + x * cell + cell // 2, pad + y * cell + cell // 2), 7, colour,
                   -1, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()


def _cells_apart(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A web page's 15x15 board of slate cells drawn 2 pixels apart on a page a little
    darker, which shows between them as the lines and all round the board, green crosses
    and red rings in the cells (a browser game's): the position and the picture."""
    stones = random_position(np.random.default_rng(seed), 15, 15)
    cell, pad = 27, 40
    picture = np.full((15 * cell + 2 * pad, 15 * cell + 2 * pad, 3), (80, 62, 44), np.uint8)
    cv2.putText(picture, "your move", (pad + 150, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                (60, 76, 231), 2, cv2.LINE_AA)
    for y, x in itertools.product(range(15), repeat=2):
        top, left = pad + y * cell + 1, pad + x * cell + 1
        picture[top:top + cell - 2, left:left + cell - 2] = (94, 73, 52)
    for y, x in np.argwhere(stones):
        cx, cy = pad + x * cell + cell // 2, pad + y * cell + cell // 2
        if stones[y, x] == WHITE:
            cv2.circle(picture, (cx, cy), 8, (60, 76, 231), 2, cv2.LINE_AA)
            continue
        for turn in (-1, 1):
            cv2.line(picture, (cx - 9, cy - turn * 9), (cx + 9, cy + turn * 9), (113, 204, 46),
                     3, cv2.LINE_AA)
    return stones, picture


@pytest.mark.parametrize("seed", [0, 2])
def test_a_board_of_cells_drawn_apart_keeps_its_outer_lines(seed: int) -> None:
    """Cells drawn apart on a page 10 grey levels darker: past the outer cells the page
    is the lines' colour, too little a step from the cells' for a frame's edge, and the
    outer lines were trimmed (15x15 cells read as 13x13)."""
    grid = measure(_cells_apart(seed)[1]).grid
    assert (grid.lines_x, grid.lines_y) == (16, 16)


def test_a_board_of_cells_drawn_apart_is_read() -> None:
    """Such a board with 8 pieces. (With 100, seed 2, its crosses are read as rings:
    *Not done*.)"""
    stones, picture = _cells_apart(0)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()


@pytest.mark.parametrize("seed", [2, 5])
def test_a_cross_on_a_greyed_last_move_cell_is_read(seed: int) -> None:
    """A caro program's 12x22 board: red crosses and dark rings in white cells, the
    last move's cell greyed. Its red cross is half as dark against that grey, in grey
    levels, as the lines are against white, and was read as an empty cell; measured
    against the ground round it, it is as dark as they are."""
    stones = random_position(np.random.default_rng(seed), 12, 22)
    cell, pad = 60, 30
    picture = np.full((22 * cell + 2 * pad, 12 * cell + 2 * pad, 3), 255, np.uint8)
    last = np.argwhere(stones == BLACK)[-1]
    top, left = pad + last[0] * cell, pad + last[1] * cell
    picture[top:top + cell, left:left + cell] = 128
    for k in range(13):
        cv2.line(picture, (pad + k * cell, pad), (pad + k * cell, pad + 22 * cell), (50,) * 3, 3)
    for k in range(23):
        cv2.line(picture, (pad, pad + k * cell), (pad + 12 * cell, pad + k * cell), (50,) * 3, 3)
    for y, x in np.argwhere(stones):
        cx, cy = pad + x * cell + cell // 2, pad + y * cell + cell // 2
        if stones[y, x] == WHITE:
            cv2.circle(picture, (cx, cy), 20, (50,) * 3, 6, cv2.LINE_AA)
            continue
        for turn in (-1, 1):
            cv2.line(picture, (cx - 17, cy - turn * 17), (cx + 17, cy + turn * 17),
                     (40, 50, 230), 8, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()


def test_a_row_of_glyphs_a_cell_above_the_board_is_no_line() -> None:
    """A row of glyphs a cell above the top line, each a stem on a column's place with a
    bar running right from its top (as a letter's: a phone's board with its columns'
    letters half a cell high was read with them as a 16th line): the bars and stems
    passed for a line's bare points, which run on to both sides of their crossings."""
    stones = random_position(np.random.default_rng(7), 15, 15)
    cell, pad = 32, (80, 40, 60, 60)
    picture = _plain(15, 15, cell, pad, (235, 235, 235))
    top, left = pad[0], pad[2]
    for k in range(15):
        cv2.line(picture, (left + k * cell, top), (left + k * cell, top + 14 * cell),
                 (60, 60, 60), 2)
        cv2.line(picture, (left, top + k * cell), (left + 14 * cell, top + k * cell),
                 (60, 60, 60), 2)
        glyph = (left + k * cell, top - cell)
        cv2.line(picture, glyph, (glyph[0], glyph[1] + cell // 2), (60, 60, 60), 2)
        cv2.line(picture, glyph, (glyph[0] + round(0.3 * cell), glyph[1]), (60, 60, 60), 2)
    for y, x in np.argwhere(stones):
        centre = (left + x * cell, top + y * cell)
        cv2.circle(picture, centre, 13, (20,) * 3 if stones[y, x] == BLACK else (250,) * 3,
                   -1, cv2.LINE_AA)
        cv2.circle(picture, centre, 13, (90, 90, 90), 1, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


@pytest.mark.parametrize("left", [24, 19])
def test_lines_running_half_a_cell_past_the_board_are_no_cut_off(left: int) -> None:
    """A web page's board without a frame, its lines running half a cell past the
    outer ones, the page's edge less than a cell past them on the left: the lines stop
    before that edge, so the board is whole (it was refused as cut off), even 4 pixels
    before it (a Swing window's board, `alexwang1993` of the held-out screenshots)."""
    stones = np.zeros((15, 15), np.int8)
    points = np.random.default_rng(3).choice(15 * 15, 26, replace=False)
    stones.flat[points[:13]], stones.flat[points[13:]] = BLACK, WHITE
    cell, pad = 30, (60, 60, left, 200)
    picture = _program_board(stones, cell, 0.42, _plain(15, 15, cell, pad, (255, 255, 255)),
                             pad, overhang=0.5)
    reading = read_board(picture)
    assert reading.position.stones.tolist() == stones.tolist()


def test_a_board_crowded_with_white_stones_is_no_dark_theme() -> None:
    """Dark lines on a wooden board whose white stones, larger than their cells as a
    photograph shows them, cover the lines between the crossings: the spans across the
    lines are lighter than the board there, but no light stroke crosses them (a photo
    of a finished game, refused as cut off when its light lines were searched). The
    same board bare, in negative, has light lines."""
    cell, lines = 40, 19
    bare = np.full((cell * (lines + 1), cell * (lines + 1)), 150, np.uint8)
    for k in range(lines):
        place = cell + k * cell
        bare[cell:cell * lines + 1, place] = bare[place, cell:cell * lines + 1] = 40
    crowded = bare.copy()
    for y, x in np.ndindex(lines, lines):
        if (x + 2 * y) % 5:
            cv2.circle(crowded, (cell + x * cell, cell + y * cell), int(0.58 * cell), 230, -1)
    to_lattice = np.array([[1 / cell, 0, -1.0], [0, 1 / cell, -1.0], [0, 0, 1.0]])
    grid = Grid(lines, lines, to_lattice, 0.0, (bare.shape[1] / 2, bare.shape[0] / 2),
                bare.shape[0] / 2, 0.0)
    assert not lighter_lines(crowded.astype(np.float32), grid)
    assert not lighter_lines(bare.astype(np.float32), grid)
    assert lighter_lines(255 - bare.astype(np.float32), grid)


@pytest.mark.parametrize(("seed", "numbered"), [(16_000_063, False), (16_000_066, False),
                                               (16_000_015, True)])
def test_a_dark_theme_board_is_not_taken_for_one_cut_off(seed: int, numbered: bool) -> None:
    """Dark themes whose dark strokes (anti-aliased edges, the dark move numbers on
    white stones) made a grid running off the picture, so the board was refused as cut
    off before its light lines were asked for: two boards in cells whose outer lines
    lie at the picture's edge, and a 15x9 board with numbered stones."""
    sample = make_sample(seed, "screen", dark=True, numbered=numbered)
    reading = read_board(sample.image)
    assert reading.position.stones.tolist() == sample.position.stones.tolist()
    assert reading.problems() == []


def _looks_of(values: list[float]) -> np.ndarray:
    """Looks of points each drawn flat in one grey level, with the noise of a JPEG."""
    rng = np.random.default_rng(0)
    return (np.array(values)[:, None] + rng.normal(0, 2, (len(values), 600))).astype(np.float32)


def test_a_doubted_point_takes_the_reading_of_its_near_copy() -> None:
    empty, black, white = [0.98, 0.01, 0.01], [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]
    doubted = [0.55, 0.0, 0.45]
    p = np.array([empty, empty, black, white, white, doubted], np.float32)
    out = read_by_lookalikes(p, _looks_of([200, 200, 30, 240, 240, 239]))
    np.testing.assert_allclose(out[5], white)
    np.testing.assert_array_equal(out[:5], p[:5])


def test_near_copies_that_no_confident_point_vouches_for_are_read_alike() -> None:
    """Three stones drawn alike, each doubted, one read empty (a dark theme's black
    stones): all read by the mean of their probabilities; a lone doubted point keeps
    its own."""
    empty = [0.98, 0.01, 0.01]
    doubted = [[0.6, 0.4, 0.0], [0.3, 0.7, 0.0], [0.2, 0.8, 0.0]]
    lone = [0.5, 0.0, 0.5]
    p = np.array([empty, empty, *doubted, lone], np.float32)
    out = read_by_lookalikes(p, _looks_of([200, 200, 30, 32, 29, 120]))
    np.testing.assert_allclose(out[2:5], np.tile(np.mean(doubted, axis=0), (3, 1)), atol=1e-6)
    assert (out[2:5].argmax(axis=1) == BLACK).all()
    np.testing.assert_array_equal(out[[0, 1, 5]], p[[0, 1, 5]])


def test_a_point_like_no_confident_point_keeps_its_reading() -> None:
    """A lone stone of its colour has no look-alike; a point as near one class's
    confident points as another's has none clearly."""
    empty, black, white = [0.98, 0.01, 0.01], [0.01, 0.98, 0.01], [0.01, 0.01, 0.98]
    lone, between = [0.1, 0.3, 0.6], [0.6, 0.0, 0.4]
    p = np.array([empty, empty, black, black, white, white, lone, between], np.float32)
    out = read_by_lookalikes(p, _looks_of([200, 200, 30, 30, 230, 230, 120, 215]))
    np.testing.assert_array_equal(out, p)


@pytest.mark.parametrize("seed", [16_000_069, 16_000_005])
def test_dark_red_lines_on_striped_pink_paper_are_no_marks(seed: int) -> None:
    """Pink paper with fine stripes and dark red lines (photos 16,000,069, 15x10 with 3
    stones, and 16,000,005, 20x20 with 11): the lines came out red in pieces between
    the stripes, each smaller than a cell, and were painted over as last-move marks,
    so 55 and 33 empty points without their lines read as white stones; and the stripes
    make rings in a few cells, no game's (rings without crosses or black stones), which
    chose the cells."""
    sample = make_sample(seed, "photo")
    reading = read_board(sample.image)
    assert reading.position.layout == "points"
    assert reading.position.stones.tolist() == sample.position.stones.tolist()


def test_points_map_back_onto_the_picture() -> None:
    """The picture coordinates the web board draws its marks at: each black stone of a
    screen board is dark there, each empty point is not."""
    rng = np.random.default_rng(5)
    stones = np.zeros((15, 15), np.int8)
    stones[7, 7] = stones[8, 8] = BLACK
    stones[7, 8] = WHITE
    board, _, _ = draw_board(rng, "screen", 15, 15, stones)
    image = np.clip(board, 0, 255).astype(np.uint8)
    reading = read_board(image)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    for y, x in ((7, 7), (8, 8)):
        px, py = reading.points[y, x]
        assert gray[round(py), round(px)] < 80
    assert reading.position.stones.tolist() == stones.tolist()
    assert 30 < reading.cell < 50  # drawn at 40 pixels a cell


def test_a_board_drawn_in_tiles_is_read_to_its_last_line() -> None:
    """Piskvork draws its board in tiles, each with its lines to the tile's edge: every
    line runs on half a cell past the last one, and the coordinates stand a cell from
    the outer lines, as evenly spaced as lines. Its board touches the window's edges:
    a screenshot of the window alone ends where the outer tiles end, and is read; one
    that ends inside a cell, with lines running on to the picture's edge, cuts the
    board off and is refused."""
    name = "piskvork_wood_coordinates.png"
    image = cv2.imread(str(SAMPLES / name))
    margin = 16  # bench/piskvork_screenshots.py's margin around the window
    for picture in (image, image[margin:-margin, margin:-margin], image[:, :-margin]):
        reading = read_board(picture)
        assert reading.position.stones.tolist() == KNOWN[name]["stones"]
        assert reading.problems() == []
    for share in (0.6, 0.7, 0.8):
        with pytest.raises(BoardCutOff, match="runs off the picture on the right"):
            read_board(image[:, : round(image.shape[1] * share)])


def _paper_marks(stones: np.ndarray, cell: int = 40, pad: int = 60, cross_width: int = 3
                 ) -> np.ndarray:
    """A paper board drawn in cells, with a pen's crosses (the first player's), their
    strokes ``cross_width`` pixels wide, and rings (the second's) in place of stones."""
    rows, columns = stones.shape
    board = np.full((rows * cell + 2 * pad, columns * cell + 2 * pad, 3), (236, 240, 242),
                    np.float32)
    for k in range(columns + 1):
        x = pad + k * cell
        cv2.line(board, (x, pad), (x, pad + rows * cell), (90, 90, 90), 2, cv2.LINE_AA)
    for k in range(rows + 1):
        y = pad + k * cell
        cv2.line(board, (pad, y), (pad + columns * cell, y), (90, 90, 90), 2, cv2.LINE_AA)
    arm = round(0.3 * cell)
    for y, x in np.argwhere(stones):
        cx, cy = pad + round((x + 0.5) * cell), pad + round((y + 0.5) * cell)
        if stones[y, x] == BLACK:
            for turn in (-1, 1):
                cv2.line(board, (cx - arm, cy - turn * arm), (cx + arm, cy + turn * arm),
                         (160, 40, 20), cross_width, cv2.LINE_AA)
        else:
            cv2.circle(board, (cx, cy), round(0.32 * cell), (30, 30, 170), 3, cv2.LINE_AA)
    return board


def _go_diagram(stones: np.ndarray, cell: int = 24, pad: int = 30) -> np.ndarray:
    """A Go program's diagram: black lines on a wooden colour, stones on the
    intersections, every white stone marked as such programs mark them (a move number,
    a triangle or a square in black) and every black stone numbered or ringed in
    white."""
    rows, columns = stones.shape
    board = np.full((rows * cell + 2 * pad, columns * cell + 2 * pad, 3), (110, 190, 225),
                    np.uint8)
    for k in range(columns):
        x = pad + k * cell
        cv2.line(board, (x, pad), (x, pad + (rows - 1) * cell), (0, 0, 0), 1)
    for k in range(rows):
        y = pad + k * cell
        cv2.line(board, (pad, y), (pad + (columns - 1) * cell, y), (0, 0, 0), 1)
    radius = round(0.47 * cell)
    for number, (y, x) in enumerate(np.argwhere(stones), start=1):
        cx, cy = pad + x * cell, pad + y * cell
        colour, ink = ((20, 20, 20), (255, 255, 255)) if stones[y, x] == BLACK else \
            ((250, 250, 250), (0, 0, 0))
        cv2.circle(board, (cx, cy), radius, colour, -1, cv2.LINE_AA)
        cv2.circle(board, (cx, cy), radius, (0, 0, 0), 1, cv2.LINE_AA)
        mark = number % 3
        if mark == 0:
            cv2.putText(board, str(number % 100), (cx - 6, cy + 4), cv2.FONT_HERSHEY_SIMPLEX,
                        0.33, ink, 1, cv2.LINE_AA)
        elif mark == 1 and stones[y, x] == WHITE:
            corners = np.array([(cx, cy - 6), (cx - 6, cy + 5), (cx + 6, cy + 5)], np.int32)
            cv2.polylines(board, [corners], True, ink, 1, cv2.LINE_AA)
        elif mark == 1:
            cv2.circle(board, (cx, cy), round(0.25 * cell), ink, 2, cv2.LINE_AA)
        else:
            cv2.rectangle(board, (cx - 3, cy - 3), (cx + 3, cy + 3), ink, -1)
    return board


def test_marks_on_a_screen_boards_stones_are_read_as_the_stones() -> None:
    """Go programs mark stones with move numbers, triangles, squares and rings: a black
    mark on a white stone hid its face (read as an empty point whose lines cross), a
    white ring on a black stone made it white. The marks are painted over in the
    face's colour before the stones are read; the letters on empty points stay empty."""
    rng = np.random.default_rng(45)
    stones = random_position(rng, 19, 19)
    picture = _go_diagram(stones)
    for letter, (y, x) in zip("ABC", np.argwhere(stones == 0)[::40], strict=False):
        cv2.putText(picture, letter, (30 + x * 24 - 5, 30 + y * 24 + 5),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 2, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.layout == "points"
    assert reading.position.stones.tolist() == stones.tolist()


@pytest.mark.parametrize(("seed", "kind", "cross_width"),
                         [(1, "scan", 3), (2, "scan", 3), (3, "photo", 3), (4, "photo", 3),
                          (1, "scan", 12), (2, "scan", 12), (4, "photo", 12)])
def test_crosses_and_rings_are_read_as_black_and_white(seed: int, kind: str,
                                                       cross_width: int) -> None:
    """Gomoku on paper: crosses are the first player's stones (black), rings the
    second's (white), in the cells. A marker's crosses, their strokes a third of a cell
    wide, too: the thin strokes' map saw only their outlines, hollow."""
    rng = np.random.default_rng(seed)
    stones = random_position(rng, 15, 15)
    take = scan if kind == "scan" else photograph
    reading = read_board(take(rng, _paper_marks(stones, cross_width=cross_width)))
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()


def _outlined_marks(stones: np.ndarray, cell: int = 31, pad: int = 40) -> np.ndarray:
    """A pixel-art program's board of cells: yellow crosses and pink rings, each
    outlined in black, the board's cream showing in the rings' holes."""
    rows, columns = stones.shape
    picture = _plain(rows + 1, columns + 1, cell, (pad,) * 4, (200, 245, 255))
    for k in range(max(rows, columns) + 1):
        cv2.line(picture, (pad + k * cell, pad), (pad + k * cell, pad + rows * cell),
                 (30, 30, 50), 2)
        cv2.line(picture, (pad, pad + k * cell), (pad + columns * cell, pad + k * cell),
                 (30, 30, 50), 2)
    arm = round(0.28 * cell)
    for y, x in np.argwhere(stones):
        cx, cy = pad + x * cell + cell // 2, pad + y * cell + cell // 2
        if stones[y, x] == BLACK:
            for sign in (-1, 1):
                ends = ((cx - arm, cy - sign * arm), (cx + arm, cy + sign * arm))
                cv2.line(picture, *ends, (40, 40, 40), 5)
                cv2.line(picture, *ends, (60, 210, 240), 2)
            continue
        for radius, colour in ((0.37, (40, 40, 40)), (0.31, (136, 124, 219)),
                               (0.25, (40, 40, 40)), (0.17, (200, 245, 255))):
            cv2.circle(picture, (cx, cy), round(radius * cell), colour, -1)
    return picture


@pytest.mark.parametrize("seed", [0, 2])
def test_rings_beside_crosses_are_white_however_dark_their_outline(seed: int) -> None:
    """Rings outlined in black, the classifier reads them as black stones (with a ring
    drawn on them, as a last move's is); beside as many crosses they are the second
    player's marks (every ring was read black, with no problem on a board of few)."""
    stones = random_position(np.random.default_rng(seed), 16, 16)
    reading = read_board(_outlined_marks(stones))
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_board_whose_window_counts_for_white_stones_on_its_edges_is_read_in_cells() -> None:
    """A desktop program's board of yellow cells, ending at its outer lines, on the
    window's grey (as light in grey), numbered strips beside it: read on the
    intersections, the grey past every edge point passed for white stones, and more of
    them than any game has; the cells read the stones without a problem, and are taken
    (the intersections were)."""
    stones = random_position(np.random.default_rng(0), 20, 20)
    cell, top, left = 40, 137, 85
    picture = np.full((20 * cell + top + 13, 20 * cell + left + 220, 3), 192, np.uint8)
    picture[top - 57:top - 19, left:left + 20 * cell] = 238  # the columns' numbers
    picture[top:top + 20 * cell, left - 65:left - 19] = 238  # the rows'
    for k in range(20):
        cv2.putText(picture, str(k + 1), (left + k * cell + 12, top - 33),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(picture, str(k + 1), (left - 55, top + k * cell + 24),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
    picture[top:top + 20 * cell, left:left + 20 * cell] = (0, 201, 255)
    for k in range(21):
        cv2.line(picture, (left + k * cell, top), (left + k * cell, top + 20 * cell),
                 (0, 0, 0), 2)
        cv2.line(picture, (left, top + k * cell), (left + 20 * cell, top + k * cell),
                 (0, 0, 0), 2)
    for y, x in np.argwhere(stones):
        colour = (0, 0, 0) if stones[y, x] == BLACK else (255, 255, 255)
        cv2.circle(picture, (left + x * cell + cell // 2, top + y * cell + cell // 2), 18,
                   colour, -1, cv2.LINE_AA)
    reading = read_board(picture)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()
    assert reading.problems() == []


def test_a_cross_and_ring_screenshot_is_read() -> None:
    """Piskvork's default skin: blue crosses and red dashed rings in grey cells (the
    red is no last-move mark to paint over), the window alone, its board's left line
    on the picture's first pixels."""
    name = "piskvork_pisq_window.png"
    reading = read_board(SAMPLES / name)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == KNOWN[name]["stones"]
    assert reading.position.count(BLACK) > 30 and reading.problems() == []


def test_a_board_of_bevelled_tiles_without_lines_is_read() -> None:
    """Piskvork's ``wood`` skin: no grid lines, only tiles with a dark top-left and a
    light bottom-right edge and rounded corners, red crosses and thick blue rings. The
    window alone and framed by a margin are read in the cells, every ring white; a
    picture that ends inside a tile cuts the board off and is refused."""
    name = "piskvork_bevelled_window.png"
    image = cv2.imread(str(SAMPLES / name))
    framed = cv2.copyMakeBorder(image, 16, 16, 16, 16, cv2.BORDER_CONSTANT,
                                value=(200, 208, 212))  # bench/piskvork_screenshots.py's
    for picture in (image, framed):
        reading = read_board(picture)
        assert reading.position.layout == "cells"
        assert reading.position.stones.tolist() == KNOWN[name]["stones"]
        assert reading.position.count(WHITE) > 40 and reading.problems() == []
    for share in (0.5, 0.7, 0.8):  # each a third of a tile or more into one
        with pytest.raises(BoardCutOff, match="runs off the picture on the right"):
            read_board(image[:, : round(image.shape[1] * share)])


# -- pictures that must be refused --------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pictures_without_a_board_are_refused(seed: int) -> None:
    with pytest.raises((NoBoardFound, PoorImage)) as caught:
        read_board(no_board(seed))
    assert "board" in str(caught.value)


def test_a_board_cut_off_is_refused() -> None:
    image = make_sample(0, "photo").image
    height, width = image.shape[:2]
    with pytest.raises(BoardCutOff, match="runs off the picture"):
        read_board(image[:, : width // 2])
    with pytest.raises(BoardCutOff, match="runs off the picture"):
        read_board(image[height // 3:, :])


def test_a_corner_cut_off_half_a_cell_past_its_lines_is_refused() -> None:
    """A picture of a board's corner (a diagram cropped from a Go program's window)
    that ends half a cell past a line on two sides, its lines running on to the
    picture's edge there, is no small board: the other two sides show the board's edge,
    where the lines stop, so it is no board drawn in tiles either (whose lines run half
    a cell past the outer line on every side)."""
    sample = make_sample(0, "screen")
    whole = read_board(sample.image)
    assert whole.position.layout == "points"
    rows = whole.position.stones.shape[0]
    left = round(whole.points[0, 5, 0] - 0.5 * whole.cell)
    bottom = round(whole.points[rows - 6, 0, 1] + 0.5 * whole.cell)
    with pytest.raises(BoardCutOff, match="runs off the picture on the left"):
        read_board(sample.image[:bottom, left:])


def test_dark_and_blurred_pictures_are_refused() -> None:
    image = make_sample(0, "photo").image
    with pytest.raises(PoorImage, match="too dark"):
        read_board((image * 0.07).astype(np.uint8))
    with pytest.raises(PoorImage, match="too blurred"):
        read_board(cv2.GaussianBlur(image, (0, 0), 12))


def test_files_that_are_no_pictures_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.jpg"
    text.write_text("not a picture")
    with pytest.raises(UnreadableImage, match="not a picture"):
        read_board(text)
    with pytest.raises(UnreadableImage, match="empty"):
        read_board(b"")


def test_the_arena_error_root_catches_a_refused_picture() -> None:
    with pytest.raises(ArenaError) as caught:
        read_board(b"")
    assert isinstance(caught.value, UnreadableImage) and isinstance(caught.value, ValueError)
    assert "empty" in str(caught.value)


def test_impossible_stone_counts_are_refused() -> None:
    rng = np.random.default_rng(8)
    stones = np.zeros((15, 15), np.int8)
    stones[7, 5:9] = BLACK  # four black stones, no white one
    board, _, _ = draw_board(rng, "screen", 15, 15, stones)
    reading = read_board(np.clip(board, 0, 255).astype(np.uint8))
    assert reading.position.count(BLACK) == 4 and reading.position.count(WHITE) == 0
    with pytest.raises(ImpossiblePosition, match="4 black and 0 white"):
        reading.verify()


# -- fitting the classifier ---------------------------------------------------------------

def test_fitting_points_are_labelled_from_a_folder(tmp_path: Path) -> None:
    """A folder of pictures with their positions (as the Blender renders come) gives
    the points of both layouts, labelled with the position on the true layout and empty
    on the other; a folder without a picture read as drawn is an error."""
    samples = [make_sample(2, "screen"), make_sample(1, "scan")]
    points = 0
    for k, sample in enumerate(samples):
        truth = sample.position
        cv2.imwrite(str(tmp_path / f"board{k}.png"), sample.image)
        (tmp_path / f"board{k}.json").write_text(json.dumps(
            {"stones": truth.stones.tolist(), "layout": truth.layout}))
        other = (truth.width - 1) * (truth.height - 1) if truth.layout == "points" else \
            (truth.width + 1) * (truth.height + 1)
        points += truth.stones.size + other
    features, labels = collect_folder(tmp_path)
    assert features.shape == (points, features.shape[1]) and len(labels) == points
    for colour in (BLACK, WHITE):
        assert np.count_nonzero(labels == colour) == sum(
            s.position.count(colour) for s in samples)
    (tmp_path / "board0.json").unlink()
    (tmp_path / "board1.json").write_text(json.dumps({"stones": [[0] * 7] * 7}))
    with pytest.raises(ValueError, match="no picture"):
        collect_folder(tmp_path)


def test_fitting_points_of_a_dark_board_are_labelled_as_its_negative(tmp_path: Path
                                                                     ) -> None:
    """A board of light lines is measured on its negative, where black and white stones
    trade places: so are its labels."""
    sample = make_sample(16_000_050, "screen", dark=True)
    truth = sample.position
    assert truth.count(BLACK) != truth.count(WHITE)
    cv2.imwrite(str(tmp_path / "dark.png"), sample.image)
    (tmp_path / "dark.json").write_text(json.dumps({"stones": truth.stones.tolist(),
                                                    "layout": truth.layout}))
    _, labels = collect_folder(tmp_path)
    assert np.count_nonzero(labels == BLACK) == truth.count(WHITE)
    assert np.count_nonzero(labels == WHITE) == truth.count(BLACK)


def test_fitting_points_are_measured_alike_by_several_processes(tmp_path: Path) -> None:
    """Generated pictures measured by two processes give the points one process gives,
    in the same order, each with its picture; a saved set of points serves a fit on
    fewer pictures with exactly those pictures' points."""
    counts = {"photo": 2, "screen": 1}
    together = collect(counts, first_seed=2_000_000, jobs=2)
    alone = collect(counts, first_seed=2_000_000)
    assert np.array_equal(together.features, alone.features)
    assert np.array_equal(together.labels, alone.labels)
    assert together.measured == {"photo": 2, "scan": 0, "screen": 1}
    together.save(tmp_path / "points.npz")
    fewer = Points.load(tmp_path / "points.npz").of({"photo": 1}, first_seed=2_000_000)
    first = collect({"photo": 1}, first_seed=2_000_000)
    assert np.array_equal(fewer.features, first.features)
    assert fewer.measured == {"photo": 1, "scan": 0, "screen": 0}
    assert set(fewer.seeds.tolist()) == {2_000_000} and set(fewer.kinds.tolist()) == {0}


def test_a_cache_measured_by_other_code_is_measured_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fit's cache of points keeps the fingerprint of the code that measured them; one
    measured by other code (here: other features under another fingerprint) is
    measured again, said so, and saved anew, never fitted on as it was."""
    cache, weights = tmp_path / "points.npz", tmp_path / "stones.npz"
    fresh = collect({"scan": 1, "screen": 1})
    assert fresh.code == measuring_code()
    replace(fresh, features=fresh.features + 1, code="other").save(cache)
    assert fit_main(["--pictures", "1", "--photos", "0", "--hidden", "4", "--cache",
                     str(cache), "--out", str(weights)]) == 0
    assert "measured by other code" in capsys.readouterr().err
    again = Points.load(cache)
    assert again.code == fresh.code and np.array_equal(again.features, fresh.features)
    assert StoneModel.load(weights).w1.shape == (fresh.features.shape[1], 4)


def test_a_cache_of_fewer_pictures_is_topped_up(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fit asking for more pictures than its cache holds measures only the others
    (``--screens`` apart from the scans) and saves the points as one run measuring them
    all would have given them, in the same order."""
    cache = tmp_path / "points.npz"
    collect({"scan": 1}).save(cache)
    assert fit_main(["--pictures", "1", "--screens", "2", "--photos", "0", "--hidden", "4",
                     "--cache", str(cache), "--out", str(tmp_path / "stones.npz")]) == 0
    assert "measuring the others" in capsys.readouterr().err
    topped, whole = Points.load(cache), collect({"scan": 1, "screen": 2})
    assert topped.measured == whole.measured == {"photo": 0, "scan": 1, "screen": 2}
    assert np.array_equal(topped.features, whole.features)
    assert np.array_equal(topped.labels, whole.labels)
    assert np.array_equal(topped.seeds, whole.seeds)


def test_each_folder_of_a_fit_counts_its_own_number_of_times(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--folder-weight`` given once a folder weights each folder's points on its own
    (real photographs more than renders); one weight serves every folder; a count that
    matches neither is refused before anything is measured."""
    renders, photos = tmp_path / "renders", tmp_path / "photos"
    for folder, seed in ((renders, 2), (photos, 1)):
        folder.mkdir()
        sample = make_sample(seed, "screen")
        cv2.imwrite(str(folder / "board.png"), sample.image)
        (folder / "board.json").write_text(json.dumps(
            {"stones": sample.position.stones.tolist(), "layout": sample.position.layout}))
    common = ["--pictures", "1", "--photos", "0", "--hidden", "4", "--cache",
              str(tmp_path / "points.npz"), "--out", str(tmp_path / "stones.npz"),
              "--folder", str(renders), "--folder", str(photos)]
    assert fit_main([*common, "--folder-weight", "2", "--folder-weight", "5"]) == 0
    err = capsys.readouterr().err
    assert f"from {renders} " in err and f"from {photos} " in err
    assert err.index("counted 2 times") < err.index("counted 5 times")
    assert fit_main([*common, "--folder-weight", "3"]) == 0
    assert capsys.readouterr().err.count("counted 3 times") == 2
    with pytest.raises(SystemExit) as refused:
        fit_main([*common, "--folder-weight", "1", "--folder-weight", "2", "--folder-weight", "3"])
    assert refused.value.code == 2
    assert "3 --folder-weight for 2 --folder" in capsys.readouterr().err


def test_an_average_of_fitted_networks_gives_the_mean_of_their_logits(tmp_path: Path
                                                                      ) -> None:
    """Two networks fitted with other seeds on other points (so with other
    normalisations) averaged by ``fit --average`` into one file: its logits are the
    mean of theirs on every point."""
    points = collect({"photo": 1, "screen": 1}, first_seed=2_000_000)
    half = len(points.labels) // 2
    members = [train(points.features[part], points.labels[part], hidden=8, epochs=2,
                     seed=seed)
               for seed, part in enumerate([slice(None, half), slice(half, None)])]
    for k, member in enumerate(members):
        member.save(tmp_path / f"member{k}.npz")
    assert fit_main(["--average", str(tmp_path / "member0.npz"), str(tmp_path / "member1.npz"),
                     "--out", str(tmp_path / "average.npz")]) == 0
    average = StoneModel.load(tmp_path / "average.npz")
    assert average.w1.shape == (points.features.shape[1], 16)
    first, second = (member.logits(points.features) for member in members)
    assert np.allclose(average.logits(points.features), (first + second) / 2, atol=1e-3)
    assert not np.allclose(first, second, atol=0.1)


# -- the position's forms -----------------------------------------------------------------

def _position() -> Position:
    stones = np.zeros((15, 20), np.int8)
    stones[7, 7] = stones[8, 9] = BLACK
    stones[7, 8] = WHITE
    return Position(stones, np.ones(stones.shape, np.float32), "points")


def test_moves_alternate_black_first() -> None:
    assert _position().moves() == [(7, 7), (8, 7), (9, 8)]
    assert count_problem(3, 1) is not None and count_problem(2, 2) is None


def test_moves_alternate_white_first_where_white_moved_first() -> None:
    """Some programs let white move first: white then has as many stones as black or
    one more, and leads the moves; black's extra stone is then no game's."""
    stones = TRADED[_position().stones]  # 2 white, 1 black
    position = replace(_position(), stones=stones, first=WHITE)
    assert position.moves() == [(7, 7), (8, 7), (9, 8)]
    assert position.to_move() == BLACK and "PL[B]" in position.to_sgf()
    assert count_problem(1, 2, WHITE) is None and count_problem(2, 2, WHITE) is None
    assert "white moves first" in (count_problem(2, 1, WHITE) or "")
    assert "white moves first" in (count_problem(1, 2) or "")  # the hint where it fits
    assert "white moves first" not in (count_problem(1, 3) or "")
    with pytest.raises(ValueError, match="white moves first"):
        replace(position, first=BLACK).moves()


def test_sgf_has_setup_stones_and_size() -> None:
    text = _position().to_sgf()
    assert "SZ[20:15]" in text and "AB[hh][ji]" in text and "AW[ih]" in text
    assert "PL[W]" in text


def test_psq_replays_to_the_position() -> None:
    record = parse_psq(_position().to_psq(), result=GameResult.DRAW, reason="position")
    assert (record.width, record.height) == (20, 15)
    assert [(m.x, m.y) for m in record.moves] == [(7, 7), (8, 7), (9, 8)]


# -- the command line ---------------------------------------------------------------------

def _photo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena", "photo", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_cli_prints_and_saves_the_board(tmp_path: Path) -> None:
    name = "web_board.png"
    known = np.array(KNOWN[name]["stones"])
    sgf, psq = tmp_path / "read.sgf", tmp_path / "read.psq"
    done = _photo(str(SAMPLES / name), "--out", str(sgf))
    assert done.returncode == 0, done.stderr
    assert f"{known.shape[1]}x{known.shape[0]} board, stones on the intersections" in done.stdout
    rows = [line for line in done.stdout.splitlines() if line[:3].strip().isdigit()]
    assert len(rows) == known.shape[0]
    assert rows[0].split()[1:] == [".XO"[v] for v in known[0]]
    text = sgf.read_text()
    assert text.count("[") - 1 >= int(np.count_nonzero(known))  # one value per stone
    assert _photo(str(SAMPLES / name), "--out", str(psq)).returncode == 0
    record = parse_psq(psq.read_text(), result=GameResult.DRAW, reason="position")
    assert len(record.moves) == int(np.count_nonzero(known))


def test_cli_reads_a_program_where_white_moves_first(tmp_path: Path) -> None:
    """A position with one white stone more is refused, with the way to read it, unless
    white moved first; then its moves start with white's."""
    stones = np.zeros((15, 15), np.int8)
    stones[7, 7] = stones[6, 8] = stones[8, 8] = WHITE
    stones[7, 8] = stones[6, 6] = BLACK
    picture, psq = tmp_path / "white-first.png", tmp_path / "read.psq"
    cv2.imwrite(str(picture), _flat_discs(stones, 40, (150, 200, 230), (40, 40, 40),
                                          {BLACK: (20, 20, 20), WHITE: (245, 245, 245)}))
    refused = _photo(str(picture))
    assert refused.returncode == 1 and "white moves first" in refused.stderr
    done = _photo(str(picture), "--first", "white", "--out", str(psq))
    assert done.returncode == 0, done.stderr
    record = parse_psq(psq.read_text(), result=GameResult.DRAW, reason="position")
    assert [(m.x, m.y) for m in record.moves] == [(8, 6), (6, 6), (7, 7), (8, 7), (8, 8)]


def test_cli_asks_a_brain_for_its_move() -> None:
    done = _photo(str(SAMPLES / "web_board.png"), "builtin:heuristic", "--think", "300")
    assert done.returncode == 0, done.stderr
    move_line = next(line for line in done.stdout.splitlines() if " plays " in line)
    x, y = (int(v) for v in move_line.split(" plays ")[1].split()[0].split(","))
    known = np.array(KNOWN["web_board.png"]["stones"])
    assert known[y, x] == 0  # an empty point


def test_cli_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    picture = tmp_path / "wall.jpg"
    cv2.imwrite(str(picture), no_board(2))
    done = _photo(str(picture))
    assert done.returncode == 1
    assert "cannot read a position" in done.stderr and "board" in done.stderr
    assert done.stdout == ""
    done = _photo(str(SAMPLES / "web_board.png"), "--out", str(tmp_path / "x.txt"))
    assert done.returncode == 1 and ".sgf or .psq" in done.stderr


def _painted_to_lines(seed: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """A board painted to its outer lines, as two programs draw theirs: on the
    intersections, a 19x19 dark brown board of white lines in a black window (the page
    past an edge point read dark, a black stone on the negative); in the cells, a
    15x15 tan board of black lines on a white page (the page past an edge point read
    white). Flat discs without outlines. The position and the picture."""
    points = layout == "points"
    lines = 19 if points else 16
    cell, pad = (40, 26) if points else (41, 100)
    board, line, page = (((0, 51, 102), (255, 255, 255), (0, 0, 0)) if points
                         else ((135, 184, 222), (0, 0, 0), (255, 255, 255)))
    side = (lines - 1) * cell
    picture = np.full((side + 2 * pad + 1, side + 2 * pad + 1, 3), page, np.uint8)
    picture[pad:pad + side + 1, pad:pad + side + 1] = board
    for k in range(lines):
        at = pad + k * cell
        picture[at, pad:pad + side + 1] = line
        picture[pad:pad + side + 1, at] = line
    count = lines if points else lines - 1
    # Stones clear of the edges, as on both programs' pictures (an edge stone would be
    # drawn over the page).
    inner = random_position(np.random.default_rng(seed), count - 2, count - 2)
    stones = np.zeros((count, count), np.int8)
    stones[1:-1, 1:-1] = inner
    shift = 0 if points else cell // 2
    for y, x in np.argwhere(stones):
        colour = (0, 0, 0) if stones[y, x] == BLACK else (255, 255, 255)
        cv2.circle(picture, (pad + x * cell + shift, pad + y * cell + shift), cell // 2 - 2,
                   colour, -1, cv2.LINE_AA)
    return stones, picture


@pytest.mark.parametrize(("seed", "layout"), [(0, "points"), (1, "points"), (1, "cells")])
def test_a_board_painted_to_its_outer_lines_is_read(seed: int, layout: str) -> None:
    """The page past its outer lines is no half of a stone: the board is read on a
    canvas mirrored about them (a brown board's dark window read as black stones along
    its edges, 28 on a program's screenshot; a tan board in cells on a white page read
    as 16x16 intersections, white stones all round)."""
    stones, picture = _painted_to_lines(seed, layout)
    reading = read_board(picture)
    assert reading.position.layout == layout
    assert reading.position.stones.tolist() == stones.tolist()


def _small_letters(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A caro program's 20x20 board of black lines on white, its pieces the letters x
    and o a quarter of a cell high in a bitmap font, strokes a pixel wide (an MFC
    program's): the position and the picture."""
    stones = random_position(np.random.default_rng(seed), 20, 20)
    cell, pad = 42, 20
    side = 20 * cell
    picture = np.full((side + 2 * pad + 2, side + 2 * pad + 2, 3), 255, np.uint8)
    for k in range(21):
        picture[pad + k * cell:pad + k * cell + 2, pad:pad + side + 2] = 0
        picture[pad:pad + side + 2, pad + k * cell:pad + k * cell + 2] = 0
    for y, x in np.argwhere(stones):
        cx, cy = pad + x * cell + cell // 2, pad + y * cell + cell // 2
        if stones[y, x] == BLACK:
            cv2.line(picture, (cx - 4, cy - 5), (cx + 4, cy + 5), (0, 0, 0), 1, cv2.LINE_8)
            cv2.line(picture, (cx + 4, cy - 5), (cx - 4, cy + 5), (0, 0, 0), 1, cv2.LINE_8)
        else:
            cv2.ellipse(picture, (cx, cy), (4, 5), 0, 0, 360, (0, 0, 0), 1, cv2.LINE_8)
    return stones, picture


@pytest.mark.parametrize("seed", [0, 3])
def test_small_letters_in_the_cells_are_read(seed: int) -> None:
    """Letters x and o a quarter of a cell high (8 and 169 of them) are too small for the
    crosses and rings looked for at a board's own size (every piece read empty): they
    are read on the board magnified."""
    stones, picture = _small_letters(seed)
    reading = read_board(picture)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()


def test_a_board_cropped_close_to_its_outer_lines_is_read() -> None:
    """A screen board cropped 0.135 cell past its outer lines (a stock picture's):
    enough to see that its lines stop there, too little for a stone on an outer line to
    show whole, which the board mirrored about that line shows (refused as cut off)."""
    sample = make_sample(0, "screen")
    whole = read_board(sample.image)
    assert whole.position.layout == "points"
    margin = 0.135 * whole.cell
    (left, top), (right, bottom) = whole.points[0, 0], whole.points[-1, -1]
    cropped = sample.image[round(top - margin):round(bottom + margin) + 1,
                           round(left - margin):round(right + margin) + 1]
    assert read_board(cropped).position.stones.tolist() == sample.position.stones.tolist()


def _window_filled(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A Swing window's 15x15 board of grey cells with black borders, filling the window
    below its title bar: no line on its left, right and bottom edges, which are the
    window's; cells 44 or 45 pixels wide as the layout rounds them; blue letters X and
    cyan O. The position and the picture."""
    stones = random_position(np.random.default_rng(seed), 15, 15)
    edges = np.round(np.linspace(0, 672, 16)).astype(int)
    bar = 29
    picture = np.full((bar + 675, 672, 3), 238, np.uint8)
    picture[:bar] = 255
    for k, at in enumerate(edges[:-1]):
        picture[bar:, max(at - 1, 0):at + 1] = 0 if k else 238
        picture[bar + at:bar + at + 2, :] = 0 if k else picture[bar + at:bar + at + 2, :]
    picture[bar:bar + 2, :] = 0  # the top border, under the title bar
    for y, x in np.argwhere(stones):
        letter, colour = ("X", (255, 0, 0)) if stones[y, x] == BLACK else ("O", (255, 255, 0))
        corner = (int(edges[x]) + 11, bar + int(edges[y]) + 34)
        cv2.putText(picture, letter, corner, cv2.FONT_HERSHEY_TRIPLEX, 1.0, colour, 2,
                    cv2.LINE_AA)
    return stones, picture


@pytest.mark.parametrize("seed", [0, 1])
def test_a_board_filling_its_window_is_read(seed: int) -> None:
    """Its lines run on to the picture's edges, where the next line would be, a cell
    past the outer line: the window's edges are the board's (refused as cut off)."""
    stones, picture = _window_filled(seed)
    reading = read_board(picture)
    assert reading.position.layout == "cells"
    assert reading.position.stones.tolist() == stones.tolist()
