"""Position evaluators for the tree search: move priors and a value for the side to move.

The tree search asks an :class:`Evaluator` for a batch of positions at once. The policy /
value network (:class:`brain.network.PolicyValueNet`) is the real one; the
:class:`HeuristicEvaluator` derives both from the pattern core, so the search works (and
can be tested) without weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from brain.board import Board
from brain.heuristic import ATTACK_VALUE, move_scores


class Evaluator(Protocol):
    """Evaluates positions for the side to move.

    ``evaluate`` returns ``(policy, value)``: policy of shape (B, cells) holding move
    probabilities that are zero on occupied cells, and value of shape (B,) in [-1, 1]
    (1: the side to move wins).
    """

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]: ...


class HeuristicEvaluator:
    """Priors from a softmax over :func:`brain.heuristic.move_scores`; value from the
    balance of the two sides' best threats."""

    #: Softmax temperature on log-scaled move scores.
    temperature = 0.6
    #: Scale of the threat balance fed to tanh.
    value_scale = 3000.0

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
        policy = np.zeros((len(boards), boards[0].size if boards else 0))
        values = np.zeros(len(boards))
        for n, board in enumerate(boards):
            scores = move_scores(board)
            finite = np.isfinite(scores)
            logits = np.log1p(np.maximum(scores[finite], 0.0)) / self.temperature
            probs = np.exp(logits - logits.max())
            policy[n, finite] = probs / probs.sum()
            values[n] = self._value(board)
        return policy, values

    def _value(self, board: Board) -> float:
        empty = board.empty_cells()
        if len(empty) == 0:
            return 0.0
        me, them = board.to_move, board.to_move.opponent
        mine = np.sort(ATTACK_VALUE[board.threats[me][empty]])[-3:]
        theirs = np.sort(ATTACK_VALUE[board.threats[them][empty]])[-3:]
        # The side to move plays first: its best threat counts fully, the opponent's less.
        balance = mine.sum() - 0.7 * theirs.sum()
        return float(np.tanh(balance / self.value_scale))
