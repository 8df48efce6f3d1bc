"""Where a move's time goes: the root's threat searches, the refutation checks and the
playouts, and what each threat search answered and how long it took.

Each position of a suite file (the JSON lines of ``bench/bench_blunders.py --save``), or
of ``--rapfi-positions N`` drawn from Rapfi's freestyle 15x15 games in ../shared/data (one
position a game, after 8 to 59 stones, ``--seed``), is searched from a fresh tree for
``--ms`` per move, once per configuration given (``--config NAME=field=value,...`` sets
:class:`MctsConfig` fields; ``default`` is the shipped configuration). The search's
methods and the threat solver are timed from outside, so the figures are the brain's own;
one BLAS thread, as the brain sets. A move the root's threat search settles counts in the
root's share only.

Run: ``.venv/bin/python bench/bench_root_time.py [SUITE.jsonl | --rapfi-positions 160]
[--seed 7] [--ms 900] [--config old=root_solver_share=0.15,refute_share=0.3] [--use-all]``
(``--use-all``: the search thinks to its deadline, as under a per-move limit without a game
clock; without it, it may stop early as under a game clock).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402  (one BLAS thread must be set before numpy loads)
import random  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench_blunder_suite import load_suite  # noqa: E402
from tabulate import tabulate  # noqa: E402

import brain.search.mcts as mcts  # noqa: E402
import brain.search.solver as solver  # noqa: E402
from brain.engine import make_engine  # noqa: E402
from brain.game.board import Board  # noqa: E402
from brain.train.data import SOURCES, Replayer, load_source  # noqa: E402

#: The search's phases timed, by the method that runs each.
PHASES = {"_root_tactics": "root VCF/VCT", "_restrict_to_defences": "opponent's VCF",
          "check": "refutation checks", "_run_playouts": "playouts (checks included)"}
#: The caller of a solver search, by the method it runs in.
CALLERS = {"_root_tactics": "root", "_restrict_to_defences": "threat", "check": "refute",
           "_choose": "choose"}


class Recorder:
    """Seconds per phase, and (caller, search, status) -> seconds of each solver call."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = defaultdict(float)
        self.calls: dict[tuple[str, str, str], list[float]] = defaultdict(list)
        self.caller = ""

    def timed(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            outer, started = self.caller, time.monotonic()
            self.caller = CALLERS.get(name, outer)
            try:
                return method(*args, **kwargs)
            finally:
                self.caller = outer
                if name in PHASES:
                    self.phases[name] += time.monotonic() - started
        return run

    def solver_call(self, kind: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.monotonic()
            result = method(*args, **kwargs)
            if self.caller:
                self.calls[(self.caller, kind, result.status.name)].append(
                    time.monotonic() - started)
            return result
        return run


@contextmanager
def recording(recorder: Recorder) -> Iterator[None]:
    """Time the search's phases and the solver's calls while the block runs."""
    patched = [(mcts.Mcts, name) for name in ("_root_tactics", "_restrict_to_defences",
                                               "_run_playouts", "_choose")]
    patched += [(mcts._Refuter, "check")]
    saved = [(owner, name, getattr(owner, name)) for owner, name in patched]
    saved += [(solver.ThreatSolver, kind, getattr(solver.ThreatSolver, kind))
              for kind in ("vcf", "vct")]
    for owner, name, method in saved:
        wrap = recorder.solver_call if owner is solver.ThreatSolver else recorder.timed
        setattr(owner, name, wrap(name, method))
    try:
        yield
    finally:
        for owner, name, method in saved:
            setattr(owner, name, method)


def parse_config(text: str) -> tuple[str, dict[str, str]]:
    name, _, fields = text.partition("=")
    pairs = dict(item.split("=", 1) for item in fields.split(",") if item)
    return name, pairs


def rapfi_positions(count: int, seed: int) -> list[Board]:
    """``count`` positions of Rapfi's freestyle 15x15 self-play games, one a game."""
    records, _ = load_source(SOURCES["freestyle15"])
    rng = random.Random(seed)
    replayer = Replayer()
    return [replayer.position(record, rng.randrange(8, min(len(record.moves) - 4, 60))).copy()
            for record in rng.sample([r for r in records if len(r.moves) >= 14], count)]


def run(positions: list[Board], ms: int, name: str, fields: dict[str, str],
        use_all: bool) -> None:
    recorder = Recorder()
    playouts, seconds = 0, 0.0
    engine = make_engine("mcts")  # the network and pattern model, loaded once
    config = engine.search.config
    for field, value in fields.items():
        setattr(config, field, type(getattr(config, field))(value))
    with recording(recorder):
        for position in positions:
            engine.new_game()  # each position searched from a fresh tree
            board = position.copy()
            started = time.monotonic()
            engine.choose_move(board, started + ms / 1000, threading.Event(), use_all=use_all)
            seconds += time.monotonic() - started
            playouts += engine.info.playouts
    print(f"\n{name} ({', '.join(f'{k}={v}' for k, v in fields.items()) or 'shipped'}): "
          f"{len(positions)} positions, {seconds:.1f} s, {playouts / len(positions):,.0f} "
          f"playouts a move")
    print(tabulate([(label, f"{recorder.phases[method]:.1f}",
                     f"{100 * recorder.phases[method] / seconds:.1f} %")
                    for method, label in PHASES.items()],
                   headers=["phase", "seconds", "share"]))
    rows = []
    for (caller, kind, status), times in sorted(recorder.calls.items()):
        times.sort()
        rows.append((caller, kind, status, len(times), f"{sum(times):.2f}",
                     f"{1000 * statistics.median(times):.0f}", f"{1000 * times[-1]:.0f}"))
    print(tabulate(rows, headers=["caller", "search", "answer", "calls", "seconds",
                                  "median ms", "max ms"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", type=Path, nargs="?", help="positions, JSON lines")
    parser.add_argument("--rapfi-positions", type=int, default=0, metavar="N",
                        help="instead of a suite, N positions of Rapfi's games")
    parser.add_argument("--seed", type=int, default=7, help="draw of --rapfi-positions")
    parser.add_argument("--ms", type=int, default=900, help="time per move")
    parser.add_argument("--config", action="append", default=[], metavar="NAME=FIELDS",
                        help="a configuration to time besides the shipped one")
    parser.add_argument("--use-all", action="store_true",
                        help="think to the deadline, as under a per-move limit without a "
                             "game clock (the arena's --tc); default: a game clock's early stop")
    args = parser.parse_args()
    if args.rapfi_positions:
        positions = rapfi_positions(args.rapfi_positions, args.seed)
    elif args.suite:
        positions = [p.board() for p in load_suite(args.suite)]
    else:
        parser.error("give a suite file or --rapfi-positions N")
    for name, fields in [("default", {})] + [parse_config(c) for c in args.config]:
        run(positions, args.ms, name, fields, args.use_all)


if __name__ == "__main__":
    main()
