"""Rules on real positions: renju fouls from quintet and renju-benchmark, and each rule's
win condition (exact five, caro blocking, white overlines in renju)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brain.game.board import Board, Color
from brain.game.forbidden import Foul, forbidden_kind, is_forbidden
from brain.game.referee import Ending, judge_move
from brain.game.rules import Rule, UnsupportedRuleError


def algebraic(board: Board, point: str, row_one_at_top: bool) -> int:
    """Cell of an upper-case algebraic point such as ``H8`` (the letter I is used)."""
    x = ord(point[0].upper()) - ord("A")
    row = int(point[1:])
    return board.index(x, row - 1 if row_one_at_top else board.height - row)


def load(shared_data: Path, name: str) -> list[dict]:
    lines = (shared_data / "tactics" / name).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def quintet_board(record: dict) -> Board:
    board = Board(15, rule=Rule.RENJU)
    for color, key in ((Color.BLACK, "black"), (Color.WHITE, "white")):
        for point in record[key]:
            board.place(algebraic(board, point, row_one_at_top=False), color)
    return board


def test_every_quintet_forbidden_case(shared_data: Path) -> None:
    records = load(shared_data, "quintet_forbidden.jsonl")
    assert len(records) == 23
    for record in records:
        board = quintet_board(record)
        if record["task"] == "is_forbidden":
            foul = forbidden_kind(board, algebraic(board, record["query"], False))
            assert (foul.value if foul else None) == record["expected"], record["id"]
        else:
            found = {
                (int(cell), forbidden_kind(board, int(cell)).value)
                for cell in board.empty_cells()
                if forbidden_kind(board, int(cell)) is not None
            }
            expected = {
                (algebraic(board, e["point"], False), e["kind"]) for e in record["expected"]
            }
            assert found == expected, record["id"]


def benchmark_board(record: dict) -> Board:
    board = Board(15, rule=Rule.RENJU)
    for y, row in enumerate(record["board"].split("\n")):
        for x, symbol in enumerate(row):
            if symbol != ".":
                board.place(board.index(x, y), Color.BLACK if symbol == "X" else Color.WHITE)
    board.to_move = Color.BLACK if record["side"] == "black" else Color.WHITE
    return board


def test_renju_benchmark_puzzles(shared_data: Path) -> None:
    records = load(shared_data, "renju_benchmark_puzzles.jsonl")
    assert len(records) == 8
    checked = 0
    for record in records:
        board = benchmark_board(record)
        side = board.to_move
        for point in record["forbidden_moves"]:
            cell = algebraic(board, point, row_one_at_top=True)
            assert is_forbidden(board, cell), (record["id"], point)
            checked += 1
        for point in record["best_moves"]:
            cell = algebraic(board, point, row_one_at_top=True)
            if "win" in record["tags"]:
                assert board.makes_five(cell, side), (record["id"], point)
            if side is Color.BLACK:
                assert not is_forbidden(board, cell), (record["id"], point)
            checked += 1
    assert checked >= 10


def line_board(rule: Rule, row: str, y: int = 7, width: int = 15) -> Board:
    """A board with one row of stones written as X (black), O (white) and . (empty)."""
    board = Board(width, rule=rule)
    for x, symbol in enumerate(row):
        if symbol in "XO":
            board.place(board.index(x, y), Color.BLACK if symbol == "X" else Color.WHITE)
    return board


@pytest.mark.parametrize(
    ("rule", "row", "x", "wins"),
    [
        # An overline wins in freestyle, not under exact five.
        (Rule.FREESTYLE, "..XXX.XX.......", 5, True),
        (Rule.STANDARD, "..XXX.XX.......", 5, False),
        (Rule.STANDARD, "..XXXX.........", 6, True),
        # Caro: blocked at both ends by the opponent is no win; the edge does not block.
        (Rule.CARO, ".OXXXX.O.......", 6, False),
        (Rule.CARO, ".OXXXX.........", 6, True),
        (Rule.CARO, "XXXX...........", 4, True),
        (Rule.CARO, "XXXX.O.........", 4, True),
        (Rule.CARO, "OXXXX.XO.......", 5, True),  # six or more always wins in rule 8
        (Rule.CARO_STANDARD, "OXXXX.XO.......", 5, False),
        (Rule.CARO_STANDARD, "..XXXX.O.......", 6, True),
        # Renju: black needs exactly five.
        (Rule.RENJU, "..XXX.XX.......", 5, False),
        (Rule.RENJU, "..XXXX.........", 6, True),
    ],
)
def test_black_five_by_rule(rule: Rule, row: str, x: int, wins: bool) -> None:
    board = line_board(rule, row)
    assert board.makes_five(board.index(x, 7), Color.BLACK) is wins


def test_renju_white_overline_wins_and_black_overline_is_a_foul() -> None:
    board = line_board(Rule.RENJU, "..OOO.OO.......")
    assert board.makes_five(board.index(5, 7), Color.WHITE)
    board = line_board(Rule.RENJU, "..XXX.XX.......")
    assert forbidden_kind(board, board.index(5, 7)) is Foul.OVERLINE


def test_renju_five_beats_a_double_four() -> None:
    # Black at 7,7 makes an exact five across and a four down at the same time.
    board = line_board(Rule.RENJU, "...XXXX........")
    for y in (8, 9, 10):
        board.place(board.index(7, y), Color.BLACK)
    cell = board.index(7, 7)
    assert board.makes_five(cell, Color.BLACK)
    assert forbidden_kind(board, cell) is None


def test_judge_move_reports_five_foul_and_draw() -> None:
    board = line_board(Rule.RENJU, "..XXX.XX.......")
    for cell in (board.index(0, 0), board.index(2, 0)):
        board.place(cell, Color.WHITE)
    board.to_move = Color.BLACK
    verdict = judge_move(board, board.index(5, 7))
    assert verdict is not None and verdict.ending is Ending.FORBIDDEN
    assert verdict.winner is Color.WHITE and verdict.foul is Foul.OVERLINE

    board = line_board(Rule.FREESTYLE, "..XXXX.........")
    board.to_move = Color.BLACK
    verdict = judge_move(board, board.index(6, 7))
    assert verdict is not None and verdict.winner is Color.BLACK
    assert verdict.ending is Ending.FIVE

    # A 5x5 board filled without any five: the last stone draws by a full board.
    rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOO."]
    board = Board(5)
    for y, row in enumerate(rows):
        for x, symbol in enumerate(row):
            if symbol != ".":
                board.place(board.index(x, y), Color.BLACK if symbol == "X" else Color.WHITE)
    board.to_move = Color.BLACK
    verdict = judge_move(board, board.index(4, 4))
    assert verdict is not None and verdict.winner is None
    assert verdict.ending is Ending.BOARD_FULL


def test_unsupported_rule_is_a_clear_error() -> None:
    assert Rule.from_gomocup(9) is Rule.CARO_STANDARD
    for value in (2, 3, 5, 6, 16, -1):
        with pytest.raises(UnsupportedRuleError, match="not supported"):
            Rule.from_gomocup(value)
