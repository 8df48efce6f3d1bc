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

Running a brain process (spawning it, timing its replies, killing it) is not part of the
wire format: see :mod:`driver.client`.

Modules: :mod:`protocol.syntax` (lines, limits, :class:`Point`, integer syntax),
:mod:`protocol.commands` (manager-to-brain), :mod:`protocol.replies` (brain-to-manager),
:mod:`protocol.analysis` (search reports in MESSAGE lines), :mod:`protocol.errors`
(exceptions). Each module docstring states its tolerance and strictness rules. The "pos"
notation (``h8``) is not part of this package.
"""

from protocol.commands import (
    MAX_BLOCK_STONES,
    UNLIMITED_TIME_MS,
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
    "UNLIMITED_TIME_MS",
    "About",
    "AboutReply",
    "Begin",
    "Board",
    "Command",
    "CommandReader",
    "DebugReply",
    "EmptyReply",
    "End",
    "ErrorReply",
    "Field",
    "Info",
    "InfoKey",
    "JunkReply",
    "LineSplitter",
    "MalformedCommand",
    "MessageReply",
    "MoveReply",
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
