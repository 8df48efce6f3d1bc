"""The real pbrain-zero process with an engine that misbehaves on purpose.

It runs ``python -m brain`` unchanged (same options, same log routing, same session), but
wraps whatever engine the options choose: on every third move the engine keeps thinking
1.5 s past its deadline and ignores the stop request (a forced overrun, as a frozen or
overloaded machine causes), and on every fifth it raises. The brain must still answer each
move in time with a legal fallback, report the fault as a MESSAGE line and write nothing on
stderr::

    python tests/brains/stalling.py [pbrain-zero options]
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import brain.engine
from brain.__main__ import main
from brain.engine import Engine
from brain.game.board import Board

#: How long past its deadline a stalling move keeps the engine busy.
STALL_S = 1.5


class StallingEngine:
    """Wraps a real engine; every third move overruns, every fifth raises."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls = 0

    def choose_move(self, board: Board, deadline: float, stop: threading.Event) -> int:
        self.calls += 1
        if self.calls % 5 == 0:
            raise RuntimeError(f"deliberate failure on call {self.calls}")
        if self.calls % 3 == 0:
            time.sleep(max(0.0, deadline - time.monotonic()) + STALL_S)
        return self.inner.choose_move(board, deadline, stop)

    def summary(self) -> str:
        return self.inner.summary()

    def new_game(self) -> None:
        self.inner.new_game()


_make_engine = brain.engine.make_engine
brain.engine.make_engine = lambda *args, **kwargs: StallingEngine(_make_engine(*args, **kwargs))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
