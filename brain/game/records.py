"""Game records: the :class:`GameRecord` type, JSON, Piskvork PSQ and SGF.

The one record of a finished game for the whole project: the arena writes its games
with it, the web board and ``arena rate`` read them, and the trainer reads an arena
run's ``games.jsonl`` with :func:`read_jsonl`. A PSQ file's missing result is judged by
the referee (:mod:`brain.game.referee`), as the arena judges its games.

Coordinates are Gomocup protocol coordinates: ``(x, y)``, 0-based, ``x`` the column
and ``y`` the row counted from the top.  Black is the first player.

Formats
-------
JSON
    :meth:`GameRecord.to_dict` / :meth:`GameRecord.from_dict` (lossless), plus
    :meth:`~GameRecord.to_json` and JSON-lines helpers :func:`append_jsonl` /
    :func:`read_jsonl` for durable per-game logs.
PSQ (Piskvork)
    Header ``Piskvorky WxH, a:b, s``; one line ``x,y,ms`` per move with **1-based**
    coordinates; then the two brain names and Piskvork's error code.  In Piskvork's own
    writer ``a``/``b`` are the players' levels (0 for a human) and ``s`` is the index (0
    or 1) of the player who moved first; the names are written in player order, so
    black is ``names[s]``.  PSQ stores no result: :func:`parse_psq` infers it from the
    board (see there).
SGF
    ``FF[4] GM[4]`` game tree with ``SZ[15]`` or ``SZ[w:h]``, ``RU`` (Gomocup rule
    number), ``PB``/``PW``, ``RE[B+]``/``RE[W+]``/``RE[0]``, ``DT`` and moves
    ``;B[hh];W[ih]`` (SGF letters, ``a`` = 0, x then y, y from the top).  Fields SGF
    has no property for use private properties: ``TERM`` (termination reason),
    ``OPLEN`` (opening length), ``STARTED``/``ENDED`` (ISO 8601 timestamps) and, per
    move, ``MT`` (thinking time in ms).  :func:`parse_sgf` reads what :func:`write_sgf`
    writes (one game, no variations).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Any

from brain.errors import PbrainError
from brain.game.board import MAX_SIZE, MIN_SIZE, Board, Color
from brain.game.referee import Ending, judge_move
from brain.game.rules import Rule

__all__ = [
    "PSQ_ERROR_CODE",
    "PSQ_TIMEOUT_CODE",
    "VALID_RULES",
    "GameRecord",
    "GameResult",
    "Move",
    "RecordFormatError",
    "append_jsonl",
    "parse_psq",
    "parse_sgf",
    "read_jsonl",
    "read_psq",
    "read_sgf",
    "records_to_games",
    "sgf_nodes",
    "write_psq",
    "write_sgf",
]

#: Gomocup rule numbers: 0 freestyle, 1 exactly five, 4 renju, 8 caro, 9 caro + exact five.
VALID_RULES = frozenset({0, 1, 4, 8, 9})

#: Largest board side SGF letter coordinates can express (``a``–``z``, ``A``–``Z``).
_SGF_MAX_SIDE = 52


class RecordFormatError(PbrainError, ValueError):
    """A record (JSON, PSQ or SGF) is malformed or describes an impossible game."""


class GameResult(Enum):
    """Outcome of a game. ``UNKNOWN`` is for game files that record none (training
    data); a :class:`GameRecord`, a finished game, never has it."""

    BLACK_WIN = "black"
    WHITE_WIN = "white"
    DRAW = "draw"
    UNKNOWN = "unknown"

    @classmethod
    def of_winner(cls, color: Color) -> GameResult:
        return cls.BLACK_WIN if color is Color.BLACK else cls.WHITE_WIN

    @property
    def black_score(self) -> float:
        """Points for black: 1, 0.5 or 0.

        :raises ValueError: for ``UNKNOWN``.
        """
        return {"black": 1.0, "draw": 0.5, "white": 0.0}[self._known().value]

    @property
    def sgf(self) -> str:
        """SGF ``RE`` value: ``B+``, ``W+`` or ``0``.

        :raises ValueError: for ``UNKNOWN``.
        """
        return {"black": "B+", "draw": "0", "white": "W+"}[self._known().value]

    def wdl(self, to_move: Color) -> tuple[float, float, float]:
        """Win/draw/loss for ``to_move`` (one of them 1); all zeros for ``UNKNOWN``."""
        if self is GameResult.UNKNOWN:
            return (0.0, 0.0, 0.0)
        if self is GameResult.DRAW:
            return (0.0, 1.0, 0.0)
        return (1.0, 0.0, 0.0) if self is GameResult.of_winner(to_move) else (0.0, 0.0, 1.0)

    def _known(self) -> GameResult:
        if self is GameResult.UNKNOWN:
            raise ValueError("the game's result is unknown")
        return self


@dataclass(frozen=True)
class Move:
    """A stone placed at ``(x, y)`` with the mover's thinking time in ms (or ``None``)."""

    x: int
    y: int
    time_ms: int | None = None

    @property
    def point(self) -> tuple[int, int]:
        """``(x, y)``."""
        return (self.x, self.y)


def _to_move(item: Move | Sequence[int | None], number: int) -> Move:
    if isinstance(item, Move):
        return item
    if isinstance(item, Sequence) and len(item) in (2, 3):
        x, y = item[0], item[1]
        t = item[2] if len(item) == 3 else None
        if isinstance(x, int) and isinstance(y, int) and (t is None or isinstance(t, int)):
            return Move(x, y, t)
    raise RecordFormatError(f"move {number}: expected Move, (x, y) or (x, y, ms), got {item!r}")


@dataclass(frozen=True)
class GameRecord:
    """A finished game.

    ``moves`` are the stones in play order (black first), opening stones included; the
    first ``opening_length`` of them came from the opening, not from the brains (their
    ``time_ms`` is usually ``None``).  Only stones that were actually placed belong in
    ``moves``: an illegal reply, a timeout or a crash ends the game without a stone.
    ``reason`` says how the game ended, e.g. ``"five"``, ``"forbidden"``,
    ``"timeout"``, ``"crash"``, ``"illegal move"``, ``"draw: board full"``.
    ``tags`` is free-form metadata (round, pair, opening index...) kept by JSON only.
    Tuples or lists ``(x, y)`` / ``(x, y, ms)`` passed as moves are converted to
    :class:`Move`.

    :raises RecordFormatError: for an invalid rule, board, move or opening length.
    """

    width: int
    height: int
    rule: int
    black: str
    white: str
    moves: tuple[Move, ...]
    result: GameResult
    reason: str
    opening_length: int = 0
    started_at: datetime | None = None
    ended_at: datetime | None = None
    tags: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        moves = tuple(_to_move(m, k) for k, m in enumerate(self.moves, start=1))
        object.__setattr__(self, "moves", moves)
        object.__setattr__(self, "tags", dict(self.tags))
        if not isinstance(self.result, GameResult) or self.result is GameResult.UNKNOWN:
            raise RecordFormatError(
                f"result must be a GameResult other than UNKNOWN, got {self.result!r}")
        if self.rule not in VALID_RULES:
            raise RecordFormatError(
                f"rule must be one of {sorted(VALID_RULES)} (Gomocup INFO rule), got {self.rule!r}"
            )
        if not (isinstance(self.width, int) and isinstance(self.height, int)):
            raise RecordFormatError(f"board size must be ints, got {self.width!r}x{self.height!r}")
        if not (1 <= self.width <= 256 and 1 <= self.height <= 256):
            raise RecordFormatError(f"board size must be 1..256, got {self.width}x{self.height}")
        if not isinstance(self.opening_length, int) or not (0 <= self.opening_length <= len(moves)):
            raise RecordFormatError(
                f"opening_length {self.opening_length} must be between 0 and the number of "
                f"moves ({len(moves)})"
            )
        seen: dict[tuple[int, int], int] = {}
        for number, move in enumerate(moves, start=1):
            if not (0 <= move.x < self.width and 0 <= move.y < self.height):
                raise RecordFormatError(
                    f"move {number} at ({move.x},{move.y}) is outside the "
                    f"{self.width}x{self.height} board"
                )
            if move.point in seen:
                raise RecordFormatError(
                    f"move {number} at ({move.x},{move.y}) is on the square of move "
                    f"{seen[move.point]}"
                )
            if move.time_ms is not None and move.time_ms < 0:
                raise RecordFormatError(f"move {number}: negative time {move.time_ms} ms")
            seen[move.point] = number

    # -- convenience -------------------------------------------------------------------

    @property
    def black_score(self) -> float:
        """Black's points: 1, 0.5 or 0."""
        return self.result.black_score

    @property
    def winner(self) -> str | None:
        """The winning brain's name, or ``None`` for a draw."""
        if self.result is GameResult.BLACK_WIN:
            return self.black
        if self.result is GameResult.WHITE_WIN:
            return self.white
        return None

    def score_for(self, name: str) -> float:
        """Points scored by the brain called ``name``.

        :raises KeyError: if ``name`` played neither colour.
        """
        if name == self.black:
            return self.black_score
        if name == self.white:
            return 1.0 - self.black_score
        raise KeyError(f"{name!r} did not play this game ({self.black} vs {self.white})")

    @property
    def points(self) -> tuple[tuple[int, int], ...]:
        """The move squares without times."""
        return tuple(m.point for m in self.moves)

    # -- JSON ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible dict; moves are ``[x, y]`` or ``[x, y, ms]``."""
        return {
            "width": self.width,
            "height": self.height,
            "rule": self.rule,
            "black": self.black,
            "white": self.white,
            "moves": [
                [m.x, m.y] if m.time_ms is None else [m.x, m.y, m.time_ms] for m in self.moves
            ],
            "opening_length": self.opening_length,
            "result": self.result.value,
            "reason": self.reason,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "ended_at": self.ended_at.isoformat() if self.ended_at else None,
            "tags": dict(self.tags),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Inverse of :meth:`to_dict`.

        :raises RecordFormatError: naming the missing or invalid field.
        """
        required = ("width", "height", "rule", "black", "white", "moves", "result", "reason")
        missing = [k for k in required if k not in data]
        if missing:
            raise RecordFormatError(f"game record is missing field(s): {', '.join(missing)}")
        try:
            result = GameResult(data["result"])._known()
        except ValueError:
            raise RecordFormatError(
                f"result must be 'black', 'white' or 'draw', got {data['result']!r}"
            ) from None
        moves = data["moves"]
        if not isinstance(moves, list):
            raise RecordFormatError(f"moves must be a list, got {type(moves).__name__}")
        return cls(
            width=data["width"],
            height=data["height"],
            rule=data["rule"],
            black=str(data["black"]),
            white=str(data["white"]),
            moves=tuple(_to_move(m, k) for k, m in enumerate(moves, start=1)),
            result=result,
            reason=str(data["reason"]),
            opening_length=data.get("opening_length", 0),
            started_at=_parse_time(data.get("started_at"), "started_at"),
            ended_at=_parse_time(data.get("ended_at"), "ended_at"),
            tags={str(k): str(v) for k, v in (data.get("tags") or {}).items()},
        )

    def to_json(self) -> str:
        """One-line JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Inverse of :meth:`to_json`.

        :raises RecordFormatError: for invalid JSON or fields.
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordFormatError(f"invalid JSON game record: {exc}") from None
        if not isinstance(data, dict):
            raise RecordFormatError("a JSON game record must be an object")
        return cls.from_dict(data)


def _parse_time(value: object, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise RecordFormatError(f"{name} must be an ISO 8601 timestamp, got {value!r}") from None


def append_jsonl(path: str | Path, record: GameRecord) -> None:
    """Append one record as a JSON line (flushed and fsynced, so finished games survive)."""
    with Path(path).open("a", encoding="utf-8") as f:
        f.write(record.to_json() + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_jsonl(path: str | Path) -> Iterator[GameRecord]:
    """Yield the records of a JSON-lines file; a torn (incomplete) last line is skipped.

    :raises RecordFormatError: naming the line for any other bad line.
    """
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield GameRecord.from_json(line)
        except RecordFormatError as exc:
            if number == len(lines):  # the last line has no newline: an interrupted write
                return
            raise RecordFormatError(f"{path}:{number}: {exc}") from None


# ---------------------------------------------------------------------------------------
# PSQ
# ---------------------------------------------------------------------------------------

_PSQ_HEADER_RE = re.compile(r"^Piskvorky\s+(\d+)x(\d+),\s*(-?\d+):(-?\d+),\s*([01])\s*$")
_PSQ_MOVE_RE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$")

#: Piskvork's trailer code for a time-out (``finishGame(15)`` in its source).
PSQ_TIMEOUT_CODE = 15

#: Trailer code this module writes for other brain failures (crash, illegal move...).
PSQ_ERROR_CODE = 1

_BOARD_REASONS = ("five", "forbidden", "draw")


def write_psq(record: GameRecord) -> str:
    """Piskvork PSQ text of ``record`` (LF line ends; 1-based coordinates).

    The header is ``Piskvorky WxH, 11:11, 0`` (both players computers at Piskvork's
    highest level index, black listed first); times ``None`` are written as 0.  The
    trailer code is 0 for games decided on the board (reason starting with ``five``,
    ``forbidden`` or ``draw``), :data:`PSQ_TIMEOUT_CODE` for a reason containing
    ``timeout`` and :data:`PSQ_ERROR_CODE` otherwise; the PSQ format cannot hold the
    reason text itself.

    :raises RecordFormatError: if a brain name contains a line break.
    """
    for name in (record.black, record.white):
        if "\n" in name or "\r" in name or not name.strip():
            raise RecordFormatError(f"PSQ brain names must be one non-empty line, got {name!r}")
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    lines += [f"{m.x + 1},{m.y + 1},{m.time_ms or 0}" for m in record.moves]
    reason = record.reason.lower()
    if reason.startswith(_BOARD_REASONS):
        code = 0
    elif "timeout" in reason or "time out" in reason:
        code = PSQ_TIMEOUT_CODE
    else:
        code = PSQ_ERROR_CODE
    lines += [record.black, record.white, str(code)]
    return "\n".join(lines) + "\n"


def parse_psq(
    text: str,
    *,
    rule: int = 0,
    result: GameResult | None = None,
    reason: str | None = None,
    opening_length: int = 0,
    source: str = "<string>",
) -> GameRecord:
    """Read Piskvork PSQ text.

    PSQ does not store the result or the rule, so the result is inferred unless
    ``result`` is given:

    * the last move makes five under ``rule`` → the mover wins (reason ``"five"``);
    * the board is full → draw (``"draw: board full"``);
    * a non-zero trailer code → the side to move failed to move and loses
      (``"timeout"`` for code 15, otherwise ``"error (PSQ code N)"``);
    * under renju (rule 4), a last black move without five → black played a
      forbidden point (``"forbidden"``).

    Missing brain names become ``"?"``.

    :raises RecordFormatError: naming ``source`` and the line for malformed text, and
        when the result cannot be inferred (pass ``result=``/``reason=``).
    """
    lines = [ln.strip() for ln in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        raise RecordFormatError(f"{source}: empty PSQ file")
    header = _PSQ_HEADER_RE.match(lines[0])
    if not header:
        raise RecordFormatError(
            f"{source}:1: expected a PSQ header like 'Piskvorky 20x20, 11:11, 0', got {lines[0]!r}"
        )
    width, height = int(header.group(1)), int(header.group(2))
    first_player = int(header.group(5))
    moves: list[Move] = []
    number = 1
    for number, line in enumerate(lines[1:], start=2):
        match = _PSQ_MOVE_RE.match(line)
        if not match:
            break
        x, y = int(match.group(1)) - 1, int(match.group(2)) - 1
        t = int(match.group(3)) if match.group(3) is not None else None
        if not (0 <= x < width and 0 <= y < height):
            raise RecordFormatError(
                f"{source}:{number}: move {x + 1},{y + 1} is outside the {width}x{height} "
                f"board (PSQ coordinates are 1-based)"
            )
        moves.append(Move(x, y, t))
    else:
        number = len(lines) + 1
    trailer = [ln for ln in lines[number - 1 :] if ln]
    code = 0
    names = ["?", "?"]
    if trailer:
        if re.fullmatch(r"-?\d+", trailer[-1]):
            code = int(trailer[-1])
            trailer = trailer[:-1]
        if len(trailer) == 2:
            names = trailer
        elif trailer:
            raise RecordFormatError(
                f"{source}:{number}: expected two brain names and an error code after the "
                f"moves, got {trailer!r}"
            )
    black, white = (names[1], names[0]) if first_player == 1 else (names[0], names[1])

    if result is None:
        result, inferred_reason = _infer_psq_result(moves, width, height, rule, code, source)
        reason = reason or inferred_reason
    elif reason is None:
        reason = "unknown"
    try:
        return GameRecord(
            width=width,
            height=height,
            rule=rule,
            black=black,
            white=white,
            moves=tuple(moves),
            result=result,
            reason=reason,
            opening_length=opening_length,
        )
    except RecordFormatError as exc:
        raise RecordFormatError(f"{source}: {exc}") from None


def _infer_psq_result(
    moves: Sequence[Move], width: int, height: int, rule: int, code: int, source: str
) -> tuple[GameResult, str]:
    if rule not in VALID_RULES:
        raise RecordFormatError(f"rule must be one of {sorted(VALID_RULES)}, got {rule!r}")
    seen: set[tuple[int, int]] = set()
    for k, m in enumerate(moves):
        if m.point in seen:
            raise RecordFormatError(f"{source}: move {k + 1} at {m.point} repeats a square")
        seen.add(m.point)
    last_colour = (len(moves) - 1) % 2
    if moves and _last_move_makes_five(moves, width, height, rule, source):
        return (GameResult.BLACK_WIN if last_colour == 0 else GameResult.WHITE_WIN), "five"
    if len(moves) == width * height:
        return GameResult.DRAW, "draw: board full"
    if code != 0:
        # the player to move after the last stone failed to move
        loser_is_black = len(moves) % 2 == 0
        reason = "timeout" if code == PSQ_TIMEOUT_CODE else f"error (PSQ code {code})"
        return (GameResult.WHITE_WIN if loser_is_black else GameResult.BLACK_WIN), reason
    if rule == 4 and moves and last_colour == 0:
        return GameResult.WHITE_WIN, "forbidden"
    raise RecordFormatError(
        f"{source}: cannot infer the result: the last move makes no five under rule {rule}, "
        f"the board is not full and the error code is 0; pass result= (and reason=)"
    )


def _last_move_makes_five(moves: Sequence[Move], width: int, height: int, rule: int,
                          source: str) -> bool:
    """Whether the last of ``moves`` (black first, alternating) wins by five under Gomocup
    rule ``rule``, as the referee judges it."""
    if max(width, height) < 5:
        return False  # no line of five fits
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise RecordFormatError(
            f"{source}: cannot judge the result on a {width}x{height} board (the referee "
            f"plays {MIN_SIZE} to {MAX_SIZE} a side); pass result= (and reason=)")
    board = Board(width, height, Rule.from_gomocup(rule))
    for move in moves[:-1]:
        board.play(board.index(move.x, move.y))
    verdict = judge_move(board, board.index(moves[-1].x, moves[-1].y))
    return verdict is not None and verdict.ending is Ending.FIVE


def read_psq(path: str | Path, **kwargs: Any) -> GameRecord:
    """Read a PSQ file; keyword arguments as for :func:`parse_psq`."""
    path = Path(path)
    return parse_psq(path.read_text(encoding="utf-8", errors="replace"), source=str(path), **kwargs)


# ---------------------------------------------------------------------------------------
# SGF
# ---------------------------------------------------------------------------------------


def _sgf_letter(v: int) -> str:
    return chr(ord("a") + v) if v < 26 else chr(ord("A") + v - 26)


def _sgf_value(v: str) -> int:
    if "a" <= v <= "z":
        return ord(v) - ord("a")
    if "A" <= v <= "Z":
        return ord(v) - ord("A") + 26
    raise ValueError(v)


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def write_sgf(record: GameRecord) -> str:
    """SGF text of ``record`` (see the module docstring for the properties used).

    :raises RecordFormatError: if the board is larger than 52 (SGF's letter range).
    """
    if record.width > _SGF_MAX_SIDE or record.height > _SGF_MAX_SIDE:
        raise RecordFormatError(
            f"SGF coordinates cover at most {_SGF_MAX_SIDE}x{_SGF_MAX_SIDE}, "
            f"board is {record.width}x{record.height}"
        )
    size = str(record.width) if record.width == record.height else f"{record.width}:{record.height}"
    root = [
        "FF[4]",
        "GM[4]",
        "CA[UTF-8]",
        "AP[pbrain-zero arena]",
        f"SZ[{size}]",
        f"RU[{record.rule}]",
        f"PB[{_sgf_escape(record.black)}]",
        f"PW[{_sgf_escape(record.white)}]",
        f"RE[{record.result.sgf}]",
        f"TERM[{_sgf_escape(record.reason)}]",
        f"OPLEN[{record.opening_length}]",
    ]
    if record.started_at is not None:
        root.append(f"DT[{record.started_at.date().isoformat()}]")
        root.append(f"STARTED[{_sgf_escape(record.started_at.isoformat())}]")
    if record.ended_at is not None:
        root.append(f"ENDED[{_sgf_escape(record.ended_at.isoformat())}]")
    nodes = []
    for k, m in enumerate(record.moves):
        colour = "B" if k % 2 == 0 else "W"
        node = f";{colour}[{_sgf_letter(m.x)}{_sgf_letter(m.y)}]"
        if m.time_ms is not None:
            node += f"MT[{m.time_ms}]"
        nodes.append(node)
    return "(;" + "".join(root) + "\n" + "\n".join(nodes) + ")\n"


_SGF_IDENT_RE = re.compile(r"[A-Za-z]+")


def sgf_nodes(text: str, source: str) -> list[list[tuple[str, list[str]]]]:
    """Tokenize a single-variation SGF game (of any game: Go's too) into nodes of
    (property, values).

    :raises RecordFormatError: for malformed SGF, variations or more than one game.
    """
    i, n = 0, len(text)

    def skip_ws() -> None:
        nonlocal i
        while i < n and text[i].isspace():
            i += 1

    skip_ws()
    if i >= n or text[i] != "(":
        raise RecordFormatError(f"{source}: SGF must start with '('")
    i += 1
    nodes: list[list[tuple[str, list[str]]]] = []
    while True:
        skip_ws()
        if i >= n:
            raise RecordFormatError(f"{source}: SGF ended before the closing ')'")
        ch = text[i]
        if ch == ")":
            i += 1
            break
        if ch == "(":
            raise RecordFormatError(f"{source}: SGF variations are not supported")
        if ch != ";":
            raise RecordFormatError(f"{source}: expected ';' at offset {i}, got {ch!r}")
        i += 1
        props: list[tuple[str, list[str]]] = []
        while True:
            skip_ws()
            match = _SGF_IDENT_RE.match(text, i)
            if not match:
                break
            ident = match.group(0)
            i = match.end()
            values: list[str] = []
            skip_ws()
            while i < n and text[i] == "[":
                i += 1
                buf: list[str] = []
                while i < n and text[i] != "]":
                    if text[i] == "\\" and i + 1 < n:
                        i += 1
                    buf.append(text[i])
                    i += 1
                if i >= n:
                    raise RecordFormatError(f"{source}: unterminated value of {ident}")
                i += 1
                values.append("".join(buf))
                skip_ws()
            if not values:
                raise RecordFormatError(f"{source}: property {ident} has no value")
            props.append((ident, values))
        nodes.append(props)
    skip_ws()
    if i != n:
        raise RecordFormatError(f"{source}: only one game per SGF file is supported")
    return nodes


def parse_sgf(text: str, *, source: str = "<string>") -> GameRecord:
    """Read a Gomoku SGF game as written by :func:`write_sgf`.

    Standard SGF from other programs also works when it has ``SZ``, ``RE`` and
    alternating ``B``/``W`` moves; missing ``RU`` means rule 0 and missing players ``?``.

    :raises RecordFormatError: for malformed SGF, variations, non-Gomoku games,
        non-alternating moves or an unknown result.
    """
    nodes = sgf_nodes(text, source)
    if not nodes:
        raise RecordFormatError(f"{source}: SGF has no nodes")
    root = {ident: values for ident, values in nodes[0]}

    def one(ident: str, default: str | None = None) -> str | None:
        return root[ident][0] if ident in root else default

    if one("GM", "4") != "4":
        raise RecordFormatError(f"{source}: GM[{one('GM')}] is not Gomoku (GM[4])")
    size = one("SZ", "15") or "15"
    try:
        if ":" in size:
            width, height = (int(v) for v in size.split(":"))
        else:
            width = height = int(size)
    except ValueError:
        raise RecordFormatError(f"{source}: bad board size SZ[{size}]") from None
    re_value = (one("RE") or "").strip()
    if re_value.startswith("B+"):
        result = GameResult.BLACK_WIN
    elif re_value.startswith("W+"):
        result = GameResult.WHITE_WIN
    elif re_value in ("0", "Draw", "draw"):
        result = GameResult.DRAW
    else:
        raise RecordFormatError(f"{source}: unknown result RE[{re_value}]")

    moves: list[Move] = []
    move_nodes = [props for props in nodes[1:] if props]
    if any(ident in ("B", "W") for ident, _ in nodes[0]):
        move_nodes.insert(0, nodes[0])
    for props in move_nodes:
        d = {ident: values for ident, values in props}
        colours = [c for c in ("B", "W") if c in d]
        if not colours:
            continue
        if len(colours) == 2:
            raise RecordFormatError(f"{source}: a node holds both B and W moves")
        colour = colours[0]
        expected = "B" if len(moves) % 2 == 0 else "W"
        if colour != expected:
            raise RecordFormatError(
                f"{source}: move {len(moves) + 1} is {colour} but {expected} was to move"
            )
        coord = d[colour][0]
        try:
            if len(coord) != 2:
                raise ValueError(coord)
            x, y = _sgf_value(coord[0]), _sgf_value(coord[1])
        except ValueError:
            raise RecordFormatError(
                f"{source}: move {len(moves) + 1} has a bad coordinate {coord!r}"
            ) from None
        t = d.get("MT", [None])[0]
        try:
            time_ms = int(t) if t is not None else None
        except ValueError:
            raise RecordFormatError(f"{source}: bad MT[{t}] on move {len(moves) + 1}") from None
        moves.append(Move(x, y, time_ms))

    try:
        return GameRecord(
            width=width,
            height=height,
            rule=int(one("RU", "0") or 0),
            black=one("PB", "?") or "?",
            white=one("PW", "?") or "?",
            moves=tuple(moves),
            result=result,
            reason=one("TERM", "unknown") or "unknown",
            opening_length=int(one("OPLEN", "0") or 0),
            started_at=_parse_time(one("STARTED"), "STARTED"),
            ended_at=_parse_time(one("ENDED"), "ENDED"),
        )
    except (RecordFormatError, ValueError) as exc:
        raise RecordFormatError(f"{source}: {exc}") from None


def read_sgf(path: str | Path) -> GameRecord:
    """Read an SGF file written by :func:`write_sgf`."""
    path = Path(path)
    return parse_sgf(path.read_text(encoding="utf-8"), source=str(path))


def records_to_games(records: Iterable[GameRecord]) -> list[tuple[str, str, float]]:
    """``(black, white, black_score)`` triples for :func:`arena.stats.fit_bradley_terry`."""
    return [(r.black, r.white, r.black_score) for r in records]
