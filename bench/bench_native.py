"""The compiled core against the pure-Python one and against an earlier revision, in one run.

Each variant runs the same measurements in its own process:

* ``before`` — the code of ``--before`` (a git revision, exported with ``git archive``;
  it has no compiled modules), skipped with ``--before ''``;
* ``pure`` — this tree with ``PBRAIN_PURE_PYTHON=1`` (the ``.py`` modules);
* ``compiled`` — this tree as installed (the compiled modules where they are built).

Measurements (only public APIs that every variant has):

* make/unmake pairs/s: 60 random stones played and taken back, 15x15 freestyle and renju
  (``bench/bench_core.py``);
* threat queries/s: ``four_cells``, ``three_cells`` and ``open_four_points`` for both
  colours on a 40-stone position (each call one query);
* solver nodes/s: VCF and VCT (threes) of the lfz084 freestyle VCF puzzles, a fresh
  solver and a node budget per puzzle, nodes over CPU seconds;
* MCTS playouts/s: the median over Rapfi's ten benchmark positions, pattern model alone
  and with the network's priors (the shipped weights), root solver off
  (``bench/bench_mcts.py``).

Run: ``.venv/bin/python bench/bench_native.py [--before REV] [--seconds 1]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parents[1]

#: The measurements, run as ``python -c`` in each variant's tree; prints one JSON line.
PROBE = r'''
import json, random, statistics, sys, threading, time
sys.path.insert(0, "bench"); sys.path.insert(0, "tests")
from bench_core import make_unmake_rate
from brain.game.board import Board
from brain.game.rules import Rule
from brain.game import tactics
from brain.search.solver import ThreatSolver
seconds = float(sys.argv[1])

def queries():
    board = Board(15)
    for move in random.Random(2).sample(range(225), 40):
        board.play(move)
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for color in (board.to_move, board.to_move.opponent):
            tactics.four_cells(board, color)
            tactics.three_cells(board, color)
            tactics.open_four_points(board, color)
        calls += 6
    return calls / (time.perf_counter() - start)

def solver_rate():
    from puzzle_data import freestyle_vcf_puzzles
    puzzles = freestyle_vcf_puzzles(4)
    nodes, cpu = 0, 0.0
    for search in ("vcf", "vct"):
        for puzzle in puzzles:
            started = time.process_time()
            result = getattr(ThreatSolver(), search)(puzzle.board, max_nodes=3000)
            cpu += time.process_time() - started
            nodes += result.nodes
    return nodes / cpu

def playouts(prior):
    from bench_mcts import rate
    from brain.eval.evaluator import PatternEvaluator
    from brain.eval.network import PolicyValueNet, default_weights_path
    net = PolicyValueNet.load(default_weights_path()) if prior else None
    return statistics.median(row[2] for row in rate(PatternEvaluator(), net, seconds))

print(json.dumps({
    "make/unmake pairs/s (freestyle)": make_unmake_rate(Rule.FREESTYLE, 15, seconds),
    "make/unmake pairs/s (renju)": make_unmake_rate(Rule.RENJU, 15, seconds),
    "threat queries/s": queries(),
    "solver nodes/s": solver_rate(),
    "MCTS playouts/s (pattern model)": playouts(False),
    "MCTS playouts/s (network priors)": playouts(True),
}))
'''


def measure(tree: Path, seconds: float, pure: bool) -> dict[str, float]:
    """Run :data:`PROBE` in ``tree``; its figures."""
    from brain.resources import shared_data_dir

    env = dict(os.environ, PYTHONPATH=str(tree), OPENBLAS_NUM_THREADS="1",
               PBRAIN_SHARED_DATA=str(shared_data_dir()))
    env.pop("PBRAIN_PURE_PYTHON", None)
    if pure:
        env["PBRAIN_PURE_PYTHON"] = "1"
    out = subprocess.run([sys.executable, "-c", PROBE, str(seconds)], cwd=tree, env=env,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"the probe failed in {tree}:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(revision: str, into: Path) -> Path:
    """The files of ``revision`` (with this tree's ``weights/`` for the network) in ``into``."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="", help="git revision to compare with ('': none)")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time per measurement (and per MCTS position)")
    args = parser.parse_args()
    from brain.game.compiled import core_status

    print(f"this tree: {core_status()}", flush=True)
    columns: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        if args.before:
            columns[f"before ({args.before})"] = measure(
                export(args.before, Path(scratch)), args.seconds, pure=True)
        columns["pure"] = measure(ROOT, args.seconds, pure=True)
        columns["compiled"] = measure(ROOT, args.seconds, pure=False)
    names = list(columns)
    rows = []
    for figure in columns["pure"]:
        values = [columns[name][figure] for name in names]
        row: list[object] = [figure, *(f"{value:,.0f}" for value in values)]
        row.append(f"{values[-1] / values[0]:.1f}x")
        rows.append(row)
    print(tabulate(rows, headers=["figure", *names, f"compiled / {names[0]}"]))


if __name__ == "__main__":
    main()
