"""Brain-to-manager replies: formatters for the brain, a classifier for the manager.

Brain side: :func:`format_move`, :func:`format_moves`, :data:`OK`, :data:`SWAP`,
:func:`error`, :func:`unknown`, :func:`message`, :func:`debug` and :func:`format_about` build
exactly one line each, without a terminator. Free text is forced onto one line (line breaks
become spaces, other control characters are removed, at most
:data:`~protocol.syntax.MAX_TEXT_LENGTH` characters) and empty text is replaced by
:data:`EMPTY_TEXT`, so a bare ``MESSAGE``/``DEBUG``/``ERROR``/``UNKNOWN`` is never produced.

Manager side: :func:`parse_reply` turns any received line into exactly one :data:`Reply`
value; it never raises on bad input (an unrecognised line becomes :class:`JunkReply` with a
reason, and the manager decides whether that loses the game). The rules, chosen to match what
real managers accept:

* A move is a line matching ``^\\s*-?\\d+\\s*,\\s*-?\\d+\\s*$`` (ASCII digits), the regex
  that managers use: so ``"  7 , 8 "`` and ``"7,8 "`` are moves. (c-gomoku-cli alone rejects
  trailing spaces; our brain never sends them.)
* Two or more space-separated ``x,y`` tokens without spaces inside a token
  (``"7,7 8,7 9,9"``) are a :class:`MovesReply` (Swap2 answers). A single move on a Swap2
  request is a :class:`MoveReply`.
* Keywords are case-insensitive, must be the whole first word, and may be preceded by
  whitespace. ``OK`` and ``SWAP`` must be alone on the line (Piskvork compares the whole
  line). ``ERROR``/``UNKNOWN`` may be bare (empty text).
* ``MESSAGE``/``DEBUG`` follow Piskvork's rule: they are messages only if the keyword is
  followed by whitespace, so ``"MESSAGE "`` is a message with empty text but a bare
  ``"MESSAGE"`` is :class:`JunkReply` (Piskvork would take it as the reply; it is a brain
  bug).
* A line of ``key="value"`` pairs is an :class:`AboutReply`. Commas between pairs are
  optional, unquoted values run to the next comma, and an unterminated last quote takes the
  rest of the line. With ``about=True`` any other non-keyword line becomes an
  :class:`AboutReply` with empty ``fields`` (free-text ABOUT answers are allowed).
* A blank line is :class:`EmptyReply` (managers ignore blank lines).
* Lines longer than :data:`~protocol.syntax.MAX_LINE_LENGTH`: ``MESSAGE``/``DEBUG``/
  ``ERROR``/``UNKNOWN`` keep their text cut to that length; anything else is junk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, TypeAlias

from protocol.syntax import (
    MAX_LINE_LENGTH,
    Point,
    one_line,
    parse_point,
    strip_line_ending,
)

__all__ = [
    "EMPTY_TEXT",
    "OK",
    "SWAP",
    "AboutReply",
    "DebugReply",
    "EmptyReply",
    "ErrorReply",
    "JunkReply",
    "MessageReply",
    "MoveReply",
    "MovesReply",
    "OkReply",
    "Reply",
    "SuggestReply",
    "SwapReply",
    "UnknownReply",
    "debug",
    "error",
    "format_about",
    "format_move",
    "format_moves",
    "format_reply",
    "message",
    "parse_about",
    "parse_reply",
    "unknown",
]

OK: Final = "OK"
"""The only acceptable answer to a successful START, RECTSTART, RESTART or TAKEBACK."""

SWAP: Final = "SWAP"
"""Swap2 answer meaning "I take black"."""

EMPTY_TEXT: Final = "(empty)"
"""Placeholder written by :func:`error`, :func:`unknown`, :func:`message` and :func:`debug`
when their text is empty after cleaning."""


# --------------------------------------------------------------------------------------------
# Reply values


@dataclass(frozen=True, slots=True)
class MoveReply:
    """One move ``x,y``: the answer to BEGIN, TURN, BOARD, PLAY, or a one-move Swap2 answer."""

    x: int
    y: int

    @property
    def point(self) -> Point:
        """The square as a :class:`~protocol.syntax.Point`."""
        return Point(self.x, self.y)


@dataclass(frozen=True, slots=True)
class MovesReply:
    """Two or more moves on one line, ``7,7 8,7 9,9``: a Swap2 answer (3 or 2 moves).

    :raises ValueError: fewer than two moves (one move is a :class:`MoveReply`).
    """

    moves: tuple[Point, ...]

    def __post_init__(self) -> None:
        moves = tuple(Point(*m) for m in self.moves)
        if len(moves) < 2:
            raise ValueError("MovesReply needs at least two moves; use MoveReply for one")
        object.__setattr__(self, "moves", moves)


@dataclass(frozen=True, slots=True)
class SwapReply:
    """``SWAP``: in Swap2, the brain takes black."""


@dataclass(frozen=True, slots=True)
class OkReply:
    """``OK``: START/RECTSTART/RESTART/TAKEBACK succeeded."""


@dataclass(frozen=True, slots=True)
class ErrorReply:
    """``ERROR text``: a known command could not be handled. ``text`` may be empty."""

    text: str


@dataclass(frozen=True, slots=True)
class UnknownReply:
    """``UNKNOWN text``: the command is not implemented. ``text`` may be empty."""

    text: str


@dataclass(frozen=True, slots=True)
class MessageReply:
    """``MESSAGE text``: information for the user or the log; never a reply to a command."""

    text: str


@dataclass(frozen=True, slots=True)
class DebugReply:
    """``DEBUG text``: author-only information; never a reply to a command."""

    text: str


@dataclass(frozen=True, slots=True)
class SuggestReply:
    """``SUGGEST x,y``: a move proposal; the manager may answer ``PLAY x,y``."""

    x: int
    y: int

    @property
    def point(self) -> Point:
        """The square as a :class:`~protocol.syntax.Point`."""
        return Point(self.x, self.y)


@dataclass(frozen=True, slots=True)
class AboutReply:
    """The answer to ABOUT.

    :ivar fields: the ``key="value"`` pairs with lower-cased keys (for a repeated key the last
        value wins); empty when the brain answered with free text.
    :ivar raw: the whole line, stripped.

    Unlike the other replies it is not hashable, because ``fields`` is a dict.
    """

    fields: dict[str, str]
    raw: str

    @property
    def name(self) -> str | None:
        """The ``name`` field, if present."""
        return self.fields.get("name")

    @property
    def version(self) -> str | None:
        """The ``version`` field, if present."""
        return self.fields.get("version")


@dataclass(frozen=True, slots=True)
class JunkReply:
    """A line that is none of the above (including a bare ``MESSAGE``/``DEBUG``).

    :ivar raw: the line without its terminator.
    :ivar reason: why it was not recognised, one line.
    """

    raw: str
    reason: str


@dataclass(frozen=True, slots=True)
class EmptyReply:
    """A blank line (only whitespace). Managers skip it."""


Reply: TypeAlias = (
    MoveReply
    | MovesReply
    | SwapReply
    | OkReply
    | ErrorReply
    | UnknownReply
    | MessageReply
    | DebugReply
    | SuggestReply
    | AboutReply
    | JunkReply
    | EmptyReply
)
"""Any classified brain output line."""


# --------------------------------------------------------------------------------------------
# Formatting (brain side)


def _require_int(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")


def format_move(x: int, y: int) -> str:
    """``"x,y"``, the exact move reply (no spaces, no terminator).

    :raises TypeError: ``x`` or ``y`` is not an int.
    """
    _require_int(x, "x")
    _require_int(y, "y")
    return f"{x},{y}"


def format_moves(moves: Iterable[tuple[int, int]]) -> str:
    """Several moves on one line separated by single spaces: ``"7,7 8,7 9,9"`` (Swap2).

    One move gives the same text as :func:`format_move`.

    :raises ValueError: ``moves`` is empty (an empty line is not a reply).
    :raises TypeError: a coordinate is not an int.
    """
    parts = [format_move(x, y) for x, y in moves]
    if not parts:
        raise ValueError("format_moves needs at least one move")
    return " ".join(parts)


def _keyword_line(keyword: str, text: str) -> str:
    return f"{keyword} {one_line(text) or EMPTY_TEXT}"


def error(reason: str) -> str:
    """``"ERROR reason"`` on one line; never a bare ``ERROR``."""
    return _keyword_line("ERROR", reason)


def unknown(reason: str) -> str:
    """``"UNKNOWN reason"`` on one line; never a bare ``UNKNOWN``."""
    return _keyword_line("UNKNOWN", reason)


def message(text: str) -> str:
    """``"MESSAGE text"`` on one line; never a bare ``MESSAGE``.

    For multi-line text call it once per line (line breaks here become spaces).
    """
    return _keyword_line("MESSAGE", text)


def debug(text: str) -> str:
    """``"DEBUG text"`` on one line; never a bare ``DEBUG``."""
    return _keyword_line("DEBUG", text)


_ABOUT_KEY_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def format_about(fields: Mapping[str, str]) -> str:
    """The ABOUT answer: ``name="pbrain-zero", version="0.1.0", author="...", country="..."``.

    Pairs keep the mapping's order and are separated by ``", "``. Each value is forced onto
    one line and its double quotes are replaced by single quotes (the format has no escape).
    Recommended keys: ``name``, ``version``, ``author``, ``country``, ``www``, ``email``.

    :raises ValueError: ``fields`` is empty, a key is not ``[A-Za-z_][A-Za-z0-9_.-]*``, or
        the line would exceed :data:`~protocol.syntax.MAX_LINE_LENGTH`.
    """
    if not fields:
        raise ValueError("format_about needs at least one field")
    pairs: list[str] = []
    for key, value in fields.items():
        if _ABOUT_KEY_RE.fullmatch(key) is None:
            raise ValueError(f"invalid ABOUT key {key!r}")
        pairs.append(f'{key}="{one_line(value).replace(chr(34), chr(39))}"')
    line = ", ".join(pairs)
    if len(line) > MAX_LINE_LENGTH:
        raise ValueError(f"ABOUT line longer than {MAX_LINE_LENGTH} characters")
    return line


def format_reply(reply: Reply) -> str:
    """The wire line for ``reply`` (useful for fake brains in tests), without a terminator.

    ``parse_reply(format_reply(r)) == r`` for every reply whose text is already one clean
    line and non-empty. Text replies go through :func:`error`/:func:`message`/... (so empty
    text becomes :data:`EMPTY_TEXT`); an :class:`AboutReply` with fields is re-formatted
    with :func:`format_about`, one without fields gives its ``raw`` text; a
    :class:`JunkReply` gives its ``raw`` text unchanged and :class:`EmptyReply` gives ``""``.

    :raises TypeError: ``reply`` is not a :data:`Reply`.
    """
    match reply:
        case MoveReply(x, y):
            return format_move(x, y)
        case MovesReply(moves):
            return format_moves(moves)
        case SwapReply():
            return SWAP
        case OkReply():
            return OK
        case ErrorReply(text):
            return error(text)
        case UnknownReply(text):
            return unknown(text)
        case MessageReply(text):
            return message(text)
        case DebugReply(text):
            return debug(text)
        case SuggestReply(x, y):
            return f"SUGGEST {format_move(x, y)}"
        case AboutReply(fields, raw):
            return format_about(fields) if fields else one_line(raw, MAX_LINE_LENGTH)
        case JunkReply(raw, _):
            return raw
        case EmptyReply():
            return ""
    raise TypeError(f"not a Gomocup reply: {reply!r}")


# --------------------------------------------------------------------------------------------
# Parsing (manager side)

_MOVE_RE: Final = re.compile(r"\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*")
_MOVE_TOKEN_RE: Final = re.compile(r"(-?[0-9]+),(-?[0-9]+)")
_MOVE_LIKE_RE: Final = re.compile(r"(?=.*[0-9])[\s0-9,;.+-]+")
_KEYWORD_RE: Final = re.compile(r"\s*([A-Za-z]+)(?=\s|$)")
_TEXT_KEYWORDS: Final = {
    "ERROR": ErrorReply,
    "UNKNOWN": UnknownReply,
    "MESSAGE": MessageReply,
    "DEBUG": DebugReply,
}
_ABOUT_PAIR_START_RE: Final = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*")
_ABOUT_BARE_VALUE_RE: Final = re.compile(r'[^,"]*')
_ABOUT_SEPARATOR_RE: Final = re.compile(r"\s*,?\s*")


def _about_fields(text: str) -> dict[str, str] | None:
    """Parse a whole line of ``key="value"`` pairs; ``None`` if the line is not one."""
    fields: dict[str, str] = {}
    pos, end = 0, len(text)
    while pos < end:
        start = _ABOUT_PAIR_START_RE.match(text, pos)
        if start is None:
            return None
        key, pos = start.group(1).lower(), start.end()
        if text.startswith('"', pos):
            close = text.find('"', pos + 1)
            if close < 0:  # unterminated last quote: the value is the rest of the line
                value, pos = text[pos + 1 :].strip(), end
            else:
                value, pos = text[pos + 1 : close], close + 1
        else:
            bare = _ABOUT_BARE_VALUE_RE.match(text, pos)
            assert bare is not None  # the pattern also matches the empty string
            value, pos = bare.group().strip(), bare.end()
            if text.startswith('"', pos):
                return None  # a quote in the middle of an unquoted value
        fields[key] = value
        separator = _ABOUT_SEPARATOR_RE.match(text, pos)
        assert separator is not None
        pos = separator.end()
    return fields or None


def parse_about(line: str) -> AboutReply:
    """Interpret ``line`` as the answer to ABOUT; never fails.

    A line of ``key="value"`` pairs gives their ``fields`` (see the module docstring for the
    accepted forms); any other text gives ``fields == {}``. ``raw`` is the stripped line.
    """
    raw = strip_line_ending(line).strip()
    return AboutReply(_about_fields(raw) or {}, raw)


def parse_reply(line: str, *, about: bool = False) -> Reply:
    """Classify one line written by a brain (see the module docstring for the rules).

    :param line: the line, with or without its terminator.
    :param about: the manager is waiting for the ABOUT answer, so free text that is not a
        keyword line or a move becomes an :class:`AboutReply` with empty fields instead of a
        :class:`JunkReply`.
    :returns: exactly one :data:`Reply`; bad input gives :class:`JunkReply`, never an
        exception.
    """
    raw = strip_line_ending(line)
    if not raw.strip():
        return EmptyReply()
    too_long = len(raw) > MAX_LINE_LENGTH
    if "\n" in raw or "\r" in raw:
        return JunkReply(raw, "embedded line break (one line per call)")

    keyword = _KEYWORD_RE.match(raw)
    if keyword is not None:
        word = keyword.group(1).upper()
        after = raw[keyword.end() :]
        rest = after.strip()
        if word in _TEXT_KEYWORDS:
            if word in ("MESSAGE", "DEBUG") and not after:
                return JunkReply(
                    raw, f"bare {word} without text (Piskvork would take it as the reply)"
                )
            return _TEXT_KEYWORDS[word](rest[:MAX_LINE_LENGTH])
        if too_long:
            return JunkReply(raw, f"line longer than {MAX_LINE_LENGTH} characters")
        if word in ("OK", "SWAP"):
            if rest:
                return JunkReply(raw, f"{word} must be alone on its line")
            return OkReply() if word == "OK" else SwapReply()
        if word == "SUGGEST":
            try:
                x, y = parse_point(rest, "SUGGEST")
            except ValueError as exc:
                return JunkReply(raw, str(exc))
            return SuggestReply(x, y)
    elif too_long:
        return JunkReply(raw, f"line longer than {MAX_LINE_LENGTH} characters")

    stripped = raw.strip()
    if _MOVE_RE.fullmatch(raw) is not None:
        try:
            x, y = parse_point(raw, "move")
        except ValueError as exc:
            return JunkReply(raw, str(exc))
        return MoveReply(x, y)
    tokens = stripped.split()
    if len(tokens) >= 2 and all(_MOVE_TOKEN_RE.fullmatch(t) for t in tokens):
        try:
            moves = tuple(parse_point(t, "move") for t in tokens)
        except ValueError as exc:
            return JunkReply(raw, str(exc))
        return MovesReply(moves)

    fields = _about_fields(stripped)
    if fields is not None:
        return AboutReply(fields, stripped)
    if about:
        return AboutReply({}, stripped)
    if _MOVE_LIKE_RE.fullmatch(raw) is not None:
        return JunkReply(raw, "malformed move: expected 'x,y' or space-separated 'x,y' tokens")
    return JunkReply(raw, "unrecognised reply line")
