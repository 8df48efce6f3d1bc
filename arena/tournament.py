"""Rated tournaments: round robin or gauntlet, paired openings, concurrency, SPRT, resume.

:class:`TournamentConfig` says what is played (it is saved in the run directory and must
match on resume); :class:`RunOptions` says how (concurrency, progress, transcripts; free to
change between sessions). :class:`Tournament` plays the schedule of
:mod:`arena.schedule` with ``concurrency`` worker threads (the work is waiting on pipes),
each taking one *pair* at a time and playing its missing games one after the other, so a
pair is never split between sessions: games are recorded one by one
(:meth:`arena.rundir.RunDir.record_game`, fsynced), and on resume the pairs with a
missing game are played again from that game on.

With an SPRT the run stops scheduling pairs once the test decides; pairs already being
played are finished and recorded. Ctrl-C (KeyboardInterrupt) kills the running games'
brains; those games get a ``game_interrupted`` event, are not recorded and are played
again on resume.

Brain processes: a fresh pair of processes per game by default (as Piskvork and
GomocupJudge), or, with ``reuse``, each worker keeps its processes and sends ``START``
again for the next game (as c-gomoku-cli); a brain that failed is replaced.

With :attr:`RunOptions.cluster` (a :class:`GameVenue`, :class:`arena.cluster.RayVenue`) each
game is played elsewhere and only its record comes back; this process stays the single
writer of the run directory, so scheduling, SPRT and resume are the same.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from arena.brainspec import BrainSpec, BrainSpecError, unique_names
from arena.errors import ArenaError
from arena.game import (
    GameAborted,
    GameSettings,
    Observer,
    TimeControl,
    opening_board,
    play_game,
)
from arena.progress import Progress
from arena.reaper import REAPER
from arena.report import Report, build_report
from arena.rundir import RunDir, RunDirError
from arena.schedule import PairJob, build_schedule
from arena.stats import SequentialTest, Sprt, SprtState
from brain.game.openings import Opening
from brain.game.records import GameRecord
from brain.game.rules import Rule
from brain.game.symmetry import Symmetry
from driver.client import BrainError, BrainProcess, BrainTimeout

__all__ = [
    "GameVenue",
    "RunOptions",
    "Tournament",
    "TournamentConfig",
    "TournamentError",
    "probe_names",
    "spawn_brain",
]


class TournamentError(ArenaError, ValueError):
    """The tournament cannot be run as configured (the message says what to change)."""


@dataclass(frozen=True)
class TournamentConfig:
    """What a run plays; everything here must be equal to resume a run.

    :ivar pairs_per_pairing: pairs (2 games each) every pairing of brains plays (the
        maximum with an SPRT).
    :ivar gauntlet: 0 for a round robin, else the number of leading brains (seeds) that
        play every other brain.
    :ivar openings_source: where the openings came from (informational).
    :ivar sprt: test the first brain against the second (two brains only), pair by pair
        in schedule order; the run stops when it decides, and the decision stands in
        its results though the pairs then in flight count in the LLR.
    """

    brains: tuple[BrainSpec, ...]
    settings: GameSettings
    openings: tuple[Opening, ...]
    pairs_per_pairing: int
    openings_source: str = ""
    gauntlet: int = 0
    symmetry: bool = False
    random_order: bool = False
    seed: int = 0
    sprt: Sprt | None = None
    reuse: bool = False

    def validate(self) -> None:
        """Check everything that would otherwise fail mid-run.

        :raises TournamentError: with what to change.
        """
        if len(self.brains) < 2:
            raise TournamentError(f"a tournament needs at least two brains, got "
                                  f"{len(self.brains)}")
        if self.sprt is not None and len(self.brains) != 2:
            raise TournamentError("the SPRT compares two brains: give exactly two "
                                  f"(got {len(self.brains)})")
        if not self.openings:
            raise TournamentError("no openings: give an opening file or generated openings")
        for opening in self.openings:
            try:
                opening_board(opening, self.settings)
            except ValueError as exc:
                raise TournamentError(str(exc)) from None
        if self.settings.enforce_memory and not self.settings.max_memory:
            raise TournamentError("a memory limit to enforce needs max_memory > 0")
        try:
            build_schedule(len(self.brains), len(self.openings), self.pairs_per_pairing,
                           gauntlet=self.gauntlet)
        except ValueError as exc:
            raise TournamentError(str(exc)) from None
        for spec in self.brains:
            try:
                spec.argv()
            except BrainSpecError as exc:
                raise TournamentError(str(exc)) from None

    def schedule(self) -> list[PairJob]:
        """All pairs in playing order."""
        return build_schedule(
            len(self.brains), len(self.openings), self.pairs_per_pairing,
            gauntlet=self.gauntlet, symmetry=self.symmetry,
            board=(self.settings.width, self.settings.height),
            random_order=self.random_order, seed=self.seed,
        )

    def opening(self, job: PairJob) -> Opening:
        """The position both games of ``job`` start from."""
        return self.openings[job.opening].transform(job.symmetry)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form, saved as the run's configuration."""
        s = self.settings
        return {
            "brains": [b.to_dict() for b in self.brains],
            "board": [s.width, s.height],
            "rule": int(s.rule),
            "time": {"turn_ms": s.time.turn_ms, "match_ms": s.time.match_ms,
                     "tolerance_ms": s.time.tolerance_ms},
            "max_memory": s.max_memory,
            "enforce_memory": s.enforce_memory,
            "move_limit": s.move_limit,
            "game_type": s.game_type,
            "start_timeout_s": s.start_timeout_s,
            "suspend": s.suspend,
            # Only when on, so that a run saved before the option existed resumes as is.
            **({"merge_stderr": True} if s.merge_stderr else {}),
            **({"skip_non_moves": True} if s.skip_non_moves else {}),
            "openings": [[list(m) for m in o.moves] for o in self.openings],
            "openings_source": self.openings_source,
            "pairs_per_pairing": self.pairs_per_pairing,
            "gauntlet": self.gauntlet,
            "symmetry": self.symmetry,
            "random_order": self.random_order,
            "seed": self.seed,
            "sprt": None if self.sprt is None else {
                "elo0": self.sprt.elo0, "elo1": self.sprt.elo1,
                "alpha": self.sprt.alpha, "beta": self.sprt.beta},
            "reuse": self.reuse,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TournamentConfig:
        """Inverse of :meth:`to_dict`.

        :raises TournamentError: a field is missing or invalid.
        """
        try:
            width, height = data["board"]
            settings = GameSettings(
                width=width, height=height, rule=Rule.from_gomocup(data["rule"]),
                time=TimeControl(**data["time"]), max_memory=data["max_memory"],
                enforce_memory=data["enforce_memory"], move_limit=data["move_limit"],
                game_type=data["game_type"], start_timeout_s=data["start_timeout_s"],
                suspend=data.get("suspend", True),
                merge_stderr=data.get("merge_stderr", False),
                skip_non_moves=data.get("skip_non_moves", False),
            )
            return cls(
                brains=tuple(BrainSpec.from_dict(b) for b in data["brains"]),
                settings=settings,
                openings=tuple(Opening(tuple((x, y) for x, y in moves), width, height)
                               for moves in data["openings"]),
                openings_source=data.get("openings_source", ""),
                pairs_per_pairing=data["pairs_per_pairing"],
                gauntlet=data["gauntlet"],
                symmetry=data["symmetry"],
                random_order=data["random_order"],
                seed=data["seed"],
                sprt=None if data["sprt"] is None else Sprt(**data["sprt"]),
                reuse=data["reuse"],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TournamentError(f"invalid saved configuration: {exc}") from None


class GameVenue(Protocol):
    """Somewhere else to play the games of a run: :class:`arena.cluster.RayVenue`."""

    def check(self, brains: Sequence[BrainSpec], names: Sequence[str]) -> None:
        """Make sure every brain can be started where games will be played.

        :raises TournamentError: saying which brain is missing where.
        """
        ...

    def play(self, black: BrainSpec, white: BrainSpec, names: tuple[str, str], *,
             game_id: int, opening: Opening, settings: GameSettings, tags: dict[str, str],
             out: RunDir, transcripts: bool, observer: Observer,
             stop: threading.Event) -> GameRecord:
        """Play one game and write its brains' logs into ``out``; the record is not yet
        written. Events of the game reach ``observer``.

        :raises GameAborted: ``stop`` was set.
        """
        ...


@dataclass(frozen=True)
class RunOptions:
    """How a run is executed; may differ between sessions of one run.

    :ivar cluster: play every game there instead of in this process.
    """

    concurrency: int = 1
    progress: bool = False
    transcripts: bool = False
    about_timeout_s: float = 3.0
    cluster: GameVenue | None = None


def probe_names(specs: Sequence[BrainSpec], about_timeout_s: float = 3.0) -> list[str]:
    """Unique names for ``specs``: explicit name, else ABOUT ``name``, else file name.

    Every brain is started once (in parallel) and asked ABOUT, which also proves it can
    be launched.

    :raises TournamentError: a brain cannot be started or exits at once.
    """
    names: list[str | None] = [None] * len(specs)
    errors: list[str] = []

    def probe(i: int) -> None:
        spec = specs[i]
        try:
            with BrainProcess.spawn(spec.argv(), cwd=spec.cwd) as brain:
                try:
                    names[i] = spec.name or brain.about(about_timeout_s).name
                except BrainTimeout:
                    names[i] = spec.name
                except BrainError:
                    if not brain.alive:
                        raise
                    names[i] = spec.name  # UNKNOWN/ERROR/junk to ABOUT: use the file name
        except (BrainError, BrainSpecError) as exc:
            errors.append(f"brain {i + 1} ({' '.join(spec.command)}): {exc}")

    threads = [threading.Thread(target=probe, args=(i,)) for i in range(len(specs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise TournamentError("cannot start every brain:\n  " + "\n  ".join(sorted(errors)))
    return unique_names([n or s.fallback_name() for n, s in zip(names, specs, strict=True)])


def spawn_brain(spec: BrainSpec, name: str, out: RunDir, game_id: int,
                settings: GameSettings, transcripts: bool) -> BrainProcess:
    """Start ``spec`` for game ``game_id``: its stderr (unless merged) and transcript go to
    ``out``'s log files. The brain's session is this process's :data:`~arena.reaper.REAPER`
    to kill should this process die before it closes the brain.

    :raises BrainError: the process cannot be started.
    """
    merged = settings.merge_stderr
    # Started first: a brain started before it would be nobody's to kill meanwhile.
    REAPER.start()
    brain = BrainProcess.spawn(
        spec.argv(), cwd=spec.cwd, name=name,
        stderr_path=None if merged else out.log_path(game_id, name, "stderr"),
        merge_stderr=merged,
        transcript=out.log_path(game_id, name, "io") if transcripts else None,
    )
    brain.skip_non_moves = settings.skip_non_moves
    REAPER.watch(brain.pid)
    brain.on_shutdown = REAPER.forget
    return brain


class _PooledPlayer:
    """A :class:`arena.game.Player`: one brain of one game, spawned fresh or taken from
    the worker's ``pool`` of reusable processes."""

    def __init__(self, tournament: Tournament, pool: dict[int, BrainProcess],
                 brain_index: int, game_id: int) -> None:
        self._tournament = tournament
        self._pool = pool
        self._index = brain_index
        self._game_id = game_id
        self._spec = tournament.config.brains[brain_index]
        self.name = tournament.names[brain_index]
        self.info = self._spec.info

    def acquire(self) -> BrainProcess:
        t = self._tournament
        brain = self._pool.pop(self._index, None)
        if brain is None or not brain.alive:
            brain = spawn_brain(self._spec, self.name, t.out, self._game_id,
                                t.config.settings, t.options.transcripts)
        t.track(brain, active=True)
        return brain

    def release(self, brain: BrainProcess, healthy: bool) -> None:
        t = self._tournament
        t.track(brain, active=False)
        if t.config.reuse and healthy and brain.alive and not t.stopping:
            self._pool[self._index] = brain
        else:
            brain.close()


def _check_venue(config: TournamentConfig, names: Sequence[str], options: RunOptions) -> None:
    if options.cluster is None:
        return
    if config.reuse:
        raise TournamentError("this run keeps brain processes between games (--reuse), which "
                              "lives in one arena process; on a cluster every game is a task "
                              "with fresh brains: run it without --reuse (in a new --out)")
    options.cluster.check(config.brains, names)


class Tournament:
    """Plays a :class:`TournamentConfig` into a :class:`~arena.rundir.RunDir`.

    Create it with :meth:`open`, which starts a new run or checks that the directory holds
    the same run, then call :meth:`run`.
    """

    def __init__(self, config: TournamentConfig, out: RunDir, names: list[str],
                 options: RunOptions) -> None:
        self.config = config
        self.out = out
        self.names = names
        self.options = options
        self.schedule = config.schedule()
        self._lock = threading.Lock()
        self._records: dict[int, GameRecord] = {}
        self._abort = threading.Event()
        self._decided = threading.Event()
        #: The SPRT, fed the pairs in schedule order as soon as each and all before it
        #: are finished: the decision is the same whichever pair a worker finished first.
        self._test = None if config.sprt is None else SequentialTest(config.sprt)
        self._active: set[BrainProcess] = set()
        self._failure: BaseException | None = None
        self.report: Report | None = None

    @classmethod
    def open(cls, config: TournamentConfig, out: RunDir, options: RunOptions) -> Tournament:
        """Start a new run in ``out``, or continue the one there if it has this config
        (``pairs_per_pairing`` may be larger: the schedule only grows at its end).

        :raises TournamentError: invalid configuration or brains that do not start.
        :raises RunDirError: ``out`` holds a run with another configuration.
        """
        config.validate()
        data = config.to_dict()
        resumed = out.exists()
        if resumed:
            names = out.check_same(data, growable=("pairs_per_pairing",))
            probe_names(config.brains, options.about_timeout_s)  # still launchable?
        else:
            names = probe_names(config.brains, options.about_timeout_s)
        _check_venue(config, names, options)
        if not resumed:
            out.create(data, names)
        return cls(config, out, names, options)

    @classmethod
    def resume(cls, out: RunDir, options: RunOptions) -> Tournament:
        """Continue the run saved in ``out`` with its own configuration."""
        data, names = out.load_config()
        config = TournamentConfig.from_dict(data)
        config.validate()
        probe_names(config.brains, options.about_timeout_s)
        _check_venue(config, names, options)
        return cls(config, out, names, options)

    # -- state -------------------------------------------------------------------------------

    def _load(self) -> None:
        """Read the finished games and check they belong to this schedule."""
        total = 2 * len(self.schedule)
        for record in self.out.load_games():
            try:
                game_id = int(record.tags["game"])
            except (KeyError, ValueError):
                raise RunDirError(f"{self.out.games_path}: a game without a 'game' tag; "
                                  "it was not written by this run") from None
            if not 0 <= game_id < total:
                raise RunDirError(f"{self.out.games_path}: game {game_id} is not in the "
                                  f"schedule of {total} games")
            job = self.schedule[game_id // 2]
            black, white = (self.names[i] for i in job.colours(game_id % 2))
            if (record.black, record.white) != (black, white) or game_id in self._records:
                raise RunDirError(f"{self.out.games_path}: game {game_id} "
                                  f"({record.black} vs {record.white}) does not match the "
                                  f"schedule ({black} vs {white}) or is there twice")
            self._records[game_id] = record

    def _current_report(self) -> Report:
        """The standings of every finished game; the SPRT's state is the sequential
        test's decision (its LLR counts every finished pair)."""
        records = [self._records[k] for k in sorted(self._records)]
        report = build_report(records, self.names, self.config.sprt)
        if self._test is None or report.sprt_result is None:
            return report
        state = self._test.decision or SprtState.CONTINUE
        return replace(report, sprt_result=replace(report.sprt_result, state=state))

    def _advance_test(self) -> None:
        """Feed the test the pairs that are now finished with all before them."""
        test, first = self._test, self.names[0]
        while test is not None and test.pairs < len(self.schedule):
            ids = self.schedule[test.pairs].game_ids()
            if any(g not in self._records for g in ids):
                return
            if test.add(*(self._records[g].score_for(first) for g in ids)) is not None:
                self._decided.set()

    # -- running -----------------------------------------------------------------------------

    def run(self) -> Report:
        """Play every missing game; returns the final standings.

        :raises KeyboardInterrupt: after stopping cleanly on Ctrl-C (resume later).
        """
        self._load()
        self._advance_test()
        report = self._current_report()
        pending = [job for job in self.schedule
                   if any(g not in self._records for g in job.game_ids())]
        remaining = sum(g not in self._records for job in pending for g in job.game_ids())
        progress = Progress(len(self._records) + remaining, len(self._records),
                            enabled=self.options.progress)
        progress.start()
        self.out.event("run_start", brains=self.names, games_done=len(self._records),
                       games_left=remaining, concurrency=self.options.concurrency,
                       resumed=bool(self._records))
        jobs = iter(pending)
        # Each worker sets its event when it is done: a Thread.join() interrupted by Ctrl-C
        # may afterwards return at once while the thread still runs (CPython), and the
        # interrupted games' events would then be lost.
        finished = [threading.Event() for _ in range(max(1, self.options.concurrency))]
        workers = [threading.Thread(target=self._work, args=(jobs, progress, done),
                                    name=f"arena-worker-{i}", daemon=True)
                   for i, done in enumerate(finished)]
        for worker in workers:
            worker.start()
        try:
            for done in finished:
                while not done.wait(0.2):
                    pass
        except KeyboardInterrupt:
            self._stop_now()
            for done in finished:
                done.wait(10.0)
            progress.finish()
            self.out.event("run_end", reason="interrupted", games=len(self._records))
            raise
        progress.finish()
        if self._failure is not None:
            self.out.event("run_end", reason="error", error=str(self._failure))
            raise self._failure
        report = self._current_report()
        self.out.write_results(report.to_json())
        finished = all(g in self._records for job in self.schedule for g in job.game_ids())
        self.out.event("run_end", reason="complete" if finished else "sprt",
                       games=len(self._records))
        self.report = report
        return report

    def _stop_now(self) -> None:
        self._abort.set()
        with self._lock:
            active = list(self._active)
        for brain in active:
            brain.kill()

    @property
    def stopping(self) -> bool:
        """Whether the run is being interrupted."""
        return self._abort.is_set()

    def track(self, brain: BrainProcess, *, active: bool) -> None:
        """Register a brain playing a game (killed on Ctrl-C), or unregister it."""
        with self._lock:
            if active:
                self._active.add(brain)
            else:
                self._active.discard(brain)

    def _next_job(self, jobs: Iterator[PairJob]) -> PairJob | None:
        with self._lock:
            if self._abort.is_set() or self._decided.is_set():
                return None
            return next(jobs, None)

    def _work(self, jobs: Iterator[PairJob], progress: Progress,
              finished: threading.Event) -> None:
        pool: dict[int, BrainProcess] = {}  # reusable processes by brain index
        try:
            while (job := self._next_job(jobs)) is not None:
                for half, game_id in enumerate(job.game_ids()):
                    if game_id in self._records:
                        continue
                    record = self._play(pool, job, half, game_id)
                    if record is None:
                        return
                    self._finish_game(job, game_id, record, progress)
        except BaseException as exc:  # a bug: stop everything, report it from run()
            self._failure = exc
            self._stop_now()
        finally:
            for brain in pool.values():
                brain.close()
            finished.set()

    def _play(self, pool: dict[int, BrainProcess], job: PairJob, half: int, game_id: int
              ) -> GameRecord | None:
        black, white = job.colours(half)
        opening = self.config.opening(job)
        tags = {"game": str(game_id), "pair": str(job.index), "half": str(half),
                "opening": str(job.opening), "symmetry": Symmetry(job.symmetry).name.lower()}
        self.out.event("game_start", game=game_id, pair=job.index, black=self.names[black],
                       white=self.names[white], opening=opening.to_offsets())

        def observe(kind: str, data: dict[str, Any]) -> None:
            self.out.event(kind, game=game_id, **data)

        try:
            if self.options.cluster is not None:
                return self.options.cluster.play(
                    self.config.brains[black], self.config.brains[white],
                    (self.names[black], self.names[white]), game_id=game_id, opening=opening,
                    settings=self.config.settings, tags=tags, out=self.out,
                    transcripts=self.options.transcripts, observer=observe, stop=self._abort)
            return play_game(_PooledPlayer(self, pool, black, game_id),
                             _PooledPlayer(self, pool, white, game_id), opening,
                             self.config.settings, tags=tags, observer=observe,
                             stop=self._abort)
        except GameAborted:
            # Not recorded (it is played again on resume), but kept in the event log.
            self.out.event("game_interrupted", game=game_id, pair=job.index,
                           black=self.names[black], white=self.names[white])
            return None

    def _finish_game(self, job: PairJob, game_id: int, record: GameRecord,
                     progress: Progress) -> None:
        self.out.record_game(game_id, record)
        with self._lock:
            self._records[game_id] = record
            self._advance_test()
            report = self._current_report()
            pair_done = all(g in self._records for g in job.game_ids())
            progress.game_done(report)
        self.out.event("game_end", game=game_id, pair=job.index, black=record.black,
                       white=record.white, result=record.result.value, reason=record.reason,
                       moves=len(record.moves))
        if not pair_done:
            return
        results = report.to_json()
        self.out.write_results(results)
        self.out.event("rating", games=report.games, players=results["players"])
        if results["sprt"] is not None:
            self.out.event("sprt", pairs=report.pairs, **results["sprt"])
