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

And a program draws its two players' stones in two looks: where the counts read come
from no game, the faces drawn on the board are split into their two colours, and kept
where the counts then come from one (:func:`read_by_two_looks`).
"""

from __future__ import annotations

import numpy as np

from arena.photo.position import BLACK, EMPTY, WHITE, count_problem
from arena.photo.stones import CELL, around, disc_offsets

__all__ = ["LOOK_RADIUS", "looks", "read_by_lookalikes", "read_by_two_looks"]

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

#: Colour distance (BGR grey levels) of a point's face from the board's beyond which it
#: is drawn on, at the least: a flat board's bare points lie within a few levels, a
#: wood texture's within 36, stones 55 and more (cream on a light grey board).
DRAWN = 40.0
#: ... or this many times the bare points' median distance (a wood grain's).
DRAWN_GRAIN = 4.0
#: Each face at least this many times nearer its own look's mean than the other's, and
#: the two means at least this far apart (BGR grey levels): one colour's stones drawn
#: with a little shading differ by 20 (four black stones of a set-up position split
#: into two and two, and were read as two of each), two players' colours by 140 or
#: more (navy and teal, black and silver).
TWO_LOOKS_APART, TWO_COLOURS = 2.0, 60.0
#: Two looks whose mean colours both spread this much or more over their channels (BGR
#: grey levels) are two hues: yellow's 170 and purple's 100; teal's 132 but navy's 36,
#: cream's 40, and black, white and grey stones' none.
HUES = 60.0
#: The probability a point read by its look's colour is given.
LOOK_CONFIDENCE = ANCHOR_CONFIDENCE

_DISC = disc_offsets(0.0, LOOK_RADIUS)
#: A stone's face, within a look's disc: clear of its outline and of lines' ends.
_FACE = np.hypot(*_DISC) / CELL < 0.3


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


def _faces(point_looks: np.ndarray) -> np.ndarray:
    """Each point's face colour: the median of its look's :data:`_FACE` pixels, per
    channel (a line through the centre, a thin glyph, a highlight are outvoted)."""
    pixels = point_looks.reshape(len(point_looks), -1, 3)[:, _FACE]
    return np.median(pixels, axis=1)


def _lightness(colour: np.ndarray) -> tuple[float, float]:
    """How light a BGR colour is: the mean of its channels (Piskvork's wood skin draws
    the first player's crosses red and the second's rings dark blue, its faces over the
    wood lighter by that mean where red and blue lie in grey the other way), and where
    that ties (red and blue discs), grey's (blue darker than red)."""
    return float(colour.mean()), float(colour @ np.array([0.114, 0.587, 0.299]))


def _two_means(faces: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Which of two colours each face is (0: the darker, 1: the lighter), and the two
    colours' means, where the faces split so clearly that each is
    :data:`TWO_LOOKS_APART` times nearer its own colour's mean than the other's, and
    the means lie :data:`TWO_COLOURS` apart; else None."""
    # Two-means from two faces far apart: the one farthest from them all, and the one
    # farthest from it (the darkest and the lightest are no pair where the colours are
    # as light as each other: red and blue discs).
    start = int(np.linalg.norm(faces - faces.mean(axis=0), axis=1).argmax())
    means = faces[[start, int(np.linalg.norm(faces - faces[start], axis=1).argmax())]]
    side = np.full(len(faces), -1)
    for _ in range(20):
        distance = np.linalg.norm(faces[:, None, :] - means[None], axis=2)
        new = distance.argmin(axis=1)
        if (new == side).all():
            break
        side = new
        if side.min() == side.max():
            return None
        means = np.stack([faces[side == k].mean(axis=0) for k in (0, 1)])
    if _lightness(means[0]) > _lightness(means[1]):
        side, distance, means = 1 - side, distance[:, ::-1], means[::-1]
    rows = np.arange(len(faces))
    own, other = distance[rows, side], distance[rows, 1 - side]
    apart = float(np.linalg.norm(means[1] - means[0])) >= TWO_COLOURS
    return (side, means) if apart and (own * TWO_LOOKS_APART <= other).all() else None


def _no_game(classes: np.ndarray, first: int) -> bool:
    """Whether the classes read (one a point) give counts that no game whose ``first``
    colour moved first reaches."""
    black, white = int((classes == BLACK).sum()), int((classes == WHITE).sum())
    return count_problem(black, white, first) is not None


def read_by_two_looks(p: np.ndarray, point_looks: np.ndarray, negative: bool,
                      first: int = BLACK, stars: np.ndarray | None = None) -> np.ndarray:
    """The probabilities ``p`` of a flat picture's points whose reading no game whose
    ``first`` colour moved first gives (:func:`arena.photo.position.count_problem`),
    read again by the two looks a program draws its stones in: the points whose faces
    are drawn on the board (read as stones, or far from the bare points' colour:
    :data:`DRAWN`) split into two colours (:func:`_two_means`), the lighter white, the
    darker black (the other way round on a board's ``negative``). Kept only where the
    counts then come from a game; else ``p`` as it was. This mends a player's stones
    all read as the other's (teal and navy discs read black) and stones as pale as the
    board read empty (silver, cream), which the counts tell wrong where the looks tell
    them apart; where both looks are hues (:data:`HUES`) and only the other order
    gives a game, in that order. ``stars``: the points where the board draws its star
    points, a dot or a square, which are drawn faces too but no stones unless read as
    stones or drawn as stones drawn off them are."""
    reading = p.argmax(axis=1)
    if not _no_game(reading, first):
        return p
    bare = reading == EMPTY
    if not bare.any():
        return p
    faces = _faces(point_looks)
    off = np.linalg.norm(faces - np.median(faces[bare], axis=0), axis=1)
    drawn = off > max(DRAWN, DRAWN_GRAIN * float(np.median(off[bare])))
    if stars is not None:
        # A star point is drawn on only where a stone hides it: its look a near copy
        # of a stone's off the star points (a yellow disc on one, read empty as every
        # yellow disc was, stayed empty while those off them were mended).
        copies = _distances(point_looks)[np.ix_(stars, drawn & ~stars)] < NEAR_COPY
        drawn[stars] = copies.any(axis=1)
    drawn |= ~bare
    if drawn.sum() < 2:
        return p
    split = _two_means(faces[drawn])
    if split is None:
        return p
    side, means = split
    lighter = BLACK if negative else WHITE
    colours = np.where(side == 1, lighter, BLACK + WHITE - lighter)
    if _no_game(colours, first):
        # Two hues, neither black nor white (yellow and purple cells), tell no colour
        # by lightness: the counts do, the look played more having moved first.
        if np.ptp(means, axis=1).min() < HUES:
            return p
        colours = BLACK + WHITE - colours
        if _no_game(colours, first):
            return p
    out = p.copy()
    doubt = (1 - LOOK_CONFIDENCE) / 2
    out[drawn] = doubt
    out[np.flatnonzero(drawn), colours] = LOOK_CONFIDENCE
    return out
