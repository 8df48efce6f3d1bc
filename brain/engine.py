"""What the protocol loop needs from a search engine, and the engines it can run."""

from __future__ import annotations

import threading
from typing import Protocol

from brain.board import Board
from brain.evaluator import Evaluator


class Engine(Protocol):
    """A move chooser driven by the protocol loop.

    ``choose_move`` must return a legal cell index for the side to move before
    ``deadline`` (``time.monotonic()`` seconds), sooner if ``stop`` is set, and never a
    renju foul for black while a legal alternative exists. ``summary`` describes the last
    search in one line (evaluation, depth, nodes, principal variation) or is empty.
    """

    name: str

    def choose_move(self, board: Board, deadline: float, stop: threading.Event) -> int: ...

    def summary(self) -> str: ...

    def new_game(self) -> None: ...


class HeuristicEngine:
    """The one-ply chooser of :mod:`brain.heuristic` as an engine."""

    name = "pbrain-heuristic"

    def choose_move(self, board: Board, deadline: float, stop: threading.Event) -> int:
        from brain.heuristic import choose_move

        return choose_move(board)

    def summary(self) -> str:
        return ""

    def new_game(self) -> None:
        """Nothing is kept between games."""


class MctsEngine:
    """pbrain-zero's own engine: tree search guided by an evaluator (the policy/value
    network when weights are shipped, else the pattern heuristic)."""

    name = "pbrain-zero"

    def __init__(self, evaluator: Evaluator | None = None, playouts: int | None = None) -> None:
        from brain.evaluator import HeuristicEvaluator
        from brain.mcts import Mcts, MctsConfig

        self.search = Mcts(evaluator or HeuristicEvaluator(), MctsConfig(playouts=playouts))

    def choose_move(self, board: Board, deadline: float, stop: threading.Event) -> int:
        return self.search.search(board, deadline, stop)

    def summary(self) -> str:
        info = self.search.info
        pv = " ".join(f"{x},{y}" for x, y in info.pv[:10])
        if info.source != "mcts":
            return f"{info.source}: win, pv {pv}".strip()
        rate = info.playouts / info.seconds if info.seconds > 0 else 0.0
        return (f"winrate {info.winrate * 100:.1f}% playouts {info.playouts} "
                f"({rate:.0f}/s) nodes {info.nodes} depth {info.mean_depth:.1f}-"
                f"{info.max_depth} time {info.seconds * 1000:.0f}ms pv {pv}").strip()

    def new_game(self) -> None:
        self.search.reset()


ENGINE_NAMES = ("heuristic", "mcts")


def make_engine(name: str, level: int | None = None) -> Engine:
    """Build the engine called ``name``; raises ValueError for an unknown name."""
    if name == "heuristic":
        return HeuristicEngine()
    if name == "mcts":
        return MctsEngine()
    raise ValueError(f"unknown engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
