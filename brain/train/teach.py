"""``python -m brain.train teach``: label positions with a teacher engine, resumably.

Positions come from *sources*, each named on the command line with a weight:

``renju``, ``freestyle15``, ``freestyle20``, ... (any name of :data:`brain.train.data.SOURCES`)
    the game records of the shared data folder: per game (a *unit*), ``plies_per_game``
    random positions after the opening, before any pass and before the game is decided
    under the labelling rule. The game's own move is kept as ``record_move``.
``openingsN`` (``openings15``, ``openings20``)
    a random balanced-ish opening of 2 to 5 stones on an N x N board
    (:func:`brain.game.openings.random_openings`), played to the end by the teacher
    against itself; every position of the game is labelled and the game's result is
    their outcome. With an opening balance, only the openings the teacher rates near
    even are played out.
``selfplayN``
    a self-play game of pbrain-zero's tree search on an N x N board
    (:func:`brain.train.selfplay.play_game`); every position after the opening is
    labelled, pbrain-zero's move is the ``record_move``.
``arena:DIR``
    the finished games of an arena run folder (its ``games.jsonl``) played under the
    labelling rule, as the game files are read: the positions the brains met in real
    matches, such as pbrain-zero's games against stronger engines, where the teacher's
    move is the lesson (raise ``plies_per_game`` to label every position of such games).

The weights are shares of the teacher's requests: the next unit always comes from the
source that is furthest below its share. With ``outcomes`` on, the teacher also plays
every record and self-play position to the end (``outcome_ms`` per move): the value
target then has a real result besides the evaluation.

**Resuming.** Positions are written in append-only shards (:mod:`brain.train.teachdata`)
at unit boundaries, each with the run's state (units consumed per source, counters);
``progress.json`` is a readable copy of the newest state and ``teach.json`` the run's
settings. A run that is killed loses only the units after its last shard; resumed, it
takes them up again from the same unit numbers (the unit streams are fixed by the seed),
so no position is lost or stored twice. Positions equal under a board symmetry
(:func:`brain.train.teachdata.position_key`) are stored once.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shlex
import signal
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from brain.errors import PbrainError
from brain.game.board import Board, Color
from brain.game.openings import random_openings
from brain.game.records import RecordFormatError, read_jsonl
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.train.data import (
    DEFAULT_DATA_DIR,
    PASS,
    SOURCES,
    GameRecord,
    load_source,
)
from brain.train.selfplay import (
    HEURISTIC,
    SelfPlayConfig,
    best_evaluator,
    game_rng,
    play_game,
)
from brain.train.teachdata import NO_OUTCOME, LabelledPosition, ShardStore, position_key
from driver.judgement import RAPFI_SCALE
from driver.teacher import Label, Teacher, TeacherConfig, TeacherError
from protocol.syntax import Point

log = logging.getLogger("brain.train.teach")

#: Default sources and their shares of the teacher's time.
DEFAULT_SOURCES = ("renju=1", "freestyle15=1", "openings15=1", "selfplay15=1",
                   "freestyle20=1", "openings20=1", "selfplay20=1")
SETTINGS_FILE = "teach.json"
PROGRESS_FILE = "progress.json"
#: Units in a row that fail before the run gives up on the teacher.
MAX_FAILED_IN_A_ROW = 3
#: Units in a row without a new position before the run ends: the sources are spent.
MAX_EMPTY_IN_A_ROW = 1000
_GENERATED = re.compile(r"(openings|selfplay)(\d+)")
#: The prefix of a source that reads an arena run folder.
ARENA_PREFIX = "arena:"


class TeachError(PbrainError, RuntimeError):
    """A run that cannot start or go on (the message says why and what to do)."""


@dataclass
class TeachConfig:
    """Settings of a labelling run, kept in ``OUT/teach.json``."""

    out: str
    teacher: str = ""
    teacher_info: list[str] = field(default_factory=list)
    teacher_cwd: str | None = None
    move_ms: int = 200
    multipv: int = 1
    pause_ms: int = 20
    eval_scale: float = RAPFI_SCALE
    rule: int = 0
    sources: list[str] = field(default_factory=lambda: list(DEFAULT_SOURCES))
    plies_per_game: int = 2
    max_games: int | None = 20_000
    opening_stones: list[int] = field(default_factory=lambda: [2, 3, 4, 5])
    opening_radius: int = 3
    #: Play out only the openings whose side to move the teacher rates within this of
    #: an even game (|winrate - 0.5|; None: all). Random openings are mostly lopsided,
    #: unlike the balanced ones of real matches, where the evaluators judge worst.
    opening_balance: float | None = None
    selfplay_playouts: int = 64
    selfplay_weights: str = HEURISTIC
    outcomes: bool = False
    outcome_ms: int | None = None
    shard_positions: int = 256
    flush_seconds: float = 60.0
    seed: int = 0
    data_dir: str = str(DEFAULT_DATA_DIR)

    def weights(self) -> dict[str, float]:
        """Source name to weight, from ``NAME=WEIGHT`` items (a bare name weighs 1).

        :raises TeachError: an unknown source or a weight that is no positive number.
        """
        weights: dict[str, float] = {}
        for item in self.sources:
            name, _, text = item.partition("=")
            if (name not in SOURCES and _GENERATED.fullmatch(name) is None
                    and not (name.startswith(ARENA_PREFIX) and len(name) > len(ARENA_PREFIX))):
                raise TeachError(f"unknown source {name!r}: use a game file of "
                                 f"{', '.join(SOURCES)}, openingsN / selfplayN for an "
                                 f"N x N board, or {ARENA_PREFIX}DIR for an arena run")
            try:
                weight = float(text) if text else 1.0
            except ValueError:
                weight = -1.0
            if not weight > 0:
                raise TeachError(f"source {item!r}: the weight must be a positive number")
            weights[name] = weight
        if not weights:
            raise TeachError("give at least one source")
        return weights

    def check(self) -> None:
        """Raises :class:`TeachError` for settings a run cannot use (the sources, the
        teacher's command, the opening balance)."""
        self.weights()
        self.teacher_config()
        if self.opening_balance is not None and not 0 <= self.opening_balance < 0.5:
            raise TeachError(f"--opening-balance {self.opening_balance:g}: give a winrate "
                             "distance from an even game, at least 0 and below 0.5")

    def teacher_config(self) -> TeacherConfig:
        """How to run the teacher.

        :raises TeachError: no teacher command, or an INFO item without ``=``.
        """
        command = tuple(shlex.split(self.teacher))
        if not command:
            raise TeachError("give the teacher's command line with --teacher")
        info = []
        for item in self.teacher_info:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise TeachError(f"--teacher-info {item!r}: expected KEY=VALUE")
            info.append((key, value))
        return TeacherConfig(command, self.move_ms, self.multipv, tuple(info),
                             self.pause_ms, self.eval_scale, self.teacher_cwd)


# -- units: what one step of a source asks the teacher -------------------------------------


@dataclass(frozen=True)
class Unit:
    """Work of one source step: ``positions`` to label, as (stones, record move or -1),
    or an opening the teacher plays to the end (``play_out``)."""

    source: str
    index: int
    width: int
    height: int
    positions: tuple[tuple[tuple[int, ...], int], ...] = ()
    play_out: tuple[int, ...] | None = None


def _stream_seed(seed: int, name: str) -> int:
    return zlib.crc32(f"{seed}:{name}".encode())


def eligible_plies(record: GameRecord, rule: Rule) -> list[int]:
    """Plies of ``record`` whose position can be labelled under ``rule``: after the
    opening, before any pass and before the game is decided under ``rule``."""
    board = Board(record.width, record.height, rule)
    plies = []
    for ply, move in enumerate(record.moves):
        if move == PASS:
            break
        if ply >= record.first_target:
            plies.append(ply)
        if judge_move(board, move, rule.move_limit) is not None:
            break
    return plies


class RecordSource:
    """Positions of the games of one game file, game after game in a seeded order."""

    def __init__(self, name: str, records: Sequence[GameRecord], rule: Rule, seed: int,
                 plies_per_game: int) -> None:
        if not records:
            raise TeachError(f"source {name} has no games")
        self.name, self.records, self.rule = name, list(records), rule
        self.seed = _stream_seed(seed, name)
        self.order = np.random.default_rng(self.seed).permutation(len(self.records))
        self.plies_per_game = plies_per_game

    def unit(self, index: int) -> Unit:
        record = self.records[int(self.order[index % len(self.records)])]
        plies = eligible_plies(record, self.rule)
        rng = np.random.default_rng([self.seed, index])
        picks = sorted(rng.choice(plies, min(self.plies_per_game, len(plies)),
                                  replace=False).tolist()) if plies else []
        return Unit(self.name, index, record.width, record.height,
                    tuple((record.moves[:p], record.moves[p]) for p in picks))


def arena_records(run: Path, rule: Rule) -> list[GameRecord]:
    """The finished games of the arena run folder ``run`` played under ``rule``, as
    training records whose opening stones are no targets.

    Read from the run's ``games.jsonl`` with :func:`brain.game.records.read_jsonl`, the
    arena's own reader (a torn last line, a run killed mid-write, is skipped).

    :raises TeachError: the folder has no readable ``games.jsonl``, or a bad line.
    """
    path = run / "games.jsonl"
    try:
        games = list(read_jsonl(path))
    except OSError as exc:
        raise TeachError(f"cannot read the arena games of {run}: {exc}") from None
    except RecordFormatError as exc:
        raise TeachError(f"not an arena game record: {exc}") from None
    records = []
    for number, game in enumerate(games, start=1):
        if Rule.from_gomocup(game.rule) is not rule:
            continue
        cells = tuple(move.y * game.width + move.x for move in game.moves)
        records.append(GameRecord(game.width, game.height, rule, cells, game.result,
                                  first_target=game.opening_length,
                                  split_key=f"{run.name}:{number}"))
    return records


class OpeningSource:
    """Random openings on a square board, for the teacher to play out."""

    def __init__(self, name: str, size: int, seed: int, stones: Sequence[int],
                 radius: int) -> None:
        self.name, self.size, self.seed = name, size, _stream_seed(seed, name)
        self.stones, self.radius = list(stones), radius

    def unit(self, index: int) -> Unit:
        rng = np.random.default_rng([self.seed, index])
        stones = int(rng.choice(self.stones))
        opening = random_openings(1, self.size, stones=stones, radius=self.radius,
                                  seed=int(rng.integers(2**31)))[0]
        cells = tuple(y * self.size + x for x, y in opening.moves)
        return Unit(self.name, index, self.size, self.size, play_out=cells)


class SelfPlaySource:
    """Self-play games of pbrain-zero's tree search on a square board."""

    def __init__(self, name: str, size: int, rule: int, seed: int, playouts: int,
                 weights: str) -> None:
        self.name, self.size = name, size
        self.config = SelfPlayConfig(playouts=playouts, variants=((rule, size, size),),
                                     seed=_stream_seed(seed, name))
        self.weights = weights
        self._evaluator: Any = None

    def unit(self, index: int) -> Unit:
        if self._evaluator is None:
            self._evaluator = best_evaluator(self.weights)
        game = play_game(self._evaluator, self.config, game_rng(self.config, index))
        stones = (*game.opening, *game.moves)
        start = len(game.opening)
        return Unit(self.name, index, self.size, self.size,
                    tuple((stones[:start + k], move) for k, move in enumerate(game.moves)))


Source = RecordSource | OpeningSource | SelfPlaySource


def build_sources(config: TeachConfig) -> dict[str, Source]:
    """The sources of ``config``, in its order (record files are read now)."""
    sources: dict[str, Source] = {}
    rule = Rule.from_gomocup(config.rule)
    for name in config.weights():
        generated = _GENERATED.fullmatch(name)
        if generated is None:
            if name.startswith(ARENA_PREFIX):
                records = arena_records(Path(name[len(ARENA_PREFIX):]), rule)
                log.info("%s: %d games under the rule", name, len(records))
            else:
                records, report = load_source(SOURCES[name], Path(config.data_dir),
                                              config.max_games)
                log.info("%s", report.summary())
            sources[name] = RecordSource(name, records, rule, config.seed,
                                         config.plies_per_game)
        elif generated[1] == "openings":
            sources[name] = OpeningSource(name, int(generated[2]), config.seed,
                                          config.opening_stones, config.opening_radius)
        else:
            sources[name] = SelfPlaySource(name, int(generated[2]), config.rule,
                                           config.seed, config.selfplay_playouts,
                                           config.selfplay_weights)
    return sources


# -- labelling ---------------------------------------------------------------------------


def _points(stones: Sequence[int], width: int) -> list[Point]:
    return [Point(cell % width, cell // width) for cell in stones]


def _result_for(winner: Color | None, stones: Sequence[int]) -> int:
    """1 / 0 / -1: the result for the side to move after ``stones``."""
    if winner is None:
        return 0
    to_move = Color.BLACK if len(stones) % 2 == 0 else Color.WHITE
    return 1 if winner is to_move else -1


class Labeller:
    """Turns units into labelled positions with one teacher."""

    def __init__(self, teacher: Teacher, rule: int, outcome_ms: int | None,
                 outcomes: bool, opening_balance: float | None = None) -> None:
        self.teacher, self.rule = teacher, rule
        self.outcome_ms, self.outcomes = outcome_ms, outcomes
        self.opening_balance = opening_balance
        #: Teacher requests made (labels and continuation moves).
        self.requests = 0

    def _ask(self, stones: Sequence[int], width: int, height: int,
             move_ms: int | None = None) -> Label:
        self.requests += 1
        return self.teacher.ask(_points(stones, width), width, height, self.rule, move_ms)

    def play(self, stones: Sequence[int], width: int, height: int, first: Label | None,
             move_ms: int | None) -> tuple[list[tuple[tuple[int, ...], Label]], Color | None]:
        """The teacher plays both sides from ``stones`` to the end (``first``: its label
        in the starting position, when asked already). Returns every position with the
        teacher's label, and the winner (``None``: a draw). Positions where ``stones``
        already ended the game give ``([], winner)``."""
        board = Board(width, height, Rule.from_gomocup(self.rule))
        for cell in stones:
            verdict = judge_move(board, cell, board.rule.move_limit)
            if verdict is not None:
                return [], verdict.winner
        played = list(stones)
        labels: list[tuple[tuple[int, ...], Label]] = []
        while True:
            label = first or self._ask(played, width, height, move_ms)
            first = None
            labels.append((tuple(played), label))
            cell = label.move.y * width + label.move.x
            verdict = judge_move(board, cell, board.rule.move_limit)
            played.append(cell)
            if verdict is not None:
                return labels, verdict.winner

    def label(self, unit: Unit, known: set[int]) -> list[LabelledPosition]:
        """The labelled positions of ``unit``. Positions to label whose key is in
        ``known`` are not asked (a play-out asks every position: it needs the moves).

        :raises TeacherError: the teacher failed (the unit is then skipped).
        """
        width, height = unit.width, unit.height
        if unit.play_out is not None:
            first = None
            if self.opening_balance is not None:
                first = self._ask(unit.play_out, width, height)
                if not first.judgement.near_even(self.opening_balance):
                    return []
            labels, winner = self.play(unit.play_out, width, height, first, None)
            return [self._position(unit, stones, label, -1, _result_for(winner, stones))
                    for stones, label in labels]
        out = []
        for stones, record_move in unit.positions:
            key = position_key(stones, width, height, self.rule)
            if key in known:
                continue
            label = self._ask(stones, width, height)
            outcome = NO_OUTCOME
            if self.outcomes:
                _, winner = self.play(stones, width, height, label, self.outcome_ms)
                outcome = _result_for(winner, stones)
            out.append(self._position(unit, stones, label, record_move, outcome, key))
        return out

    def _position(self, unit: Unit, stones: tuple[int, ...], label: Label,
                  record_move: int, outcome: int, key: int | None = None
                  ) -> LabelledPosition:
        width, height = unit.width, unit.height
        judgement = label.judgement
        scored = {c.point.y * width + c.point.x: c.winrate for c in judgement.candidates}
        for point in judgement.lost:
            scored.setdefault(point.y * width + point.x, 0.0)
        occupied = set(stones)
        return LabelledPosition(
            width, height, self.rule, stones, label.move.y * width + label.move.x,
            math.nan if judgement.winrate is None else judgement.winrate, judgement.depth,
            judgement.mate or 0,
            tuple((cell, w) for cell, w in scored.items() if cell not in occupied),
            outcome, record_move, unit.source, unit.index,
            position_key(stones, width, height, self.rule) if key is None else key, label.ms)


# -- the run -----------------------------------------------------------------------------


@dataclass
class TeachState:
    """Counters of a run, saved with every shard."""

    shards: int = 0
    positions: int = 0
    #: Next unit per source.
    units: dict[str, int] = field(default_factory=dict)
    #: Teacher requests per source (the scheduler's measure).
    requests: dict[str, int] = field(default_factory=dict)
    #: Positions stored per source.
    stored: dict[str, int] = field(default_factory=dict)
    #: Per source: [teacher move == record move, positions with a record move].
    agreement: dict[str, list[int]] = field(default_factory=dict)
    duplicates: int = 0
    failed_units: int = 0
    teacher_ms: float = 0.0
    #: Wall-clock seconds of labelling, summed over the sessions.
    seconds: float = 0.0
    teacher: str = ""

    def add(self, name: str, labelled: Sequence[LabelledPosition], keys: set[int],
            pending: list[LabelledPosition]) -> int:
        """Count the positions a unit of source ``name`` labelled and append those whose
        key is not in ``keys`` to ``pending`` (adding their keys); returns how many."""
        added = 0
        for position in labelled:
            self.teacher_ms += position.ms
            if position.key in keys:
                self.duplicates += 1
                continue
            keys.add(position.key)
            pending.append(position)
            added += 1
            if position.record_move >= 0:
                agree = self.agreement.setdefault(name, [0, 0])
                agree[0] += position.move == position.record_move
                agree[1] += 1
        self.positions += added
        self.stored[name] = self.stored.get(name, 0) + added
        return added

    def summary(self) -> str:
        rate = self.positions / self.seconds * 3600 if self.seconds else 0.0
        agree = ", ".join(f"{name} {a}/{n} ({a / n:.1%})"
                          for name, (a, n) in self.agreement.items() if n)
        return (f"{self.positions} positions in {self.shards} shards, {rate:.0f}/h; "
                f"{self.duplicates} duplicates, {self.failed_units} failed units; "
                f"agreement with the record move: {agree or 'none yet'}")


def _next_source(weights: dict[str, float], state: TeachState) -> str:
    return min(weights, key=lambda name: state.requests.get(name, 0) / weights[name])


def _write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n")
    temporary.replace(path)


def open_run(config: TeachConfig, given: set[str]) -> TeachConfig:
    """The settings of the run in ``config.out``: ``config`` for a new run (saved to
    ``teach.json``), the saved ones for a run that exists.

    :raises TeachError: a setting in ``given`` (set on the command line) that differs
        from the saved run's.
    """
    out = Path(config.out)
    path = out / SETTINGS_FILE
    if not path.is_file():
        config.check()
        out.mkdir(parents=True, exist_ok=True)
        _write_json(path, asdict(config))
        return config
    saved = json.loads(path.read_text())
    known = {f.name for f in fields(TeachConfig)}
    resumed = TeachConfig(**{k: v for k, v in saved.items() if k in known})
    resumed.out = config.out
    changed = [name for name in sorted(given)
               if name in known and name != "out"
               and getattr(config, name) != getattr(resumed, name)]
    if changed:
        raise TeachError(f"{path} was started with other settings for "
                         f"{', '.join(changed)}: resume it without them, or label into a "
                         "new --out folder")
    return resumed


class _StopRequest:
    """SIGINT / SIGTERM handler: the first asks the run to stop after the current unit
    (its finished units are written), a second stops at once (they are labelled again
    on resume)."""

    def __init__(self) -> None:
        self.requested = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        log.info("stopping after this unit (signal again to stop now)")


def run(config: TeachConfig, positions: int | None = None, minutes: float | None = None
        ) -> TeachState:
    """Label until ``positions`` more positions are stored or ``minutes`` have passed
    (checked between units; neither: until stopped by Ctrl-C or SIGTERM). Returns the
    run's state.

    :raises TeachError: the teacher failed on :data:`MAX_FAILED_IN_A_ROW` units in a row
        (the units finished before are written first).
    """
    out = Path(config.out)
    store = ShardStore(out)
    saved = store.last_state()
    state = TeachState(**saved) if saved else TeachState()
    keys = store.keys()
    weights = config.weights()
    sources = build_sources(config)
    started = last_flush = time.monotonic()
    stored_at_start, base_seconds = state.positions, state.seconds
    pending: list[LabelledPosition] = []
    unwritten = 0

    def flush() -> None:
        nonlocal pending, last_flush, unwritten
        state.shards += 1
        state.seconds = base_seconds + time.monotonic() - started
        store.write(pending, asdict(state))
        _write_json(out / PROGRESS_FILE, asdict(state))
        pending, last_flush, unwritten = [], time.monotonic(), 0
        log.info("%s", state.summary())

    stop = _StopRequest()
    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    failed_in_a_row = empty_in_a_row = 0
    error: TeachError | None = None
    try:
        with Teacher(config.teacher_config(), stderr_path=out / "teacher.stderr") as teacher:
            labeller = Labeller(teacher, config.rule, config.outcome_ms, config.outcomes,
                                config.opening_balance)
            while not stop.requested and error is None:
                if positions is not None and state.positions - stored_at_start >= positions:
                    break
                if minutes is not None and time.monotonic() - started >= minutes * 60:
                    break
                name = _next_source(weights, state)
                index = state.units.get(name, 0)
                unit = sources[name].unit(index)
                requests = labeller.requests
                try:
                    labelled = labeller.label(unit, keys)
                    failed_in_a_row = 0
                    if unit.play_out is None:  # the positions known before were not asked
                        state.duplicates += len(unit.positions) - len(labelled)
                except TeacherError as exc:
                    log.warning("%s unit %d skipped: %s", name, index, exc)
                    labelled = []
                    state.failed_units += 1
                    failed_in_a_row += 1
                state.units[name] = index + 1
                # A unit without a request still counts, so no source can stall the others.
                state.requests[name] = (state.requests.get(name, 0)
                                        + max(1, labeller.requests - requests))
                state.teacher = teacher.about
                unwritten += 1
                added = state.add(name, labelled, keys, pending)
                empty_in_a_row = 0 if added else empty_in_a_row + 1
                if failed_in_a_row >= MAX_FAILED_IN_A_ROW:
                    error = TeachError(f"the teacher failed on {failed_in_a_row} units in a "
                                       f"row; see {out / 'teacher.stderr'} and the log")
                elif empty_in_a_row >= MAX_EMPTY_IN_A_ROW:
                    log.info("the last %d units gave no new position: the sources are spent "
                             "(add sources or raise --max-games)", empty_in_a_row)
                    break
                if (len(pending) >= config.shard_positions
                        or time.monotonic() - last_flush >= config.flush_seconds):
                    flush()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if unwritten:
        flush()
    if error is not None:
        raise error
    return state


def main(config: TeachConfig, given: set[str], positions: int | None,
         minutes: float | None, nice: int) -> int:
    """The ``teach`` command: open or resume the run and label."""
    try:
        config = open_run(config, given)
    except TeachError as exc:
        print(f"python -m brain.train teach: error: {exc}", file=sys.stderr)
        return 2
    if nice:
        os.nice(nice)
    out = Path(config.out)
    log.setLevel(logging.INFO)
    log.propagate = False
    formatter = logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%d %H:%M:%S")
    for handler in (logging.FileHandler(out / "teach.log"), logging.StreamHandler(sys.stderr)):
        handler.setFormatter(formatter)
        log.addHandler(handler)
    log.info("labelling into %s with %s (%d ms per move)", out, config.teacher,
             config.move_ms)
    try:
        state = run(config, positions, minutes)
    except TeachError as exc:
        log.error("error: %s", exc)
        return 1
    log.info("done: %s", state.summary())
    return 0
