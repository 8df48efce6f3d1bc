"""The Piskvork/Gomocup wire format, typed, for both ends of the pipe.

Brain side (reads commands, writes replies)::

    from protocol import CommandReader, LineSplitter, MalformedCommand, UnknownCommand
    from protocol import Turn, error, format_move, unknown

    splitter, reader = LineSplitter(), CommandReader()
    for line in splitter.feed(chunk):
        try:
            command = reader.feed(line)
        except UnknownCommand as exc:
            write(unknown(str(exc)))
        except MalformedCommand as exc:
            write(error(str(exc)))
        else:
            if isinstance(command, Turn):
                write(format_move(7, 7))

Manager side (writes commands, reads replies)::

    from protocol import Info, InfoKey, MoveReply, Turn, format_command, parse_reply

    write(format_command(Info(InfoKey.TIME_LEFT, "179000")) + "\\r\\n")
    write(format_command(Turn(10, 5)) + "\\r\\n")
    match parse_reply(read_line()):
        case MoveReply(x, y): ...

Manager side, with a live brain process (:mod:`protocol.client`, loaded on first use)::

    from protocol import BrainProcess

    with BrainProcess.spawn(["./pbrain-foo"]) as brain:
        brain.start(15, rule=0, timeout_turn_ms=1000)
        move = brain.play([(7, 7)], time_left_ms=60000, timeout=2.0).point

Modules: :mod:`protocol.syntax` (lines, limits, :class:`Point`, integer syntax),
:mod:`protocol.commands` (manager-to-brain), :mod:`protocol.replies` (brain-to-manager),
:mod:`protocol.errors` (exceptions), :mod:`protocol.client` (brain processes). Each module
docstring states its tolerance and strictness rules. The "pos" notation (``h8``) is not part
of this package.
"""

from protocol.commands import (
    MAX_BLOCK_STONES,
    About,
    Begin,
    Board,
    Command,
    CommandReader,
    End,
    Field,
    Info,
    InfoKey,
    Play,
    RectStart,
    Restart,
    Start,
    Stone,
    Swap2Board,
    Takeback,
    Turn,
    YxStop,
    command_lines,
    format_command,
    parse_command,
)
from protocol.errors import MalformedCommand, ProtocolError, UnknownCommand
from protocol.replies import (
    EMPTY_TEXT,
    OK,
    SWAP,
    AboutReply,
    DebugReply,
    EmptyReply,
    ErrorReply,
    JunkReply,
    MessageReply,
    MoveReply,
    MovesReply,
    OkReply,
    Reply,
    SuggestReply,
    SwapReply,
    UnknownReply,
    debug,
    error,
    format_about,
    format_move,
    format_moves,
    format_reply,
    message,
    parse_about,
    parse_reply,
    unknown,
)
from protocol.syntax import (
    MAX_LINE_LENGTH,
    MAX_NUMBER_DIGITS,
    MAX_TEXT_LENGTH,
    LineSplitter,
    Point,
    split_lines,
    strip_line_ending,
)

__all__ = [
    "EMPTY_TEXT",
    "MAX_BLOCK_STONES",
    "MAX_LINE_LENGTH",
    "MAX_NUMBER_DIGITS",
    "MAX_TEXT_LENGTH",
    "OK",
    "SWAP",
    "About",
    "AboutReply",
    "Begin",
    "Board",
    "BrainClosed",
    "BrainCrashed",
    "BrainError",
    "BrainProcess",
    "BrainProtocolError",
    "BrainRefused",
    "BrainStartError",
    "BrainTimeout",
    "Command",
    "CommandReader",
    "DebugReply",
    "EmptyReply",
    "End",
    "ErrorReply",
    "Field",
    "IllegalMove",
    "Info",
    "InfoKey",
    "JunkReply",
    "LineSplitter",
    "MalformedCommand",
    "MessageReply",
    "MoveReply",
    "MoveResult",
    "MovesReply",
    "OkReply",
    "Play",
    "Point",
    "ProtocolError",
    "RectStart",
    "Reply",
    "Restart",
    "Start",
    "Stone",
    "SuggestReply",
    "Swap2Board",
    "SwapReply",
    "Takeback",
    "Turn",
    "UnknownCommand",
    "UnknownReply",
    "YxStop",
    "command_lines",
    "debug",
    "error",
    "format_about",
    "format_command",
    "format_move",
    "format_moves",
    "format_reply",
    "message",
    "parse_about",
    "parse_command",
    "parse_reply",
    "split_lines",
    "strip_line_ending",
    "unknown",
]

_CLIENT_NAMES = frozenset(
    {
        "BrainClosed",
        "BrainCrashed",
        "BrainError",
        "BrainProcess",
        "BrainProtocolError",
        "BrainRefused",
        "BrainStartError",
        "BrainTimeout",
        "IllegalMove",
        "MoveResult",
    }
)


def __getattr__(name: str) -> object:
    """Load the manager-side client (:mod:`protocol.client`) on first use, so that a brain
    importing this package does not pay for ``subprocess`` and threads at start-up."""
    if name in _CLIENT_NAMES:
        from protocol import client

        return getattr(client, name)
    raise AttributeError(f"module 'protocol' has no attribute {name!r}")
