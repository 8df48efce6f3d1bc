"""Exceptions raised by the Gomocup wire-format parsers.

Every problem with *incoming* text is reported as a :class:`ProtocolError` subclass whose
``str()`` is a short, human-readable, single-line reason suitable for a brain's
``ERROR``/``UNKNOWN`` reply (``error(str(exc))``). Programming errors (building a command
dataclass with a wrong type or value, formatting an empty move list) raise the built-in
:class:`TypeError`/:class:`ValueError` instead.
"""

from __future__ import annotations

__all__ = ["MalformedCommand", "ProtocolError", "UnknownCommand"]


def preview(text: str, limit: int = 60) -> str:
    """``repr()`` of ``text`` cut to ``limit`` characters (with ``...``), for error messages.

    ``repr`` escapes control characters, so the result is always printable on one line.
    """
    if len(text) > limit:
        return repr(text[:limit]) + "..."
    return repr(text)


class ProtocolError(Exception):
    """Base class for every error in text received over the Gomocup protocol.

    :ivar reason: one-line, human-readable explanation (also what ``str(exc)`` returns).
    :ivar line: the offending raw line (line ending removed), or ``None`` when the problem is
        not tied to one line (e.g. a ``BOARD`` block reported at its ``DONE``: then ``line``
        is the ``DONE`` line).
    """

    def __init__(self, reason: str, line: str | None = None) -> None:
        super().__init__(reason, line)
        self.reason = reason
        self.line = line

    def __str__(self) -> str:
        return self.reason


class MalformedCommand(ProtocolError):
    """A known command (or a ``BOARD``/``SWAP2BOARD`` block) whose syntax is wrong.

    Examples: ``TURN 7`` (missing comma), ``START`` without a size, a ``BOARD`` stone line with
    field 4, ``DONE`` outside a block, a line longer than the line-length cap. A brain should
    answer ``ERROR <reason>`` once and keep running.
    """


class UnknownCommand(ProtocolError):
    """The first word of the line is not a command this package understands.

    A brain should answer ``UNKNOWN <reason>`` and keep running (the protocol forbids exiting).

    :ivar word: the unrecognised command word exactly as received (case preserved).
    """

    def __init__(self, word: str, line: str | None = None) -> None:
        super().__init__(f"unknown command {preview(word, 40)}", line)
        # Keep the constructor arguments in ``args`` so that pickling round-trips.
        self.args = (word, line)
        self.word = word
