"""What are the opponent's wins after a losing move made of? Threats, or quiet moves too?

For each position of a blunder suite (``bench/bench_blunders.py --save``) the losing move
is played and the teacher (Rapfi, built outside the project from
shared/docs/sparring-engines.md) searches the position for ``--teacher-ms``. Where it
proves a win, each of the winner's moves on its principal variation is classed by what
it makes, read off our board's threat table just before it is played:

* ``5`` a five; ``4`` a four (a four-three included); ``3`` an open three (a threat the
  loser must answer);
* ``p`` a preparation: a closed three or a double two (shapes that make threats next);
* ``q`` a quiet move: none of these.

A line made of fours and threes only (``5``, ``4``, ``3``) is a VCT, within reach of a
threat-space search such as our solver's; a line with ``p`` or ``q`` moves is not, and
only a search that also tries quiet attacking moves (an alpha-beta search, or a tree
search deep enough) sees it. With ``--solver-ms`` our VCT search (the brain's attack
limit) is also run on every position for that long, as the brain's refutation checks
would; ``--threat-depth k`` lets it also attack with moves that threaten a VCF of ``k``
attacks (some of the preparations), which the brain's searches do not.

Run: ``.venv/bin/python bench/bench_losing_lines.py SUITE.jsonl --teacher
/work/sparring/bin/rapfi/pbrain-rapfi [--teacher-ms 1000] [--solver-ms 1000]
[--threat-depth 0]``
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from bench_blunder_suite import SuitePosition, load_suite
from tabulate import tabulate

from brain.game.board import Board
from brain.game.patterns import Threat
from brain.search.mcts import MctsConfig
from brain.search.solver import Status, solve_vct
from driver.teacher import Teacher, TeacherConfig, TeacherError
from protocol.syntax import Point

#: Move classes, strongest first, as printed in the lines.
KINDS = ("5", "4", "3", "p", "q")
#: The classes a VCT is made of.
THREATS = frozenset("543")


def kind(board: Board, cell: int) -> str:
    """The class (see the module docstring) of the side to move's stone at ``cell``."""
    level = board.threat(board.to_move, cell)
    if level >= Threat.FIVE:
        return "5"
    if level >= Threat.BLOCK4:
        return "4"
    if level >= Threat.FLEX3:
        return "3"
    if level >= Threat.BLOCK3 or level == Threat.FLEX2_2X:
        return "p"
    return "q"


def winning_line_kinds(board: Board, line: tuple[Point, ...]) -> str:
    """The classes of the side to move's moves along ``line`` (the winner first);
    ``board`` is left as it was."""
    kinds = []
    played = 0
    try:
        for ply, (x, y) in enumerate(line):
            cell = board.index(x, y)
            if not board.is_empty(cell):
                break  # a line that leaves the board's moves: read what came before
            if ply % 2 == 0:
                kinds.append(kind(board, cell))
            board.play(cell)
            played += 1
    finally:
        for _ in range(played):
            board.undo()
    return "".join(kinds)


def vct_found(board: Board, seconds: float, threat_depth: int) -> bool:
    """Whether our VCT search (threats of ``threat_depth``: see ``solve_vct``) proves the
    side to move's win within ``seconds``."""
    result = solve_vct(board, max_attacks=MctsConfig.vct_attacks, threat_depth=threat_depth,
                       deadline=time.monotonic() + seconds)
    return result.status is Status.WIN


def after_losing_move(position: SuitePosition) -> Board:
    board = position.board()
    board.play(board.index(*position.losing_move))
    return board


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path, help="suite file (bench_blunders.py --save)")
    parser.add_argument("--teacher", required=True, help="teacher brain (Rapfi) command")
    parser.add_argument("--teacher-ms", type=int, default=1000, help="teacher's time a position")
    parser.add_argument("--solver-ms", type=int, default=0,
                        help="also run our VCT search this long on each position (0: no)")
    parser.add_argument("--threat-depth", type=int, default=0,
                        help="the VCT's threats: 0 threes and fours (the brain's), k > 0 also "
                             "moves that threaten a VCF of k attacks")
    args = parser.parse_args()

    rows = []
    totals: Counter[str] = Counter()
    unproven = threat_lines = solver_wins = 0
    with Teacher(TeacherConfig((args.teacher,), move_ms=args.teacher_ms)) as teacher:
        for position in load_suite(args.suite):
            moves = (*position.moves, position.losing_move)
            try:
                judgement = teacher.ask(moves, position.width, position.height,
                                        position.rule).judgement
            except TeacherError as exc:
                print(f"{position.origin}: skipped ({exc})")
                continue
            if judgement.mate is None or judgement.mate <= 0 or not judgement.pv:
                unproven += 1
                continue
            board = after_losing_move(position)
            kinds = winning_line_kinds(board, judgement.pv)
            totals.update(kinds)
            threat_line = bool(kinds) and set(kinds) <= THREATS
            threat_lines += threat_line
            found = (vct_found(board, args.solver_ms / 1000, args.threat_depth)
                     if args.solver_ms else None)
            solver_wins += bool(found)
            rows.append([position.origin, len(position.moves), judgement.mate, kinds,
                         "yes" if threat_line else "no",
                         "" if found is None else ("WIN" if found else "-")])
    print(tabulate(rows, headers=["position", "stones", "teacher mate plies",
                                  "winner's moves", "threats only",
                                  f"our VCT in {args.solver_ms} ms" if args.solver_ms else ""]))
    moves_total = sum(totals.values())
    print()
    print(f"{len(rows)} proven wins ({unproven} positions not proven at {args.teacher_ms} ms); "
          f"lines of threats only: {threat_lines}"
          + (f"; our VCT proves {solver_wins}" if args.solver_ms else ""))
    if moves_total:
        print("winner's moves: " + ", ".join(
            f"{k} {totals[k]} ({100 * totals[k] / moves_total:.0f} %)" for k in KINDS))


if __name__ == "__main__":
    main()
