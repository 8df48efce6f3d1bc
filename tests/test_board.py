"""The incremental board against brute force: line tables, make/unmake, hashing and
symmetry, on random positions of every rule and on rectangular boards."""

from __future__ import annotations

import random

import numpy as np
import pytest

from brain.game.board import DIRECTIONS, Board, BoardSizeError, Color, IllegalMoveError
from brain.game.patterns import Pattern, Threat
from brain.game.rules import Rule
from brain.game.symmetry import Symmetry, transform_point


def brute_five(board: Board, index: int, color: Color, direction: int) -> bool:
    """Whether ``color`` on ``index`` wins along ``direction``, by scanning the line."""
    rule = board.rule.line_rule(color)
    dx, dy = DIRECTIONS[direction]
    x, y = board.xy(index)

    def at(k: int) -> int | None:
        cx, cy = x + k * dx, y + k * dy
        if not (0 <= cx < board.width and 0 <= cy < board.height):
            return None
        return color if k == 0 else board.cells[cy * board.width + cx]

    lo = 0
    while at(lo - 1) == color:
        lo -= 1
    hi = 0
    while at(hi + 1) == color:
        hi += 1
    run = hi - lo + 1
    if run < 5:
        return False
    if run > 5:
        return not rule.exact
    if rule.caro:
        return not (at(lo - 1) == color.opponent and at(hi + 1) == color.opponent)
    return True


def random_position(rule: Rule, width: int, height: int, stones: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board(width, height, rule)
    cells = rng.sample(range(board.size), stones)
    for n, cell in enumerate(cells):
        board.place(cell, Color.BLACK if n % 2 == 0 else Color.WHITE)
    return board


@pytest.mark.parametrize("rule", list(Rule))
def test_five_table_matches_brute_force(rule: Rule) -> None:
    for seed in range(12):
        board = random_position(rule, 15, 15, 110, seed)
        for cell in map(int, board.empty_cells()):
            for color in Color:
                for d in range(4):
                    expected = brute_five(board, cell, color, d)
                    assert (board.pattern(color, cell, d) == Pattern.FIVE) is expected, (
                        rule, seed, board.xy(cell), color, d
                    )


def brute_five_points(board: Board, index: int, color: Color, direction: int) -> int:
    """Empty cells that, after ``color`` plays ``index``, complete a five through it."""
    dx, dy = DIRECTIONS[direction]
    x, y = board.xy(index)
    board.place(index, color)
    count = 0
    for k in range(-4, 5):
        cx, cy = x + k * dx, y + k * dy
        if k == 0 or not (0 <= cx < board.width and 0 <= cy < board.height):
            continue
        cell = cy * board.width + cx
        between = [
            board.cells[(y + j * dy) * board.width + x + j * dx]
            for j in range(min(k, 0) + 1, max(k, 0))
        ]
        joined = all(stone == color for stone in between)
        if board.cells[cell] == 0 and joined and brute_five(board, cell, color, direction):
            count += 1
    board.undo()
    return count


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.STANDARD, Rule.CARO_STANDARD])
def test_four_patterns_match_brute_force(rule: Rule) -> None:
    checked = 0
    for seed in range(6):
        board = random_position(rule, 15, 15, 90, 100 + seed)
        for cell in map(int, board.empty_cells()):
            for color in Color:
                for d in range(4):
                    pattern = board.pattern(color, cell, d)
                    if pattern in (Pattern.FIVE, Pattern.OVERLINE):
                        continue
                    points = brute_five_points(board, cell, color, d)
                    expected = (
                        Pattern.FLEX4 if points >= 2 else Pattern.BLOCK4 if points else None
                    )
                    if expected is None:
                        assert pattern < Pattern.BLOCK4
                    else:
                        assert pattern == expected
                        checked += 1
    assert checked > 100


def test_open_three_and_threat_classes() -> None:
    board = Board(15)
    for x in (6, 7):
        board.place(board.index(x, 7), Color.BLACK)
    assert board.pattern(Color.BLACK, board.index(8, 7), 0) == Pattern.FLEX3
    assert board.pattern(Color.BLACK, board.index(5, 7), 0) == Pattern.FLEX3
    board.place(board.index(4, 7), Color.WHITE)
    # _XX with O at 4: playing 5 gives OXXX_ , a closed three.
    assert board.pattern(Color.BLACK, board.index(5, 7), 0) == Pattern.BLOCK3
    for y in (5, 6):
        board.place(board.index(8, y), Color.BLACK)
    # 8,7 makes an open three across and an open three down: a double three.
    assert board.threat(Color.BLACK, board.index(8, 7)) == Threat.FLEX3_2X


def test_make_unmake_restores_everything() -> None:
    rng = random.Random(7)
    for rule in Rule:
        board = Board(15, rule=rule)
        fresh = (board.keys.copy(), board.patterns.copy(), board.threats.copy(), board.hash)
        for _ in range(5):
            for cell in rng.sample(range(board.size), 80):
                board.play(cell)
            snapshot = board.copy()
            rebuilt = Board(15, rule=rule)
            for cell, color in board.history:
                rebuilt.place(cell, color)
            assert np.array_equal(board.keys, rebuilt.keys)
            assert np.array_equal(board.patterns, rebuilt.patterns)
            assert np.array_equal(board.threats, rebuilt.threats)
            assert board.hash == rebuilt.hash
            assert snapshot.hash == board.hash
            while board.history:
                board.undo()
            assert np.array_equal(board.keys, fresh[0])
            assert np.array_equal(board.patterns, fresh[1])
            assert np.array_equal(board.threats, fresh[2])
            assert board.hash == fresh[3]
            assert board.to_move is Color.BLACK


def test_set_to_copies_a_position_into_a_reused_board() -> None:
    rng = random.Random(11)
    reused = Board(15, rule=Rule.RENJU)
    for _ in range(3):
        source = Board(15, rule=Rule.RENJU)
        for cell in rng.sample(range(source.size), rng.randrange(1, 60)):
            source.play(cell)
        reused.set_to(source)
        assert reused.cells == source.cells and reused.history == source.history
        assert np.array_equal(reused.keys, source.keys)
        assert np.array_equal(reused.patterns, source.patterns)
        assert np.array_equal(reused.threats, source.threats)
        assert (reused.hash, reused.to_move, reused.stone_count) == (
            source.hash, source.to_move, source.stone_count)
        # The copy is independent: playing on it leaves the source as it was.
        before = source.threats.copy()
        reused.play(reused.empty_cells()[0])
        assert np.array_equal(source.threats, before)
        reused.undo()
    with pytest.raises(ValueError, match="15x15 FREESTYLE"):
        Board(15, rule=Rule.RENJU).set_to(Board(15))


def scanned_threat_cells(board: Board, color: Color, low: int, high: int) -> list[int]:
    """threat_cells by a plain scan of the threat array."""
    found = [q for q in range(board.size)
             if board.cells[q] == 0 and low <= board.threats[color][q] <= high]
    return sorted(found, key=lambda q: (-int(board.threats[color][q]), q))


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.RENJU])
def test_threat_queries_agree_with_a_scan_through_moves_undos_and_copies(rule: Rule) -> None:
    # The compiled board answers from per-level counts of the empty cells that every
    # move, undo, copy and set_to must keep exact.
    rng = random.Random(23)
    board, reused = Board(15, rule=rule), Board(15, rule=rule)
    ranges = [(int(Threat.FIVE),) * 2, (int(Threat.BLOCK4), int(Threat.FIVE)),
              (int(Threat.FLEX4),) * 2, (int(Threat.FLEX3), int(Threat.FLEX3_2X)),
              (int(Threat.FLEX2), int(Threat.FLEX3_2X)), (0, int(Threat.FIVE))]
    for step in range(400):
        if board.history and rng.random() < 0.35:
            board.undo()
        else:
            empty = board.empty_cells().tolist()
            # Mostly near the stones, where lines and threats form.
            near = [q for q in empty
                    if any(abs(q % 15 - c % 15) <= 2 and abs(q // 15 - c // 15) <= 2
                           for c, _ in board.history[-6:])]
            board.play(rng.choice(near or empty))
        if step % 50 == 49:
            board = board.copy() if step % 100 == 49 else (reused.set_to(board) or reused)
        for color in Color:
            for low, high in ranges:
                expected = scanned_threat_cells(board, color, low, high)
                assert board.threat_cells(color, low, high) == expected, (step, color, low)
                assert board.has_threat(color, low, high) == bool(expected)


@pytest.mark.parametrize("rule", list(Rule))
def test_threats_after_a_stone_match_placing_it(rule: Rule) -> None:
    for width, height, seed in ((15, 15, 11), (20, 20, 12), (9, 17, 13)):
        board = random_position(rule, width, height, width * height // 4, seed)
        rng = random.Random(seed)
        empty = board.empty_cells()
        for stone in rng.sample(empty.tolist(), 12):
            others = empty[empty != stone]
            for stone_color in Color:
                before = board.threats.copy()
                after = {color: board.threats_after(color, others, stone, stone_color)
                         for color in Color}
                assert np.array_equal(board.threats, before)  # nothing was placed
                board.place(stone, stone_color)
                for color in Color:
                    assert np.array_equal(after[color], board.threats[color][others])
                board.undo()


def test_threats_are_symmetric() -> None:
    board = random_position(Rule.FREESTYLE, 15, 15, 60, 3)
    for symmetry in Symmetry.for_board(15, 15):
        image = Board(15)
        for cell, color in board.history:
            image.place(image.index(*transform_point(board.xy(cell), symmetry, 15, 15)), color)
        for cell in map(int, board.empty_cells()):
            for color in Color:
                mapped = image.index(*transform_point(board.xy(cell), symmetry, 15, 15))
                assert board.threat(color, cell) == image.threat(color, mapped)


def test_rectangular_boards_and_edges() -> None:
    assert len(Symmetry.for_board(20, 12)) == 4 and len(Symmetry.for_board(15, 15)) == 8
    board = Board(20, 7)
    for x in range(16, 20):
        board.place(board.index(x, 6), Color.WHITE)
    assert board.makes_five(board.index(15, 6), Color.WHITE)
    assert board.pattern(Color.WHITE, board.index(15, 6), 0) == Pattern.FIVE
    # Down the short side there is no room for five beyond row 2 .. 6 plus one.
    small = Board(5)
    for y in range(4):
        small.place(small.index(0, y), Color.BLACK)
    assert small.makes_five(small.index(0, 4), Color.BLACK)
    assert small.pattern(Color.BLACK, small.index(1, 4), 0) < Pattern.BLOCK4


def test_sizes_and_illegal_moves_are_clear_errors() -> None:
    for size in (4, 23):
        with pytest.raises(BoardSizeError, match="5 to 22"):
            Board(size)
    Board(22)
    board = Board(15)
    with pytest.raises(IllegalMoveError, match="off the 15x15 board"):
        board.index(15, 3)
    board.play(board.index(3, 3))
    with pytest.raises(IllegalMoveError, match="3,3 is already occupied"):
        board.play(board.index(3, 3))
    board.undo()
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        board.undo()


def test_boards_share_their_line_tables() -> None:
    # A board holds no private copy of the 3 MB tables: thousands of puzzle boards
    # once took gigabytes.
    boards = [Board(15, rule=rule) for rule in (Rule.RENJU, Rule.RENJU, Rule.FREESTYLE)]
    assert boards[0]._tables is boards[1]._tables
    assert boards[0]._tables is not boards[2]._tables
    assert Board(9, rule=Rule.RENJU)._tables is boards[0]._tables
    assert not boards[0]._tables.flags.writeable
