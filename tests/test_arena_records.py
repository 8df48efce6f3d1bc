"""Tests for brain.game.records: GameRecord JSON, Piskvork PSQ and SGF."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from arena.stats import fit_bradley_terry
from brain.game.records import (
    PSQ_TIMEOUT_CODE,
    GameRecord,
    GameResult,
    Move,
    RecordFormatError,
    _last_move_makes_five,
    append_jsonl,
    parse_psq,
    parse_sgf,
    read_jsonl,
    read_psq,
    read_sgf,
    records_to_games,
    write_psq,
    write_sgf,
)

PSQ_SAMPLE = Path("/work/shared/data/games/psq_sample/gomocuponline_1x0-16_2.psq")
needs_sample = pytest.mark.skipif(not PSQ_SAMPLE.is_file(), reason="PSQ sample not available")


def _game(**overrides: object) -> GameRecord:
    """A short black win on 15x15: a diagonal five after a 3-stone opening."""
    moves = [
        (7, 7),
        (7, 8),
        (8, 8),  # opening (3 stones)
        (6, 6, 1200),
        (9, 9, 800),
        (5, 5, 950),
        (10, 10, 400),
        (4, 4, 30),
        (11, 11, 1000),  # black five (7,7)…(11,11)
    ]
    fields: dict[str, object] = {
        "width": 15,
        "height": 15,
        "rule": 0,
        "black": "pbrain-zero",
        "white": "pbrain-random",
        "moves": moves,
        "result": GameResult.BLACK_WIN,
        "reason": "five",
        "opening_length": 3,
        "started_at": datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC),
        "ended_at": datetime(2026, 5, 1, 12, 0, 9, 500000, tzinfo=UTC),
        "tags": {"round": "3", "opening_index": "7"},
    }
    fields.update(overrides)
    return GameRecord(**fields)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# GameRecord
# ---------------------------------------------------------------------------------------


def test_game_record_basics() -> None:
    g = _game()
    assert g.moves[0] == Move(7, 7, None)
    assert g.moves[3] == Move(6, 6, 1200)
    assert g.black_score == 1.0
    assert g.winner == "pbrain-zero"
    assert g.score_for("pbrain-random") == 0.0
    assert g.points[-1] == (11, 11)
    with pytest.raises(KeyError, match="did not play"):
        g.score_for("someone")
    draw = _game(result=GameResult.DRAW, reason="draw: board full")
    assert draw.winner is None
    assert draw.score_for("pbrain-zero") == 0.5
    assert GameResult.WHITE_WIN.sgf == "W+"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rule": 2}, "rule must be one of"),
        ({"moves": [(7, 7), (7, 7)], "opening_length": 0}, "on the square of move 1"),
        ({"moves": [(15, 0)], "opening_length": 0}, "outside the 15x15 board"),
        ({"opening_length": 11}, "opening_length 11"),
        ({"moves": [(1, 2, -5)], "opening_length": 0}, "negative time"),
        ({"moves": ["h8"], "opening_length": 0}, "expected Move"),
        ({"result": "black"}, "GameResult"),
        ({"width": 0}, "board size"),
    ],
)
def test_game_record_validation(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(RecordFormatError, match=message):
        _game(**overrides)


def test_json_round_trip() -> None:
    g = _game()
    d = g.to_dict()
    assert d["moves"][0] == [7, 7]
    assert d["moves"][3] == [6, 6, 1200]
    assert d["result"] == "black"
    assert d["started_at"] == "2026-05-01T12:00:00+00:00"
    assert GameRecord.from_dict(d) == g
    assert GameRecord.from_json(g.to_json()) == g
    assert GameRecord.from_json(g.to_json()).tags == {"round": "3", "opening_index": "7"}
    minimal = {k: d[k] for k in ("width", "height", "rule", "black", "white", "moves")}
    minimal |= {"result": "draw", "reason": "draw: board full"}
    assert GameRecord.from_dict(minimal).started_at is None
    with pytest.raises(RecordFormatError, match="missing field\\(s\\): result, reason"):
        GameRecord.from_dict(
            {k: d[k] for k in ("width", "height", "rule", "black", "white")} | {"moves": []}
        )
    with pytest.raises(RecordFormatError, match="'black', 'white' or 'draw'"):
        GameRecord.from_dict(d | {"result": "1-0"})
    with pytest.raises(RecordFormatError, match="ISO 8601"):
        GameRecord.from_dict(d | {"started_at": "yesterday"})
    with pytest.raises(RecordFormatError, match="invalid JSON"):
        GameRecord.from_json("{")


def test_jsonl_log_survives_a_torn_last_line(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    a, b = _game(), _game(black="x", white="y", result=GameResult.WHITE_WIN, reason="timeout")
    append_jsonl(log, a)
    append_jsonl(log, b)
    assert list(read_jsonl(log)) == [a, b]
    with log.open("a") as f:
        f.write(a.to_json()[:40])  # interrupted write
    assert list(read_jsonl(log)) == [a, b]
    log.write_text("not json\n" + a.to_json() + "\n")
    with pytest.raises(RecordFormatError, match=r"games\.jsonl:1"):
        list(read_jsonl(log))


def test_records_feed_the_rating_fit() -> None:
    games = [_game(), _game(black="pbrain-random", white="pbrain-zero")]
    assert records_to_games(games) == [
        ("pbrain-zero", "pbrain-random", 1.0),
        ("pbrain-random", "pbrain-zero", 1.0),
    ]
    fit = fit_bradley_terry(records_to_games(games))
    assert fit.rating("pbrain-zero").elo == pytest.approx(0.0, abs=1e-6)
    assert fit.first_move_advantage > 0


# ---------------------------------------------------------------------------------------
# Win detection used for PSQ result inference
# ---------------------------------------------------------------------------------------


def _line(colours: str, y: int = 7) -> dict[tuple[int, int], int]:
    """Stones along row y from x=0: 'b' black, 'w' white, '.' empty."""
    return {(x, y): "bw".index(c) for x, c in enumerate(colours) if c != "."}


#: Far from every stone of the tests below and two cells apart: they never line up.
_FILLERS = [(x, y) for y in (10, 12, 14) for x in range(0, 15, 2)]


def _makes_five(stones: dict[tuple[int, int], int], x: int, y: int, rule: int) -> bool:
    """Whether the stone at (x, y) of ``stones`` (0 black, 1 white) wins under ``rule``
    when the stones are played in turn with it last, fillers keeping the colours
    alternating: the judgement PSQ result inference makes."""
    last = (x, y)
    own = [p for p, c in stones.items() if c == stones[last] and p != last]
    other = [p for p, c in stones.items() if c != stones[last]]
    fillers = iter(_FILLERS)
    black_last = stones[last] == 0
    while len(other) < len(own) + (0 if black_last else 1):
        other.append(next(fillers))
    while len(own) + (0 if black_last else 1) < len(other):
        own.insert(0, next(fillers))
    own.append(last)
    black, white = (own, other) if black_last else (other, own)
    moves = [Move(*point) for turn in range(len(black))
             for point in (black[turn], *white[turn:turn + 1])]
    assert moves[-1] == Move(*last)
    return _last_move_makes_five(moves, 15, 15, rule, "test")


def test_makes_five_per_rule() -> None:
    five = _line(".bbbbb.")
    six = _line(".bbbbbb")
    assert all(_makes_five(five, 3, 7, rule) for rule in (0, 1, 4, 8, 9))
    assert _makes_five(six, 3, 7, 0)
    assert not _makes_five(six, 3, 7, 1)
    assert not _makes_five(six, 3, 7, 4)  # black overline is no win in renju
    white_six = _line(".wwwwww")
    assert _makes_five(white_six, 3, 7, 4)  # white overline wins in renju
    blocked = _line("wbbbbbw")
    assert _makes_five(blocked, 3, 7, 0)
    assert not _makes_five(blocked, 3, 7, 8)  # caro: blocked at both ends
    assert not _makes_five(blocked, 3, 7, 9)
    edge = _line("bbbbbw")  # the board edge does not block
    assert _makes_five(edge, 0, 7, 8)
    assert _makes_five(_line("wbbbbbbw"), 3, 7, 8)  # caro 8: six always wins
    assert not _makes_five(_line("bbbb"), 1, 7, 0)
    diagonal = {(k, k): 0 for k in range(5)}
    assert _makes_five(diagonal, 2, 2, 0)
    anti = {(k, 4 - k): 1 for k in range(5)}
    assert _makes_five(anti, 4, 0, 1)


# ---------------------------------------------------------------------------------------
# PSQ
# ---------------------------------------------------------------------------------------


@needs_sample
def test_read_psq_sample() -> None:
    g = read_psq(PSQ_SAMPLE)
    assert (g.width, g.height, g.rule) == (20, 20, 0)
    assert len(g.moves) == 16
    assert g.black == "pisq7.exe"
    assert g.white == "renjusolver.ZIP"
    assert g.moves[0] == Move(9, 9, 456)  # "10,10,456" (1-based)
    assert g.moves[-1] == Move(14, 11, 32)  # "15,12,32": white completes five on row 12
    white_row = sorted(m.x for m in g.moves[1::2] if m.y == 11)
    assert white_row == [10, 11, 12, 13, 14]  # 1-based x = 11…15
    assert g.result is GameResult.WHITE_WIN
    assert g.reason == "five"


@needs_sample
def test_psq_round_trip_of_sample() -> None:
    g = read_psq(PSQ_SAMPLE)
    text = write_psq(g)
    assert text.splitlines()[0] == "Piskvorky 20x20, 11:11, 0"
    assert text.splitlines()[1] == "10,10,456"
    assert text.splitlines()[-3:] == ["pisq7.exe", "renjusolver.ZIP", "0"]
    assert parse_psq(text) == g
    # apart from the players' level fields in the header, our output is the sample file
    assert text.splitlines()[1:] == PSQ_SAMPLE.read_text().splitlines()[1:]


def test_psq_writer_reader_round_trip(tmp_path: Path) -> None:
    g = _game(started_at=None, ended_at=None, tags={}, opening_length=0)
    text = write_psq(g)
    assert text.splitlines()[1] == "8,8,0"  # opening move without time is written as 0
    back = parse_psq(text)
    assert back.points == g.points
    assert [m.time_ms or 0 for m in back.moves] == [m.time_ms or 0 for m in g.moves]
    assert (back.black, back.white, back.result, back.reason) == (
        g.black,
        g.white,
        GameResult.BLACK_WIN,
        "five",
    )
    path = tmp_path / "game.psq"
    path.write_text(text)
    assert read_psq(path, opening_length=3).opening_length == 3


def test_psq_header_side_and_error_codes() -> None:
    text = "Piskvorky 15x15, 11:11, 1\n8,8,10\n9,9,20\nfirst.exe\nsecond.exe\n15\n"
    g = parse_psq(text)
    # s = 1: the second listed player moved first
    assert (g.black, g.white) == ("second.exe", "first.exe")
    # code 15 = timeout; after 2 stones black was to move and timed out
    assert g.result is GameResult.WHITE_WIN
    assert g.reason == "timeout"
    crash = parse_psq("Piskvorky 15x15, 0:0, 0\n8,8,10\n3\n")
    assert crash.result is GameResult.BLACK_WIN  # white was to move and failed
    assert crash.reason == "error (PSQ code 3)"
    assert (crash.black, crash.white) == ("?", "?")
    timeout = _game(result=GameResult.WHITE_WIN, reason="timeout", moves=[(1, 1)], opening_length=0)
    assert write_psq(timeout).splitlines()[-1] == str(PSQ_TIMEOUT_CODE)
    crashed = _game(result=GameResult.WHITE_WIN, reason="crash", moves=[(1, 1)], opening_length=0)
    assert write_psq(crashed).splitlines()[-1] == "1"


def test_psq_renju_foul_and_board_full() -> None:
    # rule 4: black's last stone made no five and the game ended with code 0 → foul
    foul = parse_psq("Piskvorky 15x15, 11:11, 0\n8,8,1\n9,9,1\n10,10,1\nb\nw\n0\n", rule=4)
    assert foul.result is GameResult.WHITE_WIN
    assert foul.reason == "forbidden"
    full = "Piskvorky 2x2, 0:0, 0\n1,1,0\n1,2,0\n2,1,0\n2,2,0\n0\n"
    assert parse_psq(full).result is GameResult.DRAW


def test_psq_errors() -> None:
    with pytest.raises(RecordFormatError, match="cannot infer the result"):
        parse_psq("Piskvorky 15x15, 11:11, 0\n8,8,1\n9,9,1\nb\nw\n0\n")
    given = parse_psq(
        "Piskvorky 15x15, 11:11, 0\n8,8,1\n9,9,1\nb\nw\n0\n",
        result=GameResult.DRAW,
        reason="draw: adjudicated",
    )
    assert given.result is GameResult.DRAW and given.reason == "draw: adjudicated"
    with pytest.raises(RecordFormatError, match=r"game\.psq:1: expected a PSQ header"):
        parse_psq("Gomoku 15x15\n", source="game.psq")
    with pytest.raises(RecordFormatError, match="<string>:3: move 16,1 is outside"):
        parse_psq("Piskvorky 15x15, 11:11, 0\n8,8,1\n16,1,1\n0\n")
    with pytest.raises(RecordFormatError, match="repeats a square"):
        parse_psq("Piskvorky 15x15, 11:11, 0\n8,8,1\n8,8,1\n0\n")
    with pytest.raises(RecordFormatError, match="two brain names"):
        parse_psq("Piskvorky 15x15, 11:11, 0\n8,8,1\na\nb\nc\n0\n")
    with pytest.raises(RecordFormatError, match="empty PSQ"):
        parse_psq("\n\n")
    with pytest.raises(RecordFormatError, match="one non-empty line"):
        write_psq(_game(black="bad\nname"))


# ---------------------------------------------------------------------------------------
# SGF
# ---------------------------------------------------------------------------------------


def test_sgf_writer_content() -> None:
    text = write_sgf(_game())
    assert text.startswith("(;FF[4]GM[4]")
    for prop in ("SZ[15]", "RU[0]", "PB[pbrain-zero]", "PW[pbrain-random]", "RE[B+]"):
        assert prop in text
    assert "DT[2026-05-01]" in text
    assert ";B[hh]\n;W[hi]\n;B[ii]" in text  # (7,7), (7,8), (8,8)
    assert ";W[gg]MT[1200]" in text
    assert "TERM[five]" in text and "OPLEN[3]" in text
    white = write_sgf(_game(result=GameResult.WHITE_WIN, reason="timeout"))
    assert "RE[W+]" in white
    assert "RE[0]" in write_sgf(_game(result=GameResult.DRAW, reason="draw: board full"))
    rect = write_sgf(_game(width=20, height=15, tags={}))
    assert "SZ[20:15]" in rect


def test_sgf_round_trip(tmp_path: Path) -> None:
    g = _game(tags={})
    assert parse_sgf(write_sgf(g)) == g
    tricky = _game(
        black="brain [v1.2]",
        white="back\\slash",
        reason="illegal move: 99,99",
        rule=4,
        width=20,
        height=15,
        started_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2))),
        ended_at=None,
        tags={},
    )
    assert parse_sgf(write_sgf(tricky)) == tricky
    path = tmp_path / "g.sgf"
    path.write_text(write_sgf(g))
    assert read_sgf(path) == g
    big = GameRecord(
        width=40,
        height=40,
        rule=0,
        black="a",
        white="b",
        moves=((39, 30), (27, 0)),
        result=GameResult.DRAW,
        reason="draw: adjudicated",
    )
    assert ";B[NE]" in write_sgf(big)  # 39 → N, 30 → E (a–z then A–Z)
    assert parse_sgf(write_sgf(big)) == big


def test_sgf_reader_accepts_plain_sgf_and_rejects_bad_input() -> None:
    plain = parse_sgf("(;GM[4]SZ[15]RE[W+]\n;B[hh];W[ii];B[ig])")
    assert plain.points == ((7, 7), (8, 8), (8, 6))
    assert (plain.black, plain.rule, plain.reason) == ("?", 0, "unknown")
    with pytest.raises(RecordFormatError, match="variations are not supported"):
        parse_sgf("(;GM[4]SZ[15]RE[0](;B[hh])(;B[ii]))")
    with pytest.raises(RecordFormatError, match="unknown result"):
        parse_sgf("(;GM[4]SZ[15]RE[?];B[hh])")
    with pytest.raises(RecordFormatError, match="is W but B was to move"):
        parse_sgf("(;GM[4]SZ[15]RE[0];W[hh])")
    with pytest.raises(RecordFormatError, match="not Gomoku"):
        parse_sgf("(;GM[1]SZ[19]RE[0])")
    with pytest.raises(RecordFormatError, match="must start with"):
        parse_sgf("GM[4]")
    with pytest.raises(RecordFormatError, match="outside the 15x15 board"):
        parse_sgf("(;GM[4]SZ[15]RE[0];B[zz])")
    with pytest.raises(RecordFormatError, match="before the closing"):
        parse_sgf("(;GM[4]SZ[15]RE[0];B[hh]")
