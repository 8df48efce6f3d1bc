"""Self-play: games of the tree search against itself, stored as training samples.

Each game starts from a random short opening (as the arena generates them) under a rule
and board size drawn from the configuration. Every move is searched with a fixed number
of playouts and Dirichlet noise at the root; during the first plies the move is sampled
in proportion to the visit counts, later the most visited move is played. Each position
becomes a sample: the encoded planes, the root's visit distribution as the policy target,
and the game's result (win/draw/loss for the side to move) as the value target.

Game ``n`` of a replay folder draws everything from the seed ``(config.seed, n)``
(:func:`game_rng`), so it is the same game wherever it is played: here (:func:`generate`)
or on a cluster node (:mod:`brain.train.cluster`), and after a resume.

Samples are written in chunks (``.npz``, one board shape per chunk) to a replay folder;
:class:`ReplayBuffer` serves random, symmetry-augmented batches from its newest chunks in
the :class:`~brain.train.data.Batch` form the trainer uses.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from brain.engine import load_network
from brain.errors import PbrainError
from brain.eval.evaluator import Evaluator, PatternEvaluator
from brain.eval.features import encode
from brain.game.board import Board, Color
from brain.game.openings import Opening, random_openings
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.search.mcts import Mcts, MctsConfig
from brain.train.data import Batch, apply_symmetry, symmetry_count

#: Samples per chunk file.
CHUNK_SAMPLES = 2048
#: A player named by this instead of a weights file: the tree search guided by the pattern
#: model.
HEURISTIC = "heuristic"


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play games are played."""

    playouts: int = 160
    #: Dirichlet noise at the root: concentration and share of the prior.
    dirichlet_alpha: float = 0.15
    noise_fraction: float = 0.25
    #: Plies (counted from the end of the opening) whose move is sampled by visits.
    sample_plies: int = 8
    #: (rule, width, height) drawn uniformly per game.
    variants: tuple[tuple[int, int, int], ...] = ((0, 15, 15), (1, 15, 15), (4, 15, 15),
                                                  (0, 20, 20))
    opening_stones: tuple[int, ...] = (2, 3, 4)
    #: Wall-clock cap per move; a fixed playout budget normally ends the search first.
    move_seconds: float = 10.0
    seed: int = 0


@dataclass
class SelfPlayGame:
    """One finished game's samples and outcome."""

    width: int
    height: int
    rule: int
    planes: list[np.ndarray] = field(default_factory=list)
    policies: list[np.ndarray] = field(default_factory=list)
    to_move: list[Color] = field(default_factory=list)
    winner: Color | None = None
    moves: list[int] = field(default_factory=list)
    #: The opening's stones (cells, black first), played before the first sample.
    opening: list[int] = field(default_factory=list)

    def wdl(self) -> np.ndarray:
        """Win/draw/loss targets for the side to move of each sample."""
        out = np.zeros((len(self.to_move), 3), dtype=np.float32)
        for n, color in enumerate(self.to_move):
            column = 1 if self.winner is None else 0 if self.winner is color else 2
            out[n, column] = 1.0
        return out


def best_evaluator(best: str) -> Evaluator:
    """The leaf evaluator of self-play for a player (a weights file or :data:`HEURISTIC`):
    the network values every leaf, so that its games teach its own value head."""
    return PatternEvaluator() if best == HEURISTIC else load_network(Path(best))


def game_rng(config: Any, index: int) -> np.random.Generator:
    """The random stream of game ``index`` of a replay folder (``config``: a self-play
    configuration with a ``seed``)."""
    return np.random.default_rng([config.seed, index])


def opening_keys(openings: Iterable[Opening]) -> frozenset[tuple[int, int, tuple]]:
    """Keys of ``openings`` up to board symmetry, to tell self-play which to avoid."""
    return frozenset((o.width, o.height, o.canonical().moves) for o in openings)


def play_game(evaluator: Evaluator, config: SelfPlayConfig, rng: np.random.Generator,
              excluded: frozenset[tuple[int, int, tuple]] = frozenset()) -> SelfPlayGame:
    """Play one self-play game; the evaluator is used by both sides. The opening is none
    of ``excluded`` (:func:`opening_keys`: the openings a gate plays from)."""
    rule, width, height = config.variants[int(rng.integers(len(config.variants)))]
    while True:
        stones = int(rng.choice(config.opening_stones))
        opening = random_openings(1, width, height, stones=stones,
                                  seed=int(rng.integers(2**31)))[0]
        if (width, height, opening.canonical().moves) not in excluded:
            break
    board = Board(width, height, Rule.from_gomocup(rule))
    game = SelfPlayGame(width, height, rule)
    for x, y in opening.moves:
        game.opening.append(board.index(x, y))
        if judge_move(board, board.index(x, y)) is not None:
            return game  # an opening that ends the game has nothing to learn from
    mcts = Mcts(evaluator, MctsConfig(playouts=config.playouts,
                                      dirichlet_alpha=config.dirichlet_alpha,
                                      noise_fraction=config.noise_fraction,
                                      seed=int(rng.integers(2**31))))
    stop = threading.Event()
    ply = 0
    while True:
        best = mcts.search(board, time.monotonic() + config.move_seconds, stop)
        policy = mcts.root_policy(board)
        if policy.sum() == 0:  # settled without a search (a five, a solver win)
            policy[best] = 1.0
        move = best
        if ply < config.sample_plies and policy.sum() > 0:
            move = int(rng.choice(board.size, p=policy / policy.sum()))
        game.planes.append(encode(board).astype(np.uint8))
        game.policies.append(policy.astype(np.float16))
        game.to_move.append(board.to_move)
        mover = board.to_move
        game.moves.append(move)
        verdict = judge_move(board, move, board.rule.move_limit)
        ply += 1
        if verdict is not None:
            game.winner = verdict.winner
            if verdict.winner is not None and verdict.winner is not mover:
                # A renju foul: the last sample taught a losing move; drop its policy.
                game.policies[-1] = np.zeros_like(game.policies[-1])
            return game


def write_chunk(folder: Path, games: Sequence[SelfPlayGame], index: int) -> list[Path]:
    """Write the samples of ``games`` as one chunk file per board shape."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    shapes = sorted({(g.width, g.height) for g in games if g.to_move})
    for width, height in shapes:
        same = [g for g in games if (g.width, g.height) == (width, height) and g.to_move]
        path = folder / f"chunk-{index:06d}-{width}x{height}.npz"
        temporary = path.with_suffix(".tmp.npz")
        np.savez_compressed(
            temporary,
            planes=np.concatenate([np.stack(g.planes) for g in same]),
            policy=np.concatenate([np.stack(g.policies) for g in same]),
            wdl=np.concatenate([g.wdl() for g in same]),
            shape=np.array([width, height]),
        )
        temporary.replace(path)  # a chunk is either complete or absent
        written.append(path)
    return written


class ReplayBuffer:
    """Random batches from the newest ``capacity`` samples of each board shape."""

    def __init__(self, folder: Path, capacity: int = 200_000) -> None:
        self.folder = folder
        self.capacity = capacity
        self._data: dict[tuple[int, int], Batch] = {}

    def load(self) -> int:
        """(Re)read the chunk files; returns the number of samples held."""
        by_shape: dict[tuple[int, int], list[Path]] = {}
        for path in sorted(self.folder.glob("chunk-*.npz")):
            if path.name.endswith(".tmp.npz"):
                continue
            width, height = map(int, path.stem.rsplit("-", 1)[1].split("x"))
            by_shape.setdefault((width, height), []).append(path)
        self._data = {}
        for shape, paths in by_shape.items():
            parts: list[Batch] = []
            held = 0
            for path in reversed(paths):  # newest first
                with np.load(path) as chunk:
                    parts.append(Batch(chunk["planes"], chunk["policy"], chunk["wdl"]))
                held += len(parts[-1])
                if held >= self.capacity:
                    break
            self._data[shape] = Batch(
                np.concatenate([p.planes for p in parts])[: self.capacity],
                np.concatenate([p.policy for p in parts])[: self.capacity],
                np.concatenate([p.wdl for p in parts])[: self.capacity],
            )
        return sum(len(b) for b in self._data.values())

    @property
    def shapes(self) -> list[tuple[int, int]]:
        return sorted(self._data)

    def sample(self, rng: np.random.Generator, count: int) -> Batch:
        """``count`` samples of one board shape (chosen by share of samples), each under a
        random board symmetry."""
        if not self._data:
            raise ValueError(f"the replay buffer in {self.folder} holds no samples yet")
        shapes = self.shapes
        sizes = np.array([len(self._data[s]) for s in shapes], dtype=np.float64)
        width, height = shapes[int(rng.choice(len(shapes), p=sizes / sizes.sum()))]
        data = self._data[(width, height)]
        picks = rng.integers(len(data), size=count)
        symmetries = rng.integers(symmetry_count(width, height), size=count)
        planes = np.empty((count, *data.planes.shape[1:]), dtype=np.float32)
        policy = np.empty((count, height * width), dtype=np.float32)
        for n, (pick, symmetry) in enumerate(zip(picks, symmetries, strict=True)):
            planes[n] = apply_symmetry(data.planes[pick].astype(np.float32), int(symmetry))
            grid = data.policy[pick].astype(np.float32).reshape(height, width)
            policy[n] = apply_symmetry(grid, int(symmetry)).reshape(-1)
        return Batch(planes, policy, data.wdl[picks])


@dataclass
class SelfPlayLog:
    """Totals of a self-play folder, kept in ``selfplay.json`` for resuming."""

    games: int = 0
    samples: int = 0
    chunks: int = 0
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    seconds: float = 0.0
    #: The seed its games were drawn from (folders made before it was kept used 0).
    seed: int = 0
    #: What its games were played with (:func:`folder_seed`; None: not kept, as in
    #: folders made before it was, or a reinforcement run's, whose state keeps them).
    settings: dict[str, Any] | None = None

    @classmethod
    def read(cls, folder: Path) -> SelfPlayLog:
        path = folder / "selfplay.json"
        return cls(**json.loads(path.read_text())) if path.exists() else cls()

    def write(self, folder: Path) -> None:
        path = folder / "selfplay.json"
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(asdict(self), indent=2))
        temporary.replace(path)


class SettingsMismatch(PbrainError, ValueError):
    """An output folder holds the work of other settings than those given to go on with
    it (a self-play folder's seed, a reinforcement run's settings)."""


def new_seed() -> int:
    """A seed of its own for a new run or self-play folder."""
    return secrets.randbelow(2**31)


def weights_identity(weights: str) -> str:
    """What names a player's network in a folder's settings: its file's content (a
    digest, so that the same file named otherwise is the same player and a file
    trained anew under the same name is not), or ``weights`` itself where it names no
    file (:data:`HEURISTIC`).

    :raises OSError: the file cannot be read.
    """
    path = Path(weights)
    if weights == HEURISTIC and not path.exists():
        return weights
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def folder_seed(folder: Path, given: int | None,
                settings: dict[str, Any] | None = None) -> int:
    """The seed of the games of replay folder ``folder``, kept in its ``selfplay.json``:
    the saved one if it has games, else ``given`` or, without one, a new seed (two folders
    filled by one network with one seed would hold the same games). ``settings`` (values
    JSON keeps) are what the games to come are played with: kept with a new folder's seed,
    and checked against those kept with its games.

    :raises SettingsMismatch: ``given`` differs from the seed the folder's games were
        played with, or ``settings`` from the settings they were played with.
    """
    log = SelfPlayLog.read(folder)
    settings = None if settings is None else json.loads(json.dumps(settings))
    if log.games:
        if given is not None and given != log.seed:
            raise SettingsMismatch(f"{folder} holds games of seed {log.seed}, not {given}: "
                                   "give that seed, or none, to add games to it, or use "
                                   "another folder")
        if settings is not None and log.settings is not None and settings != log.settings:
            changed = sorted(name for name in settings.keys() | log.settings.keys()
                             if settings.get(name) != log.settings.get(name))
            played = ", ".join(f"{name} {log.settings.get(name)} (not {settings.get(name)})"
                               for name in changed)
            raise SettingsMismatch(f"{folder} holds games played with {played}: give those "
                                   "to add games to it, or use another folder")
        return log.seed
    log.seed = new_seed() if given is None else given
    log.settings = settings
    folder.mkdir(parents=True, exist_ok=True)
    log.write(folder)
    return log.seed


#: Plays the games of a range of indices and yields them in index order (the games of
#: the convolutional network's search, or the line network's
#: :class:`~brain.train.lineplay.LineGame`).
GameSource = Callable[[range], Iterable[Any]]
#: Writes a list of games as chunk ``index`` of a replay folder; returns the files.
ChunkWriter = Callable[[Path, Sequence[Any], int], list[Path]]


def generate(evaluator: Evaluator, folder: Path, games: int, config: SelfPlayConfig,
             games_per_chunk: int = 16, progress: bool = True,
             excluded: frozenset[tuple[int, int, tuple]] = frozenset()) -> SelfPlayLog:
    """Play ``games`` more games here into ``folder`` (resumable: totals and game numbers
    continue from ``selfplay.json``), from openings none of ``excluded``."""
    def source(indices: range) -> Iterable[SelfPlayGame]:
        return (play_game(evaluator, config, game_rng(config, n), excluded)
                for n in indices)

    return record_games(source, folder, games, games_per_chunk, progress)


def record_games(source: GameSource, folder: Path, games: int, games_per_chunk: int = 16,
                 progress: bool = True, write: ChunkWriter = write_chunk) -> SelfPlayLog:
    """Write ``games`` more games of ``source`` into ``folder``: chunks (by ``write``),
    then the totals of ``selfplay.json`` (so a kill loses at most the games of an
    unwritten chunk)."""
    log = SelfPlayLog.read(folder)
    pending: list[SelfPlayGame] = []
    started = time.monotonic()
    target = log.games + games
    for game in source(range(log.games, target)):
        pending.append(game)
        log.games += 1
        log.samples += len(game.to_move)
        if game.winner is Color.BLACK:
            log.black_wins += 1
        elif game.winner is Color.WHITE:
            log.white_wins += 1
        else:
            log.draws += 1
        if len(pending) >= games_per_chunk or log.games == target:
            write(folder, pending, log.chunks)
            log.chunks += 1
            log.seconds += time.monotonic() - started
            started = time.monotonic()
            log.write(folder)
            pending = []
        if progress:
            rate = log.games / max(log.seconds + time.monotonic() - started, 1e-9)
            print(f"\rself-play: {log.games}/{target} games, {log.samples} samples, "
                  f"{rate * 3600:.0f} games/h", end="", flush=True)
    if progress:
        print()
    return log
