"""What watching pbrain-zero's search costs it: the share of a search's time spent on the
web board's reports (``INFO show_detail 1`` and ``INFO show_analysis 250``: a ``MESSAGE
ANALYSIS`` and the REALTIME lines every 250 ms, and the last ones before the move),
on each of Rapfi's ten benchmark positions with a fixed playout budget.

The reports' own time is measured around every report (filling the root statistics,
formatting, writing to a sink), so the figure does not depend on the load of the machine;
a Gomocup manager, which asks for no reports, costs the search one test per batch of
playouts. For comparison the table also gives each search's CPU time without and with
reports (same tree: the playout budget is fixed), which other processes make noisy.

Run: ``.venv/bin/python bench/bench_analysis.py [--playouts 3000] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from bench_search import positions
from tabulate import tabulate

from brain.engine import MctsEngine
from brain.eval.evaluator import PatternEvaluator
from brain.game.board import Board
from brain.process.analysis import SearchReporter
from brain.search.searcher import SearchInfo


def search(engine: MctsEngine, board: Board, reports: SearchReporter | None
           ) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, wall seconds inside reports) of one search of ``board``
    from a fresh tree."""
    engine.new_game()
    engine.search.reporter = None
    inside = 0.0
    if reports is not None:
        reports.begin(engine)
        report = engine.search.reporter
        assert report is not None

        def timed(info: SearchInfo) -> None:
            nonlocal inside
            started = time.perf_counter()
            report(info)
            inside += time.perf_counter() - started

        engine.search.reporter = timed
    cpu, wall = time.process_time(), time.perf_counter()
    engine.choose_move(board.copy(), time.monotonic() + 600, threading.Event())
    if reports is not None:
        started = time.perf_counter()
        reports.end(engine, searched=True)
        inside += time.perf_counter() - started
    return time.process_time() - cpu, time.perf_counter() - wall, inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--playouts", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lines: list[str] = []
    reports = SearchReporter(lines.append)
    reports.configure("show_detail", "1")
    reports.configure("show_analysis", "250")
    engine = MctsEngine(PatternEvaluator(), playouts=args.playouts)
    rows = []
    total_wall = total_inside = 0.0
    for label, board in positions():
        quiet, watched, shares = [], [], []
        for _ in range(args.repeats):
            quiet.append(search(engine, board, None)[0])
            cpu, wall, inside = search(engine, board, reports)
            watched.append(cpu)
            shares.append(inside / wall)
            total_wall += wall
            total_inside += inside
        rows.append([label[:34], f"{statistics.median(quiet):.2f}",
                     f"{statistics.median(watched):.2f}",
                     f"{statistics.median(shares) * 100:.2f} %"])
    print(tabulate(rows, headers=["position", "CPU s quiet", "CPU s watched",
                                  "time in reports"]))
    print(f"\nall searches: {total_inside * 100 / total_wall:.2f} % of the time in reports "
          f"({len(lines)} lines written)")


if __name__ == "__main__":
    main()
