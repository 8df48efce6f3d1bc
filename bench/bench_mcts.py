"""Tree-search speed: playouts per second on Rapfi's ten benchmark positions, with the
pattern model alone and, given a network (the shipped weights, or ``--weights``), with
the network's priors on revisited nodes (pbrain-zero's default) and with the network
valuing every leaf.

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

from brain.eval.evaluator import Evaluator, PatternEvaluator
from brain.eval.network import PolicyValueNet, default_weights_path
from brain.search.mcts import Mcts, MctsConfig


def rate(evaluator: Evaluator, prior_net: Evaluator | None,
         seconds: float) -> list[list[object]]:
    """One row per position: label, playouts, playouts/s, tree nodes, mean/max depth."""
    rows: list[list[object]] = []
    for label, board in positions():
        mcts = Mcts(evaluator, MctsConfig(root_solver_share=0.0), prior_net=prior_net)
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
    patterns = PatternEvaluator()
    guides: dict[str, tuple[Evaluator, Evaluator | None]] = {
        "the pattern model": (patterns, None)}
    weights = args.weights or default_weights_path()
    if weights.is_file():
        net = PolicyValueNet.load(weights)
        guides["the pattern model, the network's priors on revisited nodes"] = (patterns, net)
        guides["the network on every leaf"] = (net, None)
    for name, (evaluator, prior_net) in guides.items():
        rows = rate(evaluator, prior_net, args.seconds)
        print(f"\n{name}, {args.seconds:g} s per position")
        print(tabulate(rows, headers=["position", "playouts", "playouts/s", "nodes",
                                      "depth mean/max"]))
        print(f"median playouts/s: {statistics.median(r[2] for r in rows):.0f}")


if __name__ == "__main__":
    main()
