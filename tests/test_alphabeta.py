"""Alpha-beta engine: wins, forced defences, rule variants, deadlines, determinism."""

from __future__ import annotations

import random
import threading
import time

import pytest
from puzzle_data import cell, freestyle_vcf_puzzles, position

from brain.eval.evaluation import candidate_moves
from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.game.tactics import five_cells, four_cells, is_legal, open_four_points, three_defences
from brain.search.alphabeta import LEVELS, MAX_LEVEL, WIN_BOUND, AlphaBetaEngine
from brain.search.solver import Status, solve_vcf

ALL_LEVELS = range(MAX_LEVEL + 1)


def play(engine: AlphaBetaEngine, board: Board, seconds: float = 1.0) -> int:
    before = (bytes(board.cells), list(board.history), board.to_move)
    move = engine.choose_move(board, time.monotonic() + seconds, threading.Event())
    assert (bytes(board.cells), list(board.history), board.to_move) == before
    assert board.is_empty(move)
    return move


def answers_to_three(board: Board, attacker: Color) -> list[int]:
    """The real defences against ``attacker``'s live three, and the defender's fours."""
    defences = three_defences(board, attacker, open_four_points(board, attacker))
    return defences + four_cells(board, attacker.opponent)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_plays_its_five(level: int) -> None:
    # Black has a four (E8-H8, D8 blocked) and white an open three elsewhere.
    board = position("E8 F8 G8 H8 H10", "D8 C3 D3 E3 L12", Color.BLACK)
    engine = AlphaBetaEngine(level)
    assert play(engine, board) == cell("I8")
    assert engine.info.source == "forced"


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_blocks_a_five(level: int) -> None:
    board = position("E8 F8 G8 H8 C12", "D8 H9 H10 H11 L2", Color.WHITE)
    assert play(AlphaBetaEngine(level), board) == cell("I8")


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_meets_an_open_three(level: int) -> None:
    # Black's G8-I8 three would become an open four; white has nothing forcing.
    board = position("G8 H8 I8 H12", "G7 J9 B2", Color.WHITE)
    them = Color.BLACK
    defences = three_defences(board, them, open_four_points(board, them))
    move = play(AlphaBetaEngine(level), board)
    assert move in defences
    board.play(move)
    assert not open_four_points(board, them)


@pytest.mark.parametrize("level", range(2, MAX_LEVEL + 1))
def test_wins_a_vcf(level: int) -> None:
    puzzle = next(p for p in freestyle_vcf_puzzles(every=20)
                  if p.has_vcf and p.board.move_count >= 14)
    engine = AlphaBetaEngine(level)
    move = play(engine, puzzle.board, seconds=5.0)
    assert move in puzzle.winning_first_moves
    assert engine.info.source == "vcf" and engine.info.score is not None
    assert engine.info.score > WIN_BOUND


def test_search_finds_a_four_three() -> None:
    # A four-three in two moves (no solver at level 1): F8 makes a four with G8-I8 and
    # a three on the F column.
    board = position("G8 H8 I8 F6 F7 B14", "J8 A1 A3 A5 O15 O13", Color.BLACK)
    engine = AlphaBetaEngine(1)
    move = play(engine, board)
    board.play(move)
    assert five_cells(board, Color.BLACK) or open_four_points(board, Color.BLACK)
    assert engine.info.score is not None and engine.info.score > WIN_BOUND


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_renju_black_avoids_a_double_three(level: int) -> None:
    # H8 would make two open threes for black (G8-I8 and H7-H9): forbidden.
    board = position("G8 I8 H7 H9", "A1 A3 O1 O3", Color.BLACK, Rule.RENJU)
    foul = cell("H8")
    assert is_forbidden(board, foul)
    move = play(AlphaBetaEngine(level), board)
    assert move != foul and not is_forbidden(board, move)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_renju_black_lost_to_a_foul_block_still_plays_legally(level: int) -> None:
    # White's four E5-H8 (D4 is black) can only be blocked at I9, a 3-3 for black.
    board = position("H9 G9 I10 I11 D4 M2", "E5 F6 G7 H8 J10 A15", Color.BLACK, Rule.RENJU)
    assert five_cells(board, Color.WHITE) == [cell("I9")]
    assert is_forbidden(board, cell("I9"))
    move = play(AlphaBetaEngine(level), board)
    assert not is_forbidden(board, move)


@pytest.mark.parametrize("level", ALL_LEVELS)
def test_exact_five_six_is_no_win(level: int) -> None:
    # White's H4 would make six on the H column, no win under exact five, and black has
    # an open three (G8-I8): white must meet it (GomocupJudge's standard-rule case).
    white = "H1 H2 H3 H5 H6"
    black = "G8 H8 I8 B14 N14"
    board = position(black, white, Color.WHITE, Rule.STANDARD)
    move = play(AlphaBetaEngine(level), board)
    assert move != cell("H4")
    assert move in answers_to_three(board, Color.BLACK)
    free = position(black, white, Color.WHITE, Rule.FREESTYLE)
    assert play(AlphaBetaEngine(level), free) == cell("H4")


@pytest.mark.parametrize("level", ALL_LEVELS)
@pytest.mark.parametrize("rule", [Rule.CARO, Rule.CARO_STANDARD])
def test_caro_five_blocked_at_both_ends_is_no_win(level: int, rule: Rule) -> None:
    # Black's F10 would give OXXXXXO, no caro win; white has an open three F5-H5 that
    # black must meet (GomocupJudge's caro case).
    board = position("B10 C10 D10 E10 N2 N4", "A10 G10 F5 G5 H5", Color.BLACK, rule)
    assert not five_cells(board, Color.BLACK)
    move = play(AlphaBetaEngine(level), board)
    assert move != cell("F10")
    assert move in answers_to_three(board, Color.WHITE)


def middle_game() -> Board:
    board = Board(15)
    for name in ["H8", "G9", "H9", "H10", "I9", "G10", "G11", "F9", "J10", "K11", "I7", "I8"]:
        board.play(cell(name))
    return board


@pytest.mark.parametrize("seconds", [0.05, 0.3, 1.0])
def test_answers_before_the_deadline(seconds: float) -> None:
    board = middle_game()
    engine = AlphaBetaEngine(MAX_LEVEL)
    start = time.monotonic()
    move = engine.choose_move(board, start + seconds, threading.Event())
    elapsed = time.monotonic() - start
    assert elapsed < seconds + 0.01, elapsed
    assert board.is_empty(move)
    assert engine.info.summary().startswith(("search", "vcf", "vct"))


def test_a_deepening_that_cannot_finish_starts_only_when_no_clock_keeps_the_time() -> None:
    # A balanced opening of a match against PentaZen, three moves on: after depth 6 the
    # next iteration cannot get half way in 0.5 s; it starts only with ``use_all``.
    board = Board(15)
    for x, y in ((7, 7), (6, 9), (4, 5), (8, 9), (4, 6), (8, 7)):
        board.play(board.index(x, y))
    spent: dict[bool, float] = {}
    for use_all in (False, True):
        start = time.monotonic()
        AlphaBetaEngine(MAX_LEVEL).choose_move(board, start + 0.5, threading.Event(),
                                               use_all=use_all)
        spent[use_all] = time.monotonic() - start
    # Here (compiled, an idle machine) the first stopped after 0.26 s; slower code or a
    # loaded machine may let it deepen to the deadline too.
    assert 0.4 <= spent[True] < 0.5, spent
    assert spent[False] <= spent[True] + 0.02, spent


def test_stop_flag_ends_the_search() -> None:
    stop = threading.Event()
    stop.set()
    engine = AlphaBetaEngine(MAX_LEVEL)
    start = time.monotonic()
    move = engine.choose_move(middle_game(), start + 30, stop)
    assert time.monotonic() - start < 1.0
    assert middle_game().is_empty(move)


@pytest.mark.parametrize("level", [0, 1, 2])
def test_deterministic_for_a_seed(level: int) -> None:
    board = middle_game()
    runs = []
    for _ in range(2):
        engine = AlphaBetaEngine(level, seed=7)
        move = play(engine, board, seconds=30)
        runs.append((move, engine.info.nodes, engine.info.pv))
    assert runs[0] == runs[1]


def test_levels_grow_in_depth() -> None:
    depths = [level.max_depth for level in LEVELS]
    assert depths == sorted(depths) and depths[0] == 0


def test_rejects_a_bad_level_and_a_full_board() -> None:
    with pytest.raises(ValueError):
        AlphaBetaEngine(MAX_LEVEL + 1)
    board = Board(5)
    for index in range(25):
        board.play(index)
    with pytest.raises(ValueError):
        AlphaBetaEngine(0).choose_move(board, time.monotonic() + 1, threading.Event())


def test_defends_against_an_opponent_vcf() -> None:
    # A labelled puzzle with the solver's opponent to move: the attacker's VCF must be
    # stopped, and some moves do stop it.
    puzzle = next(p for p in freestyle_vcf_puzzles(every=20)
                  if p.has_vcf and p.board.move_count >= 16)
    board = puzzle.board.copy()
    board.to_move = board.to_move.opponent
    assert solve_vcf(board, max_nodes=2_000).status is not Status.WIN
    holds = []
    for move in candidate_moves(board).moves:
        board.play(move)
        if solve_vcf(board, max_nodes=2_000).status is Status.NO_WIN:
            holds.append(move)
        board.undo()
    assert holds
    move = play(AlphaBetaEngine(MAX_LEVEL), board, seconds=3.0)
    assert move in holds


@pytest.mark.parametrize("rule", list(Rule))
def test_short_games_stay_legal_and_on_time(rule: Rule) -> None:
    # Levels 4 and 2 play from a seeded random opening at 50 ms a move: every move is
    # on an empty cell, never a renju foul while a legal cell exists, and on time.
    rng = random.Random(int(rule))
    board = Board(15, rule=rule)
    for index in rng.sample(range(225), 3):
        board.play(index)
    engines = {Color.BLACK: AlphaBetaEngine(MAX_LEVEL), Color.WHITE: AlphaBetaEngine(2)}
    for _ in range(40):
        me = board.to_move
        start = time.monotonic()
        move = engines[me].choose_move(board.copy(), start + 0.05, threading.Event())
        assert time.monotonic() - start < 0.07
        assert board.is_empty(move)
        if is_forbidden(board, move) and me is Color.BLACK:
            assert not any(is_legal(board, me, c) for c in board.empty_cells().tolist())
        if judge_move(board, move) is not None:
            break
