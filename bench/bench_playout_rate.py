"""Playouts per CPU second of the tree search on Rapfi's ten benchmark positions, for the
``brain`` package first on ``sys.path`` (set ``PYTHONPATH`` to an exported tree, with its
compiled modules, to measure another revision in the same conditions).

Root threat searches and refutation checks are off, so only playouts are timed; CPU time
(``time.process_time``) rather than wall time, so that other processes on the machine do not
count against it. Run with ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` (the brain's own
setting) or numpy's threads count as CPU time.

Run: ``.venv/bin/python bench/bench_playout_rate.py [--seconds 1] [--priors]``.
"""

from __future__ import annotations

import argparse
import threading
import time

from bench_search import positions

import brain.search.mcts as mcts
from brain.eval.evaluator import PatternEvaluator
from brain.eval.network import PolicyValueNet, default_weights_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="search time per position")
    parser.add_argument("--priors", action="store_true",
                        help="the network's priors on revisited nodes (the brain's default)")
    args = parser.parse_args()
    patterns = PatternEvaluator()
    net = PolicyValueNet.load(default_weights_path()) if args.priors else None
    config = mcts.MctsConfig(root_solver_share=0.0, refute_share=0.0, threat_share=0.0)
    playouts, seconds = 0, 0.0
    for _, board in positions():
        search = mcts.Mcts(patterns, config, prior_net=net)
        started = time.process_time()
        search.search(board, time.monotonic() + args.seconds, threading.Event())
        seconds += time.process_time() - started
        playouts += search.info.playouts
    print(f"{mcts.__file__}: {playouts / seconds:.0f} playouts/CPU s")


if __name__ == "__main__":
    main()
