"""A board's grid set by hand: where the reader cannot find the grid, or finds one of the
wrong size (a board drawn as buttons, a frame taken for a line), a person names the
board's size and clicks its four corners, and the stones are read on that grid.

The corners are the outer intersections of a board played on them, or the outer corners
of the corner cells of one played in its cells, in picture pixels and in any order (they
are put in order here: top left, top right, bottom right, bottom left as the picture
shows them; the first row of the position is the one between the first two).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from arena.photo.errors import PhotoError
from arena.photo.grid import MAX_LINES, MIN_LINES, Grid, oriented
from arena.photo.position import Layout

__all__ = ["BadHandGrid", "HandGrid", "grid_corners"]

#: Fewest picture pixels a cell may span on a grid set by hand (clicks closer together
#: than that are no board's corners).
MIN_CELL_PIXELS = 4.0


class BadHandGrid(PhotoError):
    """The grid given by hand is none: corners that make no four-sided board inside the
    picture, or a size no Gomoku board has."""


def grid_corners(points: np.ndarray, layout: Layout) -> np.ndarray:
    """The corners a person gives for a board whose points (``points[y, x]``, picture
    pixels: a :class:`~arena.photo.read.Reading`'s) stand on the intersections or in the
    cells by ``layout``: the outer points, or the outer corners of the corner cells (half
    a cell out from their centres); top left, top right, bottom right, bottom left."""
    corners = np.array([points[0, 0], points[0, -1], points[-1, -1], points[-1, 0]],
                       np.float64)
    if layout == "cells":
        across = (points[0, -1] - points[0, 0]) / max(points.shape[1] - 1, 1)
        down = (points[-1, 0] - points[0, 0]) / max(points.shape[0] - 1, 1)
        outwards = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)])
        corners += (outwards[:, :1] * across + outwards[:, 1:] * down) / 2
    return corners


@dataclass(frozen=True)
class HandGrid:
    """A board of ``columns`` by ``rows`` points (where the stones stand: intersections
    or cells, by ``layout``) whose grid has its four corners at ``corners``, picture
    pixels ``(x, y)`` in any order."""

    corners: tuple[tuple[float, float], ...]
    columns: int
    rows: int
    layout: Layout

    def __post_init__(self) -> None:
        if len(self.corners) != 4:
            raise BadHandGrid(f"{len(self.corners)} corners given: a board has four")
        for count in (self.columns, self.rows):
            # As many lines as a grid found may have (a board of cells has one more).
            if not MIN_LINES <= count < MAX_LINES:
                raise BadHandGrid(f"a board of {self.columns}x{self.rows} points: give a size "
                                  f"from {MIN_LINES} to {MAX_LINES - 1} points each way")
        if self.layout not in ("points", "cells"):
            raise BadHandGrid(f"no layout {self.layout!r}: the stones stand on the 'points' "
                              "or in the 'cells'")

    @classmethod
    def parse(cls, corners: str, size: str, layout: Layout) -> HandGrid:
        """The grid from text as a person types it: ``corners`` four ``X,Y`` pairs
        separated by spaces or semicolons, ``size`` ``N`` or ``COLUMNSxROWS``."""
        pairs = [part for part in re.split(r"[;\s]+", corners.strip()) if part]
        points = []
        for pair in pairs:
            match = re.fullmatch(r"(-?\d+(?:\.\d*)?),(-?\d+(?:\.\d*)?)", pair)
            if match is None:
                raise BadHandGrid(f"corner {pair!r} is not X,Y in picture pixels "
                                  "(for example 120,85)")
            points.append((float(match[1]), float(match[2])))
        found = re.fullmatch(r"(\d+)(?:x(\d+))?", size.strip().lower())
        if found is None:
            raise BadHandGrid(f"size {size!r} is not N or COLUMNSxROWS (for example 15 or "
                              "15x15)")
        columns = int(found[1])
        return cls(tuple(points), columns, int(found[2] or columns), layout)

    def ordered(self) -> np.ndarray:
        """The corners top left, top right, bottom right, bottom left (4x2)."""
        points = np.array(self.corners, np.float64)
        centre = points.mean(axis=0)
        # Clockwise on the screen (y grows downwards), from the top left one.
        around = points[np.argsort(np.arctan2(points[:, 1] - centre[1],
                                              points[:, 0] - centre[0]))]
        return np.roll(around, -int(np.argmin(around.sum(axis=1))), axis=0)

    def grid(self, width: int, height: int, scale: float = 1.0) -> Grid:
        """The grid in a picture of ``width`` by ``height`` pixels, brought to ``scale``
        working pixels a picture pixel.

        :raises BadHandGrid: a corner outside the picture, or corners that make no
            four-sided board with room for its cells.
        """
        corners = self.ordered()
        outside = [f"{x:g},{y:g}" for x, y in corners
                   if not (0 <= x <= width - 1 and 0 <= y <= height - 1)]
        if outside:
            raise BadHandGrid(f"corner {outside[0]} is outside the picture ({width}x{height} "
                              "pixels): give the board's corners inside it")
        lines_x = self.columns + (self.layout == "cells")
        lines_y = self.rows + (self.layout == "cells")
        contour = corners.astype(np.float32).reshape(-1, 1, 2)
        sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
        cells = np.array([lines_x, lines_y, lines_x, lines_y]) - 1
        if not cv2.isContourConvex(contour) or (sides / cells).min() < MIN_CELL_PIXELS:
            raise BadHandGrid("the four corners given make no board: give one at each "
                              "corner of its whole grid")
        lattice = np.array([[0, 0], [lines_x - 1, 0], [lines_x - 1, lines_y - 1],
                            [0, lines_y - 1]], np.float32)
        to_lattice = cv2.getPerspectiveTransform((corners * scale).astype(np.float32), lattice)
        size = (width * scale, height * scale)
        # Numbered as a grid found is: a board photographed turned by 45 degrees has two
        # corners as far up and left, and either would begin its rows.
        return oriented(Grid(lines_x, lines_y, to_lattice.astype(np.float64), 0.0,
                             (size[0] / 2, size[1] / 2), max(size) / 2, 0.0))
