"""From a picture to a position: :func:`read_board`.

The picture is brought to a working size, its grid found (:mod:`arena.photo.grid`), the
board warped onto a square canvas, and every point of both layouts (stones on the
intersections, stones in the cells) measured and classified
(:mod:`arena.photo.stones`); the layout whose points hold stones wins. Nothing is
guessed: a picture without a grid, with the board cut off, too dark or too blurred
raises a :class:`~arena.photo.errors.PhotoError` saying so, and
:meth:`Reading.verify` refuses points read without enough confidence and stone counts
no game can reach.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from arena.photo.alike import looks, read_by_lookalikes, read_by_two_looks
from arena.photo.errors import (
    BoardCutOff,
    ImpossiblePosition,
    NoBoardFound,
    PoorImage,
    UncertainStones,
    UnreadableImage,
)
from arena.photo.grid import (
    FIT_RESIDUAL,
    Grid,
    find_grid,
    fit_to_lines,
    flat_grid,
    lighter_lines,
    line_colours,
    line_map,
    line_segments,
    painted_to_lines,
    sides_out,
)
from arena.photo.hand import HandGrid
from arena.photo.marks import (
    MARK_CONFIDENCE,
    STROKE_KERNEL,
    THICK_KERNEL,
    mark_strokes,
    read_marks,
)
from arena.photo.position import (
    BLACK,
    EMPTY,
    MIN_CONFIDENCE,
    TRADED,
    WHITE,
    Layout,
    Position,
)
from arena.photo.stones import (
    CELL,
    StoneModel,
    around,
    disc_offsets,
    lattice_centres,
    point_features,
)
from arena.photo.text import read_text_board
from arena.photo.tiles import tiled_grid
from brain.game.board import MAX_SIZE

__all__ = ["MIN_CONFIDENCE", "Measured", "Reading", "load_image", "measure", "read_board"]

#: Longer side of the picture the grid is searched in, in pixels.
WORKING_SIDE = 1024
#: Cells of board a stone on an outer intersection needs inside the picture to show
#: whole; where the picture ends closer to an outer line, the board is read mirrored
#: about it.
POINT_MARGIN = 0.15
#: Largest image accepted, in pixels (a 100-megapixel photo is plenty).
MAX_PIXELS = 100_000_000

_MODEL: StoneModel | None = None


def _model() -> StoneModel:
    global _MODEL
    if _MODEL is None:
        _MODEL = StoneModel.load()
    return _MODEL


def load_image(source: str | Path | bytes) -> np.ndarray:
    """The picture in a file or in a file's bytes (JPEG, PNG, BMP, WebP, TIFF...), as a
    BGR array.

    :raises UnreadableImage: not an image, or an empty or enormous one.
    :raises OSError: the file cannot be read.
    """
    data = Path(source).read_bytes() if isinstance(source, str | Path) else source
    if not data:
        raise UnreadableImage("the file is empty")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise UnreadableImage("not a picture OpenCV can read: give a JPEG, PNG, BMP, WebP "
                              "or TIFF file")
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        raise UnreadableImage(f"the picture has {image.shape[1]}x{image.shape[0]} pixels; "
                              "give one of at most 100 megapixels")
    return image


@dataclass(frozen=True)
class Reading:
    """What :func:`read_board` read.

    :ivar position: the stones and the confidence of each point.
    :ivar points: picture pixel coordinates (x, y) of each point, shape (height, width, 2).
    :ivar cell: a cell's mean size in picture pixels.
    :ivar seconds: time the reading took.
    """

    position: Position
    points: np.ndarray
    cell: float
    seconds: float

    def uncertain(self, min_confidence: float = MIN_CONFIDENCE) -> list[tuple[int, int]]:
        """The ``(x, y)`` of the points read with less than ``min_confidence``."""
        ys, xs = np.nonzero(self.position.confidence < min_confidence)
        return [(int(x), int(y)) for y, x in zip(ys, xs, strict=True)]

    def problems(self, min_confidence: float = MIN_CONFIDENCE) -> list[str]:
        """Why the position should not be trusted as read (empty when it can)."""
        found = []
        unsure = self.uncertain(min_confidence)
        if unsure:
            shown = " ".join(f"{x},{y}" for x, y in unsure[:12])
            more = f" and {len(unsure) - 12} more" if len(unsure) > 12 else ""
            found.append(f"{len(unsure)} point{'s' if len(unsure) > 1 else ''} could not be "
                         f"read with confidence (x,y: {shown}{more}): take the picture again, "
                         "sharper, straighter and more evenly lit")
        counts = self.position.counts_problem()
        if counts is not None:
            found.append(counts)
        return found

    def to_json(self, min_confidence: float = MIN_CONFIDENCE) -> dict[str, object]:
        """The reading for the web board: the position, each point's place in the
        picture, the cell size there, and :meth:`problems`."""
        return {**self.position.to_json(), "points": np.round(self.points, 1).tolist(),
                "cell": round(self.cell, 1), "seconds": round(self.seconds, 3),
                "min_confidence": min_confidence, "problems": self.problems(min_confidence)}

    def verify(self, min_confidence: float = MIN_CONFIDENCE) -> None:
        """Raise unless every point was read with ``min_confidence`` and the stone
        counts can come from a game.

        :raises UncertainStones: some points are in doubt (the message lists them).
        :raises ImpossiblePosition: the colour that moved first has not as many stones as
            the other or one more.
        """
        unsure = self.uncertain(min_confidence)
        problems = self.problems(min_confidence)
        if unsure:
            raise UncertainStones(problems[0])
        if problems:
            raise ImpossiblePosition(problems[0] + ": the picture may show a position "
                                     "set up by hand, or stones were misread")


@dataclass(frozen=True)
class Measured:
    """A picture's grid and the measurements of every point of both layouts (what the
    classifier and its fitting, :mod:`arena.photo.fit`, start from)."""

    grid: Grid
    scale: float  # working pixels per picture pixel
    features: dict[str, np.ndarray]  # layout -> one row per point, row by row
    marks: dict[str, np.ndarray]  # layout -> each point's cross or ring (arena.photo.marks)
    labels: Layout | None = None  # where coordinates written beside the grid stand
    tiles: bool = False  # drawn in bevelled tiles (arena.photo.tiles), each a cell
    # layout -> each point's look (arena.photo.alike), on a flat picture (a screenshot)
    looks: dict[str, np.ndarray] = field(default_factory=dict)
    # measured on the picture's negative (light lines on a dark ground): the features'
    # black stones are the picture's white ones and the reverse
    negative: bool = False


def _labelled(lines: np.ndarray, grid: Grid) -> Layout | None:
    """Where the coordinates written beside the grid stand, if any are there: on the
    lines (a board played on the intersections) or between them (in the cells). ``lines``
    is the line map of the canvas (line ``i`` at ``(i + 1) * CELL``); the strips 0.3 to
    0.9 cells beyond each outer line are looked at."""
    inside = lines[CELL:grid.lines_y * CELL + 1, CELL:grid.lines_x * CELL + 1]
    level = float(np.percentile(inside, 97))
    near, far = round(0.3 * CELL), round(0.9 * CELL)
    last_x, last_y = grid.lines_x * CELL, grid.lines_y * CELL
    span_x = slice(CELL // 2, last_x + CELL // 2)
    span_y = slice(CELL // 2, last_y + CELL // 2)
    strips = [lines[CELL - far:CELL - near, span_x].sum(axis=0),       # above
              lines[last_y + near:last_y + far, span_x].sum(axis=0),   # below
              lines[span_y, CELL - far:CELL - near].sum(axis=1),       # left
              lines[span_y, last_x + near:last_x + far].sum(axis=1)]   # right
    on_lines = between = 0.0
    for profile in strips:
        if profile.size == 0 or profile.max() < 0.08 * level * (far - near):
            continue  # no ink beside this side
        phase = (np.arange(profile.size) + CELL // 2) / CELL % 1.0
        on_lines += float(profile[(phase < 0.2) | (phase > 0.8)].sum())
        between += float(profile[(phase > 0.3) & (phase < 0.7)].sum())
    if between > 2 * on_lines and between > 0:
        return "cells"
    if on_lines > 2 * between and on_lines > 0:
        return "points"
    return None


def _working(image: np.ndarray) -> tuple[np.ndarray, float]:
    scale = WORKING_SIDE / max(image.shape[:2])
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=interpolation), scale


def _exposure(gray: np.ndarray) -> None:
    low, high = np.percentile(gray, [1, 99])
    if high < 60:
        raise PoorImage(f"the picture is too dark (its brightest parts reach {high:.0f} of "
                        "255): take it again in better light")
    if low > 235:
        raise PoorImage("the picture is washed out (over-exposed): take it again with less "
                        "light or without the flash")
    if high - low < 25:
        raise PoorImage(f"the picture has almost no contrast ({low:.0f} to {high:.0f} of "
                        "255): there is no board to see in it")


def _sharpness(gray: np.ndarray) -> float:
    """Fine detail relative to contrast: low for a blurred picture."""
    detail = np.abs(cv2.Laplacian(gray, cv2.CV_32F, ksize=3))
    spread = float(np.percentile(gray, 95) - np.percentile(gray, 5)) + 1.0
    return float(np.percentile(detail, 99)) / spread


#: :func:`_sharpness` below which a picture without a grid is called too blurred.
BLURRED = 0.12


def _mark_sized(mask: np.ndarray) -> np.ndarray:
    """The parts of ``mask`` (a canvas's) no wider or taller than a cell, as a mark on a
    stone is and a line is not (the soft edges of dark red lines on an orange board pass
    for red, and painting them over left empty points without lines, read as stones)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), 8)
    small = (stats[:, cv2.CC_STAT_WIDTH] <= CELL) & (stats[:, cv2.CC_STAT_HEIGHT] <= CELL)
    small[0] = False  # the background
    return small[labels]


#: Pixels: the band around a red patch where :func:`_on_red` looks at what it lies on
#: (from the first distance, past a mark's anti-aliased edge, to the second).
MARK_BAND = (2, 5)
#: Saturation from which that band counts as red, and the share of it that makes the
#: patch one on a red surface (pink paper), not a mark.
RED_SURFACE, RED_SURFACE_SHARE = 75, 0.5


def _on_red(patches: np.ndarray, hue: np.ndarray, saturation: np.ndarray,
            value: np.ndarray) -> np.ndarray:
    """The parts of ``patches`` (red pixels) that lie on a red surface: half their band
    (:data:`MARK_BAND`) or more reddish. A last-move mark stands on a stone, black or
    white, which is not red; dark red lines on pink paper come out red in pieces between
    the paper's stripes or grain, each smaller than a cell, and painting them over left
    empty points without lines, read as white stones (photo 16,000,069: 55 points)."""
    count, labels = cv2.connectedComponents(patches.astype(np.uint8), connectivity=8)
    if count <= 1:
        return np.zeros(patches.shape, bool)
    near, far = (cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
                 for r in MARK_BAND)
    mask = patches.astype(np.uint8)
    band = (cv2.dilate(mask, far) > 0) & (cv2.dilate(mask, near) == 0)
    owner = cv2.dilate(labels.astype(np.float32), far).astype(int)[band]
    reddish = (((hue <= 8) | (hue >= 172)) & (saturation > RED_SURFACE) & (value > 80))[band]
    total = np.bincount(owner, minlength=count)
    red = np.bincount(owner, weights=reddish, minlength=count)
    surface = red >= RED_SURFACE_SHARE * np.maximum(total, 1)
    surface[0] = False  # the background
    return surface[labels]


#: A red patch this wide and tall (cells) and filling this share of its box (a disc
#: fills 0.79; a ring drawn round a stone far less) is a stone's size and shape; so many
#: of them are stones, not the last move's mark.
RED_STONE_WIDE, RED_STONE_FILL, RED_STONES = 0.6, 0.5, 3


def _red_stones(red: np.ndarray, cell: int) -> np.ndarray:
    """The patches of ``red`` that are discs a stone's size, where there are
    :data:`RED_STONES` of them or more: a program's red stones (one player's, or the
    stones of a last move painted red), not the mark on one stone."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(red.astype(np.uint8), 8)
    wide, tall = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    disc = ((np.minimum(wide, tall) >= RED_STONE_WIDE * cell)
            & (stats[:, cv2.CC_STAT_AREA] >= RED_STONE_FILL * wide * tall))
    disc[0] = False  # the background
    if np.count_nonzero(disc) < RED_STONES:
        return np.zeros(red.shape, bool)
    return disc[labels]


def _without_marks(canvas: np.ndarray, cell: int) -> np.ndarray:
    """The canvas in grey (float32), with red marks painted over from around them: screen
    boards mark the last move with a red dot or ring on the stone, which is no part of
    it (a red dot is as grey as a stone's shadow). Red is seldom a board's colour or its
    lines' (wood is orange: another hue); where it is (pink paper), the red patches on
    it are no marks (:func:`_on_red`); nor are a program's red stones
    (:func:`_red_stones`)."""
    gray = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
    hsv = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)
    hue, saturation, value = hsv[:, :, 0], hsv[:, :, 1], hsv[:, :, 2]
    red = ((hue <= 8) | (hue >= 172)) & (saturation > 150) & (value > 120)
    red = _mark_sized(red)
    red &= ~_on_red(red, hue, saturation, value)
    red &= ~_red_stones(red, cell)
    if not red.any():
        return gray.astype(np.float32)
    mask = cv2.dilate(red.astype(np.uint8), np.ones((3, 3), np.uint8))
    return cv2.inpaint(gray, mask, 3, cv2.INPAINT_TELEA).astype(np.float32)


#: A last-move mark at a stone's centre: a dot within the first radius (cells), told by
#: the median within the second (the smallest dots, 0.06 cell, fill less than half of
#: the first: a grey dot on a white stone was left, read as an empty point), on a
#: stone's even face from the third radius to the fourth (inside a stone a third of a
#: cell wide, whose outline made a wider face uneven).
MARK_DOT, MARK_CORE = disc_offsets(0.0, 0.18), disc_offsets(0.0, 0.09)
MARK_FACE = disc_offsets(0.22, 0.29)
#: Grey levels: the face's spread (90th less 10th percentile) at most, and how far the
#: dot stands from the face's median at least.
FACE_SPREAD, DOT_CONTRAST = 10.0, 25.0
#: A face shaded unevenly still bears a dot that stands this many times its spread off
#: it (a white stone shaded from 229 to 246 bore a grey dot of 126, read as an empty
#: point).
DOT_OVER_SPREAD = 4.0


def _without_centre_marks(gray: np.ndarray, canvas: np.ndarray, ys: np.ndarray,
                          xs: np.ndarray) -> np.ndarray:
    """``gray`` (the canvas, float32) with the dots painted over that stand at the
    centres ``(ys, xs)`` of even faces in the face's colour: a screen's last-move dot in
    any colour (a grey dot on a white stone was read as an empty point; red ones are
    already gone, :func:`_without_marks`). An empty point's surroundings are crossed by
    lines or are the board's colour at its centre too, so nothing changes there: no
    pixel of a face may stand as far off it as a dot does in any colour of ``canvas``
    (BGR): a thin line crossing it, which the spread lets pass, or one as grey as the
    board but not its colour (dark red lines on an orange board), would leave the
    lines' crossing at the centre to pass for a dot. Nor is a dot on a face in the
    board's own colour (most points', within :data:`BOARD_LIKE` in each channel) a
    mark: it is a stone smaller than the face's radius (a terminal's board of emoji
    dots, a third of a cell across, was read empty); a white stone may be as grey as a
    pale board, but not its colour."""
    out = gray.copy()
    colour, spread = _faces(around(gray, ys, xs, MARK_FACE))
    face = around(canvas, ys, xs, MARK_FACE).astype(np.float32)
    shade = np.median(face, axis=1)  # each face's colour (BGR)
    clear = np.abs(face - shade[:, None]).max(axis=(1, 2)) < DOT_CONTRAST
    contrast = np.abs(np.median(around(gray, ys, xs, MARK_CORE), axis=1) - colour)
    even = (spread <= FACE_SPREAD) | (contrast >= DOT_OVER_SPREAD * spread)
    on_board = (np.abs(shade - np.median(shade, axis=0)) < BOARD_LIKE).all(axis=1)
    marked = even & clear & (contrast >= DOT_CONTRAST) & ~on_board
    for k in np.nonzero(marked)[0]:
        _paint(out, ys[k] + MARK_DOT[0], xs[k] + MARK_DOT[1], colour[k])
    return out


def _faces(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's colour (median) and spread (90th less 10th percentile)."""
    spread = np.percentile(face, 90, axis=1) - np.percentile(face, 10, axis=1)
    return np.median(face, axis=1), spread


def _paint(out: np.ndarray, ys: np.ndarray, xs: np.ndarray,
           colour: float | np.ndarray) -> None:
    """Set the pixels ``(ys, xs)`` of ``out`` (grey or colour) that lie on it to
    ``colour``."""
    height, width = out.shape[:2]
    keep = (ys >= 0) & (ys < height) & (xs >= 0) & (xs < width)
    out[ys[keep], xs[keep]] = colour


#: A last-move ring round a stone's centre, in whole-pixel circles of the canvas: the
#: even face out to the first at least, the ring and the face again beyond it within the
#: second (a stone's own outline lies at a third of a cell or further, with no face
#: beyond it within reach), the ring at most the third wide.
RING_FACE, RING_LAST, RING_WIDTH = round(0.14 * CELL), round(0.34 * CELL), round(0.15 * CELL)


def _circle_offsets() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    dy, dx = disc_offsets(0.0, (RING_LAST + 0.5) / CELL)
    return dy, dx, np.rint(np.hypot(dy, dx)).astype(int)


_CIRCLES = _circle_offsets()


def _ring_band(near: np.ndarray, typical: np.ndarray) -> tuple[int, int] | None:
    """The circles ``(first, last)`` to paint over for a ring round a face, given each
    circle's nearest tenth of pixels' and median's distance from the face's colour;
    None if there is no ring: the face out to its first circle, circles that stand out
    from it all the way round, and the face again within two circles (the ring's soft
    edges, painted too, lie between)."""
    outside = np.nonzero(near[RING_FACE + 1:] >= DOT_CONTRAST)[0]
    if outside.size == 0:
        return None
    first = RING_FACE + 1 + int(outside[0])
    last = first
    while last + 1 < len(near) and near[last + 1] >= DOT_CONTRAST:
        last += 1
    again = [r for r in (last + 1, last + 2) if r < len(near) and typical[r] < FACE_SPREAD]
    if not again or last - first >= RING_WIDTH or (typical[:first - 1] >= FACE_SPREAD).any():
        return None
    return first - 1, again[0] - 1


def _without_centre_rings(gray: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """``gray`` (the canvas, float32) with the thin rings painted over that circle even
    faces at the centres ``(ys, xs)``, in the face's colour: a screen's last-move ring in
    any colour (a grey ring on a white stone was read as an empty point; red ones are
    already gone, :func:`_without_marks`). The ring must stand out from the face all
    the way round: the arcs that four ink-circle stones draw round the centre of the
    cell between them do not."""
    out = gray.copy()
    dy, dx, radius = _CIRCLES
    values = around(gray, ys, xs, (dy, dx))
    colour, spread = _faces(values[:, radius <= RING_FACE])
    for k in np.nonzero(spread <= FACE_SPREAD)[0]:
        off = np.abs(values[k] - colour[k])
        circles = [off[radius == r] for r in range(RING_LAST + 1)]
        band = _ring_band(np.array([np.percentile(c, 10) for c in circles]),
                          np.array([np.median(c) for c in circles]))
        if band is None:
            continue
        paint = (radius >= band[0]) & (radius <= band[1])
        _paint(out, ys[k] + dy[paint], xs[k] + dx[paint], colour[k])
    return out


#: A mark drawn on a stone's face (a move number, a triangle, a square, a ring) lies
#: within the first share of the stone's radius; the face around it, from there to the
#: second, is the stone's (its outline lies beyond). A move number is at most 0.62 of
#: the stone across, and its corners are rounded.
GLYPH_REACH, GLYPH_FACE_REACH = 0.74, 0.88
#: A stone's face: at least the first share of that band as far from the board as a
#: dot from a face, on one side, and less than the second share of the board's colour
#: (the edge of a stone smaller than the band leaves it half board, half stone); and at
#: least the third share of the disc within as far from the board on that side (the
#: inside of an ink circle is paper).
GLYPH_FACE_SHARE, GLYPH_BOARD_SHARE, GLYPH_INSIDE = 0.5, 0.25, 0.3
#: Grey levels per pixel that a mark's strokes change by at their edges (the 95th
#: percentile over the disc it lies in) at the least: 42 or more for the move numbers
#: of the generated screens, at most 21 for the highlights of shaded stones on
#: generated scans and other programs' screenshots.
MARK_SHARPNESS = 30.0
#: The radii (cells) a screen's stones are looked for at, each a ring a thirtieth of a
#: cell wide, and the default where no stone stands out (the radius of the points'
#: stones of most programs).
STONE_RADII, RING_HALF_WIDTH, USUAL_RADIUS = np.arange(0.2, 0.49, 0.02), 0.015, 0.43
#: Where a stone's edge is looked for round it: this many degrees or more off the
#: grid's axes, where neither the lines through its point cross it nor those round its
#: cell (at half a cell, which a ring of half a cell meets near the axes).
OFF_AXES = 30.0
#: Just beyond a stone's edge lies its board: a band this far out (cells) whose colour
#: lies within the given grey levels of the board's (the median of every point's band,
#: most of them bare), where a ring within a stone (a shaded face's) has the face.
BEYOND_EDGE, BOARD_LIKE = (0.04, 0.1), 12.0
#: A ring whose score (:func:`stone_radius`) is at least this share of the best ring's
#: counts as a stone's edge; the outermost such is the stones' (a shaded face or a move
#: number makes rings of its own within).
EDGE_SHARE = 0.5
#: Stones of this radius (cells) or less are measured on a canvas magnified to
#: :data:`USUAL_RADIUS` (:func:`measure`): some programs draw them a quarter of a cell
#: across, so small that the points' measurements, made for stones of 0.33 to 0.49,
#: saw board around them and read them empty.
SMALL_STONE = 0.3
#: Small stones show clearly from one layout's points where they score this many times
#: what they do from the other's (:func:`stone_radius`); a board of stones larger than
#: their cells scored alike from both, a little ring round the cells' centres.
CLEARLY = 3.0
#: Least grey levels per pixel that a stone's edge stands over an empty point's ring.
STONE_EDGE = 4.0


def _diagonal(offsets: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The ``offsets`` (dy, dx) at :data:`OFF_AXES` or more off the axes."""
    dy, dx = offsets
    off_axis = np.degrees(np.arctan2(np.abs(dy), np.abs(dx)))
    keep = (off_axis >= OFF_AXES) & (off_axis <= 90 - OFF_AXES)
    return dy[keep], dx[keep]


def _quadrants(offsets: tuple[np.ndarray, np.ndarray]
               ) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The diagonal ``offsets`` (:func:`_diagonal`) sorted by quadrant, and where each of
    the four starts."""
    dy, dx = _diagonal(offsets)
    quadrant = (dy > 0) * 2 + (dx > 0)
    order = np.argsort(quadrant, kind="stable")
    return (dy[order], dx[order]), np.searchsorted(quadrant[order], np.arange(4))


def _beyond(radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of the band just beyond a stone of ``radius`` cells (:data:`BEYOND_EDGE`),
    off the axes: its board."""
    return _diagonal(disc_offsets(radius + BEYOND_EDGE[0], radius + BEYOND_EDGE[1]))


_STONE_RINGS = [(_quadrants(disc_offsets(r - RING_HALF_WIDTH, r + RING_HALF_WIDTH)),
                 _beyond(r))
                for r in STONE_RADII]


def _change(gray: np.ndarray) -> np.ndarray:
    """How fast ``gray`` (float32) changes at each pixel, in grey levels per pixel."""
    return np.hypot(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3),
                    cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)) / 8


def _edge_rise(change: np.ndarray, ys: np.ndarray, xs: np.ndarray, ring: int) -> np.ndarray:
    """How far each point's edge on ring ``ring`` of :data:`STONE_RADII` stands over most
    points' (the 20th percentile): how fast the canvas changes (``change``) there in the
    quarter round the point where it changes least."""
    (offsets, starts), _ = _STONE_RINGS[ring]
    quarters = np.add.reduceat(around(change, ys, xs, offsets), starts, axis=1)
    edge = (quarters / np.diff(np.append(starts, len(offsets[0])))).min(axis=1)
    return edge - np.percentile(edge, 20)


def _filled(gray: np.ndarray, change: np.ndarray, ys: np.ndarray, xs: np.ndarray,
            radius: float) -> bool:
    """Whether the round things of ``radius`` cells at the points ``(ys, xs)`` are stones,
    most with a face unlike the board beyond them (by half as much as a dot from a face:
    a shaded white stone is nearly as light as a white page), not rings or crosses drawn
    with the board inside them (Piskvork's, 0.2 cell across)."""
    ring = int(np.argmin(np.abs(STONE_RADII - radius)))
    edged = _edge_rise(change, ys, xs, ring) >= STONE_EDGE
    face = np.median(around(gray, ys[edged], xs[edged], disc_offsets(0.0, radius / 2)), axis=1)
    beyond = np.median(around(gray, ys[edged], xs[edged], _STONE_RINGS[ring][1]), axis=1)
    return bool(edged.any()) and float(np.mean(np.abs(face - beyond) >= DOT_CONTRAST / 2)) > 0.5


def stone_radius(gray: np.ndarray, ys: np.ndarray, xs: np.ndarray,
                 change: np.ndarray | None = None) -> tuple[float, float]:
    """The radius (cells) of the stones drawn at some of the centres ``(ys, xs)`` of a
    screenshot's canvas (``gray``, float32), all alike, and how clearly they show there.
    A ring's score: over the points whose edge on it stands :data:`STONE_EDGE` or more
    over what it does on most points' (empty ones: the 20th percentile), the sum of
    that rise, a point's edge being how fast the picture changes on the ring in its
    quarter where it changes least (a stone's edge goes all round it; the stones at
    the corners of a cell, seen from its centre, lie in some quarters only), and whose
    band just beyond the ring is the board's colour (:data:`BEYOND_EDGE`). The
    stones' ring is the peak of the outermost edge scoring :data:`EDGE_SHARE` of the
    best or more, and its score how clearly they show; :data:`USUAL_RADIUS` and 0 where
    no point has such an edge (no stones). ``change``: the canvas's :func:`_change`,
    where the caller has it."""
    if change is None:
        change = _change(gray)
    scores = []
    for k, (_, beyond) in enumerate(_STONE_RINGS):
        over = _edge_rise(change, ys, xs, k)
        outside = np.median(around(gray, ys, xs, beyond), axis=1)
        board = np.abs(outside - np.median(outside)) < BOARD_LIKE
        scores.append(float(over[(over >= STONE_EDGE) & board].sum()))
    best = max(scores)
    if best <= 0:
        return USUAL_RADIUS, 0.0
    outer = max(k for k, score in enumerate(scores) if score >= EDGE_SHARE * best)
    while outer > 0 and scores[outer - 1] > scores[outer]:
        outer -= 1  # the peak of that edge (anti-aliased, it spans a few rings)
    return float(STONE_RADII[outer]), scores[outer]


#: A stone's outline: within this share of its radius either way, darker than its face
#: as a dot is, with the face within it, in at least the given share of the directions
#: round it (12, on the diagonals: :data:`OFF_AXES`).
OUTLINE_REACH, OUTLINE_ROUND = 0.12, 0.8


def _directions(offsets: tuple[np.ndarray, np.ndarray]
                ) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """The diagonal ``offsets`` (:func:`_diagonal`) sorted by direction, and where each
    of the 12 directions starts: a third of each diagonal's arc, the middle one
    centred on it (where a cross's arm lies)."""
    dy, dx = _diagonal(offsets)
    degrees = np.degrees(np.arctan2(dy, dx)) % 360
    third = np.minimum(((degrees % 90 - OFF_AXES) // ((90 - 2 * OFF_AXES) / 3)).astype(int), 2)
    direction = (degrees // 90).astype(int) * 3 + third
    order = np.argsort(direction, kind="stable")
    return (dy[order], dx[order]), np.searchsorted(direction[order], np.arange(12))


def _outlined(gray: np.ndarray, ys: np.ndarray, xs: np.ndarray, radius: float,
              colour: np.ndarray) -> np.ndarray:
    """Which of the points at ``(ys, xs)`` are ringed by a dark outline of ``radius``
    cells round a face of ``colour``: a white stone as light as its board, which only
    its outline tells. In each direction the face shows within the outline (between
    the mark and it, :data:`GLYPH_REACH`): the arms of a cross, dark all along, are no
    outline."""
    ring, ring_starts = _directions(disc_offsets((1 - OUTLINE_REACH) * radius,
                                                 (1 + OUTLINE_REACH) * radius))
    face, face_starts = _directions(disc_offsets(GLYPH_REACH * radius,
                                                 (1 - OUTLINE_REACH) * radius))
    darkest = np.minimum.reduceat(around(gray, ys, xs, ring), ring_starts, axis=1)
    lightest = np.maximum.reduceat(around(gray, ys, xs, face), face_starts, axis=1)
    level = colour[:, None] - DOT_CONTRAST
    return ((darkest < level) & (lightest >= level)).mean(axis=1) >= OUTLINE_ROUND


def _glyph_bands(radius: float) -> tuple[tuple[np.ndarray, np.ndarray],
                                         tuple[np.ndarray, np.ndarray]]:
    """Offsets of the disc a mark on a stone of ``radius`` cells lies in, and of the
    band of its face round it."""
    return (disc_offsets(0.0, GLYPH_REACH * radius),
            disc_offsets(GLYPH_REACH * radius, GLYPH_FACE_REACH * radius))


def _glyphs(gray: np.ndarray, change: np.ndarray, ys: np.ndarray, xs: np.ndarray,
            radius: float) -> np.ndarray:
    """Which of the points at ``(ys, xs)`` of a screenshot's canvas (``gray``, float32;
    ``change``, its :func:`_change`) are stones of ``radius`` cells (:func:`stone_radius`)
    with a mark drawn on the face: a dark number, triangle or square on a white stone
    made it an empty point with lines crossing at its centre, and a white ring on a
    black stone made it white. A face is the band round the mark within the stones'
    radius, most of it as far in colour from the board just beyond the stone
    (:data:`BEYOND_EDGE`) as a dot from a face, lighter or darker, or ringed by a dark outline
    (:func:`_outlined`); the mark, pixels within it as far beyond the band's own range.
    An empty point's band is the board's colour crossed by lines: no mark is found
    there."""
    glyph, band = _glyph_bands(radius)
    face = around(gray, ys, xs, band)
    colour = np.median(face, axis=1)
    low, high = np.percentile(face, 10, axis=1), np.percentile(face, 90, axis=1)
    # The board just beyond the point's stone, if one stands there (boards shaded from
    # a light centre to dark edges made faces of bare points).
    board = np.median(around(gray, ys, xs, _beyond(radius)), axis=1)[:, None]
    side = np.sign(colour[:, None] - board)  # a light face or a dark one
    stone = (((side * (face - board) >= DOT_CONTRAST).mean(axis=1) >= GLYPH_FACE_SHARE)
             & ((np.abs(face - board) < DOT_CONTRAST / 2).mean(axis=1) < GLYPH_BOARD_SHARE))
    inner = around(gray, ys, xs, glyph)
    stone &= (side * (inner - board) >= DOT_CONTRAST).mean(axis=1) >= GLYPH_INSIDE
    stone |= _outlined(gray, ys, xs, radius, colour)
    marked = stone & ((np.percentile(inner, 5, axis=1) < low - DOT_CONTRAST)
                      | (np.percentile(inner, 95, axis=1) > high + DOT_CONTRAST))
    # A mark is drawn in strokes; the shading of a stone's face (a highlight) is smooth.
    marked &= np.percentile(around(change, ys, xs, glyph), 95, axis=1) >= MARK_SHARPNESS
    return marked


def _without_glyphs(image: np.ndarray, ys: np.ndarray, xs: np.ndarray, marked: np.ndarray,
                    radius: float) -> np.ndarray:
    """``image`` (grey or colour) with the marks of the ``marked`` points of
    :func:`_glyphs` painted over in their face's colour (its band's median)."""
    out = image.copy()
    glyph, band = _glyph_bands(radius)
    chosen = np.nonzero(marked)[0]
    faces = np.median(around(image, ys[chosen], xs[chosen], band), axis=1)
    for k, face in zip(chosen, faces, strict=True):
        _paint(out, ys[k] + glyph[0], xs[k] + glyph[1], face)
    return out


def _canvases(work: np.ndarray, grid: Grid, cell: int, colour_ends: bool = True
              ) -> tuple[np.ndarray, np.ndarray, dict[Layout, tuple[np.ndarray, np.ndarray]],
                         list[str]]:
    """The board of ``work`` (BGR) warped to ``cell`` pixels a cell with a cell's margin,
    the same in grey (float32) with the marks on its points painted over, the canvas
    pixel centres of each layout's points, and the sides where the board's colour ends
    at its outer line (:func:`painted_to_lines`; with ``colour_ends``). Where the picture
    ends less than :data:`POINT_MARGIN` past an outer line, or the board's colour ends
    there, the board is mirrored about it: a stone on that line shows whole, and the
    page past it is no half of a stone."""
    height, width = work.shape[:2]
    mirrored = sides_out(grid, width, height, POINT_MARGIN)
    canvas = grid.warp(work, cell, margin=1.0, mirrored=mirrored)
    painted = [side for side in painted_to_lines(cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY)
                                                 .astype(np.float32), grid, cell)
               if side not in mirrored] if colour_ends else []
    if painted:
        canvas = grid.warp(work, cell, margin=1.0, mirrored=[*mirrored, *painted])
    centres: dict[Layout, tuple[np.ndarray, np.ndarray]] = {
        layout: lattice_centres(grid.lines_x, grid.lines_y, 1.0, layout, cell)
        for layout in ("points", "cells")}
    gray = _without_marks(canvas, cell)
    for ys, xs in centres.values():
        gray = _without_centre_rings(_without_centre_marks(gray, canvas, ys, xs), ys, xs)
    return canvas, gray, centres, painted


_STROKE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))


def _strokes(gray: np.ndarray) -> np.ndarray:
    """The thin dark strokes of a canvas (a black-hat filter): its lines."""
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, _STROKE_KERNEL)


def _star_points(columns: int, rows: int) -> np.ndarray:
    """Which intersections of a board of ``columns`` by ``rows`` lines, row by row, are
    its star points, where boards draw a small dot or square: the fourth lines from the
    edges (the third on boards under 12 lines) and the middle ones, crossing."""
    def places(count: int) -> set[int]:
        edge = 3 if count >= 12 else 2
        return {edge, count - 1 - edge} | ({count // 2} if count % 2 else set())

    across, down = places(columns), places(rows)
    ys, xs = np.mgrid[0:rows, 0:columns]
    return (np.isin(xs, list(across)) & np.isin(ys, list(down))).ravel()


def _inside(shape: tuple[int, ...], grid: Grid, cell: int) -> np.ndarray:
    """The board on a canvas of ``shape`` with ``cell`` pixels a cell: the grid and a
    sixth of a cell beyond (a wider margin may be the table)."""
    inside = np.zeros(shape[:2], bool)
    reach = int(cell * 5 / 6)
    inside[reach:int(grid.lines_y * cell) + (cell - reach) + 1,
           reach:int(grid.lines_x * cell) + (cell - reach) + 1] = True
    return inside


def _marks(canvas: np.ndarray, grid: Grid, centres: dict[Layout, tuple[np.ndarray, np.ndarray]],
           by_colour: bool, cell: int = CELL) -> dict[Layout, np.ndarray]:
    """The crosses and rings at each layout's points of a canvas of :data:`CELL` pixels
    a cell, or ``cell`` pixels for marks as much smaller (:func:`read_marks`), their
    strokes seen ``by_colour`` on a screen, and in its cells as a share of the ground
    round them (a cell greyed as the last move's; on the intersections, a dark wooden
    board's square star points passed for crosses so)."""
    inside = _inside(canvas.shape, grid, cell)
    maps: dict[bool, tuple[np.ndarray, np.ndarray, float]] = {}  # by ``relative``
    marks = {}
    for layout, (ys, xs) in centres.items():
        relative = by_colour and layout == "cells"
        if relative not in maps:
            thin, thick = (mark_strokes(canvas, width, by_colour, relative)
                           for width in (STROKE_KERNEL, THICK_KERNEL))
            maps[relative] = thin, thick, max(float(np.percentile(thin[inside], 97)), 2.0)
        strokes, thick_strokes, level = maps[relative]
        marks[layout] = read_marks(strokes, thick_strokes, ys, xs, level, layout, by_colour)
    return marks


#: Where a small mark's strokes lie: within this many cells of a cell's centre, clear of
#: its lines; and how strong they are at the least, as a share of the lines' strokes.
SMALL_MARK_REACH, SMALL_MARK_STROKE = 0.3, 0.5
#: The radius (cells) a mark is magnified to, within the crosses and rings looked for
#: (0.2 to 0.42 cell), and the most it is magnified (a canvas grows with its square).
MARK_RADIUS, MOST_ZOOM = 0.3, 3.0
_SMALL_MARK_DISC = disc_offsets(0.0, SMALL_MARK_REACH)


def _small_glyphs(lines: np.ndarray, grid: Grid, ys: np.ndarray, xs: np.ndarray
                  ) -> np.ndarray:
    """The radius (cells) of the strokes near the centre of each cell (centred at canvas
    pixels ``ys``, ``xs``) that holds strokes as strong as half the lines' (``lines``:
    the canvas's strokes), where a small mark may be: one per such cell."""
    level = float(np.percentile(lines[_inside(lines.shape, grid, CELL)], 97))
    strong = around(lines, ys, xs, _SMALL_MARK_DISC) >= SMALL_MARK_STROKE * level
    distance = np.hypot(*_SMALL_MARK_DISC) / CELL
    held = strong.any(axis=1)
    return np.where(strong[held], distance, 0.0).max(axis=1)


def _small_marks(work: np.ndarray, grid: Grid, radius: float
                 ) -> dict[Layout, np.ndarray] | None:
    """The crosses and rings of a screen board whose marks are smaller than those looked
    for (a caro program's letters x and o, a quarter of a cell high: ``radius`` cells),
    read on the board magnified to :data:`MARK_RADIUS`; None where it holds fewer than
    :data:`MIN_MARKS`."""
    cell = round(CELL * min(MARK_RADIUS / max(radius, 1e-3), MOST_ZOOM))
    canvas = grid.warp(work, cell, margin=1.0)
    centres = {layout: lattice_centres(grid.lines_x, grid.lines_y, 1.0, layout, cell)
               for layout in ("points", "cells")}
    marks = _marks(canvas, grid, centres, True, cell)
    if max(np.count_nonzero(found) for found in marks.values()) < MIN_MARKS:
        return None
    return marks


def _search(gray: np.ndarray) -> tuple[Grid, bool, bool]:
    """The grid of the board in ``gray`` (the working picture, float32), whether its
    lines are darker than the board, and whether it is drawn in tiles.

    :raises PoorImage: too blurred to find a grid.
    :raises NoBoardFound: no grid in the picture.
    :raises BoardCutOff: the grid runs off the picture.
    """
    line_maps = {dark: line_map(gray, dark) for dark in (True, False)}
    # A board drawn in bevelled tiles has no lines to find (a board with lines is none).
    grid = tiled_grid(gray, line_maps[True], line_maps[False])
    if grid is not None:
        return grid, True, True
    failure: NoBoardFound | None = None
    dark_lines = True
    lighter: Grid | None = None
    cut_off: BoardCutOff | None = None
    segments = {dark: line_segments(line_maps[dark]) for dark in (True, False)}
    for dark_lines in line_colours(segments[True], segments[False]):
        try:
            grid = find_grid(gray, line_maps[dark_lines], dark_lines,
                             segments=segments[dark_lines])
        except NoBoardFound as exc:
            if failure is None or exc.stage > failure.stage:
                failure = exc
            continue
        except BoardCutOff as exc:
            # Lines of one colour that run off the picture may be marks on the board of
            # the other colour's lines (the dark move numbers on a dark theme's white
            # stones): those lines are asked for, and kept only if they are the
            # strokes they seem, light or dark; else the board is cut off.
            cut_off = cut_off or exc
            continue
        light = lighter_lines(gray, grid)
        if cut_off is not None and light == dark_lines:
            grid = None
            break
        if not (dark_lines and light):
            break
        # Dark lines lighter than the board's cells: a dark theme's board, its light
        # lines asked for, this grid kept in case they give none.
        lighter, grid = grid, None
    if grid is None and lighter is not None:
        grid, dark_lines = lighter, True
    if grid is None and cut_off is not None:
        raise cut_off
    if grid is None:
        if _sharpness(gray) < BLURRED:
            raise PoorImage("the picture is too blurred to find the board's lines: hold the "
                            "camera still and focus on the board")
        assert failure is not None
        raise NoBoardFound(f"{failure}: give a picture of a whole Gomoku or Go board, its "
                           "grid lines visible, or set its grid by hand", failure.stage)
    return grid, dark_lines, False


def measure(image: np.ndarray, hand: HandGrid | None = None, fit: bool = True) -> Measured:
    """Find the grid of ``image`` (BGR), or take the one set by ``hand`` (fitted to the
    lines near it unless not to ``fit``), and measure the points of both layouts.

    :raises PoorImage: too dark, washed out, without contrast, or too blurred to find a
        grid.
    :raises NoBoardFound: no grid in the picture.
    :raises BoardCutOff: the grid runs off the picture.
    :raises BadHandGrid: the grid set by hand is none.
    """
    work, scale = _working(image)
    gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY).astype(np.float32)
    _exposure(gray)
    if hand is None:
        grid, dark_lines, tiled = _search(gray)
    else:
        height, width = image.shape[:2]
        grid, tiled = hand.grid(width, height, scale), False
        dark_lines = not lighter_lines(gray, grid)
        if fit:
            grid = fit_to_lines(gray, grid, dark_lines)
    if not dark_lines:
        # Light lines on a dark ground (a screen's dark theme, a slate board): the points
        # are measured on the negative, a board of dark lines on light as the classifier
        # knows them, where black and white stones trade places (read_board trades
        # them back).
        work = 255 - work
    canvas, canvas_gray, centres, painted = _canvases(work, grid, CELL)
    flat = flat_grid(grid)
    # Marks are read where a cell is CELL pixels, as their shapes are drawn (a letter X
    # read on a magnified board, below, was no cross).
    marks = _marks(canvas, grid, centres, flat)
    lines = _strokes(canvas_gray)
    if flat and not any(found.any() for found in marks.values()):
        glyphs = _small_glyphs(lines, grid, *centres["cells"])
        if len(glyphs) >= MIN_MARKS:
            marks = _small_marks(work, grid, float(np.median(glyphs))) or marks
    # Coordinates written past a board painted to its outer lines are read as the
    # picture shows them, not mirrored over (the mirrored lines passed for them).
    shown = _canvases(work, grid, CELL, colour_ends=False)[1] if painted else canvas_gray
    labels = _labelled(_strokes(shown), grid)
    cell = CELL
    change = _change(canvas_gray) if flat else None
    radii: dict[Layout, float] = {}
    if flat:
        plain = {"points": ~_star_points(grid.lines_x, grid.lines_y),
                 "cells": np.ones(len(centres["cells"][0]), bool)}
        found = {layout: stone_radius(canvas_gray, ys[plain[layout]], xs[plain[layout]], change)
                 for layout, (ys, xs) in centres.items()}
        radii = {layout: radius for layout, (radius, _) in found.items()}
        best, other = sorted(found, key=lambda layout: -found[layout][1])
        radius, shown = found[best]
        if (radius <= SMALL_STONE and shown >= CLEARLY * found[other][1]
                and _filled(canvas_gray, change, *centres[best], radius)):
            # Small stones that show clearly from one layout's points (a screen's stones
            # are all alike), not small marks: the board is measured magnified.
            cell = round(CELL * USUAL_RADIUS / radius)
            canvas, canvas_gray, centres, _ = _canvases(work, grid, cell)
            lines, change = _strokes(canvas_gray), _change(canvas_gray)
            radii = dict.fromkeys(centres, USUAL_RADIUS)
    inside = _inside(canvas_gray.shape, grid, cell)
    saturation = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)[:, :, 1].astype(np.float32)
    features, point_looks = {}, {}
    for layout, (ys, xs) in centres.items():
        gray, layout_lines = canvas_gray, lines
        if flat:
            # Marks on a screen's stones are painted over where this layout's stones
            # stand only: where the other's stand, the paint would cut into them. A
            # ring drawn in place of a stone (Piskvork) is no stone with a mark.
            assert change is not None
            glyphs = _glyphs(canvas_gray, change, ys, xs, radii[layout])
            glyphs &= marks[layout] != WHITE
            gray = _without_glyphs(canvas_gray, ys, xs, glyphs, radii[layout])
            layout_lines = _strokes(gray)
        features[layout] = point_features(gray, saturation, layout_lines, ys, xs, layout,
                                          inside)
        if flat:
            marks[layout][glyphs] = EMPTY  # a move number's strokes are no cross
            point_looks[layout] = looks(_without_glyphs(canvas, ys, xs, glyphs,
                                                        radii[layout]), ys, xs)
    return Measured(grid, scale, features, marks, labels, tiled, point_looks,
                    negative=not dark_lines)


#: Crosses beside this many times as many black stones read as discs are marks on a
#: board of stones (a forbidden point's red cross), not the first player's pieces.
CROSSES_AMONG_DISCS = 4


def _with_marks(p: np.ndarray, marks: np.ndarray, tiles: bool) -> np.ndarray:
    """The classifier's probabilities with the crosses and rings found put in: a cross
    is a black stone whatever the classifier saw in it (unless the crosses are few
    beside black discs: :data:`CROSSES_AMONG_DISCS`); a ring is a white stone unless
    the classifier sees a black one (a black stone with a ring drawn on it), or
    whatever it sees on a board of ``tiles`` (Piskvork's wood skin, whose rings are
    thick and dark blue: only crosses and rings are drawn on it) or beside
    :data:`MIN_MARKS` crosses or more, as many rings or more."""
    p = p.copy()
    doubt = (1 - MARK_CONFIDENCE) / 2
    sure = {colour: np.roll(np.array([MARK_CONFIDENCE, doubt, doubt]), colour)
            for colour in (BLACK, WHITE)}
    crosses, rings = marks == BLACK, marks == WHITE
    discs = np.count_nonzero((p.argmax(axis=1) == BLACK) & ~crosses)
    if discs < CROSSES_AMONG_DISCS * np.count_nonzero(crosses):
        p[crosses] = sure[BLACK]
    # Crosses and rings both drawn: the board's marks, each player's (a program's pink
    # rings outlined in black were read as black stones with rings on them).
    marked = min(np.count_nonzero(crosses), np.count_nonzero(rings)) >= MIN_MARKS
    p[rings & (tiles | marked | (p.argmax(axis=1) != BLACK))] = sure[WHITE]
    return p


#: A layout holds stones where the points it reads as stones add up to this much
#: certainty (one sure stone: its probabilities in float32 leave it a hair under 1, and
#: a board with one stone in a cell was taken for an empty board, read on the
#: intersections).
ONE_STONE = 1.0 - 1e-6
#: Crosses and rings that tell where a board's marks stand, at the least.
MIN_MARKS = 3
#: Cells of room beyond the outer lines that a board played on the intersections needs
#: to show a stone on its edge (a stone's radius).
EDGE_STONE_ROOM = 0.45


def _layout(probabilities: dict[str, np.ndarray], measured: Measured, width: int,
            height: int) -> Layout:
    """The layout whose points hold stones: the cells of a board drawn in tiles with no
    lines (each tile a cell). An empty board shows none: it is drawn in
    cells if the picture ends too close to its outer lines for a stone on an edge
    intersection (a screen board drawn in cells often ends at its last line); else where
    its coordinates stand, if it has any; else the layout that gives a usual size (15,
    19 or 20 lines: points; 16 or 21 lines: cells of 15 or 20), or, where the
    intersections would make a board larger than any Gomoku board (23 lines: more than
    the engine's 22), the cells. Where crosses and
    rings make half the stones or more that either layout holds, in one layout alone,
    with no more than twice as many rings as the first player's marks and stones there,
    that layout."""
    if measured.tiles:
        return "cells"
    grid = measured.grid
    score = {}
    for layout, p in probabilities.items():
        stones = p.argmax(axis=1) != EMPTY
        score[layout] = float((1 - p[stones, EMPTY]).sum())
    marks = {layout: int(np.count_nonzero(found)) for layout, found in measured.marks.items()}
    most = max(int(np.count_nonzero(p.argmax(axis=1) != EMPTY)) for p in probabilities.values())
    # Rings are the second player's: a layout whose marks are rings with few first
    # player's marks (crosses, black stones) beside them is no game's (the fine stripes
    # of pink paper make rings in some cells: 6 on photo 16,000,005, none black).
    first = {layout: int(np.count_nonzero(p.argmax(axis=1) == BLACK))
             for layout, p in probabilities.items()}
    rings = {layout: int(np.count_nonzero(found == WHITE))
             for layout, found in measured.marks.items()}
    marked = [layout for layout, count in marks.items()
              if count >= MIN_MARKS and 2 * count >= most
              and 2 * first[layout] >= rings[layout]]
    if len(marked) == 1:
        # Crosses and rings drawn in place of stones: the layout where they stand (the
        # meeting corners of crosses in four cells may look like stones to the
        # classifier).
        return marked[0]
    if max(score.values()) >= ONE_STONE:
        return "points" if score["points"] >= score["cells"] else "cells"
    if sides_out(grid, width, height, EDGE_STONE_ROOM):
        return "cells"
    if measured.labels is not None:
        return measured.labels
    usual_cells = {16, 21}
    if grid.lines_x in usual_cells and grid.lines_y in usual_cells:
        return "cells"
    # No Gomoku board has more points a side than the engine plays (an empty 22x22 board
    # drawn in cells was read as 23x23 intersections).
    longest = max(grid.lines_x, grid.lines_y)
    return "cells" if longest > MAX_SIZE >= longest - 1 else "points"


def read_board(image: np.ndarray | str | Path | bytes, layout: Layout | None = None,
               first: int = BLACK, hand: HandGrid | None = None) -> Reading:
    """Read the position on the board in ``image`` (a BGR array, a file, or its bytes).

    ``layout`` forces where the stones stand (``"points"``: on the intersections,
    ``"cells"``: in the cells); by default the reader decides from the stones. ``first``
    is the colour that moved first: black in Gomoku, white in some programs. ``hand``
    is the board's grid set by hand, its layout then the one it names. Where no grid is
    found, or the grid found reads a position with problems, a board printed as text (a
    console program's) is looked for (:mod:`arena.photo.text`) and read on the points
    it prints, whatever ``layout`` says; where the grid was found, only a reading
    without problems is taken from it.

    :raises PhotoError: no position can be read (the subclass and message say why).
    """
    started = time.perf_counter()
    picture = image if isinstance(image, np.ndarray) else load_image(image)
    try:
        measured = measure(picture, hand)
    except (NoBoardFound, BoardCutOff, PoorImage):
        # (A dark terminal printing little but small dots is too dark for a photo.)
        printed = None if hand is not None else _printed(picture, first, started)
        if printed is None:
            raise
        return printed
    if hand is None:
        reading = _reading(picture, measured, layout, first, started)
        if reading.problems():
            # A text board's glyphs, evenly spaced, may pass for a grid's lines.
            printed = _printed(picture, first, started)
            if printed is not None and not printed.problems():
                return printed
        return reading
    reading = _reading(picture, measured, hand.layout, first, started)
    if measured.grid.residual > FIT_RESIDUAL:
        # The lines the fit found fit it loosely: they may be a crowded board's, hidden by
        # its stones, or its stones' edges where it shows no lines. The grid as given is
        # read too, and the one that reads fewer points in doubt kept (on a tie, the one
        # read more surely).
        given = _reading(picture, measure(picture, hand, fit=False), hand.layout, first,
                         started)
        if _doubt(given) < _doubt(reading):
            return given
    return reading


def _printed(picture: np.ndarray, first: int, started: float) -> Reading | None:
    """The board printed as text in ``picture`` (:func:`read_text_board`), if any."""
    printed = read_text_board(picture, first)
    if printed is None:
        return None
    return Reading(Position(printed.stones, printed.confidence, printed.layout, first),
                   printed.points, printed.cell, time.perf_counter() - started)


def _doubt(reading: Reading) -> tuple[int, float]:
    """How much of ``reading`` is in doubt, less is better: its points read with less than
    :data:`MIN_CONFIDENCE`, then the mean surprise of its readings."""
    confidence = np.maximum(reading.position.confidence, 1e-6)
    return len(reading.uncertain()), -float(np.log(confidence).mean())


def _reading(picture: np.ndarray, measured: Measured, layout: Layout | None, first: int,
             started: float) -> Reading:
    """The position on ``measured``, the points of ``picture`` measured: in the
    ``layout`` given, or the one the stones show, unless it reads counts no game gives
    and the other reads stones without a problem."""
    model = _model()
    probabilities = {}
    for name, rows in measured.features.items():
        p = model.probabilities(rows)
        if measured.negative:
            p = p[:, TRADED]
        p = _with_marks(p, measured.marks[name], measured.tiles)
        probabilities[name] = (read_by_lookalikes(p, measured.looks[name])
                               if name in measured.looks else p)
    height, width = picture.shape[:2]
    width, height = round(width * measured.scale), round(height * measured.scale)
    chosen: Layout = layout or _layout(probabilities, measured, width, height)
    reading = _in_layout(probabilities[chosen], measured, chosen, first, started)
    if layout is None and reading.position.counts_problem():
        # Counts no game gives, where the other layout reads stones without a problem:
        # that one (a window's grey beyond a board of cells, read as white stones on
        # every edge point, chose the intersections).
        other: Layout = "cells" if chosen == "points" else "points"
        second = _in_layout(probabilities[other], measured, other, first, started)
        if second.position.stones.any() and not second.problems():
            return second
    return reading


def _in_layout(p: np.ndarray, measured: Measured, chosen: Layout, first: int,
               started: float) -> Reading:
    """The position read from the probabilities ``p`` of the points of layout ``chosen``
    on ``measured`` (with the two looks of a flat picture's stones)."""
    grid = measured.grid
    if chosen in measured.looks:
        stars = _star_points(grid.lines_x, grid.lines_y) if chosen == "points" else None
        p = read_by_two_looks(p, measured.looks[chosen], measured.negative, first, stars)
    columns = grid.lines_x if chosen == "points" else grid.lines_x - 1
    rows = grid.lines_y if chosen == "points" else grid.lines_y - 1
    stones = p.argmax(axis=1).reshape(rows, columns).astype(np.int8)
    confidence = p.max(axis=1).reshape(rows, columns).astype(np.float32)
    shift = 0.5 if chosen == "cells" else 0.0
    v, u = np.mgrid[0:rows, 0:columns].astype(np.float64) + shift
    x, y = grid.image_points(u, v)
    points = np.stack([x, y], axis=-1) / measured.scale
    return Reading(Position(stones, confidence, chosen, first), points,
                   grid.cell_pixels() / measured.scale, time.perf_counter() - started)
