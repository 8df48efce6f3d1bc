"""A one-line live progress display on stderr: games done, ETA, leaders, SPRT."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from arena.report import Report

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


#: Characters of the progress bar.
BAR_WIDTH = 20


def bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    """``[#######-------------]``: the share of games done."""
    filled = width if total <= 0 else min(width, width * done // total)
    return "[" + "#" * filled + "-" * (width - filled) + "]"


class Progress:
    """Rewrites one status line (``\\r``) when the run starts (:meth:`start`) and after
    every game; silent when not ``enabled``.

    The ETA extrapolates this session's pace (games finished per second) to the games
    still to play.
    """

    def __init__(self, total: int, done: int, *, enabled: bool, stream: TextIO | None = None
                 ) -> None:
        self.total = total
        self.done = done
        self.enabled = enabled
        self._stream = stream or sys.stderr
        self._started = time.monotonic()
        self._session_done = 0
        self._width = 0

    def start(self) -> None:
        """Draw the line before the first game ends: what is done (a resumed run's
        games) and what is being played."""
        if not self.enabled:
            return
        doing = (f"resuming: {self.done} games already played" if self.done
                 else "playing the first games")
        self._draw(f"{self._count()} | {doing}")

    def game_done(self, report: Report) -> None:
        """Count one finished game and redraw the line with ``report``'s standings."""
        self.done += 1
        self._session_done += 1
        if not self.enabled:
            return
        elapsed = time.monotonic() - self._started
        left = max(0, self.total - self.done)
        eta = elapsed / self._session_done * left
        leaders = " | ".join(
            f"{p.name} {p.wdl.points:g}/{p.wdl.games}"
            + (f" ({p.elo:+.0f})" if p.elo is not None else "")
            for p in report.players[:4]
        )
        line = f"{self._count()} {_clock(elapsed)} ETA {_clock(eta)} | {leaders}"
        if report.sprt_result is not None:
            line += f" | LLR {report.sprt_result.llr:.2f}"
        self._draw(line)

    def _count(self) -> str:
        """``[####----] 12/48 25%``: the games done."""
        return (f"{bar(self.done, self.total)} {self.done}/{self.total} "
                f"{100 * self.done / max(1, self.total):.0f}%")

    def _draw(self, line: str) -> None:
        padding = max(0, self._width - len(line))
        self._width = len(line)
        self._stream.write("\r" + line + " " * padding)
        self._stream.flush()

    def finish(self) -> None:
        """End the status line."""
        if self.enabled and self._width:
            self._stream.write("\n")
            self._stream.flush()
