"""Self-play games become valid training samples, and the replay buffer serves them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from brain.eval.evaluator import PatternEvaluator
from brain.eval.features import encode, legal_from_planes
from brain.game.board import Board
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.train.selfplay import ReplayBuffer, SelfPlayConfig, SelfPlayLog, generate, play_game

SMALL = SelfPlayConfig(playouts=12, variants=((0, 9, 9), (4, 9, 9)), sample_plies=4,
                       move_seconds=2.0, seed=5)


def test_a_game_replays_to_its_result_and_its_targets_are_valid() -> None:
    game = play_game(PatternEvaluator(), SMALL, np.random.default_rng(3))
    assert len(game.to_move) == len(game.moves) > 0
    board = Board(game.width, game.height, Rule.from_gomocup(game.rule))
    # The samples start after the opening: rebuild it from the first sample's stones.
    first = game.planes[0].astype(bool)
    own, theirs = first[0], first[1]
    mover = game.to_move[0]
    for y, x in zip(*np.nonzero(own | theirs), strict=True):
        board.place(board.index(int(x), int(y)), mover if own[y, x] else mover.opponent)
    board.to_move = mover
    verdict = None
    for n, move in enumerate(game.moves):
        assert np.array_equal(encode(board).astype(np.uint8), game.planes[n])
        policy = game.policies[n].astype(np.float64)
        legal = legal_from_planes(game.planes[n][None].astype(np.float32))[0]
        assert abs(policy.sum() - 1.0) < 1e-2 or (policy.sum() == 0 and n == len(game.moves) - 1)
        assert policy[~legal.reshape(-1)].sum() == 0
        verdict = judge_move(board, move)
        assert (verdict is None) == (n < len(game.moves) - 1)
    assert verdict is not None and verdict.winner == game.winner
    wdl = game.wdl()
    for color, row in zip(game.to_move, wdl, strict=True):
        expected = 1 if game.winner is None else 0 if game.winner is color else 2
        assert row[expected] == 1 and row.sum() == 1


def test_generate_resumes_and_the_buffer_serves_augmented_batches(tmp_path: Path) -> None:
    first = generate(PatternEvaluator(), tmp_path, 2, SMALL, games_per_chunk=1,
                     progress=False)
    assert first.games == 2 and first.chunks == 2
    second = generate(PatternEvaluator(), tmp_path, 1, SMALL, games_per_chunk=1,
                      progress=False)
    assert second.games == 3 and SelfPlayLog.read(tmp_path).samples == second.samples
    assert second.black_wins + second.white_wins + second.draws == 3
    buffer = ReplayBuffer(tmp_path)
    assert buffer.load() == second.samples
    batch = buffer.sample(np.random.default_rng(0), 16)
    assert batch.planes.shape == (16, batch.planes.shape[1], 9, 9)
    legal = legal_from_planes(batch.planes)
    # Symmetry is applied to planes and policy alike: no weight lands on a stone.
    assert (batch.policy * ~legal.reshape(16, -1)).sum() == 0
    assert np.all(batch.wdl.sum(axis=1) == 1)


def test_reinforcement_loop_runs_gates_and_resumes(tmp_path: Path) -> None:
    from brain.train.reinforce import HEURISTIC, RlConfig, RlState, run

    config = RlConfig(out=str(tmp_path), iterations=1, games=2, steps=2, batch_size=16,
                      playouts=6, gate_pairs=1, gate_playouts=6, blocks=1, channels=8)
    state = run(config)
    assert state.iteration == 1 and state.trained_iteration == 0
    record = state.history[0]
    assert record["samples"] > 0 and 0.0 <= record["gate_score"] <= 1.0
    assert record["against"] == HEURISTIC
    assert (tmp_path / "candidates" / "iter-0000.npz").is_file()
    assert (tmp_path / "gates" / "iter-0000" / "results.json").is_file()
    # Re-running the finished run does nothing; other settings are refused.
    again = run(config)
    assert again.iteration == 1 and len(again.history) == 1
    with pytest.raises(ValueError, match="other settings"):
        RlState.open(RlConfig(out=str(tmp_path), iterations=1, games=3))


def test_a_new_run_draws_a_seed_of_its_own_and_a_resumed_run_keeps_it(tmp_path: Path) -> None:
    from brain.train.reinforce import RlConfig, RlState

    # Two runs from the same network with one seed would play the same games.
    first = RlState.open(RlConfig(out=str(tmp_path / "a")))
    second = RlState.open(RlConfig(out=str(tmp_path / "b")))
    assert first.config.seed is not None and first.config.seed != second.config.seed
    (tmp_path / "a").mkdir()
    first.save()
    assert RlState.open(RlConfig(out=str(tmp_path / "a"))).config.seed == first.config.seed
    with pytest.raises(ValueError, match="other settings"):
        RlState.open(RlConfig(out=str(tmp_path / "a"), seed=first.config.seed + 1))
    assert RlState.open(RlConfig(out=str(tmp_path / "c"), seed=7)).config.seed == 7
