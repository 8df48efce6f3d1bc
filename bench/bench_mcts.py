"""Tree-search speed: playouts per second on Rapfi's ten benchmark positions, with the
pattern-model evaluator and with a network (the shipped weights, or ``--weights``).

Run: ``.venv/bin/python bench/bench_mcts.py [--seconds 2] [--weights FILE]``.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from pathlib import Path

from bench_search import positions
from tabulate import tabulate

from brain.evaluator import Evaluator, PatternEvaluator
from brain.mcts import Mcts, MctsConfig
from brain.network import PolicyValueNet, default_weights_path


def rate(evaluator: Evaluator, seconds: float) -> list[list[object]]:
    """One row per position: label, playouts, playouts/s, tree nodes, mean/max depth."""
    rows: list[list[object]] = []
    for label, board in positions():
        mcts = Mcts(evaluator, MctsConfig(root_solver_share=0.0))
        mcts.search(board, time.monotonic() + seconds, threading.Event())
        info = mcts.info
        rows.append([label[:34], info.playouts, round(info.playouts / info.seconds),
                     info.nodes, f"{info.mean_depth:.1f}/{info.max_depth}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position")
    parser.add_argument("--weights", type=Path, default=None,
                        help="network weights (default: the shipped file, if any)")
    args = parser.parse_args()
    evaluators: dict[str, Evaluator] = {"pattern model": PatternEvaluator()}
    weights = args.weights or default_weights_path()
    if weights.is_file():
        evaluators["network"] = PolicyValueNet.load(weights)
    for name, evaluator in evaluators.items():
        rows = rate(evaluator, args.seconds)
        print(f"\n{name} evaluator, {args.seconds:g} s per position")
        print(tabulate(rows, headers=["position", "playouts", "playouts/s", "nodes",
                                      "depth mean/max"]))
        print(f"median playouts/s: {statistics.median(r[2] for r in rows):.0f}")


if __name__ == "__main__":
    main()
