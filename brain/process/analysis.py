"""The search reports a manager may ask for: Yixin-Board's ``MESSAGE REALTIME`` lines
(``INFO show_detail``) and our ``MESSAGE ANALYSIS`` lines (``INFO show_analysis``); the
format is :mod:`protocol.analysis`.

Nothing is written unless a manager asked, so Gomocup managers see no change. While a
search runs, an engine that can be watched (only the tree search) calls back every
period with its root statistics (:meth:`brain.search.searcher.Searcher.watch`); the last
report of a move, ``state=done``, is written by the session just before the move. The
other engines report nothing while thinking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from brain.search.searcher import Searcher, SearchInfo
from protocol import replies
from protocol.analysis import (
    SHOW_ANALYSIS_KEY,
    SHOW_DETAIL_KEY,
    AnalysisReport,
    Candidate,
    format_analysis,
    realtime_lines,
)
from protocol.syntax import Point

#: Report period when only Yixin-Board's REALTIME lines are asked for.
REALTIME_PERIOD_MS = 500
#: Candidates in one ANALYSIS line at most (the line stays under the text limit).
MAX_CANDIDATES = 40


def announced_keys(engine: Searcher) -> str:
    """The report keys ``engine`` answers, for ABOUT's ``extensions`` (only an engine that
    can be watched reports; '' for the others)."""
    return f"{SHOW_DETAIL_KEY} {SHOW_ANALYSIS_KEY}" if engine.watchable else ""


def analysis_report(info: SearchInfo, done: bool) -> AnalysisReport:
    """:class:`SearchInfo` as the wire's report."""
    ms = round(info.seconds * 1000)
    speed = round(info.playouts / info.seconds) if info.seconds > 0 else 0
    return AnalysisReport(
        done=done, time_ms=ms, playouts=info.playouts, nodes=info.nodes, speed=speed,
        depth=info.mean_depth, seldepth=info.max_depth, winrate=info.winrate,
        pv=tuple(Point(*p) for p in info.pv),
        moves=tuple(Candidate(Point(*p), visits, rate, prior)
                    for p, visits, rate, prior in info.candidates[:MAX_CANDIDATES]),
    )


class SearchReporter:
    """One session's report settings, and the writing of its reports.

    ``write`` sends one reply line (the session's writer, which is thread-safe).
    """

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        #: ``INFO show_detail`` (bit 1: REALTIME lines).
        self.detail = 0
        #: ``INFO show_analysis``: ms between ANALYSIS lines (0: none).
        self.period_ms = 0
        self._lock = threading.Lock()
        self._open = False

    def configure(self, key: str, value: str) -> bool:
        """Take ``INFO key value`` if it is one of the two report keys.

        :raises ValueError: a value that is not a non-negative integer.
        """
        if key not in (SHOW_DETAIL_KEY, SHOW_ANALYSIS_KEY):
            return False
        number = int(value)
        if number < 0:
            raise ValueError(f"INFO {key} {value}: expected a number >= 0")
        if key == SHOW_DETAIL_KEY:
            self.detail = number
        else:
            self.period_ms = number
        return True

    @property
    def realtime(self) -> bool:
        return bool(self.detail & 1)

    @property
    def period_s(self) -> float | None:
        """Seconds between reports while thinking; ``None``: no reports."""
        if self.period_ms:
            return self.period_ms / 1000
        return REALTIME_PERIOD_MS / 1000 if self.realtime else None

    def begin(self, engine: Searcher) -> None:
        """A search of ``engine`` starts: report on it while it runs, if asked."""
        if not engine.watchable:
            return
        period = self.period_s
        with self._lock:
            self._open = period is not None
        engine.watch(None if period is None else self._during, period or 0.0)

    def end(self, engine: Searcher, searched: bool) -> None:
        """The search is over (before the move is written): no more reports from the
        searching thread, and the last one (``state=done``) if the move came from it."""
        with self._lock:
            self._open = False
        if searched and engine.watchable and self.period_s is not None:
            self._emit(analysis_report(engine.info, done=True))

    def _during(self, info: SearchInfo) -> None:
        with self._lock:
            if self._open:
                self._emit(analysis_report(info, done=False))

    def _emit(self, report: AnalysisReport) -> None:
        if self.period_ms:
            self._write(replies.message(format_analysis(report)))
        if self.realtime and report.pv:
            for text in realtime_lines(report.pv[0]):
                self._write(replies.message(text))
