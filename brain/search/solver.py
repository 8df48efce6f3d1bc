"""Threat-space search: victory by continuous fours (VCF) and by continuous threats (VCT).

The side to move (the *attacker*) looks for a forced win in which every attacker move is
a four (VCF) or a four or an open three (VCT), under the board's rule:

* a four leaves the defender one reply, the block (a renju black defender whose block is
  a foul loses: white's four on such a point wins);
* an open three (a cell where the attacker would make a straight or double four) is
  answered by the *real* defensive set: every cell after which the attacker has no such
  point left (:func:`brain.game.tactics.three_defences`), plus the defender's own fours;
* a defender five at any time refutes the attack, and a defender four must be blocked;
* a renju black attacker never plays a foul, and its threes count only when the point
  that would complete them is itself legal.

The depth is the number of attacker moves (``max_attacks``), searched by iterative
deepening (one by one up to 4, then in steps growing by half) so that short wins are found
first, or at once when any win will do (a VCF's ``shortest=False``); a move that makes a
straight four while the defender has no four to answer with wins outright and is not
counted (so a line ending in a four-three costs what the four-three costs, as in the
usual problem counts). Transposition tables keyed by the Zobrist hash keep proven wins
(with their lines) and failures (with the depth they were proven for, or for any depth
when the search below them hit no limit).

Known simplification: facing a four, the defender only blocks (its own counter-fours
merely delay and are not tried), as in most VCF solvers.
"""

from __future__ import annotations

import enum
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import cython

from brain.errors import PbrainError
from brain.game.board import Board, Color
from brain.game.patterns import Threat
from brain.game.tactics import (
    BLOCK4,
    FIVE,
    FLEX4,
    cells_with,
    five_cells,
    four_cells,
    is_legal,
    line_cells,
    makes_straight_four,
    open_four_points,
    three_defences,
)

#: Nodes between two looks at the clock and the stop flag.
CLOCK_INTERVAL = 32
#: Failure proven for every depth: the search below it met no limit.
_EXHAUSTIVE = 1 << 30
#: The search mode of a VCF (a VCT's mode is its threat depth, 0 or more).
_VCF = -1
#: The lowest threat levels of a VCT's attacking moves (threes; any open two).
_FLEX3 = cython.declare(cython.int, int(Threat.FLEX3))
_FLEX2 = cython.declare(cython.int, int(Threat.FLEX2))
_BLACK = cython.declare(cython.int, int(Color.BLACK))


class Status(enum.Enum):
    """Outcome of a threat-space search."""

    #: A forced win was found; :attr:`SolveResult.line` proves it.
    WIN = "win"
    #: No win exists within the limits (attacker moves and threes) that were asked for.
    NO_WIN = "no win"
    #: The node or time budget ran out first.
    UNKNOWN = "unknown"


class NoWinError(PbrainError, ValueError):
    """A winning move was asked of a result that holds no win."""


@dataclass(frozen=True)
class SolveResult:
    """What a search found.

    ``line`` (only for :attr:`Status.WIN`) alternates attacker and defender cells,
    attacker first, and ends with the attacker move after which the defender cannot stop
    a five: a five itself, a straight or double four, a white four whose only block is
    a black foul, or (VCT) threes that no single move and no defender four answers, such
    as a three-three (a four-three is followed by the block and the straight four).
    ``depth`` is the attacker-move limit of the last iteration searched to the end (for a
    win, the one that found it), ``nodes`` the positions visited and ``seconds`` the
    wall-clock time.
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


#: The transposition tables of one attacker and mode: proven wins (the attack limit they
#: were found under, the line) and failures (the limit they hold for), by position hash.
_Tables = tuple[dict[int, tuple[int, tuple[int, ...]]], dict[int, int]]


class _OutOfBudget(Exception):
    """The node or time budget ran out (internal: unwinds the search)."""


class ThreatSolver:
    """A VCF/VCT searcher whose transposition table lives across calls.

    Reuse one instance for positions of one game (same board size and rule): entries are
    kept per attacker and kind of search, keyed by the position's hash. ``max_entries``
    bounds the table; it is cleared when full.
    """

    def __init__(self, max_entries: int = 200_000) -> None:
        self.max_entries = max_entries
        self._tables: dict[tuple[int, int], _Tables] = {}

    def clear(self) -> None:
        """Forget every stored result."""
        self._tables.clear()

    def _entries(self) -> int:
        return sum(len(wins) + len(fails) for wins, fails in self._tables.values())

    def _tables_of(self, attacker: Color, mode: int) -> _Tables:
        """The tables of ``attacker``'s searches in ``mode`` (made on first use)."""
        key = (int(attacker), mode)
        found = self._tables.get(key)
        if found is None:
            found = self._tables[key] = ({}, {})
        return found

    def vcf(self, board: Board, max_attacks: int | None = None,
            deadline: float | None = None, max_nodes: int | None = None,
            stop: threading.Event | None = None, shortest: bool = True) -> SolveResult:
        """Search a win by continuous fours for ``board.to_move``.

        ``max_attacks`` bounds the attacker moves (None: no bound), ``deadline`` is a
        :func:`time.monotonic` time and ``max_nodes`` a node budget; when either runs out,
        or ``stop`` is set, the result is :attr:`Status.UNKNOWN`. The board is left as it
        was. With ``shortest`` the attack limit grows by iterative deepening, so the win
        found is a shortest one; without, ``max_attacks`` is searched at once, which under
        a small node budget proves more positions (any win will do for a proof).
        """
        return self._solve(board, _VCF, max_attacks, deadline, max_nodes, stop, shortest)

    def vct(self, board: Board, max_attacks: int | None = None, threat_depth: int = 0,
            deadline: float | None = None, max_nodes: int | None = None,
            stop: threading.Event | None = None) -> SolveResult:
        """Search a win by continuous threats for ``board.to_move``.

        As :meth:`vcf`, and besides fours the attacker may play *threats*: moves after
        which it would win by a VCF of at most ``threat_depth`` attacker moves if it
        moved again. With the default 0 those are the open threes (and three-threes);
        1 adds moves that threaten a four-three or a double four, and so on. Against a
        deeper threat the defender may play any cell on the lines of the threatened VCF
        or a four of its own, each kept only if it leaves no such VCF.
        """
        if threat_depth < 0:
            raise ValueError(f"threat_depth must be 0 or more, not {threat_depth}")
        return self._solve(board, threat_depth, max_attacks, deadline, max_nodes, stop,
                           True)

    def _solve(self, board: Board, mode: int, max_attacks: int | None,
               deadline: float | None, max_nodes: int | None,
               stop: threading.Event | None, shortest: bool) -> SolveResult:
        if self._entries() > self.max_entries:
            self.clear()
        start = time.monotonic()
        limit = max_attacks if max_attacks is not None else board.size
        search = _Search(self, board, mode, deadline, max_nodes, stop)
        history, to_move = len(board.history), board.to_move
        status, line, depth = Status.NO_WIN, (), 0
        try:
            for attacks in _depths(limit) if shortest else (limit,):
                search.limited = False
                found = search.attack(attacks, mode)
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


def _depths(limit: int) -> Iterator[int]:
    """Attack limits of the iterative deepening: one by one up to 4, then growing by
    half each step (a deep VCF would otherwise be searched again at every depth),
    always ending at ``limit``."""
    depth = 1
    while depth < limit:
        yield depth
        depth = depth + 1 if depth < 4 else depth + depth // 2
    yield limit


@cython.cclass
class _Search:
    """One solve: the recursive attacker and defender nodes over a shared table.

    ``mode`` is :data:`_VCF` for a VCF, else the VCT threat depth. Compiled, an extension
    type: its fields are C struct members, not dictionary entries.
    """

    board = cython.declare(Board)
    attacker = cython.declare(object)
    defender = cython.declare(object)
    #: The two sides as C ints, and whether a side's moves need a renju foul check.
    attacker_int = cython.declare(cython.int)
    defender_int = cython.declare(cython.int)
    attacker_fouls = cython.declare(cython.bint)
    defender_fouls = cython.declare(cython.bint)
    deadline = cython.declare(cython.double)
    max_nodes = cython.declare(cython.longlong)
    stop = cython.declare(object)
    nodes = cython.declare(cython.longlong, visibility="public")
    limited = cython.declare(cython.bint, visibility="public")
    # The tables of the search's own mode and of its VCFs (a VCT's threatened VCFs).
    wins = cython.declare(dict)
    fails = cython.declare(dict)
    vcf_wins = cython.declare(dict)
    vcf_fails = cython.declare(dict)

    def __init__(self, solver: ThreatSolver, board: Board, mode: int,
                 deadline: float | None, max_nodes: int | None,
                 stop: threading.Event | None) -> None:
        self.board = board
        self.attacker = board.to_move
        self.defender = board.to_move.opponent
        self.attacker_int = int(self.attacker)
        self.defender_int = 3 - self.attacker_int
        self.attacker_fouls = board.black_fouls and self.attacker_int == _BLACK
        self.defender_fouls = board.black_fouls and self.defender_int == _BLACK
        self.deadline = math.inf if deadline is None else deadline
        self.max_nodes = -1 if max_nodes is None else max_nodes
        self.stop = stop
        self.nodes = 0
        #: Whether the search since the flag was cleared stopped anywhere at a limit.
        self.limited = False
        self.wins, self.fails = solver._tables_of(self.attacker, mode)
        self.vcf_wins, self.vcf_fails = solver._tables_of(self.attacker, _VCF)

    @cython.ccall
    def _visit(self) -> None:
        self.nodes += 1
        if self.max_nodes >= 0 and self.nodes > self.max_nodes:
            raise _OutOfBudget
        if self.nodes % CLOCK_INTERVAL == 0 and (
            time.monotonic() > self.deadline
            or (self.stop is not None and self.stop.is_set())
        ):
            raise _OutOfBudget

    @cython.ccall
    @cython.locals(remaining=cython.int, mode=cython.int)
    def attack(self, remaining: int, mode: int) -> tuple[int, ...] | None:
        """The attacker to move: a winning line from here, or None."""
        self._visit()
        board = self.board
        if board.has_threat(self.attacker_int, FIVE, FIVE):
            return (five_cells(board, self.attacker_int)[0],)
        key = board.hash
        wins, fails = (self.vcf_wins, self.vcf_fails) if mode == _VCF else (self.wins,
                                                                             self.fails)
        win = wins.get(key)
        if win is not None and win[0] <= remaining:
            return win[1]
        failed = fails.get(key, -1)
        if failed >= remaining:
            self.limited = self.limited or failed != _EXHAUSTIVE
            return None

        outer, self.limited = self.limited, False
        line = self._attack_moves(remaining, mode)
        if line is not None:
            wins[key] = (remaining, line)
        else:
            fails[key] = remaining if self.limited else _EXHAUSTIVE
        self.limited = self.limited or outer
        return line

    @cython.ccall
    @cython.locals(remaining=cython.int, mode=cython.int)
    def _attack_moves(self, remaining: int, mode: int) -> tuple[int, ...] | None:
        board, attacker = self.board, self.attacker
        threats = five_cells(board, self.defender_int) if board.has_threat(
            self.defender_int, FIVE, FIVE) else []
        if len(threats) > 1:
            return None
        if threats:
            if self.attacker_fouls and not is_legal(board, self.attacker_int, threats[0]):
                return None
            moves = threats
        else:
            finisher = self._straight_four()
            if finisher is not None:
                return (finisher,)
            moves = four_cells(board, self.attacker_int) if mode == _VCF else \
                self._attack_cells(mode)
        if remaining == 0:
            self.limited = self.limited or bool(moves)
            return None
        for move in moves:
            board.place(move, attacker)
            try:
                line = self.defend(remaining - 1, mode)
            finally:
                board.undo()
            if line is not None:
                return (move, *line)
        return None

    @cython.ccall
    @cython.locals(mode=cython.int)
    def _attack_cells(self, mode: int) -> list[int]:
        """A VCT attacker's moves: its fours, then the non-four moves worth trying as
        threats: the open threes, and with a threat depth every move that makes at
        least an open two (a threatened VCF may need any of them); the defender node
        decides whether they threaten. Threat levels are ordered so that each set is
        one range ending at the fours: one scan of the board, strongest first."""
        low = _FLEX3 if mode == 0 else _FLEX2
        return cells_with(self.board, self.attacker_int, low, FLEX4)

    @cython.ccall
    def _straight_four(self) -> int | None:
        """A legal straight-four cell of the attacker when the defender has no four to
        answer it with (checked after the defender's fives), else None."""
        board, attacker = self.board, self.attacker_int
        if board.has_threat(self.defender_int, BLOCK4, FIVE):
            return None
        if not board.has_threat(attacker, FLEX4, FLEX4):
            return None
        for point in open_four_points(board, attacker):
            if makes_straight_four(board, attacker, point):
                return point
        return None

    @cython.ccall
    @cython.locals(remaining=cython.int, mode=cython.int)
    def defend(self, remaining: int, mode: int) -> tuple[int, ...] | None:
        """The defender to move: the rest of a winning line if every defence loses
        (the longest such line), or None if some defence holds."""
        self._visit()
        board, defender = self.board, self.defender
        attacker_int, defender_int = self.attacker_int, self.defender_int
        # The defender has no five: every attacker node blocks the defender's fives.
        fives = five_cells(board, attacker_int)
        if len(fives) > 1:
            replies = [cell for cell in fives
                       if board.threat_at(defender_int, cell) >= BLOCK4
                       and (not self.defender_fouls or is_legal(board, defender_int, cell))]
        elif fives:
            if self.defender_fouls and not is_legal(board, defender_int, fives[0]):
                return ()
            replies = fives
        elif mode == _VCF:
            return None
        else:
            points = open_four_points(board, attacker_int)
            if points:
                replies = three_defences(board, attacker_int, points)
            elif mode > 0:
                found = self._threatened_vcf(min(mode, remaining))
                if found is None:
                    return None
                replies = self._vcf_defences(found, min(mode, remaining))
            else:
                return None
            replies += [cell for cell in four_cells(board, defender_int) if cell not in replies]
        longest: tuple[int, ...] = ()
        for reply in replies:
            board.place(reply, defender)
            try:
                line = self.attack(remaining, mode)
            finally:
                board.undo()
            if line is None:
                return None
            if len(line) + 1 > len(longest):
                longest = (reply, *line)
        return longest

    @cython.ccall
    @cython.locals(depth=cython.int)
    def _threatened_vcf(self, depth: int) -> tuple[int, ...] | None:
        """The VCF of at most ``depth`` attacks the attacker would have if it moved now.

        A VCF cut short by ``depth`` is a limit of the threat model, not of the search,
        so it does not mark the search as limited.
        """
        outer = self.limited
        line = self.attack(depth, _VCF)
        self.limited = outer
        return line

    @cython.ccall
    @cython.locals(depth=cython.int)
    def _vcf_defences(self, line: tuple[int, ...], depth: int) -> list[int]:
        """Defender cells that leave the attacker no VCF of at most ``depth`` attacks,
        among the empty cells on the lines through the threatened VCF ``line``."""
        board = self.board
        candidates: set[int] = set()
        for cell in line:
            candidates.add(cell)
            for d in range(4):
                candidates.update(line_cells(board, cell, d))
        defences = []
        for cell in sorted(candidates):
            if board.cells[cell] != 0 or (self.defender_fouls
                                          and not is_legal(board, self.defender_int, cell)):
                continue
            board.place(cell, self.defender)
            try:
                refuted = self._threatened_vcf(depth) is not None
            finally:
                board.undo()
            if not refuted:
                defences.append(cell)
        return defences


def solve_vcf(board: Board, max_attacks: int | None = None, deadline: float | None = None,
              max_nodes: int | None = None) -> SolveResult:
    """:meth:`ThreatSolver.vcf` with a fresh table."""
    return ThreatSolver().vcf(board, max_attacks, deadline, max_nodes)


def solve_vct(board: Board, max_attacks: int | None = None, threat_depth: int = 0,
              deadline: float | None = None, max_nodes: int | None = None) -> SolveResult:
    """:meth:`ThreatSolver.vct` with a fresh table."""
    return ThreatSolver().vct(board, max_attacks, threat_depth, deadline, max_nodes)
