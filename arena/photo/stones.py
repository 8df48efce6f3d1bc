"""Telling empty points, black stones and white stones apart on a rectified board.

The board arrives as a canvas (:meth:`arena.photo.grid.Grid.warp`) with :data:`CELL`
pixels per cell. Each point is described by a few measurements that hold whatever the
board's colours and light, because each compares the point with the board right around
it: the brightness of its centre and of the ring where a stone's edge would be, relative
to the board just outside a stone's reach; whether the grid lines still cross there (a
stone hides them); whether a dark outline circles it (white stones drawn on paper or a
screen). A small network (one hidden layer, run with numpy; weights in ``stones.npz``,
fitted on synthetic pictures by :mod:`arena.photo.fit`) turns them into probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from arena.photo.position import Layout

__all__ = ["CELL", "FEATURES", "StoneModel", "around", "disc_offsets", "point_features"]

#: Pixels per cell of the canvas the stones are read on.
CELL = 32
#: The names of the measurements, in order.
FEATURES = ("centre", "centre_dark", "centre_bright", "body", "body_spread", "cross",
            "outline", "ring_vs_board", "centre_vs_board", "ring_spread", "layout_points",
            "centre_vs_ring_light", "centre_saturation", "body_saturation",
            "ring_saturation", "board_saturation")
#: Side of the brightness patch of a point, in samples (a cell's width).
PATCH = 8
#: Where the lighter part of a point's ring is brighter than its median by more than
#: this (log ratio; shadows and uneven light stay well under it), stones cover most of
#: the ring.
COVERED_RING = 1.0
WEIGHTS = Path(__file__).resolve().parent / "stones.npz"


def disc_offsets(inner: float, outer: float) -> tuple[np.ndarray, np.ndarray]:
    """Pixel offsets (dy, dx) whose distance from the centre lies in [inner, outer) cells."""
    reach = int(np.ceil(outer * CELL))
    dy, dx = np.mgrid[-reach:reach + 1, -reach:reach + 1]
    dist = np.hypot(dy, dx) / CELL
    keep = (dist >= inner) & (dist < outer)
    return dy[keep], dx[keep]


_CENTRE = disc_offsets(0.0, 0.24)
_BODY = disc_offsets(0.26, 0.38)
_RING = disc_offsets(0.58, 0.74)


def _outline_offsets() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    dy, dx = disc_offsets(0.30, 0.47)
    angle = ((np.arctan2(dy, dx) + np.pi) / (2 * np.pi) * 24).astype(int) % 24
    return dy, dx, angle


_OUTLINE = _outline_offsets()


def _cross_offsets() -> tuple[np.ndarray, np.ndarray]:
    steps = np.arange(int(0.12 * CELL), int(0.42 * CELL) + 1)
    dy = np.concatenate([steps, -steps, np.zeros_like(steps), np.zeros_like(steps)])
    dx = np.concatenate([np.zeros_like(steps), np.zeros_like(steps), steps, -steps])
    return dy, dx


_CROSS = _cross_offsets()


def around(image: np.ndarray, ys: np.ndarray, xs: np.ndarray,
           offsets: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The pixels of ``image`` (grey or colour) at ``offsets`` (dy, dx) from each centre
    ``(ys, xs)``, one row a centre (the canvas's edge repeated beyond it)."""
    pad = CELL
    padded = cv2.copyMakeBorder(image, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    return padded[ys[:, None] + pad + offsets[0], xs[:, None] + pad + offsets[1]]


def lattice_centres(columns: int, rows: int, margin: float, layout: Layout, cell: int = CELL
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Canvas pixel centres (ys, xs) of a layout's points, row by row, for a grid of
    ``columns`` by ``rows`` lines drawn ``cell`` pixels apart with ``margin`` cells
    around it."""
    shift = margin + (0.5 if layout == "cells" else 0.0)
    count_x, count_y = (columns, rows) if layout == "points" else (columns - 1, rows - 1)
    ys, xs = np.mgrid[0:count_y, 0:count_x]
    return (np.round((ys + shift) * cell).astype(int).ravel(),
            np.round((xs + shift) * cell).astype(int).ravel())


def _off_board(image: np.ndarray, inside: np.ndarray, pad: int) -> np.ndarray:
    """``image`` padded by ``pad`` pixels, NaN off the board (outside ``inside``)."""
    board_only = np.where(inside, image, np.nan).astype(np.float32)
    return cv2.copyMakeBorder(board_only, pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                              value=float("nan"))


def point_features(gray: np.ndarray, saturation: np.ndarray, lines: np.ndarray,
                   ys: np.ndarray, xs: np.ndarray, layout: Layout, inside: np.ndarray
                   ) -> np.ndarray:
    """The measurements of the points centred at canvas pixels ``(ys, xs)``: one row per
    point, :data:`FEATURES` then the point's cell as :data:`PATCH` x :data:`PATCH`
    brightness ratios against the whole board. ``gray`` is the canvas (float32,
    0-255), ``saturation`` its colours' saturation (0-255: a wooden board's is high, a
    stone's low, whatever their brightness), ``lines`` its line map (thin strokes),
    ``inside`` true on the board's pixels (the grid and a little beyond), where the
    board around a point is looked for."""
    pad = CELL
    g = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    lm = cv2.copyMakeBorder(lines, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    sat = cv2.copyMakeBorder(saturation / 255, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    masked = _off_board(gray, inside, pad)
    sat_masked = _off_board(saturation / 255, inside, pad)
    py, px = ys[:, None] + pad, xs[:, None] + pad

    def take(image: np.ndarray, offsets: tuple[np.ndarray, ...]) -> np.ndarray:
        return image[py + offsets[0][None, :], px + offsets[1][None, :]]

    centre = take(g, _CENTRE)
    body = take(g, _BODY)
    ring = take(masked, _RING)
    floor = 4.0  # grey levels: keeps the ratios finite in the dark
    with np.errstate(all="ignore"):
        local = np.nanmedian(ring, axis=1)
        light = np.nanpercentile(ring, 75, axis=1)
        spread = light - np.nanpercentile(ring, 25, axis=1)
    board = max(float(np.nanmedian(local)), floor) if np.isfinite(local).any() else floor
    background = np.maximum(np.where(np.isfinite(local), local, board), floor)
    spread = np.where(np.isfinite(spread), spread, 0.0)
    # The lighter part of the ring: the board where stones cover half of it (a point on
    # an edge has only the inner half of its ring on the board, where a neighbouring
    # black stone takes much of what is left and darkens the median).
    light = np.maximum(np.where(np.isfinite(light), light, background), floor)
    # Where dark stones cover most of the ring (an edge or corner point between black
    # stones), its median is theirs, and an empty point there looked like a white
    # stone: the board beside the point is the ring's lighter part then.
    background = np.where(np.log(light / background) > COVERED_RING, light, background)
    cross = take(lm, _CROSS).mean(axis=1)
    line_level = max(float(np.percentile(lm, 97)), 2.0)
    outline_values = take(lm, _OUTLINE[:2])
    bins = np.zeros((len(ys), 24))
    np.maximum.at(bins, (np.arange(len(ys))[:, None], _OUTLINE[2][None, :]), outline_values)
    outline = (bins > 0.35 * line_level).mean(axis=1)
    # Saturation tells a white stone from a pale wooden board of its brightness (and
    # from one whose ring of neighbours is as white: a crowded board). The lower
    # quartile, as a red last-move mark on a stone is saturated.
    with np.errstate(all="ignore"):
        ring_sat = np.nanmedian(take(sat_masked, _RING), axis=1)
    board_sat = float(np.nanmedian(ring_sat)) if np.isfinite(ring_sat).any() else 0.0
    ring_sat = np.where(np.isfinite(ring_sat), ring_sat, board_sat)
    c_med = np.maximum(np.median(centre, axis=1), floor)
    b_med = np.maximum(np.median(body, axis=1), floor)
    measured = np.column_stack([
        np.log(c_med / background),
        np.log(np.maximum(np.percentile(centre, 10, axis=1), floor) / background),
        np.log(np.maximum(np.percentile(centre, 90, axis=1), floor) / background),
        np.log(b_med / background),
        (np.percentile(body, 90, axis=1) - np.percentile(body, 10, axis=1)) / background,
        cross / line_level,
        outline,
        np.log(background / board),
        np.log(c_med / board),
        spread / background,
        np.full(len(ys), 1.0 if layout == "points" else 0.0),
        np.log(c_med / light),
        np.percentile(take(sat, _CENTRE), 25, axis=1),
        np.percentile(take(sat, _BODY), 25, axis=1),
        ring_sat,
        np.full(len(ys), board_sat),
    ])
    # The cell around the point, shrunk to PATCH x PATCH, relative to the whole board
    # (the network has the point's background against it, ring_vs_board): on a crowded
    # board a white stone's background is its white neighbours, and against them its
    # cell looked as flat as an empty point's. Samples off the board count as
    # background: at the board's edges and corners the table would otherwise frame an
    # empty point like the outline of a drawn stone.
    small = cv2.resize(masked, None, fx=PATCH / CELL, fy=PATCH / CELL,
                       interpolation=cv2.INTER_AREA)
    sy = np.round(py[:, 0] * PATCH / CELL).astype(int) - PATCH // 2
    sx = np.round(px[:, 0] * PATCH / CELL).astype(int) - PATCH // 2
    grid_y, grid_x = np.mgrid[0:PATCH, 0:PATCH]
    patches = small[sy[:, None, None] + grid_y, sx[:, None, None] + grid_x]
    with np.errstate(invalid="ignore"):
        pixels = np.log(np.maximum(patches.reshape(len(ys), -1), floor) / board)
    pixels = np.where(np.isfinite(pixels), pixels, np.log(background / board)[:, None])
    return np.column_stack([measured, pixels]).astype(np.float32)


@dataclass(frozen=True)
class StoneModel:
    """A one-hidden-layer network from the measurements to P(empty, black, white)."""

    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> StoneModel:
        with np.load(path) as data:
            return cls(*(data[name] for name in ("mean", "scale", "w1", "b1", "w2", "b2")))

    def save(self, path: Path = WEIGHTS) -> None:
        np.savez(path, mean=self.mean, scale=self.scale, w1=self.w1, b1=self.b1, w2=self.w2,
                 b2=self.b2)

    @classmethod
    def averaged(cls, members: Sequence[StoneModel]) -> StoneModel:
        """One network whose logits are the mean of the members' logits, exactly: their
        hidden layers side by side, each member's own normalisation folded into its
        first layer. An ensemble's errors are fewer and less confident than a member's
        where the members err apart."""
        first = members[0]
        w1 = [member.w1 * (first.scale / member.scale)[:, None] for member in members]
        b1 = [member.b1 + ((first.mean - member.mean) / member.scale) @ member.w1
              for member in members]
        return cls(first.mean, first.scale, np.concatenate(w1, axis=1).astype(np.float32),
                   np.concatenate(b1).astype(np.float32),
                   (np.concatenate([member.w2 for member in members]) / len(members)
                    ).astype(np.float32),
                   np.mean([member.b2 for member in members], axis=0).astype(np.float32))

    def hidden(self, features: np.ndarray) -> np.ndarray:
        x = (features - self.mean) / self.scale
        return np.maximum(x @ self.w1 + self.b1, 0)

    def logits(self, features: np.ndarray) -> np.ndarray:
        """One row of the network's outputs before the softmax per row of ``features``."""
        return self.hidden(features) @ self.w2 + self.b2

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """One row of P(empty), P(black), P(white) per row of ``features``."""
        logits = self.logits(features)
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)
