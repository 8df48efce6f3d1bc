"""Arena runs on a real Ray cluster on this machine: a head and a worker node (processes of
``ray.cluster_utils.Cluster``), games played as tasks with shipped brains, workers, nodes
and the driver killed in the middle."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import ray
from ray.cluster_utils import Cluster

from arena.cli import main as arena_main
from brain.train.cluster import cluster_games, connect_cluster
from brain.train.selfplay import (
    SelfPlayConfig,
    SelfPlayLog,
    best_evaluator,
    generate,
    record_games,
)
from driver.client import session_pids

ROOT = Path(__file__).resolve().parents[1]
FAULTY = Path(__file__).parent / "brains" / "faulty.py"
NODE = {"object_store_memory": 100 * 2**20}
#: The title of a Ray worker playing a game.
GAME_TASK = "ray::_play_on_node"


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        found[int(entry.name)] = (int(stat[stat.rfind(")") + 2:].split()[1]), args)
    return found


def _shipped_brains(task: str = "") -> dict[int, int]:
    """pid -> parent pid of the brains started from a node's cache of shipped files (by
    a worker running ``task``, when given)."""
    processes = _processes()
    return {pid: parent for pid, (parent, args) in processes.items()
            if "arena-shipped" in args and "faulty.py" in args
            and task in processes.get(parent, (0, ""))[1]}


def _new_brain_on_node(raylet: int, seen: set[int]) -> bool:
    """Whether a brain not in ``seen`` runs in a worker of the node whose raylet is
    ``raylet``: a game that has just begun there, so it is still being played a moment
    later (a game already under way may end first)."""
    processes = _processes()
    return any(processes.get(worker, (0, ""))[0] == raylet
               for brain, worker in _shipped_brains(GAME_TASK).items() if brain not in seen)


def _brains_left() -> str:
    return "the brains left (pid: parent's command): " + str(
        {pid: _processes().get(parent, (0, ""))[1][:60]
         for pid, parent in _shipped_brains().items()})


def _wait_until(condition: Callable[[], object], seconds: float, what: str,
                left: Callable[[], str] = _brains_left) -> None:
    """Wait for ``condition``; past ``seconds``, fail naming ``what`` and what ``left``
    says is still there."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}; {left()}"
        time.sleep(0.05)


def _session_members(sessions: list[int]) -> str:
    """Each live process of ``sessions``: its pid, state, parent and command line."""
    members = {}
    processes = _processes()
    for session in sessions:
        for pid in session_pids(session):
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{pid}/stat").read_text()
                state, parent = stat[stat.rfind(")") + 2:].split()[:2]
                members[pid] = (session, state, int(parent),
                                processes.get(pid, (0, ""))[1][:80])
    return f"the sessions' processes left (pid: session, state, parent, command): {members}"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head (1 CPU) and a worker node (2 CPUs); shut down, processes checked gone."""
    made = Cluster(initialize_head=True,
                   head_node_args={"num_cpus": 1, "include_dashboard": False, **NODE})
    made.add_node(num_cpus=2, **NODE)
    made.wait_for_nodes()
    session = made.head_node.get_session_dir_path()
    try:
        yield made
    finally:
        made.shutdown()
        _wait_until(lambda: not any(session in a for _, a in _processes().values()), 30,
                    "the cluster's processes to exit")
        _wait_until(lambda: not _shipped_brains(), 10, "every brain to exit")


def _games(out: Path) -> list[dict]:
    path = out / "games.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _events(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]


def _play(record: dict) -> tuple:
    """What a game was: everything but its clock times."""
    return (record["black"], record["white"], [m[:2] for m in record["moves"]],
            record["result"], record["reason"], record["tags"])


def test_a_match_on_the_cluster_gives_the_records_of_a_local_run(
        cluster: Cluster, tmp_path: Path) -> None:
    command = ["run", "builtin:heuristic", "builtin:alphabeta:1", "--pairs", "3",
               "--random-openings", "3", "--seed", "5", "--tc", "10000", "--no-progress"]
    assert arena_main([*command, "--out", str(tmp_path / "local")]) == 0
    assert arena_main([*command, "--out", str(tmp_path / "ray"),
                       "--cluster", cluster.address]) == 0
    assert not ray.is_initialized()  # the arena disconnected
    local, remote = _games(tmp_path / "local"), _games(tmp_path / "ray")
    assert len(local) == 6
    key = lambda r: int(r["tags"]["game"])  # noqa: E731
    assert [_play(r) for r in sorted(local, key=key)] == [_play(r) for r in
                                                           sorted(remote, key=key)]
    for name in ("results.json",):
        assert (json.loads((tmp_path / "local" / name).read_text())
                == json.loads((tmp_path / "ray" / name).read_text()))
    assert (sorted(p.name for p in (tmp_path / "local" / "games").iterdir())
            == sorted(p.name for p in (tmp_path / "ray" / "games").iterdir()))
    events = _events(tmp_path / "ray")
    placed = [e for e in events if e["event"] == "game_node"]
    assert sorted(e["game"] for e in placed) == list(range(6))
    moves = [e for e in events if e["event"] == "move"]
    assert len(moves) == sum(len(r["moves"]) - r["opening_length"] for r in remote)
    start = next(e for e in events if e["event"] == "run_start")
    assert start["concurrency"] == 3  # the cluster's 3 CPUs, one per game


def _run_command(cluster: Cluster, out: Path, pairs: int, think: float,
                 slow: str = "") -> list[str]:
    slow = slow or f"{FAULTY} --think {think}"
    return [sys.executable, "-m", "arena", "run", slow, str(FAULTY),
            "--name", "1=slow", "--name", "2=fast", "--pairs", str(pairs),
            "--random-openings", "4", "--no-progress", "--out", str(out),
            "--cluster", cluster.address]


def _assert_every_game_once(out: Path, pairs: int) -> list[dict]:
    games = _games(out)
    assert sorted(int(g["tags"]["game"]) for g in games) == list(range(2 * pairs))
    assert _events(out)[-1]["event"] == "run_end"
    assert _events(out)[-1]["reason"] == "complete"
    return games


def test_games_of_a_killed_worker_and_a_killed_node_are_played_again(
        cluster: Cluster, tmp_path: Path) -> None:
    extra = cluster.add_node(num_cpus=2, **NODE)
    cluster.wait_for_nodes()
    extra_raylet = extra.all_processes["raylet"][0].process.pid
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # The slow brain ignores SIGHUP (as wrapper scripts may) and starts a child that sleeps
    # for a minute: when its worker dies, neither the kernel (SIGHUP to an orphaned group)
    # nor the closed pipes end that child; the worker's reaper must.
    # 0.6 s a move: a game lasts several seconds, longer than a node takes to die.
    slow = f"nohup {sys.executable} {FAULTY} --think 0.6 --fault child"
    driver = subprocess.Popen(_run_command(cluster, out, 8, 0.6, slow), cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # A worker process playing a game, killed as the OOM killer would. The first games
        # begin once the checkout is on every node: 15 s here, but 73 s once in seven runs
        # with the 2 cores three times oversubscribed.
        _wait_until(lambda: driver.poll() is not None or len(_shipped_brains(GAME_TASK)) >= 2,
                    180, "games to start")
        assert driver.poll() is None, driver.communicate()[1]
        time.sleep(0.5)  # into the game (a game lasts seconds)
        worker = next(iter(_shipped_brains(GAME_TASK).values()))
        sessions = [pid for pid, parent in _shipped_brains(GAME_TASK).items()
                    if parent == worker]  # each brain leads a session of its own
        seen = set(_shipped_brains(GAME_TASK))
        os.kill(worker, signal.SIGKILL)
        # Then the extra node, early in a game it plays.
        _wait_until(lambda: _new_brain_on_node(extra_raylet, seen), 60,
                    "a game to begin on the extra node")
        # At once: the node's processes die one by one and its workers notice the raylet's
        # death up to a second later, and a game that ends before then is not lost.
        processes = _processes()
        sessions += [pid for pid, worker in _shipped_brains(GAME_TASK).items()
                     if processes.get(worker, (0, ""))[0] == extra_raylet]
        cluster.remove_node(extra, allow_graceful=False)
        _, errors = driver.communicate(timeout=120)
    finally:
        driver.kill()
    assert driver.returncode == 0, errors
    _assert_every_game_once(out, 8)
    replayed = [e for e in _events(out) if e["event"] == "game_replayed"]
    assert len(replayed) >= 2, replayed  # the worker's game and the node's game(s)
    # A worker of the removed node notices its raylet gone only when its own checks fail
    # (over 30 s once on a loaded 2-core machine, a fresh-clone CI run); its reaper, told
    # the worker is tied to the raylet, kills it and its brains within a second of the
    # raylet's death. The same bound as for a dead driver's brains.
    _wait_until(lambda: not any(session_pids(s) for s in sessions), 30,
                "the dead workers' brains and their children to be killed",
                left=lambda: _session_members(sessions))
    _wait_until(lambda: not _shipped_brains(), 10, "every brain to exit")


def test_a_driver_killed_outright_resumes_with_the_same_command(
        cluster: Cluster, tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = _run_command(cluster, out, 6, 0.02)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    driver = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    _wait_until(lambda: len(_games(out)) >= 3, 60, "three games")
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    before = (out / "games.jsonl").read_text().splitlines()
    assert 3 <= len(before) < 12, "the driver was not killed mid-run"
    # Ray ends the dead driver's tasks; their brains go with them.
    _wait_until(lambda: not _shipped_brains(), 30, "the dead driver's brains to be killed")

    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120)
    assert finished.returncode == 0, finished.stderr
    after = (out / "games.jsonl").read_text().splitlines()
    assert after[: len(before)] == before  # nothing finished was lost or rewritten
    _assert_every_game_once(out, 6)


def test_a_brain_missing_on_the_nodes_is_named(cluster: Cluster, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # A program this machine has but the nodes do not: the driver's PATH has it, the
    # nodes (started before it existed) do not.
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "pbrain-only-here"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {FAULTY}\n")
    program.chmod(0o755)
    path = os.environ["PATH"]
    os.environ["PATH"] = f"{folder}{os.pathsep}{path}"
    try:
        status = arena_main(["run", "pbrain-only-here", str(FAULTY), "--pairs", "1",
                             "--out", str(tmp_path / "run"), "--cluster", cluster.address])
    finally:
        os.environ["PATH"] = path
    error = capsys.readouterr().err
    assert status == 1
    assert "cannot be started on every node" in error and "pbrain-only-here" in error
    assert error.count("(node ") >= 2  # every node is named (head and worker)
    assert not (tmp_path / "run" / "config.json").exists()


SMALL = SelfPlayConfig(playouts=12, variants=((0, 9, 9), (4, 9, 9)), sample_plies=4,
                       move_seconds=60.0, seed=5)  # budgets never cut a search


def _chunks(folder: Path) -> dict[str, dict[str, np.ndarray]]:
    found = {}
    for path in sorted(folder.glob("chunk-*.npz")):
        with np.load(path) as chunk:
            found[path.name] = {name: chunk[name] for name in chunk.files}
    return found


def test_reinforcement_on_the_cluster_plays_the_self_play_games_of_a_local_run(
        cluster: Cluster, tmp_path: Path) -> None:
    from brain.train.reinforce import RlConfig, run

    # An iteration: self-play on the workers, training here, the gate in the arena there.
    config = RlConfig(out=str(tmp_path / "rl"), iterations=1, games=2, steps=2,
                      batch_size=16, playouts=6, gate_pairs=1, gate_playouts=6, blocks=1,
                      channels=8)
    state = run(config, cluster=cluster.address)
    assert not ray.is_initialized()
    assert state.iteration == 1 and state.history[0]["samples"] > 0
    assert SelfPlayLog.read(tmp_path / "rl" / "replay").games == 2
    gate = tmp_path / "rl" / "gates" / "iter-0000"
    assert sorted(e["game"] for e in _events(gate) if e["event"] == "game_node") == [0, 1]
    assert len(_games(gate)) == 2

    # Its candidate network, shipped to the workers, plays the games it plays here.
    weights = str(tmp_path / "rl" / "candidates" / "iter-0000.npz")
    local = generate(best_evaluator(weights), tmp_path / "local", 3, SMALL,
                     games_per_chunk=2, progress=False)
    with connect_cluster(cluster.address):
        remote = record_games(cluster_games(weights, SMALL), tmp_path / "ray", 3,
                              games_per_chunk=2, progress=False)
    assert not ray.is_initialized()
    assert (remote.games, remote.samples, remote.chunks) == (3, local.samples, 2)
    mine, theirs = _chunks(tmp_path / "local"), _chunks(tmp_path / "ray")
    assert mine.keys() == theirs.keys() and mine
    for name, arrays in mine.items():
        for key, values in arrays.items():
            assert np.array_equal(values, theirs[name][key]), (name, key)


def test_the_nodes_run_the_search_core_the_driver_runs(cluster: Cluster) -> None:
    from brain.native import core_status

    # The shipped copy loses the files' times; the driver vouches for its extensions.
    with connect_cluster(cluster.address):
        remote = ray.get(ray.remote(core_status).remote())
    assert remote == core_status()


def test_without_ray_cluster_says_what_to_install(tmp_path: Path) -> None:
    blocked = "import sys\nsys.modules['ray'] = None  # as if Ray were not installed\n"
    arena = (blocked + "from arena.cli import main\nsys.exit(main(['run', 'builtin:heuristic', "
             f"'builtin:heuristic', '--out', {str(tmp_path / 'run')!r}, '--cluster', 'local']))")
    train = (blocked + "from brain.train.__main__ import main\nsys.exit(main(['selfplay', "
             f"'--out', {str(tmp_path / 'sp')!r}, '--games', '1', '--cluster', 'local']))")
    for probe, status in ((arena, 1), (train, 2)):
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == status, done.stderr
        assert "pip install -e \".[cluster]\"" in done.stderr
    assert not (tmp_path / "run").exists() and not (tmp_path / "sp").exists()


def test_an_address_where_nothing_listens_fails_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed
    started = time.monotonic()
    status = arena_main(["run", "builtin:heuristic", "builtin:heuristic", "--out",
                         str(tmp_path / "run"), "--cluster", f"127.0.0.1:{port}"])
    assert status == 1 and time.monotonic() - started < 30
    assert f"nothing answers at 127.0.0.1:{port}" in capsys.readouterr().err


def _game_workers() -> list[int]:
    """Ray workers running a self-play task now."""
    return [pid for pid, (_, args) in _processes().items() if args.startswith(GAME_TASK)]


def test_line_self_play_on_the_cluster_survives_a_killed_worker_and_node(
        cluster: Cluster, tmp_path: Path) -> None:
    from brain.resources import weights_dir
    from brain.train.lineplay import LinePlayConfig, local_games, replay_window, write_games

    extra = cluster.add_node(num_cpus=2, **NODE)
    cluster.wait_for_nodes()
    out = tmp_path / "ray"
    # Full searches of 600 playouts: a game lasts a few seconds, long enough to be killed in.
    command = [sys.executable, "-m", "brain.train", "selfplay", "--network", "line",
               "--out", str(out), "--games", "8", "--playouts", "600", "--seed", "3",
               "--cluster", cluster.address]
    driver = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_until(lambda: len(_game_workers()) >= 2, 90, "self-play games to start")
        os.kill(_game_workers()[0], signal.SIGKILL)  # as the OOM killer would
        time.sleep(1.0)
        cluster.remove_node(extra, allow_graceful=False)
        output, errors = driver.communicate(timeout=300)
    finally:
        driver.kill()
    assert driver.returncode == 0, errors
    assert f"{out}: 8 games" in output
    # Every game once, and each the game this machine plays alone.
    config = LinePlayConfig(playouts=600, seed=3)
    record_games(local_games(weights_dir() / "linenet.npz", config), tmp_path / "local", 8,
                 progress=False, write=write_games)
    assert SelfPlayLog.read(out).games == 8

    remote, local = replay_window(out, 10**9), replay_window(tmp_path / "local", 10**9)
    assert remote is not None and local is not None
    for name in ("stones", "start", "move", "result", "target_cell"):
        assert np.array_equal(getattr(remote, name), getattr(local, name)), name
