"""Boards drawn in bevelled tiles, with no grid lines: Piskvork's ``wood`` skin.

Each cell of such a board is a tile lit from the top left: a dark edge along its top and
left sides, a light one along its bottom and right sides, both broken at its rounded
corners. The line search of :mod:`arena.photo.grid` sees only the dark edges, one per
tile and none after the last, in pieces too short for its segments. Here the tiles are
found by their pairs of edges instead: along each axis of the picture (a screen is not
seen at an angle), a dark edge, then a light one a little less than a cell on, then the
next tile's dark edge just after it, tile after tile. The grid's lines are the gaps
between the tiles, its outer lines the outer tiles' outer edges, and the board is read
in its cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from arena.photo.errors import BoardCutOff
from arena.photo.grid import (
    MIN_LINES,
    RUN_TOLERANCE,
    Grid,
    lattice_run,
    profile_peaks,
    strokes_along,
)

__all__ = ["tiled_grid"]

#: Working pixels a tile's edge must run along its axis to count (a cell is at least
#: 25 working pixels; a tile's edge between its rounded corners three quarters of it).
EDGE_RUN = 15
#: The gap between one tile's light edge and the next one's dark edge, in cells: a
#: bevel's is narrow (Piskvork's wood: 0.13); a thin line's two sides are no tiles.
GAP = (0.04, 0.3)
#: How far a tile's light edge may lie from where its dark edge and the gap put it, in
#: cells.
EDGE_TOLERANCE = 0.05
#: Most share of the tiles with a light stroke just after their dark edge at least this
#: share of their light edge's strength.
HALOS, HALO = 0.5, 0.6
#: A tile's width and height may differ by this share (square on every skin).
SQUARE = 0.05
#: Room past an outer tile, in cells, from which a cut tile would show, and up to which
#: a whole one would not fit: a picture ending there in the tiles' colour cuts the board.
CUT_ROOM = (0.15, 0.9)
#: Grey levels within which a strip counts as the tiles' colour.
SAME_COLOUR = 12.0
#: Most strength of the dark edges at the tiles' corners, against their middles' (0.1 to
#: 0.4 on Piskvork's wood; 1.3 to 1.5 on its skins with lines).
BARE_CORNERS = 0.6


@dataclass(frozen=True)
class _Row:
    """A row of tiles along one axis: where each starts (its dark edge) and ends (its
    light edge), the gap between one's end and the next one's start, and every dark and
    light edge found along the axis."""

    starts: np.ndarray
    ends: np.ndarray
    gap: float
    dark: np.ndarray
    light: np.ndarray

    def lines(self) -> tuple[float, float]:
        """The first line's position and the lines' spacing: the lines lie in the gaps
        between the tiles and on the outer tiles' outer edges (least squares)."""
        edges = np.append(self.starts - self.gap / 2, self.ends[-1] + self.gap / 2)
        spacing, first = np.polyfit(np.arange(len(edges), dtype=np.float64), edges, 1)
        return float(first), float(spacing)

    def cut(self, length: int) -> tuple[bool, bool]:
        """Whether a tile's edge shows before the first tile (its light edge) and after
        the last (its dark edge), where the picture, ``length`` pixels along the axis,
        ends less than a tile's width on: a tile cut by the picture's edge there, if its
        face shows beside the edge (:func:`tiled_grid` looks)."""
        first, spacing = self.lines()
        last = first + len(self.starts) * spacing
        tolerance = EDGE_TOLERANCE * spacing

        def near(edges: np.ndarray, place: float) -> bool:
            return bool(edges.size) and float(np.abs(edges - place).min()) <= tolerance

        low = CUT_ROOM[0] <= first / spacing <= CUT_ROOM[1] \
            and near(self.light, self.starts[0] - self.gap)
        high = CUT_ROOM[0] <= (length - last) / spacing <= CUT_ROOM[1] \
            and near(self.dark, self.ends[-1] + self.gap)
        return low, high


def _tiles(dark: np.ndarray, light: np.ndarray, min_gap: float) -> _Row | None:
    """The longest row of tiles in the projections ``dark`` and ``light`` of the edges
    along one axis, or None where no bevelled tiles show."""
    found = lattice_run(dark, min_gap)
    if found is None:
        return None
    step = float(np.median(np.diff(found[0])))
    starts, _ = profile_peaks(dark, 0.25)
    ends, end_heights = profile_peaks(light, 0.25)
    if len(ends) == 0:
        return None
    # Each start's light edge: the last one in the second half of its cell.
    after = ends[None, :] - starts[:, None]
    inside = (after > 0.5 * step) & (after < step)
    partner = np.where(inside.any(axis=1), np.where(inside, after, -np.inf).max(axis=1), np.nan)
    if np.isnan(partner).all():
        return None
    gap = step - float(np.nanmedian(partner))
    if not GAP[0] * step <= gap <= GAP[1] * step:
        return None
    paired = np.nonzero(np.abs(partner - (step - gap)) <= EDGE_TOLERANCE * step)[0]
    # The longest row of paired starts a cell apart (strokes of marks and coordinates
    # between them are passed over).
    best: list[int] = []
    for first in paired:
        row = [int(first)]
        while True:
            ahead = np.abs(starts[paired] - (starts[row[-1]] + step))
            if ahead.min() > RUN_TOLERANCE * step:
                break
            row.append(int(paired[ahead.argmin()]))
        if len(row) > len(best):
            best = row
    if len(best) < MIN_LINES:
        return None
    chosen = np.array(best)
    # A tile's face follows its dark edge; a light stroke as strong as its light edge on
    # both sides of each dark one is a line's halo (a small screenshot enlarged with
    # cubic interpolation).
    own = end_heights[np.argmin(np.abs(ends[None, :] - (starts[chosen] + partner[chosen])[:, None]),
                                axis=1)]
    halo = (np.abs(ends[None, :] - (starts[chosen, None] + gap)) <= GAP[1] * step - gap) \
        & (end_heights[None, :] >= HALO * own[:, None])
    if halo.any(axis=1).mean() > HALOS:
        return None
    return _Row(starts[chosen], starts[chosen] + partner[chosen], gap, starts, ends)


def _bare_corners(dark: np.ndarray, columns: _Row, rows: _Row) -> bool:
    """Whether the tiles' dark edges leave their corners bare, as rounded tiles do: a
    grid's lines are strongest where they cross (and a skin drawn in tiles with lines
    through them, bevelled or not, has its own lines crossing)."""
    smooth = cv2.GaussianBlur(dark, (0, 0), 1.0)
    height, width = dark.shape
    spacing = float(np.median(np.diff(columns.starts)))

    def at(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return smooth[np.clip(np.round(y).astype(int), 0, height - 1),
                      np.clip(np.round(x).astype(int), 0, width - 1)]

    x, y = np.meshgrid(columns.starts, rows.starts)
    corners = float(np.median(at(x, y)))
    sides = float(np.median(np.concatenate([at(x + spacing / 2, y), at(x, y + spacing / 2)])))
    return corners < BARE_CORNERS * sides


def tiled_grid(gray: np.ndarray, dark: np.ndarray, light: np.ndarray) -> Grid | None:
    """The grid of a board drawn in bevelled tiles in ``gray`` (float32, 0-255, the
    working resolution), whose dark and light line maps (:func:`line_map`) are ``dark``
    and ``light``: lines at the tiles' edges; None where no such board shows.

    :raises BoardCutOff: the tiles run off the picture.
    """
    min_gap = max(gray.shape) / 60
    found = []
    for vertical in (True, False):
        along = 0 if vertical else 1
        row = _tiles(strokes_along(dark, vertical, EDGE_RUN).sum(axis=along),
                     strokes_along(light, vertical, EDGE_RUN).sum(axis=along), min_gap)
        if row is None:
            return None
        found.append(row)
    columns, rows = found
    (x0, sx), (y0, sy) = columns.lines(), rows.lines()
    if abs(sx - sy) > SQUARE * max(sx, sy) or not _bare_corners(dark, columns, rows):
        return None
    height, width = gray.shape
    lines_x, lines_y = len(columns.starts) + 1, len(rows.starts) + 1
    x1, y1 = x0 + (lines_x - 1) * sx, y0 + (lines_y - 1) * sy
    faces = float(np.median(gray[round(y0):round(y1), round(x0):round(x1)]))
    inset = round(0.25 * sx)
    left, right = columns.cut(width)
    top, bottom = rows.cut(height)
    strips = {"left": (left, gray[round(y0):round(y1), max(0, round(x0) - inset):round(x0)]),
              "right": (right, gray[round(y0):round(y1), round(x1):round(x1) + inset]),
              "top": (top, gray[max(0, round(y0) - inset):round(y0), round(x0):round(x1)]),
              "bottom": (bottom, gray[round(y1):round(y1) + inset, round(x0):round(x1)])}
    for side, (edge, strip) in strips.items():
        # A cut tile: its edge beyond the outer one, its face between that and the
        # picture's edge.
        if edge and strip.size and abs(float(np.median(strip)) - faces) <= SAME_COLOUR:
            raise BoardCutOff.on(side)
    to_lattice = np.array([[1 / sx, 0, -x0 / sx], [0, 1 / sy, -y0 / sy], [0, 0, 1.0]])
    return Grid(lines_x, lines_y, to_lattice, 0.0, (width / 2, height / 2),
                max(width, height) / 2, 0.0)
