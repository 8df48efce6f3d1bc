"""Lexical layer shared by both sides of the Gomocup wire format.

Line endings and the line-length cap (:class:`LineSplitter`, :func:`split_lines`,
:func:`strip_line_ending`), the :class:`Point` type for ``x,y`` pairs, the integer syntax
used everywhere on the wire, and the one-line text sanitiser used for outgoing free text.

Integer syntax (commands, moves, stone lines): optional ``-`` then ASCII digits
(``-?[0-9]+``) with at most :data:`MAX_NUMBER_DIGITS` significant digits. A leading ``+``,
underscores (``1_0``, which :func:`int` would accept), non-ASCII digits and decimal points are
rejected. Negative numbers are accepted: range checks belong to the board, not to the parser.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = [
    "MAX_LINE_LENGTH",
    "MAX_NUMBER_DIGITS",
    "MAX_TEXT_LENGTH",
    "LineSplitter",
    "Point",
    "split_lines",
    "strip_line_ending",
]

MAX_LINE_LENGTH: Final = 8192
"""Longest accepted line, in characters, line ending excluded.

Piskvork reads at most about 8000 bytes per line. Longer command lines are rejected with
:class:`~protocol.errors.MalformedCommand`; longer reply lines are truncated (MESSAGE-like
replies) or classified as junk (see :func:`protocol.replies.parse_reply`).
"""

MAX_TEXT_LENGTH: Final = 2000
"""Longest free text (in characters) that the reply formatters put on one line.

2000 characters stay below Piskvork's ~8000-byte line buffer even if every character needs
four bytes in UTF-8; a longer line would be cut by the manager and its tail read as a
separate (possibly move-like) line.
"""

MAX_NUMBER_DIGITS: Final = 18
"""Most significant digits accepted in one integer (so ``|n| < 10**18``).

Managers send 10-digit values (``INFO time_left 2147483647`` for "no game clock",
``INFO max_memory 2147483647``), and memory limits in bytes can be larger still; the cap
keeps :func:`int` cheap and avoids Python's 4300-digit conversion limit on hostile input.
"""

_INT_RE: Final = re.compile(r"-?[0-9]+")
_CONTROL_CHARS: Final = dict.fromkeys([*range(0x00, 0x20), 0x7F], " ")


class Point(NamedTuple):
    """A board square as it appears on the wire: ``x`` is the column, ``y`` the row (0-based).

    ``str(Point(7, 8)) == "7,8"``. Being a tuple, ``Point(7, 8) == (7, 8)``.
    """

    x: int
    y: int

    def __str__(self) -> str:
        return f"{self.x},{self.y}"


def strip_line_ending(line: str) -> str:
    """Return ``line`` without its trailing line terminator(s) and without a leading BOM.

    Any mix of trailing ``\\r`` and ``\\n`` is removed (CRLF, LF, CR and doubled endings).
    Other whitespace is kept. A UTF-8 byte-order mark (``U+FEFF``) that a Windows manager may
    put before its first line is removed as well.
    """
    return line.rstrip("\r\n").lstrip("\ufeff")


def parse_int(token: str, what: str) -> int:
    """Parse one wire integer (see the module docstring), ignoring surrounding whitespace.

    :param what: name of the value for the error message, e.g. ``"TURN x"``.
    :raises ValueError: with a one-line reason if ``token`` is not a valid wire integer.
    """
    text = token.strip()
    if not text:
        raise ValueError(f"{what} is missing")
    if _INT_RE.fullmatch(text) is None:
        raise ValueError(f"{what} must be an integer, got {_short(text)}")
    if len(text.lstrip("-").lstrip("0")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"{what} has more than {MAX_NUMBER_DIGITS} digits: {_short(text)}")
    return int(text)


def parse_numbers(text: str, names: tuple[str, ...], context: str) -> tuple[int, ...]:
    """Parse a comma-separated list of exactly ``len(names)`` wire integers.

    Spaces around the commas and around the whole text are allowed (``"10 , 5"``).

    :param names: the expected field names, e.g. ``("x", "y", "field")``; used to build the
        ``x,y,field`` shape shown in error messages.
    :param context: what is being parsed, e.g. ``"TURN"`` or ``"BOARD line 2"``.
    :raises ValueError: with a one-line reason on a wrong count or a bad number.
    """
    shape = ",".join(names)
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"{context} needs {shape!r}, got nothing")
    parts = stripped.split(",")
    if len(parts) != len(names):
        detail = "no comma" if len(parts) == 1 else f"{len(parts)} comma-separated values"
        raise ValueError(f"{context} needs {shape!r}, got {_short(stripped)} ({detail})")
    return tuple(
        parse_int(part, f"{context} {name}") for part, name in zip(parts, names, strict=True)
    )


def parse_point(text: str, context: str) -> Point:
    """Parse ``x,y`` (spaces around the comma allowed) into a :class:`Point`.

    :raises ValueError: with a one-line reason.
    """
    x, y = parse_numbers(text, ("x", "y"), context)
    return Point(x, y)


def one_line(text: str, limit: int = MAX_TEXT_LENGTH) -> str:
    """Make ``text`` safe to send as (part of) a single protocol line.

    Every line break (anything :meth:`str.splitlines` splits on: CR, LF, CRLF, VT, FF, NEL,
    U+2028/U+2029, ...) becomes one space, the pieces are stripped, other ASCII control
    characters become spaces, and surrounding whitespace is removed. A result longer than
    ``limit`` characters is cut and ends with ``...``. The result may be empty.
    """
    joined = " ".join(piece.strip() for piece in text.splitlines())
    cleaned = joined.translate(_CONTROL_CHARS).strip()
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 3].rstrip() + "..."
    return cleaned


def _short(text: str) -> str:
    """Quoted, length-limited rendering of ``text`` for error messages."""
    if len(text) > 40:
        return repr(text[:40]) + "..."
    return repr(text)


class LineSplitter:
    """Incrementally split a character stream into lines, bounding memory per line.

    Feed it text as it arrives (e.g. decoded chunks from ``os.read`` on a pipe); it returns
    every *completed* line, without its terminator. ``\\r\\n``, ``\\n`` and a lone ``\\r``
    all end a line, and a line ends as soon as its ``\\r`` arrives (a ``\\n`` at the start of
    the next chunk is then recognised as the rest of that CRLF). This matters for managers
    that end lines with CR only: :class:`io.TextIOWrapper` in universal-newline mode may hold a
    trailing ``\\r`` back until more input arrives, which can deadlock a brain waiting for
    ``TURN``. Empty lines are returned as ``""`` (both parsers ignore them).

    Lines longer than ``max_line_length`` are cut to ``max_line_length + 1`` characters and
    the rest of that line is discarded as it arrives. The parsers in this package reject or
    truncate any line longer than :data:`MAX_LINE_LENGTH`, so an over-long line is still
    reported as such while memory stays bounded.
    """

    def __init__(self, max_line_length: int = MAX_LINE_LENGTH) -> None:
        if max_line_length < 1:
            raise ValueError("max_line_length must be positive")
        self._keep = max_line_length + 1
        self._partial = ""
        self._after_cr = False

    def feed(self, data: str) -> list[str]:
        """Add ``data`` and return the lines it completed (possibly none), in order."""
        lines: list[str] = []
        if not data:
            return lines
        if self._after_cr:
            self._after_cr = False
            if data[0] == "\n":
                data = data[1:]
        start = 0
        for match in _BREAK_RE.finditer(data):
            lines.append(self._take(data[start : match.start()]))
            start = match.end()
            if match.group() == "\r" and start == len(data):
                self._after_cr = True
        self._add(data[start:])
        return lines

    def flush(self) -> list[str]:
        """At end of input: return the unterminated last line (if any) as a one-item list.

        Returns ``[]`` when the input ended with a line terminator or nothing is pending.
        """
        if not self._partial:
            return []
        return [self._take("")]

    def _add(self, piece: str) -> None:
        room = self._keep - len(self._partial)
        if room > 0 and piece:
            self._partial += piece[:room]

    def _take(self, piece: str) -> str:
        self._add(piece)
        line, self._partial = self._partial, ""
        return line


_BREAK_RE: Final = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, max_line_length: int = MAX_LINE_LENGTH) -> list[str]:
    """Split complete ``text`` into lines (CRLF, LF or CR), like a :class:`LineSplitter`.

    A final line without a terminator is included; a trailing terminator does not produce an
    extra empty line. Over-long lines are cut as described for :class:`LineSplitter`.
    """
    splitter = LineSplitter(max_line_length)
    return splitter.feed(text) + splitter.flush()
