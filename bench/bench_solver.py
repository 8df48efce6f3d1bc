"""Threat-space solver: solve rate and time on the tactics problem sets.

Sets (``shared/data/tactics``):

* ``quintet`` — the 24 renju VCF/VCT tests with their attack limits (VCT threats as deep
  as the test's threat limit); correct = the expected win / no-win.
* ``freestyle-vcf`` — lfz084 VCF puzzles with our freestyle labels: correct = a VCF found
  exactly when labelled, starting with a labelled winning first move.
* ``renju-vcf`` — lfz084 VCF puzzles (mode 32) under renju: the side to move wins by VCF.
* ``renju-vct3`` — lfz084 "win within three attacks" puzzles (mode 67) under renju: a VCT
  (threes as threats, no attack limit) must be found. The books count attacks their own
  way (our count, like quintet's, includes blocks of the defender's counter-fours, and
  many of these puzzles need threats of a four-three rather than threes), so the limit of
  three is not applied; a "wrong" here is a position where no VCT by threes exists.
* ``freestyle-vct3`` — the black-to-move puzzles of ``renju-vct3`` under freestyle: black's
  renju win stays a win (every renju four and three of black is one in freestyle, and
  white's defences can only be fewer), so a VCT by threes must be found.
* ``blunders`` — the positions of ``bench/suites/blunders-freestyle15.jsonl`` after the
  move that lost the game, the winner to move, searched as the brain's refutation checks
  search (a VCT by threes of up to 16 attacks). Rapfi proves each a win, mostly one
  longer than any VCT, so "correct" counts the VCTs found and "wrong" the positions
  proved to have none within the limit: a set of real middle games for the solver's
  speed (``--nodes``), not of right answers.

Each case runs with a fresh solver under each wall-clock budget, or with ``--nodes N``
under a node budget instead, which makes the answers independent of the machine and its
load and reports solver nodes per CPU second (to compare two versions of the code). Run:
``.venv/bin/python bench/bench_solver.py [--budgets 0.1 1 | --nodes N] [--every 1] [--sets ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from bench_blunder_suite import load_suite
from puzzle_data import freestyle_vcf_puzzles, lfz_puzzles, quintet_mates

from brain.game.board import Board, Color
from brain.game.rules import Rule
from brain.search.solver import SolveResult, Status, ThreatSolver

#: The positions of lost games (the ``blunders`` set).
SUITE = Path(__file__).resolve().parent / "suites" / "blunders-freestyle15.jsonl"
#: (solver, board, deadline, node budget) -> result
Solve = Callable[[ThreatSolver, Board, float | None, int | None], SolveResult]


@dataclass(frozen=True)
class Case:
    """One problem: how to solve it and what counts as right."""

    name: str
    board: Board
    solve: Solve
    #: True: a win must be found; False: none may be.
    expected: bool
    #: Accepted first moves of a win (empty: any, e.g. when the label's list is incomplete).
    first_moves: frozenset[int] = frozenset()


def _vcf(max_attacks: int | None = None) -> Solve:
    return lambda solver, board, deadline, nodes: solver.vcf(board, max_attacks, deadline,
                                                             nodes)


def _vct(max_attacks: int | None, threat_depth: int) -> Solve:
    return lambda solver, board, deadline, nodes: solver.vct(board, max_attacks, threat_depth,
                                                             deadline, nodes)


def load(name: str, every: int) -> list[Case]:
    if name == "quintet":
        return [Case(m.id, m.board, _vct(m.max_attacks, m.threat_depth) if m.vct
                     else _vcf(m.max_attacks), m.proven) for m in quintet_mates()]
    if name == "freestyle-vcf":
        return [Case(p.name, p.board, _vcf(), p.has_vcf,
                     p.winning_first_moves if p.first_moves_complete else frozenset())
                for p in freestyle_vcf_puzzles(every)]
    if name == "renju-vcf":
        return [Case(name, board, _vcf(), True)
                for name, board in lfz_puzzles(32, Rule.RENJU, every)]
    if name == "renju-vct3":
        return [Case(name, board, _vct(None, 0), True)
                for name, board in lfz_puzzles(67, Rule.RENJU, every)]
    if name == "freestyle-vct3":
        return [Case(name, board, _vct(None, 0), True)
                for name, board in lfz_puzzles(67, Rule.FREESTYLE, every)
                if board.to_move is Color.BLACK]
    if name == "blunders":
        cases = []
        for position in load_suite(SUITE):
            board = position.board()
            board.play(board.index(*position.losing_move))
            cases.append(Case(position.origin, board, _vct(16, 0), True))
        return cases
    raise ValueError(f"unknown set {name!r}")


def measure(cases: list[Case], budget: float | None, nodes: int | None) -> list[object]:
    """Solve every case within ``budget`` seconds or ``nodes`` nodes; the table row."""
    correct = unknown = wrong = searched = 0
    times = []
    cpu = 0.0
    for case in cases:
        started = time.process_time()
        deadline = None if budget is None else time.monotonic() + budget
        result = case.solve(ThreatSolver(), case.board, deadline, nodes)
        cpu += time.process_time() - started
        searched += result.nodes
        times.append(result.seconds)
        if result.status is Status.UNKNOWN:
            unknown += 1
        elif (result.status is Status.WIN) == case.expected and (
            not case.first_moves or result.status is not Status.WIN
            or result.move in case.first_moves
        ):
            correct += 1
        else:
            wrong += 1
            print(f"wrong: {case.name}: {result.status.value}, line "
                  f"{list(result.line)}", flush=True)
    positives = sum(case.expected for case in cases)
    return [len(cases), positives, correct, f"{100 * correct / len(cases):.1f}%", unknown,
            wrong, f"{1000 * statistics.median(times):.1f}",
            f"{1000 * statistics.quantiles(times, n=10)[-1]:.0f}", f"{searched / cpu:,.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--nodes", type=int, default=None,
                        help="a node budget per case instead of the time budgets")
    parser.add_argument("--every", type=int, default=1, help="take every n-th lfz084 puzzle")
    parser.add_argument("--sets", nargs="+",
                        default=["quintet", "freestyle-vcf", "renju-vcf", "renju-vct3"])
    args = parser.parse_args()
    rows = []
    for name in args.sets:
        cases = load(name, args.every)
        limits = [(None, args.nodes)] if args.nodes else [(b, None) for b in args.budgets]
        for budget, nodes in limits:
            label = f"{nodes} nodes" if nodes else f"{budget:g}s"
            rows.append([name, label, *measure(cases, budget, nodes)])
            print(tabulate([rows[-1]], tablefmt="plain"), flush=True)
    print()
    print(tabulate(rows, headers=["set", "budget", "cases", "wins expected", "correct",
                                  "rate", "unknown", "wrong", "median ms", "p90 ms",
                                  "nodes/CPU s"]))


if __name__ == "__main__":
    main()
