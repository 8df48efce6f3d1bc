"""How well do the search's evaluators judge positions a strong engine has labelled?

The tree search values its leaves with the pattern model (and, in the ``priors`` role,
the nodes it returns to with the network). This compares their values with the
teacher's evaluation (and, where there is one, the result of the teacher's played-out
continuation) on the positions of teacher runs (``python -m brain.train teach``): all of
them, or those of sources whose name contains ``--source`` (``arena:`` keeps the positions
of pbrain-zero's own matches, the ones whose judgement decides its games).

Positions the teacher proved (a mate score) or did not evaluate are left out, and so
are those it rates beyond ``--decided`` (default 0.9 on the -1..1 scale): the search's
tactics settle them, and they would inflate every correlation. Figures per evaluator:
Pearson correlation and mean squared error against the teacher, mean of (value -
teacher), correlation with the outcomes; then the means by stones on the board and
side to move, where a bias by colour or phase shows.

Run: ``.venv/bin/python bench/bench_value.py FOLDER... [--source arena:]
[--network weights/pbrain-zero.npz ...] [--linenet weights/linenet.npz ...]
[--pattern-model FILE] [--board 15]
[--positions N] [--seed 1]``
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402  (one BLAS thread must be set before numpy loads)
import math  # noqa: E402
import random  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from tabulate import tabulate  # noqa: E402

from brain.eval.evaluator import Evaluator, PatternEvaluator  # noqa: E402
from brain.eval.linenet import LineNet, LineNetState  # noqa: E402
from brain.eval.network import PolicyValueNet, default_weights_path  # noqa: E402
from brain.eval.patternmodel import PatternModel  # noqa: E402
from brain.train.data import Replayer  # noqa: E402
from brain.train.teachdata import (  # noqa: E402
    NO_OUTCOME,
    LabelledPosition,
    labelled_positions,
    position_record,
)

#: Stones on the board (opening stones included) that bound the phases reported.
PHASES = ((0, 10), (10, 16), (16, 24), (24, 40), (40, 1000))


@dataclass(frozen=True)
class Judged:
    """A position's stone count, the teacher's value and outcome for the side to move
    (-1..1; the outcome is ``NO_OUTCOME`` when none was played out), and each
    evaluator's value."""

    stones: int
    teacher: float
    outcome: int
    values: tuple[float, ...]


class LineNetValue:
    """The line-pattern network's value in the evaluators' form (``evaluate`` returns no
    policy): a state built from each board's stones."""

    def __init__(self, path: Path) -> None:
        self.net = LineNet.from_file(path)

    def evaluate(self, boards: list) -> tuple[None, np.ndarray]:
        values = []
        for board in boards:
            state = LineNetState(self.net, board.width, board.height)
            state.set_stones(board.cells)
            values.append(state.value(int(board.to_move), board.black_fouls))
        return None, np.array(values)


def usable(position: LabelledPosition, board: int, source: str, decided: float) -> bool:
    """Whether ``position`` is one to judge (see the module docstring)."""
    return (position.width == board and position.height == board
            and source in position.source and position.mate == 0
            and not math.isnan(position.winrate)
            and abs(2 * position.winrate - 1) < decided)


def judge(positions: list[LabelledPosition], evaluators: list[Evaluator]) -> list[Judged]:
    """Every evaluator's value of every position."""
    replayer = Replayer()
    judged = []
    for position in positions:
        board = replayer.position(position_record(position), len(position.stones))
        values = tuple(float(e.evaluate([board])[1][0]) for e in evaluators)
        judged.append(Judged(len(position.stones), 2 * position.winrate - 1,
                             position.outcome, values))
    return judged


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation, NaN with fewer than three pairs or a constant side."""
    if len(a) < 3 or a.std() == 0 or b.std() == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def summary(judged: list[Judged], names: list[str]) -> list[list[object]]:
    """One row per evaluator: agreement with the teacher and with the outcomes."""
    teacher = np.array([j.teacher for j in judged])
    outcome = np.array([j.outcome for j in judged], dtype=float)
    played = outcome != NO_OUTCOME
    rows: list[list[object]] = [["teacher", 1.0, 0.0, 0.0,
                                 correlation(teacher[played], outcome[played])]]
    for k, name in enumerate(names):
        value = np.array([j.values[k] for j in judged])
        rows.append([name, correlation(value, teacher),
                     float(np.mean((value - teacher) ** 2)),
                     float(np.mean(value - teacher)),
                     correlation(value[played], outcome[played])])
    return rows


def by_phase(judged: list[Judged], names: list[str]) -> list[list[object]]:
    """Mean values and correlation with the teacher by phase and side to move."""
    rows: list[list[object]] = []
    for low, high in PHASES:
        for side, colour in ((0, "black"), (1, "white")):
            part = [j for j in judged if low <= j.stones < high and j.stones % 2 == side]
            if not part:
                continue
            teacher = np.array([j.teacher for j in part])
            row: list[object] = [f"{low}-{high - 1}" if high < 1000 else f"{low}+",
                                 colour, len(part), float(teacher.mean())]
            for k in range(len(names)):
                value = np.array([j.values[k] for j in part])
                row += [float(value.mean()), correlation(value, teacher)]
            rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="teacher run folders")
    parser.add_argument("--source", default="",
                        help="keep the positions of sources whose name contains this")
    parser.add_argument("--network", action="append", type=Path, default=[],
                        help="a network file to judge too (default: the shipped one)")
    parser.add_argument("--linenet", action="append", type=Path, default=[],
                        help="a line-pattern network file to judge too (e.g. "
                             "weights/linenet.npz)")
    parser.add_argument("--pattern-model", type=Path, default=None,
                        help="a pattern-model file to judge (default: the shipped one)")
    parser.add_argument("--board", type=int, default=15)
    parser.add_argument("--decided", type=float, default=0.9,
                        help="leave out positions the teacher rates beyond this (0..1)")
    parser.add_argument("--positions", type=int, default=0,
                        help="judge a random sample of this many (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    positions = [p for p in labelled_positions(args.folders)
                 if usable(p, args.board, args.source, args.decided)]
    if not positions:
        raise SystemExit(f"no {args.board}x{args.board} position of {args.source or 'any'} "
                         "source left to judge in those folders")
    if args.positions and args.positions < len(positions):
        positions = random.Random(args.seed).sample(positions, args.positions)
    networks = args.network or [default_weights_path()]
    names = [str(args.pattern_model or "pattern model"), *(str(n) for n in networks),
             *(str(n) for n in args.linenet)]
    pattern_model = PatternModel.load(args.pattern_model) if args.pattern_model else None
    evaluators: list[Evaluator] = [PatternEvaluator(pattern_model),
                                   *(PolicyValueNet.load(n) for n in networks),
                                   *(LineNetValue(n) for n in args.linenet)]
    judged = judge(positions, evaluators)
    print(f"{len(judged)} positions ({args.board}x{args.board}, source "
          f"{args.source or 'any'}, teacher's value within ±{args.decided})\n")
    print(tabulate(summary(judged, names),
                   headers=["evaluator", "corr. teacher", "MSE teacher", "mean - teacher",
                            "corr. outcome"], floatfmt=".3f"))
    print()
    headers = ["stones", "to move", "positions", "teacher"]
    for name in names:
        headers += [f"{name} mean", "corr."]
    print(tabulate(by_phase(judged, names), headers=headers, floatfmt="+.2f"))


if __name__ == "__main__":
    main()
