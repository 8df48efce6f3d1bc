"""Do brains still play the moves that lost games? A suite of positions before losing moves.

Each position of the suite (written by ``bench/bench_blunders.py --save``) is one where a
brain played a move after which the teacher proved a win for the opponent. Every brain
named here is asked for its move in every position at ``--ms`` per move (one fresh game
per position, ``BOARD``), and the teacher (Rapfi, built outside the project from
shared/docs/sparring-engines.md) judges the position after that move at ``--teacher-ms``:
*held* when it proves no win for the opponent, *lost* when it does (once per distinct
move: brains that play the same move get the same verdict). The opponent's winrate after
the move (the teacher's evaluation) is averaged as a finer measure.

The positions were chosen because a brain failed there, so the brain that played them
scores low by construction and any other brain looks better by chance alone: compare
brains with one another, each run in the same call, and read the paired counts (held by
one and lost by the other) rather than one brain's total.

Run: ``.venv/bin/python bench/bench_blunder_suite.py SUITE.jsonl --brain NAME=BRAIN ...
--teacher /work/sparring/bin/rapfi/pbrain-rapfi [--ms 1000] [--brain-ms NAME=MS ...]
[--teacher-ms 500]``
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from tabulate import tabulate

from arena.brainspec import BrainSpecError, parse_brain
from brain.game.board import Board
from brain.game.rules import Rule
from driver.teacher import Teacher, TeacherConfig
from protocol.syntax import Point


@dataclass(frozen=True)
class SuitePosition:
    """One position of the suite: its origin, board, stones (play order) and the move
    that lost there."""

    origin: str
    width: int
    height: int
    rule: int
    moves: tuple[Point, ...]
    losing_move: Point

    def board(self) -> Board:
        """The position on a board of its own."""
        board = Board(self.width, self.height, Rule.from_gomocup(self.rule))
        for x, y in self.moves:
            board.play(board.index(x, y))
        return board


@dataclass(frozen=True)
class Verdict:
    """A brain's move in a suite position and the teacher's judgement after it: the
    opponent's winrate and whether the teacher proved the opponent's win."""

    move: Point
    opponent_winrate: float | None
    lost: bool


def load_suite(path: Path) -> list[SuitePosition]:
    """The positions of a suite file, in file order.

    :raises ValueError: a line that is not a suite position (the message names it).
    """
    positions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            positions.append(SuitePosition(
                f"{item['run']}#{item['game']}", int(item["width"]), int(item["height"]),
                int(item["rule"]), tuple(Point(x, y) for x, y in item["moves"]),
                Point(*item["losing_move"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a suite position ({exc}); write suites "
                             f"with bench/bench_blunders.py --save") from exc
    return positions


class Judge:
    """The teacher's verdicts on moves in suite positions, each asked once: the teacher's
    proof of a win depends on its timing, so two brains playing the same move get the
    same verdict."""

    def __init__(self, teacher: Teacher, teacher_ms: int) -> None:
        self._teacher = teacher
        self._teacher_ms = teacher_ms
        self._verdicts: dict[tuple[SuitePosition, Point], Verdict] = {}

    def __call__(self, position: SuitePosition, move: Point) -> Verdict:
        """The teacher's judgement after ``move`` in ``position``."""
        key = (position, move)
        if key not in self._verdicts:
            after = self._teacher.ask((*position.moves, move), position.width,
                                      position.height, position.rule,
                                      self._teacher_ms).judgement
            self._verdicts[key] = Verdict(move, after.winrate,
                                          after.mate is not None and after.mate > 0)
        return self._verdicts[key]


def brain_moves(brain: Teacher, suite: list[SuitePosition], move_ms: int) -> list[Point]:
    """The brain's move in every position of ``suite``."""
    return [brain.ask(p.moves, p.width, p.height, p.rule, move_ms).move for p in suite]


def named(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` as (name, value)."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", type=Path, help="JSON-lines file of bench_blunders.py --save")
    parser.add_argument("--brain", type=named, action="append", required=True,
                        metavar="NAME=BRAIN", help="a brain to test, described as the arena's "
                        "brains are (a path, a command line, builtin:...); repeat for more")
    parser.add_argument("--teacher", required=True, help="the judging engine's command")
    parser.add_argument("--ms", type=int, default=1000, help="brain ms per move")
    parser.add_argument("--brain-ms", type=named, action="append", default=[],
                        metavar="NAME=MS", help="another time per move for one brain")
    parser.add_argument("--teacher-ms", type=int, default=500, help="teacher ms per position")
    args = parser.parse_args()
    try:
        brains = {name: parse_brain(text) for name, text in args.brain}
    except BrainSpecError as exc:
        parser.error(f"--brain: {exc}")
    names = list(brains)
    times = {}
    for name, ms in args.brain_ms:
        if name not in brains or not ms.isdigit() or int(ms) < 1:
            parser.error(f"--brain-ms {name}={ms}: expected the NAME of a --brain and a "
                         f"positive number of milliseconds")
        times[name] = int(ms)
    try:
        suite = load_suite(args.suite)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    verdicts: dict[str, list[Verdict]] = {}
    with Teacher(TeacherConfig(command=(args.teacher,), move_ms=args.teacher_ms)) as teacher:
        judge = Judge(teacher, args.teacher_ms)
        for name, spec in brains.items():
            move_ms = times.get(name, args.ms)
            config = TeacherConfig(command=tuple(spec.argv()), move_ms=move_ms, cwd=spec.cwd)
            with Teacher(config) as brain:
                moves = brain_moves(brain, suite, move_ms)
            verdicts[name] = [judge(p, m) for p, m in zip(suite, moves, strict=True)]
    rows = [[p.origin, len(p.moves), f"{p.losing_move.x},{p.losing_move.y}",
             *(f"{v.move.x},{v.move.y} {'LOST' if v.lost else 'held'}"
               for v in (verdicts[n][i] for n in names))]
            for i, p in enumerate(suite)]
    print(tabulate(rows, headers=["position", "stones", "losing move", *names]))
    print()
    summary = []
    for name in names:
        own = verdicts[name]
        rates = [v.opponent_winrate for v in own if v.opponent_winrate is not None]
        summary.append([name, sum(not v.lost for v in own), len(suite),
                        sum(v.move == p.losing_move for v, p in zip(own, suite, strict=True)),
                        f"{statistics.fmean(rates):.3f}" if rates else "-"])
    print(tabulate(summary, headers=["brain", "held", "positions", "same losing move",
                                     "opponent winrate after (mean)"]))
    for a, b in combinations(names, 2):
        only_a = sum(not x.lost and y.lost for x, y in zip(verdicts[a], verdicts[b], strict=True))
        only_b = sum(x.lost and not y.lost for x, y in zip(verdicts[a], verdicts[b], strict=True))
        print(f"held by {a} only: {only_a}; by {b} only: {only_b}")


if __name__ == "__main__":
    main()
