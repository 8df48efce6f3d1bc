"""Tournaments with real brain processes: every fault adjudicated, reuse, SPRT, resume."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from arena.brainspec import BrainSpec, builtin_brain
from arena.game import GameSettings, TimeControl
from arena.rundir import RunDir, RunDirError
from arena.stats import Sprt
from arena.tournament import RunOptions, Tournament, TournamentConfig, TournamentError
from brain.game.board import Board
from brain.game.openings import Opening, random_openings
from brain.game.records import read_psq, read_sgf
from brain.game.referee import judge_move
from brain.game.rules import Rule

FAULTY = Path(__file__).parent / "brains" / "faulty.py"
OPENING = Opening(((7, 7), (8, 8), (6, 9)))


def brain(name: str, fault: str = "none", **options: object) -> BrainSpec:
    command = [sys.executable, str(FAULTY), "--fault", fault]
    for key, value in options.items():
        command += [f"--{key}", str(value)]
    return BrainSpec(tuple(command), name=name)


def config(*brains: BrainSpec, pairs: int = 1, openings: tuple[Opening, ...] = (OPENING,),
           **fields: object) -> TournamentConfig:
    settings = fields.pop("settings", GameSettings(time=TimeControl(1000, 0, 1000)))
    return TournamentConfig(brains=brains, settings=settings,  # type: ignore[arg-type]
                            openings=openings, pairs_per_pairing=pairs, **fields)  # type: ignore[arg-type]


def play(cfg: TournamentConfig, out: Path, concurrency: int = 2, **options: object
         ) -> Tournament:
    tournament = Tournament.open(cfg, RunDir(out), RunOptions(concurrency=concurrency,
                                                              **options))  # type: ignore[arg-type]
    tournament.run()
    return tournament


EXPECTED_FAULTS = {
    "crash": ("crash", {"at": 1}),
    "hang": ("timeout", {"at": 1}),
    "late": ("timeout", {"at": 1, "delay": 2.5}),
    "junk": ("bad reply", {"at": 1}),
    "illegal": ("illegal move", {"at": 1}),
    "offboard": ("illegal move", {"at": 1}),
    "error": ("error reply", {"at": 1}),
    "slow-start": ("start failed", {"delay": 3}),
    "start-error": ("start failed", {}),
    "memory": ("memory limit", {"at": 1, "mb": 160}),
}
# ("extra", a second copy of each move, is tested in test_brain_client: in a fast game the
# copy can arrive after the next request is written, where no manager can tell it apart.)
HARMLESS = {"stderr": {"mb": 3}, "chatty": {}, "no-about": {}, "child": {}}


def test_every_fault_is_adjudicated_and_the_tournament_completes(tmp_path: Path) -> None:
    brains = [brain("good")]
    brains += [brain(fault, fault, **opts) for fault, (_, opts) in EXPECTED_FAULTS.items()]
    brains += [brain(fault, fault, **opts) for fault, opts in HARMLESS.items()]
    # a 1.5 s window: roomy for a loaded machine, short enough for the hanging brains
    settings = GameSettings(time=TimeControl(500, 0, 1000), start_timeout_s=1.0,
                            max_memory=100 << 20, enforce_memory=True)
    tournament = play(config(*brains, settings=settings, gauntlet=1), tmp_path)
    run = RunDir(tmp_path)
    records = run.load_games()
    assert len(records) == 2 * (len(brains) - 1)
    by_brain: dict[str, list[str]] = {}
    for record in records:
        other = record.white if record.black == "good" else record.black
        by_brain.setdefault(other, []).append(record.reason)
        loser = None if record.winner is None else (
            record.white if record.winner == record.black else record.black)
        if other in EXPECTED_FAULTS:
            assert loser == other, record.reason
        else:
            assert record.tags["termination"] in ("five", "draw: board full"), record.reason
    for fault, (termination, _) in EXPECTED_FAULTS.items():
        reasons = by_brain[fault]
        assert len(reasons) == 2
        assert all(r.startswith(f"{termination}: {fault}") for r in reasons), reasons
    report = tournament.report
    assert report is not None
    faults = {p.name: p.faults for p in report.players}
    assert all(faults[f] == 2 for f in EXPECTED_FAULTS)
    assert faults["good"] == 0 and all(faults[h] == 0 for h in HARMLESS)
    # every game is also on disk as PSQ and SGF, and the events close the run
    for record in records:
        stem = run.game_stem(int(record.tags["game"]), record.black, record.white)
        assert read_sgf(stem.with_suffix(".sgf")).points == record.points
        assert read_psq(stem.with_suffix(".psq"), result=record.result).points == record.points
    events = [json.loads(line) for line in run.events_path.read_text().splitlines()]
    kinds = Counter(e["event"] for e in events)
    assert kinds["game_start"] == kinds["game_end"] == len(records)
    assert events[-1]["event"] == "run_end" and events[-1]["reason"] == "complete"
    assert json.loads(run.results_path.read_text())["games"] == len(records)
    # the flooding brain's stderr was drained but its log capped
    logs = sorted(run.path.joinpath("logs").glob("*_stderr.stderr"))
    assert logs and all(log.stat().st_size < (1 << 20) + 100 for log in logs)


def test_skip_non_moves_plays_on_past_quirky_lines_and_records_them(tmp_path: Path) -> None:
    """A brain that writes an ERROR and a junk line before its second move loses both
    games by error reply as Piskvork would judge it, and plays them out with
    skip_non_moves, the lines kept in its move events."""
    brains = [brain("good"), brain("quirky", "quirky", at=2)]
    for skip in (False, True):
        settings = GameSettings(time=TimeControl(500, 0, 1000), skip_non_moves=skip)
        out = tmp_path / f"skip-{skip}"
        play(config(*brains, settings=settings), out)
        run = RunDir(out)
        records = run.load_games()
        assert len(records) == 2
        faults = [r.reason for r in records if not r.tags["termination"].startswith(
            ("five", "draw"))]
        assert len(faults) == (0 if skip else 2), faults
        events = [json.loads(line) for line in run.events_path.read_text().splitlines()]
        skipped = [e["skipped"] for e in events if e["event"] == "move" and "skipped" in e]
        assert len(skipped) == (2 if skip else 0)
        assert json.loads((out / "config.json").read_text())["config"].get("skip_non_moves",
                                                                     False) == skip


def test_merged_stderr_makes_log_lines_bad_replies_as_in_piskvork(tmp_path: Path) -> None:
    """The same brains, stderr apart and merged: a log line is harmless in the first run
    and a loss by bad reply in the second; chatty MESSAGE/DEBUG lines are fine in both."""
    brains = [brain("good"), brain("log", "log", at=2), brain("log-after", "log-after", at=2),
              brain("chatty", "chatty")]
    losses: dict[bool, Counter[str]] = {}
    for merged in (False, True):
        settings = GameSettings(time=TimeControl(500, 0, 1000), merge_stderr=merged)
        out = tmp_path / f"merged-{merged}"
        play(config(*brains, settings=settings, gauntlet=1), out)
        records = RunDir(out).load_games()
        assert len(records) == 6
        losses[merged] = Counter(
            (record.white if record.winner == record.black else record.black)
            for record in records if record.reason.startswith("bad reply"))
        if merged:
            bad = [r.reason for r in records if r.reason.startswith("bad reply")]
            assert any("brain WARNING" in reason for reason in bad), bad
    assert losses[False] == Counter()
    assert losses[True] == Counter({"log": 2, "log-after": 2})
    saved = json.loads((tmp_path / "merged-True" / "config.json").read_text())["config"]
    assert TournamentConfig.from_dict(saved).settings.merge_stderr


def test_moves_are_legal_and_games_end_on_the_board(tmp_path: Path) -> None:
    cfg = config(builtin_brain("heuristic"), brain("good"), pairs=2,
                 openings=tuple(random_openings(2, seed=5)),
                 settings=GameSettings(rule=Rule.STANDARD, time=TimeControl(1000, 20000)))
    play(cfg, tmp_path, transcripts=True)
    records = RunDir(tmp_path).load_games()
    assert len(records) == 4
    for record in records:
        board = Board(15, 15, Rule.STANDARD)
        verdict = None
        for move in record.moves:
            assert verdict is None
            verdict = judge_move(board, board.index(move.x, move.y))
        assert verdict is not None and record.reason.startswith(("five", "draw"))
        assert all(m.time_ms is not None for m in record.moves[record.opening_length:])
    transcripts = list((tmp_path / "logs").glob("*.io"))
    assert len(transcripts) == 8  # a fresh process per brain and game
    assert "> INFO rule 1" in transcripts[0].read_text()


def test_reuse_keeps_processes_and_replaces_failed_ones(tmp_path: Path) -> None:
    cfg = config(brain("good"), brain("crasher", "crash", at=3), pairs=3, reuse=True,
                 openings=tuple(random_openings(3, seed=2)))
    play(cfg, tmp_path, concurrency=1, transcripts=True)
    records = RunDir(tmp_path).load_games()
    assert len(records) == 6
    transcripts = {p.name for p in (tmp_path / "logs").glob("*.io")}
    good = [t for t in transcripts if "_good." in t]
    crasher = [t for t in transcripts if "_crasher." in t]
    assert len(good) == 1  # one process for all six games
    assert len(crasher) == 6  # it crashes every game, so it is started every game
    assert (tmp_path / "logs" / good[0]).read_text().count("> START 15") == 6


def test_sprt_stops_the_run_once_decided(tmp_path: Path) -> None:
    cfg = config(brain("good"), brain("crasher", "crash", at=1), pairs=100,
                 openings=tuple(random_openings(4, seed=3)), sprt=Sprt(0, 200))
    tournament = play(cfg, tmp_path)
    report = tournament.report
    assert report is not None and report.sprt_result is not None
    assert report.sprt_result.state.value == "H1"
    # all pairs WW decide Sprt(0, 200) after 8 pairs; running pairs are finished, not split
    assert 16 <= report.games <= 20 and report.games % 2 == 0
    events = [json.loads(line) for line in RunDir(tmp_path).events_path.read_text().splitlines()]
    assert events[-1]["reason"] == "sprt"


def test_resume_plays_only_missing_games_and_checks_the_config(tmp_path: Path) -> None:
    cfg = config(brain("a"), brain("b"), pairs=2, openings=tuple(random_openings(2, seed=1)))
    play(cfg, tmp_path)
    run = RunDir(tmp_path)
    first = run.games_path.read_text().splitlines()
    assert len(first) == 4
    # lose the last game and tear the line before it, as a crash mid-write would
    run.games_path.write_text("\n".join(first[:2]) + "\n" + first[2][:40])
    play(cfg, tmp_path)
    records = run.load_games()
    assert sorted(int(r.tags["game"]) for r in records) == [0, 1, 2, 3]
    # more pairs extend the run; other changes are refused
    play(config(brain("a"), brain("b"), pairs=3, openings=cfg.openings), tmp_path)
    assert len(run.load_games()) == 6
    with pytest.raises(RunDirError, match="rule: 0 -> 4"):
        Tournament.open(config(brain("a"), brain("b"), pairs=3, openings=cfg.openings,
                               settings=GameSettings(rule=Rule.RENJU)), run, RunOptions())


def test_bad_configurations_are_refused_before_playing(tmp_path: Path) -> None:
    with pytest.raises(TournamentError, match="at least two"):
        config(brain("a")).validate()
    with pytest.raises(TournamentError, match="exactly two"):
        config(brain("a"), brain("b"), brain("c"), sprt=Sprt(0, 5)).validate()
    five = Opening(((0, 0), (0, 9), (1, 0), (1, 9), (2, 0), (2, 9), (3, 0), (3, 9), (4, 0)))
    with pytest.raises(TournamentError, match="already ends"):
        config(brain("a"), brain("b"), openings=(five,)).validate()
    missing = BrainSpec((str(tmp_path / "pbrain-missing"),))
    with pytest.raises(TournamentError, match="does not exist"):
        Tournament.open(config(brain("a"), missing), RunDir(tmp_path / "x"), RunOptions())
