"""Renju forbidden points for black: overline, double four and double three.

The check follows the recursive definition used by Piskvork and GomocupJudge: a five
takes priority over everything; an overline is forbidden; two fours (in two lines, or
two separate fours in one line) are forbidden; two *real* threes are forbidden, where a
three is real only if some completion to a straight four is itself not forbidden.
"""

from __future__ import annotations

import enum

import cython

from brain.game.board import DIRECTIONS, Board, Color
from brain.game.patterns import Pattern


class Foul(enum.Enum):
    """Why a black move is forbidden under renju."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"


# Plain C ints for the compiled loops (an IntEnum member is a Python object).
_BLACK = cython.declare(cython.int, int(Color.BLACK))
_FIVE = cython.declare(cython.int, int(Pattern.FIVE))
_OVERLINE = cython.declare(cython.int, int(Pattern.OVERLINE))
_FLEX4 = cython.declare(cython.int, int(Pattern.FLEX4))
_BLOCK4 = cython.declare(cython.int, int(Pattern.BLOCK4))
_FLEX3 = cython.declare(cython.int, int(Pattern.FLEX3))
#: :class:`Foul` by the code :func:`_foul` returns (0: none).
_FOULS = (None, Foul.OVERLINE, Foul.DOUBLE_FOUR, Foul.DOUBLE_THREE)


@cython.locals(board=Board)
def is_forbidden(board: Board, index: int) -> bool:
    """Whether black playing the empty cell ``index`` is a renju foul."""
    return forbidden_kind(board, index) is not None


@cython.locals(board=Board, index=cython.int)
def forbidden_kind(board: Board, index: int) -> Foul | None:
    """The foul black would commit by playing the empty cell ``index``, or None.

    Always None on a rule without forbidden moves or on an occupied cell.
    """
    if not board.rule.has_forbidden_moves or board.cells[index]:
        return None
    return _FOULS[_foul(board, index)]


@cython.cfunc
@cython.locals(board=Board, index=cython.int, d=cython.int, pattern=cython.int,
               fours=cython.int, threes=cython.int, real=cython.int, five=cython.bint,
               overline=cython.bint)
def _foul(board: Board, index: int) -> cython.int:
    """:func:`forbidden_kind` on an empty cell of a renju board, as the index of the
    foul in :data:`_FOULS`."""
    five, overline, fours, threes = False, False, 0, 0
    for d in range(4):
        pattern = board.line_pattern(_BLACK, index, d)
        if pattern == _FIVE:
            five = True
        elif pattern == _OVERLINE:
            overline = True
        elif pattern in (_BLOCK4, _FLEX4):
            fours += 2 if board.line_double_four(index, d) else 1
        elif pattern == _FLEX3:
            threes |= 1 << d
    if five:
        return 0
    if overline:
        return 1
    if fours >= 2:
        return 2
    if threes & (threes - 1) == 0:  # fewer than two threes
        return 0
    to_move = board.to_move
    board.place(index, Color.BLACK)
    real = 0
    for d in range(4):
        if threes & (1 << d) and _three_is_real(board, index, d):
            real += 1
            if real >= 2:
                break
    board.undo()
    board.to_move = to_move
    return 3 if real >= 2 else 0


@cython.cfunc
@cython.locals(board=Board, index=cython.int, direction=cython.int, dx=cython.int,
               dy=cython.int, x=cython.int, y=cython.int, step=cython.int, k=cython.int,
               cx=cython.int, cy=cython.int, cell=cython.int)
def _three_is_real(board: Board, index: int, direction: int) -> cython.bint:
    """Whether black's three through ``index`` along ``direction`` can become a straight
    four on a point that is not itself forbidden (black's stone on ``index`` is placed)."""
    dx, dy = DIRECTIONS[direction]
    x, y = index % board.width, index // board.width
    for step in (-1, 1):
        for k in range(1, 5):
            cx, cy = x + step * k * dx, y + step * k * dy
            if not (0 <= cx < board.width and 0 <= cy < board.height):
                break
            cell = cy * board.width + cx
            if board.cells[cell]:
                continue
            if (board.line_pattern(_BLACK, cell, direction) == _FLEX4
                    and not board.line_double_four(cell, direction)
                    and _foul(board, cell) == 0):
                return True
    return False
