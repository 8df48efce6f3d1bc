"""Network input planes: content on hand-made positions, the renju foul plane against the
recursive check on real games, and equivariance under the board symmetries (which the
training augmentation relies on)."""

from __future__ import annotations

import numpy as np
import pytest

from brain.eval.features import (
    BLACK_TO_MOVE,
    FORBIDDEN,
    LAST_MOVE,
    ON_BOARD,
    OPPONENT,
    OPPONENT_THREATS,
    OWN,
    OWN_THREATS,
    PLANE_COUNT,
    PREVIOUS_MOVE,
    RULE_PLANES,
    encode,
    encode_batch,
    legal_from_planes,
)
from brain.game.board import Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.rules import Rule
from brain.train.data import PASS, SOURCES, Replayer, apply_symmetry, load_source


def test_planes_of_a_small_position() -> None:
    board = Board(9, 7, Rule.FREESTYLE)
    for x in range(4):  # black 0..3 on row 0, white on row 2
        board.play(board.index(x, 0))
        board.play(board.index(x, 2))
    planes = encode(board)
    assert planes.shape == (PLANE_COUNT, 7, 9) and planes.dtype == np.float32
    assert board.to_move is Color.BLACK
    assert planes[OWN, 0, :4].all() and planes[OWN].sum() == 4
    assert planes[OPPONENT, 2, :4].all() and planes[OPPONENT].sum() == 4
    assert planes[ON_BOARD].all() and planes[BLACK_TO_MOVE].all()
    assert planes[RULE_PLANES].all() and not planes[RULE_PLANES + 1 : RULE_PLANES + 4].any()
    assert planes[LAST_MOVE, 2, 3] == 1 and planes[LAST_MOVE].sum() == 1
    assert planes[PREVIOUS_MOVE, 0, 3] == 1 and planes[PREVIOUS_MOVE].sum() == 1
    # Both sides have a four on their row: x = 4 makes five for each.
    assert planes[OWN_THREATS, 0, 4] == 1 and planes[OPPONENT_THREATS, 2, 4] == 1
    assert planes[OWN_THREATS].sum() == 1 and planes[OPPONENT_THREATS].sum() == 1
    assert not planes[FORBIDDEN].any()
    legal = legal_from_planes(planes[None])[0]
    assert legal.sum() == 63 - 8 and not legal[board.index(0, 0)]


@pytest.mark.parametrize("rule, attributes", [
    (Rule.FREESTYLE, [1, 0, 0, 0]), (Rule.STANDARD, [0, 1, 0, 0]), (Rule.RENJU, [0, 0, 1, 0]),
    (Rule.CARO, [0, 0, 0, 1]), (Rule.CARO_STANDARD, [0, 1, 0, 1]),
])
def test_rule_planes(rule: Rule, attributes: list[int]) -> None:
    planes = encode(Board(15, rule=rule))
    assert planes[RULE_PLANES : RULE_PLANES + 4, 3, 3].tolist() == attributes


def test_forbidden_plane_matches_recursive_check(shared_data) -> None:
    records, _ = load_source(SOURCES["renju"], shared_data, max_games=150)
    replayer = Replayer()
    fouls = 0
    for record in records:
        for ply in range(0, len(record.moves), 3):
            board = replayer.position(record, ply)
            planes = encode(board)
            expected = np.zeros(board.size, dtype=bool)
            if board.to_move is Color.BLACK:
                for cell in board.empty_cells().tolist():
                    expected[cell] = forbidden_kind(board, cell) is not None
            assert np.array_equal(planes[FORBIDDEN].reshape(-1) > 0, expected), (record, ply)
            fouls += int(expected.sum())
    assert fouls > 20  # the positions do exercise the plane


def test_planes_are_equivariant_under_symmetries(shared_data) -> None:
    records, _ = load_source(SOURCES["renju"], shared_data, max_games=40)
    for record in records:
        ply = len(record.moves) // 2
        base = encode(Replayer().position(record, ply))
        for symmetry in range(8):
            board = Board(15, rule=record.rule)
            for move in record.moves[:ply]:
                if move == PASS:
                    board.to_move = board.to_move.opponent
                    continue
                grid = np.zeros((15, 15))
                grid.flat[move] = 1
                board.play(int(np.argmax(apply_symmetry(grid, symmetry))))
            assert np.array_equal(encode(board), apply_symmetry(base, symmetry)), symmetry


def test_encode_batch_checks_shapes() -> None:
    batch = encode_batch([Board(15), Board(15)])
    assert batch.shape == (2, PLANE_COUNT, 15, 15)
    with pytest.raises(ValueError, match="share a shape"):
        encode_batch([Board(15), Board(20)])
    with pytest.raises(ValueError, match="at least one"):
        encode_batch([])
