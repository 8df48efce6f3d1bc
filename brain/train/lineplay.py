"""Self-play of the line-pattern network: games of its tree search
(:class:`~brain.search.linesearch.LineSearch`) against itself, kept as
:class:`~brain.train.samples.SampleStore` chunks that a training run reads.

Each game draws its rule and board from :attr:`LinePlayConfig.variants` (by weight), then
a random opening of 2 to 5 stones near the centre that a short search of the network rates
near even (:attr:`LinePlayConfig.balance`; most random openings are lost for one side, and
a game from one teaches little) and that is none of the ``excluded`` openings (those a
gate plays from). Every move is searched with a fixed number of playouts; as KataGo does
("playout cap randomisation"), only a share of the moves get the full search with root
noise, and only those teach the policy (their visit shares) and give a value target
of their own (the root's winrate, which the trainer mixes with the game's result); the
others get a short search without noise and teach only the result, so that a game costs
little and its result is learnt from every position. The first plies sample their move
by the visits (with a falling temperature), so that games differ.

Game ``n`` of a replay folder draws everything from ``(config.seed, n)``
(:func:`brain.train.selfplay.game_rng`): it is the same game here, on a cluster node and
after a resume (the playouts are deterministic; only a deadline could cut one short).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from brain.eval.linenet import LineNet
from brain.game.board import Board, Color
from brain.game.openings import Opening, random_openings
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.search.linesearch import LineSearch, LineSearchConfig
from brain.search.roottactics import FIXED_SOLVER_NODES
from brain.train.samples import DRAW, LOSS, WIN, SampleBuilder, SampleStore
from brain.train.selfplay import GameSource, SelfPlayLog, SettingsMismatch, game_rng

#: Source name of self-play samples in a :class:`SampleStore`.
SOURCE = "selfplay"
#: Tree memory of a self-play search: a few thousand playouts need far less than a move
#: in a tournament.
TREE_BYTES = 16 << 20
#: Draws of an opening before the most even one drawn is taken.
OPENING_DRAWS = 24


def opening_radius(width: int, height: int) -> int:
    """How far from the centre a self-play opening's stones lie (Chebyshev)."""
    return 3 if max(width, height) <= 15 else 4


def opening_board(opening: Opening, rule: Rule) -> Board:
    """A board of ``opening``'s size under ``rule`` with its stones played."""
    board = Board(opening.width, opening.height, rule)
    for x, y in opening.moves:
        board.play(board.index(x, y))
    return board


@dataclass(frozen=True)
class LinePlayConfig:
    """How self-play games of the line network are played."""

    #: Playouts of a full search (a policy target) and of a short one (value only).
    playouts: int = 400
    fast_playouts: int = 80
    #: Node budgets of the root's VCF and VCT in a full and a short search (and in the
    #: search that judges an opening): at 80 playouts the full one's budget took two
    #: thirds of a game's time; the wins it alone finds, the next full search finds.
    solver_nodes: int = FIXED_SOLVER_NODES
    fast_solver_nodes: int = 2_000
    #: Share of the moves that get the full search.
    full_share: float = 0.25
    #: One colour, drawn game by game, searches this many times the playouts of the
    #: other (its full and short searches alike): an attacker deeper than its defender
    #: plays out the wins the defender allows, which players of one depth mostly miss,
    #: so that the results mark the positions that allow them. 1: both alike.
    deep_side: int = 1
    dirichlet_alpha: float = 0.1
    noise_fraction: float = 0.25
    #: Plies (after the opening) whose move is sampled by visits raised to ``1 / T``,
    #: ``T`` going from the first temperature to the second.
    sample_plies: int = 10
    temperature: tuple[float, float] = (0.8, 0.3)
    #: (Gomocup rule, width, height, weight): freestyle 15x15 most (the leagues the
    #: engine is measured in), freestyle 20x20 next (Freestyle-20 and Fastgame), then
    #: renju (whose fouls change the play most), standard and caro (which differ from
    #: freestyle only around overlines and blocked fives).
    variants: tuple[tuple[int, int, int, float], ...] = (
        (0, 15, 15, 0.35), (0, 20, 20, 0.2), (4, 15, 15, 0.2), (1, 15, 15, 0.15),
        (8, 15, 15, 0.1))
    opening_stones: tuple[int, ...] = (2, 3, 4, 5)
    #: Keep openings a search of ``judge_playouts`` rates within this of an even game.
    balance: float = 0.15
    judge_playouts: int = 200
    #: Wall-clock cap per move; the playout budget normally ends the search first.
    move_seconds: float = 10.0
    seed: int = 0


@dataclass
class LineGame:
    """One finished self-play game: its stones and, per searched position, what it
    teaches."""

    width: int
    height: int
    rule: int
    #: The opening's cells (black first), then the game's moves.
    opening: list[int] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)
    to_move: list[Color] = field(default_factory=list)
    #: Per sample: the most visited move (-1 after a short search), the visit shares and
    #: the full search's winrate for the side to move (NaN after a short search).
    best: list[int] = field(default_factory=list)
    targets: list[list[tuple[int, float]]] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    winner: Color | None = None
    playouts: int = 0


class SelfPlayer:
    """Plays self-play games with one network (a search reused from game to game)."""

    def __init__(self, net: LineNet, config: LinePlayConfig,
                 excluded: frozenset[tuple[int, int, tuple]] = frozenset()) -> None:
        """``excluded``: openings never to play from
        (:func:`brain.train.selfplay.opening_keys` of a gate's openings)."""
        self.net = net
        self.config = config
        # Each move's search from its own tree: the playout budget is what the targets
        # were searched with.
        self.search = LineSearch(net, LineSearchConfig(tree_bytes=TREE_BYTES,
                                                       noise_fraction=config.noise_fraction,
                                                       reuse_tree=False))
        self.excluded = excluded

    def winrate(self, board: Board) -> float:
        """A short search's winrate for the side to move (:attr:`LinePlayConfig.judge_playouts`)."""
        search = self.search
        search.config.playouts = self.config.judge_playouts
        search.config.solver_nodes = self.config.fast_solver_nodes
        search.config.dirichlet_alpha = 0.0
        search.reset()
        search.search(board, time.monotonic() + self.config.move_seconds)
        return 0.5 if search.info.winrate is None else float(search.info.winrate)

    def opening(self, rule: int, width: int, height: int,
                rng: np.random.Generator) -> tuple[Board, Opening]:
        """A board set up with a random opening that a short search rates near even (the
        most even of :data:`OPENING_DRAWS` draws if none is)."""
        config = self.config
        closest: tuple[float, Board, Opening] | None = None
        for _ in range(OPENING_DRAWS):
            stones = int(rng.choice(config.opening_stones))
            opening = random_openings(1, width, height, stones=stones,
                                      radius=opening_radius(width, height),
                                      seed=int(rng.integers(2**31)))[0]
            if (width, height, opening.canonical().moves) in self.excluded:
                continue
            board = opening_board(opening, Rule.from_gomocup(rule))
            distance = abs(self.winrate(board) - 0.5)
            if distance <= config.balance:
                return board, opening
            if closest is None or distance < closest[0]:
                closest = (distance, board, opening)
        if closest is None:
            raise RuntimeError(f"every one of {OPENING_DRAWS} random openings on {width}x"
                               f"{height} is an excluded one: exclude fewer")
        return closest[1], closest[2]

    def play(self, rng: np.random.Generator) -> LineGame:
        """One game, every random choice drawn from ``rng``."""
        config = self.config
        weights = np.array([v[3] for v in config.variants])
        rule, width, height, _ = config.variants[int(rng.choice(len(weights),
                                                                 p=weights / weights.sum()))]
        board, opening = self.opening(rule, width, height, rng)
        game = LineGame(width, height, rule, [board.index(x, y) for x, y in opening.moves])
        search = self.search
        search.reset()
        search.rng = np.random.default_rng(int(rng.integers(2**63)))
        # Drawn only when it matters, so that the games of a seed stay what they were.
        deep = (Color.BLACK if rng.random() < 0.5 else Color.WHITE) if config.deep_side > 1 \
            else None
        ply = 0
        while True:
            full = bool(rng.random() < config.full_share)
            factor = config.deep_side if board.to_move is deep else 1
            search.config.playouts = factor * (config.playouts if full else config.fast_playouts)
            search.config.solver_nodes = config.solver_nodes if full else config.fast_solver_nodes
            search.config.dirichlet_alpha = config.dirichlet_alpha if full else 0.0
            best = search.search(board, time.monotonic() + config.move_seconds)
            game.playouts += search.info.playouts
            policy = search.root_policy(board)
            # Moves visited more than the one chosen were turned down by a threat search
            # (they lose): the target keeps none of them.
            policy[policy > policy[best]] = 0.0
            if policy[best] == 0:  # settled without playouts (a five, a threat-space win)
                policy[:] = 0.0
                policy[best] = 1.0
            policy /= policy.sum()
            move = best
            if ply < config.sample_plies:
                first, last = config.temperature
                weights = policy ** (1 / (first + (last - first) * ply / config.sample_plies))
                move = int(rng.choice(board.size, p=weights / weights.sum()))
            game.to_move.append(board.to_move)
            game.best.append(best if full else -1)
            cells = np.flatnonzero(policy) if full else ()
            game.targets.append([(int(q), float(policy[q])) for q in cells])
            # A full search's root value is far less noisy than the game's one result.
            value = search.info.winrate if full else None
            game.values.append(math.nan if value is None else float(value))
            mover = board.to_move
            game.moves.append(move)
            verdict = judge_move(board, move, board.rule.move_limit)
            ply += 1
            if verdict is not None:
                game.winner = verdict.winner
                if verdict.winner is not None and verdict.winner is not mover:
                    # A renju foul: the move must not be taught.
                    game.best[-1], game.targets[-1], game.values[-1] = -1, [], math.nan
                return game


def local_games(weights: str | Path, config: LinePlayConfig,
                excluded: frozenset[tuple[int, int, tuple]] = frozenset()) -> GameSource:
    """Self-play games of the network in ``weights`` played in this process."""
    player = SelfPlayer(LineNet.from_file(weights), config, excluded)

    def source(indices: range) -> Iterator[LineGame]:
        return (player.play(game_rng(config, n)) for n in indices)

    return source


def samples_of_games(games: Sequence[LineGame]) -> SampleStore:
    """The samples of ``games``: each searched position with its result for the side to
    move, and after a full search its most visited move, visit shares and root winrate
    (which the trainer mixes into the value target as it does a teacher's)."""
    builder = SampleBuilder(SOURCE)
    for g in games:
        cells = g.opening + g.moves
        stones = [(q, 1 if n % 2 == 0 else 2) for n, q in enumerate(cells)]
        index = builder.add_game(g.width, g.height, g.rule, stones)
        for n, to_move in enumerate(g.to_move):
            result = DRAW if g.winner is None else WIN if g.winner is to_move else LOSS
            builder.add_sample(index, len(g.opening) + n, g.best[n], int(to_move), result,
                               g.values[n], target=g.targets[n])
    return builder.store()


def write_games(folder: Path, games: Sequence[LineGame], index: int) -> list[Path]:
    """Write ``games`` as chunk ``index`` of a replay folder (complete or absent)."""
    return [save_chunk(folder, samples_of_games(games), index)]


def save_chunk(folder: Path, store: SampleStore, index: int) -> Path:
    """Write ``store`` as chunk ``index`` of a replay folder (complete or absent)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"games-{index:06d}.npz"
    temporary = path.with_suffix(".tmp.npz")
    store.save(temporary)
    temporary.replace(path)
    return path


def replay_chunks(folder: Path) -> list[Path]:
    """The written chunks of a replay folder, oldest first."""
    return sorted(p for p in folder.glob("games-*.npz") if not p.name.endswith(".tmp.npz"))


def merge_replays(sources: Sequence[Path], folder: Path, seed: int,
                  excluded: frozenset[tuple[int, int, tuple]] = frozenset()) -> SelfPlayLog:
    """Join replay folders of games played apart (by machines with no Ray cluster
    between them, each folder with a seed of its own) into the new replay folder
    ``folder``, which takes ``seed``: a run goes on in it with games drawn from that seed,
    numbered after the merged ones. Chunks come one from each source in turn, so that a
    window of the newest holds games of all. Games that began from an ``excluded``
    opening (:func:`~brain.train.selfplay.opening_keys` of a run's gating openings, which
    the run's own self-play never starts from) are left out; ``seconds`` is the sources'
    playing time, theirs included.

    :raises SettingsMismatch: if ``folder`` already holds games.
    """
    if SelfPlayLog.read(folder).games or replay_chunks(folder):
        raise SettingsMismatch(f"{folder} already holds games: merge into a new folder")
    queues = [replay_chunks(Path(source)) for source in sources]
    log = SelfPlayLog(seed=seed, seconds=sum(SelfPlayLog.read(Path(s)).seconds
                                             for s in sources))
    for turn in range(max(map(len, queues), default=0)):
        for queue in queues:
            if turn >= len(queue):
                continue
            store = SampleStore.load(queue[turn])
            kept = store.games_where(_games_to_keep(store, excluded))
            if len(kept.width) == 0:
                continue
            save_chunk(folder, kept, log.chunks)
            log.chunks += 1
            log.games += len(kept.width)
            log.samples += len(kept)
            # Each game's first sample tells its winner.
            first = np.searchsorted(kept.game, np.arange(len(kept.width)))
            result, to_move = kept.result[first], kept.to_move[first]
            black = np.where(to_move == int(Color.BLACK), result == WIN, result == LOSS)
            log.draws += int(np.count_nonzero(result == DRAW))
            log.black_wins += int(np.count_nonzero(black))
            log.white_wins += int(np.count_nonzero((result != DRAW) & ~black))
    log.write(folder)
    return log


def _games_to_keep(store: SampleStore,
                   excluded: frozenset[tuple[int, int, tuple]]) -> np.ndarray:
    """A bool per game of ``store``: it has samples and its opening (the stones before
    its first sample) is none of ``excluded``."""
    keep = np.zeros(len(store.width), dtype=bool)
    games, first = np.unique(store.game, return_index=True)
    for game, sample in zip(games.tolist(), first.tolist(), strict=True):
        width, height = int(store.width[game]), int(store.height[game])
        begin = int(store.start[game])
        cells = store.stones[begin:begin + int(store.count[sample])].tolist()
        opening = Opening(tuple((q % width, q // width) for q in cells), width, height)
        keep[game] = (width, height, opening.canonical().moves) not in excluded
    return keep


def replay_window(folder: Path, samples: int) -> SampleStore | None:
    """The newest chunks of a replay folder holding about ``samples`` samples (None: no
    chunk yet)."""
    parts: list[SampleStore] = []
    held = 0
    for path in reversed(replay_chunks(folder)):
        parts.append(SampleStore.load(path))
        held += len(parts[-1])
        if held >= samples:
            break
    return SampleStore.concatenate(parts[::-1]) if parts else None
