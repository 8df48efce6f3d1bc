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
from brain.evaluation import evaluate
from brain.heuristic import move_scores


class Evaluator(Protocol):
    """Evaluates positions for the side to move.

    ``evaluate`` returns ``(policy, value)``: policy of shape (B, cells) holding move
    probabilities that are zero on occupied cells, and value of shape (B,) in [-1, 1]
    (1: the side to move wins).
    """

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]: ...


class HeuristicEvaluator:
    """Priors from a softmax over :func:`brain.heuristic.move_scores`; value from the
    alpha-beta's static evaluation (:func:`brain.evaluation.evaluate`) through tanh."""

    #: Softmax temperature on log-scaled move scores.
    temperature = 0.6
    #: Static evaluation that maps to a value of tanh(1) = 0.76.
    value_scale = 80.0

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
        policy = np.zeros((len(boards), boards[0].size if boards else 0))
        values = np.zeros(len(boards))
        for n, board in enumerate(boards):
            scores = move_scores(board)
            finite = np.isfinite(scores)
            logits = np.log1p(np.maximum(scores[finite], 0.0)) / self.temperature
            probs = np.exp(logits - logits.max())
            policy[n, finite] = probs / probs.sum()
            values[n] = np.tanh(evaluate(board) / self.value_scale)
        return policy, values
