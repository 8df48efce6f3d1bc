"""The numpy network against the torch model it is exported from, batch-norm folding, the
game-record loaders on real lines, a tiny end-to-end training run, and the play path's
independence from torch."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from brain.catalog import LINE_NETWORK_FILE
from brain.eval.features import PLANE_COUNT, RULE_PLANES, encode_batch, legal_from_planes
from brain.eval.network import (
    Architecture,
    NetMetadata,
    PolicyValueNet,
    WeightsError,
    default_weights_path,
    masked_softmax,
    save_weights,
)
from brain.eval.patternmodel import DEFAULT_PATTERN_MODEL_NAME
from brain.game.board import Board, Color
from brain.game.records import GameResult
from brain.game.rules import Rule
from brain.train.data import (
    PASS,
    SOURCES,
    BatchStream,
    PositionSampler,
    RecordError,
    Replayer,
    load_source,
    parse_rapfi_line,
    parse_renju_line,
    verify,
)
from brain.train.export import export_checkpoint, fold, fold_conv_bn, unfold
from brain.train.model import ConvBN, JointBatchNorm2d, PolicyValueModel
from brain.train.supervised import PROBE_SKIP, PROBE_STEPS, UNKNOWN_LENGTH, TrainConfig, run

ROOT = Path(__file__).resolve().parents[1]


def random_model(blocks: int = 2, channels: int = 16, seed: int = 0) -> PolicyValueModel:
    """A model in eval mode with random weights and batch-norm statistics far from the
    identity, so that folding matters."""
    torch.manual_seed(seed)
    model = PolicyValueModel(Architecture(blocks, channels, 8, 8, 32))
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.3, 0.3)
    return model.eval()


def numpy_twin(model: PolicyValueModel) -> PolicyValueNet:
    return PolicyValueNet(fold(model), NetMetadata(model.architecture))


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4 * scale)


def real_boards(shared_data: Path, source: str, count: int, width: int | None = None,
                height: int | None = None) -> list[Board]:
    """Mid-game positions of real games, optionally replayed on a larger board."""
    records, _ = load_source(SOURCES[source], shared_data, max_games=count)
    boards = []
    for n, record in enumerate(records):
        board = Board(width or record.width, height or record.height, record.rule)
        for move in record.moves[: 6 + 3 * n]:
            if move == PASS:
                board.to_move = board.to_move.opponent
            else:
                x, y = move % record.width, move // record.width
                board.play(board.index(x, y))
        boards.append(board)
    return boards


@pytest.mark.parametrize("shape", [(15, 15), (20, 20), (9, 13)])
def test_numpy_matches_torch_on_random_planes(shape: tuple[int, int]) -> None:
    model = random_model()
    planes = (np.random.default_rng(1).random((5, PLANE_COUNT, *shape)) < 0.3)
    planes = planes.astype(np.float32)
    with torch.no_grad():
        policy, wdl = model(torch.from_numpy(planes))
    out = numpy_twin(model).forward(planes)
    assert out.policy_logits.shape == (5, shape[0] * shape[1])
    assert_close(out.policy_logits, policy.numpy())
    assert_close(out.wdl_logits, wdl.numpy())


@pytest.mark.parametrize("source, width, height", [
    ("renju", None, None), ("freestyle15", None, None), ("freestyle20", None, None),
    ("freestyle15", 17, 15),
])
def test_numpy_matches_torch_on_real_positions(shared_data, source: str, width: int | None,
                                               height: int | None) -> None:
    model = random_model(seed=3)
    net = numpy_twin(model)
    boards = real_boards(shared_data, source, 8, width, height)
    policy, value, wdl = net.evaluate_with_wdl(boards)
    planes = encode_batch(boards)
    with torch.no_grad():
        logits, wdl_logits = model(torch.from_numpy(planes))
    legal = torch.from_numpy(legal_from_planes(planes))
    expected = torch.softmax(logits.masked_fill(~legal, -torch.inf), dim=1)
    expected_wdl = torch.softmax(wdl_logits, dim=1)
    assert_close(policy, expected.numpy())
    assert_close(wdl, expected_wdl.numpy())
    assert_close(value, (expected_wdl[:, 0] - expected_wdl[:, 2]).numpy())
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-5)
    occupied = np.frombuffer(boards[-1].cells, dtype=np.uint8) > 0
    assert not policy[-1, occupied].any()
    assert np.all(np.abs(value) <= 1.0)


def test_kept_buffers_give_each_call_its_own_answer(shared_data: Path) -> None:
    """The network keeps its im2col buffers per batch shape and thread: calls on
    alternating shapes, on more shapes than it keeps, from two threads at once, and
    results held across later calls all agree with the torch model."""
    model = random_model(blocks=3, seed=5)
    net = numpy_twin(model)
    boards = real_boards(shared_data, "freestyle20", 6)
    for width, height in ((15, 15), (16, 15), (17, 17), (22, 22)):
        boards += real_boards(shared_data, "freestyle15", 6, width, height)
    groups = [boards[n:n + size] for n in range(0, len(boards), 6) for size in (1, 3)]
    with torch.no_grad():
        expected = [model(torch.from_numpy(encode_batch(group)))[0].numpy() for group in groups]
    first = [net.forward(encode_batch(group)).policy_logits for group in groups]
    for got, want in zip(first, expected, strict=True):  # held while later calls ran
        assert_close(got, want)

    errors: list[BaseException] = []

    def evaluate_all(order: list[int]) -> None:
        try:
            for _ in range(3):
                for n in order:
                    assert_close(net.forward(encode_batch(groups[n])).policy_logits,
                                 expected[n])
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=evaluate_all, args=(order,))
               for order in (list(range(len(groups))), list(reversed(range(len(groups)))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_batch_norm_folding_is_exact() -> None:
    torch.manual_seed(5)
    layer = ConvBN(7, 11, 3)
    with torch.no_grad():
        layer.bn.running_mean.uniform_(-1, 1)
        layer.bn.running_var.uniform_(0.2, 3)
        layer.bn.weight.uniform_(-2, 2)
        layer.bn.bias.uniform_(-1, 1)
    layer.eval()
    x = torch.randn(3, 7, 10, 12)
    weight, bias = fold_conv_bn(layer)
    with torch.no_grad():
        folded = torch.nn.functional.conv2d(x, weight, bias, padding=1)
        torch.testing.assert_close(folded, layer([x])[0], rtol=1e-5, atol=1e-5)


def test_unfolded_weights_fold_back_and_train_from_where_they_are(
        shared_data: Path, tmp_path: Path) -> None:
    """A weights file turned back into a trainable model: eval mode computes the file's
    network, training mode on its calibration batch nearly so, and folding it again gives
    the file's arrays."""
    model = random_model(seed=8)
    path = tmp_path / "net.npz"
    save_weights(path, fold(model), NetMetadata(model.architecture))
    boards = real_boards(shared_data, "freestyle15", 24) + real_boards(shared_data,
                                                                       "freestyle20", 8)
    groups = [torch.from_numpy(encode_batch(boards[:24])), torch.from_numpy(encode_batch(
        boards[24:]))]
    unfolded = unfold(path, groups)
    assert unfolded.architecture == model.architecture and not unfolded.training
    net = PolicyValueNet.load(path)
    with torch.no_grad():
        for group, (policy, wdl) in zip(groups, unfolded.forward_groups(groups), strict=True):
            out = net.forward(group.numpy())
            assert_close(policy.numpy(), out.policy_logits)
            assert_close(wdl.numpy(), out.wdl_logits)
        unfolded.train()
        trained_mode = unfolded.forward_groups(groups)
    for group, (policy, _) in zip(groups, trained_mode, strict=True):
        np.testing.assert_allclose(policy.numpy(), net.forward(group.numpy()).policy_logits,
                                   atol=1e-3 * float(np.abs(policy.numpy()).max()))
    refolded = fold(unfolded.eval())
    for name, array in fold(model).items():
        assert_close(refolded[name], array)


def test_joint_batch_norm_shares_statistics_across_shapes() -> None:
    torch.manual_seed(6)
    joint, plain = JointBatchNorm2d(5), torch.nn.BatchNorm2d(5)
    a, b = torch.randn(3, 5, 6, 6) * 2 + 1, torch.randn(4, 5, 6, 6)
    out = joint([a, b])
    torch.testing.assert_close(torch.cat(out), plain(torch.cat([a, b])))
    torch.testing.assert_close(joint.running_mean, plain.running_mean)
    torch.testing.assert_close(joint.running_var, plain.running_var)
    # Different board shapes: every cell of both counts once in the statistics.
    small, large = torch.randn(2, 5, 4, 4) + 3, torch.randn(1, 5, 7, 5)
    outs = JointBatchNorm2d(5, affine=False)([small, large])
    cells = torch.cat([o.transpose(0, 1).reshape(5, -1) for o in outs], dim=1)
    torch.testing.assert_close(cells.mean(dim=1), torch.zeros(5), atol=1e-5, rtol=0)
    assert outs[0].shape == small.shape and outs[1].shape == large.shape


def test_policy_mask_and_weights_errors(tmp_path: Path) -> None:
    policy = masked_softmax(np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]),
                            np.array([[True, False, True], [False, False, False]]))
    np.testing.assert_allclose(policy[0], [1 / (1 + np.e**2), 0, np.e**2 / (1 + np.e**2)])
    assert not policy[1].any()
    model = random_model(1, 8)
    arrays = fold(model)
    with pytest.raises(WeightsError, match="does not exist"):
        PolicyValueNet.load(tmp_path / "missing.npz")
    with pytest.raises(WeightsError, match="features version"):
        PolicyValueNet(arrays, NetMetadata(model.architecture, feature_version=0))
    with pytest.raises(WeightsError, match="missing"):
        save_weights(tmp_path / "bad.npz", {k: v for k, v in arrays.items()
                                            if k != "stem.bias"}, NetMetadata(model.architecture))
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(WeightsError, match="cannot read"):
        PolicyValueNet.load(tmp_path / "junk.npz")


# -- game records ------------------------------------------------------------------------


def test_renju_line_coordinates_and_winning_five(shared_data: Path) -> None:
    with lzma.open(shared_data / SOURCES["renju"].path, "rt") as lines:
        line = next(line for n, line in enumerate(lines) if n == 1816)
    assert line.split() == ["black", "h8", "h9", "i8", "g9", "f8", "f9", "g8", "i9", "e8"]
    record = parse_renju_line(line)
    # RenjuNet rows count from the bottom: h8 is the centre, h9 the cell above it.
    assert record.moves[:2] == (7 * 15 + 7, 6 * 15 + 7)
    checked = verify(record, Replayer())
    assert (checked.record.result, checked.relabelled, checked.truncated) == (
        GameResult.BLACK_WIN, False, False)
    board = Replayer().position(record, len(record.moves))
    assert all(board.cells[board.index(x, 7)] == Color.BLACK for x in range(4, 9))
    assert parse_renju_line("white h8 -- h9").moves == (112, PASS, 97)


def test_rapfi_line_coordinates_and_winning_five(shared_data: Path) -> None:
    with lzma.open(shared_data / SOURCES["freestyle20"].path, "rt") as lines:
        line = next(line for line in lines if not line.startswith("#"))
    record = parse_rapfi_line(line, 20)
    assert line.split()[:4] == ["black", "2", "7,7", "11,8"]
    assert record.moves[:2] == (7 * 20 + 7, 8 * 20 + 11) and record.first_target == 2
    assert record.target_plies()[0] == 2
    checked = verify(record, Replayer())
    assert (checked.record.result, checked.relabelled, checked.truncated) == (
        GameResult.BLACK_WIN, False, False)
    board = Replayer().position(record, len(record.moves))
    assert all(board.cells[board.index(x, 9)] == Color.BLACK for x in range(3, 8))


def test_corrupt_and_mislabelled_games_are_handled() -> None:
    replayer = Replayer()
    with pytest.raises(RecordError, match="occupied"):
        verify(parse_renju_line("black h8 h9 h8"), replayer)
    with pytest.raises(RecordError):
        parse_renju_line("black h8 z99")
    with pytest.raises(RecordError):
        parse_rapfi_line("black 2 1,1 30,1", 20)
    # Labelled black, but white makes five on row 9 (a9..e9): white wins, and the moves
    # after the five are cut.
    line = "black h1 a9 h3 b9 h5 c9 o1 d9 o3 e9 o5 o7"
    checked = verify(parse_renju_line(line), replayer)
    assert checked.record.result is GameResult.WHITE_WIN
    assert checked.relabelled and checked.truncated and len(checked.record.moves) == 10


def test_batch_stream_mixes_sources_in_fixed_proportions(shared_data: Path) -> None:
    samplers = [PositionSampler(name, load_source(SOURCES[name], shared_data, max_games=6)[0])
                for name in ("renju", "freestyle15", "freestyle20")]
    stream = BatchStream(samplers, [0.7, 0.2, 0.1], 20)
    assert stream.counts == [14, 4, 2]
    groups = next(stream.batches(np.random.default_rng(0)))
    assert [(len(g), g.shape) for g in groups] == [(18, (15, 15)), (2, (20, 20))]
    rule_planes = groups[0].planes[:, RULE_PLANES : RULE_PLANES + 3, 0, 0].tolist()
    assert rule_planes.count([0, 0, 1]) == 14 and rule_planes.count([1, 0, 0]) == 4


def test_games_relabelled_under_another_rule_must_stand_unchanged(shared_data: Path) -> None:
    # Black's last stone joins 0..2 and 4..5 into six in a row: a freestyle win, but no
    # five under exact-five rules, where the game would go on.
    record = parse_rapfi_line("black 0 0,0 0,5 1,0 1,5 2,0 2,5 4,0 3,5 5,0 4,6 3,0", 15)
    assert verify(record, Replayer()).unchanged
    assert not verify(replace(record, rule=Rule.STANDARD), Replayer()).unchanged
    records, report = load_source(SOURCES["standard15"], shared_data, max_games=300)
    assert report.dropped["different under standard"] > 0
    assert all(r.rule is Rule.STANDARD for r in records) and len(records) == 300


def test_sampler_batches_are_consistent(shared_data: Path) -> None:
    records, report = load_source(SOURCES["renju"], shared_data, max_games=20)
    assert report.kept == 20
    batch = PositionSampler("renju", records).sample(np.random.default_rng(0), 64)
    assert batch.planes.shape == (64, PLANE_COUNT, 15, 15)
    np.testing.assert_allclose(batch.policy.sum(axis=1), 1.0)
    target = batch.policy.argmax(axis=1)
    assert legal_from_planes(batch.planes)[np.arange(64), target].all()
    assert set(batch.wdl.sum(axis=1).tolist()) <= {0.0, 1.0}


# -- training end to end -----------------------------------------------------------------


def test_tiny_training_run_exports_loadable_weights(shared_data: Path, tmp_path: Path) -> None:
    config = TrainConfig(out=str(tmp_path / "run"), blocks=1, channels=8, policy_channels=4,
                         value_channels=4, value_hidden=8, data_dir=str(shared_data),
                         max_games=12, validation_fraction=0.3, validation_positions=64,
                         epochs=1, steps_per_epoch=4, batch_size=16, warmup_steps=2,
                         checkpoint_every=2, log_every=2, threads=1)
    last = run(config)
    first = torch.load(last, weights_only=False)
    assert first["step"] == 4 and first["history"][-1]["step"] == 4
    run(config, epochs_override=1.5)  # resumes from last.pt and trains two more steps
    resumed = torch.load(last, weights_only=False)
    assert resumed["step"] == 6 and resumed["samples"] == 6 * 16
    log = (tmp_path / "run" / "train.log").read_text()
    assert "resuming" in log and "top-1" in log
    weights = tmp_path / "net.npz"
    export_checkpoint(tmp_path / "run" / "best.pt", weights)
    net = PolicyValueNet.load(weights)
    assert net.architecture == Architecture(1, 8, 4, 4, 8)
    assert net.metadata.training["steps"] in (2, 4, 6)
    assert set(net.metadata.training["data"]) == set(SOURCES)
    for board in (Board(15, rule=Rule.RENJU), Board(20), Board(8, 12, Rule.STANDARD)):
        board.play(board.index(3, 3))
        policy, value = net.evaluate([board, board])
        assert policy.shape == (2, board.size) and value.shape == (2,)
        assert policy[0, board.index(3, 3)] == 0 and abs(policy[0].sum() - 1) < 1e-5
    lines = (tmp_path / "run" / "validation.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["step"] == 6


def test_a_run_of_minutes_fits_its_schedule_to_the_time(shared_data: Path,
                                                        tmp_path: Path) -> None:
    """``minutes``: the steps are set from the measured rate, the learning rate ends its
    cosine at the last step, and a resume keeps the length found."""
    config = TrainConfig(out=str(tmp_path / "run"), blocks=1, channels=8, policy_channels=4,
                         value_channels=4, value_hidden=8, data_dir=str(shared_data),
                         sources=["freestyle15"], max_games=12, validation_fraction=0.3,
                         validation_positions=16, minutes=0.05, batch_size=8,
                         warmup_steps=5, checkpoint_every=10**6, log_every=10, threads=1)
    last = torch.load(run(config), weights_only=False)
    probed = PROBE_SKIP + PROBE_STEPS
    assert last["step"] > probed
    log_text = (tmp_path / "run" / "train.log").read_text()
    assert "steps fill the" in log_text
    # Before the first probe the log shows no length (not the placeholder's), after it the
    # length found; the last step is logged with it.
    assert "step 10/? " in log_text and "eta once the step time is measured" in log_text
    assert str(UNKNOWN_LENGTH) not in log_text
    assert f"step {last['step']}/{last['step']} " in log_text
    # The last step ran at the bottom of the cosine: 1 % of the peak rate.
    assert last["optimizer"]["param_groups"][0]["lr"] == pytest.approx(0.01 * config.lr,
                                                                        rel=0.05)
    # 3 s of training asked; validation and a loaded machine may add a little.
    assert 1.5 < last["wall_time_s"] < 9
    run(config)  # resumes: the length is kept, nothing more to train
    assert torch.load(tmp_path / "run" / "last.pt", weights_only=False)["step"] == last["step"]


def test_a_run_starts_from_a_weights_file(shared_data: Path, tmp_path: Path) -> None:
    """``initial``: a new run takes the file's architecture and starts from its network
    (at a learning rate of zero it ends there, up to batch norm's running statistics)."""
    initial = default_weights_path()  # a trained network: its outputs are far from flat
    config = TrainConfig(out=str(tmp_path / "run"), data_dir=str(shared_data),
                         sources=["freestyle15", "freestyle20"], max_games=12,
                         validation_fraction=0.3, validation_positions=64, epochs=1,
                         steps_per_epoch=3, batch_size=64, warmup_steps=1, lr=0.0,
                         checkpoint_every=3, log_every=1, threads=1, initial=str(initial))
    run(config)
    assert "starting from the weights of" in (tmp_path / "run" / "train.log").read_text()
    # The starting network is validated first, on the same held-out positions.
    steps = [json.loads(line)["step"]
             for line in (tmp_path / "run" / "validation.jsonl").read_text().splitlines()]
    assert steps == [0, 3]
    export_checkpoint(tmp_path / "run" / "last.pt", tmp_path / "after.npz")
    after, before = PolicyValueNet.load(tmp_path / "after.npz"), PolicyValueNet.load(initial)
    assert after.architecture == before.architecture
    boards = real_boards(shared_data, "freestyle15", 12)
    policy_before, value_before = before.evaluate(boards)
    policy_after, value_after = after.evaluate(boards)
    # Measured: 0.009 and 0.012 apart (batch norm's running statistics move with the
    # batches); every position keeps its best move.
    np.testing.assert_allclose(policy_after, policy_before, atol=0.03)
    np.testing.assert_allclose(value_after, value_before, atol=0.05)
    assert (policy_after.argmax(axis=1) == policy_before.argmax(axis=1)).all()
    fresh = TrainConfig(**{**config.__dict__, "out": str(tmp_path / "fresh"), "initial": None,
                           "blocks": 1, "channels": 8})
    run(fresh)
    export_checkpoint(tmp_path / "fresh" / "last.pt", tmp_path / "fresh.npz")
    policy_fresh, _ = PolicyValueNet.load(tmp_path / "fresh.npz").evaluate(boards)
    assert np.abs(policy_fresh - policy_before).max() > 0.2


# -- the play path -------------------------------------------------------------------------


def test_play_path_never_imports_torch() -> None:
    code = ("import sys, brain.eval.network, brain.eval.features, brain.process.session, "
            "brain.engine; print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "False"


def test_default_weights_path_is_in_weights_folder() -> None:
    path = default_weights_path()
    assert path.parent == ROOT / "weights" and path.suffix == ".npz"


def committed_weights() -> list[Path]:
    """Every network weights file in ``weights/`` (the shipped one and the candidates;
    not the pattern model, the line-pattern networks, which tests/test_linenet.py checks,
    or training data)."""
    line_stem = Path(LINE_NETWORK_FILE).stem
    files = sorted(path for path in (ROOT / "weights").rglob("*.npz")
                   if path.name != DEFAULT_PATTERN_MODEL_NAME
                   and not path.name.startswith(line_stem)
                   and path.parent.name != "training")
    assert files, "no weights file in weights/"
    return files


@pytest.mark.parametrize("rule", list(Rule))
def test_committed_weights_win_and_block(rule: Rule) -> None:
    """Every committed network plays the five and stops the opponent's five, under every
    rule, on both trained sizes and on a rectangle."""
    for path in committed_weights():
        net = PolicyValueNet.load(path)
        assert net.metadata.training["steps"] > 0
        win_and_block(net, rule)


def win_and_block(net: PolicyValueNet, rule: Rule) -> None:
    for width, height in ((15, 15), (20, 20), (17, 12)):
        board = Board(width, height, rule)
        far = [(width - 1, height - 1), (width - 1, 0), (width - 3, height - 1)]
        # Black: four on row 3 from x=2, closed by white at x=1; white: scattered.
        for move in [(2, 3), (1, 3), (3, 3), far[0], (4, 3), far[1], (5, 3)]:
            board.play(board.index(*move))
        policy, value = net.evaluate([board])
        assert int(np.argmax(policy[0])) == board.index(6, 3), "white must block"
        board.play(board.index(*far[2]))
        policy, value = net.evaluate([board])
        assert int(np.argmax(policy[0])) == board.index(6, 3), "black must win"
        assert value[0] > 0.9
