"""Tests for the protocol package: the Gomocup wire format on both sides of the pipe."""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable

import pytest

from protocol import (
    EMPTY_TEXT,
    MAX_LINE_LENGTH,
    MAX_TEXT_LENGTH,
    OK,
    SWAP,
    About,
    AboutReply,
    Begin,
    Board,
    Command,
    CommandReader,
    DebugReply,
    EmptyReply,
    End,
    ErrorReply,
    Field,
    Info,
    InfoKey,
    JunkReply,
    LineSplitter,
    MalformedCommand,
    MessageReply,
    MoveReply,
    MovesReply,
    OkReply,
    Play,
    Point,
    ProtocolError,
    RectStart,
    Reply,
    Restart,
    Start,
    Stone,
    SuggestReply,
    Swap2Board,
    SwapReply,
    Takeback,
    Turn,
    UnknownCommand,
    UnknownReply,
    YxStop,
    command_lines,
    debug,
    error,
    format_about,
    format_command,
    format_move,
    format_moves,
    format_reply,
    message,
    parse_about,
    parse_command,
    parse_reply,
    split_lines,
    unknown,
)


def feed_all(lines: list[str]) -> list[Command]:
    """Feed lines to one reader and collect the completed commands (errors propagate)."""
    reader = CommandReader()
    out: list[Command] = []
    for line in lines:
        command = reader.feed(line)
        if command is not None:
            out.append(command)
    assert not reader.in_block
    return out


def feed_collect(lines: list[str]) -> list[Command | ProtocolError]:
    """Like feed_all, but records protocol errors in the output instead of raising."""
    reader = CommandReader()
    out: list[Command | ProtocolError] = []
    for line in lines:
        try:
            command = reader.feed(line)
        except ProtocolError as exc:
            out.append(exc)
            continue
        if command is not None:
            out.append(command)
    return out


# ---------------------------------------------------------------------------------------------
# Commands: real sessions


def test_piskvork_session_with_crlf() -> None:
    wire = (
        "START 20\r\n"
        "INFO timeout_turn 30000\r\n"
        "INFO timeout_match 180000\r\n"
        "INFO max_memory 367001600\r\n"
        "INFO game_type 2\r\n"
        "INFO rule 1\r\n"
        "INFO folder C:\\My Folder\\x\r\n"
        "INFO time_left 180000\r\n"
        "BEGIN\r\n"
        "INFO time_left 179500\r\n"
        "TURN 10,11\r\n"
        "TAKEBACK 10,11\r\n"
        "RESTART\r\n"
        "END\r\n"
    )
    lines = wire.splitlines(keepends=True)
    assert feed_all(lines) == [
        Start(20),
        Info("timeout_turn", "30000"),
        Info("timeout_match", "180000"),
        Info("max_memory", "367001600"),
        Info("game_type", "2"),
        Info("rule", "1"),
        Info("folder", "C:\\My Folder\\x"),
        Info("time_left", "180000"),
        Begin(),
        Info("time_left", "179500"),
        Turn(10, 11),
        Takeback(10, 11),
        Restart(),
        End(),
    ]


def test_info_folder_keeps_inner_spaces_and_backslashes() -> None:
    (info,) = feed_all(["INFO folder C:\\Program Files\\Gomocup  data\\x\r\n"])
    assert isinstance(info, Info)
    assert info.key == InfoKey.FOLDER
    assert info.value == "C:\\Program Files\\Gomocup  data\\x"


def test_gomocupjudge_session_with_board_opening() -> None:
    lines = [
        "START 15\r\n",
        "INFO timeout_turn 5000\r\n",
        "INFO timeout_match 120000\r\n",
        "INFO max_memory 367001600\r\n",
        "INFO game_type 3\r\n",
        "INFO rule 0\r\n",
        "INFO folder D:\\gomocup\\match\\folder\\0123abcd\r\n",
        "INFO time_left 120000\r\n",
        "BOARD\r\n",
        "7,7,2\r\n",
        "8,8,1\r\n",
        "7,9,2\r\n",
        "DONE\r\n",
        "INFO time_left 118020\r\n",
        "TURN 6,8\r\n",
        "END\r\n",
    ]
    commands = feed_all(lines)
    assert commands[8] == Board(((7, 7, 2), (8, 8, 1), (7, 9, 2)))
    board = commands[8]
    assert isinstance(board, Board)
    assert board.stones[1] == Stone(8, 8, Field.OWN)
    assert board.stones[0].field is Field.OPPONENT
    assert commands[-2:] == [Turn(6, 8), End()]
    assert len(commands) == 12


def test_c_gomoku_cli_session_with_lf() -> None:
    lines = [
        "ABOUT\n",
        "START 15\n",
        "INFO rule 4\n",
        "INFO timeout_turn 5000\n",
        "INFO timeout_match 0\n",
        "INFO max_memory 367001600\n",
        "INFO thread_num 1\n",
        "INFO time_left 2147483647\n",
        "BEGIN\n",
        "INFO time_left 2147483647\n",
        "TURN 7,8\n",
        "YXSTOP\n",
        "START 15\n",
        "END\n",
    ]
    assert feed_all(lines) == [
        About(),
        Start(15),
        Info("rule", "4"),
        Info("timeout_turn", "5000"),
        Info("timeout_match", "0"),
        Info("max_memory", "367001600"),
        Info("thread_num", "1"),
        Info("time_left", "2147483647"),
        Begin(),
        Info("time_left", "2147483647"),
        Turn(7, 8),
        YxStop(),
        Start(15),
        End(),
    ]


def test_cr_only_stream_through_line_splitter() -> None:
    splitter = LineSplitter()
    reader = CommandReader()
    chunks = ["START 20\rINFO time_left -5\rTU", "RN 1,2\r", "\nBOARD\r\n7,7,1\rDONE\r"]
    commands = []
    for chunk in chunks:
        for line in splitter.feed(chunk):
            command = reader.feed(line)
            if command is not None:
                commands.append(command)
    assert commands == [
        Start(20),
        Info("time_left", "-5"),
        Turn(1, 2),
        Board(((7, 7, 1),)),
    ]
    assert splitter.flush() == []


# ---------------------------------------------------------------------------------------------
# Commands: tolerance


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("turn 10,5", Turn(10, 5)),
        ("  TURN   10 , 5  \r\n", Turn(10, 5)),
        ("Turn\t10,\t5\n", Turn(10, 5)),
        ("TURN -1,0", Turn(-1, 0)),
        ("TURN 007,08", Turn(7, 8)),
        ("start 20\r", Start(20)),
        ("RectStart 30 , 20", RectStart(30, 20)),
        ("play 3,4", Play(3, 4)),
        ("takeback 3,4", Takeback(3, 4)),
        ("stop", YxStop()),
        ("YxStop", YxStop()),
        ("\ufeffSTART 15\r\n", Start(15)),
        ("INFO TIMEOUT_TURN 1000", Info("timeout_turn", "1000")),
        ("INFO evaluate 7,7", Info("evaluate", "7,7")),
        ("INFO folder", Info("folder", "")),
        ("end", End()),
    ],
)
def test_tolerant_single_lines(line: str, expected: Command) -> None:
    assert CommandReader().feed(line) == expected


@pytest.mark.parametrize("line", ["", "\r\n", "\n", "\r", "   \t  \r\n"])
def test_blank_lines_are_ignored(line: str) -> None:
    reader = CommandReader()
    assert reader.feed(line) is None
    assert not reader.in_block


def test_info_key_is_lower_cased_and_value_is_raw_text() -> None:
    info = CommandReader().feed("INFO Max_Memory   367001600  ")
    assert info == Info("max_memory", "367001600")
    assert isinstance(info, Info)
    assert info.key == "max_memory"
    assert info.as_int() == 367001600


def test_info_as_int_accepts_negative_and_rejects_text() -> None:
    assert Info("time_left", "-250").as_int() == -250
    with pytest.raises(MalformedCommand, match="INFO time_left value"):
        Info("time_left", "soon").as_int()


# ---------------------------------------------------------------------------------------------
# Commands: blocks


def test_board_with_fields_one_two_three() -> None:
    lines = ["BOARD\r\n", "10,10,1\r\n", "10,11,2\r\n", "11,11,3\r\n", "DONE\r\n"]
    (board,) = feed_all(lines)
    assert isinstance(board, Board)
    assert [s.field for s in board.stones] == [Field.OWN, Field.OPPONENT, Field.CONTINUOUS]
    assert [(s.x, s.y) for s in board.stones] == [(10, 10), (10, 11), (11, 11)]


def test_board_with_zero_stones() -> None:
    assert feed_all(["BOARD\r\n", "DONE\r\n"]) == [Board(())]


def test_board_tolerates_spaces_blank_lines_and_lower_case_done() -> None:
    lines = ["board", " 7 , 7 , 1 ", "", "8,8,2", "done"]
    assert feed_all(lines) == [Board(((7, 7, 1), (8, 8, 2)))]


def test_reader_reports_in_block_until_done() -> None:
    reader = CommandReader()
    assert reader.feed("BOARD") is None
    assert reader.in_block
    assert reader.feed("1,1,1") is None
    assert reader.in_block
    assert reader.feed("DONE") == Board(((1, 1, 1),))
    assert not reader.in_block


@pytest.mark.parametrize(
    ("stone_lines", "expected"),
    [
        ([], ()),
        (["7,7", "8,7", "9,9"], ((7, 7), (8, 7), (9, 9))),
        (["7,7", "8,7", "9,9", "8,8", "8,6"], ((7, 7), (8, 7), (9, 9), (8, 8), (8, 6))),
    ],
)
def test_swap2board_with_zero_three_five_stones(
    stone_lines: list[str], expected: tuple[tuple[int, int], ...]
) -> None:
    (command,) = feed_all(["SWAP2BOARD", *stone_lines, "DONE"])
    assert command == Swap2Board(expected)
    assert isinstance(command, Swap2Board)
    assert all(isinstance(p, Point) for p in command.stones)


def test_swap2board_with_four_stones_is_malformed_at_done() -> None:
    reader = CommandReader()
    for line in ["SWAP2BOARD", "1,1", "2,2", "3,3", "4,4"]:
        assert reader.feed(line) is None
    with pytest.raises(MalformedCommand, match="0, 3 or 5 stones, got 4"):
        reader.feed("DONE")
    assert not reader.in_block


def test_swap2board_line_with_field_is_malformed() -> None:
    results = feed_collect(["SWAP2BOARD", "1,1,1", "2,2", "3,3", "DONE", "TURN 4,4"])
    assert len(results) == 2
    assert isinstance(results[0], MalformedCommand)
    assert "without a field" in str(results[0])
    assert results[1] == Turn(4, 4)


def test_bad_board_lines_are_reported_once_at_done_and_reader_resynchronises() -> None:
    lines = ["BOARD", "7,7,1", "x,8,2", "9,9,4", "10,10", "8,8,2", "DONE", "TURN 1,1"]
    results = feed_collect(lines)
    assert len(results) == 2
    exc = results[0]
    assert isinstance(exc, MalformedCommand)
    assert str(exc).startswith("BOARD line 2: stone x must be an integer, got 'x'")
    assert "2 more bad line(s)" in str(exc)
    assert exc.line == "DONE"
    assert results[1] == Turn(1, 1)


@pytest.mark.parametrize(
    ("bad_line", "reason"),
    [
        ("9,9,4", "field must be 1, 2 or 3, got 4"),
        ("9,9,0", "field must be 1, 2 or 3, got 0"),
        ("9,9", "needs 'x,y,field', got '9,9' (2 comma-separated values)"),
        ("9 9 1", "(no comma)"),
        ("9,9,1,1", "4 comma-separated values"),
        ("9,9,a", "field must be an integer"),
        ("FOO", "got 'FOO' (no comma)"),
    ],
)
def test_single_bad_board_line_reason(bad_line: str, reason: str) -> None:
    reader = CommandReader()
    for line in ["BOARD", "7,7,1", bad_line]:
        assert reader.feed(line) is None
    with pytest.raises(MalformedCommand) as info:
        reader.feed("DONE")
    assert str(info.value).startswith("BOARD line 2: ")
    assert reason in str(info.value)
    assert "more bad line" not in str(info.value)


def test_board_with_arguments_is_consumed_and_reported_at_done() -> None:
    results = feed_collect(["BOARD 7,7,1", "8,8,2", "DONE", "BEGIN"])
    assert len(results) == 2
    assert isinstance(results[0], MalformedCommand)
    assert "BOARD takes no arguments" in str(results[0])
    assert results[1] == Begin()


def test_known_command_inside_board_abandons_block(caplog: pytest.LogCaptureFixture) -> None:
    reader = CommandReader()
    with caplog.at_level(logging.WARNING, logger="protocol"):
        assert reader.feed("BOARD") is None
        assert reader.feed("7,7,1") is None
        assert reader.feed("END") == End()
    assert not reader.in_block
    assert "BOARD block abandoned by END" in caplog.text


def test_new_board_inside_board_restarts_the_block() -> None:
    assert feed_all(["BOARD", "1,1,1", "BOARD", "2,2,2", "DONE"]) == [Board(((2, 2, 2),))]


def test_yxboard_block_is_swallowed_and_reported_once_as_unknown() -> None:
    results = feed_collect(["YXBOARD", "7,7,1", "8,8,2", "DONE", "TURN 3,3"])
    assert len(results) == 2
    assert isinstance(results[0], UnknownCommand)
    assert results[0].word == "YXBOARD"
    assert results[1] == Turn(3, 3)


def test_block_stone_limit_is_enforced() -> None:
    reader = CommandReader()
    reader.feed("BOARD")
    for i in range(10_001):
        reader.feed(f"{i},0,1")
    with pytest.raises(MalformedCommand, match="more than 10000 stones"):
        reader.feed("DONE")


# ---------------------------------------------------------------------------------------------
# Commands: malformed and unknown input


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("TURN a,5", "TURN x must be an integer, got 'a'"),
        ("TURN 10 5", "TURN needs 'x,y', got '10 5' (no comma)"),
        ("TURN 1,2,3", "(3 comma-separated values)"),
        ("TURN", "TURN needs 'x,y', got nothing"),
        ("TURN 1,", "TURN y is missing"),
        ("TURN +1,2", "TURN x must be an integer, got '+1'"),
        ("TURN 1_0,2", "TURN x must be an integer, got '1_0'"),
        ("TURN \u0661,2", "TURN x must be an integer"),
        ("TURN 1.5,2", "TURN x must be an integer, got '1.5'"),
        ("TURN 1234567890123456789,1", "more than 18 digits"),
        ("START", "START needs a board size"),
        ("START abc", "START size must be an integer, got 'abc'"),
        ("START 20 20", "START size must be an integer, got '20 20'"),
        ("START 20,20", "START size must be an integer"),
        ("RECTSTART 30", "RECTSTART needs 'width,height'"),
        ("BEGIN now", "BEGIN takes no arguments, got 'now'"),
        ("END 1", "END takes no arguments"),
        ("INFO", "INFO needs a key"),
        ("DONE", "DONE without a preceding BOARD or SWAP2BOARD"),
        ("TAKEBACK", "TAKEBACK needs 'x,y'"),
    ],
)
def test_malformed_commands(line: str, reason: str) -> None:
    reader = CommandReader()
    with pytest.raises(MalformedCommand) as info:
        reader.feed(line + "\r\n")
    assert reason in str(info.value)
    assert info.value.line == line
    # The reader is still usable afterwards.
    assert reader.feed("TURN 1,1") == Turn(1, 1)


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("FOO", "FOO"),
        ("yxnbest 3", "yxnbest"),
        ("YXSHOWFORBID", "YXSHOWFORBID"),
        ("7,7,1", "7,7,1"),
        ("TURN7,7", "TURN7,7"),
        ("\u017ftart 20", "\u017ftart"),  # the long s upper-cases to S: must not match START
    ],
)
def test_unknown_commands(line: str, word: str) -> None:
    with pytest.raises(UnknownCommand) as info:
        CommandReader().feed(line)
    assert info.value.word == word
    assert str(info.value) == f"unknown command {word!r}"


def test_overlong_line_is_rejected_but_normal_lines_still_work() -> None:
    reader = CommandReader()
    with pytest.raises(MalformedCommand, match=f"longer than {MAX_LINE_LENGTH}"):
        reader.feed("INFO folder " + "a" * MAX_LINE_LENGTH + "\r\n")
    assert reader.feed("INFO folder " + "a" * 100) == Info("folder", "a" * 100)


def test_overlong_line_inside_board_is_reported_at_done() -> None:
    results = feed_collect(["BOARD", "1,1,1", "2" * (MAX_LINE_LENGTH + 1), "DONE"])
    assert len(results) == 1
    assert isinstance(results[0], MalformedCommand)
    assert "BOARD line 2: line longer than" in str(results[0])


def test_embedded_line_break_is_rejected() -> None:
    with pytest.raises(MalformedCommand, match="embedded line break"):
        CommandReader().feed("TURN 1,1\rTURN 2,2\r\n")


def test_exceptions_are_protocol_errors_and_pickle() -> None:
    for exc in (MalformedCommand("bad", "TURN x"), UnknownCommand("FOO", "FOO 1")):
        assert isinstance(exc, ProtocolError)
        copy = pickle.loads(pickle.dumps(exc))
        assert type(copy) is type(exc)
        assert str(copy) == str(exc)
        assert copy.line == exc.line
    copy = pickle.loads(pickle.dumps(UnknownCommand("FOO", "FOO 1")))
    assert isinstance(copy, UnknownCommand)
    assert copy.word == "FOO"


# ---------------------------------------------------------------------------------------------
# Commands: formatting and round trips


@pytest.mark.parametrize(
    ("command", "text"),
    [
        (Start(20), "START 20"),
        (RectStart(30, 20), "RECTSTART 30,20"),
        (Restart(), "RESTART"),
        (Begin(), "BEGIN"),
        (Turn(10, 5), "TURN 10,5"),
        (Takeback(10, 5), "TAKEBACK 10,5"),
        (Play(0, 19), "PLAY 0,19"),
        (Info("Timeout_Turn", "5000"), "INFO timeout_turn 5000"),
        (Info(InfoKey.TIME_LEFT, "-12"), "INFO time_left -12"),
        (Info("folder", "C:\\My Folder\\x"), "INFO folder C:\\My Folder\\x"),
        (End(), "END"),
        (About(), "ABOUT"),
        (YxStop(), "YXSTOP"),
        (Board(()), "BOARD\r\nDONE"),
        (Board(((7, 7, 1), (8, 8, 2), (9, 9, 3))), "BOARD\r\n7,7,1\r\n8,8,2\r\n9,9,3\r\nDONE"),
        (Swap2Board(()), "SWAP2BOARD\r\nDONE"),
        (Swap2Board(((7, 7), (8, 7), (9, 9))), "SWAP2BOARD\r\n7,7\r\n8,7\r\n9,9\r\nDONE"),
    ],
)
def test_format_command_exact_text(command: Command, text: str) -> None:
    assert format_command(command) == text


ROUND_TRIP_COMMANDS: list[Command] = [
    Start(15),
    RectStart(30, 20),
    Restart(),
    Begin(),
    Turn(0, 0),
    Turn(-3, 14),
    Takeback(4, 5),
    Play(6, 7),
    Info("folder", "C:\\My Folder\\x"),
    Info("time_left", "2147483647"),
    Info("rule", ""),
    End(),
    About(),
    YxStop(),
    Board(()),
    Board(((7, 7, 2), (8, 8, 1), (7, 9, 2), (0, 0, 3))),
    Swap2Board(()),
    Swap2Board(((1, 2), (3, 4), (5, 6))),
    Swap2Board(((1, 2), (3, 4), (5, 6), (7, 8), (9, 10))),
]


@pytest.mark.parametrize("newline", ["\r\n", "\n", "\r"])
@pytest.mark.parametrize("command", ROUND_TRIP_COMMANDS, ids=repr)
def test_format_then_parse_round_trip(command: Command, newline: str) -> None:
    text = format_command(command, newline=newline)
    assert not text.endswith(("\r", "\n"))
    assert parse_command(text) == command
    reader = CommandReader()
    results = [reader.feed(line + newline) for line in command_lines(command)]
    assert results[-1] == command
    assert all(r is None for r in results[:-1])


def test_parse_command_rejects_zero_or_several_commands_and_open_blocks() -> None:
    with pytest.raises(MalformedCommand, match="exactly one command, got 0"):
        parse_command("\r\n")
    with pytest.raises(MalformedCommand, match="exactly one command, got 2"):
        parse_command("BEGIN\r\nEND")
    with pytest.raises(MalformedCommand, match="not terminated by DONE"):
        parse_command("BOARD\n7,7,1\n")


def test_command_dataclasses_validate_and_normalise() -> None:
    board = Board([(7, 7, 1), [8, 8, 2]])  # type: ignore[list-item]
    assert board.stones == (Stone(7, 7, Field.OWN), Stone(8, 8, Field.OPPONENT))
    assert isinstance(board.stones[1], Stone)
    assert Info(" folder".strip(), "  spaced value  ").value == "spaced value"
    with pytest.raises(ValueError, match="field must be 1, 2 or 3, got 4"):
        Board(((7, 7, 4),))
    with pytest.raises(ValueError, match="needs"):
        Board(((7, 7),))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Turn("7", 7)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Start(True)
    with pytest.raises(ValueError, match="0, 3 or 5"):
        Swap2Board(((1, 1), (2, 2)))
    with pytest.raises(ValueError, match="invalid INFO key"):
        Info("time left", "5")
    with pytest.raises(ValueError, match="invalid INFO key"):
        Info("", "5")
    with pytest.raises(ValueError, match="one line"):
        Info("folder", "C:\\a\r\nTURN 1,1")
    with pytest.raises(TypeError):
        format_command("TURN 1,1")  # type: ignore[arg-type]


def test_commands_are_frozen_and_hashable() -> None:
    turn = Turn(1, 2)
    with pytest.raises(AttributeError):
        turn.x = 3  # type: ignore[misc]
    assert len({Turn(1, 2), Turn(1, 2), Board(((1, 1, 1),)), Board(((1, 1, 1),))}) == 2
    assert turn.point == Point(1, 2) == (1, 2)
    assert str(turn.point) == "1,2"


# ---------------------------------------------------------------------------------------------
# Line splitting


def test_line_splitter_handles_crlf_split_across_chunks() -> None:
    splitter = LineSplitter()
    assert splitter.feed("A\r") == ["A"]
    assert splitter.feed("\nB\r") == ["B"]
    assert splitter.feed("\n") == []
    assert splitter.feed("\n") == [""]  # a real empty line, not the tail of a CRLF
    assert splitter.feed("C") == []
    assert splitter.flush() == ["C"]
    assert splitter.flush() == []


def test_line_splitter_bounds_overlong_lines() -> None:
    splitter = LineSplitter(max_line_length=10)
    assert splitter.feed("x" * 5) == []
    assert splitter.feed("y" * 100_000) == []
    assert splitter.feed("z\nnext\n") == ["x" * 5 + "y" * 6, "next"]
    assert splitter.feed("") == []
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\r\n") == ["a"]


def test_overlong_line_from_splitter_is_still_rejected_by_reader() -> None:
    (line,) = split_lines("INFO folder " + "p" * 100_000 + "\r\n")
    assert len(line) == MAX_LINE_LENGTH + 1
    with pytest.raises(MalformedCommand, match="longer than"):
        CommandReader().feed(line)


# ---------------------------------------------------------------------------------------------
# Replies: parsing (manager side)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("7,8\r\n", MoveReply(7, 8)),
        ("7,8", MoveReply(7, 8)),
        ("  7 , 8 ", MoveReply(7, 8)),
        ("7,8 ", MoveReply(7, 8)),  # accepted (c-gomoku-cli alone would reject it)
        ("-1,3", MoveReply(-1, 3)),
        ("7,7 8,7 9,9", MovesReply(((7, 7), (8, 7), (9, 9)))),
        ("8,8 8,6\r\n", MovesReply(((8, 8), (8, 6)))),
        ("SWAP", SwapReply()),
        ("swap\r\n", SwapReply()),
        ("OK", OkReply()),
        (" ok \r\n", OkReply()),
        ("ERROR", ErrorReply("")),
        (
            "ERROR Rectangular board is not supported.",
            ErrorReply("Rectangular board is not supported."),
        ),
        ("ERROR Unknown command: YXFOO", ErrorReply("Unknown command: YXFOO")),
        ("UNKNOWN command not implemented", UnknownReply("command not implemented")),
        ("MESSAGE depth 12 eval 35", MessageReply("depth 12 eval 35")),
        ("message   lower case  ", MessageReply("lower case")),
        ("MESSAGE ", MessageReply("")),  # Piskvork: keyword + space is a message
        ("DEBUG nodes=123", DebugReply("nodes=123")),
        ("SUGGEST 7,7", SuggestReply(7, 7)),
        ("", EmptyReply()),
        ("  \r\n", EmptyReply()),
    ],
)
def test_parse_reply(line: str, expected: Reply) -> None:
    assert parse_reply(line) == expected


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("MESSAGE", "bare MESSAGE"),
        ("MESSAGE\r\n", "bare MESSAGE"),
        ("DEBUG", "bare DEBUG"),
        ("MESSAGEhello", "unrecognised"),
        ("OK - everything is good", "OK must be alone"),
        ("SWAP 7,7", "SWAP must be alone"),
        ("SUGGEST", "SUGGEST needs 'x,y'"),
        ("7,8,9", "malformed move"),
        ("7;8", "malformed move"),
        ("7 8", "malformed move"),
        ("7, 8 9,9", "malformed move"),
        ("7,8x", "unrecognised"),
        ("...", "unrecognised"),
        ("1234567890123456789,1", "more than 18 digits"),
        ("Thinking...", "unrecognised"),
        ("FORBID 0707.", "unrecognised"),
    ],
)
def test_parse_reply_junk(line: str, reason: str) -> None:
    reply = parse_reply(line)
    assert isinstance(reply, JunkReply)
    assert reply.raw == line.rstrip("\r\n")
    assert reason in reply.reason


def test_rapfi_style_about_line() -> None:
    line = 'name="Rapfi", version="2024.06", author="Someone", country="China"\r\n'
    reply = parse_reply(line)
    assert isinstance(reply, AboutReply)
    assert reply.fields == {
        "name": "Rapfi",
        "version": "2024.06",
        "author": "Someone",
        "country": "China",
    }
    assert reply.name == "Rapfi"
    assert reply.version == "2024.06"
    assert reply.raw == line.strip()


def test_about_variants() -> None:
    # Unterminated last quote (seen in the wild): the value runs to the end of the line.
    unterminated = parse_reply('name="Kata", others="Modified from another engine ')
    assert isinstance(unterminated, AboutReply)
    assert unterminated.fields == {"name": "Kata", "others": "Modified from another engine"}
    # Unquoted values, upper-case keys, no spaces after commas, commas inside quotes.
    unquoted = parse_reply('NAME=Plain Brain,Version = 1.2,author="Doe, J."')
    assert isinstance(unquoted, AboutReply)
    assert unquoted.fields == {"name": "Plain Brain", "version": "1.2", "author": "Doe, J."}
    # Free text is junk in general, but an AboutReply without fields when ABOUT is expected.
    assert isinstance(parse_reply("pbrain-old 1.0 by Nobody"), JunkReply)
    free = parse_reply("pbrain-old 1.0 by Nobody\r\n", about=True)
    assert free == AboutReply({}, "pbrain-old 1.0 by Nobody")
    assert free.name is None
    assert parse_about("pbrain-old 1.0 by Nobody") == free
    assert parse_about('name="x"').fields == {"name": "x"}
    # A stray quote in an unquoted value means it is not a key=value list.
    assert parse_about('name=a"b').fields == {}


def test_about_mode_still_classifies_keywords_and_moves() -> None:
    assert parse_reply("MESSAGE hello", about=True) == MessageReply("hello")
    assert parse_reply("ERROR unknown command", about=True) == ErrorReply("unknown command")
    assert parse_reply("7,7", about=True) == MoveReply(7, 7)
    assert parse_reply("", about=True) == EmptyReply()


def test_katagomo_style_startup_messages_before_about_reply() -> None:
    """A manager waiting for ABOUT must skip unsolicited MESSAGE/DEBUG/blank lines."""
    output = [
        "MESSAGE Loading neural net model, please wait\r\n",
        "MESSAGE Backend: OpenCL, 1 thread(s)\r\n",
        "\r\n",
        "DEBUG model loaded in 2.3 s\r\n",
        'name="SomeNet", version="20250101", author="A", country="B"\r\n',
    ]
    replies = [parse_reply(line, about=True) for line in output]
    skipped = (MessageReply, DebugReply, EmptyReply)
    first_real = next(r for r in replies if not isinstance(r, skipped))
    assert isinstance(first_real, AboutReply)
    assert first_real.name == "SomeNet"
    assert replies[0] == MessageReply("Loading neural net model, please wait")
    assert sum(isinstance(r, skipped) for r in replies) == 4


def test_overlong_replies() -> None:
    long_message = parse_reply("MESSAGE " + "m" * (MAX_LINE_LENGTH * 2))
    assert isinstance(long_message, MessageReply)
    assert len(long_message.text) == MAX_LINE_LENGTH
    long_move = parse_reply("7,7" + " " * MAX_LINE_LENGTH)
    assert isinstance(long_move, JunkReply)
    assert "longer than" in long_move.reason
    long_ok = parse_reply("OK" + " " * MAX_LINE_LENGTH)
    assert isinstance(long_ok, JunkReply)


# ---------------------------------------------------------------------------------------------
# Replies: formatting (brain side)


def test_format_move_and_moves() -> None:
    assert format_move(7, 8) == "7,8"
    assert format_move(0, 19) == "0,19"
    assert format_moves([(7, 7), (8, 7), (9, 9)]) == "7,7 8,7 9,9"
    assert format_moves([Point(8, 8)]) == "8,8"
    with pytest.raises(ValueError, match="at least one move"):
        format_moves([])
    with pytest.raises(TypeError):
        format_move(True, 1)
    with pytest.raises(TypeError):
        format_move(7.0, 1)  # type: ignore[arg-type]
    assert OK == "OK"
    assert SWAP == "SWAP"


@pytest.mark.parametrize(
    ("build", "keyword", "kind"),
    [
        (error, "ERROR", ErrorReply),
        (unknown, "UNKNOWN", UnknownReply),
        (message, "MESSAGE", MessageReply),
        (debug, "DEBUG", DebugReply),
    ],
)
def test_text_replies_are_one_line_and_never_bare(
    build: Callable[[str], str], keyword: str, kind: Callable[[str], Reply]
) -> None:
    assert build("board too big") == f"{keyword} board too big"
    for empty in ("", "   ", "\r\n", "\n\n\n"):
        line = build(empty)
        assert line == f"{keyword} {EMPTY_TEXT}"
        assert parse_reply(line) == kind(EMPTY_TEXT)
    multi = build("first line\r\nsecond line\nthird\rfourth\u2028fifth\x00!")
    assert multi == f"{keyword} first line second line third fourth fifth !"
    assert split_lines(multi) == [multi]
    long = build("w" * (MAX_TEXT_LENGTH * 3))
    assert len(long) <= len(keyword) + 1 + MAX_TEXT_LENGTH
    assert long.endswith("...")


def test_format_about() -> None:
    line = format_about(
        {"name": "pbrain-zero", "version": "0.1.0", "author": 'The "Zero" Team', "country": "CZ"}
    )
    assert line == ('name="pbrain-zero", version="0.1.0", author="The \'Zero\' Team", country="CZ"')
    reply = parse_reply(line)
    assert isinstance(reply, AboutReply)
    assert reply.fields["author"] == "The 'Zero' Team"
    assert format_about({"name": "a\r\nb"}) == 'name="a b"'
    with pytest.raises(ValueError, match="at least one field"):
        format_about({})
    with pytest.raises(ValueError, match="invalid ABOUT key"):
        format_about({"bad key": "x"})


ROUND_TRIP_REPLIES: list[Reply] = [
    MoveReply(7, 8),
    MoveReply(-1, 0),
    MovesReply(((7, 7), (8, 7), (9, 9))),
    MovesReply(((8, 8), (8, 6))),
    SwapReply(),
    OkReply(),
    ErrorReply("board size 30 not supported"),
    UnknownReply("TAKEBACK not supported"),
    MessageReply("depth 10 ev 25"),
    DebugReply("tt hits 5"),
    SuggestReply(3, 4),
    AboutReply({"name": "pbrain-zero", "version": "0.1.0"}, 'name="pbrain-zero", version="0.1.0"'),
    AboutReply({}, "free text brain"),
    EmptyReply(),
]


@pytest.mark.parametrize("reply", ROUND_TRIP_REPLIES, ids=repr)
def test_format_reply_round_trip(reply: Reply) -> None:
    about = isinstance(reply, AboutReply) and not reply.fields
    assert parse_reply(format_reply(reply), about=about) == reply


def test_format_reply_keeps_junk_raw_and_rejects_other_types() -> None:
    assert format_reply(JunkReply("MESSAGE", "bare")) == "MESSAGE"
    with pytest.raises(TypeError):
        format_reply("7,7")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least two moves"):
        MovesReply(((7, 7),))


def test_ten_digit_info_values_managers_send_are_numbers() -> None:
    # c-gomoku-cli sends time_left 2147483647 before every move of an untimed game, and
    # Piskvork max_memory 2147483647 for limits over 2047 MB.
    for key in ("time_left", "max_memory"):
        assert Info(key, "2147483647").as_int() == 2147483647
