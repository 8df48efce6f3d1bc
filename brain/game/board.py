"""The game board: stones, move history, Zobrist hash and incremental line patterns.

Cells are numbered ``index = y * width + x`` (x the column, y the row, both from 0, as
in the Piskvork protocol). After every :meth:`Board.place` and :meth:`Board.undo` the
board refreshes, for the cells on the four lines through the changed cell, their line
keys, their :class:`~brain.game.patterns.Pattern` in each direction for both colours and their
combined :class:`~brain.game.patterns.Threat`, so "what would this move make?" is one array
read.

The module is written in Cython's pure-Python mode (see :mod:`brain.native`): the
board keeps its state in numpy arrays, which the rest of the code reads, and the hot
paths (:meth:`Board._update` and the cell queries) walk them as typed memoryviews in flat
loops, which the compiled module runs as C.
"""

from __future__ import annotations

import enum
import functools
import random
from collections.abc import Iterator
from dataclasses import dataclass

import cython
import numpy as np

from brain.errors import PbrainError
from brain.game.patterns import (
    HALF,
    PATTERN_COUNT,
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


class BoardSizeError(PbrainError, ValueError):
    """A board size outside what the engine plays."""


class IllegalMoveError(PbrainError, ValueError):
    """A move off the board or onto an occupied cell."""


@dataclass(frozen=True)
class _Geometry:
    """Per-size precomputed index arrays shared by all boards of one size, flat for the
    typed loops: the line keys (``d * size + q``) that hold cell p are
    ``touch_line[touch_start[p]:touch_start[p + 1]]``, with ``touch_unit`` the step a
    black stone on p adds to each (the colour code in p's two-bit slot; white: twice
    that); the cells whose threats those keys decide are
    ``cell_list[cell_start[p]:cell_start[p + 1]]``."""

    width: int
    height: int
    touch_start: np.ndarray
    touch_line: np.ndarray
    touch_unit: np.ndarray
    cell_start: np.ndarray
    cell_list: np.ndarray
    #: Line keys of the empty board (off-board neighbours marked as walls).
    empty_keys: np.ndarray


def _geometry(width: int, height: int) -> _Geometry:
    size = width * height
    lines: list[int] = []
    units: list[int] = []
    touch_start = [0]
    cells: list[int] = []
    cell_start = [0]
    empty_keys = np.zeros(4 * size, dtype=np.uint32)
    for p in range(size):
        px, py = p % width, p // width
        for d, (dx, dy) in enumerate(DIRECTIONS):
            for offset in range(-HALF, HALF + 1):
                if offset == 0:
                    continue
                # The cell q sees p at ``offset`` along direction d.
                qx, qy = px - offset * dx, py - offset * dy
                if 0 <= qx < width and 0 <= qy < height:
                    lines.append(d * size + qy * width + qx)
                    units.append(1 << (2 * key_slot(offset)))
                # The neighbour of p at ``offset`` may be off the board.
                nx, ny = px + offset * dx, py + offset * dy
                if not (0 <= nx < width and 0 <= ny < height):
                    empty_keys[d * size + p] |= WALL_CODE << (2 * key_slot(offset))
        touch_start.append(len(lines))
        cells.extend(sorted({line % size for line in lines[touch_start[-2]:]}))
        cell_start.append(len(cells))
    return _Geometry(width, height, np.array(touch_start, dtype=np.int32),
                     np.array(lines, dtype=np.int32), np.array(units, dtype=np.uint32),
                     np.array(cell_start, dtype=np.int32), np.array(cells, dtype=np.int32),
                     empty_keys)


@functools.cache
def _colour_tables(rule: Rule) -> np.ndarray:
    """The line tables of both colours under ``rule``, indexed by line key, then colour
    (column 0 unused so that a Color indexes directly); built once and shared by every
    board (3 MB). Key-major, so that a move's lookups of both colours' patterns share
    a cache line. Its ``base`` is the same memory, writable."""
    black = line_table(rule.line_rule(Color.BLACK), Color.BLACK)
    white = line_table(rule.line_rule(Color.WHITE), Color.WHITE)
    tables = np.stack([np.zeros_like(black), black, white], axis=1)
    # Read-only for every reader; the boards' typed views take the (never written)
    # base array, as a typed memoryview needs a writable buffer.
    shared = tables.view()
    shared.flags.writeable = False
    return shared


_GEOMETRIES: dict[tuple[int, int], _Geometry] = {}
_ZOBRIST_SEED = 0x9E3779B97F4A7C15


def _geometry_for(width: int, height: int) -> _Geometry:
    geometry = _GEOMETRIES.get((width, height))
    if geometry is None:
        geometry = _GEOMETRIES[(width, height)] = _geometry(width, height)
    return geometry


def prepare_tables(width: int, height: int, rule: Rule) -> None:
    """Build (once, for every later board) the tables a ``width`` x ``height`` board
    under ``rule`` uses: a brain calls it while it waits for its first move request, so
    that the move does not pay for them."""
    _geometry_for(width, height)
    _colour_tables(rule)
    threat_table()


def _zobrist(size: int) -> tuple[list[int], list[int], list[int]]:
    rng = random.Random(_ZOBRIST_SEED + size)
    return ([0] * size, [rng.getrandbits(64) for _ in range(size)],
            [rng.getrandbits(64) for _ in range(size)])


_OPPONENT = (None, Color.WHITE, Color.BLACK)
_FIVE = cython.declare(cython.int, int(Threat.FIVE))
#: :data:`~brain.game.patterns.THREAT_WEIGHTS` of directions 1 to 3.
_W1 = cython.declare(cython.int, PATTERN_COUNT)
_W2 = cython.declare(cython.int, PATTERN_COUNT**2)
_W3 = cython.declare(cython.int, PATTERN_COUNT**3)


@cython.cclass
class Board:
    """A Gomoku board of ``width`` x ``height`` cells under one :class:`Rule`.

    The side to move alternates with :meth:`play`; :meth:`place` puts a stone of a given
    colour (for positions whose stones do not alternate) and leaves the side to move as
    the opponent of that colour. Neither checks renju forbidden points: a forbidden move
    is legal to play and loses, which is the referee's business
    (:func:`brain.game.forbidden.is_forbidden`).
    """

    # The attributes and the C methods are declared in board.pxd. ``cells`` holds the
    # cell contents (0 empty, else the Color); ``keys[d * size + q]`` the line key of
    # cell q along direction d; ``patterns[color, d * size + q]`` what ``color`` makes on
    # q along direction d; ``threats[color, q]`` what it makes on q over the four lines;
    # ``_key_steps`` is all zeros between calls of threats_after, which lays a stone's
    # key steps out in it; the ``_*_v`` fields are typed views of the arrays, for the
    # flat loops.

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
        #: Whether black's moves must pass the renju foul check (a C flag for the searches).
        self.black_fouls = rule.has_forbidden_moves
        self._geo = _geometry_for(width, height)
        self._zobrist = _zobrist(self.size)
        self._tables = _colour_tables(rule)
        self._threat_table = threat_table()
        self._double_four = double_four_table() if rule.has_forbidden_moves else None
        self._shared_views()
        self.clear()

    def _shared_views(self) -> None:
        """Views of the arrays that boards of one size and rule share (read only)."""
        geo = self._geo
        self._tables_v = memoryview(self._tables.base)
        self._threat_table_v = memoryview(self._threat_table)
        self._touch_start = memoryview(geo.touch_start)
        self._touch_line = memoryview(geo.touch_line)
        self._touch_unit = memoryview(geo.touch_unit)
        self._cell_start = memoryview(geo.cell_start)
        self._cell_list = memoryview(geo.cell_list)
        if self._double_four is not None:
            self._double_four_v = memoryview(self._double_four.view(np.uint8))

    def _own_views(self) -> None:
        """Views of this board's own arrays, which the flat loops read and write (Python
        memoryviews: uncompiled, their items are plain ints, which do not overflow)."""
        self._cells_v = memoryview(self.cells)
        self._keys_v = memoryview(self.keys)
        self._steps_v = memoryview(self._key_steps)
        self._patterns_v = memoryview(self.patterns.reshape(-1))
        self._threats_v = memoryview(self.threats.reshape(-1))

    def clear(self) -> None:
        """Remove every stone; black is to move."""
        self.cells = bytearray(self.size)
        self.keys = self._geo.empty_keys.copy()
        self.patterns = np.ascontiguousarray(self._tables[self.keys].T)
        self.threats = np.zeros((3, self.size), dtype=np.uint8)
        self.threats[1:] = self._threat_table[
            THREAT_WEIGHTS @ self.patterns[1:].reshape(2, 4, self.size)]
        self._key_steps = np.zeros(4 * self.size, dtype=np.uint32)
        self._own_views()
        self.history = []
        self.to_move = Color.BLACK
        self.hash = 0
        self.stone_count = [0, 0, 0]
        if cython.compiled:
            self._count_levels()

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

    @cython.ccall
    def place(self, index: cython.int, color: Color):
        """Put a ``color`` stone on the empty cell ``index``; the opponent moves next."""
        if not 0 <= index < self.size:
            raise IllegalMoveError(f"cell {index} is off the board")
        if self._cells_v[index]:
            x, y = self.xy(index)
            raise IllegalMoveError(f"{x},{y} is already occupied")
        self._cells_v[index] = color
        self.history.append((index, color))
        self.stone_count[color] += 1
        self.hash ^= self._zobrist[color][index]
        self.to_move = _OPPONENT[color]
        self._update(index, color, True)

    @cython.ccall
    def play(self, index: cython.int):
        """Play the side to move's stone on ``index``."""
        self.place(index, self.to_move)

    @cython.ccall
    @cython.locals(index=cython.int)
    def undo(self) -> tuple:
        """Take back the last stone and return it; its colour is to move again."""
        if not self.history:
            raise IllegalMoveError("there is no move to take back")
        index, color = self.history.pop()
        self._cells_v[index] = EMPTY
        self.stone_count[color] -= 1
        self.hash ^= self._zobrist[color][index]
        self.to_move = color
        self._update(index, color, False)
        return index, color

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.int, line=cython.int, q=cython.int, c=cython.int,
                   base=cython.int, n4=cython.int, size=cython.int, key=cython.uint,
                   step=cython.uint, t=cython.int, empty=cython.bint,
                   keys=cython.p_uint, patterns=cython.p_uchar, threats=cython.p_uchar,
                   tables=cython.p_uchar, threat_table=cython.p_uchar,
                   touch_line=cython.p_int, touch_unit=cython.p_uint, cell_list=cython.p_int,
                   cells=cython.p_uchar, counts=cython.p_int)
    def _update(self, index: cython.int, color: cython.int, add: cython.bint) -> cython.void:
        # The hot path of every search: the keys of the lines through the cell, their
        # patterns for both colours, then the threats of the cells on those lines.
        if not cython.compiled:  # uncompiled, a few numpy calls beat the loops
            self._update_numpy(index, color, add)
            return
        # Raw pointers in locals: through the views, every byte stored could alias the
        # views' own fields, which C would then reload at each step.
        keys = cython.address(self._keys_v[0])
        patterns = cython.address(self._patterns_v[0])
        threats = cython.address(self._threats_v[0])
        tables = cython.address(self._tables_v[0, 0])
        threat_table = cython.address(self._threat_table_v[0])
        touch_line = cython.address(self._touch_line[0])
        touch_unit = cython.address(self._touch_unit[0])
        cell_list = cython.address(self._cell_list[0])
        cells = cython.address(self._cells_v[0])
        counts = cython.address(self._level_count[0][0])  # 16 levels a colour (board.pxd)
        size = self.size
        n4 = 4 * size
        # The cell itself leaves (or rejoins) the empty cells; its own threats do not
        # change, as its line keys hold only its neighbours.
        for c in range(1, 3):
            counts[c * 16 + threats[c * size + index]] += -1 if add else 1
        for i in range(self._touch_start[index], self._touch_start[index + 1]):
            line = touch_line[i]
            step = touch_unit[i] * color
            key = keys[line] + step if add else keys[line] - step
            keys[line] = key
            # Three columns a key: none, black, white (_colour_tables).
            patterns[n4 + line] = tables[3 * key + 1]
            patterns[2 * n4 + line] = tables[3 * key + 2]
        for i in range(self._cell_start[index], self._cell_start[index + 1]):
            q = cell_list[i]
            empty = not cells[q]
            for c in range(1, 3):
                base = c * n4 + q
                t = threat_table[patterns[base] + _W1 * patterns[base + size]
                                 + _W2 * patterns[base + 2 * size]
                                 + _W3 * patterns[base + 3 * size]]
                if empty:
                    counts[c * 16 + threats[c * size + q]] -= 1
                    counts[c * 16 + t] += 1
                threats[c * size + q] = t

    @cython.cfunc
    @cython.locals(c=cython.int, q=cython.int, t=cython.int)
    def _count_levels(self) -> cython.void:
        # Compiled only (the C array does not exist uncompiled): the empty cells per
        # colour and threat level, from scratch; _update keeps them from then on, so
        # that the threat queries skip their board scan when no cell qualifies.
        for c in range(3):
            for t in range(16):
                self._level_count[c][t] = 0
        for c in range(1, 3):
            for q in range(self.size):
                if not self._cells_v[q]:
                    self._level_count[c][self._threats_v[c * self.size + q]] += 1

    @cython.cfunc
    @cython.locals(c=cython.int, t=cython.int)
    def _copy_levels(self, source: Board) -> cython.void:
        for c in range(3):
            for t in range(16):
                self._level_count[c][t] = source._level_count[c][t]

    @cython.cfunc
    @cython.locals(t=cython.int, total=cython.int)
    def _count_between(self, color: cython.int, low: cython.int,
                       high: cython.int) -> cython.int:
        # Compiled only: how many empty cells have a ``color`` threat in low..high.
        total = 0
        for t in range(max(low, 0), min(high, _FIVE) + 1):
            total += self._level_count[color][t]
        return total

    def _update_numpy(self, index: int, color: int, add: bool) -> None:
        """:meth:`_update` as whole-array numpy calls (the uncompiled module's)."""
        geo = self._geo
        lines = geo.touch_line[geo.touch_start[index]:geo.touch_start[index + 1]]
        units = geo.touch_unit[geo.touch_start[index]:geo.touch_start[index + 1]]
        steps = units * np.uint32(color)
        keys = self.keys[lines] + steps if add else self.keys[lines] - steps
        self.keys[lines] = keys
        self.patterns[1:, lines] = self._tables[keys, 1:].T
        cells = geo.cell_list[geo.cell_start[index]:geo.cell_start[index + 1]]
        lines_of_cells = self.patterns[1:].reshape(2, 4, self.size)[:, :, cells]
        self.threats[1:, cells] = self._threat_table[THREAT_WEIGHTS @ lines_of_cells]

    # -- queries -----------------------------------------------------------------------

    @property
    def last_move(self) -> int | None:
        """The cell of the last stone placed, or None on an empty board."""
        return self.history[-1][0] if self.history else None

    @property
    def move_count(self) -> int:
        return len(self.history)

    def is_empty(self, index: int) -> bool:
        return self._cells_v[index] == EMPTY

    @cython.ccall
    def is_full(self) -> cython.bint:
        return len(self.history) >= self.size

    def pattern(self, color: Color, index: int, direction: int) -> Pattern:
        """What ``color`` would make on the empty cell ``index`` along ``direction``."""
        return Pattern(self.line_pattern(color, index, direction))

    def threat(self, color: Color, index: int) -> Threat:
        """What ``color`` would make on the empty cell ``index`` over all four lines."""
        return Threat(self.threat_at(color, index))

    @cython.ccall
    def line_pattern(self, color: cython.int, index: cython.int,
                     direction: cython.int) -> cython.int:
        """:meth:`pattern` as a plain int (for the hot paths)."""
        return self._patterns_v[(color * 4 + direction) * self.size + index]

    @cython.ccall
    def threat_at(self, color: cython.int, index: cython.int) -> cython.int:
        """:meth:`threat` as a plain int (for the hot paths)."""
        return self._threats_v[color * self.size + index]

    def makes_five(self, index: int, color: Color) -> bool:
        """Whether ``color`` playing the empty cell ``index`` wins by the rule's five."""
        return self.threat_at(color, index) == _FIVE

    def empty_cells(self) -> np.ndarray:
        """Indices of all empty cells."""
        return np.flatnonzero(self._empty())

    def _empty(self) -> np.ndarray:
        """Boolean mask of the empty cells."""
        return np.frombuffer(self.cells, dtype=np.uint8) == EMPTY

    def winning_cells(self, color: Color) -> np.ndarray:
        """Empty cells where ``color`` would make a winning five now."""
        return np.array(self.threat_cells(color, _FIVE, _FIVE), dtype=np.intp)

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(q=cython.int, base=cython.int, level=cython.int, size=cython.int,
                   i=cython.int, n=cython.int, total=cython.int)
    def threat_cells(self, color: cython.int, low: cython.int, high: cython.int) -> list:
        """Empty cells where ``color`` makes a threat in ``low..high``, strongest first,
        ties by cell index (a plain list, for the hot paths)."""
        if not cython.compiled:  # uncompiled, numpy scans the board faster than a loop
            threats = self.threats[color]
            cells = np.flatnonzero((threats >= low) & (threats <= high) & self._empty())
            order = np.argsort(-threats[cells].astype(np.int16), kind="stable")
            return cells[order].tolist()
        # One pass in cell order, which ends at the last of the cells the level counts
        # announce (none: no pass); then the cells found, level by level from the top.
        found = cython.declare(cython.int[22 * 22])  # MAX_SIZE squared
        levels = cython.declare(cython.uchar[22 * 22])
        size = self.size
        base = color * size
        total = self._count_between(color, low, high)
        n = 0
        q = 0
        while n < total and q < size:
            level = self._threats_v[base + q]
            if low <= level <= high and not self._cells_v[q]:
                found[n] = q
                levels[n] = level
                n += 1
            q += 1
        out = []
        for level in range(high, low - 1, -1):
            for i in range(n):
                if levels[i] == level:
                    out.append(found[i])
        return out

    @cython.ccall
    def has_threat(self, color: cython.int, low: cython.int, high: cython.int) -> cython.bint:
        """Whether ``color`` makes a threat in ``low..high`` on some empty cell."""
        if not cython.compiled:  # as in threat_cells
            threats = self.threats[color]
            return bool(((threats >= low) & (threats <= high) & self._empty()).any())
        return self._count_between(color, low, high) > 0

    def threats_after(self, color: Color, cells: np.ndarray, stone: int,
                      stone_color: Color) -> np.ndarray:
        """What ``color`` would make on each of the empty ``cells`` were a
        ``stone_color`` stone on the empty cell ``stone``: :attr:`threats` after
        :meth:`place`, read without placing (only the lines of ``cells`` are looked up,
        which is several times cheaper than a place and an undo)."""
        out = np.zeros(len(cells), dtype=np.uint8)
        self._lay_steps(stone, stone_color)
        for k, q in enumerate(cells):
            out[k] = self._threat_with_steps(color, q)
        self._lay_steps(stone, 0)
        return out

    @cython.ccall
    @cython.locals(k=cython.Py_ssize_t, found=cython.bint)
    def any_threat_after(self, color: cython.int, cells: list, stone: cython.int,
                         stone_color: cython.int, level: cython.int) -> cython.bint:
        """Whether ``color`` would make exactly ``level`` on one of the empty ``cells``
        were a ``stone_color`` stone on ``stone`` (:meth:`threats_after`, as one flag
        and without an array: the defence checks of the threat searches ask this)."""
        found = False
        self._lay_steps(stone, stone_color)
        for k in range(len(cells)):
            if self._threat_with_steps(color, cells[k]) == level:
                found = True
                break
        self._lay_steps(stone, 0)
        return found

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(i=cython.int, unit=cython.uint)
    def _lay_steps(self, stone: cython.int, unit: cython.uint) -> cython.void:
        # The key steps of a ``unit`` stone on ``stone`` into _key_steps (0: clear them).
        steps = self._steps_v
        for i in range(self._touch_start[stone], self._touch_start[stone + 1]):
            steps[self._touch_line[i]] = self._touch_unit[i] * unit

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.locals(d=cython.int, line=cython.int, index=cython.int)
    def _threat_with_steps(self, own: cython.int, q: cython.int) -> cython.int:
        # ``own``'s threat on q with the stone that _lay_steps laid out.
        index = 0
        for d in range(3, -1, -1):
            line = d * self.size + q
            index = index * _W1 + self._tables_v[self._keys_v[line] + self._steps_v[line], own]
        return self._threat_table_v[index]

    @cython.ccall
    def line_double_four(self, index: cython.int, direction: cython.int) -> cython.bint:
        """Renju: whether black on ``index`` makes two fours in one line along ``direction``."""
        if self._double_four is None:
            return False
        return self._double_four_v[self._keys_v[direction * self.size + index]] != 0

    def stones(self) -> Iterator[tuple[int, Color]]:
        """Stones in the order they were placed."""
        return iter(self.history)

    def __str__(self) -> str:
        symbols = {EMPTY: ".", Color.BLACK: "X", Color.WHITE: "O"}
        return "\n".join(
            " ".join(symbols[self.cells[y * self.width + x]] for x in range(self.width))
            for y in range(self.height)
        )

    def set_to(self, source: Board) -> None:
        """Make this board a copy of ``source``, a board of the same size and rule,
        reusing this board's arrays: no allocation, several times cheaper than
        :meth:`copy` (the tree search keeps a few such boards for its waiting leaves).
        Raises ValueError for a board of another size or rule."""
        if (source.width, source.height, source.rule) != (self.width, self.height, self.rule):
            raise ValueError(
                f"cannot copy a {source.width}x{source.height} {source.rule.name} board "
                f"onto a {self.width}x{self.height} {self.rule.name} one")
        self._cells_v[:] = source._cells_v
        self._keys_v[:] = source._keys_v
        self._patterns_v[:] = source._patterns_v
        self._threats_v[:] = source._threats_v
        self.history[:] = source.history
        self.to_move = source.to_move
        self.hash = source.hash
        self.stone_count[:] = source.stone_count
        if cython.compiled:
            self._copy_levels(source)

    def copy(self) -> Board:
        """An independent board with the same stones, history and side to move."""
        other: Board = Board.__new__(Board)
        other.width, other.height, other.size = self.width, self.height, self.size
        other.rule, other.black_fouls = self.rule, self.black_fouls
        other._geo, other._zobrist = self._geo, self._zobrist
        other._tables, other._threat_table = self._tables, self._threat_table
        other._double_four = self._double_four
        other._shared_views()
        other.cells = bytearray(self.cells)
        other.keys = self.keys.copy()
        other.patterns = self.patterns.copy()
        other.threats = self.threats.copy()
        other._key_steps = np.zeros_like(self._key_steps)
        other._own_views()
        other.history = list(self.history)
        other.to_move = self.to_move
        other.hash = self.hash
        other.stone_count = list(self.stone_count)
        if cython.compiled:
            other._copy_levels(self)
        return other

