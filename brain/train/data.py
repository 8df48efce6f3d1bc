"""Training data: game records turned into (planes, policy target, value target) samples.

A :class:`GameRecord` is one game as cell indices; :func:`load_source` reads a file of
the shared data folder (``shared/data``, see its README) into records and replays every
game on a :class:`~brain.game.board.Board`, which

* drops corrupt games (a move on an occupied point, a token that is no point);
* cuts a game at its first five or at a renju foul of black, and takes the winner from
  the board when the recorded result disagrees (the renju file has about 1,550 games
  labelled ``black`` that end with a white five);
* keeps passes (``--``): the side to move changes and no stone is placed, and a pass is
  never a policy target.

A :class:`PositionSampler` draws random positions of one board shape, encodes them
(:func:`brain.eval.features.encode`) and applies a random board symmetry to the planes and
the policy target (8 on a square board, 4 on a rectangle). A :class:`Batch` holds

* ``planes`` (B, C, H, W) float32;
* ``policy`` (B, H*W) float32: a distribution over cells (one-hot for a recorded move,
  visit counts for self-play), all zeros when the position has no policy target;
* ``wdl`` (B, 3) float32: win/draw/loss target for the side to move, all zeros when the
  result is unknown.

Self-play samples (planes, visit distribution, outcome) have exactly this form, so the
same training loop consumes both.

The train/validation split is by game (a stable hash of :attr:`GameRecord.split_key`):
the rapfi files hold each opening twice with colours swapped and those games share many
moves, so their key is the opening and both games of a pair fall into one split.
"""

from __future__ import annotations

import lzma
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import numpy as np

from brain.errors import PbrainError
from brain.eval.features import PLANE_COUNT, encode
from brain.game.board import Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.notation import NotationError, parse_point
from brain.game.records import GameResult
from brain.game.rules import Rule
from brain.resources import shared_data_dir

#: A move that places no stone (the renju file writes ``--``).
PASS = -1

#: The team's shared data folder (:func:`brain.resources.shared_data_dir`).
DEFAULT_DATA_DIR = shared_data_dir()


class RecordError(PbrainError, ValueError):
    """A game record that cannot be read or replayed."""


class OccupiedPointError(RecordError):
    """A record with a move onto a stone (the renju file has a few such corrupt games)."""


@dataclass(frozen=True)
class GameRecord:
    """One game as training data: moves as cell indices (``y * width + x``, :data:`PASS`
    for a pass), black first, colours alternating; the result may be unknown. (A finished
    game as the arena records it is :class:`brain.game.records.GameRecord`.)"""

    width: int
    height: int
    rule: Rule
    moves: tuple[int, ...]
    result: GameResult
    #: Moves before this index are a given opening, not choices to learn from.
    first_target: int = 0
    #: Games with equal keys land in the same split.
    split_key: str = ""

    def target_plies(self) -> list[int]:
        """Plies whose move is a policy target: after the opening, not a pass."""
        return [ply for ply in range(self.first_target, len(self.moves))
                if self.moves[ply] != PASS]


def parse_renju_line(line: str, key: str = "") -> GameRecord:
    """A line of ``train-2.renju``: ``<result> <move> ...`` with RenjuNet algebraic moves
    (``h8``; row 1 at the bottom) and ``--`` for a pass; 15x15, renju rule."""
    tokens = line.split()
    if not tokens:
        raise RecordError("empty line")
    try:
        result = GameResult(tokens[0])
    except ValueError:
        raise RecordError(f"unknown result {tokens[0]!r}") from None
    try:
        moves = tuple(PASS if token == "--" else parse_point(token, 15, 15)
                      for token in tokens[1:])
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    return GameRecord(15, 15, Rule.RENJU, moves, result, 0, key)


def parse_rapfi_line(line: str, size: int) -> GameRecord:
    """A line of the rapfi self-play files: ``<winner> <n_opening> <x,y> ...`` with 0-based
    coordinates from the top-left; freestyle rule on a ``size`` x ``size`` board. The
    opening stones are not policy targets; the opening is the split key."""
    tokens = line.split()
    if len(tokens) < 3:
        raise RecordError(f"too few fields in {line.strip()!r}")
    try:
        result = GameResult(tokens[0])
        opening = int(tokens[1])
        points = [tuple(int(v) for v in token.split(",")) for token in tokens[2:]]
    except ValueError as exc:
        raise RecordError(f"malformed rapfi record: {exc}") from None
    moves = []
    for point in points:
        if len(point) != 2 or not all(0 <= v < size for v in point):
            raise RecordError(f"move {point} is off the {size}x{size} board")
        moves.append(point[1] * size + point[0])
    if not 0 <= opening <= len(moves):
        raise RecordError(f"opening of {opening} stones in a game of {len(moves)} moves")
    return GameRecord(size, size, Rule.FREESTYLE, tuple(moves), result, opening,
                      " ".join(tokens[2:2 + opening]))


class Replayer:
    """Replays records on one reused :class:`Board` per (width, height, rule): building a
    board costs about 0.3 ms, clearing one 25 µs."""

    def __init__(self) -> None:
        self._boards: dict[tuple[int, int, Rule], Board] = {}

    def start(self, record: GameRecord) -> Board:
        """The empty board of ``record``'s shape and rule (shared: valid until the next
        call)."""
        shape = (record.width, record.height, record.rule)
        board = self._boards.get(shape)
        if board is None:
            board = self._boards[shape] = Board(record.width, record.height, record.rule)
        else:
            board.clear()
        return board

    def position(self, record: GameRecord, ply: int) -> Board:
        """The board before move ``ply`` of ``record``."""
        board = self.start(record)
        for move in record.moves[:ply]:
            advance(board, move)
        return board


def advance(board: Board, move: int) -> None:
    """Play ``move`` for the side to move, or pass."""
    if move == PASS:
        board.to_move = board.to_move.opponent
    else:
        board.play(move)


@dataclass(frozen=True)
class Verified:
    """A record after replay, and what the replay changed."""

    record: GameRecord
    relabelled: bool = False
    truncated: bool = False
    #: Whether a five or a renju foul ended the game on the board.
    ended: bool = False

    @property
    def unchanged(self) -> bool:
        """Whether the replay confirms the record as it is: same moves, same result, and
        a decided game ends with its last move."""
        decided = self.record.result in (GameResult.BLACK_WIN, GameResult.WHITE_WIN)
        return not (self.relabelled or self.truncated) and self.ended == decided


def verify(record: GameRecord, replayer: Replayer) -> Verified:
    """Replay ``record``: cut it at the first five or renju foul, and take the winner of a
    five (or the opponent of a fouling black) as its result.

    Raises :class:`OccupiedPointError` for a move onto a stone.
    """
    board = replayer.start(record)
    winner: Color | None = None
    end = len(record.moves)
    for ply, move in enumerate(record.moves):
        if move != PASS:
            if not board.is_empty(move):
                x, y = board.xy(move)
                raise OccupiedPointError(f"move {ply + 1} ({x},{y}) is on an occupied point")
            color = board.to_move
            if board.makes_five(move, color):
                winner, end = color, ply + 1
                break
            if (color is Color.BLACK and record.rule.has_forbidden_moves
                    and forbidden_kind(board, move) is not None):
                # The foul loses at once; it is no move to learn from.
                winner, end = Color.WHITE, ply
                break
        advance(board, move)
    if winner is None:
        return Verified(record)
    result = GameResult.of_winner(winner)
    truncated = end < len(record.moves)
    relabelled = result is not record.result
    fixed = GameRecord(record.width, record.height, record.rule, record.moves[:end], result,
                       min(record.first_target, end), record.split_key)
    return Verified(fixed, relabelled, truncated, ended=True)


@dataclass(frozen=True)
class Source:
    """A game file of the shared data folder, read under one rule.

    ``rule`` None is the file's own rule (renju or freestyle). Another rule relabels the
    games: only those whose moves and result stand unchanged when replayed under it are
    kept (a freestyle game won by an overline is no exact-five game), and their moves are
    still the file's (good moves, not always the best under the new rule).
    """

    name: str
    path: str
    kind: Literal["renju", "rapfi"]
    size: int
    rule: Rule | None = None


_RENJU_FILE = "games/renju_hse_train2/train-2.renju.xz"
_RAPFI_FILES = {15: "games/rapfi_selfplay/freestyle15.txt.xz",
                20: "games/rapfi_selfplay/freestyle20.txt.xz"}

SOURCES = {
    source.name: source for source in (
        Source("renju", _RENJU_FILE, "renju", 15),
        Source("freestyle15", _RAPFI_FILES[15], "rapfi", 15),
        Source("freestyle20", _RAPFI_FILES[20], "rapfi", 20),
        Source("standard15", _RAPFI_FILES[15], "rapfi", 15, Rule.STANDARD),
        Source("standard20", _RAPFI_FILES[20], "rapfi", 20, Rule.STANDARD),
        Source("caro15", _RAPFI_FILES[15], "rapfi", 15, Rule.CARO),
        Source("carostandard15", _RAPFI_FILES[15], "rapfi", 15, Rule.CARO_STANDARD),
    )
}


@dataclass
class LoadReport:
    """What :func:`load_source` read and what it dropped or corrected."""

    source: str
    lines: int = 0
    kept: int = 0
    #: Dropped games by reason.
    dropped: Counter[str] = field(default_factory=Counter)
    relabelled: int = 0
    truncated: int = 0

    def summary(self) -> str:
        dropped = ", ".join(f"{count} {reason}" for reason, count in self.dropped.items())
        return (f"{self.source}: {self.kept} of {self.lines} games kept "
                f"({dropped or 'none dropped'}); {self.relabelled} relabelled by the board, "
                f"{self.truncated} cut at a five or foul")


def load_source(source: Source, data_dir: Path = DEFAULT_DATA_DIR,
                max_games: int | None = None) -> tuple[list[GameRecord], LoadReport]:
    """Read and verify up to ``max_games`` games of ``source``.

    Raises FileNotFoundError if the file is missing.
    """
    path = data_dir / source.path
    if not path.is_file():
        raise FileNotFoundError(f"game file {path} not found (is --data-dir right?)")
    report = LoadReport(source.name)
    records: list[GameRecord] = []
    replayer = Replayer()
    with lzma.open(path, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            if max_games is not None and report.kept >= max_games:
                break
            if line.startswith("#") or not line.strip():
                continue
            report.lines += 1
            try:
                record = (parse_renju_line(line, key=str(number)) if source.kind == "renju"
                          else parse_rapfi_line(line, source.size))
                relabel = source.rule is not None and source.rule is not record.rule
                if relabel:
                    record = replace(record, rule=source.rule)
                checked = verify(record, replayer)
            except OccupiedPointError:
                report.dropped["occupied point"] += 1
                continue
            except RecordError:
                report.dropped["unreadable"] += 1
                continue
            if relabel and not checked.unchanged:
                report.dropped[f"different under {record.rule.name.lower()}"] += 1
                continue
            if not checked.record.target_plies():
                report.dropped["no move to learn"] += 1
                continue
            records.append(checked.record)
            report.kept += 1
            report.relabelled += checked.relabelled
            report.truncated += checked.truncated
    return records, report


def split_records(records: Sequence[GameRecord], validation_fraction: float
                  ) -> tuple[list[GameRecord], list[GameRecord]]:
    """(train, validation) by a stable hash of each record's split key."""
    train: list[GameRecord] = []
    validation: list[GameRecord] = []
    for record in records:
        held_out = in_validation(record.split_key, validation_fraction)
        (validation if held_out else train).append(record)
    return train, validation


def in_validation(split_key: str, validation_fraction: float) -> bool:
    """Whether a game with ``split_key`` belongs to the validation split (a stable hash)."""
    return zlib.crc32(split_key.encode()) % 10_000 < int(validation_fraction * 10_000)


# -- samples ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    """Training samples of one board shape (see the module docstring)."""

    planes: np.ndarray
    policy: np.ndarray
    wdl: np.ndarray

    def __len__(self) -> int:
        return len(self.planes)

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width) of the boards."""
        return self.planes.shape[2], self.planes.shape[3]

    @classmethod
    def concatenate(cls, batches: Sequence[Batch]) -> Batch:
        """One batch of the samples of ``batches``, which must share a board shape."""
        return cls(np.concatenate([b.planes for b in batches]),
                   np.concatenate([b.policy for b in batches]),
                   np.concatenate([b.wdl for b in batches]))

    def chunks(self, size: int) -> Iterator[Batch]:
        """Consecutive sub-batches of at most ``size`` samples."""
        for start in range(0, len(self), size):
            part = slice(start, start + size)
            yield Batch(self.planes[part], self.policy[part], self.wdl[part])


def symmetry_count(width: int, height: int) -> int:
    """Board symmetries: 8 on a square board, 4 on a rectangle."""
    return 8 if width == height else 4


def apply_symmetry(grid: np.ndarray, symmetry: int) -> np.ndarray:
    """``grid`` (..., H, W) under symmetry 0..7: bit 2 transposes (square boards only),
    bit 0 mirrors left-right, bit 1 mirrors top-bottom; 0 is the identity."""
    if symmetry & 4:
        grid = grid.swapaxes(-1, -2)
    if symmetry & 1:
        grid = grid[..., ::-1]
    if symmetry & 2:
        grid = grid[..., ::-1, :]
    return grid


class PositionSampler:
    """Random positions of records that share one board shape, uniform over the
    policy-target plies of all records."""

    def __init__(self, name: str, records: Sequence[GameRecord]) -> None:
        if not records:
            raise ValueError(f"source {name} has no games to sample")
        shapes = {(r.width, r.height) for r in records}
        if len(shapes) != 1:
            raise ValueError(f"source {name} mixes board shapes {sorted(shapes)}")
        self.name = name
        self.records = list(records)
        self.width, self.height = shapes.pop()
        games, plies = [], []
        for n, record in enumerate(self.records):
            targets = record.target_plies()
            games.extend([n] * len(targets))
            plies.extend(targets)
        self._games = np.array(games, dtype=np.int32)
        self._plies = np.array(plies, dtype=np.int32)
        self._replayer = Replayer()

    @property
    def positions(self) -> int:
        return len(self._plies)

    def sample(self, rng: np.random.Generator, count: int, augment: bool = True) -> Batch:
        """``count`` random positions, each under a random symmetry when ``augment``."""
        picks = rng.integers(self.positions, size=count)
        symmetries = (rng.integers(symmetry_count(self.width, self.height), size=count)
                      if augment else np.zeros(count, dtype=np.int64))
        return self._batch(picks, symmetries)

    def all_positions(self, limit: int | None = None, seed: int = 0) -> Batch:
        """Every position (or a fixed random subset of ``limit``), unaugmented: a
        validation set."""
        picks = np.arange(self.positions)
        if limit is not None and limit < self.positions:
            picks = np.sort(np.random.default_rng(seed).choice(picks, limit, replace=False))
        return self._batch(picks, np.zeros(len(picks), dtype=np.int64))

    def _batch(self, picks: np.ndarray, symmetries: np.ndarray) -> Batch:
        size = self.width * self.height
        planes = np.empty((len(picks), PLANE_COUNT, self.height, self.width), dtype=np.float32)
        policy = np.zeros((len(picks), self.height, self.width), dtype=np.float32)
        wdl = np.zeros((len(picks), 3), dtype=np.float32)
        target = np.zeros(size, dtype=np.float32)
        for n, (pick, symmetry) in enumerate(zip(picks.tolist(), symmetries.tolist(),
                                                 strict=True)):
            record = self.records[self._games[pick]]
            ply = int(self._plies[pick])
            board = self._replayer.position(record, ply)
            target[:] = 0.0
            wdl[n] = self._targets(pick, board, target)
            planes[n] = apply_symmetry(encode(board), symmetry)
            policy[n] = apply_symmetry(target.reshape(self.height, self.width), symmetry)
        return Batch(planes, policy.reshape(len(picks), size), wdl)

    def _targets(self, pick: int, board: Board, target: np.ndarray
                 ) -> tuple[float, float, float]:
        """Fill ``target`` (zeros, one per cell) with the policy target of position
        ``pick`` (``board`` before its move) and return its win/draw/loss target: the
        recorded move and the game's result."""
        record = self.records[self._games[pick]]
        target[record.moves[int(self._plies[pick])]] = 1.0
        return record.result.wdl(board.to_move)


class BatchStream:
    """An endless stream of mixed batches: every batch holds a fixed number of samples of
    each sampler, in proportion to its weight (at least one for a positive weight), as
    one :class:`Batch` per board shape.

    The composition is the same in every batch so that batch-norm statistics, taken over
    a whole mixed batch (:class:`brain.train.model.JointBatchNorm2d`), match the running
    statistics used after training on every source.
    """

    def __init__(self, samplers: Sequence[PositionSampler], weights: Sequence[float],
                 batch_size: int) -> None:
        if len(samplers) != len(weights) or not samplers:
            raise ValueError("give one weight per sampler, and at least one sampler")
        total = float(sum(weights))
        if total <= 0 or min(weights) < 0:
            raise ValueError(f"sampler weights must be non-negative with a positive sum: "
                             f"{list(weights)}")
        self.samplers = list(samplers)
        self.counts = _allocate(batch_size, np.array(weights, dtype=np.float64) / total)

    def batches(self, rng: np.random.Generator) -> Iterator[list[Batch]]:
        """Endless mixed batches drawn with ``rng``, one :class:`Batch` per board shape."""
        while True:
            groups: dict[tuple[int, int], list[Batch]] = {}
            for sampler, count in zip(self.samplers, self.counts, strict=True):
                if count:
                    groups.setdefault((sampler.height, sampler.width), []).append(
                        sampler.sample(rng, count))
            yield [Batch.concatenate(parts) for parts in groups.values()]


def _allocate(total: int, shares: np.ndarray) -> list[int]:
    """Split ``total`` into integer parts proportional to ``shares`` (largest remainder),
    giving every positive share at least one."""
    if total < int((shares > 0).sum()):
        raise ValueError(f"a batch of {total} cannot hold one sample of each source")
    exact = shares * total
    least = (shares > 0).astype(int)
    counts = np.maximum(np.floor(exact).astype(int), least)
    while counts.sum() > total:
        counts[np.argmax(np.where(counts > least, counts - exact, -np.inf))] -= 1
    while counts.sum() < total:
        counts[np.argmax(exact - counts)] += 1
    return counts.tolist()
