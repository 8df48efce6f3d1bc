"""Classic baseline engine: threat-space solver at the root, then alpha-beta search.

:class:`AlphaBetaEngine` plays one move per :meth:`~AlphaBetaEngine.choose_move` call:

1. forced replies first (own five, the block of an opponent five, the only legal move);
2. the threat-space solver: an own VCF wins at once; an opponent VCF restricts the root
   moves to those that leave the opponent without one; an own VCT (small budget) wins;
3. iterative-deepening principal-variation search (negamax) with a transposition table,
   killer and history move ordering and candidate moves from
   :func:`brain.eval.evaluation.candidate_moves` (an opponent five or live three restricts
   them to the real defences and own fours, a forced block does not cost depth), ending
   in a quiescence search that follows forced blocks and the mover's four-threes and
   straight fours, and scores a straight four against no defending four as a win.

The strength ladder is :data:`LEVELS`: level 0 is a greedy one-ply chooser, the top
level uses everything and manages its time. The engine always answers before the
deadline (the clock is read every :data:`CLOCK_INTERVAL` nodes), with the best move of
the last finished iteration, or a better one found by the unfinished one; a renju foul
is never chosen for black while a legal move exists. Given the same position, level and
seed, in a new game (:meth:`~AlphaBetaEngine.new_game` or a fresh engine), it searches
the same tree whenever it is stopped by depth or node budgets rather than the clock.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from brain.eval.evaluation import candidate_moves, evaluate, move_scores
from brain.game.board import Board
from brain.game.patterns import Threat
from brain.game.tactics import (
    BLOCK4,
    FIVE,
    cells_with,
    empty_mask,
    five_cells,
    four_cells,
    is_legal,
    line_cells,
    open_four_points,
)
from brain.search.searcher import SearchInfo
from brain.search.solver import Status, ThreatSolver

#: Score of a won position (less the plies it takes to win).
WIN = 1_000_000
#: Scores beyond this are wins or losses found by search.
WIN_BOUND = WIN - 10_000
#: Nodes between two looks at the clock and the stop flag.
CLOCK_INTERVAL = 16
#: Plies of fours and blocks the quiescence search may add.
QUIESCENCE_PLIES = 6
#: Transposition-table entries kept between moves (about 200 bytes each); beyond this
#: the table is emptied before the next move.
TABLE_LIMIT = 300_000

_EXACT, _LOWER, _UPPER = 0, 1, 2
_SIDE_KEY = (0, 0x5DEECE66D2F1A3B7, 0x2545F4914F6CDD1D)


@dataclass(frozen=True)
class Level:
    """What one rung of the strength ladder may do."""

    #: Deepest iteration (plies) of the alpha-beta search; 0: greedy, no search.
    max_depth: int
    #: Candidate moves searched in a quiet position.
    width: int
    #: Node budget of the own VCF at the root (0: none).
    vcf_nodes: int
    #: Node budget for the opponent's VCF at the root and each defence check (0: none).
    defend_nodes: int
    #: Node budget of the own VCT at the root (0: none).
    vct_nodes: int
    #: Deepen until the clock says the next iteration is hopeless (else: to max_depth,
    #: within the deadline).
    time_managed: bool
    #: Random bonus (0..noise) added to the root ordering scores for variety.
    noise: int = 0


#: Level 0 (greedy) to the strongest.
LEVELS: tuple[Level, ...] = (
    Level(0, 1, 0, 0, 0, False, noise=20),
    Level(2, 8, 0, 0, 0, False, noise=5),
    Level(4, 10, 2_000, 0, 0, False),
    Level(6, 12, 5_000, 300, 2_000, True),
    Level(40, 15, 30_000, 1_000, 20_000, True),
)
MAX_LEVEL = len(LEVELS) - 1


@dataclass(frozen=True)
class _Choice:
    """A move and how it was chosen, reported as :attr:`AlphaBetaEngine.info`.

    ``source`` says what decided the move: ``forced`` (a five, a block or the only legal
    move), ``greedy``, ``vcf``, ``vct`` or ``search``. ``score`` is from the mover's side
    (:data:`WIN` less the plies for a found win), ``pv`` the expected line from the move
    (cells).
    """

    source: str
    move: int
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...] = field(default=())

    def info(self, board: Board) -> SearchInfo:
        return SearchInfo(source=self.source, seconds=self.seconds, nodes=self.nodes,
                          mean_depth=float(self.depth), max_depth=self.depth,
                          score=self.score, pv=[board.xy(cell) for cell in self.pv])


class _Timeout(Exception):
    """The deadline passed or the stop flag was set (internal: unwinds the search)."""


class AlphaBetaEngine:
    """Solver plus alpha-beta search at one of the :data:`LEVELS`; see the module doc."""

    name = "pbrain-alphabeta"
    watchable = False

    def __init__(self, level: int = MAX_LEVEL, seed: int = 0,
                 config: Level | None = None) -> None:
        """Play at ``level`` (0 to :data:`MAX_LEVEL`), or with a custom ``config``
        (benchmarks, experiments) in place of that level's settings."""
        if not 0 <= level <= MAX_LEVEL:
            raise ValueError(f"level must be 0 to {MAX_LEVEL}, not {level}")
        self.level = level
        self.config = config or LEVELS[level]
        self.seed = seed
        #: What the last :meth:`choose_move` did (empty before the first).
        self.info = SearchInfo()
        self.solver = ThreatSolver()
        self._table: dict[int, tuple[int, int, int, int]] = {}
        self._game: tuple[int, int, int] | None = None
        self._killers: dict[int, list[int]] = {}
        self._history: dict[int, int] = {}
        self._partial: tuple[int, int] | None = None
        self._nodes = 0
        self._deadline = 0.0
        self._use_all = False
        self._stop = threading.Event()
        self._root_board: Board  # set by choose_move

    def new_game(self) -> None:
        """Forget everything learned from the previous game's positions."""
        self.solver.clear()
        self._table.clear()
        self._game = None

    def limit_memory(self, max_bytes: int) -> str | None:
        """Nothing: its tables are bounded by entry counts (:data:`TABLE_LIMIT`, the
        solver's ``max_entries``), not by the manager's limit."""
        return None

    def best_so_far(self, board: Board) -> int | None:
        """None: a cut-short search falls back on the one-ply choice (the baseline keeps
        its deadline with a 20 % margin of its own)."""
        return None

    def watch(self, report: Callable[[SearchInfo], None] | None, interval: float) -> None:
        """Nothing: the baseline reports only its finished search (:attr:`info`)."""

    # -- the move --------------------------------------------------------------------

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        """A legal move for ``board.to_move``, chosen before ``deadline`` (monotonic
        seconds) or as soon as ``stop`` is set. The board is left as it was. Raises
        ValueError on a full board. ``use_all``: no time is saved for later moves (see
        :class:`~brain.search.searcher.Searcher`), so a deepening that cannot finish starts
        anyway."""
        start = time.monotonic()
        if board.is_full():
            raise ValueError("the board is full: there is no move to play")
        game = (board.width, board.height, int(board.rule))
        if game != self._game:
            self.new_game()
            self._game = game
        if len(self._table) > TABLE_LIMIT:
            self._table.clear()
        self._root_board, self._stop, self._nodes = board, stop, 0
        self._use_all = use_all
        budget = max(0.0, deadline - start)
        self._deadline = deadline - min(0.05, 0.2 * budget)
        self._killers.clear()
        self._history.clear()
        history, to_move = len(board.history), board.to_move
        try:
            choice = self._choose(board, start)
        finally:
            while len(board.history) > history:
                board.undo()
            board.to_move = to_move
        self.info = choice.info(board)
        return choice.move

    def _choose(self, board: Board, start: float) -> _Choice:
        config = self.config
        root = candidate_moves(board)
        moves = root.moves
        if not moves:  # lost (two fives to block, or a foul block), or only fouls left
            return self._info("forced", self._desperate_move(board), -WIN, 0, start)
        if len(moves) == 1:
            score = WIN if board.threats[board.to_move, moves[0]] == FIVE else 0
            return self._info("forced", moves[0], score, 0, start)
        moves = self._ordered_root(board, moves)
        budget = self._deadline - start
        if config.max_depth == 0 or budget <= 0:
            return self._info("greedy", moves[0], evaluate(board), 0, start)

        own = self._solve(board, False, config.vcf_nodes, start + 0.1 * budget)
        if own is not None:
            return self._info("vcf", own[0], WIN - len(own), 0, start, own)
        if config.defend_nodes:
            moves = self._defend_vcf(board, moves, start + 0.2 * budget)
        if config.vct_nodes:
            own = self._solve(board, True, config.vct_nodes, start + 0.3 * budget)
            if own is not None:
                return self._info("vct", own[0], WIN - len(own), 0, start, own)
        if not root.forced:
            moves = moves[:config.width]
        return self._iterate(board, moves, start)

    def _ordered_root(self, board: Board, moves: list[int]) -> list[int]:
        """Root moves by ordering score, with the level's seeded noise."""
        cells = np.array(moves, dtype=np.intp)
        scores = move_scores(board, cells)
        if self.config.noise:
            rng = random.Random(self.seed * 1_000_003 + board.hash)
            scores = scores + np.array([rng.randrange(self.config.noise + 1) for _ in moves])
        return cells[np.argsort(-scores, kind="stable")].tolist()

    def _solve(self, board: Board, vct: bool, nodes: int,
               until: float) -> tuple[int, ...] | None:
        """The side to move's winning line by VCF or VCT within the budget, or None."""
        if not nodes:
            return None
        until = min(until, self._deadline)
        if vct:
            result = self.solver.vct(board, deadline=until, max_nodes=nodes, stop=self._stop)
        else:
            result = self.solver.vcf(board, deadline=until, max_nodes=nodes, stop=self._stop)
        self._nodes += result.nodes
        return result.line if result.status is Status.WIN else None

    def _defend_vcf(self, board: Board, moves: list[int], until: float) -> list[int]:
        """If the opponent has a VCF, the moves that leave it none (own fours and cells on
        the lines of its winning line, each checked); else ``moves`` unchanged."""
        me = board.to_move
        nodes = self.config.defend_nodes
        board.to_move = me.opponent
        threat = self._solve(board, False, nodes, until)
        board.to_move = me
        if threat is None:
            return moves
        near: set[int] = set(threat)
        for cell in threat:
            for d in range(4):
                near.update(line_cells(board, cell, d))
        fours = four_cells(board, me)
        candidates = fours + [m for m in moves if m in near and m not in fours]
        kept = []
        for move in candidates:
            if time.monotonic() > until:
                break
            board.place(move, me)
            refuted = self._solve(board, False, nodes, until) is not None
            board.undo()
            if not refuted:
                kept.append(move)
        return kept or moves

    @staticmethod
    def _desperate_move(board: Board) -> int:
        """A move in a lost position: a legal block of an opponent five if there is
        one, else the legal cell with the best ordering score (which blocks what it
        can), else (only fouls left) the best empty one."""
        me = board.to_move
        empty = np.flatnonzero(empty_mask(board))
        ranked = empty[np.argsort(-move_scores(board, empty), kind="stable")].tolist()
        for cells in (five_cells(board, me.opponent), ranked):
            legal = [c for c in cells if is_legal(board, me, c)]
            if legal:
                return legal[0]
        return ranked[0]

    def _info(self, source: str, move: int, score: int, depth: int, start: float,
              pv: tuple[int, ...] = ()) -> _Choice:
        return _Choice(source, move, score, depth, self._nodes,
                          time.monotonic() - start, pv or (move,))

    # -- iterative deepening -----------------------------------------------------------

    def _iterate(self, board: Board, moves: list[int], start: float) -> _Choice:
        best, score, depth = moves[0], 0, 0
        for iteration in range(1, self.config.max_depth + 1):
            began = time.monotonic()
            try:
                score, best = self._root(board, iteration, moves)
            except _Timeout:
                if self._partial is not None:
                    best, score = self._partial
                break
            depth = iteration
            moves = [best] + [m for m in moves if m != best]
            if abs(score) >= WIN_BOUND:
                break
            # The next iteration takes a few times longer than this one. An unfinished
            # one still helps (it searches this one's best move first), so start it
            # unless it could not even get half way and that time is saved for later
            # moves (a game clock keeps it).
            now = time.monotonic()
            if (self.config.time_managed and not self._use_all
                    and now + 2 * (now - began) > self._deadline):
                break
        return self._info("search", best, score, depth, start, self._pv(board, best))

    def _root(self, board: Board, depth: int, moves: list[int]) -> tuple[int, int]:
        """Search the root moves to ``depth``; the best score and move."""
        self._partial: tuple[int, int] | None = None
        alpha, beta = -WIN - 1, WIN + 1
        best = moves[0]
        for n, move in enumerate(moves):
            board.play(move)
            try:
                if n == 0:
                    score = -self._search(depth - 1, -beta, -alpha, 1)
                else:
                    score = -self._search(depth - 1, -alpha - 1, -alpha, 1)
                    if score > alpha:
                        score = -self._search(depth - 1, -beta, -alpha, 1)
            finally:
                board.undo()
            if score > alpha:
                alpha, best = score, move
                self._partial = (move, score)
        self._store(board, depth, _EXACT, alpha, best, 0)
        return alpha, best

    def _pv(self, board: Board, move: int) -> tuple[int, ...]:
        """The expected line from ``move``, read back from the transposition table."""
        line = [move]
        played = 1
        board.play(move)
        while len(line) < 20:
            entry = self._table.get(board.hash ^ _SIDE_KEY[board.to_move])
            if entry is None or entry[3] < 0 or not board.is_empty(entry[3]):
                break
            line.append(entry[3])
            board.play(entry[3])
            played += 1
        for _ in range(played):
            board.undo()
        return tuple(line)

    # -- search ------------------------------------------------------------------------

    def _tick(self) -> None:
        self._nodes += 1
        if self._nodes % CLOCK_INTERVAL == 0 and (
            self._stop.is_set() or time.monotonic() > self._deadline
        ):
            raise _Timeout

    def _store(self, board: Board, depth: int, flag: int, score: int, move: int,
               ply: int) -> None:
        if score > WIN_BOUND:
            score += ply
        elif score < -WIN_BOUND:
            score -= ply
        self._table[board.hash ^ _SIDE_KEY[board.to_move]] = (depth, flag, score, move)

    def _search(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Negamax score of the side to move, within the window (alpha, beta)."""
        self._tick()
        board = self._root_board
        outcome = self._outcome(board, ply)
        if outcome is not None:
            return outcome
        if depth <= 0:
            return self._quiesce(alpha, beta, ply, 0)
        key = board.hash ^ _SIDE_KEY[board.to_move]
        entry = self._table.get(key)
        tt_move = -1
        if entry is not None:
            tt_move = entry[3]
            if entry[0] >= depth:
                score = entry[2]
                if score > WIN_BOUND:
                    score -= ply
                elif score < -WIN_BOUND:
                    score += ply
                if (entry[1] == _EXACT or (entry[1] == _LOWER and score >= beta)
                        or (entry[1] == _UPPER and score <= alpha)):
                    return score
        listing = candidate_moves(board, self.config.width)
        if not listing.moves:
            return 0 if board.is_full() else -(WIN - ply - 1)
        moves = self._order(listing.moves, tt_move, ply, listing.forced)
        next_depth = depth if listing.forced and len(moves) == 1 else depth - 1
        original_alpha, best, best_score = alpha, moves[0], -WIN - 1
        for n, move in enumerate(moves):
            board.play(move)
            try:
                if n == 0:
                    score = -self._search(next_depth, -beta, -alpha, ply + 1)
                else:
                    score = -self._search(next_depth, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._search(next_depth, -beta, -alpha, ply + 1)
            finally:
                board.undo()
            if score > best_score:
                best_score, best = score, move
            if score > alpha:
                alpha = score
            if alpha >= beta:
                self._reward(move, ply, depth)
                break
        flag = (_LOWER if best_score >= beta
                else _UPPER if best_score <= original_alpha else _EXACT)
        self._store(board, depth, flag, best_score, best, ply)
        return best_score

    def _order(self, moves: list[int], tt_move: int, ply: int, forced: bool) -> list[int]:
        """TT move, killers, then the static order; quiet moves past the first few are
        sorted by the history heuristic."""
        first = [tt_move] if tt_move in moves else []
        if not forced:
            first += [k for k in self._killers.get(ply, ()) if k in moves and k not in first]
        rest = [m for m in moves if m not in first]
        if not forced and len(rest) > 4:
            history = self._history
            rest = rest[:4] + sorted(rest[4:], key=lambda m: -history.get(m, 0))
        return first + rest

    def _reward(self, move: int, ply: int, depth: int) -> None:
        killers = self._killers.setdefault(ply, [])
        if move not in killers:
            killers.insert(0, move)
            del killers[2:]
        self._history[move] = self._history.get(move, 0) + depth * depth

    def _outcome(self, board: Board, ply: int) -> int | None:
        """A decided position's score for the side to move, or None.

        Won: a five to play, or a straight/double four to make while the opponent has
        no five and no four to answer with. Lost: two opponent fives, or one whose
        block is a renju foul.
        """
        me, them = board.to_move, board.to_move.opponent
        if five_cells(board, me):
            return WIN - ply
        threats = five_cells(board, them)
        if len(threats) > 1 or (threats and not is_legal(board, me, threats[0])):
            return -(WIN - ply - 1)
        if threats:
            return None
        empty = empty_mask(board)
        if not np.any((board.threats[them] >= BLOCK4) & empty) and open_four_points(board, me):
            return WIN - ply - 2
        return None

    def _quiesce(self, alpha: int, beta: int, ply: int, plies: int) -> int:
        """Stand-pat evaluation, extended by forced blocks and own four-threes."""
        self._tick()
        board = self._root_board
        me, them = board.to_move, board.to_move.opponent
        outcome = self._outcome(board, ply)
        if outcome is not None:
            return outcome
        threats = five_cells(board, them)
        if threats:
            if plies >= QUIESCENCE_PLIES:
                return evaluate(board)
            board.play(threats[0])
            try:
                return -self._quiesce(-beta, -alpha, ply + 1, plies + 1)
            finally:
                board.undo()
        stand = evaluate(board)
        if stand >= beta or plies >= QUIESCENCE_PLIES:
            return stand
        alpha = max(alpha, stand)
        for move in cells_with(board, me, Threat.BLOCK4_FLEX3, Threat.FLEX4):
            board.play(move)
            try:
                score = -self._quiesce(-beta, -alpha, ply + 1, plies + 1)
            finally:
                board.undo()
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
        return alpha
