"""Threat-space solver: rule cases, budgets, and the quintet and lfz084 problem sets.

Quintet VCT cases with a threat limit of 2 or 3 (mates 16 and 21-24) need threats that
threaten a deeper VCF; the solver supports them (``threat_depth``) but they take minutes
in Python, so only their negative variants run here (as three-only searches, which must
find no win either) and the positives are left to ``bench/bench_solver.py``.
"""

from __future__ import annotations

import itertools
import lzma
import time
from pathlib import Path

import pytest
from puzzle_data import (
    FreestyleVcf,
    QuintetMate,
    cell,
    freestyle_vcf_puzzles,
    position,
    quintet_mates,
)

from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.rules import Rule
from brain.game.tactics import five_cells, four_cells, is_legal, open_four_points, three_defences
from brain.search.solver import NoWinError, Status, ThreatSolver, solve_vcf, solve_vct
from brain.train.data import PASS, parse_renju_line

MATES = {mate.id.removeprefix("quintet-mate-"): mate for mate in quintet_mates()}
#: Positives that need threats deeper than a three (threat limit 2-3): benchmark only.
DEEP_THREAT_POSITIVES = {"16", "21", "22", "23", "24"}


def assert_winning_line(board: Board, line: tuple[int, ...], vcf: bool) -> None:
    """Replay ``line``: legal moves on empty cells, fours only for a VCF, forced blocks,
    and a final position the defender cannot hold (two fives, a five it may not block,
    or threes it cannot meet)."""
    attacker = board.to_move
    defender = attacker.opponent
    replay = board.copy()
    for n, move in enumerate(line):
        assert replay.is_empty(move)
        if n % 2 == 0:
            assert is_legal(replay, attacker, move)
            if replay.makes_five(move, attacker):
                assert n == len(line) - 1
                return
            if vcf:
                assert replay.threats[attacker, move] >= 8  # a four
            replay.place(move, attacker)
        else:
            fives = five_cells(replay, attacker)
            assert not fives or move in fives, "a defender facing a four must block it"
            replay.place(move, defender)
    fives = five_cells(replay, attacker)
    if len(fives) >= 2 or (len(fives) == 1 and not is_legal(replay, defender, fives[0])):
        return
    # A VCT may also end with threes no single move stops (e.g. a white three-three).
    points = open_four_points(replay, attacker)
    assert not vcf and not fives and points
    assert not three_defences(replay, attacker, points) and not four_cells(replay, defender)


# -- defences against a three ---------------------------------------------------------------


def _defences_by_definition(board: Board, attacker: Color, points: list[int]) -> list[int]:
    """Every empty cell the defender may play after which the attacker has no open-four
    point left, found by playing each one."""
    defender, to_move = attacker.opponent, board.to_move
    out = []
    for empty in map(int, board.empty_cells()):
        if not is_legal(board, defender, empty):
            continue
        board.place(empty, defender)
        if not open_four_points(board, attacker):
            out.append(empty)
        board.undo()
    board.to_move = to_move
    return out


@pytest.mark.parametrize("rule", list(Rule))
def test_three_defences_are_exactly_the_cells_that_stop_every_open_four(
        rule: Rule, shared_data: Path) -> None:
    # Real renju games replayed under each rule, at every position with a live three.
    games = shared_data / "games" / "renju_hse_train2" / "train-2.renju.xz"
    checked = 0
    with lzma.open(games, "rt") as lines:
        for line in itertools.islice(lines, 30):
            board = Board(15, rule=rule)
            for move in parse_renju_line(line).moves:
                if move == PASS or not board.is_empty(move) or len(board.winning_cells(
                        board.to_move.opponent)):
                    break
                board.play(move)
                for attacker in Color:
                    points = open_four_points(board, attacker)
                    if points:
                        assert (sorted(three_defences(board, attacker, points))
                                == _defences_by_definition(board, attacker, points))
                        checked += 1
    assert checked > 40


# -- rules ---------------------------------------------------------------------------------


def test_white_four_on_a_black_foul_wins_in_renju_only() -> None:
    # Black's H8 would be a double three; white's diagonal four made at L4 can only be
    # blocked there (its other end, M3, is black).
    black = "F8 G8 H10 H9 G9 M3 A1"
    white = "I7 J6 K5 A15 C15 O15"
    renju = position(black, white, Color.WHITE, Rule.RENJU)
    assert is_forbidden(renju, cell("H8"))
    result = solve_vcf(renju, max_attacks=1)
    assert result.status is Status.WIN
    assert result.line == (cell("L4"),)
    assert_winning_line(renju, result.line, vcf=True)
    freestyle = position(black, white, Color.WHITE, Rule.FREESTYLE)
    assert solve_vcf(freestyle, max_attacks=1).status is Status.NO_WIN


def test_renju_black_never_wins_through_a_double_four() -> None:
    # H8 makes two fours for black: a win in freestyle, a foul in renju.
    black = "E8 F8 G8 H11 H10 H9"
    white = "D8 H12 A15 O1 A1 O15"
    freestyle = solve_vcf(position(black, white, Color.BLACK, Rule.FREESTYLE), 1)
    assert freestyle.status is Status.WIN
    assert freestyle.move == cell("H8")
    renju = solve_vcf(position(black, white, Color.BLACK, Rule.RENJU), 1)
    assert renju.status is Status.NO_WIN


def test_exact_five_overline_is_no_win() -> None:
    # XXX_XX: the gap makes six in a row, a win only where overlines win.
    black = "A8 B8 C8 E8 F8"
    white = "A15 C15 E15 G15 O1"
    assert solve_vcf(position(black, white, Color.BLACK), 1).line == (cell("D8"),)
    exact = position(black, white, Color.BLACK, Rule.STANDARD)
    assert solve_vcf(exact, 3).status is Status.NO_WIN


def test_caro_five_blocked_at_both_ends_is_no_win() -> None:
    # OXXXX_O: the gap makes a five that caro does not count (blocked at both ends).
    black = "B8 C8 D8 E8"
    white = "A8 G8 A15 O1"
    assert solve_vcf(position(black, white, Color.BLACK), 1).line == (cell("F8"),)
    for rule in (Rule.CARO, Rule.CARO_STANDARD):
        assert solve_vcf(position(black, white, Color.BLACK, rule), 3).status is Status.NO_WIN


def test_defender_five_refutes_the_attack() -> None:
    # Black has an open three, but white has a four: black must block, and has no VCF.
    board = position("F8 G8 H8", "A13 B13 C13 D13", Color.BLACK)
    assert solve_vcf(board, 5).status is Status.NO_WIN
    # With white's four blocked the open three wins at once (a straight four is free).
    board.place(cell("E13"), Color.BLACK)
    board.to_move = Color.BLACK
    result = solve_vcf(board, 1)
    assert result.status is Status.WIN
    assert result.line[0] in (cell("E8"), cell("I8"))


def test_budget_gives_unknown_and_board_is_restored() -> None:
    mate = MATES["01"]
    board = mate.board
    before = (bytes(board.cells), board.hash, list(board.history), board.to_move)
    result = ThreatSolver().vcf(board, mate.max_attacks, max_nodes=20)
    assert result.status is Status.UNKNOWN
    with pytest.raises(NoWinError):
        _ = result.move
    past = ThreatSolver().vcf(board, mate.max_attacks, deadline=time.monotonic() - 1)
    assert past.status in (Status.UNKNOWN, Status.WIN)
    assert (bytes(board.cells), board.hash, list(board.history), board.to_move) == before


def test_vct_threat_depth_must_be_non_negative() -> None:
    with pytest.raises(ValueError):
        solve_vct(MATES["10"].board, 4, threat_depth=-1)


# -- quintet (renju) -----------------------------------------------------------------------


def check_mate(mate: QuintetMate, threat_depth: int, budget: float) -> None:
    deadline = time.monotonic() + budget
    if mate.vct:
        result = solve_vct(mate.board, mate.max_attacks, threat_depth, deadline=deadline)
    else:
        result = solve_vcf(mate.board, mate.max_attacks, deadline=deadline)
    assert result.status is (Status.WIN if mate.proven else Status.NO_WIN), result
    if mate.proven:
        assert_winning_line(mate.board, result.line, vcf=not mate.vct)
        if len(mate.solutions) == 1 and not mate.vct:
            assert result.line[0] == mate.solutions[0][0]


@pytest.mark.parametrize("mate_id", [k for k, m in MATES.items() if not m.vct])
def test_quintet_vcf(mate_id: str) -> None:
    # Includes the 145-ply VCF (mate 05, about 2 s here).
    check_mate(MATES[mate_id], 0, budget=30)


@pytest.mark.parametrize(
    "mate_id", [k for k, m in MATES.items() if m.vct and k not in DEEP_THREAT_POSITIVES]
)
def test_quintet_vct_with_threes(mate_id: str) -> None:
    check_mate(MATES[mate_id], 0, budget=20)


@pytest.mark.parametrize("mate_id", ["10", "11"])
def test_quintet_vct_with_vcf_threats(mate_id: str) -> None:
    check_mate(MATES[mate_id], MATES[mate_id].threat_depth, budget=20)


# -- lfz084 VCF puzzles under freestyle ----------------------------------------------------

#: Every 20th labelled puzzle: 104 positions, 68 with a VCF and 36 without.
SAMPLE = freestyle_vcf_puzzles(every=20)


@pytest.mark.parametrize("puzzle", SAMPLE, ids=[p.name for p in SAMPLE])
def test_lfz084_freestyle_vcf(puzzle: FreestyleVcf) -> None:
    result = solve_vcf(puzzle.board, deadline=time.monotonic() + 15)
    assert result.status is (Status.WIN if puzzle.has_vcf else Status.NO_WIN), result
    if puzzle.has_vcf:
        assert result.move in puzzle.winning_first_moves or not puzzle.first_moves_complete
        assert_winning_line(puzzle.board, result.line, vcf=True)


def test_a_search_of_the_limit_at_once_proves_the_same_puzzles_in_fewer_nodes() -> None:
    # shortest=False (the tree search's leaf proofs) skips the iterative deepening: any
    # win it returns is real, and it settles every puzzle the deepening settles.
    deepening_nodes = direct_nodes = 0
    for puzzle in SAMPLE:
        deepening = ThreatSolver().vcf(puzzle.board, max_attacks=12)
        direct = ThreatSolver().vcf(puzzle.board, max_attacks=12, shortest=False)
        assert direct.status is deepening.status, puzzle.name
        if direct.status is Status.WIN:
            assert_winning_line(puzzle.board, direct.line, vcf=True)
            assert len(direct.line) >= len(deepening.line)
        deepening_nodes += deepening.nodes
        direct_nodes += direct.nodes
    assert direct_nodes < deepening_nodes
