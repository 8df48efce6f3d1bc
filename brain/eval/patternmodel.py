"""The pattern model: move priors and a position value fitted to strong games.

Both are read off the board's incremental threat table (:attr:`Board.threats`), so one
evaluation costs a few array reads, far less than a network:

* **policy**: a logit per candidate cell (an empty cell within two of a stone), the sum of
  a table entry for the pair (threat the mover would make there, threat the opponent
  would make there) and two entries for where the cell lies from the last stone and from
  the mover's own previous stone (:func:`relation_table`); a softmax over the candidates
  gives the priors;
* **value**: a small perceptron over :func:`threat_counts` (how many empty cells give each
  side each threat) gives the logit of the mover's winning chance.

The numbers are fitted by ``python -m brain.train patterns`` (:mod:`brain.train.patterns`)
and shipped in ``weights/patterns.npz``: a plain ``.npz`` of float arrays plus a JSON
``metadata`` string, loaded without pickle and without torch.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from brain.errors import PbrainError
from brain.eval import patternscore
from brain.game.board import Board
from brain.resources import weights_dir

#: File name of the shipped model inside ``weights/``.
DEFAULT_PATTERN_MODEL_NAME = "patterns.npz"
#: Format tag and version written to the file's metadata.
FORMAT = "pbrain-zero-patterns"
FORMAT_VERSION = 1

#: Number of :class:`brain.game.patterns.Threat` levels.
THREAT_LEVELS = patternscore.LEVELS
#: Chebyshev distances told apart by :func:`relation_table` (farther cells share the last).
RELATION_DISTANCES = 5
#: Number of relation classes: each distance, on or off a line through the stone.
RELATIONS = 2 * RELATION_DISTANCES
#: Length of :func:`threat_counts`: both sides, every threat level but NONE.
VALUE_FEATURES = patternscore.VALUE_INPUTS


class PatternModelError(PbrainError, ValueError):
    """A pattern-model file that cannot be used (missing arrays, wrong shapes or format)."""


@functools.cache
def relation_table(width: int, height: int) -> np.ndarray:
    """``table[stone, cell]``: where ``cell`` lies from ``stone``, as ``2 * (d - 1) +
    aligned``, with ``d`` the king-move distance capped at :data:`RELATION_DISTANCES` and
    ``aligned`` whether the cell is on one of the stone's four lines within four cells
    (where the two can take part in one five)."""
    size = width * height
    xs, ys = np.arange(size) % width, np.arange(size) // width
    dx = np.abs(xs[None, :] - xs[:, None])
    dy = np.abs(ys[None, :] - ys[:, None])
    distance = np.clip(np.maximum(dx, dy), 1, RELATION_DISTANCES)
    aligned = ((dx == 0) | (dy == 0) | (dx == dy)) & (np.maximum(dx, dy) <= 4)
    table = (2 * (distance - 1) + aligned).astype(np.intp)
    table.flags.writeable = False
    return table


@dataclass(frozen=True)
class CellFeatures:
    """What the policy reads about candidate cells (one entry per cell)."""

    #: ``own * THREAT_LEVELS + opponent`` threat pair.
    pair: np.ndarray
    #: Relation to the last stone, and to the mover's own previous stone (None while the
    #: mover has none).
    last: np.ndarray
    own_last: np.ndarray | None


def cell_features(board: Board, cells: np.ndarray) -> CellFeatures:
    """Policy features of the empty ``cells`` for the side to move (board not empty)."""
    me, them = board.to_move, board.to_move.opponent
    pair = (board.threats[me, cells].astype(np.intp) * THREAT_LEVELS
            + board.threats[them, cells])
    relation = relation_table(board.width, board.height)
    last = relation[board.history[-1][0], cells]
    own_last = relation[board.history[-2][0], cells] if len(board.history) >= 2 else None
    return CellFeatures(pair, last, own_last)


def threat_counts(board: Board) -> np.ndarray:
    """How many empty cells give the side to move each threat level 1..12, then the same
    for the opponent (float64, :data:`VALUE_FEATURES` long)."""
    counts = np.zeros(VALUE_FEATURES)
    patternscore.count_threats(board, counts)
    return counts


def value_input(counts: np.ndarray) -> np.ndarray:
    """The value perceptron's input: log(1 + count), so a 20x20 board's larger counts do
    not swamp what was learned on 15x15."""
    return np.log1p(counts)


def _shapes(hidden: int) -> dict[str, tuple[int, ...]]:
    """Array names and shapes of a model file (``hidden``: the value layer's width)."""
    return {
        "pair_logits": (THREAT_LEVELS, THREAT_LEVELS),
        "last_logits": (RELATIONS,),
        "own_last_logits": (RELATIONS,),
        "value_w1": (hidden, VALUE_FEATURES),
        "value_b1": (hidden,),
        "value_w2": (hidden,),
        "value_b2": (),
    }


@dataclass(frozen=True)
class PatternModel:
    """Fitted policy tables and value perceptron; see the module docstring."""

    #: ``[own threat, opponent threat]`` logit of a cell.
    pair_logits: np.ndarray
    #: Logit by :func:`relation_table` class from the last stone / the mover's previous one.
    last_logits: np.ndarray
    own_last_logits: np.ndarray
    #: Value perceptron: ``w2 . relu(w1 @ x + b1) + b2`` is the mover's winning logit.
    value_w1: np.ndarray
    value_b1: np.ndarray
    value_w2: np.ndarray
    value_b2: np.ndarray
    #: Provenance: data, fit settings and validation metrics.
    metadata: dict[str, Any] = field(default_factory=dict)

    @functools.cached_property
    def scorer(self) -> patternscore.Scorer:
        """The compiled evaluator of this model's arrays (made on first use)."""
        return patternscore.Scorer(self.pair_logits, self.last_logits, self.own_last_logits,
                                   self.value_w1, self.value_b1, self.value_w2,
                                   float(self.value_b2))

    def policy_into(self, board: Board, policy: np.ndarray) -> None:
        """Write the side to move's priors into the zeroed float64 row ``policy`` (one
        entry per cell; board not empty): the softmax of the cell logits over the empty
        cells within two of a stone, or over every empty cell when none is."""
        self.scorer.policy_into(board, relation_table(board.width, board.height), policy)

    def value_logit(self, counts: np.ndarray) -> float:
        """The side to move's winning logit from its :func:`threat_counts`."""
        return patternscore.value_logit(self.value_w1, self.value_b1, self.value_w2,
                                        float(self.value_b2), counts)

    def value(self, board: Board) -> float:
        """The side to move's expected result in [-1, 1] (2 P(win) - 1)."""
        return self.scorer.value(board)

    def evaluate_into(self, boards: Sequence[Board], policy: np.ndarray,
                      values: np.ndarray) -> None:
        """Each board's :meth:`value` into ``values`` and priors into its zeroed row of
        ``policy`` (the centre on an empty board); the boards share one size."""
        if boards:
            self.scorer.evaluate(list(boards), relation_table(boards[0].width,
                                                              boards[0].height),
                                 policy, values)

    # -- files -------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the model to an ``.npz`` file at ``path``."""
        arrays = {name: np.asarray(getattr(self, name), dtype=np.float32)
                  for name in _shapes(len(self.value_b1))}
        metadata = {"format": FORMAT, "format_version": FORMAT_VERSION, **self.metadata}
        np.savez_compressed(path, metadata=np.array(json.dumps(metadata)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PatternModel:
        """Read a model file; raises :class:`PatternModelError` if it is not one, and
        OSError if it cannot be read."""
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
        except (ValueError, KeyError) as exc:  # not an npz, or a corrupt member
            raise PatternModelError(f"{path} is not a pattern-model file: {exc}") from None
        try:
            metadata = json.loads(str(arrays.pop("metadata")))
        except (KeyError, json.JSONDecodeError):
            raise PatternModelError(f"{path} has no readable metadata") from None
        if metadata.get("format") != FORMAT or metadata.get("format_version") != FORMAT_VERSION:
            raise PatternModelError(
                f"{path} is format {metadata.get('format')!r} version "
                f"{metadata.get('format_version')!r}, not {FORMAT!r} {FORMAT_VERSION}: "
                "refit it with python -m brain.train patterns")
        hidden = len(arrays.get("value_b1", ()))
        expected = _shapes(hidden)
        for name, shape in expected.items():
            if name not in arrays or arrays[name].shape != shape:
                found = arrays[name].shape if name in arrays else "missing"
                raise PatternModelError(f"{path}: array {name} is {found}, expected {shape}")
        del metadata["format"], metadata["format_version"]
        return cls(**{name: arrays[name].astype(np.float64) for name in expected},
                   metadata=metadata)


def default_pattern_model_path() -> Path:
    """The shipped model, ``patterns.npz`` in :func:`brain.resources.weights_dir`."""
    return weights_dir() / DEFAULT_PATTERN_MODEL_NAME
