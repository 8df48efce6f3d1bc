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
* solver nodes/s: VCF and VCT (threes) of every fourth lfz084 freestyle VCF puzzle, a
  fresh solver and a 3,000-node budget per puzzle, nodes per CPU second;
* MCTS playouts/s: playouts per CPU second of the search (other processes on the machine
  do not count against it), the median over Rapfi's ten benchmark positions searched for
  ``--seconds`` each as ``bench/bench_mcts.py`` does, pattern model alone and with the
  network's priors (the shipped weights), root solver off;
* the brain process: spawn to ``OK``, and peak memory after one 1-second move.

Run: ``.venv/bin/python bench/bench_native.py [--before REV] [--seconds 1]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
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
    from bench_search import positions
    from brain.eval.evaluator import PatternEvaluator
    from brain.eval.network import PolicyValueNet, default_weights_path
    from brain.search.mcts import Mcts, MctsConfig
    patterns = PatternEvaluator()
    net = PolicyValueNet.load(default_weights_path()) if prior else None
    rates = []
    for _, board in positions():
        mcts = Mcts(patterns, MctsConfig(root_solver_share=0.0), prior_net=net)
        started = time.process_time()
        mcts.search(board, time.monotonic() + seconds, threading.Event())
        rates.append(mcts.info.playouts / (time.process_time() - started))
    return statistics.median(rates)

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


def brain_process(tree: Path, pure: bool) -> dict[str, float]:
    """Spawn ``python -m brain`` in ``tree``: milliseconds to its ``OK`` for ``START 15``,
    then its peak memory (MiB) after one 1-second move, median of three runs."""
    from brain.resources import shared_data_dir

    env = dict(os.environ, PYTHONPATH=str(tree), PBRAIN_SHARED_DATA=str(shared_data_dir()))
    env.pop("PBRAIN_PURE_PYTHON", None)
    if pure:
        env["PBRAIN_PURE_PYTHON"] = "1"
    starts, peaks = [], []
    for _ in range(3):
        started = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "brain"], cwd=tree, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None

        def ask(line: str, brain: subprocess.Popen = proc) -> str:
            brain.stdin.write(line + "\r\n")
            brain.stdin.flush()
            return brain.stdout.readline().strip() if not line.startswith("INFO") else ""

        if ask("START 15") != "OK":
            raise RuntimeError(f"the brain in {tree} did not answer OK to START")
        starts.append(1000 * (time.perf_counter() - started))
        ask("INFO timeout_turn 1000")
        ask("TURN 7,7")
        peaks.append(_peak_mib(proc.pid))
        proc.stdin.write("END\r\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    return {"spawn to OK (ms)": statistics.median(starts),
            "peak memory after a 1 s move (MiB)": statistics.median(peaks)}


def _peak_mib(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmHWM for process {pid}")


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
    from brain.native import core_status

    print(f"this tree: {core_status()}", flush=True)
    columns: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        if args.before:
            before = export(args.before, Path(scratch))
            columns[f"before ({args.before})"] = (measure(before, args.seconds, pure=True)
                                                  | brain_process(before, pure=True))
        columns["pure"] = measure(ROOT, args.seconds, pure=True) | brain_process(ROOT, True)
        columns["compiled"] = (measure(ROOT, args.seconds, pure=False)
                               | brain_process(ROOT, False))
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
