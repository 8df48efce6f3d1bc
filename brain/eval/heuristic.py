"""A one-ply move chooser: win now, stop the opponent's five and open four, else the best
move by a pattern score. It answers in milliseconds, so the brain also uses it when no
time is left, and it is the weakest rung of the baseline ladder.
"""

from __future__ import annotations

import numpy as np

from brain.eval.evaluation import near_mask
from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.patterns import Threat

#: Value of making a threat, by :class:`Threat`; defending is worth a fraction of it.
ATTACK_VALUE = np.array(
    [0, 40, 90, 60, 110, 400, 600, 2500, 700, 1200, 4000, 10000, 100000], dtype=np.float64
)
DEFENCE_VALUE = ATTACK_VALUE * 0.8


def move_scores(board: Board) -> np.ndarray:
    """A score for every cell for the side to move; -inf on cells that cannot be played.

    On an empty board only the centre is scored. Renju fouls are not excluded here
    (that needs the recursive check, done by :func:`choose_move` on the best cells).
    """
    me, them = board.to_move, board.to_move.opponent
    empty = np.frombuffer(board.cells, dtype=np.uint8) == 0
    scores = np.full(board.size, -np.inf)
    if not board.history:
        scores[(board.height // 2) * board.width + board.width // 2] = 0.0
        return scores
    candidates = near_mask(board)
    if not candidates.any():
        candidates = empty
    scores[candidates] = (
        ATTACK_VALUE[board.threats[me][candidates]]
        + DEFENCE_VALUE[board.threats[them][candidates]]
    )
    return scores


def _legal_best(board: Board, cells: np.ndarray, scores: np.ndarray) -> int | None:
    """The highest-scored cell of ``cells`` that is not a renju foul for the mover."""
    order = cells[np.argsort(-scores[cells], kind="stable")]
    for cell in order:
        if board.to_move is not Color.BLACK or not is_forbidden(board, int(cell)):
            return int(cell)
    return None


def choose_move(board: Board) -> int:
    """Pick a move for the side to move by the rules above; never a renju foul while a
    legal cell exists. Raises ValueError on a full board."""
    empty = board.empty_cells()
    if len(empty) == 0:
        raise ValueError("the board is full: there is no move to play")
    me, them = board.to_move, board.to_move.opponent
    scores = move_scores(board)
    # Any empty cell is a candidate of last resort (e.g. all near cells are fouls).
    scores[empty] = np.maximum(scores[empty], -1e9)
    my_threat, their_threat = board.threats[me], board.threats[them]
    for cells in (
        empty[my_threat[empty] == Threat.FIVE],
        empty[their_threat[empty] == Threat.FIVE],
        empty[my_threat[empty] == Threat.FLEX4],
    ):
        move = _legal_best(board, cells, scores)
        if move is not None:
            return move
    if (their_threat[empty] == Threat.FLEX4).any():
        # Stop an open four before it exists: block it, or answer with a four of our own.
        forcing = empty[
            (their_threat[empty] == Threat.FLEX4) | (my_threat[empty] >= Threat.BLOCK4)
        ]
        move = _legal_best(board, forcing, scores)
        if move is not None:
            return move
    move = _legal_best(board, empty, scores)
    return move if move is not None else int(empty[0])
