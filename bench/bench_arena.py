"""Arena speed: the manager's own time per move, and games per hour at concurrency 1 and 2.

Run: ``.venv/bin/python bench/bench_arena.py`` (``--games N`` per measurement).

* **Manager overhead per move**: between a brain's reply and the next move request, the
  manager runs the referee, records the move and writes the move event: the time between
  two move events (microsecond timestamps) minus the second move's round trip. The round trip of
  a move (write → reply read, as the client measures it) is reported too: it is pipe
  latency plus the brain's own work.
* **Games per hour**: complete tournaments (spawn, START, play, END, records, PSQ/SGF,
  events, results) with two fast test brains, then with two of our heuristic brains
  (which start numpy, so spawning dominates).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from arena.brainspec import BrainSpec, builtin_brain
from arena.game import GameSettings, TimeControl
from arena.rundir import RunDir
from arena.tournament import RunOptions, Tournament, TournamentConfig
from brain.game.openings import random_openings

ROOT = Path(__file__).resolve().parents[1]
FAULTY = ROOT / "tests" / "brains" / "faulty.py"


def fast_brain(name: str) -> BrainSpec:
    return BrainSpec((sys.executable, str(FAULTY)), name=name)


def tournament(brains: tuple[BrainSpec, BrainSpec], games: int, concurrency: int,
               out: Path) -> tuple[float, Path]:
    """Play ``games`` games; returns (wall seconds, run directory)."""
    pairs = games // 2
    config = TournamentConfig(
        brains=brains,
        settings=GameSettings(time=TimeControl(1000, 0, 1000)),
        openings=tuple(random_openings(pairs, seed=7)),
        pairs_per_pairing=pairs,
    )
    start = time.perf_counter()
    Tournament.open(config, RunDir(out), RunOptions(concurrency=concurrency)).run()
    return time.perf_counter() - start, out


def move_overhead(run: Path) -> tuple[list[float], list[float]]:
    """(manager gaps between reply and next request, move round trips), in ms."""
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    by_game: dict[int, list[dict]] = {}
    for event in events:
        if event["event"] == "move":
            by_game.setdefault(event["game"], []).append(event)
    gaps, trips = [], []
    for moves in by_game.values():
        stamps = [datetime.fromisoformat(m["t"]).timestamp() for m in moves]
        for k in range(1, len(moves)):
            gaps.append((stamps[k] - stamps[k - 1]) * 1000 - moves[k]["ms"])
        trips += [m["ms"] for m in moves[1:]]
    return gaps, trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per measurement")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        fast = (fast_brain("fast-a"), fast_brain("fast-b"))
        ours = (builtin_brain("heuristic", name="heuristic-a"),
                builtin_brain("heuristic", name="heuristic-b"))
        for label, brains in (("fast test brains", fast), ("pbrain heuristic", ours)):
            for concurrency in (1, 2):
                out = Path(tmp) / f"{label[:4]}-{concurrency}"
                wall, run = tournament(brains, args.games, concurrency, out)
                gaps, trips = move_overhead(run)
                rows.append((label, concurrency, args.games / wall * 3600, wall / args.games,
                             statistics.median(gaps), statistics.quantiles(gaps, n=20)[-1],
                             statistics.median(trips), len(trips) / args.games))
    print("| brains | concurrency | games/hour | s/game | manager ms/move (median) | "
          "manager ms/move (p95) | round trip ms (median) | brain moves/game |")
    print("|---|---|---|---|---|---|---|---|")
    for label, conc, gph, spg, gap, gap95, trip, moves in rows:
        print(f"| {label} | {conc} | {gph:,.0f} | {spg:.2f} | {gap:.2f} | {gap95:.2f} | "
              f"{trip:.2f} | {moves:.1f} |")


if __name__ == "__main__":
    main()
