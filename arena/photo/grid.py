"""Finding a board's grid in a picture: which lines, and where each point lies.

The grid is read from its lines, which a board shows whatever its colours and however it
was photographed:

1. **Line map**: a black-hat filter keeps thin dark strokes (light ones on dark screen
   boards: a top-hat), so stones, shadows and uneven light drop out.
2. **Two families**: line segments (probabilistic Hough) are grouped by direction, and
   each group's vanishing point found by RANSAC; sending the line through both vanishing
   points to infinity and turning the two directions onto the axes undoes the
   perspective up to a scale per axis.
3. **Lattice**: in that rectified view each family's lines are peaks of a projection;
   the longest run of evenly spaced peaks is the grid, and outer lines that the other
   family does not reach (a board's edge, a frame) are trimmed.
4. **Fit**: every line point found near the predicted lines gives one linear equation
   on the homography from lattice coordinates to the picture (a DLT on lines), with one
   radial lens-distortion term chosen by the smallest residual, refined three times
   with narrower searches.

:class:`Grid` maps lattice coordinates (``u`` along the rows, ``v`` down the columns,
line ``i`` at ``u = i``) to picture pixels and warps the board into a square canvas.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from arena.photo.errors import BoardCutOff, NoBoardFound

__all__ = ["FIT_RESIDUAL", "MIN_LINES", "Grid", "find_grid", "fit_to_lines", "flat_grid",
           "lattice_run", "line_map", "oriented", "painted_to_lines", "profile_peaks",
           "sides_out", "strokes_along"]

#: A Gomoku board needs at least 5 lines each way.
MIN_LINES = 5
#: Most lines a grid may have each way (a 30x30 board drawn in cells has 31).
MAX_LINES = 40
#: Width of the structuring element of the line map, in working pixels: wider than the
#: lines, narrower than the stones.
LINE_KERNEL = 11


def line_map(gray: np.ndarray, dark_lines: bool = True, padded: Collection[str] = ()
             ) -> np.ndarray:
    """Thin strokes of ``gray`` (float32, 0-255): dark ones (black-hat) or light ones.

    Past the ``padded`` sides the picture is taken as continued by its median grey: a
    line drawn on its first or last pixels there (a board's canvas saved alone) is then
    a stroke between that and the board, not a band reaching the edge, which the filter
    cannot tell from a dark region."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (LINE_KERNEL, LINE_KERNEL))
    op = cv2.MORPH_BLACKHAT if dark_lines else cv2.MORPH_TOPHAT
    top, bottom, left, right = (LINE_KERNEL * (side in padded)
                                for side in ("top", "bottom", "left", "right"))
    blurred = cv2.copyMakeBorder(cv2.GaussianBlur(gray, (0, 0), 0.7), top, bottom, left, right,
                                 cv2.BORDER_CONSTANT, value=float(np.median(gray)))
    found = cv2.morphologyEx(blurred, op, kernel)
    return found[top:found.shape[0] - bottom, left:found.shape[1] - right]


@dataclass(frozen=True)
class Grid:
    """A grid of ``lines_x`` by ``lines_y`` lines in a picture.

    ``to_lattice`` is the homography from undistorted picture pixels to lattice
    coordinates; ``k1`` the radial distortion about the picture's centre ``centre``
    (``norm``: half its larger side), as undistorted = centre + d * (1 + k1 * r^2).
    """

    lines_x: int
    lines_y: int
    to_lattice: np.ndarray
    k1: float
    centre: tuple[float, float]
    norm: float
    residual: float  # median distance of the line points to their lines, in cells

    def image_points(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Picture pixels of lattice coordinates ``(u, v)`` (arrays of one shape)."""
        to_image = np.linalg.inv(self.to_lattice)
        w = to_image[2, 0] * u + to_image[2, 1] * v + to_image[2, 2]
        xu = (to_image[0, 0] * u + to_image[0, 1] * v + to_image[0, 2]) / w
        yu = (to_image[1, 0] * u + to_image[1, 1] * v + to_image[1, 2]) / w
        return _distort(xu, yu, self.k1, self.centre, self.norm)

    def warp(self, image: np.ndarray, cell: int, margin: float = 1.0,
             outside: float | None = None, mirrored: Collection[str] = ()) -> np.ndarray:
        """The board as a square canvas: line ``i`` at pixel ``(i + margin) * cell``;
        pixels from beyond the picture repeat its edge, or are ``outside`` if given.
        Past the outer line of each ``mirrored`` side the canvas shows the board
        mirrored about that line."""
        width = round((self.lines_x - 1 + 2 * margin) * cell) + 1
        height = round((self.lines_y - 1 + 2 * margin) * cell) + 1
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
        u, v = xs / cell - margin, ys / cell - margin
        # Each side: the lattice coordinate across it, its outer line, and outwards.
        for side, (along, outer, outwards) in {
                "left": (u, 0.0, -1), "right": (u, self.lines_x - 1.0, 1),
                "top": (v, 0.0, -1), "bottom": (v, self.lines_y - 1.0, 1)}.items():
            if side in mirrored:
                past = (along - outer) * outwards > 0
                along[past] = 2 * outer - along[past]
        mx, my = self.image_points(u, v)
        if outside is None:
            return cv2.remap(image, mx.astype(np.float32), my.astype(np.float32),
                             cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return cv2.remap(image, mx.astype(np.float32), my.astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=outside)

    def cell_pixels(self) -> float:
        """The mean size of a cell in picture pixels."""
        u = np.array([0, self.lines_x - 1, 0, self.lines_x - 1], np.float64)
        v = np.array([0, 0, self.lines_y - 1, self.lines_y - 1], np.float64)
        x, y = self.image_points(u, v)
        area = 0.5 * abs((x[1] - x[2]) * (y[0] - y[3]) - (x[0] - x[3]) * (y[1] - y[2]))
        return math.sqrt(area / max(1, (self.lines_x - 1) * (self.lines_y - 1)))


def _undistort(x: np.ndarray, y: np.ndarray, k1: float, centre: tuple[float, float],
               norm: float) -> tuple[np.ndarray, np.ndarray]:
    dx, dy = (x - centre[0]) / norm, (y - centre[1]) / norm
    factor = 1 + k1 * (dx * dx + dy * dy)
    return centre[0] + dx * factor * norm, centre[1] + dy * factor * norm


def _distort(x: np.ndarray, y: np.ndarray, k1: float, centre: tuple[float, float],
             norm: float) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of :func:`_undistort` (fixed-point iterations; converges for the
    small ``k1`` of phone lenses)."""
    ux, uy = (x - centre[0]) / norm, (y - centre[1]) / norm
    dx, dy = ux.copy(), uy.copy()
    for _ in range(8):
        factor = 1 + k1 * (dx * dx + dy * dy)
        dx, dy = ux / factor, uy / factor
    return centre[0] + dx * norm, centre[1] + dy * norm


# -- 2. two families of lines ------------------------------------------------------------

def line_segments(lines: np.ndarray) -> np.ndarray:
    """Line segments ``(x1, y1, x2, y2)`` of the strong strokes of a line map."""
    level = max(0.2 * float(np.percentile(lines, 99.5)), 3 * float(np.median(lines)), 2.0)
    strokes = (lines > level).astype(np.uint8) * 255
    side = min(lines.shape)
    found = cv2.HoughLinesP(strokes, 1, np.pi / 720, threshold=int(side * 0.04),
                            minLineLength=side * 0.05, maxLineGap=side * 0.006 + 2)
    if found is None:
        return np.zeros((0, 4), np.float32)
    return found.reshape(-1, 4).astype(np.float32)


#: Light strokes make this many times the length of straight lines that the dark ones
#: make on a board of light lines on a dark ground (a screen's dark theme), and not on
#: a board of dark lines: 3 to 180,000 times (median 37) on 30 such screens; at most 4
#: on every other set measured (photographs of real boards 4, generated scans 3.3 and
#: photos 2.9, screenshots of Piskvork, the web board and other programs 1). Where it
#: is less, :func:`lighter_lines` catches the dark themes' grids.
LIGHT_LINES_FIRST = 10.0


def line_colours(dark: np.ndarray, light: np.ndarray) -> tuple[bool, bool]:
    """The order in which to look for dark lines (``True``) and light ones (``False``)
    given the :func:`line_segments` of the picture's dark and light line maps: dark ones
    first, the lines of nearly every board, but light ones where they make by far the
    longer straight lines (on a dark theme's board the dark strokes are the stones'
    edges and the ground between light lines, where a grid of other lines was found
    first)."""

    def length(segments: np.ndarray) -> float:
        return float(np.hypot(segments[:, 2] - segments[:, 0],
                              segments[:, 3] - segments[:, 1]).sum())

    light_first = length(light) > LIGHT_LINES_FIRST * max(length(dark), 1.0)
    return (False, True) if light_first else (True, False)


#: Grey levels by which a grid's lines stand lighter than the board beside them at the
#: least where they are light lines on a dark ground (38 to 158 on the generated dark
#: screens whose dark strokes gave a grid; at most 0.6 on crowded photographs of real
#: games, whose white stones outshone their board by 25 to 45 grey levels).
LIGHTER_LINES = 10.0


def lighter_lines(gray: np.ndarray, grid: Grid) -> bool:
    """Whether the lines of ``grid`` in ``gray`` (float32, 0-255) are light strokes on a
    darker board: across each line halfway between crossings (where stones on the
    points leave it bare), within a fifth of a cell either side, the lightest pixel
    stands further above both ends of that span than the darkest stands below them, in
    the median over the lines. The dark strokes beside a dark theme's light lines (their
    anti-aliased edges) make a grid of dark lines a fifth of a cell off the light ones.
    Each span is weighed against its own ends, not the board's colour, because on a
    crowded board of white stones the spans lie on stones lighter than the board: a
    light face, not a light stroke."""
    cell = 16
    canvas = grid.warp(gray, cell, margin=1.0)
    across = np.arange(grid.lines_x) + 1
    down = np.arange(grid.lines_y) + 1
    middle_x = np.round((across[:-1] + 0.5) * cell).astype(int)
    middle_y = np.round((down[:-1] + 0.5) * cell).astype(int)
    window = np.arange(-cell // 5, cell // 5 + 1)
    vertical = canvas[middle_y[:, None, None], (across * cell)[None, :, None] + window]
    horizontal = canvas[(down * cell)[:, None, None] + window, middle_x[None, :, None]]
    samples = np.concatenate([vertical.reshape(-1, len(window)),
                              horizontal.reshape(-1, len(window))])
    ends = samples[:, [0, -1]]
    light = float(np.median(samples.max(axis=1) - ends.max(axis=1)))
    dark = float(np.median(ends.min(axis=1) - samples.min(axis=1)))
    return light > max(dark, LIGHTER_LINES)


def _families(segments: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two groups of segments by direction (the two strongest directions at least 30
    degrees apart); each is a boolean mask."""
    dx, dy = segments[:, 2] - segments[:, 0], segments[:, 3] - segments[:, 1]
    length = np.hypot(dx, dy)
    angle = np.degrees(np.arctan2(dy, dx)) % 180
    hist = np.bincount(angle.astype(int) % 180, weights=length, minlength=180)
    smooth = sum(np.roll(hist, s) * w for s, w in ((-2, 1), (-1, 2), (0, 3), (1, 2), (2, 1)))
    first = int(np.argmax(smooth))
    apart = np.abs((np.arange(180) - first + 90) % 180 - 90)
    second = int(np.argmax(np.where(apart >= 30, smooth, -1)))
    d1 = np.abs((angle - first + 90) % 180 - 90)
    d2 = np.abs((angle - second + 90) % 180 - 90)
    return (d1 < d2) & (d1 < 25), (d2 <= d1) & (d2 < 25)


def _homogeneous_lines(segments: np.ndarray) -> np.ndarray:
    p1 = np.column_stack([segments[:, 0], segments[:, 1], np.ones(len(segments))])
    p2 = np.column_stack([segments[:, 2], segments[:, 3], np.ones(len(segments))])
    lines = np.cross(p1, p2)
    return lines / np.linalg.norm(lines[:, :2], axis=1, keepdims=True)


def _vanishing_point(seg: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The point the segments' lines meet in (homogeneous; at infinity for parallel
    lines), by RANSAC on pairs then least squares; ``seg`` in normalised coordinates."""
    lines = _homogeneous_lines(seg)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    mid = np.column_stack([(seg[:, 0] + seg[:, 2]) / 2, (seg[:, 1] + seg[:, 3]) / 2])
    direction = np.column_stack([seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1]]) / length[:, None]

    def agreement(point: np.ndarray) -> np.ndarray:
        """The sine of the angle between each segment and the ray to ``point``."""
        to_point = point[:2][None, :] - mid * point[2]
        norm = np.linalg.norm(to_point, axis=1) + 1e-12
        return np.abs(direction[:, 0] * to_point[:, 1] - direction[:, 1] * to_point[:, 0]) / norm

    best, best_score = None, -1.0
    weights = length / length.sum()
    for _ in range(min(200, len(seg) * len(seg))):
        a, b = rng.choice(len(seg), 2, replace=False, p=weights)
        point = np.cross(lines[a], lines[b])
        if np.linalg.norm(point) < 1e-12:
            continue
        point /= np.linalg.norm(point)
        score = float(length[agreement(point) < 0.02].sum())
        if score > best_score:
            best, best_score = point, score
    if best is None:
        best = np.array([direction[0, 0], direction[0, 1], 0.0])
    inliers = agreement(best) < 0.03
    if inliers.sum() >= 2:
        weighted = lines[inliers] * length[inliers, None]
        best = np.linalg.svd(weighted)[2][-1]
    return best / np.linalg.norm(best)


def _rectifier(v1: np.ndarray, v2: np.ndarray) -> np.ndarray:
    """A homography (on normalised coordinates, the origin inside the board) that makes
    the lines through ``v1`` vertical and those through ``v2`` horizontal."""
    horizon = np.cross(v1, v2)
    if abs(horizon[2]) < 1e-6 * np.linalg.norm(horizon[:2]):
        raise NoBoardFound("the lines found do not form a grid (their vanishing line "
                           "crosses the board)")
    horizon = horizon / horizon[2]
    projective = np.array([[1, 0, 0], [0, 1, 0], [horizon[0], horizon[1], 1.0]])
    directions = []
    for v in (v1, v2):
        image = projective @ v
        d = image[:2] / (np.linalg.norm(image[:2]) + 1e-12)
        directions.append(d)
    d_vertical, d_horizontal = directions
    if d_vertical[1] < 0:
        d_vertical = -d_vertical
    if d_horizontal[0] < 0:
        d_horizontal = -d_horizontal
    basis = np.column_stack([d_horizontal, d_vertical])
    if abs(np.linalg.det(basis)) < 0.2:
        raise NoBoardFound("the lines found are nearly parallel: no grid found")
    affine = np.eye(3)
    affine[:2, :2] = np.linalg.inv(basis)
    return affine @ projective


# -- 3. the lattice ----------------------------------------------------------------------

#: Peaks below this share of the tallest are ripple, not lines: they do not count in the
#: tallest peaks' height.
RIPPLE = 0.05


def profile_peaks(profile: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Positions (sub-pixel) and heights of the peaks of ``profile`` at least ``share``
    of the tallest ones (the 90th percentile of the peaks but ripple: between the lines
    of a clean scan the profile ripples with peaks of a hundredth of theirs, ten times
    as many as the lines, and the percentile was one of those, which let the ripple
    pass for lines: a 10x10 board read as 8x9)."""
    smooth = cv2.GaussianBlur(profile.reshape(1, -1).astype(np.float32), (0, 0), 1.2).ravel()
    inner = smooth[1:-1]
    is_peak = (inner >= smooth[:-2]) & (inner > smooth[2:])
    index = np.nonzero(is_peak)[0] + 1
    if index.size == 0:
        return index.astype(np.float64), index.astype(np.float64)
    strength = smooth[index]
    tall = np.percentile(strength[strength >= RIPPLE * strength.max()], 90)
    keep = strength > share * tall
    index, strength = index[keep], strength[keep]
    # Sub-pixel position from a parabola through the peak and its neighbours.
    left, mid, right = smooth[index - 1], smooth[index], smooth[index + 1]
    offset = 0.5 * (left - right) / np.minimum(left - 2 * mid + right, -1e-9)
    return index + np.clip(offset, -0.5, 0.5), strength


#: How far a peak may lie from where the last two predict it, in spacings: the lines of
#: a rectified grid are evenly spaced up to what perspective and the lens leave, which
#: changes a spacing by a few per cent from one line to the next; a board's edge or a
#: table's grain beyond the last line is further off.
RUN_TOLERANCE = 0.15


#: Share of the clear lines' height (the 90th percentile of the peaks) from which a
#: peak counts as a whole line in a run.
WHOLE_PEAK = 0.3


def _runs(positions: np.ndarray, strengths: np.ndarray, min_gap: float
          ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Runs of peaks with nearly even spacing, longest first (a peak missing inside a
    run counts half, a faint one in proportion to its height), as (line positions,
    heights; a missing peak's height is 0): every peak starts a run with each of its
    next few peaks, and a run grows while a peak lies where the last two predict. One
    line of a run may be missing at a time (a row of stones hides it): then the peak
    after it must lie where it is predicted."""
    found: list[tuple[float, float, list[float], list[float]]] = []
    count = len(positions)
    # A peak counts as a whole line from this height on, a fainter one in proportion:
    # the edges of a crowded board's stones make a lattice of faint peaks between the
    # lines, a line longer (half a cell past each outer line), which outnumbered the
    # lines (a 10x10 screen board read as 5x7).
    whole = WHOLE_PEAK * float(np.percentile(strengths, 90))
    for a in range(count):
        for b in range(a + 1, min(count, a + 5)):
            step = positions[b] - positions[a]
            if step < min_gap:
                continue
            run = [float(positions[a]), float(positions[b])]
            height = [float(strengths[a]), float(strengths[b])]
            for direction in (1, -1):
                while True:
                    last, before = (run[-1], run[-2]) if direction == 1 else (run[0], run[1])
                    gap = last - before
                    grown = []
                    for ahead in (1, 2):
                        target = last + ahead * gap
                        near = int(np.argmin(np.abs(positions - target)))
                        if abs(positions[near] - target) <= RUN_TOLERANCE * abs(gap):
                            grown = [(float(positions[near]), float(strengths[near]))]
                            if ahead == 2:  # the line between is hidden
                                grown.insert(0, ((last + positions[near]) / 2, 0.0))
                            break
                        if ahead == 1 and (min(height[-2:]) == 0 if direction == 1
                                           else min(height[:2]) == 0):
                            break  # no two lines missing in a row
                    if not grown or any(abs(p - q) < 0.5 * abs(gap) for p, _ in grown
                                        for q in run):
                        break
                    for place, value in grown:
                        if direction == 1:
                            run.append(place)
                            height.append(value)
                        else:
                            run.insert(0, place)
                            height.insert(0, value)
            # A run started on an uneven pair (a board's edge and the last line) keeps
            # that pair: drop an end whose spacing is not its neighbour's.
            while len(run) > 3 and abs((run[1] - run[0]) - (run[2] - run[1])) > \
                    RUN_TOLERANCE * abs(run[2] - run[1]):
                del run[0], height[0]
            while len(run) > 3 and abs((run[-1] - run[-2]) - (run[-2] - run[-3])) > \
                    RUN_TOLERANCE * abs(run[-2] - run[-3]):
                del run[-1], height[-1]
            heights = np.array(height)
            seen = heights > 0
            counted = np.minimum(heights[seen] / whole, 1.0).sum()
            found.append((float(counted) + 0.5 * float((~seen).sum()),
                          float(heights[seen].mean()), run, height))
    found.sort(key=lambda item: (-item[0], -item[1]))
    return [(np.array(run), np.array(height)) for _, _, run, height in found]


def lattice_run(profile: np.ndarray, min_gap: float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The grid lines' positions in a projection: the longest even run of the clear
    peaks, carried on at both ends through faint ones (lines that stones hide for most
    of their length); the faint peaks themselves and the heights of the run's peaks
    (for :func:`_variants`)."""
    positions, strengths = profile_peaks(profile, 0.25)
    if len(positions) < MIN_LINES:
        return None
    runs = _runs(positions, strengths, min_gap)
    if not runs or len(runs[0][0]) < MIN_LINES:
        return None
    run, height = (list(values) for values in runs[0])
    faint, faint_height = profile_peaks(profile, 0.05)
    for grow in (1, -1):
        while True:
            last, before = (run[-1], run[-2]) if grow == 1 else (run[0], run[1])
            target = 2 * last - before
            k = int(np.argmin(np.abs(faint - target)))
            if abs(faint[k] - target) > 0.12 * abs(last - before):
                break
            if grow == 1:
                run.append(float(faint[k]))
                height.append(float(faint_height[k]))
            else:
                run.insert(0, float(faint[k]))
                height.insert(0, float(faint_height[k]))
    return np.array(run), faint, np.array(height)


#: Below this ratio of the mean heights of a run's two halves (every other peak), the
#: weaker half may be the edges of rows of stones rather than lines.
HALVES_APART = 0.6


def _variants(run: np.ndarray, faint: np.ndarray, height: np.ndarray) -> list[np.ndarray]:
    """The run, then the other lattices it may be mistaken for: every line of a crowded
    board whose every other line the stones hide (a faint peak halfway in nearly every
    gap), and every other peak of a run that took the edges of rows of stones for lines
    (only where one half of its peaks is clearly weaker than the other: a board's lines
    are all alike)."""
    found = [run]
    dense = _dense(run, faint)
    if dense is not None:
        found.append(dense)
    if len(run) >= 2 * MIN_LINES - 1:
        even, odd = float(height[0::2].mean()), float(height[1::2].mean())
        if min(even, odd) < HALVES_APART * max(even, odd):
            found += [run[0::2], run[1::2]]
    return found


def _dense(run: np.ndarray, faint: np.ndarray) -> np.ndarray | None:
    """Every line of a crowded board whose every other line the stones hide: the
    ``run`` and the middles of its gaps, where a ``faint`` peak lies halfway in nearly
    every gap (None where not)."""
    middles = (run[:-1] + run[1:]) / 2
    near = np.abs(faint[None, :] - middles[:, None]).min(axis=1) < 0.12 * np.diff(run)
    if near.mean() < 0.8:
        return None
    dense = np.empty(2 * len(run) - 1)
    dense[0::2], dense[1::2] = run, middles
    return dense


def _borrowed(faint: np.ndarray, other: np.ndarray) -> list[np.ndarray]:
    """A lattice with the other family's spacing (a board seen from straight above has
    square cells), through the faint peaks that fit it: for crowded boards whose stones
    hide one family's lines too much to space them."""
    step = float(np.median(np.diff(other)))
    best: list[float] = []
    for anchor in faint:
        run = [float(anchor)]
        for grow in (1, -1):
            while True:
                target = (run[-1] if grow == 1 else run[0]) + grow * step
                near = faint[np.argmin(np.abs(faint - target))]
                if abs(near - target) > 0.12 * step:
                    break
                if grow == 1:
                    run.append(float(near))
                else:
                    run.insert(0, float(near))
        if len(run) > len(best):
            best = run
    return [np.array(best)] if len(best) >= MIN_LINES else []


def strokes_along(lines: np.ndarray, vertical: bool, length: int) -> np.ndarray:
    """The strokes of a line map that run at least ``length`` pixels along one axis
    (down the picture if ``vertical``, else across it)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (1, length) if vertical else (length, 1))
    return cv2.morphologyEx(lines, cv2.MORPH_OPEN, kernel)


# -- 4. the fit --------------------------------------------------------------------------

def _fit(points: np.ndarray, index: np.ndarray, vertical: np.ndarray, weights: np.ndarray
         ) -> np.ndarray:
    """The homography from (undistorted) pixels to lattice coordinates that puts each
    point on its line (``u = index`` for vertical lines, ``v = index`` otherwise), by
    weighted linear least squares with Hartley normalisation."""
    mean = points.mean(axis=0)
    spread = np.sqrt(((points - mean) ** 2).sum(axis=1).mean()) / math.sqrt(2) + 1e-9
    norm = np.array([[1 / spread, 0, -mean[0] / spread], [0, 1 / spread, -mean[1] / spread],
                     [0, 0, 1]])
    q = np.column_stack([(points - mean) / spread, np.ones(len(points))])
    rows = np.zeros((len(points), 9))
    target = -index[:, None] * q
    rows[vertical, 0:3] = q[vertical]
    rows[~vertical, 3:6] = q[~vertical]
    rows[:, 6:9] = target
    # The smallest eigenvector of the 9x9 normal matrix: the least-squares solution.
    normal = (rows * weights[:, None]).T @ rows
    solution = np.linalg.eigh(normal)[1][:, 0]
    return solution.reshape(3, 3) @ norm


def _residuals(matrix: np.ndarray, points: np.ndarray, index: np.ndarray,
               vertical: np.ndarray) -> np.ndarray:
    q = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    u, v = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
    return np.where(vertical, u, v) - index


@dataclass
class _Model:
    matrix: np.ndarray
    k1: float
    lines_x: int
    lines_y: int


def _observe(lines: np.ndarray, grid: Grid, window: float) -> tuple[np.ndarray, ...]:
    """Points of the line map near each predicted line: (points, index, vertical)."""
    cell = 16
    canvas = grid.warp(lines, cell, margin=0.5, outside=0.0)  # no line beyond the picture
    reach = max(2, round(window * cell))
    found_points, found_index, found_vertical, found_value = [], [], [], []
    for vertical, count, other in ((True, grid.lines_x, grid.lines_y),
                                   (False, grid.lines_y, grid.lines_x)):
        along = np.arange(int(0.5 * cell), int((other - 0.5) * cell) + 1, 2)
        offset_from_cross = np.abs(((along / cell) - 0.5) - np.round(along / cell - 0.5))
        along = along[offset_from_cross > 0.18]
        for i in range(count):
            centre = round((i + 0.5) * cell)
            low, high = max(0, centre - reach), centre + reach + 1
            band = canvas[along, low:high] if vertical else canvas[low:high, along].T
            if band.shape[1] < 3:
                continue
            best = np.argmax(band, axis=1)
            across = (low + best).astype(np.float64)
            lengthwise = along.astype(np.float64)
            cx, cy = (across, lengthwise) if vertical else (lengthwise, across)
            x, y = grid.image_points(cx / cell - 0.5, cy / cell - 0.5)
            found_points.append(np.column_stack([x, y]))
            found_index.append(np.full(len(x), float(i)))
            found_vertical.append(np.full(len(x), vertical))
            found_value.append(band[np.arange(len(along)), best])
    if not found_points:
        return np.zeros((0, 2)), np.zeros(0), np.zeros(0, bool)
    value = np.concatenate(found_value)
    keep = value > 0.3 * np.median(value)  # a line, not a stone's face or the board
    return (np.concatenate(found_points)[keep], np.concatenate(found_index)[keep],
            np.concatenate(found_vertical)[keep])


def _refine(lines: np.ndarray, grid: Grid) -> Grid:
    centre, norm = grid.centre, grid.norm
    # The distortion is searched coarsely first, then around the best value so far.
    candidates = np.linspace(-0.16, 0.12, 8)
    for window, step in ((0.35, 0.02), (0.25, 0.01), (0.15, 0.0)):
        points, index, vertical = _observe(lines, grid, window)
        if len(points) < 20 or min(np.unique(index[vertical == family]).size
                                    for family in (True, False)) < 2:
            # Too few points, or of too few lines, to place a grid by (a console
            # board's glyphs, fitted so, gave a singular homography, and the reader
            # failed).
            return grid
        best: tuple[float, np.ndarray, float] | None = None
        for k1 in candidates:
            ux, uy = _undistort(points[:, 0], points[:, 1], float(k1), centre, norm)
            undistorted = np.column_stack([ux, uy])
            weights = np.ones(len(points))
            for _ in range(3):  # reweighted: far points count less (stones, noise)
                matrix = _fit(undistorted, index, vertical, weights)
                residual = np.abs(_residuals(matrix, undistorted, index, vertical))
                weights = 1 / np.maximum(residual, 0.03)
            score = float(np.minimum(residual, 0.15).mean())
            if best is None or score < best[0]:
                best = (score, matrix, float(k1))
        assert best is not None
        # No lens stays a candidate: the coarse window may take in a frame beside the
        # outer lines and bend the fit (a flat screenshot, its board framed 0.4 cell
        # out, was fitted with k1 -0.17), and the finer windows searched only near it.
        candidates = np.unique([best[2] - step, best[2], best[2] + step, 0.0])
        grid = Grid(grid.lines_x, grid.lines_y, best[1] / best[1][2, 2], best[2], centre, norm,
                    best[0])
    return grid


#: How far (cells) a grid fitted to the lines may move its corners from where they were
#: given: beyond it, the lines it found are not the grid's.
FIT_REACH = 0.5
#: Above this residual (how far its line points lie from its lines on average, in cells)
#: a fit may be to stones' edges rather than to lines: 0.0003 to 0.04 on the committed
#: samples, 0.08 on a board whose lines are erased, but 0.06 to 0.08 on photographs of
#: crowded boards too, whose lines the stones hide.
FIT_RESIDUAL = 0.05


def fit_to_lines(gray: np.ndarray, grid: Grid, dark_lines: bool) -> Grid:
    """``grid`` fitted to the lines of ``dark_lines`` near it in ``gray`` (float32, the
    working resolution), as a grid found is (its lens too): a grid set by hand from
    corners clicked a few pixels off (a tenth of a cell off read 4 stones wrong on a
    photo). The grid as given where the fit finds too few lines or moves a corner
    further than :data:`FIT_REACH`; the fit's ``residual`` says how well the lines found
    fit it (:data:`FIT_RESIDUAL`)."""
    fitted = _refine(line_map(gray, dark_lines), grid)
    u = np.array([0.0, grid.lines_x - 1.0, grid.lines_x - 1.0, 0.0])
    v = np.array([0.0, 0.0, grid.lines_y - 1.0, grid.lines_y - 1.0])
    moved = np.hypot(*(np.subtract(fitted.image_points(u, v), grid.image_points(u, v))))
    return grid if moved.max() > FIT_REACH * grid.cell_pixels() else fitted


# -- putting it together -----------------------------------------------------------------

def oriented(grid: Grid) -> Grid:
    """Relabel the lattice so that ``u`` grows to the right and ``v`` downwards in the
    picture (of the eight ways to number a grid, the one closest to the picture's
    axes)."""
    u0, v0 = (grid.lines_x - 1) / 2, (grid.lines_y - 1) / 2
    x, y = grid.image_points(np.array([u0, u0 + 1, u0]), np.array([v0, v0, v0 + 1]))
    du = np.array([x[1] - x[0], y[1] - y[0]])
    dv = np.array([x[2] - x[0], y[2] - y[0]])
    lines_x, lines_y = grid.lines_x, grid.lines_y
    relabel = np.eye(3)
    if abs(du[0]) < abs(dv[0]):  # u runs down the picture: swap the axes
        relabel = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1.0]])
        du, dv = dv, du
        lines_x, lines_y = lines_y, lines_x
    flip = np.eye(3)
    if du[0] < 0:
        flip = np.array([[-1, 0, lines_x - 1], [0, 1, 0], [0, 0, 1.0]]) @ flip
    if dv[1] < 0:
        flip = np.array([[1, 0, 0], [0, -1, lines_y - 1], [0, 0, 1.0]]) @ flip
    matrix = flip @ relabel @ grid.to_lattice
    return Grid(lines_x, lines_y, matrix / matrix[2, 2], grid.k1, grid.centre, grid.norm,
                grid.residual)


@dataclass(frozen=True)
class _Reach:
    """How one family's bands are crossed, in the rectified view: ``bands[k, j]`` is the
    mean response of the other family's line ``j`` across band ``k`` (a half band
    before the first line, the bands between neighbouring lines, a half band after the
    last; -1 outside the view); ``arms[i, j]`` is line ``i``'s own response beside its
    crossing with line ``j`` (its stronger arm there: a stone on the point hides both)."""

    bands: np.ndarray
    arms: np.ndarray


def _reach(lines_h: np.ndarray, lines_v: np.ndarray, xs: np.ndarray, ys: np.ndarray
           ) -> tuple[_Reach, _Reach]:
    """How the bands between the vertical lines ``xs`` are crossed, and those between
    the horizontal lines ``ys`` (``lines_h``, ``lines_v``: each family's line map)."""
    def bands(positions: np.ndarray, other: np.ndarray, crossing: np.ndarray,
              own: np.ndarray, vertical: bool) -> _Reach:
        gap = float(np.median(np.diff(positions)))
        edges = [positions[0] - 0.55 * gap, *positions, positions[-1] + 0.55 * gap]
        rows = np.clip(np.round(other).astype(int), 0, crossing.shape[0 if vertical else 1] - 1)
        values = np.full((len(edges) - 1, len(other)), -1.0)  # -1: outside the view
        limit = crossing.shape[1 if vertical else 0]
        for k, (a, b) in enumerate(itertools.pairwise(edges)):
            lo, hi = round(a + 0.2 * (b - a)), round(b - 0.2 * (b - a))
            lo, hi = max(lo, 0), min(hi, limit)
            if hi > lo:
                part = crossing[rows, lo:hi] if vertical else crossing[lo:hi, rows].T
                values[k] = part.mean(axis=1)
        # A line's arms: from 0.15 to 0.45 of a spacing either side of each crossing,
        # within two pixels of where the line should be.
        widened = cv2.dilate(own, np.ones((1, 5) if vertical else (5, 1), np.uint8))
        if not vertical:
            widened = widened.T
        columns = np.clip(np.round(positions).astype(int), 0, widened.shape[1] - 1)
        other_gap = float(np.median(np.diff(other)))
        arms = np.zeros((len(positions), len(other)))
        for j, place in enumerate(other):
            for sign in (1, -1):
                a, b = sorted((round(place + sign * 0.15 * other_gap),
                               round(place + sign * 0.45 * other_gap)))
                a, b = max(a, 0), min(b, widened.shape[0])
                if b > a:
                    arms[:, j] = np.maximum(arms[:, j], widened[a:b, columns].mean(axis=0))
        return _Reach(values, arms)
    return bands(xs, ys, lines_h, lines_v, True), bands(ys, xs, lines_v, lines_h, False)


def _trim(xs: np.ndarray, reach: _Reach) -> tuple[int, int]:
    """How many lines to drop at each end: an outer line beyond a band that is a
    margin (:func:`_outer_margin`) is an edge or a frame, not the grid (a crowded edge
    column of a screen board was trimmed as a margin before the rule asked where the
    line inside the band shows)."""
    means = reach.bands.mean(axis=1)
    inner = float(np.median(means[1:-1])) if len(means) > 2 else 0.0
    typical_arm = float(np.median(np.percentile(reach.arms, 75, axis=1)))

    def margin(band: int, line: int) -> bool:
        return _outer_margin(reach.bands[band], reach.arms[line], typical_arm, inner,
                             RECTIFIED_MARGIN_REACH, np.mean)

    start, end = 0, len(xs)
    while end - start > MIN_LINES and margin(start + 1, start + 1):
        start += 1
    while end - start > MIN_LINES and margin(end - 1, end - 2):
        end -= 1
    return start, end


#: A lattice's lines before the trim in the rectified view, and whether it cut each.
_Untrimmed = tuple[np.ndarray, np.ndarray, bool, bool]


class _Judged(NamedTuple):
    """A lattice fitted and judged by its crossings."""

    share: float  # of its inner crossings, T-junctions
    worst: float  # that share two standard errors up
    partial: int  # T-junctions
    crossed: int  # inner crossings
    grid: Grid
    untrimmed: _Untrimmed  # the lattice before the rectified trim, whether it cut each family


def find_grid(gray: np.ndarray, lines: np.ndarray, dark_lines: bool = True, seed: int = 0,
              segments: np.ndarray | None = None) -> Grid:
    """The grid of a board in ``gray`` (float32, 0-255, the working resolution), whose
    line map (:func:`line_map`) of ``dark_lines`` is ``lines`` and its
    :func:`line_segments` ``segments`` (found here if not given).

    :raises NoBoardFound: no two families of at least 5 evenly spaced lines.
    :raises BoardCutOff: the grid runs off the picture.
    """
    if segments is None:
        segments = line_segments(lines)
    if len(segments) < 2 * MIN_LINES:
        raise NoBoardFound("no grid lines in the picture", stage=0)
    first, second = _families(segments)
    if first.sum() < 3 or second.sum() < 3:
        raise NoBoardFound("the lines in the picture do not cross as a grid's do")
    rng = np.random.default_rng(seed)
    # Normalised coordinates: the origin amid the segments, unit about the picture.
    scale = float(max(gray.shape))
    middle = np.concatenate([segments[:, :2], segments[:, 2:]]).mean(axis=0)
    normalise = np.array([[1 / scale, 0, -middle[0] / scale],
                          [0, 1 / scale, -middle[1] / scale], [0, 0, 1.0]])
    unit = np.column_stack([(segments[:, :2] - middle) / scale, (segments[:, 2:] - middle) / scale])
    v1 = _vanishing_point(unit[first], rng)
    v2 = _vanishing_point(unit[second], rng)
    # v1's lines are the vertical family if they are the steeper ones.
    s1, s2 = segments[first], segments[second]
    steep1 = np.median(np.abs(s1[:, 3] - s1[:, 1]) / (np.abs(s1[:, 2] - s1[:, 0]) + 1e-9))
    steep2 = np.median(np.abs(s2[:, 3] - s2[:, 1]) / (np.abs(s2[:, 2] - s2[:, 0]) + 1e-9))
    if steep1 < steep2:
        v1, v2 = v2, v1
    rectify = _rectifier(v1, v2) @ normalise
    # Frame the rectified view on the segments of both families.
    used = segments[first | second]
    ends = np.concatenate([used[:, :2], used[:, 2:]])
    moved = cv2.perspectiveTransform(ends[None].astype(np.float64), rectify)[0]
    low, high = np.percentile(moved, 1, axis=0), np.percentile(moved, 99, axis=0)
    span = high - low
    if min(span) <= 0:
        raise NoBoardFound("no grid found")
    size = 1100.0
    zoom = size / max(span)
    frame = np.array([[zoom, 0, -(low[0] - 0.05 * span[0]) * zoom],
                      [0, zoom, -(low[1] - 0.05 * span[1]) * zoom], [0, 0, 1.0]])
    view = frame @ rectify
    out_size = (int(span[0] * zoom * 1.1) + 1, int(span[1] * zoom * 1.1) + 1)
    flat = cv2.warpPerspective(lines, view, out_size, flags=cv2.INTER_LINEAR)
    run = int(size / 60)
    vertical_lines = strokes_along(flat, True, run)
    horizontal_lines = strokes_along(flat, False, run)
    min_gap = size / (MAX_LINES * 1.5)
    found_x = lattice_run(vertical_lines.sum(axis=0), min_gap)
    found_y = lattice_run(horizontal_lines.sum(axis=1), min_gap)
    if found_x is None or found_y is None:
        raise NoBoardFound("no grid of at least 5 by 5 evenly spaced lines in the picture")
    height, width = gray.shape

    def fitted(xs: np.ndarray, ys: np.ndarray) -> Grid | None:
        """The grid through the rectified view's lines ``xs`` and ``ys``, fitted."""
        # The lattice's points in the picture give the first homography.
        grid_u, grid_v = np.meshgrid(np.arange(len(xs)), np.arange(len(ys)))
        flat_points = np.column_stack([xs[grid_u.ravel()], ys[grid_v.ravel()]])
        picture = cv2.perspectiveTransform(flat_points[None], np.linalg.inv(view))[0]
        lattice = np.column_stack([grid_u.ravel(), grid_v.ravel()]).astype(np.float64)
        matrix, _ = cv2.findHomography(picture, lattice)
        if matrix is None:
            return None
        return _refine(lines, Grid(len(xs), len(ys), matrix, 0.0, (width / 2, height / 2),
                                   max(width, height) / 2, 1.0))

    best: _Judged | None = None
    # The lattice found first if its lines cross as a board's do, else the one of its
    # variants whose lines do so best: by the share of T-junctions at worst (two
    # standard errors over it), as a share over a few crossings proves less (a crowded
    # 20x20 board, 37 % of 232 crossings T-junctions, lost to 21x5 lines, 30 % of 46,
    # and was read as 20x19).
    def judged(xs: np.ndarray, ys: np.ndarray) -> _Judged | None:
        """The lattice ``xs`` by ``ys`` trimmed and fitted, with its crossings' count."""
        reach_x, reach_y = _reach(horizontal_lines, vertical_lines, xs, ys)
        (x0, x1), (y0, y1) = _trim(xs, reach_x), _trim(ys, reach_y)
        candidate = fitted(xs[x0:x1], ys[y0:y1])
        if candidate is None:
            return None
        partial, crossed = _t_junctions(lines, gray, dark_lines, candidate)
        share = partial / max(crossed, 1)
        worst = share + 2 * math.sqrt(share * (1 - share) / max(crossed, 1))
        return _Judged(share, worst, partial, crossed, candidate,
                       (xs, ys, x1 - x0 < len(xs), y1 - y0 < len(ys)))

    options_x = [*_variants(*found_x), *_borrowed(found_x[1], found_y[0])]
    options_y = [*_variants(*found_y), *_borrowed(found_y[1], found_x[0])]
    for xs, ys in itertools.product(options_x, options_y):
        option = judged(xs, ys)
        if option is None:
            continue
        if best is None or option.worst < best.worst or option.share < CLEAR_CROSSINGS:
            best = option
        if option.share < CLEAR_CROSSINGS:
            break
    if best is None:
        raise NoBoardFound("no grid found")
    # Every other line of a crowded board, the rest hidden by its stones, crosses as a
    # board's lines do too, at fewer crossings: every line is taken where its crossings
    # are as clear (a 9x9 screen board with 40 stones was read as 5x9, 0 of 9 crossings
    # T-junctions; every line, 0 of 18).
    for family in (0, 1):
        if best.share >= CLEAR_CROSSINGS:
            break
        lattice = list(best.untrimmed[:2])
        dense = _dense(lattice[family], (found_x, found_y)[family][1])
        if dense is None:
            continue
        lattice[family] = dense
        option = judged(*lattice)
        if option is not None and option.share <= best.share:
            best = option
    share, _, partial, crossed, grid, (xs, ys, dropped_x, dropped_y) = best
    if share > MOST_T_JUNCTIONS:
        raise NoBoardFound(f"the lines found meet in T-junctions at {partial} of {crossed} "
                           "crossings, not in crosses: this is no board's grid", stage=2)
    trimmed = _trim_fitted(lines, gray, grid)
    if trimmed is not grid:
        grid = _refine(lines, trimmed)
    # The rectified view keeps the lens's curve: where it bends the lines off their
    # places and stones crowd the rows, the bands there looked bare and the trim in it
    # dropped them (a 15x20 photo under strong pincushion distortion was read as
    # 15x11). The lines it dropped are asked again on the fitted grid, where the lens
    # is undone, and kept where its trim keeps them and they cross as a board's do.
    # Only the family the rectified trim cut may grow: the other's outer lines were
    # the fitted trim's to judge already; and only where the fit found a lens, which is
    # all that the rectified view leaves off (on a screenshot the fitted trim asked on
    # the whole run kept two rows beyond a Piskvork board, read as 20x22).
    if (dropped_x or dropped_y) and grid.k1 != 0.0:
        whole = fitted(xs, ys)
        if whole is not None:
            kept = _trim_fitted(lines, gray, whole)
            grows = (kept.lines_x - grid.lines_x, kept.lines_y - grid.lines_y)
            if (min(grows) >= 0 < max(grows) and (dropped_x or grows[0] == 0)
                    and (dropped_y or grows[1] == 0)):
                kept = _refine(lines, kept)
                partial, crossed = _t_junctions(lines, gray, dark_lines, kept)
                if partial / max(crossed, 1) <= max(share, CLEAR_CROSSINGS):
                    grid = kept
    completed = _complete(lines, gray, dark_lines, grid)
    if completed is not grid:
        # (Lines added on the picture's last pixels are fitted where they are strokes.)
        edges = lines_on_edges(completed, width, height)
        grid = _refine(line_map(gray, dark_lines, padded=edges) if edges else lines, completed)
    grid = oriented(grid)
    try:
        # (An outer line on the picture's last pixels is in it: a screenshot of a
        # board drawn in cells may end there; or just past them, where it is the edge
        # of a window filled by its board, a cell from the next line: FILLED_EDGE.)
        check_margin(grid, width, height, -OUTER_LINE_PAST)
    except BoardCutOff:
        # Lines all over, running off every side: text, fabric.
        if len(sides_out(grid, width, height, -OUTER_LINE_PAST)) == 4:
            raise NoBoardFound("the lines found run off the picture on every side: no board "
                               "in it", stage=2) from None
        raise
    return grid


def _beyond(lines: np.ndarray, grid: Grid) -> dict[str, tuple[float, float, bool]]:
    """For each side of the grid: how strongly the other family's lines run on past the
    outer line (relative to just inside it), how much of that band is in the picture
    (0 to 1), and whether they run on as a board drawn in tiles does (Piskvork): each to
    the tile's edge, half a cell, and no further."""
    cell = 16
    canvas = grid.warp(lines, cell, margin=1.0, outside=-1.0)
    flat = flat_grid(grid)
    rows = [round((j + 1) * cell) for j in range(grid.lines_y)]
    cols = [round((i + 1) * cell) for i in range(grid.lines_x)]

    def band(across: list[int], lo: float, hi: float, vertical_band: bool) -> np.ndarray:
        """Per line of the other family: its median response along the band (a line
        that runs on covers the whole band; a label beside the grid only part of it),
        or -1 where the band is mostly outside the picture."""
        a, b = round(lo * cell), round(hi * cell)
        found = []
        for c in across:
            part = canvas[c - 1:c + 2, a:b] if vertical_band else canvas[a:b, c - 1:c + 2].T
            strongest = part.max(axis=0)
            seen = strongest >= 0
            found.append(float(np.median(strongest[seen])) if seen.mean() > 0.5 else -1.0)
        return np.array(found)

    last_x, last_y = grid.lines_x, grid.lines_y  # canvas lattice units: line i at i + 1
    # side: (crossing lines, the band beyond, the band inside, the near and far halves
    # of the next cell, whether the band stands upright, crossed by the rows)
    spans = {"left": (rows, (0.2, 0.8), (1.2, 1.8), (0.55, 0.95), (0.05, 0.45), True),
             "right": (rows, (last_x + 0.2, last_x + 0.8), (last_x - 0.8, last_x - 0.2),
                       (last_x + 0.05, last_x + 0.45), (last_x + 0.55, last_x + 0.95), True),
             "top": (cols, (0.2, 0.8), (1.2, 1.8), (0.55, 0.95), (0.05, 0.45), False),
             "bottom": (cols, (last_y + 0.2, last_y + 0.8), (last_y - 0.8, last_y - 0.2),
                        (last_y + 0.05, last_y + 0.45), (last_y + 0.55, last_y + 0.95),
                        False)}
    # The half cell inside each outer line, where the lines that reach it run.
    reaching_spans = {"left": (1.05, 1.45), "right": (last_x - 0.45, last_x - 0.05),
                      "top": (1.05, 1.45), "bottom": (last_y - 0.45, last_y - 0.05)}
    found = {}
    for side, (across, beyond, within, near, far, vertical_band) in spans.items():
        out = band(across, *beyond, vertical_band)
        if flat:
            # On a screenshot, what lines running on have over the strokes halfway
            # between them: the text of a window's status bar is strokes everywhere.
            halfway = [c + cell // 2 for c in across[:-1]] + [across[-1] - cell // 2]
            between = np.maximum(band(halfway, *beyond, vertical_band), 0.0)
            out = np.where(out >= 0, np.maximum(out - between, 0.0), out)
        inside = band(across, *within, vertical_band)
        seen = out >= 0
        strength_in = float(inside[inside >= 0].mean()) if (inside >= 0).any() else 0.0
        strength_out = float(out[seen].mean()) if seen.any() else 0.0
        near_half = band(across, *near, vertical_band)
        far_half = band(across, *far, vertical_band)
        # Both halves in the picture: where the picture ends half a cell past the last
        # line, it may end a board drawn in tiles or cut any board off; refuse it then.
        reaching = band(across, *reaching_spans[side], vertical_band)
        tiles = bool((near_half >= 0).all() and (far_half >= 0).all()
                     and _half_way(near_half, far_half, reaching, strength_in, flat))
        found[side] = (strength_out / max(strength_in, 1e-6), float(seen.mean()), tiles)
    return found


def _half_way(near: np.ndarray, far: np.ndarray, reaching: np.ndarray, strength: float,
              flat: bool) -> bool:
    """Whether crossing lines run on as on a board drawn in tiles (Piskvork): each to
    its tile's edge, through the ``near`` half of a cell and not the ``far`` one (their
    responses per crossing line), against the ``strength`` of lines inside the grid.
    On a ``flat`` picture (:func:`flat_grid`, a screenshot) only the lines that reach the
    outer line (``reaching``: their responses in the half cell inside it) are asked to
    run on: a stone on the outer line hides a line on both sides of it. (On a photo,
    where the fit leaves an outer line a little off, that let a board's margin pass
    for tiles.)"""
    reach = reaching > 0.7 * strength
    if flat and 2 * reach.sum() >= max(len(reach), MIN_LINES):  # half of them at least
        near = near[reach]
    return bool(np.percentile(near, 25) > 0.7 * strength
                and np.percentile(far, 75) < MARGIN_REACH * strength)


def flat_grid(grid: Grid) -> bool:
    """Whether the grid lies flat and square in the picture, every cell the same size
    and its lines along the picture's axes, as on a screenshot (not a photo or a
    scan)."""
    corners_u = np.array([0.0, grid.lines_x - 2.0, 0.0, grid.lines_x - 2.0])
    corners_v = np.array([0.0, 0.0, grid.lines_y - 2.0, grid.lines_y - 2.0])
    x0, y0 = grid.image_points(corners_u, corners_v)
    xu, yu = grid.image_points(corners_u + 1, corners_v)
    xv, yv = grid.image_points(corners_u, corners_v + 1)
    across, down = np.hypot(xu - x0, yu - y0), np.hypot(xv - x0, yv - y0)
    skew = np.maximum(np.abs(yu - y0) / across, np.abs(xv - x0) / down)
    return bool(skew.max() < FLAT_SKEW and np.ptp(across) < FLAT_SIZE * across.mean()
                and np.ptp(down) < FLAT_SIZE * down.mean())


#: A flat grid's lines lean off the picture's axes by less than this (a tangent), and
#: its cells differ in size by less than this share.
FLAT_SKEW, FLAT_SIZE = 0.02, 0.03


#: An outer band of the fitted grid whose crossing lines reach less than this share of
#: the inner bands' is a board's margin: the line beyond it is the board's edge or the
#: grain of its wood, not a grid line.
MARGIN_REACH = 0.4
#: The same in the rectified view (:func:`_trim`), where the crossing lines' mean
#: reach counts.
RECTIFIED_MARGIN_REACH = 0.35


def _band_reach(canvas: np.ndarray, count: int, across: int, vertical: bool,
                cell: int, span: tuple[float, float] = (0.2, 0.8), shift: float = 0.0
                ) -> np.ndarray:
    """For each band between two neighbouring lines of one family on a fitted canvas
    (line ``i`` at ``(i + 1) * cell``) and each of the other family's ``across`` lines,
    how strongly that line runs through the ``span`` of the band (fractions of a cell
    from its first line; by default its middle): its median response there; or, with
    ``shift``, the response that far (in cells) past each of those lines. Shape
    ``(count - 1, across)``."""
    found = np.empty((count - 1, across))
    for k in range(count - 1):
        a, b = round((k + 1 + span[0]) * cell), round((k + 1 + span[1]) * cell)
        for line in range(across):
            c = round((line + 1 + shift) * cell)
            part = canvas[c - 1:c + 2, a:b] if vertical else canvas[a:b, c - 1:c + 2].T
            found[k, line] = float(np.median(part.max(axis=0)))
    return found


def _trim_fitted(lines: np.ndarray, gray: np.ndarray, grid: Grid) -> Grid:
    """The grid without outer lines that are no board's lines, measured on the fitted
    grid (perspective and lens undone, so a line that stops at the last grid line leaks
    nothing into the band beyond it): :func:`_loose_sides`."""
    while True:
        loose = _loose_sides(lines, gray, grid)
        if not loose:
            return grid
        grid = _resize(grid, loose[0], -1)


def _loose_sides(lines: np.ndarray, gray: np.ndarray, grid: Grid) -> list[str]:
    """The sides of ``grid`` whose outer line is no board's line: the other family does
    not reach it (the board's edge, the grain of its margin: the strongest quarter of
    the band's crossing lines counts, so that a row of stones along an edge, which
    hides most of them, does not make a band look empty); or the other family runs on
    only half way to it, as on a board drawn in tiles (Piskvork's skins run every line
    to the tile's edge, and the band from there to a bar of the window is no cell); or
    it does not run on itself between the other family's lines (a row of coordinates a
    cell from the outer line, in steps as even as the lines': its digits stand
    apart). None of these where the outer line has a bare point: a crossing line runs
    on to it and it runs on beside it, in long strokes (stones crowding the outer rows
    hide the rest)."""
    cell = 16
    canvas = grid.warp(lines, cell, margin=1.0)
    board = grid.warp(gray, cell, margin=1.0)
    flat = flat_grid(grid)
    first, second = (0.05, 0.45), (0.55, 0.95)  # the halves of a band
    counts = {True: (grid.lines_x, grid.lines_y), False: (grid.lines_y, grid.lines_x)}
    reach = {(vertical, span): _band_reach(canvas, *counts[vertical], vertical, cell, span)
             for vertical in (True, False) for span in ((0.2, 0.8), first, second)}
    between = {(vertical, span): _band_reach(canvas, *counts[vertical], vertical, cell, span,
                                             shift=0.5)[:, :-1]
               for vertical in (True, False) for span in (first, second)}
    # A line's own stretches are measured where only strokes along it are left: the
    # digits of a row of coordinates are no longer than a third of a cell.
    runs_canvas = {vertical: strokes_along(canvas, vertical, LABEL_STROKE)
                   for vertical in (True, False)}
    own = {vertical: _band_reach(runs_canvas[not vertical], *counts[vertical], vertical, cell)
           for vertical in (True, False)}
    # Per family: each band's reach, the typical band's, and each line's own stretches.
    bands = {vertical: np.percentile(reach[vertical, (0.2, 0.8)], 75, axis=1)
             for vertical in (True, False)}
    typicals = {vertical: float(np.median(bands[vertical])) for vertical in (True, False)}
    runs_of = {vertical: np.percentile(own[vertical], 75, axis=0) for vertical in (True, False)}
    # Each line's response beside each crossing (its stronger arm there), from the other
    # family's half bands: a stone on a point hides both arms.
    arms = {vertical: _arms(reach[not vertical, first], reach[not vertical, second])
            for vertical in (True, False)}
    # How long strokes (no digit's is that long) cross each half band, and each line's
    # own beside each crossing.
    long_reach = {(vertical, span): _band_reach(runs_canvas[not vertical], *counts[vertical],
                                                vertical, cell, span)
                  for vertical in (True, False) for span in (first, second)}
    long_arms = {vertical: _arms(long_reach[not vertical, first],
                                 long_reach[not vertical, second], both=True)
                 for vertical in (True, False)}
    loose = []
    for name, vertical, edge, outer_half, inner_half in (
            ("left", True, 0, first, second), ("right", True, -1, second, first),
            ("top", False, 0, first, second), ("bottom", False, -1, second, first)):
        if counts[vertical][0] <= MIN_LINES:
            continue
        typical = typicals[vertical]
        near, far = reach[vertical, inner_half][edge], reach[vertical, outer_half][edge]
        # The half band inside the next line, next to it: where the lines reaching it run.
        reaching = reach[vertical, outer_half][1 if edge == 0 else -2]
        # A bare point of the outer line, where a crossing line runs on through the
        # band's outer half to it and it runs on beside it on both sides, in long
        # strokes (no digit's, no tile's edge, no margin's grain; no letter's bar, which
        # runs on one side of its stem: a row of letters as large as half a cell, a
        # cell above a phone's board, was read as its 16th line), tells a line. Not the
        # whole band: where stones crowd the next line too, one on its point hides the
        # inner half (a 9x9 photo with 56 stones, both outer rows nearly full, was read
        # as 9x7).
        runs = runs_of[not vertical]
        bare_point = ((long_reach[vertical, outer_half][edge]
                       > 0.7 * np.median(runs_of[vertical]))
                      & (long_arms[vertical][:, edge] > LINE_SEEN * np.median(runs)))
        # (A crowded edge of a screen board was trimmed, 9x9 read as 8x9, before the
        # rule asked where the next line inside shows.)
        margin = not bare_point.any() and _outer_margin(
            reach[vertical, (0.2, 0.8)][edge], arms[vertical][:, 1 if edge == 0 else -2],
            typicals[not vertical], typical, MARGIN_REACH, _upper_quartile)
        # Tiles' lines stop half way at every crossing line; a row of stones on a
        # crowded outer line hides most of its band's outer half the same way (a 15x15
        # screen board with 12 stones on its bottom line was read as 15x14).
        tiles = _half_way(near, far, reaching, typical, flat) and not bare_point.any()
        # The outer line's own stretches, between the other family's lines: nothing
        # between a row of coordinates' digits. Stones on the line's points hide it as
        # well, but not at a bare point (a crowded edge column of a screen board was
        # read as coordinates, 10x10 as 9x10).
        labels = runs[edge] < LABEL_RUNS * np.median(runs) and not bare_point.any() \
            and not _colour_edge(board, grid, name, cell)
        # A window's toolbar past the tiles of a screenshot: the lines run into the
        # band's inner half (at half of them at least: stones on the next line hide
        # the rest, a quarter on a crowded 20x20 board read as 20x21); its icons put
        # strokes on the places of some lines and between others, but at most of both
        # the far half is bare (where a row of stones along a real outer line would
        # stand); and no line runs along it, or it is not the board's colour.
        bare = max(np.median(far), np.median(between[vertical, outer_half][edge]))
        toolbar = bool(flat and np.median(near) > 0.7 * typical
                       and bare < MARGIN_REACH * typical
                       and (runs[edge] < TOOLBAR_RUNS * np.median(runs)
                            or _other_colour(board, grid, name, cell)))
        if margin or tiles or labels or toolbar:
            loose.append(name)
    return loose


def _outer_margin(crossing: np.ndarray, inner_arms: np.ndarray, typical_arm: float,
                  typical: float, reach: float, statistic: Callable[[np.ndarray], float]
                  ) -> bool:
    """Whether an outer band is a board's margin, in both trims (:func:`_trim`,
    :func:`_loose_sides`): the other family's lines (``crossing``: each one's response
    across the band) reach it less than ``reach`` of the ``typical`` band's; unless they
    cross it as the inner bands are crossed (:data:`CROSSED`) at the crossings where
    the next line inside shows (``inner_arms``: its response beside each crossing, seen
    from :data:`LINE_SEEN` of ``typical_arm``): a stone on that line's point hides the
    band beside it too, and on a crowded board the stones along the edge hide most of
    the band. ``statistic`` sums up a set of responses."""
    shown = crossing[inner_arms > LINE_SEEN * typical_arm]
    return bool(statistic(crossing) < reach * typical
                and not (shown.size and statistic(shown) >= CROSSED * typical))


def _upper_quartile(values: np.ndarray) -> float:
    """The strongest quarter's start: a row of stones along an edge, which hides most
    of the lines crossing a band, does not make the band look empty."""
    return float(np.percentile(values, 75))


def _arms(first: np.ndarray, second: np.ndarray, both: bool = False) -> np.ndarray:
    """Each line's response beside each crossing with the other family, the stronger of
    its two arms there (with ``both``, the weaker: the only one at the first and last
    crossings), shape ``(crossing lines, lines)``: ``first`` and ``second`` are the
    lines' responses in the near and far halves of each band between two crossing
    lines (:func:`_band_reach`, shape ``(crossing lines - 1, lines)``)."""
    found = np.zeros((first.shape[0] + 1, first.shape[1]))
    found[:-1] = first  # the arm past each crossing
    if both:
        found[1:-1] = np.minimum(found[1:-1], second[:-1])  # and the arm before it
        found[-1] = second[-1]
    else:
        found[1:] = np.maximum(found[1:], second)  # or the arm before it
    return found


#: A line shows beside a crossing where its response there is at least this share of
#: its family's typical one; an outer band is crossed as the inner ones are where its
#: crossing lines reach this share of their typical response, where its inner line
#: shows.
LINE_SEEN, CROSSED = 0.5, 0.7


#: An outer line that runs on between its crossings less than this share of the others'
#: is no line: a row of coordinates (a line along a row of stones still shows here
#: and there). Its stretches count from this length on (pixels at 16 a cell): a digit
#: is shorter.
LABEL_RUNS, LABEL_STROKE = 0.1, 7
#: An outer line past a board's tiles that runs on between its crossings less than this
#: share of the others' is a window's toolbar (a row of icons), not a line.
TOOLBAR_RUNS = 0.5


def _edge_strips(board: np.ndarray, grid: Grid, side: str, cell: int
                 ) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The greys along the strips just inside and just outside the outer line on
    ``side`` of a fitted grid (``board``: its grey canvas, line ``i`` at ``(i + 1) *
    cell``; 0.1 to 0.2 cell from the line) and the board's grey, its median; None where
    the inside is not the board's colour (:data:`OTHER_COLOUR`)."""
    count = grid.lines_y if side in ("left", "right") else grid.lines_x
    along = slice(cell, count * cell + 1)
    place = {"left": cell, "top": cell, "right": grid.lines_x * cell,
             "bottom": grid.lines_y * cell}[side]
    outwards = -1 if side in ("left", "top") else 1
    near, far = round(0.1 * cell), round(0.2 * cell)

    def strip(direction: int) -> np.ndarray:
        ends = sorted((place + direction * near, place + direction * far))
        part = board[along, ends[0]:ends[1] + 1] if side in ("left", "right") else \
            board[ends[0]:ends[1] + 1, along].T
        return np.median(part, axis=1)

    inside, outside = strip(-outwards), strip(outwards)
    bare = float(np.median(board[cell:grid.lines_y * cell + 1, cell:grid.lines_x * cell + 1]))
    if abs(float(np.median(inside)) - bare) > OTHER_COLOUR:
        return None
    return inside, outside, bare


def _stepped(inside: np.ndarray, outside: np.ndarray) -> bool:
    """Whether two strips along an outer line differ by :data:`EDGE_STEP` along most of
    it (:data:`EDGE_ALONG`)."""
    return bool((np.abs(inside - outside) >= EDGE_STEP).mean() >= EDGE_ALONG)


def painted_to_lines(board: np.ndarray, grid: Grid, cell: int) -> list[str]:
    """The sides of a fitted grid (``board``: its grey canvas, line ``i`` at ``(i + 1) *
    cell``) where the board's colour ends at its outer line: a board painted to its
    outer lines on a page or in a frame of another colour, where a stone on an edge
    point would be half off the board (a program draws it so) and the page beside an
    empty one reads as half a stone."""
    found = []
    for side in ("left", "right", "top", "bottom"):
        strips = _edge_strips(board, grid, side, cell)
        if strips is not None and _stepped(strips[0], strips[1]):
            found.append(side)
    return found


def _colour_edge(board: np.ndarray, grid: Grid, side: str, cell: int) -> bool:
    """Whether the outer line on ``side`` of a fitted grid (``board``: its grey canvas,
    line ``i`` at ``(i + 1) * cell``) is where the board's colour ends: a board of light
    cells in a dark frame draws no line there, only the step from one to the other,
    which the line filter does not see (it took such a board's outer lines for rows of
    coordinates, whose digits stand apart on one colour). The inside lies within
    :data:`OTHER_COLOUR` of the board's median, and along most of the line the strips
    just inside and just outside it differ by :data:`EDGE_STEP`, or the outside is the
    inner lines' own grey (:data:`GAP_LIKE`), however close to the board's."""
    strips = _edge_strips(board, grid, side, cell)
    if strips is None:
        return False
    inside, outside, bare = strips
    if _stepped(inside, outside):
        return True
    # Cells drawn apart on a ground that shows between them as the lines (a web page's
    # grid of cells with gaps): past the outer cells the ground is the lines' colour,
    # however little it differs from the cells'.
    line = _line_grey(board, grid, cell, bare)
    contrast = abs(line - bare)
    return bool(contrast >= MIN_GAP_CONTRAST
                and (np.abs(outside - line) <= GAP_LIKE * contrast).mean() >= EDGE_ALONG
                and (np.abs(inside - outside) >= (1 - GAP_LIKE) * contrast).mean() >= EDGE_ALONG)


#: Grey levels at least between the lines and the cells for the ground past a board's
#: outer cells to be told as the lines' colour, within this share of that contrast.
MIN_GAP_CONTRAST, GAP_LIKE = 5.0, 0.35


def _line_grey(board: np.ndarray, grid: Grid, cell: int, bare: float) -> float:
    """The grey of the inner vertical lines of a fitted grid (``board``: its grey canvas,
    line ``i`` at ``(i + 1) * cell``): along each, the pixel farthest from the board's
    grey ``bare`` within a pixel of it, the median of them all."""
    places = [(i + 1) * cell for i in range(1, grid.lines_x - 1)]
    rows = board[cell:grid.lines_y * cell + 1]
    strips = np.stack([rows[:, place - 1:place + 2] for place in places])
    farthest = np.take_along_axis(strips, np.abs(strips - bare).argmax(axis=2)[..., None],
                                  axis=2)
    return float(np.median(farthest))


#: Grey levels between a board's colour and a frame's across the board's edge, and
#: the share of the edge's length they must hold along.
EDGE_STEP, EDGE_ALONG = 20.0, 0.8


def _other_colour(board: np.ndarray, grid: Grid, side: str, cell: int) -> bool:
    """Whether the outer half of the band on ``side`` of a fitted grid (``board``: its
    grey canvas, line ``i`` at ``(i + 1) * cell``) is not in the colour of the inner
    half, the board's: a window's bar beyond a board drawn in tiles."""
    last_x, last_y = grid.lines_x * cell, grid.lines_y * cell
    low, high = round(0.05 * cell), round(0.45 * cell)
    span_x, span_y = slice(cell, last_x + 1), slice(cell, last_y + 1)
    outer, inner = {
        "top": (board[cell + low:cell + high, span_x],
                board[2 * cell - high:2 * cell - low, span_x]),
        "bottom": (board[last_y - high:last_y - low, span_x],
                   board[last_y - cell + low:last_y - cell + high, span_x]),
        "left": (board[span_y, cell + low:cell + high],
                 board[span_y, 2 * cell - high:2 * cell - low]),
        "right": (board[span_y, last_x - high:last_x - low],
                  board[span_y, last_x - cell + low:last_x - cell + high])}[side]
    return abs(float(np.median(outer)) - float(np.median(inner))) > OTHER_COLOUR


#: Grey levels between the medians of two halves of a band that are not the same
#: colour (a board's light changes less from one half cell to the next).
OTHER_COLOUR = 6.0


def _resize(grid: Grid, side: str, lines: int) -> Grid:
    """The grid with ``lines`` more lines on ``side`` (fewer, if negative)."""
    matrix, lines_x, lines_y = grid.to_lattice, grid.lines_x, grid.lines_y
    if side == "left":
        matrix = np.array([[1, 0, lines], [0, 1, 0], [0, 0, 1.0]]) @ matrix
    elif side == "top":
        matrix = np.array([[1, 0, 0], [0, 1, lines], [0, 0, 1.0]]) @ matrix
    lines_x += lines * (side in ("left", "right"))
    lines_y += lines * (side in ("top", "bottom"))
    return Grid(lines_x, lines_y, matrix, grid.k1, grid.centre, grid.norm, grid.residual)


def _complete(lines: np.ndarray, gray: np.ndarray, dark_lines: bool, grid: Grid) -> Grid:
    """Add the lines the lattice search missed at the grid's sides (the other family
    runs on past them); raise :class:`BoardCutOff` where the grid runs on off the
    picture. ``lines`` is the line map of ``gray`` for lines ``dark_lines``."""
    height, width = lines.shape
    for _ in range(MAX_LINES):
        extended = False
        beyond = _beyond(lines, grid)
        rooms = {side: _edge_distance(grid, side, width, height) for side in beyond}
        # A side whose lines stop at its outer line before a margin the picture shows
        # whole is the edge of a board drawn with lines, not tiles (a corner of a Go
        # board cut off half a cell past two of its lines passed for tiles).
        edged = any(seen >= 1.0 and ratio < PLAIN_EDGE and not tiles
                    for ratio, seen, tiles in beyond.values())
        for side, (ratio, seen, tiles) in beyond.items():
            # A board drawn in tiles shows it on another side: its lines stop half a
            # cell past the outer line there, or the picture ends there too.
            tiled = any(other != side and (beyond[other][2] or (
                not edged and abs(rooms[other] - 0.5) <= TILE_EDGE)) for other in beyond)
            if _ends_at_picture_edge(lines, grid, side, rooms[side], tiled):
                continue
            if seen < 0.5 or ratio < 0.5 or tiles:
                continue
            bigger = _resize(grid, side, 1)
            if abs(rooms[side] - 1.0) <= FILLED_EDGE:
                # The picture ends where the next line would be, the lines running on
                # to it: a window filled by its board, whose edge is the outer line
                # (a board of cells drawn to a window's edges draws none there).
                grid, extended = bigger, True
                continue
            u = {"left": 0.0, "right": bigger.lines_x - 1.0}.get(side)
            v = {"top": 0.0, "bottom": bigger.lines_y - 1.0}.get(side)
            steps = np.linspace(0, (bigger.lines_y if u is not None else bigger.lines_x) - 1, 9)
            x, y = bigger.image_points(np.full(9, u) if u is not None else steps,
                                       np.full(9, v) if v is not None else steps)
            if (x < 1).any() or (y < 1).any() or (x > width - 2).any() or (y > height - 2).any():
                raise BoardCutOff.on(side)
            if max(bigger.lines_x, bigger.lines_y) > MAX_LINES:
                raise NoBoardFound("no grid of at most 40 lines each way found")
            judged = lines
            if side in lines_on_edges(bigger, width, height):
                # A line on the picture's last pixels shows as a band reaching its edge
                # to the filter, no stroke: it is asked where the picture is continued.
                judged = line_map(gray, dark_lines, padded=(side,))
            if side in _loose_sides(judged, gray, bigger):
                continue  # not a line: a row of coordinates, a bar of the window
            grid, extended = bigger, True
        if not extended:
            return grid
    return grid


def _edge_distance(grid: Grid, side: str, width: int, height: int) -> float:
    """How far past the outer line on ``side`` the picture of ``width`` by ``height``
    ends, in cells (the median along the line; infinite where it ends further than a
    cell and :data:`FILLED_EDGE` past it)."""
    steps = np.linspace(0, (grid.lines_y if side in ("left", "right") else grid.lines_x) - 1, 9)
    past = np.linspace(0.0, 1.0 + FILLED_EDGE, 109)
    outer = {"left": 0.0, "top": 0.0, "right": grid.lines_x - 1.0,
             "bottom": grid.lines_y - 1.0}[side]
    across = outer + (-past if side in ("left", "top") else past)
    a, b = np.meshgrid(across, steps)  # one row per place along the line
    x, y = grid.image_points(a, b) if side in ("left", "right") else grid.image_points(b, a)
    out = (x < 0) | (y < 0) | (x > width - 1) | (y > height - 1)
    exits = np.where(out.any(axis=1), past[out.argmax(axis=1)], np.inf)
    return float(np.median(exits))


def _ends_at_picture_edge(lines: np.ndarray, grid: Grid, side: str, room: float,
                          tiled: bool) -> bool:
    """Whether the picture ends less than a cell past the outer line on ``side`` (it
    ends ``room`` cells past it); raise :class:`BoardCutOff` if the other family's
    lines run on there to the picture's edge. They may run on past the outer line and
    stop short of the edge (a window's board whose lines overhang its outer ones, the
    tiles of a board drawn in tiles, ``tiled``: it shows so elsewhere), or stop where
    the picture ends half a cell past the line, at the outer tiles' edge (a screenshot
    of a window whose board of tiles touches its edges)."""
    if room >= 1.0 - FILLED_EDGE:
        return False  # a cell or more: the lines are asked whether they run on
    if room < EDGE_SEEN or (tiled and abs(room - 0.5) <= TILE_EDGE):
        return True  # too little to see beyond the line; or whole outer tiles
    cell = 32  # fine enough to see a few hundredths of a cell beyond the line
    canvas = grid.warp(lines, cell, margin=1.0, outside=-1.0)
    vertical = side in ("left", "right")
    count = grid.lines_x if vertical else grid.lines_y
    across = [(k + 1) * cell for k in range(grid.lines_y if vertical else grid.lines_x)]
    outer = cell if side in ("left", "top") else count * cell  # the outer line's place
    outwards = -1 if side in ("left", "top") else 1
    low = round(0.04 * cell)
    high = max(round(room * cell), low + 1)

    def strokes(direction: int) -> list[np.ndarray]:
        """Along each crossing line, from the outer line on in ``direction`` over as
        long a stretch as the picture shows beyond, its strongest response across it
        (negative past the picture's edge)."""
        places = outer + direction * np.arange(low, high + 1)
        return [(canvas[c - 1:c + 2, places] if vertical else canvas[places, c - 1:c + 2].T
                 ).max(axis=0) for c in across]

    def level(found: list[np.ndarray]) -> float:
        """The strongest quarter of the crossing lines' median responses."""
        medians = [float(np.median(f[f >= 0])) if (f >= 0).any() else 0.0 for f in found]
        return float(np.percentile(medians, 75))

    beyond, inner = strokes(outwards), level(strokes(-outwards))
    if level(beyond) < 0.5 * max(inner, 1e-6):
        return True
    # Lines run on past the outer line: a board cut off runs them on to the picture's
    # edge; a whole board's stop short of it, where its tiles or overhangs end.
    shown = [np.flatnonzero(f >= 0) for f in beyond]
    reached = [np.flatnonzero(f >= 0.5 * inner) for f in beyond]
    gaps = [int(s[-1]) - int(r[-1]) if r.size else int(s[-1]) + 1
            for s, r in zip(shown, reached, strict=True) if s.size]
    short = max(STOPS_SHORT * cell, STOPS_SHORT_PIXELS * cell / grid.cell_pixels())
    if gaps and float(np.median(gaps)) >= short:
        return True
    raise BoardCutOff.on(side)


#: Less than this many cells past the outer line, the picture shows too little to tell
#: a board cut off from one that ends there; a board drawn in tiles ends half a cell
#: past its outer line, give or take this many cells.
EDGE_SEEN, TILE_EDGE = 0.12, 0.05
#: Where the picture ends a cell past the outer line, give or take this many cells, and
#: the lines run on to it, its edge is the board's next line (a window filled by its
#: board draws none there; a board cut off that close to a line is read as ending there).
FILLED_EDGE = 0.08
#: How far (cells) past the picture's last pixels a grid's outer line may lie.
OUTER_LINE_PAST = max(EDGE_SEEN / 2, FILLED_EDGE)
#: Lines that run on past a board's outer line and end this many cells (and pixels)
#: or more before the picture's edge end there: the board is whole.
STOPS_SHORT, STOPS_SHORT_PIXELS = 0.08, 2.5
#: Below this share of their strength inside the grid, lines stop at the outer line.
PLAIN_EDGE = 0.25


#: Share of inner crossings with some but not all four arms: below the first, a lattice
#: is taken at once; the lattice with the fewest is taken below the second; above it
#: the lines are no board's (a wall of bricks or tiles meets in T-junctions: all of its
#: crossings). Not half: on a crowded photo the lines beside stones and their shadows
#: vanish from the line map, and a 19x22 board with 159 stones showed 50.4 % of its
#: 270 crossings as T-junctions, and was refused with its grid found right.
CLEAR_CROSSINGS, MOST_T_JUNCTIONS = 0.3, 0.55


def _t_junctions(lines: np.ndarray, gray: np.ndarray, dark_lines: bool, grid: Grid
                 ) -> tuple[int, int]:
    """How many inner crossings show some arms of the lines but miss one where the board
    is bare, and how many show any: on a board the four arms are all there or all
    hidden (under a stone). An arm beside a stone or its shadow may vanish from the line
    map (the filter takes a line touching a dark blob for part of it), so it proves
    nothing: only an arm missing between bare board counts. And only a crossing whose
    lines show at its centre counts: a white stone on the point hides it, but the
    stone's dark outline, where it crosses a line's path, shows as the stub of an arm,
    and its face passes for bare board (a 9x9 screen board with 73 % of its points
    covered was read as 5x9: its white stones made 15 of 26 crossings T-junctions)."""
    cell = 16
    canvas = grid.warp(lines, cell, margin=1.0)
    board = grid.warp(gray if dark_lines else 255 - gray, cell, margin=1.0)
    steps = np.arange(int(0.15 * cell), int(0.45 * cell) + 1)
    flank = np.array([-5, -4, 4, 5])  # about 0.3 cell either side of the line
    seen = 0.3 * float(np.percentile(canvas, 97))
    partial = crossed = 0
    for j in range(1, grid.lines_y - 1):
        for i in range(1, grid.lines_x - 1):
            cx, cy = (i + 1) * cell, (j + 1) * cell
            if canvas[cy - 1:cy + 2, cx - 1:cx + 2].max() <= seen:
                continue  # no line at the centre: a stone on the point
            bare = float(np.percentile(board[cy - cell:cy + cell + 1, cx - cell:cx + cell + 1],
                                       90))
            present = absent = 0
            for sign, horizontal in ((1, True), (-1, True), (1, False), (-1, False)):
                if horizontal:
                    arm = canvas[cy - 1:cy + 2, cx + sign * steps].max(axis=0).mean()
                    beside = board[cy + flank[:, None], cx + sign * steps[None, :]].mean()
                else:
                    arm = canvas[cy + sign * steps, cx - 1:cx + 2].max(axis=1).mean()
                    beside = board[cy + sign * steps[:, None], cx + flank[None, :]].mean()
                if arm > seen:
                    present += 1
                elif beside > 0.75 * bare:
                    absent += 1
            if present:
                crossed += 1
                partial += absent > 0
    return partial, crossed


def check_margin(grid: Grid, width: int, height: int, margin: float,
                 waived: Collection[str] = ()) -> None:
    """Raise :class:`BoardCutOff` unless the grid and ``margin`` cells around it (where
    the outer stones lie) are wholly in a picture of ``width`` by ``height``, but on
    the ``waived`` sides."""
    sides = [side for side in sides_out(grid, width, height, margin) if side not in waived]
    if sides:
        raise BoardCutOff(f"the board runs off the picture ({', '.join(sides)}): take it "
                          "again with the whole board and a margin around it in the frame")


def lines_on_edges(grid: Grid, width: int, height: int) -> list[str]:
    """The sides of a picture of ``width`` by ``height`` that end on the grid's outer
    line (less than :data:`EDGE_SEEN` of a cell past it): a board's canvas saved alone,
    whose outer lines are drawn on its first and last pixels, where nothing past the
    line shows (the search asks such a line where the picture is continued; the reader
    mirrors the board about it, and a little further, for a stone on it)."""
    return sides_out(grid, width, height, EDGE_SEEN)


def sides_out(grid: Grid, width: int, height: int, margin: float) -> list[str]:
    """The sides of the picture that the grid and ``margin`` cells around it cross."""
    low_u, high_u = -margin, grid.lines_x - 1 + margin
    low_v, high_v = -margin, grid.lines_y - 1 + margin
    steps = 20
    u = np.concatenate([np.linspace(low_u, high_u, steps), np.full(steps, low_u),
                        np.linspace(low_u, high_u, steps), np.full(steps, high_u)])
    v = np.concatenate([np.full(steps, low_v), np.linspace(low_v, high_v, steps),
                        np.full(steps, high_v), np.linspace(low_v, high_v, steps)])
    x, y = grid.image_points(u, v)
    return [name for name, out in (("left", x < 0), ("right", x > width - 1),
                                   ("top", y < 0), ("bottom", y > height - 1)) if out.any()]
