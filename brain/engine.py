"""What the protocol loop needs from a search engine, and the engines it can run."""

from __future__ import annotations

import threading
from typing import Protocol

from brain.board import Board


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


ENGINE_NAMES = ("heuristic",)


def make_engine(name: str, level: int | None = None) -> Engine:
    """Build the engine called ``name``; raises ValueError for an unknown name."""
    if name == "heuristic":
        return HeuristicEngine()
    raise ValueError(f"unknown engine {name!r}: choose one of {', '.join(ENGINE_NAMES)}")
