"""The tree search's leaf VCF, searched by iterative deepening or at its limit at once.

Records the positions on which the pattern-model tree search runs its small VCF (one
search of ``--seconds`` on each of Rapfi's ten benchmark positions), then solves them
all both ways with the search's own settings (6 attacks, ``leaf_vcf_nodes`` nodes), a
fresh solver per way, the collector off: wins proved, budget-outs, nodes, and CPU µs a
call, with the ratio of the two.

Run: ``.venv/bin/python bench/bench_leaf_vcf.py [--seconds 0.5] [--limit 6000]``.
"""

from __future__ import annotations

import argparse
import gc
import threading
import time
from collections import Counter

from bench_search import positions

from brain.eval.evaluator import PatternEvaluator
from brain.game.board import Board
from brain.search.mcts import Mcts, MctsConfig
from brain.search.solver import SolveResult, ThreatSolver

ATTACKS = 6


class RecordingSolver(ThreatSolver):
    """A solver that keeps a copy of every position of a leaf-sized VCF it is asked."""

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget
        self.boards: list[Board] = []

    def vcf(self, board: Board, max_attacks: int | None = None, deadline: float | None = None,
            max_nodes: int | None = None, stop: threading.Event | None = None,
            shortest: bool = True) -> SolveResult:
        if max_nodes == self.budget and max_attacks == ATTACKS:
            self.boards.append(board.copy())
        return super().vcf(board, max_attacks, deadline, max_nodes, stop, shortest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=0.5, help="search time per position")
    parser.add_argument("--limit", type=int, default=6000, help="leaf positions solved")
    args = parser.parse_args()
    config = MctsConfig(root_solver_share=0.0, refute_share=0.0, threat_share=0.0)
    budget = config.leaf_vcf_nodes
    boards: list[Board] = []
    for _, board in positions():
        search = Mcts(PatternEvaluator(), config)
        recorder = RecordingSolver(budget)
        search.solver = recorder
        search.search(board, time.monotonic() + args.seconds, threading.Event())
        boards += recorder.boards
    boards = boards[:args.limit]
    gc.collect()
    gc.disable()
    print(f"{len(boards)} leaf positions, {ATTACKS} attacks, {budget} nodes")
    micros = {}
    for shortest in (True, False):
        solver, statuses, nodes = ThreatSolver(), Counter(), 0
        started = time.process_time()
        for board in boards:
            result = solver.vcf(board, max_attacks=ATTACKS, max_nodes=budget,
                                shortest=shortest)
            statuses[result.status.value] += 1
            nodes += result.nodes
        micros[shortest] = (time.process_time() - started) / max(len(boards), 1) * 1e6
        name = "deepening" if shortest else "at once"
        print(f"{name:>10}: {statuses['win']} wins, {statuses['unknown']} budget-outs, "
              f"{statuses['no win']} no win, {nodes} nodes, {micros[shortest]:.1f} µs a call")
    print(f"at once / deepening time a call: {micros[False] / micros[True]:.2f}")


if __name__ == "__main__":
    main()
