"""Training samples of the line-pattern network: *games* (stones with colours, in play
order) and *samples* (a game, how many of its stones are on the board, the move to learn
or a search's visit shares, the result for the side to move or a teacher's winrate).

:class:`SampleStore` holds them as flat arrays that a batch is built from without Python
loops (:class:`brain.train.linenet.BatchMaker`), that records, teacher labels and
self-play games (:mod:`brain.train.lineplay`) all produce, and that joins with
:meth:`SampleStore.concatenate`. This module imports no torch: self-play nodes use it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from brain.game.board import Color
from brain.train.data import PASS, GameRecord, GameResult

#: Result codes of a sample, for the side to move.
WIN, DRAW, LOSS, UNKNOWN = 0, 1, 2, -1


@dataclass
class SampleStore:
    """Games and samples as flat arrays (see the module docstring).

    Games: ``stones``/``colors`` (cell and colour of each stone in play order),
    ``start`` (first stone of each game, one more entry at the end), ``width``,
    ``height``, ``rule`` (Gomocup rule number). Samples: ``game``, ``count`` (stones on
    the board), ``move`` (the cell to learn, -1 none), ``to_move`` (1 black, 2 white),
    ``result`` (:data:`WIN`/:data:`DRAW`/:data:`LOSS`/:data:`UNKNOWN` for the side to
    move), ``winrate`` (a teacher's, NaN none), ``source`` (index into ``sources``).
    """

    stones: np.ndarray
    colors: np.ndarray
    start: np.ndarray
    width: np.ndarray
    height: np.ndarray
    rule: np.ndarray
    game: np.ndarray
    count: np.ndarray
    move: np.ndarray
    to_move: np.ndarray
    result: np.ndarray
    winrate: np.ndarray
    source: np.ndarray
    sources: list[str] = field(default_factory=list)
    target_start: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    target_cell: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int16))
    target_share: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float16))

    _GAME_FIELDS = ("stones", "colors", "start", "width", "height", "rule")
    _SAMPLE_FIELDS = ("game", "count", "move", "to_move", "result", "winrate", "source")
    _TARGET_FIELDS = ("target_start", "target_cell", "target_share")

    def __post_init__(self) -> None:
        if len(self.target_start) == 1 and len(self.game):  # no distributions at all
            self.target_start = np.zeros(len(self.game) + 1, np.int64)
        if len(self.target_start) != len(self.game) + 1:
            raise ValueError(f"{len(self.target_start)} policy-target offsets for "
                             f"{len(self.game)} samples: the store is damaged")

    def __len__(self) -> int:
        return len(self.game)

    def save(self, path: str | Path) -> None:
        names = self._GAME_FIELDS + self._SAMPLE_FIELDS + self._TARGET_FIELDS
        arrays = {name: getattr(self, name) for name in names}
        np.savez_compressed(path, **arrays, sources=np.array(self.sources))

    @classmethod
    def load(cls, path: str | Path) -> SampleStore:
        """Read a saved store (files written before policy distributions existed have
        none)."""
        with np.load(path) as data:
            names = cls._GAME_FIELDS + cls._SAMPLE_FIELDS
            arrays = {name: data[name] for name in names}
            arrays |= {name: data[name] for name in cls._TARGET_FIELDS if name in data}
            return cls(**arrays, sources=[str(s) for s in data["sources"]])

    @staticmethod
    def source_names(path: str | Path) -> list[str]:
        """The source names of a saved store, read without its samples."""
        with np.load(path) as data:
            return [str(s) for s in data["sources"]]

    def rows_by_game(self) -> list[np.ndarray]:
        """The sample indices of each game (entry ``g``: game ``g``'s, in store order)."""
        order = np.argsort(self.game, kind="stable")
        bounds = np.searchsorted(self.game[order], np.arange(len(self.width) + 1))
        return np.split(order, bounds[1:-1])

    def games_where(self, keep: np.ndarray) -> SampleStore:
        """The store of the games whose entry of ``keep`` (a bool per game) is set, in
        order and renumbered, with their samples and policy targets."""
        keep = np.asarray(keep, dtype=bool)
        if len(keep) != len(self.width):
            raise ValueError(f"{len(keep)} choices for {len(self.width)} games")
        lengths = np.diff(self.start)
        stones = np.repeat(keep, lengths)
        samples = keep[self.game]
        spans = np.diff(self.target_start)
        targets = np.repeat(samples, spans)
        return SampleStore(
            stones=self.stones[stones], colors=self.colors[stones],
            start=np.concatenate([[0], np.cumsum(lengths[keep])]).astype(self.start.dtype),
            width=self.width[keep], height=self.height[keep], rule=self.rule[keep],
            game=(np.cumsum(keep) - 1)[self.game[samples]].astype(self.game.dtype),
            **{name: getattr(self, name)[samples]
               for name in ("count", "move", "to_move", "result", "winrate", "source")},
            sources=list(self.sources),
            target_start=np.concatenate([[0], np.cumsum(spans[samples])]).astype(
                self.target_start.dtype),
            target_cell=self.target_cell[targets], target_share=self.target_share[targets])

    @classmethod
    def concatenate(cls, parts: Sequence[SampleStore]) -> SampleStore:
        """One store of all ``parts`` (games renumbered, sources merged by name)."""
        names: list[str] = []
        for part in parts:
            names += [s for s in part.sources if s not in names]
        columns: dict[str, list[np.ndarray]] = {
            name: [] for name in cls._GAME_FIELDS + cls._SAMPLE_FIELDS + cls._TARGET_FIELDS}
        stone_offset = game_offset = target_offset = 0
        for part in parts:
            for name in ("stones", "colors", "width", "height", "rule", "count", "move",
                         "to_move", "result", "winrate", "target_cell", "target_share"):
                columns[name].append(getattr(part, name))
            columns["start"].append(part.start[:-1] + stone_offset)
            columns["game"].append(part.game + game_offset)
            columns["target_start"].append(part.target_start[:-1] + target_offset)
            remap = np.array([names.index(s) for s in part.sources] or [0], dtype=np.int16)
            columns["source"].append(remap[part.source])
            stone_offset += len(part.stones)
            game_offset += len(part.width)
            target_offset += len(part.target_cell)
        columns["start"].append(np.array([stone_offset], dtype=np.int64))
        columns["target_start"].append(np.array([target_offset], dtype=np.int64))
        return cls(**{name: np.concatenate(arrays) for name, arrays in columns.items()},
                   sources=names)


class SampleBuilder:
    """Collects games and samples for a :class:`SampleStore`."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.games: dict[str, list[int]] = {n: [] for n in SampleStore._GAME_FIELDS}
        self.stones: list[int] = []
        self.colors: list[int] = []
        self.starts: list[int] = []
        self.samples: dict[str, list] = {n: [] for n in SampleStore._SAMPLE_FIELDS}
        self.target_start: list[int] = [0]
        self.target_cell: list[int] = []
        self.target_share: list[float] = []

    def add_game(self, width: int, height: int, rule: int,
                 stones: Sequence[tuple[int, int]]) -> int:
        self.starts.append(len(self.stones))
        for cell, color in stones:
            self.stones.append(cell)
            self.colors.append(color)
        self.games["width"].append(width)
        self.games["height"].append(height)
        self.games["rule"].append(rule)
        return len(self.starts) - 1

    def add_sample(self, game: int, count: int, move: int, to_move: int, result: int,
                   winrate: float = math.nan,
                   target: Sequence[tuple[int, float]] = ()) -> None:
        """One sample; ``target``: (cell, share) pairs of a policy distribution."""
        for name, value in (("game", game), ("count", count), ("move", move),
                            ("to_move", to_move), ("result", result),
                            ("winrate", winrate), ("source", 0)):
            self.samples[name].append(value)
        for cell, share in target:
            self.target_cell.append(cell)
            self.target_share.append(share)
        self.target_start.append(len(self.target_cell))

    def store(self) -> SampleStore:
        s = self.samples
        return SampleStore(
            stones=np.array(self.stones, np.int16), colors=np.array(self.colors, np.int8),
            start=np.array([*self.starts, len(self.stones)], np.int64),
            width=np.array(self.games["width"], np.int8),
            height=np.array(self.games["height"], np.int8),
            rule=np.array(self.games["rule"], np.int8),
            game=np.array(s["game"], np.int32), count=np.array(s["count"], np.int16),
            move=np.array(s["move"], np.int16), to_move=np.array(s["to_move"], np.int8),
            result=np.array(s["result"], np.int8),
            winrate=np.array(s["winrate"], np.float32),
            source=np.array(s["source"], np.int16), sources=[self.source],
            target_start=np.array(self.target_start, np.int64),
            target_cell=np.array(self.target_cell, np.int16),
            target_share=np.array(self.target_share, np.float16))


def _result_for(result: GameResult, to_move: Color) -> int:
    if result is GameResult.UNKNOWN:
        return UNKNOWN
    if result is GameResult.DRAW:
        return DRAW
    return WIN if (result is GameResult.BLACK_WIN) == (to_move is Color.BLACK) else LOSS


def samples_of_records(name: str, records: Sequence[GameRecord]) -> SampleStore:
    """Every move after the opening of ``records`` as a sample (the move played, the
    game's result)."""
    builder = SampleBuilder(name)
    for record in records:
        stones: list[tuple[int, int]] = []
        color = Color.BLACK
        plies = []
        for ply, move in enumerate(record.moves):
            if move != PASS:
                plies.append((ply, len(stones), move, color))
                stones.append((move, int(color)))
            color = color.opponent
        game = builder.add_game(record.width, record.height, int(record.rule), stones)
        for ply, count, move, mover in plies:
            if ply >= record.first_target:
                builder.add_sample(game, count, move, int(mover),
                                   _result_for(record.result, mover))
    return builder.store()


def samples_of_labels(name: str, positions: Sequence) -> SampleStore:
    """Teacher-labelled positions (:class:`brain.train.teachdata.LabelledPosition`) as
    samples: the teacher's move and winrate, and the played-out outcome when there is one."""
    builder = SampleBuilder(name)
    for position in positions:
        stones = [(cell, 1 if i % 2 == 0 else 2) for i, cell in enumerate(position.stones)]
        game = builder.add_game(position.width, position.height, position.rule, stones)
        to_move = 1 if len(stones) % 2 == 0 else 2
        # outcome: 1 a win for the side to move, 0 a draw, -1 a loss (teachdata).
        result = {1: WIN, 0: DRAW, -1: LOSS}.get(position.outcome, UNKNOWN)
        builder.add_sample(game, len(stones), position.move, to_move, result,
                           position.winrate)
    return builder.store()
