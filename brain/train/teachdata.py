"""Teacher data: positions labelled by a teacher engine, as append-only shard files, and
their training samples.

A run folder (``python -m brain.train teach``, :mod:`brain.train.teach`) holds
``shard-NNNNNN.npz`` files, each written whole (to a temporary name, then renamed) and
never changed. A shard holds N positions as columns; variable-length lists are stored
flat with offsets (entries ``offsets[i]:offsets[i+1]`` belong to position ``i``):

==================  ===========  =========================================================
array               dtype        content
==================  ===========  =========================================================
width, height       uint8        board shape
rule                uint8        Gomocup rule (0 freestyle, 1 exact five, 4 renju, ...)
stone_offsets       int64 N+1    offsets into ``stones``
stones              int16        the position: cells ``y * width + x`` in play order,
                                 black first (no passes)
move                int16        the teacher's move (cell)
winrate             float32      teacher's evaluation: side to move's expected score 0..1
                                 (NaN: the teacher gave none)
depth               int16        search depth of that evaluation (0: unknown)
mate                int16        plies to a proven win (> 0) or loss (< 0); 0: unproven
candidate_offsets   int64 N+1    offsets into ``candidates``
candidates          int16        the teacher's scored moves (multi-PV), best first
candidate_winrates  float32      the side to move's winrate after each of them
outcome             int8         result of a teacher-played continuation for the side to
                                 move: 1 win, 0 draw, -1 loss, :data:`NO_OUTCOME` none
record_move         int16        the move the source game played here (human or engine
                                 record, pbrain-zero self-play), -1 for none
source              int16        index into ``source_names``
unit                int32        the game (or opening) the position came from, per source:
                                 positions of one unit share a train/validation split
key                 uint64       position key, equal for positions equal under a board
                                 symmetry (:func:`position_key`)
ms                  float32      the teacher's time on the position
source_names        str          source names
state               str (0-d)    JSON of the run's progress after this shard
==================  ===========  =========================================================

:class:`TeacherSampler` turns positions into the :class:`~brain.train.data.Batch` samples
that supervised training mixes with the game records (``--teacher`` of ``python -m
brain.train supervised``): the planes of :func:`brain.eval.features.encode`, a policy
target and a win/draw/loss target (see :class:`TargetSettings`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from brain.game.board import Board
from brain.game.records import GameResult
from brain.game.rules import Rule
from brain.train.data import (
    GameRecord,
    PositionSampler,
    apply_symmetry,
    in_validation,
    symmetry_count,
)

__all__ = [
    "NO_OUTCOME",
    "LabelledPosition",
    "ShardStore",
    "TargetSettings",
    "TeacherSampler",
    "TeacherTable",
    "labelled_positions",
    "position_key",
    "position_record",
    "teacher_samplers",
]

#: ``outcome`` of a position without a teacher-played continuation.
NO_OUTCOME = -2
SHARD_GLOB = "shard-*.npz"


@dataclass(frozen=True)
class LabelledPosition:
    """One position and what the teacher said about it (see the module docstring)."""

    width: int
    height: int
    rule: int
    stones: tuple[int, ...]
    move: int
    winrate: float = math.nan
    depth: int = 0
    mate: int = 0
    candidates: tuple[tuple[int, float], ...] = ()
    outcome: int = NO_OUTCOME
    record_move: int = -1
    source: str = ""
    unit: int = 0
    key: int = 0
    ms: float = 0.0


def position_key(stones: Sequence[int], width: int, height: int, rule: int) -> int:
    """A 64-bit key of the stones on the board (colours by play order), the board shape
    and the rule, equal for positions that a board symmetry maps onto each other."""
    grid = np.zeros(width * height, dtype=np.uint8)
    grid[np.asarray(stones[0::2], dtype=np.int64)] = 1
    grid[np.asarray(stones[1::2], dtype=np.int64)] = 2
    grid = grid.reshape(height, width)
    header = bytes((rule, width, height))
    digests = [hashlib.blake2b(header + np.ascontiguousarray(apply_symmetry(grid, s)).tobytes(),
                               digest_size=8).digest()
               for s in range(symmetry_count(width, height))]
    return int.from_bytes(min(digests), "little")


def _offsets(lengths: Iterable[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(np.fromiter(lengths, dtype=np.int64))])


def _columns(positions: Sequence[LabelledPosition], state: dict[str, Any]
             ) -> dict[str, np.ndarray]:
    names = sorted({p.source for p in positions})
    index = {name: n for n, name in enumerate(names)}
    return {
        "width": np.array([p.width for p in positions], dtype=np.uint8),
        "height": np.array([p.height for p in positions], dtype=np.uint8),
        "rule": np.array([p.rule for p in positions], dtype=np.uint8),
        "stone_offsets": _offsets(len(p.stones) for p in positions),
        "stones": np.array([s for p in positions for s in p.stones], dtype=np.int16),
        "move": np.array([p.move for p in positions], dtype=np.int16),
        "winrate": np.array([p.winrate for p in positions], dtype=np.float32),
        "depth": np.array([p.depth for p in positions], dtype=np.int16),
        "mate": np.array([p.mate for p in positions], dtype=np.int16),
        "candidate_offsets": _offsets(len(p.candidates) for p in positions),
        "candidates": np.array([c for p in positions for c, _ in p.candidates],
                               dtype=np.int16),
        "candidate_winrates": np.array([w for p in positions for _, w in p.candidates],
                                       dtype=np.float32),
        "outcome": np.array([p.outcome for p in positions], dtype=np.int8),
        "record_move": np.array([p.record_move for p in positions], dtype=np.int16),
        "source": np.array([index[p.source] for p in positions], dtype=np.int16),
        "unit": np.array([p.unit for p in positions], dtype=np.int32),
        "key": np.array([p.key for p in positions], dtype=np.uint64),
        "ms": np.array([p.ms for p in positions], dtype=np.float32),
        "source_names": np.array(names, dtype=np.str_),
        "state": np.array(json.dumps(state)),
    }


@dataclass
class TeacherTable:
    """The positions of one or more shards, as columns (see the module docstring), with
    ``source_names`` merged into one list."""

    columns: dict[str, np.ndarray]
    source_names: list[str]

    def __len__(self) -> int:
        return len(self.columns["move"])

    def position(self, n: int) -> LabelledPosition:
        """Position ``n`` as a :class:`LabelledPosition`."""
        c = self.columns
        stones = c["stones"][c["stone_offsets"][n]:c["stone_offsets"][n + 1]]
        span = slice(c["candidate_offsets"][n], c["candidate_offsets"][n + 1])
        return LabelledPosition(
            int(c["width"][n]), int(c["height"][n]), int(c["rule"][n]),
            tuple(int(s) for s in stones), int(c["move"][n]), float(c["winrate"][n]),
            int(c["depth"][n]), int(c["mate"][n]),
            tuple((int(m), float(w)) for m, w in zip(c["candidates"][span],
                                                     c["candidate_winrates"][span],
                                                     strict=True)),
            int(c["outcome"][n]), int(c["record_move"][n]),
            self.source_names[int(c["source"][n])], int(c["unit"][n]), int(c["key"][n]),
            float(c["ms"][n]))

    def positions(self) -> list[LabelledPosition]:
        return [self.position(n) for n in range(len(self))]

    @classmethod
    def concatenate(cls, parts: Sequence[tuple[dict[str, np.ndarray], list[str]]]
                    ) -> TeacherTable:
        """Join shard columns (each with its own source names) into one table."""
        names = sorted({name for _, part_names in parts for name in part_names})
        merged: dict[str, list[np.ndarray]] = {}
        stone_base = candidate_base = 0
        for columns, part_names in parts:
            remap = np.array([names.index(n) for n in part_names] or [0], dtype=np.int16)
            for key, value in columns.items():
                if key in ("source_names", "state"):
                    continue
                if key == "stone_offsets":
                    value = value[:-1] + stone_base
                elif key == "candidate_offsets":
                    value = value[:-1] + candidate_base
                elif key == "source":
                    value = remap[value]
                merged.setdefault(key, []).append(value)
            stone_base += len(columns["stones"])
            candidate_base += len(columns["candidates"])
        if not parts:
            return cls(_columns([], {}), [])
        out = {key: np.concatenate(values) for key, values in merged.items()}
        out["stone_offsets"] = np.append(out["stone_offsets"], stone_base)
        out["candidate_offsets"] = np.append(out["candidate_offsets"], candidate_base)
        return cls(out, names)


class ShardStore:
    """The shard files of a teacher run folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def shards(self) -> list[Path]:
        """The complete shards, oldest first (unfinished temporary files are ignored)."""
        return sorted(p for p in self.folder.glob(SHARD_GLOB)
                      if not p.name.endswith(".tmp.npz"))

    def write(self, positions: Sequence[LabelledPosition], state: dict[str, Any]) -> Path:
        """Write ``positions`` as the next shard, with the run's ``state`` after them;
        the shard appears whole or not at all."""
        self.folder.mkdir(parents=True, exist_ok=True)
        shards = self.shards()
        number = int(shards[-1].stem.split("-")[1]) + 1 if shards else 0
        path = self.folder / f"shard-{number:06d}.npz"
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(temporary, **_columns(positions, state))
        temporary.replace(path)
        return path

    def last_state(self) -> dict[str, Any] | None:
        """The run state saved with the newest shard, ``None`` when there is none."""
        shards = self.shards()
        if not shards:
            return None
        with np.load(shards[-1]) as shard:
            return dict(json.loads(str(shard["state"])))

    def keys(self) -> set[int]:
        """The position keys of every shard."""
        keys: set[int] = set()
        for path in self.shards():
            with np.load(path) as shard:
                keys.update(int(k) for k in shard["key"])
        return keys

    def table(self) -> TeacherTable:
        """Every position of the folder."""
        parts = []
        for path in self.shards():
            with np.load(path) as shard:
                columns = {name: shard[name] for name in shard.files}
            parts.append((columns, [str(n) for n in columns["source_names"]]))
        return TeacherTable.concatenate(parts)


# -- training samples -------------------------------------------------------------------


@dataclass(frozen=True)
class TargetSettings:
    """How a labelled position becomes training targets.

    Policy: the teacher's move, or with scored candidates (multi-PV) a distribution over
    them, ``p ∝ exp(-(logit(w_best) - logit(w)) / temperature)`` with winrates clipped to
    [0.001, 0.999]; the teacher's move gets at least the best candidate's weight.
    Value: the teacher's winrate ``w`` as (w, 0, 1 - w), the continuation's outcome as a
    one-hot target, and where both exist ``outcome_weight`` of the outcome plus the rest
    of the evaluation. With ``outcomes_only`` the evaluation is left out: a position
    without an outcome has no value target (it teaches the policy alone).
    """

    temperature: float = 0.5
    outcome_weight: float = 0.5
    outcomes_only: bool = False


def _logit(winrate: float) -> float:
    w = min(max(winrate, 0.001), 0.999)
    return math.log(w / (1 - w))


def policy_target(position: LabelledPosition, settings: TargetSettings) -> dict[int, float]:
    """The policy target of ``position``: cell to probability."""
    if not position.candidates:
        return {position.move: 1.0}
    best = max(_logit(w) for _, w in position.candidates)
    weights = {cell: math.exp(-(best - _logit(w)) / settings.temperature)
               for cell, w in position.candidates}
    weights[position.move] = max(weights.values())
    total = sum(weights.values())
    return {cell: w / total for cell, w in weights.items()}


def value_target(position: LabelledPosition, settings: TargetSettings
                 ) -> tuple[float, float, float]:
    """The win/draw/loss target of ``position`` (all zeros: no value target)."""
    outcome = None if position.outcome == NO_OUTCOME else (
        (1.0, 0.0, 0.0) if position.outcome > 0 else
        (0.0, 1.0, 0.0) if position.outcome == 0 else (0.0, 0.0, 1.0))
    evaluation = None if math.isnan(position.winrate) else (
        position.winrate, 0.0, 1.0 - position.winrate)
    if settings.outcomes_only or evaluation is None:
        return outcome or (0.0, 0.0, 0.0)
    if outcome is None:
        return evaluation
    a = settings.outcome_weight
    return tuple(a * o + (1 - a) * e for o, e in zip(outcome, evaluation, strict=True))


class TeacherSampler(PositionSampler):
    """Samples of labelled positions of one board shape, in the form of
    :class:`~brain.train.data.PositionSampler` (random symmetries, validation sets)."""

    def __init__(self, name: str, positions: Sequence[LabelledPosition],
                 settings: TargetSettings) -> None:
        super().__init__(name, [position_record(p) for p in positions])
        self.labelled = list(positions)
        self.settings = settings

    def _targets(self, pick: int, board: Board, target: np.ndarray
                 ) -> tuple[float, float, float]:
        position = self.labelled[int(self._games[pick])]
        for cell, p in policy_target(position, self.settings).items():
            target[cell] = p
        return value_target(position, self.settings)


def position_record(position: LabelledPosition) -> GameRecord:
    """``position`` as a one-move game record: its stones as the opening, the teacher's
    move as the one move to learn, no result."""
    return GameRecord(position.width, position.height, Rule(position.rule),
                      (*position.stones, position.move), GameResult.UNKNOWN,
                      len(position.stones), split_key(position))


def split_key(position: LabelledPosition) -> str:
    """Positions with equal keys (one source game or opening) share a split."""
    return f"{position.source}:{position.unit}"


def labelled_positions(folders: Sequence[str | Path]) -> list[LabelledPosition]:
    """Every position of teacher run ``folders``.

    :raises FileNotFoundError: a folder without shards.
    """
    positions: list[LabelledPosition] = []
    for folder in folders:
        store = ShardStore(Path(folder))
        if not store.shards():
            raise FileNotFoundError(f"no teacher shards in {folder} (run python -m "
                                    "brain.train teach --out FOLDER first)")
        positions += store.table().positions()
    return positions


def teacher_samplers(folders: Sequence[str | Path], settings: TargetSettings,
                     validation_fraction: float
                     ) -> list[tuple[TeacherSampler, TeacherSampler | None]]:
    """(train, validation) samplers of the positions of teacher run ``folders``, one pair
    per board shape, named ``teacher15x15`` and so on. The split is by
    :func:`split_key`, so the positions of one game fall on one side; a shape whose
    positions all fall on one side has no validation sampler (``None``).

    :raises FileNotFoundError: a folder without shards.
    """
    by_shape: dict[tuple[int, int], list[LabelledPosition]] = {}
    for position in labelled_positions(folders):
        by_shape.setdefault((position.width, position.height), []).append(position)
    pairs = []
    for (width, height), positions in sorted(by_shape.items()):
        name = f"teacher{width}x{height}"
        held = [in_validation(split_key(p), validation_fraction) for p in positions]
        train = [p for p, h in zip(positions, held, strict=True) if not h]
        validation = [p for p, h in zip(positions, held, strict=True) if h]
        if not train:
            train, validation = validation, []
        pairs.append((TeacherSampler(name, train, settings),
                      TeacherSampler(name, validation, settings) if validation else None))
    return pairs
