"""The pattern model: its file format, the shipped fit, the evaluator built on it and the
fitting command."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from brain.engine import HeuristicEngine, MctsEngine, make_engine
from brain.eval.evaluation import near_mask
from brain.eval.evaluator import PatternEvaluator
from brain.eval.patternmodel import (
    DEFAULT_PATTERN_MODEL_NAME,
    PatternModel,
    PatternModelError,
    cell_features,
    default_pattern_model_path,
    relation_table,
    threat_counts,
)
from brain.game.board import Board, Color
from brain.game.patterns import Threat
from brain.game.rules import Rule
from brain.game.symmetry import Symmetry, transform_point
from brain.train.data import SOURCES, load_source, split_records
from brain.train.patterns import collect, policy_metrics, record_examples, value_metrics

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def shipped() -> PatternModel:
    return PatternModel.load(default_pattern_model_path())


@pytest.fixture(scope="module")
def held_out_games(shared_data: Path) -> list:
    """Validation games of the shipped fit (same split), 15x15 and 20x20."""
    games = []
    for name in ("freestyle15", "freestyle20"):
        records, _ = load_source(SOURCES[name], shared_data)
        games += split_records(records, 0.1)[1][:60]
    return games


def board_of(moves: list[tuple[int, int]], size: int = 15, rule: Rule = Rule.FREESTYLE
             ) -> Board:
    board = Board(size, rule=rule)
    for x, y in moves:
        board.play(board.index(x, y))
    return board


# -- file format -------------------------------------------------------------------------


def test_shipped_model_is_in_weights_and_records_its_fit(shipped: PatternModel) -> None:
    assert default_pattern_model_path() == ROOT / "weights" / DEFAULT_PATTERN_MODEL_NAME
    assert shipped.metadata["data"]["sources"] == ["freestyle15", "freestyle20"]
    validation = shipped.metadata["metrics"]["validation"]
    assert validation["value_logloss"] < validation["value_logloss_constant"] - 0.2


def test_save_and_load_round_trip(shipped: PatternModel, tmp_path: Path) -> None:
    path = tmp_path / "model.npz"
    shipped.save(path)
    again = PatternModel.load(path)
    assert again.metadata == shipped.metadata
    for name in ("pair_logits", "last_logits", "own_last_logits", "value_w1", "value_b1",
                 "value_w2", "value_b2"):
        np.testing.assert_allclose(getattr(again, name), getattr(shipped, name), rtol=1e-6)


def test_unusable_files_are_refused_with_the_reason(shipped: PatternModel,
                                                    tmp_path: Path) -> None:
    text = tmp_path / "text.npz"
    text.write_text("not a model")
    with pytest.raises(PatternModelError, match="not a pattern-model file"):
        PatternModel.load(text)
    cut = tmp_path / "cut.npz"
    np.savez(cut, metadata=np.array(json.dumps(
        {"format": "pbrain-zero-patterns", "format_version": 1})),
        pair_logits=shipped.pair_logits[:5])
    with pytest.raises(PatternModelError, match="pair_logits is"):
        PatternModel.load(cut)
    network = tmp_path / "net.npz"
    np.savez(network, metadata=np.array(json.dumps({"format": "pbrain-zero-network"})))
    with pytest.raises(PatternModelError, match="refit it"):
        PatternModel.load(network)


# -- what the shipped fit knows ----------------------------------------------------------


def test_relation_table_is_symmetric_and_marks_lines() -> None:
    table = relation_table(15, 15)
    np.testing.assert_array_equal(table, table.T)
    board = Board(15)
    centre = board.index(7, 7)
    assert table[centre, board.index(8, 8)] == 1       # distance 1, on a diagonal
    assert table[centre, board.index(9, 8)] == 2       # distance 2, off the lines
    assert table[centre, board.index(11, 7)] == 7      # distance 4, on the row
    assert table[centre, board.index(14, 7)] == 8      # beyond a five's reach


def test_evaluator_policy_is_a_distribution_over_near_empty_cells(
        held_out_games: list) -> None:
    evaluator = PatternEvaluator()
    record = held_out_games[0]
    board = Board(record.width, record.height, record.rule)
    policy, value = evaluator.evaluate([board])
    assert policy[0, board.index(7, 7)] == 1.0
    for move in record.moves[:20]:
        board.play(move)
    policy, value = evaluator.evaluate([board])
    occupied = np.frombuffer(board.cells, dtype=np.uint8) != 0
    assert policy[0].sum() == pytest.approx(1.0)
    assert not policy[0, occupied].any() and -1 < value[0] < 1


def test_evaluator_computes_the_model_on_the_features_it_was_fitted_on(
        shipped: PatternModel, held_out_games: list) -> None:
    """The compiled leaf arithmetic (brain/eval/patternscore.py) against the model written
    out in numpy over the fitting features (cell_features, threat_counts): the near cells
    by their king-move distance to a stone, the softmax of the table logits, the
    perceptron on log(1 + count)."""
    evaluator = PatternEvaluator(shipped)
    checked = 0
    for record in held_out_games[::6]:
        board = Board(record.width, record.height, record.rule)
        for move in record.moves[:40]:
            board.play(move)
            xs, ys = np.arange(board.size) % board.width, np.arange(board.size) // board.width
            empty = np.frombuffer(board.cells, dtype=np.uint8) == 0
            stones = np.flatnonzero(~empty)
            distance = np.maximum(np.abs(xs[:, None] - xs[stones]),
                                  np.abs(ys[:, None] - ys[stones])).min(axis=1)
            near = empty & (distance <= 2)
            assert (near_mask(board) == near).all()
            cells = np.flatnonzero(near if near.any() else empty)
            features = cell_features(board, cells)
            logits = (shipped.pair_logits.reshape(-1)[features.pair]
                      + shipped.last_logits[features.last])
            if features.own_last is not None:
                logits = logits + shipped.own_last_logits[features.own_last]
            expected = np.zeros(board.size)
            expected[cells] = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
            hidden = np.maximum(shipped.value_w1 @ np.log1p(threat_counts(board))
                                + shipped.value_b1, 0.0)
            value = np.tanh((shipped.value_w2 @ hidden + shipped.value_b2) / 2)
            policy, values = evaluator.evaluate([board])
            np.testing.assert_allclose(policy[0], expected, rtol=1e-9, atol=1e-15)
            assert values[0] == pytest.approx(value, abs=1e-12)
            checked += 1
    assert checked > 300


def test_value_and_policy_are_symmetric(held_out_games: list) -> None:
    """Every feature is invariant under the board's symmetries, so the evaluation is."""
    evaluator = PatternEvaluator()
    record = held_out_games[1]
    stones = [(m % record.width, m // record.width) for m in record.moves[:25]]
    reference = None
    size = (record.width, record.height)
    for symmetry in Symmetry.for_board(*size):
        board = board_of([transform_point(p, symmetry, *size) for p in stones], record.width)
        policy, value = evaluator.evaluate([board])
        grid = policy[0].reshape(record.height, record.width)
        mapped = np.zeros_like(grid)
        for y in range(record.height):
            for x in range(record.width):
                tx, ty = transform_point((x, y), symmetry, *size)
                mapped[y, x] = grid[ty, tx]
        if reference is None:
            reference = (mapped, value[0])
        np.testing.assert_allclose(mapped, reference[0], atol=1e-12)
        assert value[0] == pytest.approx(reference[1], abs=1e-12)


def test_shipped_fit_predicts_held_out_engine_moves_and_results(
        shipped: PatternModel, held_out_games: list) -> None:
    samples = collect(record_examples(held_out_games))
    policy = policy_metrics(shipped, samples)
    value = value_metrics(shipped, samples)
    # Measured on all 248 held-out games: top-1 0.44, value log-loss 0.30 (constant 0.69).
    assert policy["policy_top1"] > 0.35
    assert value["value_logloss"] < value["value_logloss_constant"] - 0.25


def test_value_sees_who_holds_an_open_three(shipped: PatternModel) -> None:
    """Black's open three on row 7 against scattered white stones: winning for black to
    move (it makes an open four), bad for white to move (it must defend)."""
    three, scattered = ((5, 7), (6, 7), (7, 7)), ((0, 0), (14, 14), (0, 14))

    def placed(*groups: tuple[Color, tuple[tuple[int, int], ...]]) -> Board:
        board = Board(15)
        for color, cells in groups:
            for cell in cells:
                board.place(board.index(*cell), color)
        return board

    black_to_move = placed((Color.BLACK, three), (Color.WHITE, scattered))
    assert black_to_move.to_move is Color.BLACK
    assert threat_counts(black_to_move)[Threat.FLEX4 - 1] == 2
    assert shipped.value(black_to_move) > 0.9
    white_to_move = placed((Color.WHITE, scattered), (Color.BLACK, three))
    assert white_to_move.to_move is Color.WHITE
    assert shipped.value(white_to_move) < 0


# -- the engine and the fitting command --------------------------------------------------


def test_engine_falls_back_to_the_one_ply_heuristic_without_a_pattern_model(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import brain.eval.evaluator

    assert isinstance(make_engine("mcts", network=False), MctsEngine)
    monkeypatch.setattr(brain.eval.evaluator, "default_pattern_model_path",
                        lambda: tmp_path / "missing.npz")
    assert isinstance(make_engine("mcts", network=False), HeuristicEngine)


def test_engine_plays_with_the_pattern_model_it_is_given(
        shipped: PatternModel, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    flat = replace(shipped, pair_logits=np.zeros_like(shipped.pair_logits),
                   metadata={"note": "flat policy"})
    path = tmp_path / "flat.npz"
    flat.save(path)
    engine = make_engine("mcts", network=False, pattern_model=path)
    assert isinstance(engine, MctsEngine)
    assert engine.search.evaluator.model.metadata == {"note": "flat policy"}
    missing = tmp_path / "missing.npz"
    assert isinstance(make_engine("mcts", network=False, pattern_model=missing),
                      HeuristicEngine)
    assert f"check --pattern-model {missing}" in caplog.text


def test_fit_command_writes_a_loadable_model(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "patterns.npz"
    result = subprocess.run(
        [sys.executable, "-m", "brain.train", "patterns", "--out", str(out),
         "--sources", "freestyle15", "renju", "--max-games", "40",
         "--data-dir", str(shared_data)],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    model = PatternModel.load(out)
    assert model.metadata["data"]["sources"] == ["freestyle15", "renju"]
    train = model.metadata["metrics"]["train"]
    assert train["value_logloss"] < train["value_logloss_constant"]
    assert 0 < train["policy_top1"] <= 1
    evaluator = PatternEvaluator(model)
    board = board_of([(7, 7), (8, 8), (7, 8)], rule=Rule.RENJU)
    policy, _ = evaluator.evaluate([board])
    assert policy[0].sum() == pytest.approx(1.0)
