"""Where a brain's lost games were lost, and whether our threat solver sees it.

For every game of an arena run that ``--brain`` lost, a teacher engine (Rapfi, built
outside the project from shared/docs/sparring-engines.md) judges the position after each
of the brain's moves. The *blunder* is the first of its moves after which the teacher
proves a win for the opponent (a mate score) where, before it, the teacher proved no win
for the opponent. The position after the blunder is then given to our threat solver
(:class:`brain.search.solver.ThreatSolver`), the opponent to move, at each ``--budgets``
time: a VCT it finds there is one the search's refutation checks could have found before
playing the move; one it does not find is out of reach of today's checks.

Run: ``.venv/bin/python bench/bench_blunders.py runs/RUN --brain pbrain-zero
--teacher /work/sparring/bin/rapfi/pbrain-rapfi [--teacher-ms 500] [--budgets 0.1 0.5 2]
[--save SUITE.jsonl]``

``--save`` appends every blunder's position (the stones before the losing move) to a
JSON-lines file that ``bench/bench_blunder_suite.py`` replays: does a brain still choose a
losing move there?
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from arena.rundir import RunDir
from brain.game.board import Board
from brain.game.records import GameRecord
from brain.game.rules import Rule
from brain.search.solver import Status, ThreatSolver
from driver.teacher import Teacher, TeacherConfig
from protocol.syntax import Point


@dataclass(frozen=True)
class Blunder:
    """The move that lost a game: its ply (1-based, opening stones counted), the win the
    teacher proved after it (plies) and the solver's result at each budget."""

    run: str
    game: int
    ply: int
    move: Point
    mate: int
    found: tuple[float | None, ...]


def lost_games(run: Path, brain: str) -> list[GameRecord]:
    """The games of ``run`` that ``brain`` lost by a five (faults are not play)."""
    games = []
    for record in RunDir(run).load_games():
        if brain not in (record.black, record.white) or record.winner is None:
            continue
        if record.winner != brain and record.tags.get("termination") == "five":
            games.append(record)
    return games


def find_blunder(record: GameRecord, brain: str, teacher: Teacher, move_ms: int
                 ) -> tuple[int, int] | None:
    """(ply of the losing move, teacher's mate plies after it), or None when the teacher
    proves no win for the opponent after any of the brain's moves."""
    points = [Point(x, y) for x, y in record.points]
    own = 0 if record.black == brain else 1
    for ply in range(record.opening_length, len(points)):
        if ply % 2 != own:
            continue
        after = teacher.ask(points[: ply + 1], record.width, record.height,
                            int(record.rule), move_ms)
        if after.judgement.mate is not None and after.judgement.mate > 0:
            return ply + 1, after.judgement.mate
    return None


def solver_times(record: GameRecord, ply: int, budgets: list[float]) -> tuple[float | None, ...]:
    """Seconds our solver took to prove the opponent's VCT after ``ply`` stones, at each
    budget (None: not proved within it)."""
    board = Board(record.width, record.height, Rule.from_gomocup(int(record.rule)))
    for x, y in record.points[:ply]:
        board.play(board.index(x, y))
    out: list[float | None] = []
    for budget in budgets:
        solver = ThreatSolver()
        started = time.monotonic()
        result = solver.vct(board, max_attacks=16, deadline=started + budget)
        took = time.monotonic() - started
        if result.status is not Status.WIN:
            result = solver.vcf(board, deadline=started + budget)
            took = time.monotonic() - started
        out.append(took if result.status is Status.WIN else None)
    return tuple(out)


def save_position(path: Path, record: GameRecord, blunder: Blunder) -> None:
    """Append the position before ``blunder`` (one JSON object per line): where it came
    from, the board, the stones in play order and the losing move with the teacher's
    mate length after it."""
    line = {"run": blunder.run, "game": blunder.game, "width": record.width,
            "height": record.height, "rule": int(record.rule),
            "moves": [list(p) for p in record.points[: blunder.ply - 1]],
            "losing_move": [blunder.move.x, blunder.move.y], "mate": blunder.mate}
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=Path, nargs="+", help="arena run folders")
    parser.add_argument("--brain", default="pbrain-zero", help="the brain whose losses to read")
    parser.add_argument("--teacher", required=True, help="the judging engine's command")
    parser.add_argument("--teacher-ms", type=int, default=500, help="teacher ms per position")
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.1, 0.5, 2.0],
                        help="solver seconds per try")
    parser.add_argument("--save", type=Path,
                        help="append the positions before the losing moves to this JSON-lines "
                             "file (for bench/bench_blunder_suite.py)")
    args = parser.parse_args()
    blunders: list[Blunder] = []
    unexplained = 0
    config = TeacherConfig(command=(args.teacher,), move_ms=args.teacher_ms)
    with Teacher(config) as teacher:
        for run in args.run:
            for record in lost_games(run, args.brain):
                found = find_blunder(record, args.brain, teacher, args.teacher_ms)
                if found is None:
                    unexplained += 1
                    continue
                ply, mate = found
                move = Point(*record.points[ply - 1])
                blunders.append(Blunder(run.name, int(record.tags["game"]), ply, move, mate,
                                        solver_times(record, ply, args.budgets)))
                if args.save is not None:
                    save_position(args.save, record, blunders[-1])
    rows = [[b.game, b.ply, f"{b.move.x},{b.move.y}", b.mate,
             *("-" if t is None else f"{t:.3f}" for t in b.found)] for b in blunders]
    print(tabulate(rows, headers=["game", "ply", "move", "teacher mate plies",
                                  *(f"solver {s:g} s" for s in args.budgets)]))
    print(f"\nlost games with a proven losing move: {len(blunders)}; without one (the "
          f"teacher proved no win after any move at {args.teacher_ms} ms): {unexplained}")
    for k, budget in enumerate(args.budgets):
        seen = sum(b.found[k] is not None for b in blunders)
        print(f"our solver proves the opponent's win after the losing move within "
              f"{budget:g} s: {seen} of {len(blunders)}")
    if blunders:
        print(f"median teacher mate length: {statistics.median(b.mate for b in blunders)} plies")


if __name__ == "__main__":
    main()
