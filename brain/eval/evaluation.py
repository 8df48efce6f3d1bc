"""Static evaluation, candidate moves and move ordering for the alpha-beta search.

Everything is read off the board's incremental threat table with numpy: the value of a
position is what each side could make on the empty cells (:class:`Threat` weights), and
a move is ordered by what it makes for the mover plus what it takes from the opponent.
Candidate generation follows the forcing rules of the game: a five is played at once, an
opponent five is blocked, and an opponent's live three (a cell where it would make a
straight or double four) is met by a real defence or a four of one's own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from brain.eval.patternscore import NEAR_REACH, mark_near
from brain.game.board import Board
from brain.game.tactics import (
    empty_mask,
    five_cells,
    four_cells,
    is_legal,
    legal_mask,
    open_four_points,
    three_defences,
)

#: Static value of an empty cell by the :class:`~brain.game.patterns.Threat` the side to move
#: would make there (index = threat), and of the opponent's threats against it.
OWN_VALUE = np.array([0, 2, 5, 3, 6, 14, 18, 40, 10, 16, 60, 90, 200], dtype=np.int64)
OPPONENT_VALUE = np.array([0, 2, 4, 3, 5, 10, 13, 30, 8, 12, 45, 70, 160], dtype=np.int64)
#: Move-ordering value of making a threat, and of taking the cell from the opponent.
ATTACK_ORDER = np.array([0, 6, 12, 8, 14, 40, 50, 300, 30, 45, 800, 2000, 10**6],
                        dtype=np.int64)
DEFENCE_ORDER = np.array([0, 5, 10, 6, 11, 30, 40, 200, 25, 35, 500, 1500, 10**5],
                         dtype=np.int64)


def near_mask(board: Board, reach: int = NEAR_REACH) -> np.ndarray:
    """Empty cells within ``reach`` king moves of a stone (the centre on an empty board)."""
    near = np.zeros(board.size, dtype=np.uint8)
    mark_near(board.cells, board.width, board.height, reach, near)
    return near.view(bool)


def evaluate(board: Board) -> int:
    """Static score of the position for the side to move (positive: better for it)."""
    me, them = board.to_move, board.to_move.opponent
    empty = empty_mask(board)
    return int(OWN_VALUE[board.threats[me]] @ empty
               - OPPONENT_VALUE[board.threats[them]] @ empty)


def move_scores(board: Board, cells: np.ndarray) -> np.ndarray:
    """Ordering score of each of the empty ``cells`` for the side to move."""
    me, them = board.to_move, board.to_move.opponent
    return ATTACK_ORDER[board.threats[me, cells]] + DEFENCE_ORDER[board.threats[them, cells]]


@dataclass(frozen=True)
class MoveList:
    """Candidate moves for the side to move, best first."""

    moves: list[int]
    #: Whether an opponent threat (a five or a live three) restricted the list.
    forced: bool


def candidate_moves(board: Board, width: int | None = None) -> MoveList:
    """The moves worth searching for the side to move, best first.

    * an own five: just that move;
    * an opponent five: the block (an empty list when renju forbids black the block,
      or when there are two fives to block: the position is lost);
    * an opponent live three: own fours and the real defences (no ``width`` cut);
    * otherwise the legal cells within two of a stone, by :func:`move_scores`, at most
      ``width`` of them (None: all).
    """
    me, them = board.to_move, board.to_move.opponent
    own = five_cells(board, me)
    if own:
        return MoveList(own[:1], True)
    threats = five_cells(board, them)
    if threats:
        blocks = threats if len(threats) == 1 and is_legal(board, me, threats[0]) else []
        return MoveList(blocks, True)
    points = open_four_points(board, them)
    if points:
        defences = np.array(three_defences(board, them, points), dtype=np.intp)
        defences = defences[np.argsort(-move_scores(board, defences), kind="stable")]
        fours = four_cells(board, me)
        return MoveList(fours + [c for c in defences.tolist() if c not in fours], True)
    cells = np.flatnonzero(near_mask(board))
    scores = move_scores(board, cells)
    order = np.argsort(-scores, kind="stable")
    cells = cells[order]
    legal = legal_mask(board, me, cells)
    moves = cells[legal].tolist()
    if not moves:  # every near cell is a renju foul: any legal cell will do
        empty = np.flatnonzero(empty_mask(board))
        moves = empty[legal_mask(board, me, empty)].tolist()
    return MoveList(moves if width is None else moves[:width], False)
