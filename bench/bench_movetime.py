"""Move times of pbrain-zero at short turn times, as a manager measures them.

Run: ``.venv/bin/python bench/bench_movetime.py`` (``--games N`` per row, ``--turns
100,300,1000``, ``--brain CMD`` for another build such as the Windows exe under wine).

pbrain-zero plays itself through the arena (each brain frozen while the other thinks, as
GomocupJudge does; stderr merged into stdout, as Piskvork reads it) on random balanced
openings, at each turn time, once on an otherwise idle machine and once with a busy loop
holding every other core. Each row gives the distribution of the manager-measured time of
every move (write of the request to read of the reply), how many moves went over the turn
time, and how many the brain answered with its emergency fallback (an overrun: the search
missed its own hard deadline) or after an engine failure, from its MESSAGE lines.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.brainspec import BrainSpec, builtin_brain
from arena.game import GameSettings, TimeControl
from arena.rundir import RunDir
from arena.tournament import RunOptions, Tournament, TournamentConfig
from brain.game.openings import random_openings


@contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPU for the duration."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(count)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def play(brain: BrainSpec, turn_ms: int, games: int, out: Path) -> list[dict]:
    """Self-play ``games`` games at ``turn_ms``; returns the move events."""
    pairs = max(1, games // 2)
    config = TournamentConfig(
        brains=(BrainSpec(brain.command, "a", brain.cwd), BrainSpec(brain.command, "b",
                                                                    brain.cwd)),
        settings=GameSettings(time=TimeControl(turn_ms, 0, 1000), merge_stderr=True),
        openings=tuple(random_openings(pairs, seed=11)),
        pairs_per_pairing=pairs,
    )
    Tournament.open(config, RunDir(out), RunOptions(concurrency=1)).run()
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    return [event for event in events if event["event"] == "move"]


def row(turn_ms: int, load: str, moves: list[dict]) -> str:
    """A table row. A brain's first move of a game (answered to BOARD or BEGIN) also pays
    for building the board's tables, so its times are given apart from the rest (TURN)."""
    later = sorted(move["ms"] for move in moves if move["command"] == "TURN")
    first = sorted(move["ms"] for move in moves if move["command"] != "TURN")
    messages = [text for move in moves for text in move.get("messages", ())]
    overruns = sum("overran its budget" in text for text in messages)
    failures = sum("failed" in text for text in messages)
    p90 = statistics.quantiles(later, n=10)[-1] if len(later) > 1 else later[0]
    return (f"| {turn_ms} | {load} | {len(later)} | {statistics.median(later):.0f} | "
            f"{p90:.0f} | {later[-1]:.0f} | {sum(t > turn_ms for t in later)} | "
            f"{statistics.median(first):.0f} / {first[-1]:.0f} | "
            f"{sum(t > turn_ms for t in first)} of {len(first)} | {overruns} | {failures} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per row (default 4)")
    parser.add_argument("--turns", default="100,300,1000",
                        help="turn times in ms, comma-separated (default 100,300,1000)")
    parser.add_argument("--brain", default=None,
                        help="command line of the brain (default: builtin:mcts)")
    parser.add_argument("--loads", default="idle,busy",
                        help="idle, busy or both (default idle,busy)")
    args = parser.parse_args()
    brain = (builtin_brain("mcts") if args.brain is None
             else BrainSpec(tuple(shlex.split(args.brain))))
    others = max(1, (os.cpu_count() or 2) - 1)
    print(f"brain: {' '.join(brain.command)}; {args.games} games a row; load average "
          f"before: {os.getloadavg()[0]:.2f}")
    print("| turn ms | load | moves (TURN) | median ms | p90 ms | max ms | over turn | "
          "first move median / max ms | first moves over turn | overruns (fallback) | "
          "engine failures |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for turn_ms in (int(t) for t in args.turns.split(",")):
            for load in args.loads.split(","):
                out = Path(tmp) / f"{turn_ms}-{load}"
                if load == "busy":
                    with busy_cores(others):
                        moves = play(brain, turn_ms, args.games, out)
                else:
                    moves = play(brain, turn_ms, args.games, out)
                print(row(turn_ms, load, moves), flush=True)


if __name__ == "__main__":
    main()
