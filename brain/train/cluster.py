"""Self-play on a Ray cluster: ``python -m brain.train rl|selfplay ... --cluster ADDRESS``.

:func:`cluster_games` is a :data:`brain.train.selfplay.GameSource` whose games are Ray
tasks: game ``n`` runs on whichever node has a free CPU, with
:func:`~brain.train.selfplay.game_rng` ``(config, n)``, so it is the game a local run
would play: :func:`brain.train.selfplay.play_game` for a
:class:`~brain.train.selfplay.SelfPlayConfig` (the convolutional network's search), or
:meth:`brain.train.lineplay.SelfPlayer.play` for a
:class:`~brain.train.lineplay.LinePlayConfig` (the line network's). The player's weights
file is put in the object store once and loaded once per worker process. The driver keeps
the replay folder: games come back to it, are written in index order by
:func:`~brain.train.selfplay.record_games`, and feed its replay buffer. A task whose worker
or node dies is run again by Ray (:data:`TASK_RETRIES` times); a game is counted only when
it comes back, so none is lost or doubled. This module imports no torch: the nodes need
numpy and Ray only.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brain.eval.linenet import LineNet
from brain.native import fresh_env
from brain.train.lineplay import LinePlayConfig, SelfPlayer
from brain.train.selfplay import (
    HEURISTIC,
    GameSource,
    SelfPlayConfig,
    best_evaluator,
    game_rng,
    play_game,
)
from driver.cluster import RayConnection, connect, import_ray

__all__ = ["TASK_RETRIES", "cluster_games", "connect_cluster"]

#: Times Ray runs a self-play task again after its worker or node died.
TASK_RETRIES = 5
#: Games submitted per CPU of the cluster, so that no CPU waits for the driver.
IN_FLIGHT_PER_CPU = 2

Excluded = frozenset[tuple[int, int, tuple]]

#: The player of this worker process: (weights key, evaluator or line self-player).
_loaded: tuple[str, Any] | None = None


def _weights_file(key: str, weights: list[Any]) -> str:
    """The weights file on this node (``weights``: the object ref of its bytes, in a list
    so that Ray passes it unresolved)."""
    path = Path(tempfile.gettempdir()) / "pbrain-weights" / f"{key}.npz"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = path.with_suffix(f".{os.getpid()}.tmp")
        staging.write_bytes(import_ray().get(weights[0]))
        staging.replace(path)
    return str(path)


def _player(key: str, weights: list[Any], config: SelfPlayConfig | LinePlayConfig,
            excluded: Excluded) -> Any:
    """The player on this node: an evaluator (``weights`` ``[]``: the heuristic) or a
    line network's :class:`~brain.train.lineplay.SelfPlayer`."""
    global _loaded
    if _loaded is None or _loaded[0] != key:
        if isinstance(config, LinePlayConfig):
            net = LineNet.from_file(_weights_file(key, weights))
            player: Any = SelfPlayer(net, config, excluded)
        else:
            player = best_evaluator(_weights_file(key, weights) if weights else HEURISTIC)
        _loaded = (key, player)
    return _loaded[1]


def _play_on_node(key: str, weights: list[Any], config: SelfPlayConfig | LinePlayConfig,
                  excluded: Excluded, index: int) -> Any:
    """The Ray task: game ``index`` of the replay folder."""
    player = _player(key, weights, config, excluded)
    rng = game_rng(config, index)
    if isinstance(config, LinePlayConfig):
        return player.play(rng)
    return play_game(player, config, rng, excluded)


def connect_cluster(address: str) -> RayConnection:
    """Connect to the cluster at ``address`` (:func:`driver.cluster.connect`), its workers
    told to take the compiled search core shipped with the job."""
    return connect(address, fresh_env())


def cluster_games(best: str, config: SelfPlayConfig | LinePlayConfig,
                  excluded: Excluded = frozenset()) -> GameSource:
    """Self-play games of ``best`` (a weights file, or ``heuristic`` for the convolutional
    network's search) played on the cluster this process is connected to
    (:func:`driver.cluster.connect`), from openings none of ``excluded``."""
    ray = import_ray()
    if best == HEURISTIC:
        key, weights = HEURISTIC, []
    else:
        data = Path(best).read_bytes()
        key, weights = hashlib.sha256(data).hexdigest()[:32], [ray.put(data)]
    key = f"{type(config).__name__}-{key}"
    task = ray.remote(_play_on_node).options(num_cpus=1, max_retries=TASK_RETRIES)

    def source(indices: range) -> Iterator[Any]:
        waiting = deque(indices)
        running: dict[Any, int] = {}
        finished: dict[int, Any] = {}
        following = indices.start
        while following < indices.stop:
            limit = max(1, IN_FLIGHT_PER_CPU * int(ray.cluster_resources().get("CPU", 1)))
            while waiting and len(running) < limit:
                index = waiting.popleft()
                running[task.remote(key, weights, config, excluded, index)] = index
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                finished[running.pop(ref)] = ray.get(ref)
            while following in finished:
                yield finished.pop(following)
                following += 1

    return source
