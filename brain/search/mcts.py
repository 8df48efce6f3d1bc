"""PUCT Monte Carlo tree search guided by an evaluator, with tactical shortcuts and a
threat solver.

Each playout descends by PUCT (prior-weighted upper confidence), applying a virtual loss
so that a batch of playouts spreads over different leaves; the leaves are evaluated
together in one evaluator call. Values are stored per edge from the point of view of the
player choosing that edge.

Tactics the network must not have to learn are settled by the pattern core when a node
is created: a side that can make five has won; a side facing two fives has lost; a side
facing one five must block it; a side that can make an open four (legally) has won; a
side facing a live three may only defend it or play a four of its own. A small VCF
search at new nodes and a larger VCF/VCT search at the root prove more wins.

Defence at the root: when the opponent would have a VCF if we passed, only moves that
may stop it are searched; while the search runs, its leading move is checked against an
opponent VCT and dropped when one is found. Proven results propagate up the tree
(MCTS-solver), so a proven win is played at once and a proven loss is avoided while any
alternative exists.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import cython
import numpy as np

from brain.eval.evaluator import Evaluator
from brain.eval.heuristic import choose_move
from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.patterns import Threat
from brain.game.tactics import (
    four_cells,
    legal_mask,
    open_four_points,
    three_defences,
)
from brain.search.roottactics import (
    FIXED_SOLVER_NODES,
    choose_root_move,
    leader_settled,
    settled_win,
    vcf_defences,
)
from brain.search.searcher import SearchInfo
from brain.search.solver import Status, ThreatSolver

WIN, LOSS, UNKNOWN = 1, -1, 0
#: The cycle collector's first threshold while a search runs (Python's default is 700).
SEARCH_GC_THRESHOLD = 100_000
#: Memory a tree node holds, its share of the solver's tables included (measured: a
#: search of 50,000 nodes grew the process by 1,783 bytes a node, one of 100,000 by
#: 1,699).
NODE_BYTES = 1_800
#: Memory of the process besides the tree: interpreter, modules, network, line tables
#: (75 MiB measured after start), the solver's tables and some slack.
RESERVED_BYTES = 128 << 20
#: The fewest nodes a memory limit leaves the search, however small.
MIN_NODES = 2_000
#: Gomocup's memory limit for a brain and its children.
GOMOCUP_MEMORY_BYTES = 350 << 20
_FIVE, _FLEX4, _BLOCK4 = int(Threat.FIVE), int(Threat.FLEX4), int(Threat.BLOCK4)
_BLACK = cython.declare(cython.int, int(Color.BLACK))


@dataclass
class MctsConfig:
    """Search parameters. ``playouts`` fixes the budget (a reproducible search, as long
    as the deadline, which always applies, does not cut it short); otherwise the search
    runs until the deadline or until the best move cannot change."""

    c_puct: float = 1.6
    batch_size: int = 8
    virtual_loss: float = 1.0
    #: Children kept per node, by prior (tactical cells always kept).
    max_children: int = 36
    #: First-play urgency: unvisited children start at the parent's value minus this.
    fpu_reduction: float = 0.25
    #: Node budget of the VCF search run at each new node (0: none).
    leaf_vcf_nodes: int = 40
    #: Share of the move's time the root's VCF may use, and the VCT after it as much
    #: again. The wins they find are found fast: on positions of Rapfi's games the VCTs
    #: proven in 0.9 s moves took 11 ms in the median, and most searches that do not
    #: answer in a tenth of a second run out (docs/mcts.md).
    root_solver_share: float = 0.05
    #: Share of the move's time the search for the opponent's VCF (were we to pass) may
    #: use; when one is found, the root keeps only moves that may stop it.
    threat_share: float = 0.1
    #: Share of the move's time that checks of the most visited root move against an
    #: opponent VCT may use (0: no checks); each check may take half of what is left.
    #: The wins found took 4 ms in the median and at most 113 ms of a 0.9 s move.
    refute_share: float = 0.1
    #: Attacker moves of the VCT searches (ours at the root, the opponent's in the
    #: checks). A deep limit finds long wins sooner, the iterative deepening reaching
    #: them in fewer rounds: in 32 positions of arena games with a VCT, 16 found them all
    #: in about half the time 12 took and 70 % of the time 8 took, and it proved as
    #: many positions free of a VCT as 12.
    vct_attacks: int = 16
    #: Node budget of each check, and of the root search for the opponent's VCF, when
    #: ``playouts`` fixes the budget (reproducibility).
    refute_nodes: int = 3000
    #: Playouts before the first check, and between two looks at the leading move.
    refute_interval: int = 32
    playouts: int | None = None
    #: Upper bound on the tree's nodes (memory): :meth:`Mcts.limit_memory` sets it from
    #: the manager's limit; the default fits Gomocup's 350 MB.
    max_nodes: int = (GOMOCUP_MEMORY_BYTES - RESERVED_BYTES) // NODE_BYTES
    #: Dirichlet noise at the root for self-play (0: none).
    dirichlet_alpha: float = 0.0
    noise_fraction: float = 0.25
    seed: int = 0
    #: With a prior network (``Mcts(..., prior_net=...)``): the visits after which a
    #: node's candidates and priors are taken from that network (the root's at once).
    refine_visits: int = 16
    #: With a prior network: the playouts' worth of weight its value of a refined node
    #: gets, backed up along the path to it like a playout's result (0: only its priors
    #: are used). The network is run there anyway; its value, taught by a teacher's
    #: evaluations, is a better judge of quiet positions than the pattern model's.
    refine_value_visits: int = 0


#: Rows of a node's statistics array (:attr:`Node.stats`).
_MOVE = cython.declare(cython.int, 0)
_PRIOR = cython.declare(cython.int, 1)
_VISITS = cython.declare(cython.int, 2)
_VALUES = cython.declare(cython.int, 3)


@cython.cclass
class Node:
    """A position in the tree: its candidate moves and per-edge statistics.

    The statistics live in one float64 array, a column per edge, so that a node costs
    one array and, compiled, one typed view of it (the tree's memory is most of the
    brain's: four arrays and their views took 3.9 KB a node, this 2.3 KB); the
    playouts' loops read and update it in C instead of through numpy's item calls."""

    #: Rows: candidate cells (whole numbers, exact in float64), their priors, visit
    #: counts (virtual losses included while playouts are pending) and value sums.
    stats = cython.declare(object, visibility="readonly")
    children = cython.declare(list, visibility="public")
    proven = cython.declare(cython.int, visibility="public")
    total = cython.declare(cython.longlong, visibility="public")
    #: The moves are all a tactic allows (block a five, answer a live three) or all the
    #: root's defence keeps: refinement may not add others.
    forced = cython.declare(cython.bint, visibility="public")
    #: Whether the prior network has set the priors.
    refined = cython.declare(cython.bint, visibility="public")
    # The typed view of ``stats`` (declared, not annotated: this module's annotations
    # stay Python's).
    _stats_v = cython.declare(cython.double[:, ::1])

    def __init__(self, moves: np.ndarray, priors: np.ndarray, proven: int = UNKNOWN,
                 forced: bool = False) -> None:
        stats = np.zeros((4, len(moves)))
        stats[_MOVE] = moves
        stats[_PRIOR] = priors
        self._set_stats(stats)
        self.children = [None] * len(moves)
        self.proven = proven
        self.total = 0
        self.forced = forced
        self.refined = False

    @cython.cfunc
    def _set_stats(self, stats: np.ndarray) -> None:
        self.stats = stats
        self._stats_v = stats

    @property
    def moves(self) -> np.ndarray:
        """The candidate cells (int64, a copy)."""
        return self.stats[_MOVE].astype(np.int64)

    @property
    def priors(self) -> np.ndarray:
        """The priors (a view: writing to it changes the node)."""
        return self.stats[_PRIOR]

    @property
    def visits(self) -> np.ndarray:
        """Visit counts per edge (a view)."""
        return self.stats[_VISITS]

    @property
    def value_sum(self) -> np.ndarray:
        """Value sums per edge, for the player choosing the edge (a view)."""
        return self.stats[_VALUES]

    @cython.ccall
    def set_priors(self, priors: np.ndarray) -> None:
        """Replace the priors (one per move)."""
        self.stats[_PRIOR] = priors

    def widen(self, extra: np.ndarray) -> None:
        """Append the candidate moves ``extra``, unvisited (indices of existing moves,
        which pending playouts hold, do not change); the caller sets the priors."""
        stats = np.zeros((4, self.stats.shape[1] + len(extra)))
        stats[:, :self.stats.shape[1]] = self.stats
        stats[_MOVE, self.stats.shape[1]:] = extra
        self._set_stats(stats)
        self.children.extend([None] * len(extra))

    def restrict(self, keep: np.ndarray) -> None:
        """Drop the moves where ``keep`` is False, with their statistics."""
        self._set_stats(np.ascontiguousarray(self.stats[:, keep]))
        priors = self.stats[_PRIOR]
        priors /= priors.sum()
        self.children = [c for c, k in zip(self.children, keep.tolist(), strict=True) if k]
        self.total = int(self.visits.sum())
        self.forced = True

    def child_index(self, move: int) -> int:
        hits = np.flatnonzero(self.stats[_MOVE] == move)
        return int(hits[0]) if len(hits) else -1


class Mcts:
    """A tree search over one game; keeps its tree between moves of that game.

    ``evaluator`` values every new leaf and gives its first priors. ``prior_net``, if
    given, is a slower and better policy (the network): it re-ranks only the nodes the
    search comes back to (``refine_visits``), where most of the playouts go, so that
    the fast evaluator keeps the playout rate.
    """

    def __init__(self, evaluator: Evaluator, config: MctsConfig | None = None,
                 prior_net: Evaluator | None = None) -> None:
        self.evaluator = evaluator
        self.prior_net = prior_net
        self.config = config or MctsConfig()
        self.solver = ThreatSolver()
        self.info = SearchInfo(source="mcts")
        self._root: Node | None = None
        self._root_history: list[tuple[int, Color]] = []
        self._nodes = 0
        #: Boards reused for the leaves of a batch waiting for the evaluator.
        self._leaves: list[Board] = []
        #: The root noise's generator, made at the first noise: numpy.random alone holds
        #: 7 MB, and only self-play uses it.
        self._rng: np.random.Generator | None = None
        #: Called from the searching thread with :attr:`info` filled in so far, every
        #: :attr:`report_interval` seconds of playouts (a manager watching the search);
        #: ``None``: never, at no cost.
        self.reporter: Callable[[SearchInfo], None] | None = None
        self.report_interval = 0.25

    def limit_memory(self, max_bytes: int) -> None:
        """Bound the tree so that the process stays within ``max_bytes`` (the manager's
        limit; 0: none given, Gomocup's 350 MB is assumed): the search stops growing it
        at :attr:`MctsConfig.max_nodes` nodes, which this sets."""
        max_bytes = max_bytes if max_bytes > 0 else GOMOCUP_MEMORY_BYTES
        self.config.max_nodes = max(MIN_NODES, (max_bytes - RESERVED_BYTES) // NODE_BYTES)

    def reset(self) -> None:
        """Forget the tree and solver results (a new game)."""
        self._root = None
        self._root_history = []
        self._nodes = 0
        self.solver.clear()
        self._rng = None

    # -- public search -----------------------------------------------------------------

    def search(self, board: Board, deadline: float, stop: threading.Event | None = None,
               use_all: bool = False) -> int:
        """The move to play for ``board.to_move``; returns before ``deadline``. A timed
        search stops early once its most visited move can no longer be overtaken, unless
        ``use_all`` says the time saved would be lost (no game clock keeps it): then it
        thinks to the deadline, and only a single legal reply is answered at once."""
        # The search allocates many small objects (nodes, paths, solver entries) and
        # frees them without reference cycles: the collector's frequent passes over
        # them, and its full passes over the solver's tables, would only cost time (6 %
        # of the playout rate at the default threshold).
        threshold = gc.get_threshold()
        gc.set_threshold(max(threshold[0], SEARCH_GC_THRESHOLD), *threshold[1:])
        try:
            return self._search(board, deadline, stop, use_all)
        finally:
            gc.set_threshold(*threshold)

    def _search(self, board: Board, deadline: float, stop: threading.Event | None,
                use_all: bool) -> int:
        started = time.monotonic()
        stop = stop or threading.Event()
        self.info = SearchInfo(source="mcts")
        if not sum(board.stone_count):
            # The first stone goes in the centre. The network never saw an empty
            # freestyle board (those games start from opening stones) and ranks its
            # corners first.
            self.info.source = "opening"
            return board.index(board.width // 2, board.height // 2)
        forced = self._root_tactics(board, started, deadline)
        if forced is not None:
            self.info.seconds = time.monotonic() - started
            return forced
        root = self._reuse_or_new_root(board)
        self._restrict_to_defences(board, root, started, deadline)
        cleared = self._run_playouts(board, root, deadline, stop, started, use_all)
        move = self._choose(board, root, deadline, cleared)
        self._fill_info(board, root, started)
        return move

    def leader(self, board: Board) -> int | None:
        """The most visited root move of the search running (or last run) on ``board``,
        or None while its tree has no visit: the move of a search cut short. Safe to call
        from another thread while the search runs."""
        root = self._root
        if root is None or self._root_history != board.history or root.total == 0:
            return None
        return int(root.moves[int(np.argmax(root.visits))])

    def root_policy(self, board: Board) -> np.ndarray:
        """The last search's visit distribution over ``board``'s cells (zeros where the
        search did not go): the policy target of self-play."""
        policy = np.zeros(board.size)
        root = self._root
        if root is not None and root.total > 0 and self._root_history == board.history:
            policy[root.moves] = root.visits / root.visits.sum()
        return policy

    # -- root --------------------------------------------------------------------------

    def _root_tactics(self, board: Board, started: float, deadline: float) -> int | None:
        """A move settled without tree search: a five, or a proven threat-space win."""
        win = settled_win(board, self.solver, started, deadline, self.config.root_solver_share,
                          self.config.vct_attacks,
                          None if self.config.playouts is None else FIXED_SOLVER_NODES)
        if win is None:
            return None
        self.info.source, self.info.proven, self.info.winrate = win.source, WIN, 1.0
        if win.source == "solver":
            self.info.pv = [board.xy(cell) for cell in win.line]
        return win.move

    def _reuse_or_new_root(self, board: Board) -> Node:
        history = board.history
        old = self._root_history
        node = self._root
        if node is not None and len(history) >= len(old) and history[: len(old)] == old:
            for cell, _color in history[len(old):]:
                index = node.child_index(cell)
                child = node.children[index] if index >= 0 else None
                if child is None:
                    node = None
                    break
                node = child
        else:
            node = None
        if node is None:
            self._nodes = 0
            node = self._expand(board, None)
        else:
            # The rest of the old tree is freed: count what is kept, at most a node a
            # playout through the new root (the node limit bounds the memory held).
            self._nodes = min(self._nodes, node.total + 1)
        self._root = node
        self._root_history = list(history)
        if self.prior_net is not None and not node.refined:
            self._refine(board, node)
        if self.config.dirichlet_alpha > 0 and len(node.moves) > 1:
            if self._rng is None:
                self._rng = np.random.default_rng(self.config.seed)
            noise = self._rng.dirichlet([self.config.dirichlet_alpha] * len(node.moves))
            f = self.config.noise_fraction
            node.set_priors((1 - f) * node.priors + f * noise)
        return node

    def _restrict_to_defences(self, board: Board, root: Node, started: float,
                              deadline: float) -> None:
        """If the opponent, were it to move, would win by continuous fours (a VCF), keep
        only the root moves that may stop it (:func:`~brain.search.roottactics.vcf_defences`)."""
        if root.proven != UNKNOWN or len(root.moves) < 2 or self.config.threat_share <= 0:
            return
        fixed = self.config.playouts is not None
        until = min(deadline, time.monotonic()
                    + max(0.0, deadline - started) * self.config.threat_share)
        relevant = vcf_defences(board, self.solver, until,
                                self.config.refute_nodes if fixed else None)
        if relevant is None:
            return
        keep = np.isin(root.moves, np.fromiter(relevant, dtype=np.int64))
        if keep.any() and not keep.all():
            root.restrict(keep)

    # -- expansion ---------------------------------------------------------------------

    @cython.locals(board=Board, me=cython.int, them=cython.int)
    def _tactical(self, board: Board) -> tuple[int, np.ndarray | None]:
        """(proven, forced moves) from the pattern core for a new node's position."""
        me = int(board.to_move)
        them = 3 - me
        if board.is_full():
            return UNKNOWN, np.zeros(0, dtype=np.intp)
        if board.has_threat(me, _FIVE, _FIVE):
            return WIN, None
        their_fives = board.threat_cells(them, _FIVE, _FIVE)
        if len(their_fives) >= 2:
            return LOSS, None
        if len(their_fives) == 1:
            if me == _BLACK and is_forbidden(board, their_fives[0]):
                return LOSS, None
            return UNKNOWN, np.array(their_fives, dtype=np.intp)
        for cell in board.threat_cells(me, _FLEX4, _FLEX4):
            if me != _BLACK or not is_forbidden(board, cell):
                return WIN, None
        points = open_four_points(board, them)
        if points:
            # A live three: only a real defence or a four of our own can stop the
            # straight four; with neither the position is lost.
            fours = four_cells(board, me)
            answers = fours + [c for c in three_defences(board, them, points)
                               if c not in fours]
            if not answers:
                return LOSS, None
            return UNKNOWN, np.array(answers, dtype=np.int64)
        return UNKNOWN, None

    def _expand(self, board: Board, policy: np.ndarray | None,
                tactics: tuple[int, np.ndarray | None] | None = None) -> Node:
        """A node for ``board``. ``policy`` is the evaluator's output for it (None: ask
        the evaluator if the node needs priors); ``tactics`` is :meth:`_tactical`'s
        answer if already known."""
        self._nodes += 1
        if board.is_full():
            return Node(np.zeros(0, dtype=np.int64), np.zeros(0))
        proven, forced = tactics if tactics is not None else self._tactical(board)
        if proven != UNKNOWN:
            return Node(np.zeros(0, dtype=np.int64), np.zeros(0), proven=proven)
        if forced is not None and len(forced) == 1:
            return Node(forced.astype(np.int64), np.ones(1), forced=True)
        if policy is None:
            policy = self.evaluator.evaluate([board])[0][0]
        if forced is not None:
            return self._with_leaf_vcf(board, Node(forced, _priors(policy, forced, 1e-3),
                                                   forced=True))
        moves = self._candidates(board, policy)
        return self._with_leaf_vcf(board, Node(moves, _priors(policy, moves, 1e-6)))

    def _candidates(self, board: Board, policy: np.ndarray) -> np.ndarray:
        """The moves a node searches: the ``max_children`` best by ``policy`` and the
        tactical cells (our fours, blocks of the opponent's fours), renju fouls out."""
        me = board.to_move
        if cython.compiled:
            # The network's policy is float32: widening keeps its order and its ties.
            moves = _best_and_tactical(np.ascontiguousarray(policy, dtype=np.float64),
                                       board, int(me), self.config.max_children)
        else:  # numpy's calls beat a Python loop; the same cells, in the same order
            empty = board.empty_cells()
            k = min(self.config.max_children, len(empty))
            keep = empty[np.argsort(-policy[empty], kind="stable")[:k]]
            tactical = empty[(board.threats[me][empty] >= _BLOCK4)
                             | (board.threats[me.opponent][empty] >= _FLEX4)]
            moves = np.unique(np.concatenate([keep, tactical]))
        if me is Color.BLACK and board.black_fouls:
            legal = legal_mask(board, me, moves)
            if legal.any():
                moves = moves[legal]
        return moves.astype(np.int64, copy=False)

    def _refine(self, board: Board, node: Node) -> float | None:
        """Take ``node``'s priors, and unless its moves are forced its best candidates
        too, from the prior network; ``board`` is the node's position. Returns the
        network's value of it for its side to move (None: the network was not run)."""
        node.refined = True
        if self.prior_net is None or node.proven != UNKNOWN or len(node.moves) < 2:
            return None
        policies, values = self.prior_net.evaluate([board])
        policy = policies[0]
        if not node.forced:
            extra = np.setdiff1d(self._candidates(board, policy), node.moves)
            if len(extra):
                node.widen(extra)
        node.set_priors(_priors(policy, node.moves, 1e-3 if node.forced else 1e-6))
        return float(values[0])

    def _with_leaf_vcf(self, board: Board, node: Node) -> Node:
        """``node``, marked won when a small VCF search proves it."""
        # A VCF opens with a four: without a four-making cell there is none to search.
        if self.config.leaf_vcf_nodes and board.has_threat(board.to_move, _BLOCK4, _FIVE):
            result = self.solver.vcf(board, max_attacks=6, max_nodes=self.config.leaf_vcf_nodes,
                                     shortest=False)
            if result.status is Status.WIN:
                node.proven = WIN
        return node

    # -- playouts ----------------------------------------------------------------------

    def _run_playouts(self, board: Board, root: Node, deadline: float,
                      stop: threading.Event, started: float, use_all: bool) -> set[int]:
        """Playouts until the budget is spent or the result is settled; returns the root
        indices the refutation checks cleared."""
        config = self.config
        depths: list[int] = []
        playouts = 0
        self._leaves = []  # kept for this search's board only (its size and rule)
        refuter = _Refuter(self, board, root, config.refute_share * max(0.0, deadline - started))
        # The playout rate that values the time left counts only the playouts' own time:
        # with the root's threat searches (up to 40 % of the move) or the checks in it, a
        # reused tree's leader looked unbeatable after one batch and the search stopped
        # at a few playouts (a third of the moves of fast games).
        since = time.monotonic()
        next_report = since + self.report_interval
        while root.proven == UNKNOWN and len(root.moves) > 0:
            if config.playouts is not None and playouts >= config.playouts:
                break
            if time.monotonic() >= deadline or stop.is_set():
                break
            if self._nodes >= config.max_nodes:
                break
            batch = self._gather(board, root, depths)
            playouts += max(1, len(batch))
            self._evaluate_batch(batch)
            if playouts >= refuter.next_check:
                refuter.check(playouts, deadline)
            if self.reporter is not None and time.monotonic() >= next_report:
                self._report(board, root, started, playouts, depths)
                next_report = time.monotonic() + self.report_interval
            if (config.playouts is None and self._decided(
                    root, deadline, time.monotonic() - since - refuter.spent, playouts, use_all)
                    and not refuter.check(playouts, deadline, final=True)):
                break
        self._count(playouts, depths)
        return refuter.cleared

    def _count(self, playouts: int, depths: list[int]) -> None:
        self.info.playouts = playouts
        if depths:
            self.info.max_depth = max(depths)
            self.info.mean_depth = sum(depths) / len(depths)

    def _report(self, board: Board, root: Node, started: float, playouts: int,
                depths: list[int]) -> None:
        """Fill :attr:`info` with the search so far and hand it to :attr:`reporter`."""
        assert self.reporter is not None
        self._count(playouts, depths)
        self._fill_info(board, root, started)
        self.reporter(self.info)

    @cython.locals(board=Board, node=Node, child=Node, index=cython.Py_ssize_t,
                   value=cython.double, vl=cython.double, leaf_value=cython.double,
                   fpu_reduction=cython.double, c_puct=cython.double,
                   refine_visits=cython.longlong, move=cython.int, depth=cython.Py_ssize_t)
    def _gather(self, board: Board, root: Node, depths: list[int]) -> list[tuple]:
        """Descend up to ``batch_size`` times; returns leaves waiting for evaluation.

        The board is not taken back to the root between descents: ``line`` holds the
        moves on it beyond the root, and a descent that follows the same first moves
        as the one before plays only where the two part (make/unmake was a quarter of
        a playout's time, and successive descents share most of their first moves).
        It is brought to a node's exact position where it is read: a refinement, the
        leaf. At the end it is the root's position again.
        """
        config = self.config
        vl = config.virtual_loss
        fpu_reduction, c_puct = config.fpu_reduction, config.c_puct
        refine = self.prior_net is not None
        refine_visits = config.refine_visits
        batch: list[tuple] = []
        pending: set[tuple[int, int]] = set()
        line: list[int] = []
        for _ in range(config.batch_size):
            path: list[tuple[Node, int]] = []
            node = root
            value = 0.0
            while True:
                if node.proven != UNKNOWN:
                    leaf_value = node.proven
                    break
                if node._stats_v.shape[1] == 0:
                    leaf_value = 0.0  # full board: a draw
                    break
                if refine and not node.refined and node.total >= refine_visits:
                    _retreat(board, line, len(path))
                    node_value = self._refine(board, node)
                    if node_value is not None and path and config.refine_value_visits:
                        _back_up_value(path, node_value, config.refine_value_visits)
                index = _select(node, value - fpu_reduction, c_puct)
                move = cython.cast(cython.int, node._stats_v[_MOVE, index])
                depth = len(path)
                if depth >= len(line) or line[depth] != move:
                    _retreat(board, line, depth)
                    board.play(move)
                    line.append(move)
                path.append((node, index))
                node._stats_v[_VISITS, index] += vl
                node._stats_v[_VALUES, index] -= vl
                child = node.children[index]
                if child is None:
                    leaf_value = math.nan
                    break
                value = -(node._stats_v[_VALUES, index] / node._stats_v[_VISITS, index])
                node = child
            depths.append(len(path))
            _retreat(board, line, len(path))
            if math.isnan(leaf_value):
                key = (id(path[-1][0]), path[-1][1])
                if key in pending:
                    _backup(path, vl, False, 0.0)  # a collision: undo its virtual loss
                    break
                pending.add(key)
                tactics = self._tactical(board)
                if tactics[0] != UNKNOWN or board.is_full():
                    parent, index = path[-1]
                    parent.children[index] = self._expand(board, None, tactics)
                    _backup(path, vl, True, float(tactics[0]))
                else:
                    batch.append((path, self._leaf_board(len(batch), board), tactics))
            else:
                _backup(path, vl, True, leaf_value)
        _retreat(board, line, 0)
        return batch

    def _leaf_board(self, n: int, board: Board) -> Board:
        """The ``n``-th waiting leaf of a batch: a copy of ``board`` in one of the boards
        kept for leaves (a fresh copy cost about a tenth of a playout)."""
        if n == len(self._leaves):
            self._leaves.append(board.copy())
        else:
            self._leaves[n].set_to(board)
        return self._leaves[n]

    def _evaluate_batch(self, batch: list[tuple]) -> None:
        if not batch:
            return
        policy, values = self.evaluator.evaluate([leaf for _, leaf, _ in batch])
        for n, (path, leaf, tactics) in enumerate(batch):
            parent, index = path[-1]
            child = self._expand(leaf, policy[n], tactics)
            parent.children[index] = child
            value = float(child.proven) if child.proven != UNKNOWN else float(values[n])
            _backup(path, self.config.virtual_loss, True, value)

    def _decided(self, root: Node, deadline: float, seconds: float, playouts: int,
                 use_all: bool) -> bool:
        """Whether the search may stop: a single move, or (unless ``use_all``) the most
        visited move can no longer be overtaken before the deadline
        (:func:`~brain.search.roottactics.leader_settled`)."""
        if len(root.moves) < 2:
            return True
        return not use_all and leader_settled(root.visits, playouts, seconds, deadline)

    # -- result ------------------------------------------------------------------------

    def _choose(self, board: Board, root: Node, deadline: float, cleared: set[int]) -> int:
        """The move of :func:`~brain.search.roottactics.choose_root_move` (``cleared``:
        root indices a refutation check proved free of any opponent VCT)."""
        if len(root.moves) == 0 or root.total == 0:
            # Settled without candidates (two fives against us), or stopped before any
            # playout: the one-ply choice is the best informed move there is.
            return choose_move(board)
        order = np.argsort(-root.visits, kind="stable")
        outcomes = []
        for i in order:
            child = root.children[i]
            proven = child.proven if child is not None else UNKNOWN
            outcomes.append(1 if proven == LOSS else -1 if proven == WIN else 0)
        move, outcome = choose_root_move(board, self.solver, [int(root.moves[i]) for i in order],
                                         outcomes, deadline, {int(root.moves[i]) for i in cleared})
        if outcome:
            self.info.proven = WIN if outcome > 0 else LOSS
        return move

    def _fill_info(self, board: Board, root: Node, started: float) -> None:
        info = self.info
        info.seconds = time.monotonic() - started
        info.nodes = self._nodes
        if root.total:
            best = int(np.argmax(root.visits))
            q = root.value_sum[best] / max(root.visits[best], 1)
            info.winrate = (q + 1) / 2
        if root.proven != UNKNOWN:
            info.proven = root.proven
        pv: list[tuple[int, int]] = []
        node: Node | None = root
        while node is not None and len(node.moves) and node.total:
            best = int(np.argmax(node.visits))
            pv.append(board.xy(int(node.moves[best])))
            node = node.children[best]
        info.pv = pv
        info.candidates = []
        for i in np.argsort(-root.visits, kind="stable").tolist():
            visits = int(root.visits[i])
            rate = (root.value_sum[i] / visits + 1) / 2 if visits else None
            info.candidates.append((board.xy(int(root.moves[i])), visits,
                                    None if rate is None else float(rate),
                                    float(root.priors[i])))


class _Refuter:
    """Checks the most visited root move against a threat-space win for the opponent
    (a VCT, fours and threes), marking it lost when one is found.

    The tree alone sees such wins late: each defence looks plausible to the evaluator
    until the attack is many plies deep. Each move is checked once per search, within
    a node budget, and all checks together within a share of the move's time; a check
    that ran out of time is tried again, with all the time left, before the search stops
    early on that move (a move that deep threat searches cannot clear is worth the rest
    of the budget: the time would otherwise be saved for moves that may not need it).
    """

    def __init__(self, search: Mcts, board: Board, root: Node, seconds: float) -> None:
        self.search, self.board, self.root = search, board, root
        #: The checks' share of the move, and the seconds they took so far.
        self.share = seconds
        self.spent = 0.0
        self.checked: set[int] = set()
        #: Root indices whose check ran out of time (neither lost nor cleared).
        self.undecided: set[int] = set()
        #: Root indices proved free of an opponent VCT.
        self.cleared: set[int] = set()
        self.next_check = search.config.refute_interval

    @property
    def seconds_left(self) -> float:
        return self.share - self.spent

    def check(self, playouts: int, deadline: float, final: bool = False) -> bool:
        """Check the leading root move if not done yet (``final``: also if an earlier
        check of it ran out of time, now with every second left to ``deadline``);
        whether it was found lost."""
        config = self.search.config
        self.next_check = playouts + config.refute_interval
        fixed = config.playouts is not None
        if config.refute_share <= 0 or (self.seconds_left <= 0 and not fixed and not final):
            return False
        root = self.root
        playable = sum(child is None or child.proven != WIN for child in root.children)
        if playable < 2:
            return False  # no other move to turn to: a check would only spend time
        for index in np.argsort(-root.visits, kind="stable").tolist():
            child = root.children[index]
            if child is None or child.proven != UNKNOWN:
                continue
            if index in self.checked and not (final and index in self.undecided):
                return False  # the leading move is already cleared
            break
        else:
            return False
        self.checked.add(index)
        self.undecided.discard(index)
        started = time.monotonic()
        # A fixed playout budget means a reproducible search: nodes, not the clock, bound
        # the check (the move's deadline still applies).
        until = deadline if fixed or final else min(deadline, started + self.seconds_left / 2)
        self.board.play(int(root.moves[index]))
        result = self.search.solver.vct(self.board, max_attacks=config.vct_attacks,
                                        deadline=until,
                                        max_nodes=config.refute_nodes if fixed else None)
        self.board.undo()
        self.spent += time.monotonic() - started
        if result.status is Status.NO_WIN:
            self.cleared.add(index)
        elif result.status is Status.UNKNOWN:
            self.undecided.add(index)
        if result.status is not Status.WIN:
            return False
        child.proven = WIN
        _update_proof(root)
        return True


@cython.cfunc
@cython.locals(board=Board, depth=cython.Py_ssize_t)
def _retreat(board: Board, line: list, depth: int) -> None:
    """Take back the moves of ``line`` (those on ``board`` beyond the root) past its
    first ``depth``."""
    while len(line) > depth:
        board.undo()
        line.pop()


@cython.cfunc
@cython.returns(cython.Py_ssize_t)
@cython.locals(node=Node, fpu=cython.double, c_puct=cython.double, child=Node,
               children=list, root_total=cython.double, best=cython.Py_ssize_t,
               best_score=cython.double, i=cython.Py_ssize_t, score=cython.double,
               visits=cython.double)
def _select(node: Node, fpu: float, c_puct: float) -> int:
    """The edge of ``node`` a playout takes by PUCT; ``fpu`` is the value of an unvisited
    edge. A typed loop compiled; the arithmetic is numpy's, in its order."""
    if node.proven != UNKNOWN:
        raise AssertionError("a proven node has no selection")
    children = node.children
    root_total = math.sqrt(max(node.total, 1))
    best = 0
    best_score = -math.inf
    for i in range(len(children)):
        child = children[i]
        if child is not None and child.proven != UNKNOWN:
            # A child lost for its mover is our win; a child won for it is our loss.
            score = math.inf if child.proven == LOSS else -math.inf
        else:
            visits = node._stats_v[_VISITS, i]
            score = ((node._stats_v[_VALUES, i] / visits if visits > 0 else fpu)
                     + c_puct * node._stats_v[_PRIOR, i] * root_total / (1 + visits))
        if score > best_score:
            best, best_score = i, score
    return best


@cython.cfunc
@cython.locals(path=list, vl=cython.double, counted=cython.bint, value=cython.double,
               node=Node, child=Node, index=cython.Py_ssize_t, n=cython.Py_ssize_t)
def _backup(path: list, vl: float, counted: bool, value: float) -> None:
    """Remove a playout's virtual loss along ``path`` and, if ``counted``, add its result
    ``value`` (for the side to move at the end of ``path``)."""
    for n in range(len(path) - 1, -1, -1):
        node, index = path[n]
        node._stats_v[_VISITS, index] -= vl
        node._stats_v[_VALUES, index] += vl
        if counted:
            value = -value  # the edge's value for the player who chose it
            node._stats_v[_VISITS, index] += 1
            node._stats_v[_VALUES, index] += value
            node.total += 1
        # A node's proof changes only when a child of it is proven, and children are
        # proven on a playout's path (or by the refuter, which updates the root): only
        # a proven child on this path calls for the scan of all children.
        child = node.children[index]
        if child is not None and child.proven != UNKNOWN:
            _update_proof(node)


@cython.locals(path=list, value=cython.double, visits=cython.longlong, node=Node,
               index=cython.Py_ssize_t, n=cython.Py_ssize_t)
def _back_up_value(path: list, value: float, visits: int) -> None:
    """Count ``value`` (for the side to move at the end of ``path``) ``visits`` times on
    every edge of ``path``, as that many playouts ending there would; the virtual loss
    of the playout under way stays as it is."""
    for n in range(len(path) - 1, -1, -1):
        node, index = path[n]
        value = -value
        node._stats_v[_VISITS, index] += visits
        node._stats_v[_VALUES, index] += visits * value
        node.total += visits


@cython.cfunc
@cython.locals(node=Node, child=Node, children=list, i=cython.Py_ssize_t,
               all_won_for_them=cython.bint)
def _update_proof(node: Node) -> None:
    """Mark ``node`` won when a child is lost for its mover, lost when every child is won
    for its mover (MCTS-solver)."""
    if node.proven != UNKNOWN:
        return
    children = node.children
    all_won_for_them = len(children) > 0
    for i in range(len(children)):
        child = children[i]
        if child is not None and child.proven == LOSS:
            node.proven = WIN
            return
        if child is None or child.proven != WIN:
            all_won_for_them = False
    if all_won_for_them:
        node.proven = LOSS


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(board=Board, policy_v=cython.double[::1], me=cython.int, limit=cython.int,
               size=cython.Py_ssize_t, q=cython.Py_ssize_t, n=cython.int, i=cython.int,
               value=cython.double, them=cython.int, count=cython.int, four=cython.int,
               open_four=cython.int)
def _best_and_tactical(policy: np.ndarray, board: Board, me: int, limit: int) -> np.ndarray:
    """Ascending cells: the ``limit`` empty cells of highest ``policy`` (ties: the lower
    cell, as a stable sort of the empty cells by falling policy gives), and every empty
    cell where ``me`` makes a four or the opponent an open four or a five. Compiled only:
    one pass keeping the best in insertion order, instead of a sort and five numpy calls
    (50 µs a node on 15x15); the board is read through its own typed views and the
    scratch lives on the C stack (22 x 22 = 484 cells at most)."""
    policy_v = policy
    cells_v = board._cells_v
    threats_v = board._threats_v
    them = 3 - me
    four, open_four = _BLOCK4, _FLEX4
    size = board.size
    limit = min(limit, size)
    best = cython.declare(cython.Py_ssize_t[484])
    chosen = cython.declare(cython.uchar[484])
    n = 0
    for q in range(size):
        chosen[q] = 0
        if cells_v[q] != 0:
            continue
        value = policy_v[q]
        if n == limit and (limit == 0 or value <= policy_v[best[n - 1]]):
            continue  # not above the worst kept (an equal value came earlier)
        i = n if n < limit else n - 1
        while i > 0 and policy_v[best[i - 1]] < value:
            best[i] = best[i - 1]
            i -= 1
        best[i] = q
        if n < limit:
            n += 1
    for i in range(n):
        chosen[best[i]] = 1
    count = 0
    for q in range(size):
        if cells_v[q] == 0 and (threats_v[me * size + q] >= four
                                or threats_v[them * size + q] >= open_four):
            chosen[q] = 1
        count += chosen[q]
    out = np.empty(count, dtype=np.int64)
    out_v = cython.declare(cython.longlong[::1], out)
    i = 0
    for q in range(size):
        if chosen[q]:
            out_v[i] = q
            i += 1
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.locals(floor=cython.double, i=cython.Py_ssize_t, total=cython.double)
def _priors(policy: np.ndarray, moves: np.ndarray, floor: float) -> np.ndarray:
    """``policy`` over ``moves`` plus ``floor`` (no move is ever ruled out), normalised by
    their sum taken in order (numpy's ``cumsum``; a reduction's pairwise sum would cost
    a numpy call a node compiled). Compiled, two typed loops."""
    if not cython.compiled:
        priors = policy[moves].astype(np.float64) + floor
        return priors / priors.cumsum()[-1]
    # float32 widens exactly, as astype does.
    policy_v = cython.declare(cython.double[::1], np.ascontiguousarray(policy, np.float64))
    moves_v = cython.declare(cython.longlong[::1], moves)
    out = np.empty(len(moves), dtype=np.float64)
    out_v = cython.declare(cython.double[::1], out)
    total = 0.0
    for i in range(len(moves)):
        out_v[i] = policy_v[moves_v[i]] + floor
        total += out_v[i]
    for i in range(len(moves)):
        out_v[i] /= total
    return out
