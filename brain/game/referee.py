"""What a move does to the game under the rule: win, renju foul, draw, or nothing.

Both the brain (terminal detection in search) and the arena (adjudication) ask the same
questions, so they share this one implementation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from brain.game.board import Board, Color
from brain.game.forbidden import Foul, forbidden_kind


class Ending(enum.Enum):
    """How a game ended on the board."""

    FIVE = "five"
    FORBIDDEN = "forbidden"
    BOARD_FULL = "board full"
    MOVE_LIMIT = "move limit"


@dataclass(frozen=True)
class Verdict:
    """The end of a game: the winner (None for a draw), how it ended, and a foul's kind."""

    winner: Color | None
    ending: Ending
    foul: Foul | None = None

    def describe(self) -> str:
        if self.winner is None:
            return f"draw ({self.ending.value})"
        text = f"{self.winner.name.lower()} wins by {self.ending.value}"
        return f"{text} ({self.foul.value})" if self.foul else text


def judge_move(board: Board, index: int, move_limit: int | None = None) -> Verdict | None:
    """Play the side to move's stone on ``index`` and say whether that ends the game.

    The move is made on ``board`` in every case. ``move_limit`` (a number of stones on
    the board, e.g. 200 in Gomocup renju) turns a game that reaches it into a draw.
    Raises :class:`~brain.game.board.IllegalMoveError` for a move off the board or onto a
    stone, leaving the board unchanged.
    """
    color = board.to_move
    foul, five = None, False
    if 0 <= index < board.size and board.is_empty(index):
        five = board.makes_five(index, color)
        foul = forbidden_kind(board, index) if color is Color.BLACK else None
    board.place(index, color)  # raises for a cell off the board or taken
    if five:
        return Verdict(color, Ending.FIVE)
    if foul is not None:
        return Verdict(color.opponent, Ending.FORBIDDEN, foul)
    if board.is_full():
        return Verdict(None, Ending.BOARD_FULL)
    if move_limit is not None and board.move_count >= move_limit:
        return Verdict(None, Ending.MOVE_LIMIT)
    return None
