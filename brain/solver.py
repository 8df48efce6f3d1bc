"""Threat-space search: victory by continuous fours (VCF) and by continuous threats (VCT).

The side to move (the *attacker*) looks for a forced win in which every attacker move is
a four (VCF) or a four or an open three (VCT), under the board's rule:

* a four leaves the defender one reply, the block (a renju black defender whose block is
  a foul loses: white's four on such a point wins);
* an open three (a cell where the attacker would make a straight or double four) is
  answered by the *real* defensive set: every cell after which the attacker has no such
  point left (:func:`brain.tactics.three_defences`), plus the defender's own fours;
* a defender five at any time refutes the attack, and a defender four must be blocked;
* a renju black attacker never plays a foul, and its threes count only when the point
  that would complete them is itself legal.

The depth is the number of attacker moves (``max_attacks``), searched by iterative
deepening so that the shortest win is found; a move that makes a straight four while the
defender has no four to answer with wins outright and is not counted (so a line ending
in a four-three costs what the four-three costs, as in the usual problem counts). A
transposition table keyed by the Zobrist hash keeps proven wins (with their lines) and
failures (with the depth they were proven for, or for any depth when the search below
them hit no limit).

Known simplification: facing a four, the defender only blocks (its own counter-fours
merely delay and are not tried), as in most VCF solvers.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass

import numpy as np

from brain.board import Board, Color
from brain.patterns import Threat
from brain.tactics import (
    empty_mask,
    five_cells,
    four_cells,
    is_legal,
    makes_straight_four,
    open_four_points,
    three_cells,
    three_defences,
)

#: Nodes between two looks at the clock.
CLOCK_INTERVAL = 256
#: Failure proven for every depth: the search below it met no limit.
_EXHAUSTIVE = 1 << 30


class Status(enum.Enum):
    """Outcome of a threat-space search."""

    #: A forced win was found; :attr:`SolveResult.line` proves it.
    WIN = "win"
    #: No win exists within the limits (attacker moves and threes) that were asked for.
    NO_WIN = "no win"
    #: The node or time budget ran out first.
    UNKNOWN = "unknown"


class NoWinError(ValueError):
    """A winning move was asked of a result that holds no win."""


@dataclass(frozen=True)
class SolveResult:
    """What a search found.

    ``line`` (only for :attr:`Status.WIN`) alternates attacker and defender cells,
    attacker first, and ends with the attacker move after which the defender cannot stop
    a five: a five itself, a straight or double four, a four-three, or a white four whose
    only block is a black foul. ``depth`` is the deepest attacker-move limit searched to
    the end, ``nodes`` the positions visited and ``seconds`` the wall-clock time.
    """

    status: Status
    line: tuple[int, ...]
    depth: int
    nodes: int
    seconds: float

    @property
    def move(self) -> int:
        """The attacker's first winning move; raises :class:`NoWinError` without a win."""
        if self.status is not Status.WIN:
            raise NoWinError(f"the search found no win ({self.status.value})")
        return self.line[0]


class _OutOfBudget(Exception):
    """The node or time budget ran out (internal: unwinds the search)."""


class ThreatSolver:
    """A VCF/VCT searcher whose transposition table lives across calls.

    Reuse one instance for positions of one game (same board size and rule): entries are
    keyed by the position's hash, the attacker, the kind of search and the threes left.
    ``max_entries`` bounds the table; it is cleared when full.
    """

    def __init__(self, max_entries: int = 400_000) -> None:
        self.max_entries = max_entries
        self._wins: dict[tuple[int, int, bool, int], tuple[int, tuple[int, ...]]] = {}
        self._fails: dict[tuple[int, int, bool, int], int] = {}

    def clear(self) -> None:
        """Forget every stored result."""
        self._wins.clear()
        self._fails.clear()

    def vcf(self, board: Board, max_attacks: int | None = None,
            deadline: float | None = None, max_nodes: int | None = None) -> SolveResult:
        """Search a win by continuous fours for ``board.to_move``.

        ``max_attacks`` bounds the attacker moves (None: no bound), ``deadline`` is a
        :func:`time.monotonic` time and ``max_nodes`` a node budget; when either runs out
        the result is :attr:`Status.UNKNOWN`. The board is left as it was.
        """
        return self._solve(board, False, max_attacks, 0, deadline, max_nodes)

    def vct(self, board: Board, max_attacks: int | None = None,
            max_threes: int | None = None, deadline: float | None = None,
            max_nodes: int | None = None) -> SolveResult:
        """Search a win by continuous fours and threes for ``board.to_move``.

        As :meth:`vcf`, and ``max_threes`` bounds how many attacker moves may be threes
        rather than fours (None: no bound).
        """
        threes = _EXHAUSTIVE if max_threes is None else max_threes
        return self._solve(board, True, max_attacks, threes, deadline, max_nodes)

    def _solve(self, board: Board, vct: bool, max_attacks: int | None, threes: int,
               deadline: float | None, max_nodes: int | None) -> SolveResult:
        if len(self._wins) + len(self._fails) > self.max_entries:
            self.clear()
        start = time.monotonic()
        limit = max_attacks if max_attacks is not None else board.size
        search = _Search(self, board, vct, deadline, max_nodes)
        history, to_move = len(board.history), board.to_move
        status, line, depth = Status.NO_WIN, (), 0
        try:
            for attacks in range(1, limit + 1):
                search.limited = False
                found = search.attack(attacks, threes)
                if found is not None:
                    status, line, depth = Status.WIN, found, attacks
                    break
                depth = attacks
                if not search.limited:
                    break
        except _OutOfBudget:
            status = Status.UNKNOWN
        finally:
            while len(board.history) > history:
                board.undo()
            board.to_move = to_move
        return SolveResult(status, line, depth, search.nodes, time.monotonic() - start)


class _Search:
    """One solve: the recursive attacker and defender nodes over a shared table."""

    def __init__(self, solver: ThreatSolver, board: Board, vct: bool,
                 deadline: float | None, max_nodes: int | None) -> None:
        self.board = board
        self.attacker = board.to_move
        self.defender = board.to_move.opponent
        self.vct = vct
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0
        #: Whether the search since the flag was cleared stopped anywhere at a limit.
        self.limited = False
        self.wins = solver._wins
        self.fails = solver._fails

    def _visit(self) -> None:
        self.nodes += 1
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            raise _OutOfBudget
        if (self.deadline is not None and self.nodes % CLOCK_INTERVAL == 0
                and time.monotonic() > self.deadline):
            raise _OutOfBudget

    def attack(self, remaining: int, threes: int) -> tuple[int, ...] | None:
        """The attacker to move: a winning line from here, or None."""
        self._visit()
        board, attacker, defender = self.board, self.attacker, self.defender
        own = five_cells(board, attacker)
        if own:
            return (own[0],)
        key = (board.hash, int(attacker), self.vct, threes)
        win = self.wins.get(key)
        if win is not None and win[0] <= remaining:
            return win[1]
        if self.fails.get(key, -1) >= remaining:
            if self.fails[key] != _EXHAUSTIVE:
                self.limited = True
            return None

        outer, self.limited = self.limited, False
        line = self._attack_moves(remaining, threes)
        if line is not None:
            self.wins[key] = (remaining, line)
        else:
            self.fails[key] = remaining if self.limited else _EXHAUSTIVE
        self.limited = self.limited or outer
        return line

    def _attack_moves(self, remaining: int, threes: int) -> tuple[int, ...] | None:
        board, attacker, defender = self.board, self.attacker, self.defender
        threats = five_cells(board, defender)
        if len(threats) > 1:
            return None
        if threats:
            if not is_legal(board, attacker, threats[0]):
                return None
            moves, three_moves = threats, []
        else:
            finisher = self._straight_four(attacker, defender)
            if finisher is not None:
                return (finisher,)
            moves = four_cells(board, attacker)
            three_moves = three_cells(board, attacker) if self.vct else []
            if three_moves and threes == 0:
                self.limited = True
                three_moves = []
        if remaining == 0:
            if moves or three_moves:
                self.limited = True
            return None
        for move in moves:
            line = self._try(move, remaining - 1, threes)
            if line is not None:
                return line
        for move in three_moves:
            line = self._try(move, remaining - 1, threes - 1)
            if line is not None:
                return line
        return None

    def _try(self, move: int, remaining: int, threes: int) -> tuple[int, ...] | None:
        board = self.board
        board.place(move, self.attacker)
        try:
            line = self.defend(remaining, threes)
        finally:
            board.undo()
        return None if line is None else (move, *line)

    def _straight_four(self, attacker: Color, defender: Color) -> int | None:
        """A legal straight-four cell of the attacker when the defender has no four to
        answer it with (checked after the defender's fives), else None."""
        board = self.board
        empty = empty_mask(board)
        if np.any((board.threats[defender] >= Threat.BLOCK4) & empty):
            return None
        if not np.any((board.threats[attacker] == Threat.FLEX4) & empty):
            return None
        for point in open_four_points(board, attacker):
            if makes_straight_four(board, attacker, point):
                return point
        return None

    def defend(self, remaining: int, threes: int) -> tuple[int, ...] | None:
        """The defender to move: the rest of a winning line if every defence loses
        (the longest such line), or None if some defence holds."""
        self._visit()
        board, attacker, defender = self.board, self.attacker, self.defender
        if five_cells(board, defender):
            return None
        fives = five_cells(board, attacker)
        if len(fives) > 1:
            replies = [cell for cell in fives
                       if board.threats[defender, cell] >= Threat.BLOCK4
                       and is_legal(board, defender, cell)]
        elif fives:
            if not is_legal(board, defender, fives[0]):
                return ()
            replies = fives
        else:
            if not self.vct:
                return None
            points = open_four_points(board, attacker)
            if not points:
                return None
            replies = three_defences(board, attacker, points)
            replies += [cell for cell in four_cells(board, defender) if cell not in replies]
        longest: tuple[int, ...] = ()
        for reply in replies:
            board.place(reply, defender)
            try:
                line = self.attack(remaining, threes)
            finally:
                board.undo()
            if line is None:
                return None
            if len(line) + 1 > len(longest):
                longest = (reply, *line)
        return longest


def solve_vcf(board: Board, max_attacks: int | None = None, deadline: float | None = None,
              max_nodes: int | None = None) -> SolveResult:
    """:meth:`ThreatSolver.vcf` with a fresh table."""
    return ThreatSolver().vcf(board, max_attacks, deadline, max_nodes)


def solve_vct(board: Board, max_attacks: int | None = None, max_threes: int | None = None,
              deadline: float | None = None, max_nodes: int | None = None) -> SolveResult:
    """:meth:`ThreatSolver.vct` with a fresh table."""
    return ThreatSolver().vct(board, max_attacks, max_threes, deadline, max_nodes)
