"""The tree search on real positions: forced wins are played, forced losses blocked,
renju fouls avoided, the deadline kept, the tree reused and fixed budgets reproducible."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from puzzle_data import freestyle_vcf_puzzles

from brain.board import Board, Color
from brain.evaluator import HeuristicEvaluator
from brain.mcts import WIN, Mcts, MctsConfig
from brain.rules import Rule


def search(board: Board, playouts: int = 200, seconds: float | None = None) -> tuple[int, Mcts]:
    mcts = Mcts(HeuristicEvaluator(), MctsConfig(playouts=None if seconds else playouts))
    deadline = time.monotonic() + (seconds or 30.0)
    return mcts.search(board, deadline, threading.Event()), mcts


def stones(board: Board, black: list[tuple[int, int]], white: list[tuple[int, int]],
           to_move: Color) -> Board:
    for points, color in ((black, Color.BLACK), (white, Color.WHITE)):
        for x, y in points:
            board.place(board.index(x, y), color)
    board.to_move = to_move
    return board


def test_plays_the_five_and_blocks_the_opponents() -> None:
    board = stones(Board(15), [(3, 3), (4, 4), (5, 5), (6, 6)], [(9, 2), (9, 3), (9, 4)],
                   Color.BLACK)
    move, mcts = search(board)
    assert board.xy(move) in {(2, 2), (7, 7)} and mcts.info.proven == WIN
    board = stones(Board(15), [(3, 3), (4, 4), (5, 5), (6, 6), (0, 14)],
                   [(9, 2), (9, 3), (9, 4), (10, 10)], Color.WHITE)
    move, _ = search(board)
    assert board.xy(move) in {(2, 2), (7, 7)}


def test_stops_an_open_three_that_would_win() -> None:
    # White's open three on row 7; black has nothing: black must stop the open four.
    board = stones(Board(15), [(2, 12), (12, 1)], [(6, 7), (7, 7), (8, 7)], Color.BLACK)
    move, _ = search(board, playouts=300)
    assert board.xy(move) in {(4, 7), (5, 7), (9, 7), (10, 7)}


@pytest.mark.parametrize("puzzle", [p for p in freestyle_vcf_puzzles(every=97) if p.has_vcf][:8],
                         ids=lambda p: p.name)
def test_finds_the_win_in_real_vcf_puzzles(puzzle) -> None:
    move, mcts = search(puzzle.board.copy(), playouts=50)
    assert move in puzzle.winning_first_moves
    assert mcts.info.proven == WIN


def test_black_never_plays_a_renju_foul() -> None:
    # H8 would be black's double three (quintet's first double-three case).
    board = stones(Board(15, rule=Rule.RENJU), [(7, 6), (6, 7), (8, 7), (7, 8)], [(0, 0)],
                   Color.BLACK)
    foul = board.index(7, 7)
    assert board.is_forbidden(foul)
    move, _ = search(board, playouts=200)
    assert move != foul and not board.is_forbidden(move)


def test_fixed_playouts_are_reproducible() -> None:
    board = stones(Board(15), [(7, 7), (8, 8)], [(7, 8), (9, 9)], Color.BLACK)
    first_move, first = search(board.copy(), playouts=120)
    second_move, second = search(board.copy(), playouts=120)
    assert first_move == second_move
    assert first._root is not None and second._root is not None
    assert np.array_equal(first._root.visits, second._root.visits)


def test_keeps_the_deadline_and_reuses_the_tree() -> None:
    board = stones(Board(20), [(10, 10), (11, 11)], [(10, 11), (12, 12)], Color.BLACK)
    mcts = Mcts(HeuristicEvaluator(), MctsConfig())
    start = time.monotonic()
    move = mcts.search(board, start + 0.5, threading.Event())
    assert time.monotonic() - start < 0.5 + 0.1
    assert mcts.info.playouts > 20
    root = mcts._root
    assert root is not None
    child = root.children[root.child_index(move)]
    assert child is not None and child.total > 0
    board.play(move)
    reply = int(child.moves[int(np.argmax(child.visits))])
    grandchild = child.children[child.child_index(reply)]
    board.play(reply)
    mcts.search(board, time.monotonic() + 0.2, threading.Event())
    if grandchild is not None:
        assert mcts._root is grandchild


def test_stop_event_ends_the_search_early() -> None:
    board = stones(Board(15), [(7, 7)], [(8, 8)], Color.BLACK)
    mcts = Mcts(HeuristicEvaluator(), MctsConfig())
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    start = time.monotonic()
    mcts.search(board, start + 10.0, stop)
    assert time.monotonic() - start < 0.6
