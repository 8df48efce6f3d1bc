"""The position read from a picture: the stones, a confidence per point, and its forms
for people and programs (a text diagram, SGF setup stones, a Piskvork ``.psq``, the move
list a brain is given).

Coordinates are the protocol's: ``(x, y)`` from 0 at the top left of the picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["BLACK", "COLOURS", "COLOUR_NAMES", "EMPTY", "MIN_CONFIDENCE", "TRADED", "WHITE",
           "Layout", "Position", "count_problem"]

EMPTY, BLACK, WHITE = 0, 1, 2
#: Each colour with black and white traded, by index (a board's negative shows its
#: black stones light, its white ones dark).
TRADED = np.array([EMPTY, WHITE, BLACK], np.int8)
#: Below this probability a point's reading is not trusted.
MIN_CONFIDENCE = 0.8
#: Where the stones stand: on the intersections of the lines (Go boards, the web board)
#: or in the cells between them (paper, Piskvork).
Layout = Literal["points", "cells"]
_SYMBOLS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
#: The stones' colours by name (``--first``, the labels' ``"first"``), and back.
COLOURS = {"black": BLACK, "white": WHITE}
COLOUR_NAMES = {colour: name for name, colour in COLOURS.items()}
_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def count_problem(black: int, white: int, first: int = BLACK) -> str | None:
    """Why ``black`` black and ``white`` white stones cannot come from a game whose
    ``first`` colour moved first (it has as many stones as the other or one more), or
    ``None``."""
    first_name, second_name = COLOUR_NAMES[first], COLOUR_NAMES[BLACK + WHITE - first]
    ahead = black - white if first == BLACK else white - black
    if ahead in (0, 1):
        return None
    hint = (" (if white moves first in the program shown: arena photo --first white)"
            if first == BLACK and ahead == -1 else "")
    return (f"{black} black and {white} white stones cannot come from a game: {first_name} "
            f"moves first, so {first_name} has as many stones as {second_name} or one more"
            f"{hint}")


@dataclass(frozen=True)
class Position:
    """A board as read: ``stones[y, x]`` is :data:`EMPTY`, :data:`BLACK` or :data:`WHITE`,
    ``confidence[y, x]`` the reader's probability (0 to 1) that it is right there."""

    stones: np.ndarray
    confidence: np.ndarray
    layout: Layout
    first: int = BLACK  # the colour that moved first (black in Gomoku; some programs: white)

    @property
    def width(self) -> int:
        return int(self.stones.shape[1])

    @property
    def height(self) -> int:
        return int(self.stones.shape[0])

    @property
    def size_text(self) -> str:
        return f"{self.width}x{self.height}"

    def count(self, colour: int) -> int:
        return int(np.count_nonzero(self.stones == colour))

    def counts_problem(self) -> str | None:
        """Why no game whose :attr:`first` colour moved first leaves these counts of
        stones (:func:`count_problem`), or None."""
        return count_problem(self.count(BLACK), self.count(WHITE), self.first)

    def points(self, colour: int) -> list[tuple[int, int]]:
        """The ``(x, y)`` of every stone of ``colour``, row by row."""
        ys, xs = np.nonzero(self.stones == colour)
        return [(int(x), int(y)) for y, x in zip(ys, xs, strict=True)]

    def to_move(self) -> int:
        """The colour whose turn it is: the one with fewer stones, the first on a tie."""
        if self.count(BLACK) == self.count(WHITE):
            return self.first
        return BLACK if self.count(BLACK) < self.count(WHITE) else WHITE

    def moves(self) -> list[tuple[int, int]]:
        """The stones as a move list a brain or a game record takes: the two colours in
        turn, :attr:`first` first, each colour row by row.

        :raises ValueError: the counts cannot come from a game (:func:`count_problem`).
        """
        problem = self.counts_problem()
        if problem is not None:
            raise ValueError(problem)
        black, white = self.points(BLACK), self.points(WHITE)
        leading, following = (black, white) if self.first == BLACK else (white, black)
        order: list[tuple[int, int]] = []
        for k, point in enumerate(leading):
            order.append(point)
            if k < len(following):
                order.append(following[k])
        return order

    def diagram(self, *, uncertain_below: float = 0.0) -> str:
        """The board as text: ``X`` black, ``O`` white, ``.`` empty, ``?`` where the
        confidence is below ``uncertain_below``; columns and rows numbered from 0."""
        header = "    " + " ".join(f"{x:>2}" for x in range(self.width))
        rows = [header]
        for y in range(self.height):
            cells = []
            for x in range(self.width):
                sure = self.confidence[y, x] >= uncertain_below
                cells.append(_SYMBOLS[int(self.stones[y, x])] if sure else "?")
            rows.append(f"{y:>3} " + " ".join(f"{c:>2}" for c in cells))
        return "\n".join(rows)

    def to_sgf(self, comment: str = "") -> str:
        """SGF with the stones as setup properties (``AB``/``AW``), ``SZ`` and ``PL``
        (the side to move), readable by Go and Gomoku programs alike."""
        if max(self.width, self.height) > len(_SGF_LETTERS):
            raise ValueError(f"SGF cannot hold a {self.size_text} board")
        size = str(self.width) if self.width == self.height else f"{self.width}:{self.height}"
        parts = ["(;FF[4]GM[4]CA[UTF-8]AP[pbrain-zero arena photo]", f"SZ[{size}]"]
        for prop, colour in (("AB", BLACK), ("AW", WHITE)):
            points = self.points(colour)
            if points:
                parts.append(prop + "".join(f"[{_SGF_LETTERS[x]}{_SGF_LETTERS[y]}]"
                                            for x, y in points))
        parts.append("PL[B]" if self.to_move() == BLACK else "PL[W]")
        if comment:
            parts.append("C[" + comment.replace("\\", "\\\\").replace("]", "\\]") + "]")
        return "".join(parts) + ")\n"

    def to_psq(self) -> str:
        """Piskvork ``.psq`` text: the stones as moves in turn (:meth:`moves`), 1-based
        (a record has no colours, only the order: its first move is the first player's).

        :raises ValueError: the counts cannot come from a game.
        """
        lines = [f"Piskvorky {self.width}x{self.height}, 11:11, 0"]
        lines += [f"{x + 1},{y + 1},0" for x, y in self.moves()]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, object]:
        """The position for the web board."""
        return {"width": self.width, "height": self.height, "layout": self.layout,
                "stones": self.stones.astype(int).tolist(),
                "confidence": np.round(self.confidence, 3).tolist()}
