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


@cython.locals(board=Board)
def is_forbidden(board: Board, index: int) -> bool:
    """Whether black playing the empty cell ``index`` is a renju foul."""
    return forbidden_kind(board, index) is not None


@cython.locals(board=Board)
def forbidden_kind(board: Board, index: int) -> Foul | None:
    """The foul black would commit by playing the empty cell ``index``, or None.

    Always None on a rule without forbidden moves or on an occupied cell.
    """
    if not board.rule.has_forbidden_moves or not board.is_empty(index):
        return None
    lines = [board.line_pattern(Color.BLACK, index, d) for d in range(4)]
    if Pattern.FIVE in lines:
        return None
    if Pattern.OVERLINE in lines:
        return Foul.OVERLINE
    fours = 0
    for d, pattern in enumerate(lines):
        if pattern in (Pattern.BLOCK4, Pattern.FLEX4):
            fours += 2 if board.line_double_four(index, d) else 1
    if fours >= 2:
        return Foul.DOUBLE_FOUR
    three_lines = [d for d, pattern in enumerate(lines) if pattern == Pattern.FLEX3]
    if len(three_lines) < 2:
        return None
    to_move = board.to_move
    board.place(index, Color.BLACK)
    try:
        real = 0
        for d in three_lines:
            if _three_is_real(board, index, d):
                real += 1
                if real >= 2:
                    return Foul.DOUBLE_THREE
        return None
    finally:
        board.undo()
        board.to_move = to_move


@cython.locals(board=Board)
def _three_is_real(board: Board, index: int, direction: int) -> bool:
    """Whether black's three through ``index`` along ``direction`` can become a straight
    four on a point that is not itself forbidden (black's stone on ``index`` is placed)."""
    dx, dy = DIRECTIONS[direction]
    x, y = board.xy(index)
    for step in (-1, 1):
        for k in range(1, 5):
            cx, cy = x + step * k * dx, y + step * k * dy
            if not (0 <= cx < board.width and 0 <= cy < board.height):
                break
            cell = cy * board.width + cx
            if not board.is_empty(cell):
                continue
            straight = (
                board.line_pattern(Color.BLACK, cell, direction) == Pattern.FLEX4
                and not board.line_double_four(cell, direction)
            )
            if straight and forbidden_kind(board, cell) is None:
                return True
    return False
