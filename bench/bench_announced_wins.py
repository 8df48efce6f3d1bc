"""Where an opponent's wins became forced, read from its own messages: no teacher run.

PentaZen prints ``ev +vN`` and Rapfi ``Eval +MN`` with a move when its search has proven a
win in N plies; the arena keeps every move's messages in the run's ``events.jsonl``, ours
too (``winrate 41.2% ...``). For each game ``--opponent`` won, this finds its first move
that announced a proven win, the win's length then, and our search's winrate at our moves
just before: 1 ply before is the move that allowed the win (as far as the opponent's
search saw), 3, 5 and 7 plies before show whether we saw it coming.

Run: ``.venv/bin/python bench/bench_announced_wins.py runs/RUN [runs/RUN2 ...] --opponent
pentazen``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from arena.rundir import RunDir

#: A proven win in the engines' messages: PentaZen's ``ev +v23``, Rapfi's ``Eval +M23``.
PROVEN_WIN = re.compile(r"\bev \+v(\d+)|\bEval \+M(\d+)")
#: Our search's winrate in its MESSAGE line.
OUR_WINRATE = re.compile(r"\bwinrate ([\d.]+)%")
#: How many plies before the announcement our winrate is reported.
PLIES_BEFORE = (1, 3, 5, 7)


@dataclass
class Loss:
    """One game the opponent won: its first announced win (ply, length in plies; None if
    it announced none) and our winrate that many plies before it (None where our move
    printed none, e.g. a move the threat solver chose)."""

    game: int
    announced_at: int | None
    length: int | None
    our_winrate: dict[int, float | None]


def losses(run: Path, opponent: str) -> list[Loss]:
    """The games of ``run`` that ``opponent`` won, read from its games and events."""
    rundir = RunDir(run)
    won = {int(record.tags["game"]) for record in rundir.load_games()
           if record.winner == opponent}
    theirs: dict[int, dict[int, str]] = {g: {} for g in won}
    ours: dict[int, dict[int, float]] = {g: {} for g in won}
    for line in rundir.events_path.read_text().splitlines():
        event = json.loads(line)
        if event.get("event") != "move" or event["game"] not in won:
            continue
        # a message split over two reads lands partly in "skipped"
        text = " ".join(event.get("messages", []) + event.get("skipped", []))
        if event["brain"] == opponent:
            theirs[event["game"]][event["ply"]] = text
        elif found := OUR_WINRATE.search(text):
            ours[event["game"]][event["ply"]] = float(found.group(1)) / 100
    found_losses = []
    for game in sorted(won):
        announced = length = None
        for ply in sorted(theirs[game]):
            if found := PROVEN_WIN.search(theirs[game][ply]):
                announced, length = ply, int(found.group(1) or found.group(2))
                break
        before = {k: ours[game].get(announced - k) if announced else None for k in PLIES_BEFORE}
        found_losses.append(Loss(game, announced, length, before))
    return found_losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="arena run folders")
    parser.add_argument("--opponent", required=True, help="the winner's name in the runs")
    parser.add_argument("--threshold", type=float, default=0.4,
                        help="count our winrates at or above this (default 0.4)")
    args = parser.parse_args()
    found = [loss for run in args.runs for loss in losses(run, args.opponent)]
    announced = [loss for loss in found if loss.length is not None]
    print(f"{len(found)} games {args.opponent} won; a proven win announced in "
          f"{len(announced)}")
    if not announced:
        return
    lengths = [loss.length for loss in announced]
    print(f"the win's length when first announced: median {statistics.median(lengths):g} "
          f"plies (range {min(lengths)} - {max(lengths)})")
    rows = []
    for k in PLIES_BEFORE:
        rates = [r for loss in announced if (r := loss.our_winrate[k]) is not None]
        if not rates:
            continue
        high = sum(r >= args.threshold for r in rates)
        rows.append([k, len(rates), f"{statistics.median(rates):.2f}",
                     f"{high} ({100 * high / len(rates):.0f} %)"])
    print(tabulate(rows, headers=["plies before", "our winrates", "median",
                                  f">= {args.threshold}"]))


if __name__ == "__main__":
    main()
