"""Position evaluators for the tree search: move priors and a value for the side to move.

The tree search asks an :class:`Evaluator` for a batch of positions at once. The policy /
value network (:class:`brain.eval.network.PolicyValueNet`) is one; the
:class:`PatternEvaluator` reads both from the board's threat table through the fitted
:class:`~brain.eval.patternmodel.PatternModel`, at a fraction of a network's cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from brain.eval.patternmodel import PatternModel, default_pattern_model_path
from brain.game.board import Board


class Evaluator(Protocol):
    """Evaluates positions for the side to move.

    ``evaluate`` returns ``(policy, value)``: policy of shape (B, cells) holding move
    probabilities that are zero on occupied cells, and value of shape (B,) in [-1, 1]
    (1: the side to move wins).
    """

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]: ...


class PatternEvaluator:
    """Priors over the empty cells within two of a stone (the centre on an empty board,
    any empty cell when none is near) and a value, both from a :class:`PatternModel`
    (default: the shipped ``weights/patterns.npz``; raises
    :class:`~brain.eval.patternmodel.PatternModelError` or OSError if it cannot be read).

    Renju fouls are not removed here: the search drops them when it expands a node.
    """

    def __init__(self, model: PatternModel | None = None) -> None:
        self.model = model if model is not None else PatternModel.load(
            default_pattern_model_path())

    def evaluate(self, boards: Sequence[Board]) -> tuple[np.ndarray, np.ndarray]:
        policy = np.zeros((len(boards), boards[0].size if boards else 0))
        values = np.zeros(len(boards))
        self.model.evaluate_into(boards, policy, values)
        return policy, values
