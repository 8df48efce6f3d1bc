"""``python -m arena``: options, rate against arena.stats, check, brain specs, kill and resume."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena import brainspec
from arena.brainspec import BrainSpecError, default_roster, parse_brain, unique_names
from arena.cli import _parser, main
from arena.report import build_report
from arena.stats import Pentanomial, Sprt, fit_bradley_terry, pentanomial_elo
from brain.game.openings import load_openings
from brain.game.records import GameRecord, GameResult, append_jsonl
from driver.teacher import ANALYSIS_INFO, Teacher, TeacherConfig
from protocol.syntax import Point

ROOT = Path(__file__).resolve().parents[1]
FAULTY = Path(__file__).parent / "brains" / "faulty.py"


def test_help_documents_every_option() -> None:
    parser = _parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subparsers.choices) == {"run", "rate", "check", "board", "openings", "photo"}
    for command, sub in subparsers.choices.items():
        for action in sub._actions:
            assert action.help, f"{command} {action.option_strings or action.dest} has no help"
    text = subparsers.choices["run"].format_help()
    for option in ("--pairs", "--games", "--tc", "--match-time", "--tolerance", "--rule",
                   "--board", "--openings", "--symmetry", "--concurrency", "--out", "--resume",
                   "--sprt", "--gauntlet", "--info", "--brain-args", "--reuse",
                   "--max-memory", "--enforce-memory", "--seed", "--progress", "--merge-stderr"):
        assert option in text


def _record(black: str, white: str, result: GameResult, pair: int, half: int) -> GameRecord:
    return GameRecord(15, 15, 0, black, white, ((7, 7), (8, 8)), result, "five",
                      tags={"game": str(2 * pair + half), "pair": str(pair), "half": str(half)})


def test_rate_matches_arena_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    b, w, d = GameResult.BLACK_WIN, GameResult.WHITE_WIN, GameResult.DRAW
    # A's pairs against B: WW, WL, WD, LD, WW, DD (A is black in half 0)
    outcomes = [(b, w), (b, b), (b, d), (w, d), (b, w), (d, d)]
    records = []
    for pair, (first, second) in enumerate(outcomes):
        records += [_record("A", "B", first, pair, 0), _record("B", "A", second, pair, 1)]
    for record in records:
        append_jsonl(tmp_path / "games.jsonl", record)

    assert main(["rate", str(tmp_path / "games.jsonl"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    penta = Pentanomial.from_counts([0, 1, 2, 1, 2])
    assert data["matches"][0]["pentanomial"] == list(penta.counts)
    expected = pentanomial_elo(penta)
    assert data["matches"][0]["elo"] == pytest.approx(expected.elo, abs=1e-3)
    assert data["matches"][0]["error"] == pytest.approx(expected.error, abs=1e-3)
    fit = fit_bradley_terry([(r.black, r.white, r.black_score) for r in records])
    ratings = {p["name"]: p["elo"] for p in data["players"]}
    assert ratings["A"] == pytest.approx(fit.rating("A").elo, abs=1e-3)
    assert data["matches"][0]["los"] == pytest.approx(fit.los("A", "B"), abs=1e-3)
    assert [p["points"] for p in data["players"]] == [8.0, 4.0]

    report = build_report(records, ["A", "B"], Sprt(0, 50))
    assert report.sprt_result is not None
    assert report.sprt_result.llr == pytest.approx(Sprt(0, 50).evaluate(penta).llr)
    assert main(["rate", str(tmp_path / "games.jsonl")]) == 0
    text = capsys.readouterr().out
    assert "A vs B" in text and "0 1 2 1 2" in text


def test_rate_leaves_brains_without_a_game_out_of_the_fit() -> None:
    """Early in a gauntlet the seed has met only its first opponents: the standings list
    every brain, the likelihood table only those that played (D had no game yet)."""
    b, w = GameResult.BLACK_WIN, GameResult.WHITE_WIN
    records = [_record("A", "B", b, 0, 0), _record("B", "A", w, 0, 1),
               _record("A", "C", b, 1, 0)]
    text = build_report(records, ["A", "B", "C", "D"], None).render()
    standings, los_table = text[:text.index("LOS %")], text[text.index("LOS %"):]
    assert "D" in standings
    assert sorted(los_table.splitlines()[1].split()) == ["A", "B", "C"]


def test_rate_keeps_the_pairs_of_different_runs_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs both number their pairs from 0: rated together they hold twice the pairs,
    and a run's half 0 is never matched with another run's half 1."""
    b, w = GameResult.BLACK_WIN, GameResult.WHITE_WIN
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    for pair in range(3):
        append_jsonl(first, _record("A", "B", b, pair, 0))    # A wins as black
        append_jsonl(first, _record("B", "A", w, pair, 1))    # and as white: WW
        append_jsonl(second, _record("A", "B", w, pair, 0))   # A loses as black
        append_jsonl(second, _record("B", "A", b, pair, 1))   # and as white: LL
    assert main(["rate", str(first), str(second), "--json"]) == 0
    match = json.loads(capsys.readouterr().out)["matches"][0]
    assert match["pentanomial"] == [3, 0, 0, 0, 3]


def test_check_passes_our_brain_and_fails_a_broken_one(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(["check", "builtin:heuristic"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and "BOARD empty" in out and "END" in out
    assert main(["check", f"{sys.executable} {FAULTY} --fault start-error"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_check_with_merged_stderr_catches_a_brain_that_logs(
        capsys: pytest.CaptureFixture[str]) -> None:
    """As Piskvork reads it, a log line on stderr fails the check; our brain passes."""
    logging_brain = f"{sys.executable} {FAULTY} --fault log --at 1"
    assert main(["check", logging_brain]) == 0
    capsys.readouterr()
    assert main(["check", logging_brain, "--merge-stderr"]) == 1
    assert "WARNING engine overran" in " ".join(capsys.readouterr().out.split())
    assert main(["check", "builtin:mcts", "--merge-stderr"]) == 0
    assert "FAIL" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "a", "b", "--games", "3"], "even number"),
        (["run", "a", "b", "--board", "15x"], "WIDTHxHEIGHT"),
        (["run", "a", "b", "--name", "3=x"], "from 1 to 2"),
        (["run", "a", "b", "--info", "novalue"], "KEY=VALUE"),
        (["run", "a", "b", "--sprt", "5", "0"], "elo0 < elo1"),
        (["rate", "nothing.txt"], "expected a run directory"),
    ],
)
def test_bad_arguments_give_clear_errors(argv: list[str], message: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_brain_descriptions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = parse_brain(str(FAULTY), extra_args=["--think", "0"], info=[("thread_num", "1")])
    assert spec.cwd == str(FAULTY.parent) and spec.argv()[0] == sys.executable
    assert spec.fallback_name() == "faulty" and spec.info == (("thread_num", "1"),)
    line = parse_brain("python3 -m brain --engine heuristic")
    assert line.command[:3] == ("python3", "-m", "brain") and line.fallback_name() == "brain"
    assert parse_brain("builtin:heuristic").name == "heuristic"
    exe = tmp_path / "pbrain-win.exe"
    exe.write_bytes(b"MZ")
    monkeypatch.setattr(brainspec.shutil, "which", lambda name: None)
    with pytest.raises(BrainSpecError, match="wine is not installed"):
        parse_brain(str(exe)).argv()
    monkeypatch.setattr(brainspec.shutil, "which", lambda name: "/usr/bin/wine")
    monkeypatch.delenv("WINEDEBUG", raising=False)  # wine's notices off the brain's stderr
    assert parse_brain(str(exe)).argv() == ["env", "WINEDEBUG=-all", "/usr/bin/wine", str(exe)]
    monkeypatch.setenv("WINEDEBUG", "err+all")  # unless the user chose
    assert parse_brain(str(exe)).argv() == ["/usr/bin/wine", str(exe)]
    with pytest.raises(BrainSpecError, match="builtin:ENGINE"):
        parse_brain("builtin:nonsense")
    assert unique_names(["a", "b", "a", "a-2", "a"]) == ["a", "b", "a-3", "a-2", "a-4"]


def test_a_virtual_environments_python_keeps_its_environment(tmp_path: Path) -> None:
    """A brain command starting with a virtual environment's python (a symlink to the base
    interpreter) must run in that environment, with its packages."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    spec = parse_brain(f"{python} -c 'import sys; print(sys.prefix)'")
    assert spec.command[0] == str(python)
    prefix = subprocess.run(spec.argv(), capture_output=True, text=True, check=True).stdout
    assert Path(prefix.strip()) == env


JUDGE = f"{sys.executable} -m brain --engine mcts --playouts 40 --no-network"


def test_openings_keeps_what_the_judge_rates_near_even(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "balanced.txt"
    argv = ["openings", "--judge", JUDGE, "--info", "show_analysis=3600000", "--count", "3",
            "--board", "9", "--balance", "0.1", "--seed", "5", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    openings = load_openings(out, 9, 9)
    assert len(openings) == 3
    assert len({o.canonical().moves for o in openings}) == 3
    assert all(len(o) == 3 and o.moves[0] == (4, 4) for o in openings)
    rated = [float(line.rsplit(":", 1)[1]) for line in out.read_text().splitlines()
             if not line.startswith("#")]
    assert all(abs(r - 0.5) <= 0.1 for r in rated)
    # Some draws were turned down: the last one kept was not the third judged.
    assert int(printed.splitlines()[-2].split("; ")[1].split()[0]) > 3
    # The judge (a fixed playout budget) rates a kept opening the same when asked again.
    config = TeacherConfig(tuple(JUDGE.split()), move_ms=1000, info=(ANALYSIS_INFO,))
    with Teacher(config) as judge:
        again = judge.ask(tuple(Point(*m) for m in openings[0].moves), 9, 9, 0).judgement
    assert again.winrate == pytest.approx(rated[0], abs=1e-3)


def test_openings_says_why_it_cannot_judge(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "none.txt"
    # Without the ANALYSIS reports our brain states no evaluation a judge can read.
    assert main(["openings", "--judge", JUDGE, "--board", "9", "--out", str(out)]) == 1
    assert "reported no evaluation for 5 openings" in capsys.readouterr().err
    assert main(["openings", "--judge", JUDGE, "--info", "show_analysis=3600000",
                 "--board", "9", "--balance", "0.01", "--max-judged", "4",
                 "--out", str(out)]) == 1
    assert "0 near-even openings in 4 judged" in capsys.readouterr().err
    assert all(line.startswith("#") for line in out.read_text().splitlines())


def test_default_roster_is_our_brain_against_the_baselines() -> None:
    from brain.catalog import ENGINE_NAMES

    roster = default_roster()
    names = [spec.name for spec in roster]
    assert names[0] == "pbrain-zero" and len(set(names)) == len(names) >= 2
    assert "heuristic" in names or ENGINE_NAMES == ("heuristic",)
    assert all(spec.command[1:3] == ("-m", "brain") for spec in roster)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _processes_named(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_killed_run_resumes_without_losing_or_repeating_games(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # A name of their own, to find any brain the kill leaves alive.
    marker = f"killed-run-{uuid.uuid4().hex}"
    brains = [f"{sys.executable} {FAULTY} --think 0.02 --name {marker}",
              f"{sys.executable} {FAULTY} --name {marker}"]
    command = [sys.executable, "-m", "arena", "run", *brains, "--name", "1=slow",
               "--name", "2=fast", "--pairs", "8", "--random-openings", "3", "-j", "2",
               "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(_lines(out / "games.jsonl")) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    before = _lines(out / "games.jsonl")
    assert 5 <= len(before) < 16, "the run was not killed mid-way"
    # The brain frozen (SIGSTOP) between its moves never sees its pipe close: the run's
    # reaper must end it.
    deadline = time.monotonic() + 10
    while _processes_named(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_named(marker) == []

    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
    assert finished.returncode == 0, finished.stderr
    after = _lines(out / "games.jsonl")
    assert after[: len(before)] == before  # nothing finished was lost or rewritten
    games = [json.loads(line) for line in after]
    ids = sorted(int(g["tags"]["game"]) for g in games)
    assert ids == list(range(16))  # every game exactly once
    pairs = {}
    for g in games:
        pairs.setdefault(g["tags"]["pair"], set()).add(g["tags"]["half"])
    assert all(halves == {"0", "1"} for halves in pairs.values()) and len(pairs) == 8
    events = [json.loads(line) for line in _lines(out / "events.jsonl")]
    ended = {e["game"] for e in events if e["event"] == "game_end"}
    resumed = {int(json.loads(line)["tags"]["game"]) for line in after[len(before):]}
    assert resumed <= ended  # the event log may miss what the kill cut short, not more
    assert events[-1]["event"] == "run_end" and events[-1]["reason"] == "complete"
    assert "16 games" in finished.stdout or "slow" in finished.stdout
