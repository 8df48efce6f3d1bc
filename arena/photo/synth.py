"""Synthetic pictures of Gomoku boards with known positions: the test and measurement data
of the recognition (:mod:`arena.photo.read`).

A board is drawn from above (:func:`draw_board`: wood with stones on the intersections,
paper with stones or ink circles in the cells, or a flat screen board), then
photographed (:func:`photograph`: perspective, rotation, lens distortion, uneven light,
a shadow, blur, noise, JPEG artefacts) or scanned (:func:`scan`). :func:`make_sample`
does all of it from one seed, so a set is reproducible from its seeds alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from arena.photo.position import BLACK, EMPTY, TRADED, WHITE, Layout, Position

__all__ = ["KINDS", "Sample", "draw_board", "make_sample", "move_numbers", "no_board",
           "photograph", "print_board", "random_position", "scan"]

Kind = Literal["photo", "scan", "screen"]
#: The sets the measurements report on.
KINDS: tuple[Kind, ...] = ("photo", "scan", "screen")
#: Pixels per cell of a drawn board before it is photographed.
DRAW_CELL = 40


@dataclass(frozen=True)
class Sample:
    """A picture and the position it shows."""

    image: np.ndarray  # BGR, uint8
    position: Position
    kind: str
    seed: int


def _noise_field(rng: np.random.Generator, height: int, width: int, cells: int) -> np.ndarray:
    """Smooth noise in [-1, 1] varying over about ``cells`` blobs across the picture."""
    small = rng.uniform(-1, 1, (max(2, cells), max(2, cells))).astype(np.float32)
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_CUBIC)


def _wood(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    base = np.array([rng.uniform(60, 130), rng.uniform(140, 200), rng.uniform(200, 245)],
                    np.float32)  # BGR: orange to pale yellow
    along = rng.integers(2)
    coord = np.arange(width if along == 0 else height, dtype=np.float32)
    wobble = _noise_field(rng, height, width, 6) * rng.uniform(4, 14)
    grid = (coord[None, :] if along == 0 else coord[:, None]) + wobble
    grain = np.sin(grid * 2 * np.pi / rng.uniform(6, 22)) * rng.uniform(0.02, 0.07)
    blotch = _noise_field(rng, height, width, 5) * rng.uniform(0.02, 0.08)
    shade = 1 + grain + blotch
    return np.clip(base[None, None, :] * shade[:, :, None], 0, 255)


def _write_number(canvas: np.ndarray, cx: float, cy: float, r: float, number: int,
                  colour: int) -> None:
    """Write ``number`` on the face of a stone of ``colour`` and radius ``r`` centred at
    ``(cx, cy)`` in the contrasting colour: two digits across 0.62 of its width, longer
    numbers as wide as 0.8 of it."""
    text = str(number)
    font = cv2.FONT_HERSHEY_SIMPLEX
    (two, _), _ = cv2.getTextSize("88", font, 1.0, 1)
    (own, _), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(0.62 * 2 * r / two, 0.8 * 2 * r / own)
    thick = max(1, round(scale * 2))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    # Drawn on the stone's square of the canvas alone (its own ink, then blended).
    reach = math.ceil(r) + 2 * thick
    x0, y0 = max(0, int(cx) - reach), max(0, int(cy) - reach)
    patch = canvas[y0:int(cy) + reach + 1, x0:int(cx) + reach + 1]
    ink = np.zeros(patch.shape[:2], np.uint8)
    cv2.putText(ink, text, (round(cx - w / 2) - x0, round(cy + h / 2) - y0), font, scale, 255,
                thick, cv2.LINE_AA)
    alpha = (ink.astype(np.float32) / 255)[:, :, None]
    tone = 235.0 if colour == 1 else 20.0
    patch[:] = patch * (1 - alpha) + tone * alpha


def move_numbers(rng: np.random.Generator, stones: np.ndarray) -> np.ndarray:
    """A move number for each stone of ``stones`` (0 on empty points): black's odd and
    white's even, each side's in a random order."""
    numbers = np.zeros(stones.shape, np.int32)
    for colour, first in ((1, 1), (2, 2)):
        ys, xs = np.nonzero(stones == colour)
        order = rng.permutation(len(ys))
        numbers[ys[order], xs[order]] = first + 2 * np.arange(len(ys))
    return numbers


def _paper(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    tint = rng.uniform(225, 252)
    base = np.array([tint - rng.uniform(0, 25), tint - rng.uniform(0, 8), tint], np.float32)
    fibre = rng.normal(0, 3, (height, width)).astype(np.float32)
    blotch = _noise_field(rng, height, width, 8) * 4
    return np.clip(base[None, None, :] + (fibre + blotch)[:, :, None], 0, 255)


def _flat(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    colours = [(104, 184, 227), (180, 200, 210), (240, 240, 240), (255, 255, 255),
               (150, 190, 150), (80, 150, 200), (200, 200, 200)]
    colour = np.array(colours[rng.integers(len(colours))], np.float32)
    return np.broadcast_to(colour, (height, width, 3)).copy()


def random_position(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A plausible game position: a cluster of stones grown from near the centre, black
    first (as many black stones as white, or one more)."""
    grid = np.zeros((height, width), np.int8)
    crowded = rng.integers(40, max(41, width * height // 2))
    total = 0 if rng.random() < 0.05 else int(rng.choice(
        [rng.integers(1, 12), rng.integers(10, 60), crowded]))
    total = min(total, width * height)
    cx, cy = width / 2 + rng.normal(0, width / 8), height / 2 + rng.normal(0, height / 8)
    spread = rng.uniform(1.5, max(2.0, min(width, height) / 3))
    placed = 0
    attempts = 0
    while placed < total and attempts < total * 50:
        attempts += 1
        x = round(cx + rng.normal(0, spread * (1 + placed / 40)))
        y = round(cy + rng.normal(0, spread * (1 + placed / 40)))
        if 0 <= x < width and 0 <= y < height and grid[y, x] == EMPTY:
            grid[y, x] = 1 + placed % 2
            placed += 1
    return grid


@dataclass(frozen=True)
class _Style:
    layout: Layout
    surface: str           # wood, paper, flat
    line_colour: tuple[int, int, int]
    line_width: float      # in pixels of the drawing
    margin: float          # cells of board beyond the outer lines
    stone: str             # real, flat, ink
    radius: float          # stone radius in cells
    jitter: float          # stone placement error in cells
    labels: bool


def _style(rng: np.random.Generator, kind: Kind) -> _Style:
    if kind == "screen":
        layout: Layout = "points" if rng.random() < 0.5 else "cells"
        return _Style(layout, "flat", tuple(int(v) for v in rng.integers(0, 110, 3)),
                      float(rng.choice([1.0, 1.5, 2.0])),
                      float(rng.uniform(0.5, 1.0)) if layout == "points" else
                      float(rng.choice([0.0, 0.3, 0.8])),
                      "flat", float(rng.uniform(0.40, 0.47) if layout == "points" else
                                    rng.uniform(0.33, 0.45)), 0.0, bool(rng.random() < 0.5))
    if rng.random() < 0.55:
        return _Style("points", "wood", (int(rng.integers(0, 40)),) * 3,
                      float(rng.uniform(1.2, 2.6)), float(rng.uniform(0.5, 1.1)), "real",
                      float(rng.uniform(0.44, 0.49)), float(rng.uniform(0, 0.07)), False)
    ink = (int(rng.integers(60, 200)), int(rng.integers(40, 120)), int(rng.integers(0, 80)))
    line = ink if rng.random() < 0.4 else (int(rng.integers(0, 90)),) * 3
    layout = "cells" if rng.random() < 0.75 else "points"
    stone = "ink" if rng.random() < 0.4 else "real"
    return _Style(layout, "paper", line, float(rng.uniform(1.0, 2.2)),
                  float(rng.uniform(0.3, 1.2)), stone,
                  float(rng.uniform(0.36, 0.44) if layout == "cells" else rng.uniform(0.42, 0.48)),
                  float(rng.uniform(0, 0.06)), False)


def _draw_stone(canvas: np.ndarray, cx: float, cy: float, r: float, colour: int,
                style: _Style, rng: np.random.Generator) -> None:
    shift = 4  # sub-pixel drawing
    centre = (round(cx * 16), round(cy * 16))
    radius = round(r * 16)
    if style.stone == "ink":
        ink = (30, 30, 30) if rng.random() < 0.7 else (120, 40, 20)
        thick = max(1, round(r * 0.12))
        if colour == 1:
            cv2.circle(canvas, centre, radius, ink, -1, cv2.LINE_AA, shift)
        else:
            cv2.circle(canvas, centre, radius - thick * 8, ink, thick, cv2.LINE_AA, shift)
        return
    if style.stone == "flat":
        tone = int(rng.integers(0, 60)) if colour == 1 else int(rng.integers(225, 256))
        fill = (tone,) * 3
        cv2.circle(canvas, centre, radius, fill, -1, cv2.LINE_AA, shift)
        if colour == 2 or rng.random() < 0.6:  # white stones need an edge on light boards
            edge = (int(rng.integers(20, 120)),) * 3 if colour == 2 else (0, 0, 0)
            cv2.circle(canvas, centre, radius, edge, 1, cv2.LINE_AA, shift)
        return
    # A real stone: a soft shadow, then a shaded disc with a highlight.
    size = math.ceil(r * 1.4)
    x0, y0 = max(0, int(cx) - size), max(0, int(cy) - size)
    x1 = min(canvas.shape[1], int(cx) + size + 1)
    y1 = min(canvas.shape[0], int(cy) + size + 1)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dx, dy = xs - cx, ys - cy
    dist = np.sqrt(dx * dx + dy * dy)
    patch = canvas[y0:y1, x0:x1]
    sx, sy = r * 0.12, r * 0.15
    shadow = np.clip((r * 1.08 - np.sqrt((dx - sx) ** 2 + (dy - sy) ** 2)) / (r * 0.25), 0, 1)
    patch *= (1 - 0.35 * shadow)[:, :, None]
    inside = np.clip(r - dist + 0.5, 0, 1)
    lx, ly = -0.4 * r, -0.45 * r
    light = np.exp(-((dx - lx) ** 2 + (dy - ly) ** 2) / (2 * (r * 0.35) ** 2))
    rim = np.clip(dist / r, 0, 1) ** 3
    if colour == 1:
        base = rng.uniform(15, 50)
        tone = base + 110 * light * rng.uniform(0.4, 1.0) - 10 * rim
    else:
        base = rng.uniform(200, 240)
        tone = base + 25 * light - 60 * rim * rng.uniform(0.5, 1.0)
    tone = np.clip(tone, 0, 255)[:, :, None] * np.array([1.0, 1.0, 1.0 + (colour == 2) * 0.02])
    patch[:] = patch * (1 - inside[:, :, None]) + tone * inside[:, :, None]


def draw_board(rng: np.random.Generator, kind: Kind, width: int, height: int,
               stones: np.ndarray, numbers: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, Layout]:
    """The board seen from straight above: the picture (BGR float32), the picture
    coordinates of the stone points' corners (top left, top right, bottom right, bottom
    left) and the layout. ``numbers``: each stone's move number written on its face (0:
    none), as programs show a game, in place of a last-move mark."""
    style = _style(rng, kind)
    cell = DRAW_CELL
    lines_x = width if style.layout == "points" else width + 1
    lines_y = height if style.layout == "points" else height + 1
    pad = round((style.margin + (0.8 if style.labels else 0)) * cell) + 4
    pic_w = (lines_x - 1) * cell + 2 * pad
    pic_h = (lines_y - 1) * cell + 2 * pad
    surface = {"wood": _wood, "paper": _paper, "flat": _flat}[style.surface]
    canvas = np.ascontiguousarray(surface(rng, pic_h, pic_w), np.float32)
    thick = max(1, round(style.line_width))
    for i in range(lines_x):
        x = pad + i * cell
        cv2.line(canvas, (x, pad), (x, pad + (lines_y - 1) * cell), style.line_colour, thick,
                 cv2.LINE_AA)
    for j in range(lines_y):
        y = pad + j * cell
        cv2.line(canvas, (pad, y), (pad + (lines_x - 1) * cell, y), style.line_colour, thick,
                 cv2.LINE_AA)
    if style.layout == "points" and style.surface == "wood" and min(width, height) >= 13:
        for i in (3, width // 2, width - 4):  # star points
            for j in (3, height // 2, height - 4):
                cv2.circle(canvas, (pad + i * cell, pad + j * cell), max(2, int(cell * 0.08)),
                           style.line_colour, -1, cv2.LINE_AA)
    if style.labels:  # coordinates above and left of the board, as screen boards write
        ink = np.zeros(canvas.shape[:2], np.uint8)
        shift = 0.5 if style.layout == "cells" else 0.0
        for i in range(width):
            x = pad + (i + shift) * cell
            cv2.putText(ink, str(i), (int(x) - 6, pad - int(0.55 * cell)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.4, 255, 1, cv2.LINE_AA)
        for j in range(height):
            y = pad + (j + shift) * cell
            cv2.putText(ink, str(j), (pad - int(0.75 * cell), int(y) + 5),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.4, 255, 1, cv2.LINE_AA)
        alpha = (ink.astype(np.float32) / 255)[:, :, None]
        canvas[:] = canvas * (1 - alpha) + np.array(style.line_colour, np.float32) * alpha
    offset = 0.5 if style.layout == "cells" else 0.0
    for y, x in zip(*np.nonzero(stones), strict=True):
        cx = pad + (x + offset + rng.uniform(-style.jitter, style.jitter)) * cell
        cy = pad + (y + offset + rng.uniform(-style.jitter, style.jitter)) * cell
        _draw_stone(canvas, cx, cy, style.radius * cell, int(stones[y, x]), style, rng)
        if numbers is not None and numbers[y, x]:
            _write_number(canvas, cx, cy, style.radius * cell, int(numbers[y, x]),
                          int(stones[y, x]))
    if style.stone == "flat" and stones.any() and rng.random() < 0.7:
        # Screen boards mark the last move: a red or contrasting dot, or a ring.
        ys, xs = np.nonzero(stones)
        k = int(rng.integers(len(ys)))
        centre = (int((pad + (xs[k] + offset) * cell) * 16),
                  int((pad + (ys[k] + offset) * cell) * 16))
        colour = [(60, 76, 231), (0, 0, 255), (128, 128, 128)][int(rng.integers(3))]
        dot = rng.random() < 0.7
        size = rng.uniform(0.06, 0.14) if dot else 0.6 * style.radius
        if numbers is None:  # (where there are numbers they tell the last move)
            cv2.circle(canvas, centre, int(cell * size * 16), colour, -1 if dot else 2,
                       cv2.LINE_AA, 4)
    span_x, span_y = (width - 1) * cell, (height - 1) * cell
    first = pad + offset * cell
    corners = np.array([[first, first], [first + span_x, first],
                        [first + span_x, first + span_y], [first, first + span_y]], np.float32)
    return canvas, corners, style.layout


def _background(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    choice = rng.integers(3)
    if choice == 0:
        tone = rng.uniform(30, 200, 3).astype(np.float32)
        return np.clip(tone[None, None, :] + _noise_field(rng, height, width, 10)[:, :, None]
                       * 25, 0, 255)
    if choice == 1:
        return _wood(rng, height, width) * rng.uniform(0.4, 0.8)
    cloth = rng.uniform(60, 180, 3).astype(np.float32)
    weave = rng.normal(0, 10, (height, width)).astype(np.float32)
    return np.clip(cloth[None, None, :] + weave[:, :, None], 0, 255)


def _lighting(rng: np.random.Generator, height: int, width: int, strength: float
              ) -> np.ndarray:
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = ((xs / width - 0.5) * np.cos(angle) + (ys / height - 0.5) * np.sin(angle))
    vignette = ((xs / width - 0.5) ** 2 + (ys / height - 0.5) ** 2)
    light = 1 + strength * (ramp * rng.uniform(0.3, 0.9) - vignette * rng.uniform(0, 1.2))
    if rng.random() < 0.5:  # a shadow: a soft-edged polygon (a hand, a phone)
        mask = np.zeros((height, width), np.float32)
        points = rng.uniform(0, 1, (int(rng.integers(3, 6)), 2)) * [width, height]
        edge = int(rng.integers(0, 4))
        points[0] = [0 if edge == 0 else width, rng.uniform(0, height)] if edge < 2 else \
            [rng.uniform(0, width), 0 if edge == 2 else height]
        cv2.fillPoly(mask, [points.astype(np.int32)], 1.0)
        soft = int(max(width, height) * rng.uniform(0.01, 0.05)) * 2 + 1
        mask = cv2.GaussianBlur(mask, (soft, soft), 0)
        light *= 1 - rng.uniform(0.15, 0.45) * mask
    return light


def _distort(rng: np.random.Generator, image: np.ndarray, k1: float) -> np.ndarray:
    """Radial lens distortion of strength ``k1`` (barrel < 0 < pincushion) by remapping."""
    height, width = image.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    cx, cy, norm = width / 2, height / 2, max(width, height) / 2
    u, v = (xs - cx) / norm, (ys - cy) / norm
    factor = 1 + k1 * (u * u + v * v)
    return cv2.remap(image, cx + u * factor * norm, cy + v * factor * norm, cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REFLECT)


def _finish(rng: np.random.Generator, image: np.ndarray, blur: float, noise: float,
            quality: int | None) -> np.ndarray:
    if blur > 0.2:
        if rng.random() < 0.3:  # camera shake: a short line kernel
            length = max(3, int(blur * 3)) | 1
            kernel = np.zeros((length, length), np.float32)
            kernel[length // 2, :] = 1
            rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5),
                                          float(rng.uniform(0, 180)), 1)
            kernel = cv2.warpAffine(kernel, rot, (length, length))
            image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
        else:
            image = cv2.GaussianBlur(image, (0, 0), blur)
    if noise > 0:
        image = image + rng.normal(0, noise, image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if quality is not None:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def photograph(rng: np.random.Generator, board: np.ndarray) -> np.ndarray:
    """A phone photo of ``board`` lying on a table: camera tilt and turn, lens
    distortion, uneven light and a shadow, blur, sensor noise and JPEG compression."""
    out_w = int(rng.integers(800, 1500))
    out_h = int(out_w * rng.uniform(0.7, 1.35))
    bh, bw = board.shape[:2]
    # The board's corners in 3D (centred, unit size), turned and tilted, then projected.
    half = np.array([bw, bh], np.float64) / max(bw, bh) / 2
    corners = np.array([[-half[0], -half[1], 0], [half[0], -half[1], 0],
                        [half[0], half[1], 0], [-half[0], half[1], 0]])
    turn = math.radians(rng.uniform(-25, 25))
    tilt = math.radians(rng.uniform(0, 40))
    side = math.radians(rng.uniform(-12, 12))
    rz = np.array([[math.cos(turn), -math.sin(turn), 0], [math.sin(turn), math.cos(turn), 0],
                   [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(tilt), -math.sin(tilt)],
                   [0, math.sin(tilt), math.cos(tilt)]])
    ry = np.array([[math.cos(side), 0, math.sin(side)], [0, 1, 0],
                   [-math.sin(side), 0, math.cos(side)]])
    points = corners @ (ry @ rx @ rz).T
    focal = rng.uniform(0.9, 1.6)
    points[:, 2] += focal * rng.uniform(1.05, 1.5)
    projected = points[:, :2] / points[:, 2:3] * focal
    # Fit the board into the frame: 55 % to 85 % of its shorter side.
    span = projected.max(axis=0) - projected.min(axis=0)
    scale = rng.uniform(0.55, 0.85) * min(out_w / span[0], out_h / span[1])
    projected = (projected - projected.mean(axis=0)) * scale
    room = np.array([out_w, out_h]) / 2 - np.abs(projected).max(axis=0)
    # Off centre, but not so far that the lens distortion below pushes it out.
    slack = np.maximum(room - 0.12 * max(out_w, out_h), 0)
    centre = np.array([out_w, out_h]) / 2 + rng.uniform(-1, 1, 2) * slack
    target = (projected + centre).astype(np.float32)
    source = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, target)
    image = _background(rng, out_h, out_w)
    cv2.warpPerspective(board, matrix, (out_w, out_h), dst=image, flags=cv2.INTER_AREA,
                        borderMode=cv2.BORDER_TRANSPARENT)
    image = image * _lighting(rng, out_h, out_w, rng.uniform(0.2, 0.7))[:, :, None]
    tint = rng.uniform(0.92, 1.06, 3).astype(np.float32)
    image = image * tint[None, None, :] * rng.uniform(0.75, 1.15)
    image = _distort(rng, image, float(rng.uniform(-0.1, 0.06)))
    return _finish(rng, image, float(rng.uniform(0, 1.6)), float(rng.uniform(1, 7)),
                   int(rng.integers(35, 92)))


def scan(rng: np.random.Generator, board: np.ndarray) -> np.ndarray:
    """A flatbed scan of ``board``: a small turn, even light, a little blur and JPEG."""
    bh, bw = board.shape[:2]
    margin = int(rng.integers(10, 60))
    angle = float(rng.uniform(-4, 4))
    scale = rng.uniform(0.6, 1.1)
    out_w, out_h = int(bw * scale) + 2 * margin, int(bh * scale) + 2 * margin
    matrix = cv2.getRotationMatrix2D((bw / 2, bh / 2), angle, scale)
    matrix[:, 2] += [out_w / 2 - bw / 2, out_h / 2 - bh / 2]
    image = np.full((out_h, out_w, 3), rng.uniform(235, 255), np.float32)
    cv2.warpAffine(board, matrix, (out_w, out_h), dst=image, flags=cv2.INTER_AREA,
                   borderMode=cv2.BORDER_TRANSPARENT)
    return _finish(rng, image, float(rng.uniform(0, 0.8)), float(rng.uniform(0, 3)),
                   int(rng.integers(60, 95)) if rng.random() < 0.7 else None)


def make_sample(seed: int, kind: Kind = "photo", dark: bool = False,
                numbered: bool = False) -> Sample:
    """The picture number ``seed`` of a set: ``photo`` (a photographed wooden or paper
    board), ``scan`` (a scanned one) or ``screen`` (a flat screen board at its own
    resolution, PNG-clean). ``dark``: the same picture in negative, as a dark theme
    draws a board (light lines on a dark ground), its stones drawn in each other's
    colour first so that it shows the same position. ``numbered``: the same picture with
    a move number on every stone (:func:`move_numbers`) and no last-move mark."""
    rng = np.random.default_rng([seed, KINDS.index(kind)])
    sizes = [15, 15, 15, 19, 19, 20, 20, 9, 13, 17, 22, 10]
    width = int(rng.choice(sizes))
    height = width if rng.random() < 0.85 else int(rng.choice(sizes))
    stones = random_position(rng, width, height)
    drawn = TRADED[stones] if dark else stones
    numbers = (move_numbers(np.random.default_rng([seed, KINDS.index(kind), 1]), stones)
               if numbered else None)
    board, _, layout = draw_board(rng, kind, width, height, drawn, numbers)
    if kind == "photo":
        image = photograph(rng, board)
    elif kind == "scan":
        image = scan(rng, board)
    else:
        scale = rng.uniform(0.45, 1.0)
        image = cv2.resize(board, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        image = np.clip(image, 0, 255).astype(np.uint8)
    if dark:
        image = 255 - image
    confidence = np.ones(stones.shape, np.float32)
    return Sample(image, Position(stones, confidence, layout), kind, seed)


def no_board(seed: int) -> np.ndarray:
    """A picture without a board: a page of text, a wooden table or a brick wall."""
    rng = np.random.default_rng([seed, 99])
    height, width = int(rng.integers(500, 900)), int(rng.integers(500, 900))
    choice = seed % 3
    if choice == 0:  # a page of text: rows of words
        image = _paper(rng, height, width)
        for row in range(40, height - 40, int(rng.integers(18, 30))):
            x = 40
            while x < width - 80:
                word = int(rng.integers(15, 70))
                cv2.rectangle(image, (x, row), (x + word, row + 9), (40, 40, 40), -1)
                x += word + int(rng.integers(6, 12))
    elif choice == 1:
        image = _wood(rng, height, width)
    else:  # bricks: mortar lines, the joints shifted every other row
        image = np.full((height, width, 3), (60, 80, 170), np.float32)
        brick_h, brick_w = int(rng.integers(30, 50)), int(rng.integers(70, 120))
        for k, y in enumerate(range(0, height, brick_h)):
            cv2.line(image, (0, y), (width, y), (200, 200, 200), 3)
            for x in range((k % 2) * brick_w // 2, width, brick_w):
                cv2.line(image, (x, y), (x, y + brick_h), (200, 200, 200), 3)
    return _finish(rng, image, 0.5, 2.0, 85)


#: The stone glyphs a console program prints, black's first: letters, or discs (drawn as
#: circles, a terminal's ``●`` and ``○``).
_STONE_GLYPHS = (("X", "O"), ("x", "o"), ("@disc", "@ring"), ("b", "w"))
_FONTS = (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX)


def _print_line(image: np.ndarray, characters: list[str], left: float, baseline: float,
                width: float, font: int, scale: float, thickness: int,
                colour: tuple[float, float, float]) -> None:
    """Print ``characters`` one to a column ``width`` pixels wide from ``left``, as a
    terminal prints them in a monospaced font (each glyph centred in its column)."""
    (_, glyph_height), _ = cv2.getTextSize("X", font, scale, thickness)
    for column, character in enumerate(characters):
        middle = left + (column + 0.5) * width
        if character.startswith("@"):
            radius = max(2, round(0.45 * glyph_height))
            centre = (round(middle), round(baseline - glyph_height / 2))
            cv2.circle(image, centre, radius, colour, -1 if character == "@disc" else
                       thickness, cv2.LINE_AA)
        elif character.strip():
            (glyph_width, _), _ = cv2.getTextSize(character, font, scale, thickness)
            cv2.putText(image, character, (round(middle - glyph_width / 2), round(baseline)),
                        font, scale, colour, thickness, cv2.LINE_AA)


def print_board(seed: int, glyphs: tuple[str, str] | None = None) -> Sample:
    """A board printed as text by a console program, as its terminal shows it: a
    monospaced lattice of characters, either a glyph on every point (``+`` or ``.``
    empty, the stones' letters or discs between spaces; some programs part it in
    blocks of five by ``|`` columns and rules of dashes) or the stones between ``|``
    separators with blanks for the empty cells; row numbers on the left and column
    labels above, light text on a dark terminal or dark on a light one. ``glyphs``
    names black's and white's glyphs (by default one of the pairs programs print)."""
    rng = np.random.default_rng([seed, 7])
    size = int(rng.choice([8, 9, 10, 11, 13, 15]))
    stones = random_position(rng, size, size)
    separated = rng.random() < 0.4
    blocks = not separated and rng.random() < 0.3
    black, white = glyphs or _STONE_GLYPHS[rng.integers(len(_STONE_GLYPHS))]
    font = _FONTS[rng.integers(len(_FONTS))]
    scale = float(rng.uniform(0.6, 1.3)) * (1.6 if font == cv2.FONT_HERSHEY_PLAIN else 1.0)
    thickness = 1 + int(rng.random() < 0.3)
    (glyph_width, glyph_height), _ = cv2.getTextSize("W", font, scale, thickness)
    width = glyph_width * float(rng.uniform(1.1, 1.4))
    line = glyph_height * float(rng.uniform(1.5, 2.0))
    empty = " " if separated else str(rng.choice(["+", "."]))
    glyph = {0: empty, 1: black, 2: white}
    rows = [[f"{1 + y:2d}"[0], f"{1 + y:2d}"[1], " "] for y in range(size)]
    header = [" ", " ", " "]
    for x in range(size):
        label, parted = chr(ord("A") + x), x < size - 1 and (separated or (blocks and x % 5 == 4))
        after = "|" if parted else " "
        header += [label, after]
        for y in range(size):
            rows[y] += [glyph[int(stones[y, x])], after]
            if blocks and after == "|":
                rows[y] += [" "]
        if blocks and after == "|":
            header += [" "]
    lines = [header]
    line_of = {}  # each row of the board's line
    for y, characters in enumerate(rows):
        line_of[y] = len(lines)
        lines.append(characters)
        if blocks and y % 5 == 4 and y < size - 1:
            lines.append([" ", " ", " "] + ["-"] * (len(characters) - 3))
    dark = rng.random() < 0.5
    ground = np.array((30, 30, 30) if dark else (250, 250, 250), np.uint8)
    ink = tuple(float(v) for v in (rng.uniform(170, 240, 3) if dark else rng.uniform(0, 90, 3)))
    margin = round(2 * width)
    height = round(margin * 2 + line * len(lines))
    image = np.broadcast_to(ground, (height, round(2 * margin + width * len(header)), 3)).copy()
    for index, characters in enumerate(lines):
        _print_line(image, characters, margin, margin + (index + 0.8) * line, width, font,
                    scale, thickness, ink)
    # Drawn apart, so that the seeds' boards stay as they were: the last move printed
    # in another colour, and the terminal's window round the board.
    extra = np.random.default_rng([seed, 8])
    if stones.any() and extra.random() < 0.3:
        last = BLACK if (stones == BLACK).sum() > (stones == WHITE).sum() else WHITE
        y, x = extra.permutation(np.argwhere(stones == last))[0]
        column = 3 + 2 * x + (blocks and x > 4) + (blocks and x > 9)
        index = line_of[int(y)]
        characters = [" "] * column + [lines[index][column]]
        left, baseline = margin + column * width, margin + (index + 0.8) * line
        cv2.rectangle(image, (round(left), round(baseline - line * 0.85)),
                      (round(left + width), round(baseline + line * 0.15)),
                      tuple(int(v) for v in ground), -1)
        _print_line(image, characters, margin, baseline, width, font, scale, thickness,
                    (40.0, 200.0, 240.0))
    if extra.random() < 0.3:
        cv2.rectangle(image, (margin // 2, margin // 2),
                      (image.shape[1] - margin // 2, image.shape[0] - margin // 2), ink, 1)
        title = np.broadcast_to(np.array((200, 200, 200), np.uint8),
                                (round(line * 1.2), image.shape[1], 3)).copy()
        cv2.putText(title, "Terminal - gomoku", (10, round(line * 0.85)),
                    cv2.FONT_HERSHEY_COMPLEX_SMALL, 0.8, (20, 20, 20), 1, cv2.LINE_AA)
        image = np.concatenate([title, image])
    confidence = np.ones(stones.shape, np.float32)
    position = Position(stones, confidence, "cells" if separated else "points")
    return Sample(image, position, "text", seed)
