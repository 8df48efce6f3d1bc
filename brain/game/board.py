"""The game board: stones, move history, Zobrist hash and incremental line patterns.

Cells are numbered ``index = y * width + x`` (x the column, y the row, both from 0, as
in the Piskvork protocol). After every :meth:`Board.place` and :meth:`Board.undo` the
board refreshes, for the cells on the four lines through the changed cell, their line
keys, their :class:`~brain.game.patterns.Pattern` in each direction for both colours and their
combined :class:`~brain.game.patterns.Threat`, so "what would this move make?" is one array
read.
"""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from brain.game.patterns import (
    HALF,
    THREAT_WEIGHTS,
    WALL_CODE,
    Pattern,
    Threat,
    double_four_table,
    key_slot,
    line_table,
    threat_table,
)
from brain.game.rules import Rule

MIN_SIZE = 5
MAX_SIZE = 22

#: The four line directions as (dx, dy): horizontal, vertical, diagonal, anti-diagonal.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Color(enum.IntEnum):
    """A stone colour; black moves first."""

    BLACK = 1
    WHITE = 2

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK


EMPTY = 0


class BoardSizeError(ValueError):
    """A board size outside what the engine plays."""


class IllegalMoveError(ValueError):
    """A move off the board or onto an occupied cell."""


@dataclass(frozen=True)
class _Geometry:
    """Per-size precomputed index arrays shared by all boards of one size."""

    width: int
    height: int
    #: For each cell p: flat indices ``d * size + q`` of the (direction, cell) line keys
    #: that hold p.
    touched: tuple[np.ndarray, ...]
    #: ``steps[color][p]``: what a ``color`` stone on p adds to each of those keys (the
    #: colour code in p's two-bit slot); index 0 unused.
    steps: tuple[tuple[np.ndarray, ...], ...]
    #: For each cell p, indices into the flattened ``(3, 4 * size)`` pattern array and the
    #: flattened ``(3, size)`` threat array of the cells whose keys hold p: shape (2, 4, n)
    #: (both colours, four directions) and (2, n).
    pattern_index: tuple[np.ndarray, ...]
    threat_index: tuple[np.ndarray, ...]
    #: Line keys of the empty board (off-board neighbours marked as walls).
    empty_keys: np.ndarray


def _geometry(width: int, height: int) -> _Geometry:
    size = width * height
    touched: list[np.ndarray] = []
    units: list[np.ndarray] = []
    pattern_index: list[np.ndarray] = []
    threat_index: list[np.ndarray] = []
    empty_keys = np.zeros(4 * size, dtype=np.uint32)
    for p in range(size):
        px, py = p % width, p // width
        flat: list[int] = []
        unit: list[int] = []
        for d, (dx, dy) in enumerate(DIRECTIONS):
            for offset in range(-HALF, HALF + 1):
                if offset == 0:
                    continue
                # The cell q sees p at ``offset`` along direction d.
                qx, qy = px - offset * dx, py - offset * dy
                if 0 <= qx < width and 0 <= qy < height:
                    flat.append(d * size + qy * width + qx)
                    unit.append(1 << (2 * key_slot(offset)))
                # The neighbour of p at ``offset`` may be off the board.
                nx, ny = px + offset * dx, py + offset * dy
                if not (0 <= nx < width and 0 <= ny < height):
                    empty_keys[d * size + p] |= WALL_CODE << (2 * key_slot(offset))
        touched.append(np.array(flat, dtype=np.intp))
        units.append(np.array(unit, dtype=np.uint32))
        cells = np.unique(np.array(flat, dtype=np.intp) % size)
        lines = np.arange(4)[:, None] * size + cells[None, :]
        pattern_index.append(np.stack([color * 4 * size + lines for color in Color]))
        threat_index.append(np.stack([color * size + cells for color in Color]))
    steps = ((), *(tuple(unit * np.uint32(color) for unit in units) for color in Color))
    return _Geometry(width, height, tuple(touched), steps, tuple(pattern_index),
                     tuple(threat_index), empty_keys)


@functools.cache
def _colour_tables(rule: Rule) -> np.ndarray:
    """The line tables of both colours under ``rule``, indexed by colour (row 0 unused
    so that a Color indexes directly); built once and shared by every board (3 MB)."""
    black = line_table(rule.line_rule(Color.BLACK), Color.BLACK)
    white = line_table(rule.line_rule(Color.WHITE), Color.WHITE)
    tables = np.stack([np.zeros_like(black), black, white])
    tables.flags.writeable = False
    return tables


_GEOMETRIES: dict[tuple[int, int], _Geometry] = {}
_ZOBRIST_SEED = 0x9E3779B97F4A7C15


def _geometry_for(width: int, height: int) -> _Geometry:
    geometry = _GEOMETRIES.get((width, height))
    if geometry is None:
        geometry = _GEOMETRIES[(width, height)] = _geometry(width, height)
    return geometry


def _zobrist(size: int) -> tuple[list[int], list[int], list[int]]:
    rng = random.Random(_ZOBRIST_SEED + size)
    return ([0] * size, [rng.getrandbits(64) for _ in range(size)],
            [rng.getrandbits(64) for _ in range(size)])


class Board:
    """A Gomoku board of ``width`` x ``height`` cells under one :class:`Rule`.

    The side to move alternates with :meth:`play`; :meth:`place` puts a stone of a given
    colour (for positions whose stones do not alternate) and leaves the side to move as
    the opponent of that colour. Neither checks renju forbidden points: a forbidden move
    is legal to play and loses, which is the referee's business
    (:func:`brain.game.forbidden.is_forbidden`).
    """

    def __init__(self, width: int, height: int | None = None,
                 rule: Rule = Rule.FREESTYLE) -> None:
        height = width if height is None else height
        for name, value in (("width", width), ("height", height)):
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise BoardSizeError(
                    f"board {name} {value} is not supported: use {MIN_SIZE} to {MAX_SIZE}"
                )
        self.width = width
        self.height = height
        self.size = width * height
        self.rule = rule
        self._geo = _geometry_for(width, height)
        self._zobrist = _zobrist(self.size)
        self._tables = _colour_tables(rule)
        self._threat_table = threat_table()
        self._direction_offsets = np.arange(4, dtype=np.intp)[:, None] * self.size
        self._double_four = double_four_table() if rule.has_forbidden_moves else None
        self.clear()

    def clear(self) -> None:
        """Remove every stone; black is to move."""
        self.cells = bytearray(self.size)
        self.keys = self._geo.empty_keys.copy()
        #: ``patterns[color, d * size + q]``: what ``color`` makes on q along direction d.
        self.patterns = np.ascontiguousarray(self._tables[:, self.keys])
        #: ``threats[color, q]``: what ``color`` makes on q over the four lines.
        self.threats = np.zeros((3, self.size), dtype=np.uint8)
        self.threats[1:] = self._threat_table[
            THREAT_WEIGHTS @ self.patterns[1:].reshape(2, 4, self.size)]
        self._flat_views()
        #: All zeros between calls of :meth:`threats_after`, which lays a stone's key
        #: steps out in it.
        self._key_steps = np.zeros(4 * self.size, dtype=np.uint32)
        self.history: list[tuple[int, Color]] = []
        self.to_move = Color.BLACK
        self.hash = 0
        self.stone_count = [0, 0, 0]

    # -- coordinates -------------------------------------------------------------------

    def index(self, x: int, y: int) -> int:
        """Cell index of column x, row y; raises :class:`IllegalMoveError` off the board."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IllegalMoveError(
                f"{x},{y} is off the {self.width}x{self.height} board"
            )
        return y * self.width + x

    def xy(self, index: int) -> tuple[int, int]:
        """Column and row of a cell index."""
        return index % self.width, index // self.width

    # -- moves -------------------------------------------------------------------------

    def place(self, index: int, color: Color) -> None:
        """Put a ``color`` stone on the empty cell ``index``; the opponent moves next."""
        if not 0 <= index < self.size:
            raise IllegalMoveError(f"cell {index} is off the board")
        if self.cells[index]:
            x, y = self.xy(index)
            raise IllegalMoveError(f"{x},{y} is already occupied")
        self.cells[index] = color
        self.history.append((index, color))
        self.stone_count[color] += 1
        self.hash ^= self._zobrist[color][index]
        self.to_move = color.opponent
        self._update(index, color, add=True)

    def play(self, index: int) -> None:
        """Play the side to move's stone on ``index``."""
        self.place(index, self.to_move)

    def undo(self) -> tuple[int, Color]:
        """Take back the last stone and return it; its colour is to move again."""
        if not self.history:
            raise IllegalMoveError("there is no move to take back")
        index, color = self.history.pop()
        self.cells[index] = EMPTY
        self.stone_count[color] -= 1
        self.hash ^= self._zobrist[color][index]
        self.to_move = color
        self._update(index, color, add=False)
        return index, color

    def _flat_views(self) -> None:
        """Flat views of the (C-contiguous) pattern and threat arrays, which
        :meth:`_update` writes through with precomputed indices."""
        self._patterns_flat = self.patterns.reshape(-1)
        self._threats_flat = self.threats.reshape(-1)

    def _update(self, index: int, color: Color, add: bool) -> None:
        # The hot path of every search: few numpy calls, each over all touched cells.
        geo = self._geo
        touched = geo.touched[index]
        keys = self.keys[touched]
        keys = keys + geo.steps[color][index] if add else keys - geo.steps[color][index]
        self.keys[touched] = keys
        self.patterns[1:, touched] = self._tables[1:, keys]
        self._threats_flat[geo.threat_index[index]] = self._threat_table[
            THREAT_WEIGHTS @ self._patterns_flat[geo.pattern_index[index]]]

    # -- queries -----------------------------------------------------------------------

    @property
    def last_move(self) -> int | None:
        """The cell of the last stone placed, or None on an empty board."""
        return self.history[-1][0] if self.history else None

    @property
    def move_count(self) -> int:
        return len(self.history)

    def is_empty(self, index: int) -> bool:
        return self.cells[index] == EMPTY

    def is_full(self) -> bool:
        return len(self.history) >= self.size

    def pattern(self, color: Color, index: int, direction: int) -> Pattern:
        """What ``color`` would make on the empty cell ``index`` along ``direction``."""
        return Pattern(self.patterns[color, direction * self.size + index])

    def threat(self, color: Color, index: int) -> Threat:
        """What ``color`` would make on the empty cell ``index`` over all four lines."""
        return Threat(self.threats[color, index])

    def makes_five(self, index: int, color: Color) -> bool:
        """Whether ``color`` playing the empty cell ``index`` wins by the rule's five."""
        return bool(self.threats[color, index] == Threat.FIVE)

    def empty_cells(self) -> np.ndarray:
        """Indices of all empty cells."""
        return np.flatnonzero(np.frombuffer(self.cells, dtype=np.uint8) == EMPTY)

    def winning_cells(self, color: Color) -> np.ndarray:
        """Empty cells where ``color`` would make a winning five now."""
        return np.flatnonzero(
            (self.threats[color] == Threat.FIVE)
            & (np.frombuffer(self.cells, dtype=np.uint8) == EMPTY)
        )

    def threats_after(self, color: Color, cells: np.ndarray, stone: int,
                      stone_color: Color) -> np.ndarray:
        """What ``color`` would make on each of the empty ``cells`` were a
        ``stone_color`` stone on the empty cell ``stone``: :attr:`threats` after
        :meth:`place`, read without placing (only the lines of ``cells`` are looked up,
        which is several times cheaper than a place and an undo)."""
        geo = self._geo
        lines = self._direction_offsets + cells[None, :]
        touched = geo.touched[stone]
        steps = self._key_steps
        steps[touched] = geo.steps[stone_color][stone]
        keys = self.keys[lines] + steps[lines]
        steps[touched] = 0
        return self._threat_table[THREAT_WEIGHTS @ self._tables[color][keys]]

    def line_double_four(self, index: int, direction: int) -> bool:
        """Renju: whether black on ``index`` makes two fours in one line along ``direction``."""
        if self._double_four is None:
            return False
        return bool(self._double_four[self.keys[direction * self.size + index]])

    def stones(self) -> Iterator[tuple[int, Color]]:
        """Stones in the order they were placed."""
        return iter(self.history)

    def __str__(self) -> str:
        symbols = {EMPTY: ".", Color.BLACK: "X", Color.WHITE: "O"}
        return "\n".join(
            " ".join(symbols[self.cells[y * self.width + x]] for x in range(self.width))
            for y in range(self.height)
        )

    def copy(self) -> Board:
        """An independent board with the same stones, history and side to move."""
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.cells = bytearray(self.cells)
        other.keys = self.keys.copy()
        other.patterns = self.patterns.copy()
        other.threats = self.threats.copy()
        other._flat_views()
        other._key_steps = np.zeros_like(self._key_steps)
        other.history = list(self.history)
        other.stone_count = list(self.stone_count)
        return other
