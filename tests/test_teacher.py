"""The teacher pipeline: a real brain subprocess labels real positions into shards that
resume without loss or duplicates and feed supervised training."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from brain.eval.features import legal_from_planes
from brain.eval.patternmodel import PatternModel, default_pattern_model_path
from brain.game.board import Board
from brain.game.records import GameResult
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.game.symmetry import Symmetry, transform_point
from brain.train.data import SOURCES, GameRecord, load_source
from brain.train.patterns import teacher_examples
from brain.train.supervised import TrainConfig
from brain.train.supervised import run as train
from brain.train.teach import (
    TeachConfig,
    TeachError,
    eligible_plies,
    open_run,
    run,
)
from brain.train.teachdata import (
    NO_OUTCOME,
    LabelledPosition,
    ShardStore,
    TargetSettings,
    policy_target,
    position_key,
    teacher_samplers,
    value_target,
)
from driver.judgement import read_judgement
from driver.teacher import ANALYSIS_INFO, Teacher, TeacherConfig
from protocol.syntax import Point

ROOT = Path(__file__).resolve().parents[1]
ALPHABETA = (sys.executable, "-m", "brain", "--engine", "alphabeta", "--level", "1")
MCTS = (sys.executable, "-m", "brain", "--engine", "mcts", "--playouts", "40", "--no-network")

#: Rapfi 0.43 (classical evaluation, message_mode "normal") searching a 4-stone 15x15
#: position for 200 ms: lines as it wrote them (some left out), with YXNBEST 3.
RAPFI_LINES = [
    "MESSAGE OptiTime 153ms | MaxTime 170ms",
    "MESSAGE (1) -527 | 2-6 | J8 H7 H10",
    "MESSAGE (2) -580 | 2-6 | J7 G8",
    "MESSAGE (3) -518 | 2-6 | H6 H10 H7",
    "MESSAGE Depth 2-6 | Eval -518 | Time 1ms | H6 H10 H7",
    "MESSAGE REALTIME LOST 11,5",
    "MESSAGE (1) -469 | 10-14 | H7 G8 J8 F7 I10 E8 F8 D9 C10 G6 H5",
    "MESSAGE REALTIME REFRESH",
    "MESSAGE REALTIME BEST 7,6",
    "MESSAGE (2) -498 | 10-15 | J8 H7 H6 J9 K10 H10 H11 G10 F11 F10 E10 I10 J10 G8",
    "MESSAGE (3) -M36 | 10-22 | L6 G8 J8 H10 H7 G10 K7 M5 J7 I7 D7 J6 G9",
    "MESSAGE Depth 10-14 | Eval -469 | Time 23ms | H7 G8 J8 F7 I10 E8 F8 D9 C10 G6 H5",
    "MESSAGE Speed 469K | Depth 10-14 | Eval -469 | Node 80K | Time 171ms",
]


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def test_rapfi_search_lines_are_read() -> None:
    judgement = read_judgement(RAPFI_LINES, 15, 15)
    assert judgement.winrate == pytest.approx(sigmoid(-469 / 200))
    assert judgement.depth == 10 and judgement.mate is None
    assert judgement.pv[:3] == (Point(7, 6), Point(6, 7), Point(9, 7))  # H7 G8 J8
    # The newest score of each first move searched at depth 9 or 10, best first (H6 and
    # J7 were last scored at depth 2); the mated line scores 0.
    assert [(c.point, round(c.winrate, 4)) for c in judgement.candidates] == [
        (Point(7, 6), round(sigmoid(-469 / 200), 4)),
        (Point(9, 7), round(sigmoid(-498 / 200), 4)),
        (Point(11, 5), 0.0),
    ]
    assert judgement.lost == (Point(11, 5),) and judgement.best == Point(7, 6)
    won = read_judgement(["MESSAGE Depth 9-12 | Eval +M7 | Time 3ms | H8 H9"], 15, 15)
    assert (won.winrate, won.mate, won.pv) == (1.0, 7, (Point(7, 7), Point(7, 8)))
    assert read_judgement(["MESSAGE search depth 2 score 65 nodes 108"], 15, 15).winrate is None


@pytest.fixture(scope="module")
def record_positions(shared_data: Path) -> list[tuple[int, list[Point]]]:
    """Positions of the first freestyle15 games (Rapfi self-play records): (record move,
    stones)."""
    records, _ = load_source(SOURCES["freestyle15"], shared_data, max_games=6)
    out = []
    for record in records:
        ply = eligible_plies(record, Rule.FREESTYLE)[5]
        out.append((record.moves[ply], [Point(m % 15, m // 15) for m in record.moves[:ply]]))
    return out


def test_a_brain_labels_positions_and_restarts_after_a_crash(record_positions) -> None:
    with Teacher(TeacherConfig(ALPHABETA)) as teacher:
        labels = [teacher.ask(stones, 15, 15, 0) for _, stones in record_positions]
        for label, (_, stones) in zip(labels, record_positions, strict=True):
            assert label.move not in stones and min(label.move) >= 0 and max(label.move) < 15
        os.kill(teacher.pid, signal.SIGKILL)
        again = teacher.ask(record_positions[0][1], 15, 15, 0)
        assert teacher.starts == 2 and again.move == labels[0].move  # deterministic
        twenty = teacher.ask([Point(10, 10), Point(11, 11)], 20, 20, 0)
        assert twenty.move not in ((10, 10), (11, 11))


def test_pbrain_zero_analysis_gives_winrate_and_scored_moves(record_positions) -> None:
    with Teacher(TeacherConfig(MCTS, move_ms=2000, info=(ANALYSIS_INFO,))) as teacher:
        label = teacher.ask(record_positions[1][1], 15, 15, 0)
    judgement = label.judgement
    assert judgement.winrate is not None and 0 <= judgement.winrate <= 1
    assert judgement.pv[0] == label.move == judgement.best
    assert len(judgement.candidates) > 1
    assert all(c.point not in record_positions[1][1] for c in judgement.candidates)


def test_targets_from_scored_moves_and_outcomes() -> None:
    position = LabelledPosition(15, 15, 0, (112,), 113, winrate=0.8,
                                candidates=((113, 0.8), (97, 0.7), (98, 0.001)),
                                outcome=1)
    settings = TargetSettings(temperature=0.5, outcome_weight=0.25)
    policy = policy_target(position, settings)
    assert sum(policy.values()) == pytest.approx(1)
    ratio = math.exp(-(math.log(0.8 / 0.2) - math.log(0.7 / 0.3)) / 0.5)
    assert policy[97] / policy[113] == pytest.approx(ratio)
    assert policy[98] < 1e-4
    assert value_target(position, settings) == pytest.approx((0.25 + 0.75 * 0.8, 0, 0.75 * 0.2))
    bare = replace(position, winrate=math.nan, candidates=(), outcome=NO_OUTCOME)
    assert policy_target(bare, settings) == {113: 1.0}
    assert value_target(bare, settings) == (0.0, 0.0, 0.0)
    # Outcomes only: the evaluation no longer counts, and without an outcome there is
    # no value target at all.
    outcomes = replace(settings, outcomes_only=True)
    assert value_target(position, outcomes) == (1.0, 0.0, 0.0)
    assert value_target(replace(position, outcome=-1), outcomes) == (0.0, 0.0, 1.0)
    assert value_target(replace(position, outcome=NO_OUTCOME), outcomes) == (0.0, 0.0, 0.0)


def test_symmetric_positions_share_a_key() -> None:
    stones = [(7, 7), (8, 8), (9, 7), (3, 12)]
    keys = set()
    for symmetry in Symmetry:
        cells = [y * 15 + x for x, y in (transform_point(p, symmetry, 15, 15) for p in stones)]
        keys.add(position_key(cells, 15, 15, 0))
    assert len(keys) == 1
    cells = [y * 15 + x for x, y in stones]
    assert position_key(cells, 15, 15, 4) not in keys  # another rule
    assert position_key(cells[1:] + cells[:1], 15, 15, 0) not in keys  # colours swapped


def _config(out: Path, shared_data: Path, **changes: object) -> TeachConfig:
    config = TeachConfig(out=str(out), teacher=" ".join(ALPHABETA),
                         sources=["freestyle15=1", "openings15=1", "selfplay9=1"],
                         max_games=40, selfplay_playouts=8, shard_positions=20,
                         data_dir=str(shared_data))
    return replace(config, **changes)


def _check_positions(store: ShardStore) -> list[LabelledPosition]:
    """Every stored position replays legally and undecided, and is unique."""
    positions = store.table().positions()
    assert len({p.key for p in positions}) == len(positions)
    for p in positions:
        board = Board(p.width, p.height, Rule(p.rule))
        for cell in p.stones:
            assert judge_move(board, cell) is None
        assert board.is_empty(p.move)
        assert p.key == position_key(p.stones, p.width, p.height, p.rule)
    return positions


@pytest.fixture(scope="module")
def labelled(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("teach") / "run"
    config = open_run(_config(out, shared_data), set())
    state = run(config, positions=60)
    assert state.positions >= 60
    return out


def test_a_run_stores_labelled_positions_from_every_source(labelled: Path) -> None:
    store = ShardStore(labelled)
    positions = _check_positions(store)
    state = json.loads((labelled / "progress.json").read_text())
    assert state == store.last_state() and state["positions"] == len(positions)
    by_source = {name: [p for p in positions if p.source == name]
                 for name in ("freestyle15", "openings15", "selfplay9")}
    assert all(by_source.values())
    assert all(p.record_move >= 0 and p.outcome == NO_OUTCOME
               for p in by_source["freestyle15"])
    # An opening's game is played out: its last position's mover wins with the five.
    game = [p for p in by_source["openings15"] if p.unit == 0]
    last = max(game, key=lambda p: len(p.stones))
    board = Board(15, 15, Rule.FREESTYLE)
    for cell in last.stones:
        board.play(cell)
    if board.makes_five(last.move, board.to_move):
        assert last.outcome == 1
    assert all(p.width == 9 for p in by_source["selfplay9"])
    agreed, compared = state["agreement"]["freestyle15"]
    assert compared == len(by_source["freestyle15"])
    assert agreed == sum(p.move == p.record_move for p in by_source["freestyle15"])


def test_a_resumed_run_goes_on_without_duplicates(labelled: Path, shared_data: Path,
                                                  tmp_path: Path) -> None:
    copy = tmp_path / "run"
    copy.mkdir()
    for path in labelled.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    before = ShardStore(copy).last_state()
    with pytest.raises(TeachError, match="move_ms"):
        open_run(_config(copy, shared_data, move_ms=50), {"move_ms"})
    config = open_run(TeachConfig(out=str(copy)), set())
    assert config.sources == ["freestyle15=1", "openings15=1", "selfplay9=1"]
    state = run(config, positions=10)
    positions = _check_positions(ShardStore(copy))
    assert len(positions) == state.positions >= before["positions"] + 10
    assert all(state.units[name] >= before["units"][name] for name in before["units"])


def test_a_killed_run_resumes_without_losing_or_repeating(shared_data: Path,
                                                          tmp_path: Path) -> None:
    """A run killed with SIGKILL and resumed stores the positions an uninterrupted run
    stores (the teacher's moves may differ: its search depends on what it saw before)."""
    sources = ["freestyle15=2", "freestyle20=1"]
    whole = tmp_path / "whole"
    run(open_run(_config(whole, shared_data, sources=sources, shard_positions=1), set()),
        positions=40)
    command = [sys.executable, "-m", "brain.train", "teach", "--out", str(tmp_path / "cut"),
               "--teacher", " ".join(ALPHABETA), "--sources", *sources, "--max-games", "40",
               "--data-dir", str(shared_data), "--shard-positions", "1", "--nice", "0",
               "--positions", "40"]
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL)
    cut = ShardStore(tmp_path / "cut")
    deadline = time.monotonic() + 60
    while len(cut.shards()) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.kill()
    process.wait()
    stored = cut.last_state()
    assert stored is not None and 0 < stored["positions"] < 40, "kill it mid-run"
    subprocess.run([*command[:-1], str(40 - stored["positions"])], cwd=ROOT, check=True,
                   stderr=subprocess.DEVNULL)
    expected = ShardStore(whole).table().positions()
    got = _check_positions(cut)
    assert [(p.source, p.unit, p.stones, p.record_move) for p in got] == [
        (p.source, p.unit, p.stones, p.record_move) for p in expected]


def test_teacher_data_becomes_training_batches(labelled: Path, shared_data: Path,
                                               tmp_path: Path) -> None:
    pairs = teacher_samplers([labelled], TargetSettings(), validation_fraction=0.3)
    assert [train.name for train, _ in pairs] == ["teacher9x9", "teacher15x15"]
    train_15, _ = pairs[1]
    batch = train_15.all_positions()
    positions = {p.key: p for p in train_15.labelled}
    assert len(batch) == train_15.positions == len(positions)
    np.testing.assert_allclose(batch.policy.sum(axis=1), 1.0, rtol=1e-6)
    legal = legal_from_planes(batch.planes).reshape(len(batch), -1)
    assert (batch.policy * ~legal).sum() == 0
    teacher_moves = {p.move for p in train_15.labelled}
    assert set(batch.policy.argmax(axis=1).tolist()) <= teacher_moves
    sampled = train_15.sample(np.random.default_rng(1), 32)
    assert (sampled.policy * ~legal_from_planes(sampled.planes).reshape(32, -1)).sum() == 0
    config = TrainConfig(out=str(tmp_path / "sl"), blocks=1, channels=8, policy_channels=4,
                         value_channels=4, value_hidden=8, data_dir=str(shared_data),
                         sources=["freestyle15"], max_games=12, validation_fraction=0.3,
                         validation_positions=64, epochs=1, steps_per_epoch=2, batch_size=16,
                         warmup_steps=1, checkpoint_every=2, log_every=1, threads=1,
                         teacher=[str(labelled)])
    train(config)
    log = (tmp_path / "sl" / "train.log").read_text()
    assert "teacher15x15" in log and "teacher9x9:" in log


def test_teacher_labels_become_pattern_model_examples(labelled: Path) -> None:
    positions = ShardStore(labelled).table().positions()
    settings = TargetSettings(outcome_weight=0.5)
    examples = 0
    for position, (board, move, score) in zip(
            positions, teacher_examples(positions, settings), strict=True):
        assert [cell for cell, _ in board.history] == list(position.stones)
        assert (board.width, board.height, int(board.rule)) == (
            position.width, position.height, position.rule)
        assert move == position.move and board.is_empty(move)
        win, draw, loss = value_target(position, settings)
        assert score == (None if win + draw + loss == 0 else pytest.approx(win + draw / 2))
        examples += 1
    assert examples == len(positions)


def test_the_pattern_model_fits_teacher_labels(labelled: Path, tmp_path: Path) -> None:
    out = tmp_path / "patterns.npz"
    command = [sys.executable, "-m", "brain.train", "patterns", "--out", str(out)]
    result = subprocess.run(
        [*command, "--sources", "--teacher", str(labelled), "--compare",
         str(default_pattern_model_path())],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    model = PatternModel.load(out)
    data = model.metadata["data"]
    assert data["games"] == 0 and data["teacher"] == [str(labelled)]
    assert data["teacher_positions"] == len(ShardStore(labelled).table())
    train = model.metadata["metrics"]["train"]
    assert train["value_logloss"] < train["value_logloss_constant"]
    assert 0 < train["policy_top1"] <= 1
    assert set(model.metadata["compared"]) <= {"validation", "teacher_validation"}
    assert "on the same held-out data" in result.stdout
    nothing = subprocess.run([*command, "--sources"], cwd=ROOT, capture_output=True,
                             text=True, timeout=300)
    assert nothing.returncode == 2 and "nothing to fit" in nothing.stderr


def test_a_spent_source_ends_the_run_with_each_position_once(shared_data: Path,
                                                              tmp_path: Path) -> None:
    """One game, revisited with new random plies: each position is asked once, then the
    run sees that nothing new comes and ends."""
    config = _config(tmp_path / "one", shared_data, sources=["freestyle15"], max_games=1,
                     plies_per_game=3)
    state = run(open_run(config, set()), positions=10_000)
    records, _ = load_source(SOURCES["freestyle15"], shared_data, max_games=1)
    plies = eligible_plies(records[0], Rule.FREESTYLE)
    positions = _check_positions(ShardStore(tmp_path / "one"))
    assert len(positions) == state.positions == len(plies)
    assert state.requests["freestyle15"] >= len(plies) and state.duplicates > 0
    assert sorted(len(p.stones) for p in positions) == plies


def test_an_arena_run_is_a_source_of_every_position_its_games_met(
        shared_data: Path, tmp_path: Path) -> None:
    """The games of a real arena run (two brain processes on random openings) are read
    back as records: every position after the opening is labelled once, with the move
    the game went on with as its record move."""
    games_dir = tmp_path / "arena-run"
    subprocess.run([sys.executable, "-m", "arena", "run", "builtin:heuristic",
                    "builtin:heuristic", "--name", "1=first", "--name", "2=second",
                    "--board", "9x9", "--pairs", "2", "--random-openings", "3",
                    "--out", str(games_dir)], cwd=ROOT, check=True, timeout=240,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games = [json.loads(line) for line in (games_dir / "games.jsonl").read_text().splitlines()]
    assert len(games) == 4
    name = f"arena:{games_dir}"
    config = _config(tmp_path / "labels", shared_data, sources=[name],
                     plies_per_game=100)
    state = run(open_run(config, set()), positions=10_000)
    positions = _check_positions(ShardStore(tmp_path / "labels"))
    expected = {}
    for game in games:
        cells = [y * 9 + x for x, y, *_ in game["moves"]]
        record = GameRecord(9, 9, Rule.FREESTYLE, tuple(cells), GameResult.DRAW,
                            first_target=game["opening_length"])
        for ply in eligible_plies(record, Rule.FREESTYLE):
            key = position_key(cells[:ply], 9, 9, 0)
            expected.setdefault(key, set()).add(cells[ply])
    assert {p.key for p in positions} == set(expected)
    assert state.positions == len(positions) and all(p.source == name for p in positions)
    # Each record move is the stone a game played next in that position.
    assert all(p.width == 9 and p.record_move in expected[p.key] for p in positions)
    with pytest.raises(TeachError, match="arena games"):
        run(open_run(_config(tmp_path / "none", shared_data,
                             sources=[f"arena:{tmp_path / 'missing'}"]), set()), positions=1)


def test_only_balanced_openings_are_played_out(shared_data: Path, tmp_path: Path) -> None:
    """With an opening balance, an opening the teacher rates lopsided is dropped after
    one request and every game played out starts from an opening it rates near even."""
    config = _config(tmp_path / "balanced", shared_data, teacher=" ".join(MCTS),
                     teacher_info=["=".join(ANALYSIS_INFO)], sources=["openings9"],
                     opening_balance=0.1)
    state = run(open_run(config, set()), positions=20)
    positions = _check_positions(ShardStore(tmp_path / "balanced"))
    games: dict[int, list[LabelledPosition]] = {}
    for p in positions:
        games.setdefault(p.unit, []).append(p)
    openings = [min(game, key=lambda p: len(p.stones)) for game in games.values()]
    assert all(abs(p.winrate - 0.5) <= 0.1 and p.mate == 0 for p in openings)
    assert state.units["openings9"] > len(games)  # some openings were not played out
    with pytest.raises(TeachError, match="opening-balance"):
        open_run(_config(tmp_path / "bad", shared_data, opening_balance=0.5), set())
