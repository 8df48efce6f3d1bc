"""``arena run`` in a terminal, as a person meets it (a real pseudo-terminal, pexpect):
a progress bar from the start and then with live standings, and Ctrl-C that stops
cleanly and resumes, saying so."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[1]
FAULTY = ROOT / "tests" / "brains" / "faulty.py"
GAMES = 8


def test_progress_bar_then_ctrl_c_then_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    brain = f"{sys.executable} {FAULTY} --think 0.05"
    child = pexpect.spawn(
        sys.executable, ["-m", "arena", "run", brain, brain, "--name", "1=alpha",
                         "--name", "2=beta", "--games", str(GAMES), "--tc", "1000",
                         "--out", str(out)],
        cwd=str(ROOT), encoding="utf-8", timeout=60, dimensions=(24, 160))
    try:
        # the bar shows before the first game ends, then redraws after each game with
        # the standings of both brains
        child.expect(r"\[-{20}\] 0/8 0% \| playing the first games")
        child.expect(r"\[#*-*\] 2/8 25% [0-9:]+ ETA [0-9:]+ \| (alpha|beta) [0-9.]+/2")
        time.sleep(0.3)  # into the third game
        child.sendintr()
        child.expect("interrupted; finished games are saved. Continue with: "
                     rf"python -m arena run --resume {out}")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 130
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "run_end" and events[-1]["reason"] == "interrupted"
    started = {e["game"] for e in events if e["event"] == "game_start"}
    ended = {e["game"] for e in events if e["event"] == "game_end"}
    interrupted = {e["game"] for e in events if e["event"] == "game_interrupted"}
    recorded = {int(json.loads(line)["tags"]["game"])
                for line in (out / "games.jsonl").read_text().splitlines()}
    assert 2 <= len(recorded) < GAMES and recorded == ended
    assert interrupted == started - ended  # every game in progress is accounted for

    resumed = pexpect.spawn(sys.executable, ["-m", "arena", "run", "--resume", str(out)],
                            cwd=str(ROOT), encoding="utf-8", timeout=120)
    try:
        resumed.expect("arena: resuming the run: 2 brains")
        resumed.expect(rf"{len(recorded)}/{GAMES} \d+% \| resuming: {len(recorded)} games "
                       "already played")
        resumed.expect(rf"\[#{{20}}\] {GAMES}/{GAMES} 100%")
        resumed.expect(pexpect.EOF)
    finally:
        resumed.close(force=True)
    assert resumed.exitstatus == 0
    games = [json.loads(line)["tags"]["game"]
             for line in (out / "games.jsonl").read_text().splitlines()]
    assert sorted(map(int, games)) == list(range(GAMES))  # none lost, none twice
