"""Search reports a brain writes while it thinks: the Yixin-Board convention and our
``ANALYSIS`` extension, both inside ``MESSAGE`` lines that every manager may ignore.

A manager asks for them with INFO lines that brains without the feature ignore (or
answer ``ERROR``: :mod:`driver.client` forgives that):

``INFO show_detail N`` (Yixin-Board; Rapfi and Yixin answer it)
    bit 1: ``MESSAGE REALTIME ...`` lines while thinking. The ones read here are
    ``REALTIME REFRESH`` (a new report begins), ``REALTIME BEST x,y`` (the move the search
    would play now), ``REALTIME LOST x,y`` (a move proven lost), ``REALTIME POS x,y`` and
    ``REALTIME DONE x,y`` (the root move being searched, then finished). Bit 2 makes Rapfi
    write ``INFO ...`` detail lines on stdout, which Gomocup managers would take for a
    reply: this module neither asks for nor reads them.
``INFO show_analysis MS`` (this project's extension)
    every ``MS`` milliseconds of a search (0: never, the default) and once when it ends,
    one ``MESSAGE ANALYSIS ...`` line (:class:`AnalysisReport`) with the candidate moves'
    visits, winrates and priors, the principal variation and the search's counters. A
    manager sends it only to a brain that lists it in its ABOUT answer's ``extensions``
    (:data:`EXTENSIONS_KEY`, :func:`about_extensions`): a brain that reads commands word
    by word, such as Rapfi, would take the value for a command.

The ``ANALYSIS`` text is space-separated ``key=value`` tokens; ``move=`` repeats, one per
candidate, best first; lists inside a value are ``;``-separated::

    ANALYSIS state=thinking time=250 playouts=1432 nodes=3907 speed=5728 depth=5.1
    seldepth=14 winrate=0.5631 pv=7,7;8,8;6,6 move=7,7;612;0.5631;0.2210 move=8,8;...

(one line). A ``move`` value is ``x,y;visits;winrate;prior``, with ``-`` for the winrate
of a move not searched yet. ``state`` is ``thinking`` for a report during the search and
``done`` for the last one, written just before the move. Unknown keys are skipped, so
the format can grow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from protocol.syntax import Point, parse_point

__all__ = [
    "ANALYSIS_WORD",
    "EXTENSIONS_KEY",
    "REALTIME_WORD",
    "SHOW_ANALYSIS_KEY",
    "SHOW_DETAIL_KEY",
    "AnalysisReport",
    "Candidate",
    "Realtime",
    "about_extensions",
    "format_analysis",
    "parse_analysis",
    "parse_realtime",
    "realtime_lines",
]

SHOW_DETAIL_KEY: Final = "show_detail"
"""Yixin-Board's INFO key: bit 1 asks for ``MESSAGE REALTIME`` lines."""

SHOW_ANALYSIS_KEY: Final = "show_analysis"
"""Our INFO key: the period in ms of ``MESSAGE ANALYSIS`` lines (0: none)."""

EXTENSIONS_KEY: Final = "extensions"
"""The ABOUT key in which a brain lists the INFO extension keys it reads, space-separated
(``extensions="show_detail show_analysis"``)."""

ANALYSIS_WORD: Final = "ANALYSIS"
REALTIME_WORD: Final = "REALTIME"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One root move of the search.

    :ivar point: the square.
    :ivar visits: playouts through it.
    :ivar winrate: the mover's expected score after it (0 to 1), ``None`` if unvisited.
    :ivar prior: the policy's probability of it (0 to 1).
    """

    point: Point
    visits: int
    winrate: float | None
    prior: float


@dataclass(frozen=True, slots=True)
class AnalysisReport:
    """One ``MESSAGE ANALYSIS`` report (see the module docstring).

    :ivar done: the last report of a search (``state=done``).
    :ivar time_ms: milliseconds since the search began.
    :ivar speed: playouts per second.
    :ivar depth: mean depth of the playouts; ``seldepth`` the deepest.
    :ivar winrate: the side to move's expected score with its best move (0 to 1).
    :ivar pv: principal variation.
    :ivar moves: candidates, most visited first.
    """

    done: bool = False
    time_ms: int = 0
    playouts: int = 0
    nodes: int = 0
    speed: int = 0
    depth: float = 0.0
    seldepth: int = 0
    winrate: float | None = None
    pv: tuple[Point, ...] = ()
    moves: tuple[Candidate, ...] = field(default=())

    @property
    def total_visits(self) -> int:
        """Visits of all candidates together."""
        return sum(c.visits for c in self.moves)


@dataclass(frozen=True, slots=True)
class Realtime:
    """One Yixin-Board ``MESSAGE REALTIME`` line: ``kind`` (``REFRESH``, ``BEST``, ``LOST``,
    ``POS``, ``DONE``, upper case) and its square (``None`` for ``REFRESH``)."""

    kind: str
    point: Point | None


def about_extensions(fields: Mapping[str, str]) -> frozenset[str]:
    """The INFO extension keys a brain's ABOUT answer (its ``key="value"`` fields) lists
    under :data:`EXTENSIONS_KEY`, lower-cased; empty when it lists none."""
    return frozenset(fields.get(EXTENSIONS_KEY, "").lower().split())


def _point_text(point: Sequence[int]) -> str:
    return f"{point[0]},{point[1]}"


def format_analysis(report: AnalysisReport) -> str:
    """The text after ``MESSAGE `` for ``report`` (one line, no terminator)."""
    tokens = [
        ANALYSIS_WORD,
        f"state={'done' if report.done else 'thinking'}",
        f"time={report.time_ms}",
        f"playouts={report.playouts}",
        f"nodes={report.nodes}",
        f"speed={report.speed}",
        f"depth={report.depth:.1f}",
        f"seldepth={report.seldepth}",
    ]
    if report.winrate is not None:
        tokens.append(f"winrate={report.winrate:.4f}")
    if report.pv:
        tokens.append("pv=" + ";".join(_point_text(p) for p in report.pv))
    for c in report.moves:
        rate = "-" if c.winrate is None else f"{c.winrate:.4f}"
        tokens.append(f"move={_point_text(c.point)};{c.visits};{rate};{c.prior:.4f}")
    return " ".join(tokens)


def _points(text: str) -> tuple[Point, ...]:
    return tuple(parse_point(item, "pv") for item in text.split(";") if item)


def _candidate(text: str) -> Candidate:
    parts = text.split(";")
    if len(parts) != 4:
        raise ValueError(f"move={text!r}: expected x,y;visits;winrate;prior")
    rate = None if parts[2] == "-" else float(parts[2])
    return Candidate(parse_point(parts[0], "move"), int(parts[1]), rate, float(parts[3]))


def parse_analysis(text: str) -> AnalysisReport | None:
    """The report in a ``MESSAGE`` text, or ``None`` if it is no ``ANALYSIS`` line.

    :raises ValueError: an ``ANALYSIS`` line with a malformed value (the message says
        which token).
    """
    words = text.split()
    if not words or words[0].upper() != ANALYSIS_WORD:
        return None
    values: dict[str, str] = {}
    moves: list[Candidate] = []
    for token in words[1:]:
        key, sep, value = token.partition("=")
        if not sep:
            raise ValueError(f"ANALYSIS token {token!r}: expected key=value")
        if key == "move":
            moves.append(_candidate(value))
        else:
            values[key] = value
    try:
        return AnalysisReport(
            done=values.get("state") == "done",
            time_ms=int(values.get("time", 0)),
            playouts=int(values.get("playouts", 0)),
            nodes=int(values.get("nodes", 0)),
            speed=int(values.get("speed", 0)),
            depth=float(values.get("depth", 0.0)),
            seldepth=int(values.get("seldepth", 0)),
            winrate=float(values["winrate"]) if "winrate" in values else None,
            pv=_points(values.get("pv", "")),
            moves=tuple(moves),
        )
    except ValueError as exc:
        raise ValueError(f"ANALYSIS line {text[:80]!r}: {exc}") from None


def parse_realtime(text: str) -> Realtime | None:
    """The Yixin-Board report in a ``MESSAGE`` text, or ``None`` if it is none (or its
    square is unreadable: the line is then an ordinary message)."""
    words = text.split()
    if len(words) < 2 or words[0].upper() != REALTIME_WORD:
        return None
    kind = words[1].upper()
    if len(words) == 2:
        return Realtime(kind, None)
    try:
        return Realtime(kind, parse_point(words[2], "REALTIME"))
    except ValueError:
        return None


def realtime_lines(best: Point, lost: Iterable[Point] = ()) -> list[str]:
    """The Yixin-Board texts (after ``MESSAGE ``) of one report: ``REFRESH``, the lost
    moves, then the best move."""
    lines = [f"{REALTIME_WORD} REFRESH"]
    lines += [f"{REALTIME_WORD} LOST {_point_text(p)}" for p in lost]
    lines.append(f"{REALTIME_WORD} BEST {_point_text(best)}")
    return lines
