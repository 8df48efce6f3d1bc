"""One search as the web board shows it, gathered from the lines a brain writes while it
thinks.

Brains report their search in ``MESSAGE`` lines of three kinds, all understood here:

* our ``ANALYSIS`` lines (:func:`protocol.analysis.parse_analysis`): candidates with
  visits, winrates and priors, the principal variation, playouts, speed and depth;
* Yixin-Board's ``REALTIME`` lines (:func:`protocol.analysis.parse_realtime`): the move
  the search would play now (``BEST``) and the moves it proved lost (``LOST``);
* Rapfi's search lines (``Depth 13-20 | Eval 665 | Time 107ms | I8 G8 H7``, read by
  :func:`driver.judgement.read_judgement`): depth, evaluation (a winrate by Rapfi's
  own scale, or a proven win or loss) and principal variation.

:class:`SearchWatch` follows one search: :meth:`SearchWatch.hear` takes each line as it
arrives and says whether it changed the report (or is an ordinary message), and
:meth:`SearchWatch.report` is the report as the page draws it (``None`` while the brain
has reported nothing: Pela, for one, reports nothing).
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field
from typing import Any

from driver.judgement import Judgement, read_judgement
from protocol.analysis import AnalysisReport, parse_analysis, parse_realtime
from protocol.replies import DebugReply, MessageReply, parse_reply
from protocol.syntax import Point

__all__ = ["Heard", "SearchWatch"]


class Heard(enum.Enum):
    """What one line of a brain was to the board."""

    REPORT = "report"    #: it changed the search report
    MESSAGE = "message"  #: a message to show as it is (MESSAGE, DEBUG)
    #: nothing to show: a reply (a move, OK, ERROR: the client judges replies, and says
    #: which ERROR lines were answers to INFO keys), a Yixin-Board line not drawn
    NOTHING = "nothing"


def _points(points: tuple[Point, ...] | list[Point]) -> list[list[int]]:
    return [[p.x, p.y] for p in points]


@dataclass
class SearchWatch:
    """The reports of one search on a ``width`` x ``height`` board (see the module
    docstring). ``started`` is when the move was asked for (``time.monotonic()``)."""

    width: int
    height: int
    started: float = field(default_factory=time.monotonic)
    analysis: AnalysisReport | None = None
    #: Rapfi-style search lines, in order (read together: later ones refine earlier ones).
    engine_lines: list[str] = field(default_factory=list)
    best: Point | None = None
    lost: list[Point] = field(default_factory=list)
    #: The newest search line as the brain wrote it (shown verbatim).
    line: str = ""
    #: The newest message not read as a report (PentaZen, Wine... have formats of their
    #: own): what the brain said about its search, if anything.
    said: str = ""
    #: The longest principal variation reported at the newest depth: Rapfi's last line of
    #: a move may carry only the first move of it.
    _pv: tuple[Point, ...] = field(default=(), init=False)

    def hear(self, raw: str) -> tuple[Heard, str]:
        """Take one line the brain wrote; returns what it was and, for a message, the
        text to show.

        :raises ValueError: a malformed ``ANALYSIS`` line (the message says which token).
        """
        reply = parse_reply(raw)
        if isinstance(reply, DebugReply):
            self.said = reply.text.strip()
            return Heard.MESSAGE, raw.strip()
        if not isinstance(reply, MessageReply):
            return Heard.NOTHING, ""
        text = reply.text.strip()
        report = parse_analysis(text)
        if report is not None:
            self.analysis = report
            return Heard.REPORT, ""
        realtime = parse_realtime(text)
        if realtime is not None:
            if realtime.kind == "REFRESH":
                self.lost.clear()
            elif realtime.kind == "BEST" and realtime.point is not None:
                self.best = realtime.point
                return Heard.REPORT, ""
            elif realtime.kind == "LOST" and realtime.point is not None:
                self.lost.append(realtime.point)
                return Heard.REPORT, ""
            return Heard.NOTHING, ""  # POS/DONE: the root move being searched, not drawn
        judged = read_judgement([text], self.width, self.height)
        if judged != Judgement():
            self.engine_lines.append(text)
            self.line = text
            pv = judged.pv  # a new line, or a longer one: a prefix keeps the longer
            if pv and (self._pv[:len(pv)] != pv or len(pv) > len(self._pv)):
                self._pv = pv
            return Heard.REPORT, ""
        self.said = text
        return Heard.MESSAGE, text

    @property
    def reported(self) -> bool:
        """Whether the brain has said anything about this search."""
        return bool(self.analysis or self.engine_lines or self.best or self.lost)

    def report(self, done: bool = False) -> dict[str, Any] | None:
        """The search as the page draws it, or ``None`` before any report.

        ``source`` is ``analysis`` (our ANALYSIS lines: visits, priors, playouts) or
        ``engine`` (Yixin-Board and Rapfi lines: depth, evaluation, principal variation;
        what the brain does not say is ``None``). ``winrate`` is the side to move's.
        """
        if not self.reported:
            return None
        elapsed = round((time.monotonic() - self.started) * 1000)
        common = {"done": done, "best": None if self.best is None else [*self.best],
                  "lost": _points(self.lost), "line": self.line}
        if self.analysis is not None:
            return {**common, **_analysis_json(self.analysis), "source": "analysis",
                    "done": done or self.analysis.done}
        judged = read_judgement(self.engine_lines, self.width, self.height)
        return {
            **common, "source": "engine", "time_ms": elapsed, "playouts": None,
            "nodes": None, "speed": None, "depth": judged.depth or None, "seldepth": None,
            "winrate": judged.winrate, "mate": judged.mate,
            "eval": _evaluation(self.line), "pv": _points(self._pv),
            "moves": [{"x": s.point.x, "y": s.point.y, "visits": None, "share": None,
                       "winrate": s.winrate, "prior": None} for s in judged.candidates],
        }


def _evaluation(line: str) -> str | None:
    """The ``Eval`` field of a Rapfi line as written (``665``, ``+M5``), if any."""
    for part in line.split("|"):
        words = part.split()
        if len(words) == 2 and words[0] == "Eval":
            return words[1]
    return None


def _analysis_json(report: AnalysisReport) -> dict[str, Any]:
    total = report.total_visits
    return {
        "time_ms": report.time_ms, "playouts": report.playouts, "nodes": report.nodes,
        "speed": report.speed, "depth": report.depth, "seldepth": report.seldepth,
        "winrate": report.winrate, "mate": None, "eval": None,
        "pv": _points(report.pv),
        "moves": [{"x": c.point.x, "y": c.point.y, "visits": c.visits,
                   "share": c.visits / total if total else 0.0, "winrate": c.winrate,
                   "prior": c.prior} for c in report.moves],
    }
