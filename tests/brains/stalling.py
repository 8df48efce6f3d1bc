"""The real pbrain-zero process with an engine that misbehaves on purpose.

It runs ``python -m brain`` unchanged (same options, same log routing, same session), but
wraps whatever engine the options choose. On every fifth move the engine raises; on every
third (not fifth) it stalls 1.5 s before searching, ignoring the stop request (a forced
overrun, as a frozen or overloaded machine causes: nothing searched yet); on every fourth
(not third or fifth) it searches and then stalls before returning (an overrun with a
search to fall back on). The brain must still answer each move in time with a legal move,
report the fault as a MESSAGE line and write nothing on stderr::

    python tests/brains/stalling.py [pbrain-zero options]
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import brain.engine
from brain.__main__ import main
from brain.game.board import Board
from brain.search.searcher import Searcher, SearchInfo

#: How long past its deadline a stalling move keeps the engine busy.
STALL_S = 1.5


class StallingEngine:
    """Wraps a real engine and misbehaves as the module docstring says."""

    def __init__(self, inner: Searcher) -> None:
        self.inner = inner
        self.name = inner.name
        self.watchable = inner.watchable
        self.calls = 0

    def choose_move(self, board: Board, deadline: float, stop: threading.Event,
                    use_all: bool = False) -> int:
        self.calls += 1
        if self.calls % 5 == 0:
            raise RuntimeError(f"deliberate failure on call {self.calls}")
        if self.calls % 3 == 0:
            time.sleep(max(0.0, deadline - time.monotonic()) + STALL_S)
        move = self.inner.choose_move(board, deadline, stop, use_all=use_all)
        if self.calls % 4 == 0:
            time.sleep(STALL_S)
        return move

    @property
    def info(self) -> SearchInfo:
        return self.inner.info

    def watch(self, report: Callable[[SearchInfo], None] | None, interval: float) -> None:
        self.inner.watch(report, interval)

    def best_so_far(self, board: Board) -> int | None:
        return self.inner.best_so_far(board)

    def new_game(self) -> None:
        self.inner.new_game()

    def limit_memory(self, max_bytes: int) -> str | None:
        return self.inner.limit_memory(max_bytes)


_make_engine = brain.engine.make_engine
brain.engine.make_engine = lambda *args, **kwargs: StallingEngine(_make_engine(*args, **kwargs))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
