"""A screenshot draws every stone of a colour alike: points read by their look-alikes.

On a photo no two stones look the same (light, grain, perspective), but a program
draws its stones, and its empty points, from a few pictures. So on a flat picture
(:func:`arena.photo.grid.flat_grid`) a point that the classifier doubts, or misreads
where a stone's faint outline is all that tells it from the board, is read as the
point it is the near copy of, where that point was read with confidence and looks
much more like it than any confident point of another class. Where none of a point's
near copies is a confident point, it and they are read alike, by the mean of their
probabilities: stones of a look the classifier doubts on every one of them (a dark
theme's black stones) take the reading most of the evidence gives. A point unlike
every other point (a lone stone of its colour) keeps the classifier's reading. (The
reader takes the looks with the marks on stones' faces, such as move numbers,
painted over.)
"""

from __future__ import annotations

import numpy as np

from arena.photo.stones import around, disc_offsets

__all__ = ["LOOK_RADIUS", "looks", "read_by_lookalikes"]

#: Radius of the disc a point's look is taken over, in cells: a stone and its outline,
#: short of its neighbours' (which start half a cell away at the closest).
LOOK_RADIUS = 0.44
#: Confidence from which a point vouches for its look-alikes.
ANCHOR_CONFIDENCE = 0.95
#: Root mean square difference (grey levels) under which two looks are near copies:
#: on the generated and real screenshots measured, 99 % of the points have a look-alike
#: of their own class within 13 to 33, and the points they mend within 10; a point of
#: another class was never nearer than 36.
NEAR_COPY = 16.0
#: A look-alike counts where every confident point of another class is at least this
#: many times farther.
CLEAR_MARGIN = 2.0

_DISC = disc_offsets(0.0, LOOK_RADIUS)


def looks(canvas: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Each point's look: the pixels of ``canvas`` (the board as drawn, in colour: a
    cross or a ring looks like crosses and rings, not like the bare cell it would be
    with the mark painted over) on a disc of :data:`LOOK_RADIUS` around the points
    centred at canvas pixels ``(ys, xs)``, one row per point (float32)."""
    return around(canvas.astype(np.float32), ys, xs, _DISC).reshape(len(ys), -1)


def _distances(rows: np.ndarray) -> np.ndarray:
    """Root mean square difference of every row from every row, a point's distance from
    itself left out (infinite)."""
    squares = np.einsum("ij,ij->i", rows, rows, dtype=np.float64)
    products = rows.astype(np.float64) @ rows.T.astype(np.float64)
    distance = np.sqrt(np.maximum(squares[:, None] + squares[None, :] - 2 * products, 0)
                       / rows.shape[1])
    np.fill_diagonal(distance, np.inf)
    return distance


def read_by_lookalikes(p: np.ndarray, point_looks: np.ndarray) -> np.ndarray:
    """The probabilities ``p`` (one row of P(empty), P(black), P(white) per point), each
    point's replaced by those of its near copy among the confidently read points where
    every confident point of another class is :data:`CLEAR_MARGIN` times farther; a
    point whose near copies are none of them confident, by the mean of theirs and its
    own. ``point_looks`` holds each point's :func:`looks`."""
    out = p.copy()
    clear = np.zeros(len(p), bool)
    anchors = p.max(axis=1) >= ANCHOR_CONFIDENCE
    every = _distances(point_looks)
    if anchors.any():
        distance = every[:, anchors]
        anchor_class = p.argmax(axis=1)[anchors]
        nearest = distance.argmin(axis=1)
        near = distance[np.arange(len(p)), nearest]
        other = np.where(anchor_class[None, :] != anchor_class[nearest][:, None], distance,
                         np.inf)
        clear = (near < NEAR_COPY) & (near * CLEAR_MARGIN < other.min(axis=1))
        out[clear] = p[anchors][nearest[clear]]
    # Where no near copy is a confident point, a point and its near copies, drawn
    # alike, are read alike: by the mean of their probabilities (a dark theme's black
    # stones, each doubted, some read empty).
    copies = every < NEAR_COPY
    np.fill_diagonal(copies, True)
    unvouched = ~copies[:, anchors].any(axis=1) & (copies.sum(axis=1) > 1)
    pooled = (copies.astype(np.float64) @ p) / copies.sum(axis=1, keepdims=True)
    out[unvouched] = pooled[unvouched]
    return out
