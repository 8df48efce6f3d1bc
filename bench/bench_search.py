"""Alpha-beta search speed on Rapfi's ten benchmark positions.

For each position: a fixed-depth search (no solver, so the figure is the search alone),
a time-limited move at the top level (solver included), and the time of an unlimited
VCF search for each side, as the engine runs it at the root. Nodes count every position
the engine visits (search, quiescence, and at the top level the solver's nodes).

Run: ``.venv/bin/python bench/bench_search.py [--depth 4] [--seconds 2]``.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from tabulate import tabulate

from brain.game.board import Board
from brain.game.openings import parse_opening_line
from brain.game.rules import Rule
from brain.resources import shared_data_dir
from brain.search.alphabeta import MAX_LEVEL, AlphaBetaEngine, Level
from brain.search.solver import ThreatSolver

POSITIONS = shared_data_dir() / "benchmarks" / "rapfi_bench_positions.tsv"
RULES = {"freestyle": Rule.FREESTYLE, "standard": Rule.STANDARD, "renju": Rule.RENJU}


def positions() -> list[tuple[str, Board]]:
    """(label, board) for each line of the benchmark file."""
    out = []
    for line in POSITIONS.read_text(encoding="utf-8").splitlines():
        if line.startswith(("#", "rule\t")) or not line.strip():
            continue
        rule, size, _, moves = line.split("\t")
        board = Board(int(size), rule=RULES[rule])
        for x, y in parse_opening_line(moves, "pos", int(size)).moves:
            board.play(board.index(x, y))
        out.append((f"{rule} {size} {moves}", board))
    return out


def run(engine: AlphaBetaEngine, board: Board, seconds: float) -> tuple[int, int, float]:
    """Nodes, depth and seconds of one move."""
    engine.new_game()
    engine.choose_move(board, time.monotonic() + seconds, threading.Event())
    info = engine.info
    return info.nodes, info.max_depth, info.seconds


def vcf_milliseconds(board: Board) -> str:
    """Time of a one-second-budget VCF for the side to move and for the opponent."""
    times = []
    for _ in range(2):
        result = ThreatSolver().vcf(board, deadline=time.monotonic() + 1.0)
        times.append(f"{1000 * result.seconds:.1f} ({result.status.value})")
        board.to_move = board.to_move.opponent
    return " / ".join(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=4, help="fixed search depth (plies)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per top-level move")
    args = parser.parse_args()
    fixed = AlphaBetaEngine(config=Level(args.depth, 15, 0, 0, 0, time_managed=False))
    top = AlphaBetaEngine(MAX_LEVEL)
    rows, rates, top_rates = [], [], []
    for label, board in positions():
        nodes, depth, seconds = run(fixed, board, 600)
        t_nodes, t_depth, t_seconds = run(top, board, args.seconds)
        rates.append(nodes / seconds)
        top_rates.append(t_nodes / t_seconds)
        rows.append([label, nodes, depth, f"{seconds:.2f}", f"{nodes / seconds:,.0f}",
                     t_nodes, t_depth, f"{t_seconds:.2f}", f"{t_nodes / t_seconds:,.0f}",
                     vcf_milliseconds(board)])
    print(tabulate(rows, headers=["position", "nodes", "depth", "s", "nodes/s",
                                  f"nodes {args.seconds:g}s", "depth", "s", "nodes/s",
                                  "VCF ms: mover / opponent"]))
    print(f"\nmedian nodes/s: fixed depth {statistics.median(rates):,.0f}, "
          f"top level {statistics.median(top_rates):,.0f}")


if __name__ == "__main__":
    main()
