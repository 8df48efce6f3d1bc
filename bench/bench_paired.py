"""Two brains against the same opponent, paired game by game: which scores more?

Each brain's games against ``--opponent`` come from arena runs (``runs/RUN``); a game is
keyed by its opening's stones and the brain's colour, so that brain A's game from an
opening with black is set against brain B's game from the same opening with black (an
opening met again, in another run or the same, pairs its n-th games with each other, in
the order the runs are given and their games were written). The
difference of the paired scores has a standard error from the pairs' own spread (the
openings' difficulty cancels out), which is how "A beats today's brain against PentaZen by
a margin its error bars confirm" is read.

Run: ``.venv/bin/python bench/bench_paired.py --a linenet runs/R1 runs/R2 --b mcts runs/R3
runs/R4 --opponent pentazen``

A brain is named as in its runs (``--name``); several names may be given as ``NAME=ALIAS``
(``--a linenet=linenet`` ...) when runs named the same brain differently: ``--alias
pbrain-zero=mcts``.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tabulate import tabulate

Key = tuple[tuple[tuple[int, int], ...], str, int]


def scores(runs: list[str], brain: str, opponent: str, aliases: dict[str, str]
           ) -> dict[Key, float]:
    """The brain's score (1, 0.5, 0) in each game against ``opponent``, by opening,
    colour and how many games of that opening and colour came before."""
    found: dict[Key, float] = {}
    met: dict[tuple[tuple[tuple[int, int], ...], str], int] = {}
    for run in runs:
        for line in (Path(run) / "games.jsonl").read_text().splitlines():
            game = json.loads(line)
            black = aliases.get(game["black"], game["black"])
            white = aliases.get(game["white"], game["white"])
            if {black, white} != {brain, opponent}:
                continue
            colour = "black" if black == brain else "white"
            opening = tuple(tuple(m[:2]) for m in game["moves"][: game["opening_length"]])
            result = game["result"]
            score = 0.5 if result == "draw" else 1.0 if result == colour else 0.0
            seen = met.get((opening, colour), 0)
            met[(opening, colour)] = seen + 1
            found[(opening, colour, seen)] = score
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", nargs="+", required=True, metavar=("NAME", "RUN"))
    parser.add_argument("--b", nargs="+", required=True, metavar=("NAME", "RUN"))
    parser.add_argument("--opponent", required=True)
    parser.add_argument("--alias", nargs="*", default=[], metavar="RUN_NAME=NAME",
                        help="names a run gave a brain, and the name used here")
    args = parser.parse_args()
    aliases = dict(a.split("=", 1) for a in args.alias)
    a = scores(args.a[1:], args.a[0], args.opponent, aliases)
    b = scores(args.b[1:], args.b[0], args.opponent, aliases)
    keys = sorted(a.keys() & b.keys())
    if len(keys) < 2:
        raise SystemExit(f"only {len(keys)} paired games: check the names and runs")
    differences = [a[k] - b[k] for k in keys]
    mean = sum(differences) / len(keys)
    variance = sum((d - mean) ** 2 for d in differences) / (len(keys) - 1)
    error = math.sqrt(variance / len(keys))
    rows = [[args.a[0], f"{100 * sum(a[k] for k in keys) / len(keys):.1f} %"],
            [args.b[0], f"{100 * sum(b[k] for k in keys) / len(keys):.1f} %"],
            ["difference", f"{100 * mean:+.1f} ± {196 * error:.1f} points (95 %)"],
            ["standard errors", f"{mean / error:.2f}" if error else "-"]]
    print(f"{len(keys)} paired games against {args.opponent} "
          f"({len(a) - len(keys)} of {args.a[0]}'s and {len(b) - len(keys)} of "
          f"{args.b[0]}'s unpaired)")
    print(tabulate(rows, tablefmt="github"))


if __name__ == "__main__":
    main()
