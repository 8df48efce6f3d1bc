"""The tree search on real positions: forced wins are played, forced losses blocked,
renju fouls avoided, the deadline kept, the tree reused and fixed budgets reproducible."""

from __future__ import annotations

import lzma
import threading
import time

import numpy as np
import pytest
from puzzle_data import freestyle_vcf_puzzles, lfz_puzzles

from brain.eval.evaluator import Evaluator, PatternEvaluator
from brain.eval.network import PolicyValueNet, default_weights_path
from brain.game.board import Board, Color
from brain.game.forbidden import is_forbidden
from brain.game.rules import Rule
from brain.game.tactics import four_cells, open_four_points
from brain.resources import shared_data_dir
from brain.search.mcts import (
    UNKNOWN,
    WIN,
    Mcts,
    MctsConfig,
    Node,
    _back_up_value,
    _best_and_tactical,
    _priors,
    _Refuter,
)
from brain.search.solver import Status, ThreatSolver
from brain.train.data import advance, parse_renju_line

RENJU_GAMES = shared_data_dir() / "games" / "renju_hse_train2" / "train-2.renju.xz"
NETWORK = default_weights_path()
#: The search's guides: the pattern model alone, with the network's priors on revisited
#: nodes, and the network on every leaf.
GUIDES = ["patterns", "patterns+network", "network"]


def search(board: Board, playouts: int = 200, seconds: float | None = None,
           guide: str = "patterns") -> tuple[int, Mcts]:
    net = PolicyValueNet.load(NETWORK) if guide != "patterns" else None
    evaluator: Evaluator = net if guide == "network" and net else PatternEvaluator()
    mcts = Mcts(evaluator, MctsConfig(playouts=None if seconds else playouts),
                prior_net=net if guide == "patterns+network" else None)
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


@pytest.mark.parametrize("guide", GUIDES)
def test_stops_an_open_three_that_would_win(guide: str) -> None:
    # White's open three on row 7; black has nothing: black must stop the open four.
    board = stones(Board(15), [(2, 12), (12, 1)], [(6, 7), (7, 7), (8, 7)], Color.BLACK)
    move, _ = search(board, playouts=300, guide=guide)
    assert board.xy(move) in {(4, 7), (5, 7), (9, 7), (10, 7)}


@pytest.mark.parametrize("puzzle", [p for p in freestyle_vcf_puzzles(every=97) if p.has_vcf][:8],
                         ids=lambda p: p.name)
@pytest.mark.parametrize("guide", GUIDES)
def test_finds_the_win_in_real_vcf_puzzles(puzzle, guide: str) -> None:
    move, mcts = search(puzzle.board.copy(), playouts=50, guide=guide)
    assert move in puzzle.winning_first_moves
    assert mcts.info.proven == WIN


@pytest.mark.parametrize("guide", GUIDES)
@pytest.mark.parametrize(("size", "rule"), [(15, Rule.FREESTYLE), (20, Rule.FREESTYLE),
                                            (15, Rule.STANDARD), (15, Rule.RENJU),
                                            (15, Rule.CARO), (7, Rule.FREESTYLE)])
def test_the_first_stone_on_an_empty_board_goes_in_the_centre(guide: str, size: int,
                                                             rule: Rule) -> None:
    board = Board(size, rule=rule)
    move, _ = search(board, playouts=200, guide=guide)
    assert board.xy(move) == (size // 2, size // 2)


def test_black_never_plays_a_renju_foul() -> None:
    # H8 would be black's double three (quintet's first double-three case).
    board = stones(Board(15, rule=Rule.RENJU), [(7, 6), (6, 7), (8, 7), (7, 8)], [(0, 0)],
                   Color.BLACK)
    foul = board.index(7, 7)
    assert is_forbidden(board, foul)
    move, _ = search(board, playouts=200)
    assert move != foul and not is_forbidden(board, move)


@pytest.mark.parametrize("guide", GUIDES)
def test_fixed_playouts_are_reproducible(guide: str) -> None:
    board = stones(Board(15), [(7, 7), (8, 8)], [(7, 8), (9, 9)], Color.BLACK)
    first_move, first = search(board.copy(), playouts=120, guide=guide)
    second_move, second = search(board.copy(), playouts=120, guide=guide)
    assert first_move == second_move
    assert first._root is not None and second._root is not None
    assert np.array_equal(first._root.visits, second._root.visits)


def test_keeps_the_deadline_and_reuses_the_tree() -> None:
    board = stones(Board(20), [(10, 10), (11, 11)], [(10, 11), (12, 12)], Color.BLACK)
    mcts = Mcts(PatternEvaluator(), MctsConfig())
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


def test_the_network_ranks_the_moves_of_the_nodes_the_search_returns_to() -> None:
    net = PolicyValueNet.load(NETWORK)
    patterns = PatternEvaluator()
    board = Board(15, rule=Rule.RENJU)
    with lzma.open(RENJU_GAMES, "rt") as lines:
        for move in parse_renju_line(next(lines)).moves[:12]:
            advance(board, move)
    config = MctsConfig(playouts=600, refine_visits=16)
    mcts = Mcts(patterns, config, prior_net=net)
    mcts.search(board, time.monotonic() + 60, threading.Event())
    seen = {"refined": 0, "not refined": 0}

    def check(node: Node) -> None:
        if node.proven != UNKNOWN or len(node.moves) < 2:
            return
        floor = 1e-3 if node.forced else 1e-6
        if node.refined:
            policy = net.evaluate([board])[0][0]
            if not node.forced:
                assert set(mcts._candidates(board, policy).tolist()) <= set(node.moves.tolist())
        else:
            # A batch adds at most batch_size visits; any visit after refine_visits
            # passes through the node, which refines it.
            assert node.total < config.refine_visits + config.batch_size
            policy = patterns.evaluate([board])[0][0]
        np.testing.assert_allclose(node.priors, _priors(policy, node.moves, floor))
        seen["refined" if node.refined else "not refined"] += 1
        for move, child in zip(node.moves.tolist(), node.children, strict=True):
            if child is not None:
                board.play(move)
                check(child)
                board.undo()

    root = mcts._root
    assert root is not None and root.refined
    check(root)
    assert seen["refined"] >= 5 and seen["not refined"] >= 20, seen


def test_the_networks_value_of_a_refined_node_counts_as_playouts_along_its_path() -> None:
    root = Node(np.array([1, 2]), np.array([0.5, 0.5]))
    child = Node(np.array([3, 4]), np.array([0.5, 0.5]))
    root.children[0] = child
    # 0.5 for the side to move after moves 1 and 3: the root's mover, as both are even.
    _back_up_value([(root, 0), (child, 0)], 0.5, 4)
    assert (child.visits[0], child.value_sum[0], child.total) == (4, -2.0, 4)
    assert (root.visits[0], root.value_sum[0], root.total) == (4, 2.0, 4)
    assert root.visits[1] == child.visits[1] == 0

    board = Board(15)
    for x, y in ((7, 7), (8, 8), (7, 8), (8, 6), (6, 9)):
        board.play(board.index(x, y))
    net = PolicyValueNet.load(NETWORK)
    totals = {}
    for visits in (0, 8):
        mcts = Mcts(PatternEvaluator(), MctsConfig(playouts=400, refine_value_visits=visits),
                    prior_net=net)
        mcts.search(board, time.monotonic() + 60, threading.Event())
        searched = mcts._root
        assert searched is not None and searched.total == searched.visits.sum()
        totals[visits] = searched.total
    # Playouts pass through refined nodes, whose network values add 8 visits each.
    assert totals[0] <= 400 < totals[8]


def test_stop_event_ends_the_search_early() -> None:
    board = stones(Board(15), [(7, 7)], [(8, 8)], Color.BLACK)
    mcts = Mcts(PatternEvaluator(), MctsConfig())
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    start = time.monotonic()
    mcts.search(board, start + 10.0, stop)
    assert time.monotonic() - start < 0.6


def _facing_a_live_three(count: int = 6) -> list[tuple[str, Board]]:
    """Positions from real renju games (shared data) where the side to move faces the
    opponent's live three and has no four of its own, one per game."""
    out: list[tuple[str, Board]] = []
    with lzma.open(RENJU_GAMES, "rt") as lines:
        for number, line in enumerate(lines):
            record = parse_renju_line(line)
            board = Board(15, rule=Rule.RENJU)
            for ply, move in enumerate(record.moves[:40]):
                advance(board, move)
                me, them = board.to_move, board.to_move.opponent
                if (ply >= 8 and open_four_points(board, them) and not four_cells(board, me)
                        and not len(board.winning_cells(them))):
                    out.append((f"game {number} ply {ply + 1}", board))
                    break
            if len(out) == count:
                return out
    raise AssertionError(f"fewer than {count} live-three positions in {RENJU_GAMES}")


@pytest.mark.parametrize(("name", "board"), _facing_a_live_three(), ids=lambda v: str(v)[:30])
def test_facing_a_live_three_only_real_defences_are_searched(name: str, board: Board) -> None:
    defender, attacker = board.to_move, board.to_move.opponent
    assert open_four_points(board, attacker)
    mcts = Mcts(PatternEvaluator(), MctsConfig(playouts=40, threat_share=0, refute_share=0))
    move = mcts.search(board, time.monotonic() + 30, threading.Event())
    root = mcts._root
    assert root is not None and len(root.moves) > 0 and move in root.moves.tolist()
    for cell in root.moves.tolist():
        assert not is_forbidden(board, cell) or defender is Color.WHITE
        board.play(cell)
        assert not open_four_points(board, attacker), f"{board.xy(cell)} leaves the three alive"
        board.undo()


def _before_a_threat_sequence_blunder() -> tuple[Board, int]:
    """From an arena game against alphabeta level 4 at 1 s/move: the search without the
    root check played 8,9 here, after which black wins by a VCT of about 6,000 nodes;
    8,12 and 9,13 leave black no VCT at all (the solver proves it)."""
    moves = [(7, 7), (5, 9), (6, 9), (6, 10), (7, 8), (5, 10), (7, 5), (7, 6), (5, 11),
             (8, 7), (7, 10), (7, 11), (4, 8), (5, 8), (8, 6), (10, 4), (6, 7)]
    board = Board(15)
    for x, y in moves:
        board.play(board.index(x, y))
    return board, board.index(8, 9)


def test_a_move_that_loses_to_a_threat_sequence_is_dropped() -> None:
    board, losing = _before_a_threat_sequence_blunder()
    board.play(losing)
    assert ThreatSolver().vct(board, max_attacks=12).status is Status.WIN
    board.undo()
    mcts = Mcts(PatternEvaluator(), MctsConfig(playouts=300, refute_nodes=8000))
    move = mcts.search(board, time.monotonic() + 60, threading.Event())
    assert move != losing
    root = mcts._root
    assert root is not None
    refuted = root.children[root.child_index(losing)]
    assert refuted is not None and refuted.proven == WIN  # won for black, who moves there


def test_a_check_that_ran_out_of_time_is_retried_before_stopping() -> None:
    board, losing = _before_a_threat_sequence_blunder()
    mcts = Mcts(PatternEvaluator())
    root = mcts._expand(board, None)
    leader = root.child_index(losing)
    assert leader >= 0
    board.play(losing)
    root.children[leader] = mcts._expand(board, None)
    board.undo()
    root.visits[leader] = 10.0
    # Regular checks share a tiny budget: the first one cannot finish.
    refuter = _Refuter(mcts, board, root, seconds=1e-6)
    far = time.monotonic() + 60
    assert not refuter.check(32, far)
    assert leader in refuter.undecided and leader not in refuter.cleared
    assert not refuter.check(64, far)  # checked once already: not tried again
    # Before the search stops early on it, the leader gets every second left.
    assert refuter.check(96, far, final=True)
    assert root.children[leader].proven == WIN and leader not in refuter.undecided


def test_time_spent_before_the_playouts_does_not_stop_them() -> None:
    # Ten moves of an arena game (fast game, Gomocup 2024 opening); a short first search
    # leaves a reused tree whose leader is well ahead.
    board = Board(15)
    for x, y in ((7, 7), (8, 6), (9, 9), (7, 8), (5, 6), (8, 8), (8, 7), (10, 8), (9, 8),
                 (9, 7)):
        board.play(board.index(x, y))
    mcts = Mcts(PatternEvaluator(), MctsConfig(refute_share=0))
    mcts.search(board, time.monotonic() + 0.25, threading.Event())
    root = mcts._root
    assert root is not None and root.total > 0
    # The root's threat searches took 5 s of this move and 1 s is left: the time left
    # is worth what the playouts do in it, not 8 playouts per 5 s.
    now = time.monotonic()
    mcts._run_playouts(board, root, now + 1.0, threading.Event(), started=now - 5.0,
                      use_all=False)
    assert mcts.info.playouts >= 100


def test_a_settled_search_plays_on_only_when_its_time_would_be_lost() -> None:
    # The ten moves above, searched for a second: the tree the next search reuses has a
    # leader no 0.4 s of playouts can overtake.
    board = Board(15)
    for x, y in ((7, 7), (8, 6), (9, 9), (7, 8), (5, 6), (8, 8), (8, 7), (10, 8), (9, 8),
                 (9, 7)):
        board.play(board.index(x, y))
    playouts: dict[bool, int] = {}
    for use_all in (False, True):
        mcts = Mcts(PatternEvaluator())
        mcts.search(board, time.monotonic() + 1.0, threading.Event())
        mcts.search(board, time.monotonic() + 0.4, threading.Event(), use_all=use_all)
        playouts[use_all] = mcts.info.playouts
    # Under a game clock it stops at once (what time is left goes to the leader's
    # refutation check); with a per-move limit alone the tree grows for the next move.
    assert playouts[False] <= 64
    assert playouts[True] >= 4 * max(playouts[False], 32)


def test_no_check_when_no_other_move_is_left() -> None:
    board, losing = _before_a_threat_sequence_blunder()
    mcts = Mcts(PatternEvaluator())
    root = mcts._expand(board, None)
    leader = root.child_index(losing)
    lost = Node(np.empty(0, dtype=np.int64), np.empty(0), proven=WIN)
    root.children = [lost] * len(root.moves)
    board.play(losing)
    root.children[leader] = mcts._expand(board, None)
    board.undo()
    root.visits[leader] = 10.0
    refuter = _Refuter(mcts, board, root, seconds=60)
    assert not refuter.check(32, time.monotonic() + 60, final=True)
    assert not refuter.checked  # the only move left is played unchecked, at once


@pytest.mark.parametrize(("name", "board"), lfz_puzzles(207, Rule.RENJU, every=4),
                         ids=lambda v: str(v)[:30])
def test_stops_the_opponents_vcf_in_renju_defence_puzzles(name: str, board: Board) -> None:
    # "VCF defence" puzzles: the opponent would win by fours if the side to move passed.
    defender = board.to_move
    board.to_move = defender.opponent
    assert ThreatSolver().vcf(board).status is Status.WIN
    board.to_move = defender
    move, _ = search(board, playouts=100)
    assert not (defender is Color.BLACK and is_forbidden(board, move))
    board.play(move)
    assert ThreatSolver().vcf(board).status is Status.NO_WIN, f"{board.xy(move)} loses"


@pytest.mark.parametrize("limit", [0, 1, 36, 400])
def test_candidate_cells_are_the_best_by_policy_and_the_tactical_ones(limit: int) -> None:
    """The one-pass selection of the compiled search against a stable sort, on puzzle
    positions (fours and open threes on the board) with the pattern model's priors (most
    cells tie at zero) and with random ones."""
    evaluator = PatternEvaluator()
    network = PolicyValueNet.load(default_weights_path())
    rng = np.random.default_rng(5)
    boards = [board for _, board in lfz_puzzles(207, Rule.RENJU, every=8)]
    boards += [puzzle.board for puzzle in freestyle_vcf_puzzles(every=40)]
    for board in boards:
        empty = board.empty_cells()
        me, them = board.to_move, board.to_move.opponent
        tactical = empty[(board.threats[me][empty] >= 8) | (board.threats[them][empty] >= 11)]
        for policy in (evaluator.evaluate([board])[0][0], rng.random(board.size).round(2),
                       network.evaluate([board])[0][0].astype(np.float64)):
            keep = empty[np.argsort(-policy[empty], kind="stable")[:limit]]
            expected = np.unique(np.concatenate([keep, tactical]))
            found = _best_and_tactical(policy, board, int(me), limit)
            assert found.dtype == np.int64
            np.testing.assert_array_equal(found, expected)
