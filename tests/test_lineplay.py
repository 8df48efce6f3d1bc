"""Self-play of the line-pattern network: its games, its samples and the reinforcement
loop that trains on them (``python -m brain.train rl --network line``)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from brain.eval.linenet import LineNet
from brain.game.board import Board, Color
from brain.game.openings import Opening, load_openings
from brain.game.referee import judge_move
from brain.game.rules import Rule
from brain.resources import weights_dir
from brain.train.__main__ import parse_args
from brain.train.linenet import BatchMaker, export, load_model, widen
from brain.train.lineplay import (
    SOURCE,
    LineGame,
    LinePlayConfig,
    SelfPlayer,
    local_games,
    opening_board,
    replay_window,
    samples_of_games,
    write_games,
)
from brain.train.samples import DRAW, LOSS, WIN, SampleStore
from brain.train.selfplay import SelfPlayLog, game_rng, opening_keys, record_games

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = weights_dir() / "linenet.npz"
#: Small searches: the games are real, only shorter in thought.
QUICK = LinePlayConfig(playouts=48, fast_playouts=16, judge_playouts=24, full_share=0.5,
                       seed=11)


@pytest.fixture(scope="module")
def net() -> LineNet:
    return LineNet.from_file(SHIPPED)


@pytest.fixture(scope="module")
def games(net: LineNet) -> list[LineGame]:
    player = SelfPlayer(net, QUICK)
    return [player.play(game_rng(QUICK, n)) for n in range(6)]


def _replayed(game: LineGame) -> Board:
    """The game's board, every move judged as a referee would."""
    board = Board(game.width, game.height, Rule.from_gomocup(game.rule))
    for q in game.opening:
        assert judge_move(board, q) is None
    for n, q in enumerate(game.moves):
        assert board.to_move is game.to_move[n]
        verdict = judge_move(board, q, board.rule.move_limit)
        if n < len(game.moves) - 1:
            assert verdict is None, f"the game went on after {verdict}"
        else:
            assert verdict is not None and verdict.winner is game.winner
    return board


def test_self_play_games_are_legal_finished_games_with_search_targets(
        games: list[LineGame]) -> None:
    for game in games:
        board = _replayed(game)
        assert 2 <= len(game.opening) <= 5 and game.playouts > 0
        assert len(game.best) == len(game.targets) == len(game.moves)
        assert len(game.values) == len(game.moves)
        for n, (best, target) in enumerate(zip(game.best, game.targets, strict=True)):
            if best < 0:
                assert target == [] and math.isnan(game.values[n])
                continue
            # A full search's root winrate: a probability, won where the search saw a five.
            assert 0 <= game.values[n] <= 1
            if len(target) == 1 and n == len(game.moves) - 1 and game.winner is not None:
                assert game.values[n] == 1
            shares = dict(target)
            assert abs(sum(shares.values()) - 1) < 1e-6
            # The most visited move has the largest share; no share on a stone.
            assert shares[best] == max(shares.values())
            stones = set(game.opening + game.moves[:n])
            assert not stones & shares.keys()
        assert sum(board.stone_count) == len(game.opening) + len(game.moves)
    # Both kinds of search happen, and games differ.
    assert any(b >= 0 for g in games for b in g.best) and any(b < 0 for g in games for b in g.best)
    assert len({tuple(g.opening + g.moves) for g in games}) == len(games)


def test_a_game_is_the_same_wherever_it_is_played(net: LineNet, games: list[LineGame]) -> None:
    again = SelfPlayer(net, QUICK).play(game_rng(QUICK, 3))
    assert (again.opening, again.moves, again.targets) == (games[3].opening, games[3].moves,
                                                           games[3].targets)


def test_only_the_first_plies_after_the_opening_are_sampled(net: LineNet,
                                                             games: list[LineGame]) -> None:
    def sampled(game: LineGame) -> list[int]:
        """The plies after a full search whose move is not the most visited."""
        return [n for n, (best, move) in enumerate(zip(game.best, game.moves, strict=True))
                if best >= 0 and move != best]

    assert any(sampled(game) for game in games)
    assert all(n < QUICK.sample_plies for game in games for n in sampled(game))
    greedy = dataclasses.replace(QUICK, sample_plies=0)
    player = SelfPlayer(net, greedy)
    assert not any(sampled(player.play(game_rng(greedy, n))) for n in range(3))


def test_a_deep_side_searches_its_moves_with_more_playouts(net: LineNet) -> None:
    config = dataclasses.replace(QUICK, deep_side=4, full_share=1.0, sample_plies=0,
                                 variants=((0, 15, 15, 1.0),))
    player = SelfPlayer(net, config)
    searched: list[tuple[Color, int]] = []
    search = player.search.search

    def noting(board: Board, deadline: float) -> int:
        """The real search, its playouts noted by the side that searched."""
        to_move = board.to_move
        move = search(board, deadline)
        searched.append((to_move, player.search.info.playouts))
        return move

    player.search.search = noting  # type: ignore[method-assign]
    deeper = []
    for n in range(6):
        searched.clear()
        player.play(game_rng(config, n))
        # The most playouts each side searched (its searches stop early only where the
        # position is settled; the opening's judge searches fewer than either).
        most = {side: max(p for s, p in searched if s is side)
                for side in (Color.BLACK, Color.WHITE)}
        assert sorted(most.values()) == [config.playouts, 4 * config.playouts], searched
        deeper.append(max(most, key=most.__getitem__))
    assert set(deeper) == {Color.BLACK, Color.WHITE}  # drawn game by game


def test_openings_are_near_even_for_the_search_and_never_an_excluded_one(net: LineNet) -> None:
    config = LinePlayConfig(judge_playouts=60, balance=0.2,
                            variants=((0, 15, 15, 1.0),), opening_stones=(3,))
    drawn = SelfPlayer(net, config)
    first, opening = drawn.opening(0, 15, 15, np.random.default_rng(5))
    assert abs(drawn.winrate(first) - 0.5) <= 0.2
    # With that opening excluded (in another orientation), the same draw avoids it.
    mirrored = Opening(tuple((14 - x, y) for x, y in opening.moves), 15, 15)
    avoiding = SelfPlayer(net, config, opening_keys([mirrored]))
    _, other = avoiding.opening(0, 15, 15, np.random.default_rng(5))
    assert other.canonical() != opening.canonical()


def test_samples_keep_results_moves_and_visit_shares(games: list[LineGame],
                                                     tmp_path: Path) -> None:
    store = samples_of_games(games)
    assert len(store) == sum(len(g.moves) for g in games) and store.sources == [SOURCE]
    row = 0
    for g, game in enumerate(games):
        for n, to_move in enumerate(game.to_move):
            assert store.game[row] == g and store.count[row] == len(game.opening) + n
            wanted = (DRAW if game.winner is None
                      else WIN if game.winner is to_move else LOSS)
            assert store.result[row] == wanted and store.move[row] == game.best[n]
            assert np.isclose(store.winrate[row], game.values[n], equal_nan=True)
            span = slice(store.target_start[row], store.target_start[row + 1])
            assert list(store.target_cell[span]) == [q for q, _ in game.targets[n]]
            assert np.allclose(store.target_share[span], [s for _, s in game.targets[n]],
                               atol=1e-3)
            row += 1
    store.save(tmp_path / "s.npz")
    loaded = SampleStore.load(tmp_path / "s.npz")
    assert np.array_equal(loaded.target_start, store.target_start)
    # A store of records (no distributions) joins one of self-play.
    teacher = SampleStore.load(weights_dir() / "training" / "linenet-teacher.npz")
    both = SampleStore.concatenate([teacher, store])
    assert len(both) == len(teacher) + len(store)
    assert both.target_start[len(teacher)] == 0 and both.target_start[-1] == len(store.target_cell)


def test_a_batch_carries_the_visit_shares_through_the_board_symmetry(
        games: list[LineGame]) -> None:
    store = samples_of_games(games)
    maker = BatchMaker(store, torch.device("cpu"))
    rows = [r for r in range(len(store)) if store.target_start[r + 1] - store.target_start[r] > 1
            and store.width[store.game[r]] == 15]
    assert rows
    samples = torch.tensor(rows)
    for symmetry in range(8):
        batch = maker.batch(samples, 15, 15, symmetry)
        policy, planes = batch["policy"], batch["planes"].reshape(len(rows), 2, -1)
        assert torch.allclose(policy.sum(1), torch.ones(len(rows)), atol=1e-3)
        assert float((policy * (planes.sum(1) > 0)).sum()) == 0  # never on a stone
        # The most visited move keeps the largest share wherever the symmetry puts it.
        moved = policy[torch.arange(len(rows)), batch["move"]]
        assert torch.equal(moved, policy.max(1).values)


def test_replay_chunks_resume_their_count_and_a_window_holds_the_newest(
        net: LineNet, tmp_path: Path) -> None:
    folder = tmp_path / "replay"
    first = record_games(local_games(SHIPPED, QUICK), folder, 3, games_per_chunk=2,
                         progress=False, write=write_games)
    more = record_games(local_games(SHIPPED, QUICK), folder, 2, games_per_chunk=2,
                        progress=False, write=write_games)
    assert (first.games, more.games, more.chunks) == (3, 5, 3)
    assert SelfPlayLog.read(folder).samples == more.samples
    names = sorted(p.name for p in folder.glob("games-*.npz"))
    assert names == ["games-000000.npz", "games-000001.npz", "games-000002.npz"]
    whole = replay_window(folder, 10**9)
    assert whole is not None and len(whole) == more.samples
    newest = SampleStore.load(folder / names[-1])
    assert len(replay_window(folder, 1)) == len(newest)
    # Games 3 and 4, played by the resumed call, are the games 3 and 4 of one call.
    player = SelfPlayer(net, QUICK)
    expected = samples_of_games([player.play(game_rng(QUICK, n)) for n in (3, 4)])
    assert np.array_equal(newest.stones, expected.stones)


def test_folders_played_apart_merge_into_one_replay_without_the_gates_openings(
        games: list[LineGame], tmp_path: Path) -> None:
    write_games(tmp_path / "a", games[:2], 0)
    write_games(tmp_path / "a", games[2:3], 1)
    write_games(tmp_path / "b", games[3:5], 0)
    gate = Opening(tuple(Board(15, 15).xy(q) for q in games[0].opening))
    assert (games[0].width, games[0].height) == (15, 15)
    (tmp_path / "gate.txt").write_text(gate.to_offsets() + "\n")
    command = [sys.executable, "-m", "brain.train", "replay-merge", str(tmp_path / "a"),
               str(tmp_path / "b"), "--out", str(tmp_path / "run" / "replay"), "--seed", "77",
               "--exclude", str(tmp_path / "gate.txt")]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    # Chunks in turn (a's first, b's, a's second), less the game from the gate's opening.
    kept = [games[1], games[3], games[4], games[2]]
    expected = samples_of_games(kept)
    merged = replay_window(tmp_path / "run" / "replay", 10**9)
    assert merged is not None
    for name in ("stones", "start", "width", "game", "count", "move", "to_move", "result",
                 "target_start", "target_cell", "target_share"):
        assert np.array_equal(getattr(merged, name), getattr(expected, name)), name
    log = SelfPlayLog.read(tmp_path / "run" / "replay")
    assert (log.games, log.samples, log.chunks, log.seed) == (4, len(expected), 3, 77)
    winners = [g.winner for g in kept]
    assert (log.black_wins, log.white_wins, log.draws) == (
        winners.count(Color.BLACK), winners.count(Color.WHITE), winners.count(None))
    assert f"{len(expected)} samples in 3 chunks" in done.stdout
    # A folder with games is never merged into.
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "already holds games" in again.stderr
    assert "Traceback" not in again.stderr


def test_the_newest_games_keep_their_share_beside_earlier_runs_games(
        games: list[LineGame]) -> None:
    from brain.train.linerl import training_mix

    window = samples_of_games(games)
    training = weights_dir() / "training"
    base = [str(training / "linenet-teacher.npz"),
            str(training / "linenet-selfplay-lrl1.npz")]
    store, weights = training_mix(window, base, 0.3)
    # The earlier run's games are a base source of their own, not the run's newest.
    assert sorted(store.sources) == sorted(
        [SOURCE, "teacher15x15", "teacher20x20", "linenet-selfplay-lrl1"])
    newest = store.sources.index(SOURCE)
    assert int((store.source == newest).sum()) == len(window)
    assert weights[SOURCE] == pytest.approx(0.7)
    assert weights["linenet-selfplay-lrl1"] == pytest.approx(0.1)
    assert sum(weights.values()) == pytest.approx(1.0)
    # Without a base the newest games are every batch.
    alone, only = training_mix(window, [], 0.3)
    assert alone.sources == [SOURCE] and only == {SOURCE: 1.0}
    # Base weights split the base's share: the teacher's 15x15 positions first.
    _, weighted = training_mix(window, base, 0.4, {"teacher15x15": 3.0,
                                                   "linenet-selfplay-lrl1": 0.0})
    assert weighted == pytest.approx({SOURCE: 0.6, "teacher15x15": 0.3,
                                      "teacher20x20": 0.1, "linenet-selfplay-lrl1": 0.0})
    with pytest.raises(ValueError, match="--base-weight teacher: no --base file"):
        training_mix(window, base, 0.4, {"teacher": 1.0})


def test_the_loop_refuses_a_base_weight_no_base_file_holds(tmp_path: Path) -> None:
    teacher = str(weights_dir() / "training" / "linenet-teacher.npz")
    command = [sys.executable, "-m", "brain.train", "rl", "--network", "line",
               "--out", str(tmp_path / "run"), "--base", teacher]
    for flags, reason in ((["--base-weight", "teacher=2"], "no --base file holds"),
                          (["--base-weight", "teacher15x15"], "expected SOURCE=W")):
        refused = subprocess.run([*command, *flags], cwd=ROOT, capture_output=True,
                                 text=True, timeout=120)
        assert refused.returncode == 2 and reason in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr and not (tmp_path / "run").exists()
    # The short searches' playouts are the line network's self-play setting.
    conv = subprocess.run([sys.executable, "-m", "brain.train", "rl", "--out",
                           str(tmp_path / "run"), "--fast-playouts", "8"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert conv.returncode == 2 and "are for --network line" in conv.stderr
    assert not (tmp_path / "run").exists()


def test_the_line_reinforcement_loop_trains_gates_and_resumes(tmp_path: Path) -> None:
    from brain.train.reinforce import RlConfig, RlState, run

    config = RlConfig(out=str(tmp_path), network="line", iterations=1, games=3, steps=3,
                      batch_size=32, playouts=32, fast_playouts=8, deep_side=2, gate_pairs=1,
                      gate_playouts=24,
                      gate_openings=12,
                      base=[str(weights_dir() / "training" / "linenet-teacher.npz")])
    state = run(config)
    assert state.iteration == 1 and state.best in (str(SHIPPED),
                                                   str(tmp_path / "candidates" / "iter-0000.npz"))
    record = state.history[0]
    assert record["samples"] > 0 and record["against"] == str(SHIPPED)
    assert record["policy_loss"] > 0 and record["value_loss"] > 0
    candidate = LineNet.from_file(tmp_path / "candidates" / "iter-0000.npz")
    assert candidate.dim == LineNet.from_file(SHIPPED).dim
    # Its torch model is kept beside it, and exports to the same tables.
    kept = load_model(tmp_path / "candidates" / "iter-0000.pt")
    with np.load(tmp_path / "candidates" / "iter-0000.npz") as exported:
        assert np.array_equal(export(kept).table, exported["table"])
    # The trained model moved away from the shipped one, a little.
    trained = torch.load(tmp_path / "train" / "last.pt", weights_only=False)
    shipped = torch.load(weights_dir() / "linenet-model.pt", weights_only=False)
    assert trained["step"] == 3
    assert any(not torch.equal(trained["model"][k], shipped["model"][k])
               for k in shipped["model"])
    # The gate played from the run's own openings (those self-play avoids).
    gate = json.loads((tmp_path / "gates" / "iter-0000" / "config.json").read_text())
    run_openings = {o.moves for o in load_openings(tmp_path / "gate-openings.txt")}
    assert len(run_openings) == 12
    assert {tuple(map(tuple, o)) for o in gate["config"]["openings"]} <= run_openings
    # Each one a short search of the first best player rates near even, as self-play's.
    judge = SelfPlayer(LineNet.from_file(SHIPPED), LinePlayConfig())
    for moves in run_openings:
        board = Board(15, 15, Rule.FREESTYLE)
        for x, y in moves:
            board.play(board.index(x, y))
        assert len(moves) == 3 and abs(judge.winrate(board) - 0.5) <= judge.config.balance
    again = run(config)
    assert again.iteration == 1 and len(again.history) == 1
    assert again.config.seed == state.config.seed  # drawn once, kept in state.json
    assert SelfPlayLog.read(tmp_path / "replay").seed == state.config.seed
    with pytest.raises(ValueError, match="other settings"):
        RlState.open(RlConfig(out=str(tmp_path), network="line", iterations=1, games=4))
    # Longer, on more threads, and gated from now on by a sequential test: the second
    # iteration's steps end at step 6, its gate plays until the test decides or 2 pairs.
    longer = run(dataclasses.replace(config, iterations=2, threads=2, gate_pairs=2,
                                     gate_sprt=[0.0, 400.0]))
    assert longer.iteration == 2 and longer.config.threads == 2
    assert torch.load(tmp_path / "train" / "last.pt", weights_only=False)["step"] == 6
    first, second = longer.history
    assert first["gate"]["gate_sprt"] is None and "gate_sprt" not in first
    assert second["gate"] == {"gate_pairs": 2, "gate_playouts": 24, "gate_tc_ms": 0,
                              "gate_score": 0.55, "gate_sprt": [0.0, 400.0]}
    test = json.loads((tmp_path / "gates" / "iter-0001" / "config.json").read_text())
    assert test["config"]["sprt"]["elo0"] == 0.0 and test["config"]["sprt"]["elo1"] == 400.0
    assert 2 <= second["gate_games"] <= 4
    assert second["promoted"] == (second["gate_sprt"]["state"] == "H1")


def test_a_loop_started_from_a_wider_network_keeps_its_sizes(tmp_path: Path) -> None:
    from brain.train.reinforce import RlConfig, run

    shipped = load_model(weights_dir() / "linenet-model.pt")
    wide = widen(shipped, dataclasses.replace(shipped.config, dim=40, hidden=72))
    torch.save({"model": wide.state_dict(), "config": {"model": dataclasses.asdict(wide.config)}},
               tmp_path / "wide.pt")
    config = RlConfig(out=str(tmp_path / "run"), network="line", iterations=1, games=2,
                      steps=2, batch_size=16, playouts=32, gate_pairs=1, gate_playouts=24,
                      gate_openings=4, initial=str(tmp_path / "wide.pt"),
                      base=[str(weights_dir() / "training" / "linenet-teacher.npz")])
    run(config)
    candidate = LineNet.from_file(tmp_path / "run" / "candidates" / "iter-0000.npz")
    assert candidate.dim == 40
    assert load_model(tmp_path / "run" / "candidates" / "iter-0000.pt").config == wide.config


def test_a_run_gates_on_the_openings_of_a_file_it_is_given(tmp_path: Path) -> None:
    from brain.train.linerl import LineLearner
    from brain.train.reinforce import RlConfig, RlState, gate_openings

    given = ROOT / "bench" / "suites" / "openings15-1s.txt"
    config = RlConfig(out=str(tmp_path / "run"), network="line", seed=3,
                      gate_openings_file=str(given))
    (tmp_path / "run").mkdir()
    path = gate_openings(RlState.open(config), LineLearner())
    assert [o.moves for o in load_openings(path)] == [o.moves for o in load_openings(given)]
    # The command refuses a file it cannot use before any game, saying which and why.
    bad = tmp_path / "bad.txt"
    bad.write_text("0,0, 0,3, -2,-2\n0,0, 9,9\n")
    for file, reason in ((bad, "bad.txt"), (tmp_path / "none.txt", "no opening file")):
        done = subprocess.run([sys.executable, "-m", "brain.train", "rl", "--network", "line",
                               "--out", str(tmp_path / file.stem), "--gate-openings-file",
                               str(file)], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 2 and reason in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
        assert not (tmp_path / file.stem / "replay").exists()


def test_gating_openings_are_distinct_even_ones_first_and_never_more_than_exist() -> None:
    from brain.train.linerl import LineLearner

    learner = LineLearner()
    every = learner.gate_openings(str(SHIPPED), 297, 5)
    keys = {o.canonical().moves for o in every}
    assert len(keys) == len(every) == 297
    judge = SelfPlayer(LineNet.from_file(SHIPPED), LinePlayConfig())
    distances = [abs(judge.winrate(opening_board(o, Rule.FREESTYLE)) - 0.5) for o in every]
    even = [d <= judge.config.balance for d in distances]
    # The even ones come first; the others complete the list, most even first.
    assert 0 < sum(even) < len(every) and not any(even[sum(even):])
    assert distances[sum(even):] == sorted(distances[sum(even):])
    # That is every 3-stone opening near the centre: asking for one more is refused
    # with a message (a run asked for more than exist once looped for ever).
    with pytest.raises(ValueError, match="only 297 distinct 3-stone openings"):
        learner.gate_openings(str(SHIPPED), 298, 5)


def test_the_selfplay_command_plays_line_games(tmp_path: Path) -> None:
    out = tmp_path / "sp"
    done = subprocess.run([sys.executable, "-m", "brain.train", "selfplay", "--network", "line",
                           "--out", str(out), "--games", "2", "--playouts", "24"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"{out}: 2 games" in done.stdout
    store = replay_window(out, 10**9)
    assert store is not None and len(store.width) == 2
    assert set(np.unique(store.to_move)) == {int(Color.BLACK), int(Color.WHITE)}
    # The folder keeps the seed it drew: more games follow from it, another is refused,
    # and a second folder draws its own (it would hold the same games otherwise).
    seed = SelfPlayLog.read(out).seed
    more = subprocess.run([sys.executable, "-m", "brain.train", "selfplay", "--network", "line",
                           "--out", str(out), "--games", "1", "--playouts", "24", "--seed",
                           str(seed + 1)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert more.returncode == 2 and f"holds games of seed {seed}" in more.stderr
    assert "Traceback" not in more.stderr
    assert SelfPlayLog.read(out).games == 2
    # No sampled plies: every move played after a full search is its most visited. (A
    # quarter of the plies get one, drawn from the folder's own seed: four games have some
    # whatever it is; two games once had only five.)
    greedy = ["--playouts", "24", "--sample-plies", "0"]
    other = subprocess.run([sys.executable, "-m", "brain.train", "selfplay", "--network", "line",
                            "--out", str(tmp_path / "other"), "--games", "4", *greedy],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert other.returncode == 0, other.stderr
    assert SelfPlayLog.read(tmp_path / "other").seed != seed
    store = replay_window(tmp_path / "other", 10**9)
    full = store.target_start[1:] > store.target_start[:-1]
    played = store.stones[store.start[store.game] + store.count]
    assert full.any() and (played[full] == store.move[full]).all()
    # The folder keeps what its games were played with: more games of other settings, or
    # of another network, are refused; the same network named otherwise is the same.
    copy = tmp_path / "same.npz"
    copy.write_bytes(SHIPPED.read_bytes())
    for flags, told in ((["--playouts", "24"], "sample_plies 0 (not 10)"),
                        ([*greedy, "--temperature", "0.5", "0.2"],
                         "temperature [0.8, 0.3] (not [0.5, 0.2])"),
                        ([*greedy, "--fast-playouts", "12"], "fast_playouts 80 (not 12)"),
                        ([*greedy, "--deep-side", "4"], "deep_side 1 (not 4)"),
                        ([*greedy, "--weights", str(weights_dir() / "candidates" /
                                                    "linenet-gen0.npz")], "weights sha256:"),
                        ([*greedy, "--weights", str(copy)], None)):
        more = subprocess.run([sys.executable, "-m", "brain.train", "selfplay", "--network",
                               "line", "--out", str(tmp_path / "other"), "--games", "1",
                               *flags], cwd=ROOT, capture_output=True, text=True, timeout=300)
        if told is None:
            assert more.returncode == 0, more.stderr
        else:
            assert more.returncode == 2 and told in more.stderr, more.stderr
    assert SelfPlayLog.read(tmp_path / "other").games == 5
    conv = subprocess.run([sys.executable, "-m", "brain.train", "selfplay", "--out",
                           str(tmp_path / "conv"), "--games", "1", "--sample-plies", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert conv.returncode == 2 and "are for --network line" in conv.stderr


@pytest.mark.parametrize("flag", ["--fast-playouts", "--deep-side"])
@pytest.mark.parametrize("value", ["0", "-4", "two"])
def test_playouts_and_depth_multiples_below_one_are_refused(
        flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["selfplay", "--network", "line", "--out", "x", "--games", "1"],
                    ["rl", "--network", "line", "--out", "x"]):
        assert parse_args([*command, flag, "3"]).__dict__[flag[2:].replace("-", "_")] == 3
        with pytest.raises(SystemExit) as exited:
            parse_args([*command, flag, value])
        assert exited.value.code == 2
        assert f"{flag}: expected a whole number of 1 or more, got '{value}'" in \
            capsys.readouterr().err
