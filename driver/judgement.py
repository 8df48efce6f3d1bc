"""What a teacher engine said about a position, read from the ``MESSAGE`` lines it wrote
while thinking: its evaluation, principal variation and ranked moves.

Gomocup brains report their search in free-text ``MESSAGE`` lines that managers may
ignore; there is no common format, so :func:`read_judgement` understands three:

* our ``MESSAGE ANALYSIS`` lines (:func:`protocol.analysis.parse_analysis`), written by
  pbrain-zero's tree search when asked with ``INFO show_analysis``: the winrate, the
  principal variation and every root candidate with its winrate;
* Yixin-Board's ``MESSAGE REALTIME`` lines (:func:`protocol.analysis.parse_realtime`),
  asked with ``INFO show_detail 1``: the search's best move and the root moves it proved
  lost (``REALTIME LOST``);
* Rapfi's search lines (its ``message_mode = "normal"``, the default)::

      Depth 13-20 | Eval 665 | Time 107ms | I8 G8 H7 H10 G6
      (2) -518 | 8-11 | H6 H10 H7 G10            (multi-PV: rank, value, depth, line)
      Speed 964K | Depth 13-21 | Eval 665 | Node 164K | Time 170ms

  An evaluation is an integer in Rapfi's units for the side to move, or a proven result
  ``+M5`` / ``-M36`` (win / loss in that many plies; ``+M*`` / ``-M*`` from its
  database). Rapfi maps values to winrates by ``sigmoid(value / scaling_factor)`` with
  a scaling factor of 200 unless its config says otherwise (:data:`RAPFI_SCALE`).
  A move is a column letter (``A`` is x = 0) and a 1-based row: ``I8`` is x = 8, y = 7
  in protocol coordinates. The scored moves are the first moves of the multi-PV lines
  with their newest score, among those searched at the last two depths (a move that
  left the top lines keeps an older, shallower score and is dropped).

All winrates are from the point of view of the side to move, 0 (lost) to 1 (won).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from protocol.analysis import parse_analysis, parse_realtime
from protocol.syntax import Point

__all__ = ["RAPFI_SCALE", "Judgement", "Scored", "rapfi_winrate", "read_judgement"]

#: Rapfi's default ``scaling_factor``: winrate = sigmoid(eval / 200).
RAPFI_SCALE = 200.0

_MESSAGE = "MESSAGE "
_VALUE = r"([+-]?M\*|[+-]M\d+|-?VAL_INF|VAL_NONE|-?\d+)"
_DEPTH_LINE = re.compile(rf"Depth (\d+)-(\d+) \| Eval {_VALUE} \| Time \S+ \|(.*)")
_FINAL_LINE = re.compile(rf"Speed \S+ \| Depth (\d+)-(\d+) \| Eval {_VALUE} \|")
_RANK_LINE = re.compile(rf"\((\d+)\) {_VALUE} \| (\d+)-(\d+) \|(.*)")
_BESTLINE = re.compile(r"Bestline (.*)")
_COORD = re.compile(r"([A-Z])(\d+)")


@dataclass(frozen=True, slots=True)
class Scored:
    """A move the teacher searched, with the side to move's winrate after it."""

    point: Point
    winrate: float


@dataclass(frozen=True, slots=True)
class Judgement:
    """A teacher's view of one position (everything optional: a brain may say nothing).

    :ivar winrate: the side to move's expected score with best play (0 to 1).
    :ivar depth: the search depth the evaluation comes from (0: unknown).
    :ivar mate: a proven result: plies to the win (> 0) or to the loss (< 0); ``None``
        when unproven or unknown.
    :ivar pv: the principal variation, the teacher's move first.
    :ivar candidates: searched moves with their winrates, best first.
    :ivar lost: moves the teacher proved lost (Yixin-Board ``REALTIME LOST``).
    :ivar best: the last ``REALTIME BEST`` move.
    """

    winrate: float | None = None
    depth: int = 0
    mate: int | None = None
    pv: tuple[Point, ...] = ()
    candidates: tuple[Scored, ...] = ()
    lost: tuple[Point, ...] = ()
    best: Point | None = None

    def near_even(self, balance: float) -> bool:
        """Whether the position is rated within ``balance`` of an even game (winrate
        0.5); a proven result or no evaluation is not."""
        return (not self.mate and self.winrate is not None
                and abs(self.winrate - 0.5) <= balance)


def rapfi_winrate(value: str, scale: float = RAPFI_SCALE) -> tuple[float, int | None]:
    """A Rapfi evaluation as (winrate, mate plies or ``None``).

    :raises ValueError: text that is no Rapfi evaluation, or ``VAL_NONE``.
    """
    if value in ("VAL_NONE", ""):
        raise ValueError(f"no evaluation in {value!r}")
    if value.endswith("VAL_INF"):
        return (0.0, None) if value.startswith("-") else (1.0, None)
    if "M" in value:
        sign = -1 if value.startswith("-") else 1
        plies = value.split("M", 1)[1]
        mate = sign * (int(plies) if plies != "*" else 0)
        return (1.0 if sign > 0 else 0.0), mate
    return 1.0 / (1.0 + math.exp(-int(value) / scale)), None


def _rapfi_moves(text: str, width: int, height: int) -> tuple[Point, ...]:
    moves = []
    for token in text.split():
        match = _COORD.fullmatch(token)
        if match is None:
            break
        x, y = ord(match[1]) - ord("A"), int(match[2]) - 1
        if not (0 <= x < width and 0 <= y < height):
            break
        moves.append(Point(x, y))
    return tuple(moves)


def read_judgement(messages: Iterable[str], width: int, height: int,
                   scale: float = RAPFI_SCALE) -> Judgement:
    """The teacher's judgement in the ``MESSAGE`` lines of one search (raw lines, with
    or without the ``MESSAGE`` word; other lines are skipped). The last report of each
    kind wins; ``ANALYSIS`` reports take precedence over Rapfi lines.

    :raises ValueError: a malformed ``ANALYSIS`` line.
    """
    winrate: float | None = None
    depth = 0
    mate: int | None = None
    pv: tuple[Point, ...] = ()
    ranked: dict[Point, tuple[float, int]] = {}
    lost: dict[Point, None] = {}
    best: Point | None = None
    analysis = None
    for raw in messages:
        text = raw[len(_MESSAGE):] if raw.startswith(_MESSAGE) else raw
        text = text.strip()
        report = parse_analysis(text)
        if report is not None:
            analysis = report
            continue
        realtime = parse_realtime(text)
        if realtime is not None:
            if realtime.kind == "LOST" and realtime.point is not None:
                lost[realtime.point] = None
            elif realtime.kind == "BEST" and realtime.point is not None:
                best = realtime.point
            continue
        if (match := _FINAL_LINE.match(text) or _DEPTH_LINE.match(text)) is not None:
            with_value = _rapfi_value(match[3], scale)
            if with_value is not None:
                winrate, mate = with_value
                depth = int(match[1])
            if match.re is _DEPTH_LINE:
                pv = _rapfi_moves(match[4], width, height) or pv
        elif (match := _RANK_LINE.match(text)) is not None:
            line = _rapfi_moves(match[5], width, height)
            with_value = _rapfi_value(match[2], scale)
            if line and with_value is not None:
                ranked[line[0]] = (with_value[0], int(match[3]))  # the newest score counts
        elif (match := _BESTLINE.match(text)) is not None:
            pv = _rapfi_moves(match[1], width, height) or pv
    deepest = max((d for _, d in ranked.values()), default=0)
    candidates = tuple(Scored(p, w) for p, (w, d) in sorted(ranked.items(),
                                                           key=lambda kv: -kv[1][0])
                       if d >= deepest - 1)
    if analysis is not None:
        winrate = analysis.winrate if analysis.winrate is not None else winrate
        pv = analysis.pv or pv
        depth = round(analysis.depth) or depth
        candidates = tuple(Scored(c.point, c.winrate) for c in analysis.moves
                           if c.winrate is not None) or candidates
    return Judgement(winrate, depth, mate, pv, candidates, tuple(lost), best)


def _rapfi_value(text: str, scale: float) -> tuple[float, int | None] | None:
    try:
        return rapfi_winrate(text, scale)
    except ValueError:
        return None
