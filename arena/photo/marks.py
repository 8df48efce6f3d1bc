"""Crosses and rings drawn in place of stones: Gomoku on paper, and Piskvork's default
skins. A cross is the first player's mark and reads as a black stone, a ring the
second player's and reads as a white one (a white stone drawn as an outline is a ring
too).

Marks are found in the thin strokes of the rectified board (:data:`arena.photo.stones.CELL`
pixels a cell), in the board's own colours, before the red of a last-move mark is
painted over: crosses and rings are often red or blue. A cross is four strokes along
the diagonals from the point's centre with bare board between them; a ring is a stroke
all round the centre at a stone's radius, with bare board inside. A stone drawn filled
is neither: the stroke map keeps strokes thinner than a stone.
"""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from arena.photo.position import BLACK, EMPTY, WHITE, Layout
from arena.photo.stones import CELL

__all__ = ["MARK_CONFIDENCE", "mark_strokes", "read_marks"]

#: The probability a point read as a clear cross or ring is given.
MARK_CONFIDENCE = 0.97
#: Width of the structuring element of the stroke map, in canvas pixels: wider than a
#: mark's strokes (a thick cross is a sixth of a cell), narrower than a filled stone.
STROKE_KERNEL = 9
#: Share of the stroke level a part of a ring must reach, and an arm of a cross.
STROKE, CROSS_STROKE = 0.35, 0.5
#: Least share of each arm of a cross on a stroke, most share of any direction between
#: its arms (a thick or blurred cross's strokes reach some way into them), and by how
#: much the weakest arm must stand out from the strongest direction between.
CROSS_ARMS, CROSS_BETWEEN, CROSS_STANDS_OUT = 0.5, 0.65, 0.25
#: Share of the directions round the centre a ring must cover (a dashed ring has gaps),
#: and how far (in cells) the radii it is met at may spread (the middle half of them):
#: a ring is round, the grain of paper or the corners of a cell are not.
RING_COVER, RING_SPREAD = 0.8, 0.1


def _rays(angles: np.ndarray, inner: float, outer: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets (dy, dx), shape (len(angles), steps), along rays from the centre at
    ``angles`` (radians), from ``inner`` to ``outer`` cells."""
    radii = np.arange(round(inner * CELL), round(outer * CELL) + 1)
    dy = np.round(np.sin(angles)[:, None] * radii[None, :]).astype(int)
    dx = np.round(np.cos(angles)[:, None] * radii[None, :]).astype(int)
    return dy, dx


#: The angles (degrees from the rows) a cross's arms may run at: a pen's cross along
#: the diagonals, a letter X of a font in a cell steeper (taller than it is wide: 55
#: degrees in a caro program's).
CROSS_ANGLES = (45.0, 55.0)


def _cross_rays(angle: float) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """The four arms of a cross whose arms run at ``angle`` degrees from the rows (from
    its centre out, and their inner part), and the directions half way between its arms
    and the grid's lines (on a board played on the intersections the grid lines run
    along the axes through the point)."""
    arms = np.radians([angle, 180.0 - angle, 180.0 + angle, 360.0 - angle])
    halves = [angle / 2, (angle + 90.0) / 2]
    between = np.radians([base + half for base in (0.0, 180.0) for half in halves]
                         + [base - half for base in (180.0, 360.0) for half in halves])
    return _rays(arms, 0.12, 0.36), _rays(arms, 0.1, 0.24), _rays(between, 0.26, 0.36)


_CROSSES = [_cross_rays(angle) for angle in CROSS_ANGLES]
#: Where a cross's centre may lie off a cell's, in canvas pixels: a letter is set on
#: its font's baseline, a pixel or two off the middle of its cell.
CROSS_SHIFTS = list(itertools.product((-2, 0, 2), repeat=2))
#: The centre of a point, where a cross's strokes meet (a ring of a stone's drawing
#: leaves it bare).
_HUB = tuple(offset.ravel()[None, :] for offset in np.mgrid[-2:3, -2:3])
#: Directions round the centre for a ring, from a little inside a stone's radius to a
#: little outside it; and the ring's inside along the diagonals (clear of the grid
#: lines through an intersection), where a ring leaves bare board.
_ROUND = _rays(np.radians(np.arange(0.0, 360.0, 15.0)), 0.2, 0.42)
_CORE = _rays(np.radians([45.0, 135.0, 225.0, 315.0]), 0.08, 0.2)
#: Most share of a ring's inside that may show strokes: a ring leaves bare board there
#: (the grain of a photo does not).
RING_CORE = 0.07
#: Directions round the centre from the centre out, for a thick ring (Piskvork's wood
#: skin: a fifth of a cell thick, its hole a quarter of a cell wide), whose stroke the
#: rays of a ring start in; where its stroke begins (in cells), and how far it runs on
#: at least.
_FROM_CENTRE = _rays(np.radians(np.arange(0.0, 360.0, 15.0)), 0.0, 0.42)
THICK_HOLE, THICK_BODY = (0.05, 0.22), 0.3
#: Width of the structuring element of the thick strokes' map, in canvas pixels: wider
#: than a thick cross's arm and its hub, where the arms overlap (Piskvork's wood skin:
#: an arm a third of a cell wide with its outline, which the thin map sees alone; a
#: marker pen's), narrower than a stone (whose disc the map leaves out).
THICK_KERNEL = 19
#: A thick cross in that map: its arms along the diagonals from its centre out, and bare
#: board along the axes between them, beyond a thick arm's half width (and clear of the
#: cell's sides); the least share of each arm on a stroke, the most of any axis.
_THICK_ARMS = _rays(np.radians([45.0, 135.0, 225.0, 315.0]), 0.0, 0.4)
_THICK_BETWEEN = _rays(np.radians([0.0, 90.0, 180.0, 270.0]), 0.26, 0.4)
THICK_ARMS, THICK_BETWEEN = 0.8, 0.4


def mark_strokes(canvas: np.ndarray, width: int = STROKE_KERNEL, by_colour: bool = False,
                 relative: bool = False) -> np.ndarray:
    """The dark strokes narrower than ``width`` pixels of a BGR canvas (float32), in its
    own colours: a red or blue mark on a grey or wooden board is darker than the board
    in grey. ``by_colour``: the strongest of its colour channels' strokes, for a screen's
    clean colours (a red cross on a black board is faint in grey, 76 of 255 in the
    negative it is read on, and as strong as the lines in its own channel); and with
    ``relative``, each as a share of the ground round it, scaled to 255 (a red cross on
    a cell greyed as the last move's is as dark against that grey as the lines against
    white, and half as dark in grey levels)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width))
    if by_colour:
        found = []
        for channel in range(3):
            values = canvas[:, :, channel].astype(np.float32)
            ground = cv2.morphologyEx(values, cv2.MORPH_CLOSE, kernel)
            found.append((ground - values) * (255 / np.maximum(ground, 1.0) if relative else 1))
        return np.max(found, axis=0)
    gray = cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel)


def read_marks(strokes: np.ndarray, thick_strokes: np.ndarray, ys: np.ndarray,
               xs: np.ndarray, level: float, layout: Layout, screen: bool = False
               ) -> np.ndarray:
    """The mark at each point centred at canvas pixels ``(ys, xs)`` of a ``layout``:
    ``BLACK`` for a cross, ``WHITE`` for a ring, ``EMPTY`` for neither. ``strokes`` and
    ``thick_strokes`` are the canvas's :func:`mark_strokes` of the default width and of
    :data:`THICK_KERNEL`; ``level`` is the strength of a drawn stroke (the grid
    lines'). Rings and thick crosses are looked for in the cells only: on an
    intersection the lines through it, crossed by the grain of a photo, make rings
    enough, and the stone classifier reads a ring drawn there (a white stone's outline)
    itself. On a ``screen`` (a screenshot) a letter O of a font is a ring too."""
    pad = CELL
    on = cv2.copyMakeBorder((strokes > STROKE * level).astype(np.uint8), pad, pad, pad, pad,
                            cv2.BORDER_CONSTANT, value=0)
    # A stroke a pixel off its ray still counts: a thin cross a pixel off its point, a
    # dashed ring with gaps.
    near = cv2.dilate(on, np.ones((3, 3), np.uint8))
    py, px = ys[:, None, None] + pad, xs[:, None, None] + pad

    def along(image: np.ndarray, rays: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """Per point and ray: the share of the ray's pixels on a stroke."""
        return image[py + rays[0][None], px + rays[1][None]].mean(axis=2)

    # A cross's arms are drawn as strongly as the lines (the grain of a photo is not).
    strong = cv2.dilate(cv2.copyMakeBorder((strokes > CROSS_STROKE * level).astype(np.uint8),
                                           pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0),
                        np.ones((3, 3), np.uint8))
    # Per direction round the centre, the radius a ring's stroke is first met at.
    met = near[py + _ROUND[0][None], px + _ROUND[1][None]] > 0
    first = np.where(met.any(axis=2), met.argmax(axis=2), -1).astype(float)
    round_cover = (first >= 0).mean(axis=1)
    # (A point where no direction meets a stroke is no ring: its radii stand at 0.)
    radii = np.where(first >= 0, first, np.where((first >= 0).any(axis=1, keepdims=True),
                                                 np.nan, 0.0))
    quartiles = np.nanpercentile(radii, [25, 75], axis=1)
    spread = (quartiles[1] - quartiles[0]) / CELL
    core = along(on, _CORE).mean(axis=1)
    # A cross's strokes run from its centre and stand out from the directions between
    # them; a stone's outline circles its centre alike in every direction, and the
    # outlines of four stones round an empty point cross its diagonals off its centre.
    hub = strong[py + _HUB[0][None], px + _HUB[1][None]].mean(axis=2)[:, 0]
    cross = np.zeros(len(ys), bool)
    # A letter is looked for in the cells only: on a stone on an intersection, a move
    # number's strokes passed for a letter X off its centre.
    letters = layout == "cells"
    for (dy, dx), rays in itertools.product(CROSS_SHIFTS if letters else [(0, 0)],
                                            _CROSSES if letters else _CROSSES[:1]):
        arm_rays, inner_rays, between_rays = ((ray[0] + dy, ray[1] + dx) for ray in rays)
        arms = along(strong, arm_rays).min(axis=1)
        inner = along(strong, inner_rays).min(axis=1)
        between = along(on, between_rays).max(axis=1)
        cross |= (arms > CROSS_ARMS) & (inner > CROSS_ARMS) & (hub > CROSS_ARMS) \
            & (between < CROSS_BETWEEN) & (arms - between >= CROSS_STANDS_OUT)
    # A thick cross: the thin map sees only the outline of its arms, hollow; the thick
    # one sees the arms whole, through the centre.
    thick_on = cv2.copyMakeBorder((thick_strokes > CROSS_STROKE * level).astype(np.uint8),
                                  pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    thick_cross = (along(thick_on, _THICK_ARMS).min(axis=1) >= THICK_ARMS) \
        & (along(thick_on, _THICK_BETWEEN).max(axis=1) <= THICK_BETWEEN) \
        & (layout == "cells")
    cross |= thick_cross
    # A thick ring: bare board in its hole, then its stroke, all round, to beyond half
    # of a stone's radius.
    out = on[py + _FROM_CENTRE[0][None], px + _FROM_CENTRE[1][None]] > 0
    hole = np.where(out.any(axis=2), out.argmax(axis=2), out.shape[2]) / CELL
    reach = round(THICK_BODY * CELL)
    body = near[py[:, :, 0] + _FROM_CENTRE[0][None, :, reach],
                px[:, :, 0] + _FROM_CENTRE[1][None, :, reach]] > 0
    in_hole = (hole >= THICK_HOLE[0]) & (hole <= THICK_HOLE[1])
    hole_spread = np.subtract(*np.percentile(hole, [75, 25], axis=1))
    thick = ((in_hole & body).mean(axis=1) >= RING_COVER) & (hole_spread <= RING_SPREAD) \
        & (hub < CROSS_ARMS)
    # A letter O of a font on a screen: an oval, its hole narrower than it is tall and a
    # pixel or two off the cell's centre (its font's baseline), but closed all round
    # within a stone's reach, with bare board in it.
    letter = screen & (hole < out.shape[2] / CELL).all(axis=1) \
        & (hole.min(axis=1) >= THICK_HOLE[0]) & (hub < CROSS_ARMS)
    ring = (((round_cover >= RING_COVER) & (spread <= RING_SPREAD) & (core < RING_CORE))
            | thick | letter) & ~cross & (layout == "cells")
    found = np.full(len(ys), EMPTY, np.int8)
    found[cross] = BLACK
    found[ring] = WHITE
    return found
