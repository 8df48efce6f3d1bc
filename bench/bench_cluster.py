"""Arena games on a Ray cluster: the overhead per game, and throughput against nodes.

Run: ``.venv/bin/python bench/bench_cluster.py`` (``--games N`` per measurement). Every
cluster is made of node processes on this machine (``ray.cluster_utils.Cluster``): a head
with no CPUs, which only coordinates, and worker nodes with ``--cpus`` logical CPUs each.

* **Overhead per game**: the same match (two instant test brains) played here with ``-j C``
  and on one worker node with C CPUs (``-j C`` by default there too). The difference of
  the wall times, times C, divided by the games, is what Ray adds to a game: the task's
  submission and scheduling, the worker's start-up, shipping the result back. The
  driver's own CPU time per game is reported as well: it bounds the games per second one
  driver can record, however many machines play.
* **Throughput against nodes**: a CPU-bound match (``builtin:heuristic`` against
  ``builtin:alphabeta:1``), on 1, 2, ... worker nodes of ``--cpus`` CPUs each.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ray.cluster_utils import Cluster

from arena.brainspec import BrainSpec, builtin_brain
from arena.cluster import RayVenue
from arena.game import GameSettings, TimeControl
from arena.rundir import RunDir
from arena.tournament import RunOptions, Tournament, TournamentConfig
from brain.game.openings import random_openings

ROOT = Path(__file__).resolve().parents[1]
FAULTY = ROOT / "tests" / "brains" / "faulty.py"
NODE = {"object_store_memory": 100 * 2**20}


@contextmanager
def cluster(nodes: int, cpus: int) -> Iterator[str]:
    """A head without CPUs and ``nodes`` worker nodes; yields its address."""
    made = Cluster(initialize_head=True,
                   head_node_args={"num_cpus": 0, "include_dashboard": False, **NODE})
    try:
        for _ in range(nodes):
            made.add_node(num_cpus=cpus, **NODE)
        made.wait_for_nodes()
        yield made.address
    finally:
        made.shutdown()


def play(brains: tuple[BrainSpec, BrainSpec], games: int, concurrency: int,
         address: str | None) -> tuple[float, float]:
    """Play ``games`` games here or on the cluster at ``address``; (wall seconds, driver
    CPU seconds)."""
    pairs = games // 2
    config = TournamentConfig(
        brains=brains, settings=GameSettings(time=TimeControl(5000, 0, 1000)),
        openings=tuple(random_openings(pairs, seed=7)), pairs_per_pairing=pairs)
    venue = RayVenue.connect(address) if address is not None else None
    try:
        with tempfile.TemporaryDirectory() as folder:
            options = RunOptions(concurrency=concurrency, cluster=venue)
            tournament = Tournament.open(config, RunDir(Path(folder) / "run"), options)
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            tournament.run()
            wall = time.perf_counter() - start
            used = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        if venue is not None:
            venue.close()
    return wall, (used.ru_utime + used.ru_stime) - (cpu.ru_utime + cpu.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=24, help="games per measurement")
    parser.add_argument("--cpus", type=int, default=1, help="logical CPUs per worker node")
    parser.add_argument("--nodes", type=int, default=3, help="most worker nodes")
    args = parser.parse_args()
    games = args.games

    fast = (BrainSpec((sys.executable, str(FAULTY)), name="fast-1"),
            BrainSpec((sys.executable, str(FAULTY)), name="fast-2"))
    slots = 2
    print(f"overhead per game: {games} games of two instant test brains, {slots} at once")
    here, here_cpu = play(fast, games, slots, None)
    with cluster(1, slots) as address:
        ray_wall, ray_cpu = play(fast, games, slots, address)
    for label, wall, cpu in (("here", here, here_cpu), ("ray", ray_wall, ray_cpu)):
        print(f"  {label:5s} {wall:6.1f} s  {games / wall * 3600:7.0f} games/h  "
              f"{wall * slots / games:5.2f} s per game and slot  driver CPU "
              f"{cpu / games * 1000:5.0f} ms/game")
    print(f"  Ray adds {(ray_wall - here) * slots / games:.2f} s to a game")

    brains = (builtin_brain("heuristic"), builtin_brain("alphabeta", 1))
    print(f"throughput: {games} games of heuristic against alphabeta-L1, worker nodes of "
          f"{args.cpus} CPU")
    wall, _ = play(brains, games, 2, None)
    print(f"  here, -j 2        {wall:6.1f} s  {games / wall * 3600:7.0f} games/h")
    for nodes in range(1, args.nodes + 1):
        with cluster(nodes, args.cpus) as address:
            wall, cpu = play(brains, games, nodes * args.cpus, address)
        print(f"  {nodes} node(s), -j {nodes * args.cpus}  {wall:6.1f} s  "
              f"{games / wall * 3600:7.0f} games/h  driver CPU {cpu / games * 1000:4.0f} "
              "ms/game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
