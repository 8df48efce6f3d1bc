"""The searcher interface: one way to run any of the brain's engines, and one record of
what a search did.

Every move chooser implements :class:`Searcher`: the tree search
(:class:`brain.engine.MctsEngine` around :class:`brain.search.mcts.Mcts`), the alpha-beta
baseline (:class:`brain.search.alphabeta.AlphaBetaEngine`) and the one-ply chooser
(:class:`brain.engine.HeuristicEngine`). Each reports in :class:`SearchInfo`. The brain
process (its session and its search reports for managers) and the tools above the search
use these two types and nothing of an engine's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from brain.game.board import Board


@dataclass
class SearchInfo:
    """What a search did: the last one's, or the running one's so far while it is
    watched (:meth:`Searcher.watch`). Fields an engine does not measure keep their
    defaults."""

    #: What decided the move: ``mcts`` (the tree search's playouts), ``opening`` (the
    #: centre of an empty board), ``five`` or ``solver`` (a win the tree search proved
    #: first), or alpha-beta's ``forced``, ``greedy``, ``vcf``, ``vct``, ``search``;
    #: '' before any search.
    source: str = ""
    seconds: float = 0.0
    nodes: int = 0
    #: The tree search's playouts (0 for the other engines).
    playouts: int = 0
    #: Playouts of the last move's tree kept in this one's (its subtree of the position).
    kept_visits: int = 0
    mean_depth: float = 0.0
    max_depth: int = 0
    #: The side to move's chance of winning, 0 to 1, as the tree search estimates it (0.5
    #: where nothing estimates it).
    winrate: float = 0.5
    #: Alpha-beta's score from the mover's side (its ``WIN`` less the plies to a found
    #: win); None for the tree search.
    score: int | None = None
    #: 1: the search proved a win for the side to move, -1: a loss, 0: neither.
    proven: int = 0
    #: Principal variation as (x, y) points, the move first.
    pv: list[tuple[int, int]] = field(default_factory=list)
    #: The tree search's root moves, most visited first: ((x, y), visits, winrate or None
    #: if unvisited, prior).
    candidates: list[tuple[tuple[int, int], int, float | None, float]] = field(
        default_factory=list)

    def summary(self) -> str:
        """The search in one line for a ``MESSAGE`` (evaluation, speed, depth, principal
        variation), or '' when there was none."""
        pv = " ".join(f"{x},{y}" for x, y in self.pv[:10])
        ms = self.seconds * 1000
        if not self.source:
            return ""
        if self.source == "opening":
            return "opening: the centre of an empty board"
        if self.score is not None:  # alpha-beta: nodes and a score
            rate = self.nodes / self.seconds if self.seconds > 0 else 0.0
            return (f"{self.source} depth {self.max_depth} score {self.score} nodes "
                    f"{self.nodes} ({rate:.0f}/s) time {ms:.0f}ms pv {pv}").strip()
        if self.source != "mcts":
            return f"{self.source}: win, pv {pv}".strip()
        rate = self.playouts / self.seconds if self.seconds > 0 else 0.0
        kept = f" kept {self.kept_visits}" if self.kept_visits else ""
        return (f"winrate {self.winrate * 100:.1f}% playouts {self.playouts} ({rate:.0f}/s)"
                f"{kept} nodes {self.nodes} depth {self.mean_depth:.1f}-{self.max_depth} "
                f"time {ms:.0f}ms pv {pv}").strip()


class Searcher(Protocol):
    """A move chooser driven by the brain process.

    ``choose_move`` returns a legal cell index for the side to move before ``deadline``
    (``time.monotonic()`` seconds), sooner once ``stop`` is set (YXSTOP, END), and never
    a renju foul for black while a legal alternative exists; ``board`` is left as it
    was. With ``use_all`` the time it leaves unused is lost (no game clock keeps it): an
    engine that answers early once its choice looks settled thinks on to the deadline
    instead. ``info`` is what the last search did. ``best_so_far`` is what a search of
    ``board`` still running would play now (called from another thread when it misses
    its deadline), or None. ``watch`` has ``report`` called with the running search's
    ``info`` every ``interval`` seconds (None: no more reports); only an engine whose
    ``watchable`` is true ever calls it. ``new_game`` forgets what the engine kept of the
    last game. ``limit_memory`` passes on the manager's memory limit in bytes (0: none
    given) and returns what the limit costs the search, as a phrase for the manager, or
    None when it costs nothing.
    """

    name: str
    watchable: bool

    @property
    def info(self) -> SearchInfo: ...

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int: ...

    def best_so_far(self, board: Board) -> int | None: ...

    def watch(self, report: Callable[[SearchInfo], None] | None, interval: float) -> None: ...

    def new_game(self) -> None: ...

    def limit_memory(self, max_bytes: int) -> str | None: ...
