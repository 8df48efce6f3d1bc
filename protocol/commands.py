"""Manager-to-brain commands: typed values, an incremental parser and an exact formatter.

The brain side feeds raw lines to a :class:`CommandReader` and gets :data:`Command` values (or
a :class:`~protocol.errors.ProtocolError` subclass); the manager side builds the same values
and writes :func:`format_command` output.

Input tolerance (parser): CRLF, LF or CR line endings; command words in any case; leading,
trailing and repeated whitespace; spaces around commas (``TURN 10 , 5``); blank lines are
ignored everywhere, including inside blocks. Command words must be ASCII.

Strictness (parser): commands without arguments reject extra text (``BEGIN now`` is
malformed), ``START`` needs exactly one integer, ``TURN``/``TAKEBACK``/``PLAY``/``RECTSTART``
need exactly two comma-separated integers, ``BOARD`` lines need exactly ``x,y,field`` with a
field of 1, 2 or 3, ``SWAP2BOARD`` lines exactly ``x,y`` and 0, 3 or 5 of them.

Output (formatter): upper-case command words, lower-case INFO keys, ``x,y`` without spaces,
no trailing line terminator.

Block handling (``BOARD``, ``SWAP2BOARD``, and the Yixin ``YXBOARD``/``YXBLOCK`` blocks that
this package does not implement), chosen so that a brain answers at most once per block:

* Inside a block every line is a stone line until ``DONE``. A bad stone line does not end
  the block: the first problem is remembered (with the count of bad lines) and raised as
  :class:`~protocol.errors.MalformedCommand` at ``DONE``, so the brain answers ``ERROR``
  once, at the moment the manager expects a reply, and the following command is parsed
  normally. ``BOARD`` with text after the word starts the block anyway and is reported the
  same way at ``DONE``.
* A line inside a block whose first word is a known command word other than ``DONE``
  (``END``, ``TURN``, ``BOARD``, ``INFO``, ...) means the manager abandoned the block: the
  block is discarded without any reply (the manager never completed it, so a reply would be
  read as the answer to the *next* command), a warning is logged on the ``protocol.commands``
  logger, and the line is parsed as an ordinary command. So ``END`` is never swallowed.
* ``YXBOARD``/``YXBLOCK`` blocks are consumed up to their ``DONE`` and then reported once as
  :class:`~protocol.errors.UnknownCommand`, instead of one ``UNKNOWN`` per stone line.
* A block keeps at most :data:`MAX_BLOCK_STONES` stones; more is an error reported at ``DONE``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Final, NamedTuple, TypeAlias

from protocol.errors import MalformedCommand, UnknownCommand, preview
from protocol.syntax import (
    MAX_LINE_LENGTH,
    Point,
    parse_int,
    parse_numbers,
    split_lines,
    strip_line_ending,
)

__all__ = [
    "MAX_BLOCK_STONES",
    "UNLIMITED_TIME_MS",
    "About",
    "Begin",
    "Board",
    "Command",
    "CommandReader",
    "End",
    "Field",
    "Info",
    "InfoKey",
    "Play",
    "RectStart",
    "Restart",
    "Start",
    "Stone",
    "Swap2Board",
    "Takeback",
    "Turn",
    "YxStop",
    "command_lines",
    "format_command",
    "parse_command",
]

logger = logging.getLogger(__name__)

MAX_BLOCK_STONES: Final = 10_000
"""Most stone lines kept from one ``BOARD``/``SWAP2BOARD`` block (Piskvork's largest board,
120x80, has 9600 squares). Further lines are counted as errors but not stored."""

SWAP2_STONE_COUNTS: Final = (0, 3, 5)
"""Stone counts that ``SWAP2BOARD`` may carry, per the protocol page."""


class Field(IntEnum):
    """The third number of a ``BOARD`` line, relative to the brain receiving it."""

    OWN = 1
    """The receiving brain's own stone."""
    OPPONENT = 2
    """The opponent's stone."""
    CONTINUOUS = 3
    """Continuous-game mode only: a square in a winning line or a forbidden renju point.
    It is not a stone of either side."""


class Stone(NamedTuple):
    """One ``BOARD`` line: ``x,y,field``. A tuple, so ``Stone(7, 7, Field.OWN) == (7, 7, 1)``."""

    x: int
    y: int
    field: Field


#: The ``INFO time_left`` value that means "no game clock" (only a per-move limit).
UNLIMITED_TIME_MS: Final = 2147483647


class InfoKey(StrEnum):
    """The standard ``INFO`` keys (lower case, as on the wire). :class:`Info` accepts any key."""

    TIMEOUT_TURN = "timeout_turn"
    """Milliseconds per move; 0 means play as fast as possible."""
    TIMEOUT_MATCH = "timeout_match"
    """Milliseconds per game; 0 means no limit."""
    TIME_LEFT = "time_left"
    """Milliseconds left in the game; may be negative; :data:`UNLIMITED_TIME_MS` means
    unlimited."""
    MAX_MEMORY = "max_memory"
    """Memory limit in bytes; 0 means no limit."""
    GAME_TYPE = "game_type"
    """0 human opponent, 1 brain opponent, 2 tournament, 3 network tournament."""
    RULE = "rule"
    """Bit mask: 1 exactly five, 2 continuous game, 4 renju, 8 caro."""
    EVALUATE = "evaluate"
    """``x,y`` of the GUI's mouse cursor; debugging aid, never answered on stdout."""
    FOLDER = "folder"
    """Folder for persistent files; may contain spaces."""


_FORBIDDEN_IN_VALUE: Final = frozenset(
    [chr(c) for c in range(0x20) if c != 0x09] + ["\x7f", "\x85", "\u2028", "\u2029"]
)


def _require_int(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")


def _require_ints(owner: object, *names: str) -> None:
    for name in names:
        _require_int(getattr(owner, name), f"{type(owner).__name__}.{name}")


@dataclass(frozen=True, slots=True)
class Start:
    """``START size``: new game on a square ``size`` x ``size`` board. Answer ``OK``/``ERROR``."""

    size: int

    def __post_init__(self) -> None:
        _require_ints(self, "size")


@dataclass(frozen=True, slots=True)
class RectStart:
    """``RECTSTART width,height``: new game on a rectangular board (``width`` goes with x)."""

    width: int
    height: int

    def __post_init__(self) -> None:
        _require_ints(self, "width", "height")


@dataclass(frozen=True, slots=True)
class Restart:
    """``RESTART``: clear the board, keep its size. Answer ``OK``."""


@dataclass(frozen=True, slots=True)
class Begin:
    """``BEGIN``: the brain plays the first move on the empty board. Answer a move."""


@dataclass(frozen=True, slots=True)
class _AtPoint:
    """A command about one square ``x,y``."""

    x: int
    y: int

    def __post_init__(self) -> None:
        _require_ints(self, "x", "y")

    @property
    def point(self) -> Point:
        """The square as a :class:`~protocol.syntax.Point`."""
        return Point(self.x, self.y)


@dataclass(frozen=True, slots=True)
class Turn(_AtPoint):
    """``TURN x,y``: the opponent played at ``x,y``. Answer a move."""


@dataclass(frozen=True, slots=True)
class Takeback(_AtPoint):
    """``TAKEBACK x,y``: remove the stone at ``x,y`` (undo). Answer ``OK``."""


@dataclass(frozen=True, slots=True)
class Play(_AtPoint):
    """``PLAY x,y``: the manager forces the move the brain just suggested. Answer the move."""


@dataclass(frozen=True, slots=True)
class Board:
    """``BOARD`` + one ``x,y,field`` line per stone + ``DONE``: set the whole position.

    ``stones`` keeps the wire order (move order with all real managers). Plain
    ``(x, y, field)`` tuples and any iterable are accepted and converted to a tuple of
    :class:`Stone` with a :class:`Field`. Coordinates are not range-checked (the board does
    that); the field must be 1, 2 or 3. An empty board is valid (first move of the game).

    :raises TypeError: a coordinate or field is not an int.
    :raises ValueError: a stone is not a triple, or a field is not 1, 2 or 3.
    """

    stones: tuple[Stone, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "stones", tuple(_to_stone(s) for s in self.stones))


def _to_stone(item: Iterable[int]) -> Stone:
    values = tuple(item)
    if len(values) != 3:
        raise ValueError(f"a BOARD stone needs (x, y, field), got {values!r}")
    x, y, field = values
    for value, name in ((x, "x"), (y, "y"), (field, "field")):
        _require_int(value, f"Board stone {name}")
    if field not in (1, 2, 3):
        raise ValueError(f"a BOARD field must be 1, 2 or 3, got {field}")
    return Stone(x, y, Field(field))


@dataclass(frozen=True, slots=True)
class Swap2Board:
    """``SWAP2BOARD`` + 0, 3 or 5 ``x,y`` lines + ``DONE``: a Swap2 opening decision.

    With 0 stones the brain answers three moves (``7,7 8,7 9,9``); with 3 it answers
    ``SWAP``, one move or two moves; with 5 it answers ``SWAP`` or one move. Plain ``(x, y)``
    tuples are converted to :class:`~protocol.syntax.Point`.

    :raises TypeError: a coordinate is not an int.
    :raises ValueError: a stone is not a pair, or the count is not 0, 3 or 5.
    """

    stones: tuple[Point, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "stones", tuple(_to_point(s) for s in self.stones))
        if len(self.stones) not in SWAP2_STONE_COUNTS:
            raise ValueError(f"SWAP2BOARD needs 0, 3 or 5 stones, got {len(self.stones)}")


def _to_point(item: Iterable[int]) -> Point:
    values = tuple(item)
    if len(values) != 2:
        raise ValueError(f"a SWAP2BOARD stone needs (x, y), got {values!r}")
    x, y = values
    _require_int(x, "Swap2Board stone x")
    _require_int(y, "Swap2Board stone y")
    return Point(x, y)


@dataclass(frozen=True, slots=True)
class Info:
    """``INFO key value``: a setting; the brain never answers it.

    ``key`` is stored lower-cased (the wire and :class:`InfoKey` use lower case). ``value`` is
    the raw rest of the line with surrounding whitespace removed, kept as text because values
    differ in kind (integers, ``x,y`` for ``evaluate``, a path with spaces for ``folder``).
    It may be empty. Unknown keys are valid; the brain ignores them.

    :raises TypeError: ``key`` or ``value`` is not a str.
    :raises ValueError: ``key`` is empty or contains whitespace or control characters, or
        ``value`` contains a line break or a control character other than tab.
    """

    key: str
    value: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not isinstance(self.value, str):
            raise TypeError("Info key and value must be str")
        key = str(self.key).lower()
        if not key or not key.isprintable() or any(c.isspace() for c in key):
            raise ValueError(f"invalid INFO key {preview(key)}")
        value = str(self.value).strip()
        if any(c in _FORBIDDEN_IN_VALUE for c in value):
            raise ValueError(
                f"INFO value must be one line without control characters, got {preview(value)}"
            )
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "value", value)

    def as_int(self) -> int:
        """The value as a wire integer (e.g. ``time_left``, which may be negative).

        :raises MalformedCommand: the value is not an integer; the reason names the key.
        """
        try:
            return parse_int(self.value, f"INFO {self.key} value")
        except ValueError as exc:
            raise MalformedCommand(str(exc)) from None


@dataclass(frozen=True, slots=True)
class End:
    """``END``: exit as soon as possible and print nothing more."""


@dataclass(frozen=True, slots=True)
class About:
    """``ABOUT``: answer one line of ``key="value"`` pairs."""


@dataclass(frozen=True, slots=True)
class YxStop:
    """``YXSTOP`` (Yixin) or ``STOP``: stop thinking and answer the best move now.

    Both words parse to this command; :func:`format_command` writes ``YXSTOP``, the word
    c-gomoku-cli sends when a move is overdue.
    """


Command: TypeAlias = (
    Start
    | RectStart
    | Restart
    | Begin
    | Turn
    | Board
    | Info
    | End
    | About
    | Takeback
    | Play
    | Swap2Board
    | YxStop
)
"""Any command a manager can send (a union of the classes above; usable with ``isinstance``)."""


# --------------------------------------------------------------------------------------------
# Formatting (manager side)


def command_lines(cmd: Command) -> list[str]:
    """The wire lines of ``cmd``, without terminators (several for ``BOARD``/``SWAP2BOARD``).

    :raises TypeError: ``cmd`` is not a :data:`Command`.
    """
    match cmd:
        case Start(size):
            return [f"START {size}"]
        case RectStart(width, height):
            return [f"RECTSTART {width},{height}"]
        case Restart():
            return ["RESTART"]
        case Begin():
            return ["BEGIN"]
        case Turn(x, y):
            return [f"TURN {x},{y}"]
        case Takeback(x, y):
            return [f"TAKEBACK {x},{y}"]
        case Play(x, y):
            return [f"PLAY {x},{y}"]
        case Board(stones):
            return ["BOARD", *(f"{x},{y},{int(f)}" for x, y, f in stones), "DONE"]
        case Swap2Board(stones):
            return ["SWAP2BOARD", *(f"{x},{y}" for x, y in stones), "DONE"]
        case Info(key, value):
            return [f"INFO {key} {value}" if value else f"INFO {key}"]
        case End():
            return ["END"]
        case About():
            return ["ABOUT"]
        case YxStop():
            return ["YXSTOP"]
    raise TypeError(f"not a Gomocup command: {cmd!r}")


def format_command(cmd: Command, *, newline: str = "\r\n") -> str:
    """Format ``cmd`` exactly as a manager writes it, without a final line terminator.

    Single-line commands give one line (``"TURN 10,5"``, ``"INFO timeout_turn 5000"``).
    ``BOARD`` and ``SWAP2BOARD`` give their lines joined by ``newline`` (CR LF by default, as
    the protocol specifies); the caller appends the final terminator.

    :raises TypeError: ``cmd`` is not a :data:`Command`.
    """
    return newline.join(command_lines(cmd))


# --------------------------------------------------------------------------------------------
# Parsing (brain side)

_NO_ARGUMENT: Final[dict[str, Command]] = {
    "RESTART": Restart(),
    "BEGIN": Begin(),
    "END": End(),
    "ABOUT": About(),
    "YXSTOP": YxStop(),
    "STOP": YxStop(),
}
_POINT_COMMANDS: Final[dict[str, type[Turn] | type[Takeback] | type[Play]]] = {
    "TURN": Turn,
    "TAKEBACK": Takeback,
    "PLAY": Play,
}
_BLOCKS: Final = frozenset({"BOARD", "SWAP2BOARD"})
_UNSUPPORTED_BLOCKS: Final = frozenset({"YXBOARD", "YXBLOCK"})
_KNOWN_WORDS: Final = frozenset(
    {*_NO_ARGUMENT, *_POINT_COMMANDS, *_BLOCKS, *_UNSUPPORTED_BLOCKS, "START", "RECTSTART", "INFO"}
)


class _Block:
    """State of an open ``BOARD``/``SWAP2BOARD``/``YXBOARD``/``YXBLOCK`` block."""

    __slots__ = ("bad_lines", "first_error", "lines", "stones", "word")

    def __init__(self, word: str) -> None:
        self.word = word
        self.lines = 0
        self.stones: list[tuple[int, ...]] = []
        self.first_error: str | None = None
        self.bad_lines = 0

    def note_error(self, reason: str) -> None:
        self.bad_lines += 1
        if self.first_error is None:
            self.first_error = reason


def _split_word(text: str) -> tuple[str, str]:
    """Split a stripped, non-empty line into (first word, rest stripped)."""
    parts = text.split(None, 1)
    return parts[0], (parts[1].strip() if len(parts) > 1 else "")


def _command_word(word: str) -> str | None:
    """The upper-cased command word if ``word`` is ASCII, else ``None``."""
    return word.upper() if word.isascii() else None


class CommandReader:
    """Incremental parser for the manager-to-brain direction, fed one line at a time.

    Typical use in a brain's reader thread::

        reader = CommandReader()
        for line in lines:                    # e.g. from a LineSplitter
            try:
                command = reader.feed(line)
            except UnknownCommand as exc:
                send(unknown(str(exc)))
                continue
            except MalformedCommand as exc:
                send(error(str(exc)))
                continue
            if command is not None:
                handle(command)

    The reader is not thread-safe; use it from one thread. After an exception it is ready for
    the next line (any block in progress has been closed). See the module docstring for the
    block rules.
    """

    __slots__ = ("_block",)

    def __init__(self) -> None:
        self._block: _Block | None = None

    @property
    def in_block(self) -> bool:
        """True between ``BOARD``/``SWAP2BOARD`` (or ``YXBOARD``/``YXBLOCK``) and ``DONE``."""
        return self._block is not None

    def reset(self) -> None:
        """Forget any block in progress (e.g. after the input stream was reopened)."""
        self._block = None

    def feed(self, line: str) -> Command | None:
        """Parse one raw line (with or without its CR LF / LF / CR terminator).

        :returns: the completed command; ``None`` for a blank line or a line that opens or
            continues a block.
        :raises UnknownCommand: the first word is not a known command (for a ``YXBOARD`` or
            ``YXBLOCK`` block: at its ``DONE``).
        :raises MalformedCommand: a known command with bad arguments, a ``BOARD`` or
            ``SWAP2BOARD`` block with any bad line (raised at its ``DONE``), ``DONE`` outside
            a block, a line longer than :data:`~protocol.syntax.MAX_LINE_LENGTH`, or a
            string containing an embedded line break (feed one line per call).
        """
        raw = strip_line_ending(line)
        problem: str | None = None
        if len(raw) > MAX_LINE_LENGTH:
            problem = f"line longer than {MAX_LINE_LENGTH} characters"
        elif "\n" in raw or "\r" in raw:
            problem = "embedded line break (feed one line per call)"
        text = raw.strip() if problem is None else ""
        if self._block is not None:
            return self._feed_block(text, raw, problem)
        if problem is not None:
            raise MalformedCommand(problem, raw)
        if not text:
            return None
        return self._parse_line(text, raw)

    # -- single-line commands -----------------------------------------------------------------

    def _parse_line(self, text: str, raw: str) -> Command | None:
        word, rest = _split_word(text)
        name = _command_word(word)
        if name is None or (name not in _KNOWN_WORDS and name != "DONE"):
            raise UnknownCommand(word, raw)
        if name in _BLOCKS or name in _UNSUPPORTED_BLOCKS:
            block = _Block(name)
            if rest:
                block.note_error(
                    f"{name} takes no arguments (stones follow on separate lines), "
                    f"got {preview(rest)}"
                )
            self._block = block
            return None
        try:
            return self._parse_simple(name, rest)
        except ValueError as exc:
            raise MalformedCommand(str(exc), raw) from None

    @staticmethod
    def _parse_simple(name: str, rest: str) -> Command:
        """Parse a single-line command; raises ValueError with the reason."""
        if name in _NO_ARGUMENT:
            if rest:
                raise ValueError(f"{name} takes no arguments, got {preview(rest)}")
            return _NO_ARGUMENT[name]
        if name in _POINT_COMMANDS:
            x, y = parse_numbers(rest, ("x", "y"), name)
            return _POINT_COMMANDS[name](x, y)
        if name == "START":
            if not rest:
                raise ValueError("START needs a board size, e.g. 'START 20'")
            return Start(parse_int(rest, "START size"))
        if name == "RECTSTART":
            width, height = parse_numbers(rest, ("width", "height"), "RECTSTART")
            return RectStart(width, height)
        if name == "INFO":
            if not rest:
                raise ValueError("INFO needs a key, e.g. 'INFO timeout_turn 5000'")
            key, value = _split_word(rest)
            return Info(key, value)
        # name == "DONE"
        raise ValueError("DONE without a preceding BOARD or SWAP2BOARD")

    # -- blocks -------------------------------------------------------------------------------

    def _feed_block(self, text: str, raw: str, problem: str | None) -> Command | None:
        block = self._block
        assert block is not None
        if problem is not None:
            block.lines += 1
            block.note_error(f"{block.word} line {block.lines}: {problem}")
            return None
        if not text:
            return None
        word, rest = _split_word(text)
        name = _command_word(word)
        if name == "DONE":
            if rest:
                block.note_error(f"DONE takes no arguments, got {preview(rest)}")
            self._block = None
            return self._finish_block(block, raw)
        if name in _KNOWN_WORDS:
            self._block = None
            logger.warning(
                "%s block abandoned by %s before DONE (%d line(s) discarded)",
                block.word,
                name,
                block.lines,
            )
            return self._parse_line(text, raw)
        block.lines += 1
        if block.word in _UNSUPPORTED_BLOCKS:
            return None
        context = f"{block.word} line {block.lines}"
        names = ("x", "y", "field") if block.word == "BOARD" else ("x", "y")
        try:
            values = parse_numbers(text, names, "stone")
        except ValueError as exc:
            if block.word == "SWAP2BOARD" and text.count(",") == 2:
                block.note_error(f"{context}: SWAP2BOARD lines are 'x,y' without a field")
            else:
                block.note_error(f"{context}: {exc}")
            return None
        if len(values) == 3 and values[2] not in (1, 2, 3):
            block.note_error(f"{context}: field must be 1, 2 or 3, got {values[2]}")
        elif len(block.stones) >= MAX_BLOCK_STONES:
            block.note_error(f"{block.word} has more than {MAX_BLOCK_STONES} stones")
        else:
            block.stones.append(values)
        return None

    @staticmethod
    def _finish_block(block: _Block, raw: str) -> Command:
        if block.word in _UNSUPPORTED_BLOCKS:
            raise UnknownCommand(block.word, raw)
        if block.first_error is not None:
            reason = block.first_error
            if block.bad_lines > 1:
                reason += f" (and {block.bad_lines - 1} more bad line(s) in this block)"
            raise MalformedCommand(reason, raw)
        if block.word == "BOARD":
            return Board(tuple(Stone(x, y, Field(f)) for x, y, f in block.stones))
        if len(block.stones) not in SWAP2_STONE_COUNTS:
            raise MalformedCommand(
                f"SWAP2BOARD needs 0, 3 or 5 stones, got {len(block.stones)}", raw
            )
        return Swap2Board(tuple(Point(x, y) for x, y in block.stones))


def parse_command(text: str) -> Command:
    """Parse the complete text of exactly one command (e.g. the output of
    :func:`format_command`, or ``"BOARD\\n7,7,1\\nDONE"``).

    Blank lines are ignored; line endings may be CR LF, LF or CR.

    :raises UnknownCommand: as for :meth:`CommandReader.feed`.
    :raises MalformedCommand: as for :meth:`CommandReader.feed`, or if ``text`` holds no
        command, more than one command, or a block without ``DONE``.
    """
    reader = CommandReader()
    found: list[Command] = []
    for line in split_lines(text):
        command = reader.feed(line)
        if command is not None:
            found.append(command)
    if reader.in_block:
        raise MalformedCommand("block not terminated by DONE")
    if len(found) != 1:
        raise MalformedCommand(f"expected exactly one command, got {len(found)}")
    return found[0]
