"""The tree search of the line-pattern network: the root's threat searches
(:mod:`brain.search.roottactics`), then the compiled playouts (:mod:`brain.search.playout`)
until the deadline, and the move with its report (:class:`~brain.search.searcher.SearchInfo`).

The tree's arrays are allocated once per board shape and sized from the manager's
memory limit. A move's search goes on from the last one's tree where the position is one
of its nodes (the moves played since, ours and the opponent's, were searched there): that
subtree becomes the tree, its playouts kept; otherwise the tree is built anew. The
playouts run in slices of :data:`SLICE` between looks at the clock, the stop flag and a
watching manager.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from brain.eval.heuristic import choose_move
from brain.eval.linenet import LineNet
from brain.game.board import Board, Color
from brain.search.playout import LOSS, WIN, Playouts, Tree, dirichlet_noise, restrict_root
from brain.search.roottactics import (
    FIXED_SOLVER_NODES,
    choose_root_move,
    leader_settled,
    settled_win,
    vcf_defences,
)
from brain.search.searcher import SearchInfo
from brain.search.solver import Status, ThreatSolver

#: Playouts between two looks at the clock.
SLICE = 128
#: Gomocup's memory limit for a brain and its children.
GOMOCUP_MEMORY_BYTES = 350 << 20
#: Memory of the process besides the tree: interpreter, modules, the network's tables,
#: the threat solver's tables and some slack (bench/bench_footprint.py).
RESERVED_BYTES = 160 << 20
#: The smallest tree the search makes, whatever the limit.
MIN_TREE_BYTES = 8 << 20
#: The threat solver's full table (its 200,000 entries, part of ``RESERVED_BYTES``), and
#: the fewest entries it keeps under a limit too low for the reserve (measured: about
#: 35 MiB at 190,000 entries, docs/brain.md).
SOLVER_TABLE_BYTES = 36 << 20
SOLVER_FULL_ENTRIES = 200_000
SOLVER_MIN_ENTRIES = 5_000


def solver_entries(limit: int) -> int:
    """The threat solver's table size under a memory limit of ``limit`` bytes: in full
    while the reserve and the smallest tree fit, less by what they overrun (at least
    :data:`SOLVER_MIN_ENTRIES`). The table is the one part of the reserve the search can
    give up: its results are found again, slower."""
    overrun = RESERVED_BYTES + MIN_TREE_BYTES - limit
    if overrun <= 0:
        return SOLVER_FULL_ENTRIES
    kept = max(SOLVER_TABLE_BYTES - overrun, 0) * SOLVER_FULL_ENTRIES // SOLVER_TABLE_BYTES
    return max(SOLVER_MIN_ENTRIES, kept)


@dataclass
class LineSearchConfig:
    """Search parameters. ``playouts`` fixes the budget (reproducible, unless the
    deadline cuts it short)."""

    c_puct: float = 1.8
    #: A move not yet searched is valued at its node's mean less this (0.1 against 0.2:
    #: +11.2 ± 6.8 points against PentaZen over 240 paired games, docs/performance.md).
    fpu_reduction: float = 0.1
    #: Moves a new node keeps, the network's best (40 against 24: +8.8 ± 5.3 points
    #: against PentaZen, docs/performance.md).
    max_children: int = 40
    #: Share of the move's time the root's VCF may use, and its VCT as much again.
    root_solver_share: float = 0.05
    #: Share of the move's time the search for the opponent's VCF (were we to pass) may use.
    threat_share: float = 0.1
    vct_attacks: int = 16
    playouts: int | None = None
    #: Node budget of the root's VCF, and of its VCT, with a fixed playout budget.
    solver_nodes: int = FIXED_SOLVER_NODES
    #: Node budget of the opponent-VCF search and of each leader check with a fixed
    #: playout budget.
    threat_nodes: int = 3000
    #: Share of the move's time that checks of the most visited root move against an
    #: opponent VCT may use (0: none); each check may take half of what is left.
    refute_share: float = 0.1
    tree_bytes: int = GOMOCUP_MEMORY_BYTES - RESERVED_BYTES
    dirichlet_alpha: float = 0.0
    noise_fraction: float = 0.25
    seed: int = 0
    #: Go on from the last search's subtree of the position, where it has one.
    reuse_tree: bool = True


class LineSearch:
    """One game's searches (see the module docstring)."""

    def __init__(self, net: LineNet, config: LineSearchConfig | None = None) -> None:
        self.net = net
        self.config = config or LineSearchConfig()
        self.solver = ThreatSolver()
        self.info = SearchInfo()
        self.reporter: Callable[[SearchInfo], None] | None = None
        self.report_interval = 0.25
        self._tree: Tree | None = None
        self._playouts: Playouts | None = None
        self._shape: tuple[int, int, int] | None = None
        self._history: list = []
        #: The root noise's random stream (made from ``config.seed`` when first needed;
        #: self-play gives each game its own).
        self.rng: np.random.Generator | None = None
        self._root_board: Board | None = None
        #: The history and side to move of the tree's root (None: no tree to go on from).
        self._tree_root: tuple[list, Color] | None = None

    def limit_memory(self, max_bytes: int) -> None:
        """Size the tree so that the process stays within ``max_bytes`` (0: Gomocup's
        350 MB), and under a limit that leaves the tree no more than its floor, the threat
        solver's table from what is left of the reserve (:func:`solver_entries`); takes
        effect at the next move."""
        limit = max_bytes if max_bytes > 0 else GOMOCUP_MEMORY_BYTES
        tree_bytes = max(MIN_TREE_BYTES, limit - RESERVED_BYTES)
        self.solver.max_entries = solver_entries(limit)
        if tree_bytes != self.config.tree_bytes:
            self.config.tree_bytes = tree_bytes
            self._tree = None

    def reset(self) -> None:
        """A new game: forget the solver's results."""
        self.solver.clear()
        self._history = []
        self._tree_root = None

    def _playouts_for(self, board: Board) -> Playouts:
        shape = (board.width, board.height, int(board.rule))
        if self._tree is None:
            self._tree = Tree.for_memory(self.config.tree_bytes, self.config.max_children)
            self._playouts = None
        if self._playouts is None or self._shape != shape:
            self._playouts = Playouts(board.copy(), self.net, self._tree, self.config.c_puct,
                                      self.config.fpu_reduction, self.config.max_children)
            self._shape = shape
            self._tree_root = None
        else:
            self._playouts.board.set_to(board)
        return self._playouts

    def search(self, board: Board, deadline: float, stop: threading.Event | None = None,
               use_all: bool = False) -> int:
        """The move to play for ``board.to_move``, before ``deadline``; with a game clock
        (``use_all`` false) the search stops once its most visited move can no longer be
        overtaken."""
        started = time.monotonic()
        stop = stop or threading.Event()
        self.info = SearchInfo(source="mcts")
        self._history = []  # the tree is this position's only once its playouts start
        if not sum(board.stone_count):
            self.info.source = "opening"
            return board.index(board.width // 2, board.height // 2)
        config = self.config
        fixed = config.playouts is not None
        win = settled_win(board, self.solver, started, deadline, config.root_solver_share,
                          config.vct_attacks, config.solver_nodes if fixed else None)
        if win is not None:
            self.info.source, self.info.proven, self.info.winrate = win.source, WIN, 1.0
            self.info.pv = [board.xy(cell) for cell in win.line]
            self.info.seconds = time.monotonic() - started
            return win.move
        playouts = self._playouts_for(board)
        tree = playouts.tree
        kept = self._keep_subtree(board, playouts)
        if not kept:
            playouts.start()
        self._history = list(board.history)
        self._tree_root = (self._history, board.to_move)
        self._root_board = board
        if tree.count[0] >= 2 and tree.proven[0] == 0 and config.threat_share > 0:
            until = min(deadline, time.monotonic()
                        + max(0.0, deadline - started) * config.threat_share)
            keep = vcf_defences(board, self.solver, until,
                                config.threat_nodes if fixed else None)
            if keep is not None:
                if kept:  # the root's moves are cut on a tree of the root alone
                    playouts.start()
                restrict_root(tree, keep)
        self.info.kept_visits = int(tree.visits[0])  # a new tree's root has none
        if config.dirichlet_alpha > 0:
            if self.rng is None:
                self.rng = np.random.default_rng(config.seed)
            dirichlet_noise(tree, self.rng, config.dirichlet_alpha, config.noise_fraction)
        done = self._run(playouts, deadline, stop, started, use_all)
        move = self._choose(board, tree, deadline)
        self._fill_info(board, playouts, started, done)
        return move

    def _keep_subtree(self, board: Board, playouts: Playouts) -> bool:
        """Whether the tree of the last search holds ``board``'s position below its root
        (the moves since were played there, by the sides whose turns they were, and the
        node is neither settled nor a leaf): then that node's subtree becomes the tree."""
        root, self._tree_root = self._tree_root, None
        if not self.config.reuse_tree or root is None:
            return False
        history, to_move = root
        tree = playouts.tree
        if len(board.history) < len(history) or board.history[:len(history)] != history:
            return False
        node = 0
        for cell, color in board.history[len(history):]:
            if color != to_move or node < 0:
                return False
            node = tree.child_by_move(node, cell)
            to_move = to_move.opponent
        if (node < 0 or to_move != board.to_move or tree.proven[node] != 0
                or tree.count[node] == 0):
            return False
        tree.keep_subtree(node)
        playouts.resume()
        return True

    def _run(self, playouts: Playouts, deadline: float, stop: threading.Event,
             started: float, use_all: bool) -> int:
        config = self.config
        done = 0
        # The playouts' rate is measured from here, past the root's threat searches.
        began = time.monotonic()
        next_report = started + self.report_interval
        checks = _LeaderChecks(self.solver, playouts.tree, config,
                               max(0.0, deadline - started) * config.refute_share)
        try:
            while not stop.is_set():
                now = time.monotonic()
                if now >= deadline:
                    break
                if config.playouts is not None and done >= config.playouts:
                    break
                count = SLICE if config.playouts is None else min(SLICE, config.playouts - done)
                ran = playouts.run(count)
                done += ran
                if ran < count:
                    break  # the root is settled or the tree is full
                checks.check(self._root_board, deadline)
                edges = playouts.tree.root_edges()
                if not use_all and config.playouts is None and leader_settled(
                        playouts.tree.edge_visits[edges.start:edges.stop], done,
                        now - began, deadline):
                    break
                if self.reporter is not None and now >= next_report:
                    self._fill_info(playouts.board, playouts, started, done)
                    self.reporter(self.info)
                    next_report = now + self.report_interval
        finally:
            playouts.rewind()
        return done

    def _choose(self, board: Board, tree: Tree, deadline: float) -> int:
        """The move of :func:`~brain.search.roottactics.choose_root_move`."""
        edges = tree.root_edges()
        if len(edges) == 0 or tree.visits[0] == 0:
            return choose_move(board)
        order = sorted(edges, key=lambda e: -tree.edge_visits[e])
        outcomes = []
        for e in order:
            child = int(tree.child[e])
            proven = tree.proven[child] if child >= 0 else 0
            outcomes.append(1 if proven == LOSS else -1 if proven == WIN else 0)
        move, outcome = choose_root_move(board, self.solver, [int(tree.move[e]) for e in order],
                                         outcomes, deadline)
        if outcome:
            self.info.proven = WIN if outcome > 0 else LOSS
        return move

    def leader(self, board: Board) -> int | None:
        """The most visited root move of the search of ``board`` (running or last run)."""
        tree = self._tree
        if tree is None or tree.nodes == 0 or self._history != board.history:
            return None
        edges = tree.root_edges()
        if len(edges) == 0:
            return None
        best = max(edges, key=lambda e: tree.edge_visits[e])
        return int(tree.move[best]) if tree.edge_visits[best] else None

    def root_policy(self, board: Board) -> np.ndarray:
        """The last search's visit distribution over the cells (the self-play target)."""
        policy = np.zeros(board.size)
        tree = self._tree
        if tree is not None and tree.nodes and self._history == board.history:
            edges = tree.root_edges()
            visits = tree.edge_visits[edges.start:edges.stop].astype(np.float64)
            if visits.sum() > 0:
                policy[tree.move[edges.start:edges.stop]] = visits / visits.sum()
        return policy

    def _fill_info(self, board: Board, playouts: Playouts, started: float,
                   done: int) -> None:
        info = self.info
        tree = playouts.tree
        info.seconds = time.monotonic() - started
        info.playouts = done
        info.nodes = tree.nodes
        info.mean_depth = playouts.depth_sum / done if done else 0.0
        info.max_depth = playouts.max_depth
        if tree.proven[0] != 0:
            info.proven = int(tree.proven[0])
        edges = tree.root_edges()
        order = sorted(edges, key=lambda e: -tree.edge_visits[e])
        info.candidates = []
        for e in order:
            visits = int(tree.edge_visits[e])
            rate = (tree.edge_total[e] / visits + 1) / 2 if visits else None
            info.candidates.append((board.xy(int(tree.move[e])), visits, rate,
                                    float(tree.prior[e])))
        if order and tree.edge_visits[order[0]]:
            info.winrate = info.candidates[0][2]
        info.pv = [board.xy(cell) for cell in playouts.principal_variation()]


class _LeaderChecks:
    """Checks the most visited root move against a threat-space win of the opponent (a
    VCT), once per move, within ``seconds`` in all; a refuted move's node is marked won
    for the opponent, so that the playouts leave it.

    The playouts see such wins late: every defence looks playable to the network until
    the attack is many plies deep."""

    def __init__(self, solver: ThreatSolver, tree: Tree, config: LineSearchConfig,
                 seconds: float) -> None:
        self.solver, self.tree, self.config = solver, tree, config
        self.seconds = seconds
        self.spent = 0.0
        self.checked: set[int] = set()

    def check(self, board: Board | None, deadline: float) -> None:
        config, tree = self.config, self.tree
        fixed = config.playouts is not None
        if board is None or (not fixed and self.spent >= self.seconds):
            return
        edges = tree.root_edges()
        open_edges = [e for e in edges if tree.child[e] < 0 or tree.proven[tree.child[e]] == 0]
        if len(open_edges) < 2:
            return  # no other move to turn to
        leader = max(open_edges, key=lambda e: tree.edge_visits[e])
        child = int(tree.child[leader])
        if child < 0 or leader in self.checked:
            return
        self.checked.add(leader)
        started = time.monotonic()
        until = deadline if fixed else min(deadline, started + (self.seconds - self.spent) / 2)
        board.play(int(tree.move[leader]))
        try:
            result = self.solver.vct(board, max_attacks=config.vct_attacks, deadline=until,
                                     max_nodes=config.threat_nodes if fixed else None)
        finally:
            board.undo()
        self.spent += time.monotonic() - started
        if result.status is Status.WIN:
            tree.proven[child] = WIN
            if all(tree.child[e] >= 0 and tree.proven[tree.child[e]] == WIN for e in edges):
                tree.proven[0] = LOSS
