"""Arena games on a Ray cluster: ``python -m arena run ... --cluster ADDRESS``.

:class:`RayVenue` is a :class:`arena.tournament.GameVenue`: the tournament schedules, and
records, as for a local run, but each game is one Ray task (:func:`_play_on_node`) that
reserves the CPUs its brains think on (one with suspension, where only the side to move
runs; two with ``--no-suspend``), starts both brains on its node, plays the game with
:func:`arena.game.play_game` exactly as a local run does, and returns the record, the move
events (stamped with the node's clock) and the brains' log files. The driver writes them:
nothing on a node touches the run directory, so ``games.jsonl``, ``results.json``, the
SPRT, ``rate`` and resume are those of a local run. ADDRESS is as for
:func:`driver.cluster.connect`, which also ships the checkout with the job.

**Failures.** A task whose worker process or node dies is submitted again (the game is
played again from its opening, on any node with room), up to :data:`MAX_ATTEMPTS` times,
each loss logged as a ``game_replayed`` event; the dead worker's brains are killed by its
reaper (:mod:`arena.reaper`), and a worker whose node's raylet died is killed with them at
once (:meth:`arena.reaper.Reaper.tie_to_parent`), not when it notices. Only a record that
came back is written, once, by the driver, so a game is never counted twice. A driver
killed outright leaves its run directory as a local run does, and the same command
continues it (Ray ends a dead driver's tasks).

**Brains on the nodes.** Each brain's command is translated for the node that plays it:

* this Python (builtin brains, or ``python -m brain ...`` with the driver's interpreter):
  the node's Python, the one running Ray;
* the checkout (the working directory of builtin brains): the checkout shipped with the job;
* a brain's own folder (a brain given as a file: its working directory): the folder,
  packed once per run into the object store and unpacked into a cache on each node
  (:data:`MAX_SHIP_BYTES` at most);
* an absolute path of a file among its arguments (``--weights /x/net.npz``, also
  ``--weights=/x/net.npz``): that file, shipped the same way;
* anything else (a program on the PATH, a path that is no file here): unchanged.

Before the first game every node with CPUs starts each translated brain and asks ABOUT
(:meth:`RayVenue.check`); a brain that is missing or does not start on a node stops the run
with the brain, the reason and the node.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import shutil
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.brainspec import BrainSpec
from arena.game import GameAborted, GameSettings, Observer, play_game
from arena.reaper import REAPER
from arena.rundir import RunDir
from arena.tournament import TournamentError, probe_names, spawn_brain
from brain.game.openings import Opening
from brain.game.records import GameRecord
from brain.native import fresh_env
from driver.client import BrainProcess
from driver.cluster import RayConnection, connect, import_ray, project_dir

__all__ = ["MAX_ATTEMPTS", "MAX_SHIP_BYTES", "RayVenue", "game_cpus"]

#: Times a game is submitted before its losses of workers stop the run.
MAX_ATTEMPTS = 5
#: Largest folder or file shipped to the nodes.
MAX_SHIP_BYTES = 512 * 2**20
#: Seconds between looks at the stop flag while a game runs.
POLL_S = 0.25
#: Tries to reach a node the scheduler does not see yet (a node that just joined).
UNSCHEDULABLE_TRIES = 20

#: Roots of a :class:`_Place` besides shipped blobs.
_PYTHON = "python"
_PROJECT = "project"
#: Where nodes keep shipped brain files (one folder per content hash).
_CACHE = "arena-shipped"


def game_cpus(settings: GameSettings) -> int:
    """CPUs a game reserves: one brain thinks at a time when brains are suspended."""
    return 1 if settings.suspend else 2


@dataclass(frozen=True)
class _Place:
    """A path on the node: ``relative`` under ``root`` (:data:`_PYTHON`, :data:`_PROJECT`
    or the key of a shipped blob)."""

    root: str
    relative: str = ""


#: One command-line argument: literal text and places, concatenated on the node.
_Token = tuple[str | _Place, ...]


@dataclass(frozen=True)
class _NodeBrain:
    """A brain's launch description with driver paths replaced by :class:`_Place`."""

    name: str
    command: tuple[_Token, ...]
    cwd: str | _Place | None
    info: tuple[tuple[str, str], ...]

    def spec(self, blobs: dict[str, Any]) -> BrainSpec:
        """The :class:`BrainSpec` on this node (unpacking shipped files as needed)."""
        command = tuple("".join(part if isinstance(part, str) else _resolve(part, blobs)
                                for part in token) for token in self.command)
        cwd = self.cwd if not isinstance(self.cwd, _Place) else _resolve(self.cwd, blobs)
        return BrainSpec(command, self.name, cwd, self.info)


def _resolve(place: _Place, blobs: dict[str, Any]) -> str:
    if place.root == _PYTHON:
        return sys.executable
    if place.root == _PROJECT:
        base = Path(__file__).resolve().parents[1]
    else:
        base = _unpack(place.root, blobs[place.root])
    return str(base / place.relative) if place.relative else str(base)


def _unpack(key: str, ref: Any) -> Path:
    """The shipped blob ``key`` in this node's cache, fetched and unpacked if missing."""
    cache = Path(tempfile.gettempdir()) / _CACHE
    target = cache / key
    if target.is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=cache))
    with tarfile.open(fileobj=io.BytesIO(import_ray().get(ref)), mode="r:gz") as archive:
        archive.extractall(staging, filter="tar")
    try:
        staging.rename(target)
    except OSError:  # another worker of this node unpacked it first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _pack(path: Path) -> bytes:
    """``path`` (a folder's content, or one file) as a reproducible ``.tar.gz``."""
    files = sorted(p for p in path.rglob("*")) if path.is_dir() else [path]
    base = path if path.is_dir() else path.parent
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w") as archive:
        for file in files:
            archive.add(file, arcname=str(file.relative_to(base)), recursive=False)
    return buffer.getvalue()


def _is_python(path: Path) -> bool:
    executable = Path(sys.executable)
    return path == executable or path.resolve() == executable.resolve()


class _Shipment:
    """Files sent to the nodes through the object store, by content hash."""

    def __init__(self) -> None:
        self.blobs: dict[str, Any] = {}  # key -> ObjectRef of the packed bytes
        self._keys: dict[Path, str] = {}

    def ship(self, path: Path, brain: str) -> str:
        """The key of ``path`` (a folder or a file), packed and put once.

        :raises TournamentError: it is larger than :data:`MAX_SHIP_BYTES`.
        """
        path = path.resolve()
        if path not in self._keys:
            files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
            size = sum(p.stat().st_size for p in files)
            if size > MAX_SHIP_BYTES:
                raise TournamentError(
                    f"brain {brain}: {path} holds {size / 2**20:.0f} MiB, more than the "
                    f"{MAX_SHIP_BYTES / 2**20:.0f} MiB shipped to the nodes; give the brain a "
                    "folder of its own (its program and data only)")
            data = _pack(path)
            key = hashlib.sha256(data).hexdigest()[:32]
            self.blobs.setdefault(key, import_ray().put(data))
            self._keys[path] = key
        return self._keys[path]


def _translate(spec: BrainSpec, name: str, shipment: _Shipment) -> _NodeBrain:
    """``spec`` as the nodes run it (see the module docstring)."""
    project = project_dir()
    folder: tuple[Path, str] | None = None
    cwd: str | _Place | None = spec.cwd
    if spec.cwd is not None:
        here = Path(spec.cwd).resolve()
        if project is not None and here == project:
            cwd = _Place(_PROJECT)
        elif here.is_dir():
            folder = (here, shipment.ship(here, name))
            cwd = _Place(folder[1])

    def place(text: str) -> str | _Place:
        path = Path(text)
        if not path.is_absolute():
            return text
        if _is_python(path):
            return _Place(_PYTHON)
        if not path.is_file():
            return text
        resolved = path.resolve()
        if folder is not None and resolved.is_relative_to(folder[0]):
            return _Place(folder[1], str(resolved.relative_to(folder[0])))
        return _Place(shipment.ship(resolved, name), resolved.name)

    def token(text: str) -> _Token:
        option, sep, value = text.partition("=")
        if sep and option.startswith("-") and Path(value).is_absolute():
            return (option + "=", place(value))
        return (place(text),)

    return _NodeBrain(name, tuple(token(t) for t in spec.command), cwd, spec.info)


# -- on the nodes ------------------------------------------------------------------------------


def _node() -> str:
    ray = import_ray()
    return (f"{ray.util.get_node_ip_address()} (node "
            f"{ray.get_runtime_context().get_node_id()[:8]})")


def _check_on_node(brains: Sequence[_NodeBrain], blobs: dict[str, Any]) -> str | None:
    """Start every brain here and ask ABOUT; what went wrong, or ``None``."""
    try:
        probe_names([brain.spec(blobs) for brain in brains])
    except (TournamentError, OSError, ValueError) as exc:
        return f"on {_node()}: {exc}"
    return None


@dataclass(frozen=True)
class _GameOrder:
    black: _NodeBrain
    white: _NodeBrain
    game_id: int
    opening: Opening
    settings: GameSettings
    tags: dict[str, str]
    transcripts: bool
    blobs: dict[str, Any]


@dataclass(frozen=True)
class _PlayedGame:
    record: GameRecord
    events: tuple[tuple[str, dict[str, Any]], ...]
    #: (brain name, log kind, content) of each log file the game left.
    logs: tuple[tuple[str, str, bytes], ...]
    node: str


class _NodePlayer:
    """A :class:`arena.game.Player` on a node: a fresh process, logs in ``logs``."""

    def __init__(self, brain: _NodeBrain, order: _GameOrder, logs: RunDir) -> None:
        self._spec = brain.spec(order.blobs)
        self._order = order
        self._logs = logs
        self.name = brain.name
        self.info = brain.info

    def acquire(self) -> BrainProcess:
        order = self._order
        return spawn_brain(self._spec, self.name, self._logs, order.game_id, order.settings,
                           order.transcripts)

    def release(self, brain: BrainProcess, healthy: bool) -> None:
        brain.close()


def _play_on_node(order: _GameOrder) -> _PlayedGame:
    """The Ray task: one game on this node."""
    # A worker whose raylet died is lost; its brains are killed the moment it is.
    REAPER.tie_to_parent()
    events: list[tuple[str, dict[str, Any]]] = []

    def observe(kind: str, data: dict[str, Any]) -> None:
        events.append((kind, {"t": datetime.now(UTC).isoformat(timespec="microseconds"),
                              **data}))

    with tempfile.TemporaryDirectory(prefix="arena-game-") as folder:
        logs = RunDir(folder)
        (logs.path / "logs").mkdir()
        record = play_game(_NodePlayer(order.black, order, logs),
                           _NodePlayer(order.white, order, logs), order.opening,
                           order.settings, tags=order.tags, observer=observe)
        files = tuple((name, kind, path.read_bytes())
                      for name in (order.black.name, order.white.name)
                      for kind in ("stderr", "io")
                      if (path := logs.log_path(order.game_id, name, kind)).is_file())
    return _PlayedGame(record, tuple(events), files, _node())


# -- on the driver -----------------------------------------------------------------------------


class RayVenue:
    """Plays a run's games on a Ray cluster (see the module docstring)."""

    def __init__(self, connection: RayConnection) -> None:
        ray = import_ray()
        self.connection = connection
        self._ray = ray
        self._task = ray.remote(_play_on_node)
        self._lost = (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                      ray.exceptions.ObjectLostError, ray.exceptions.OutOfMemoryError,
                      ray.exceptions.LocalRayletDiedError)
        self._shipment = _Shipment()
        self._brains: dict[tuple[BrainSpec, str], _NodeBrain] = {}
        self._lock = threading.Lock()

    @classmethod
    def connect(cls, address: str) -> RayVenue:
        """Connect to the cluster at ``address`` (:func:`driver.cluster.connect`)."""
        return cls(connect(address, fresh_env()))

    def close(self) -> None:
        """Disconnect from the cluster."""
        self.connection.close()

    def cpus(self) -> int:
        """Logical CPUs of the cluster's nodes now."""
        return int(self._ray.cluster_resources().get("CPU", 0))

    def slots(self, settings: GameSettings) -> int:
        """Games the cluster plays at once (at least 1)."""
        return max(1, self.cpus() // game_cpus(settings))

    def _node_brain(self, spec: BrainSpec, name: str) -> _NodeBrain:
        with self._lock:
            if (spec, name) not in self._brains:
                self._brains[(spec, name)] = _translate(spec, name, self._shipment)
            return self._brains[(spec, name)]

    def check(self, brains: Sequence[BrainSpec], names: Sequence[str]) -> None:
        """Start every brain once on every node with CPUs.

        :raises TournamentError: no node has CPUs, or a brain is missing or fails to start
            on a node (each such node named).
        """
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        translated = [self._node_brain(s, n) for s, n in zip(brains, names, strict=True)]
        nodes = [n["NodeID"] for n in self._ray.nodes()
                 if n["Alive"] and n["Resources"].get("CPU", 0) > 0]
        if not nodes:
            raise TournamentError("the Ray cluster has no node with CPUs: start one with "
                                  "'ray start --address HEAD:6379 --num-cpus N'")
        check = self._ray.remote(_check_on_node)

        def on(node: str) -> str | None:
            for _ in range(UNSCHEDULABLE_TRIES):
                ref = check.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(
                    node, soft=False)).remote(translated, self._shipment.blobs)
                try:
                    return self._ray.get(ref)
                except self._ray.exceptions.TaskUnschedulableError:
                    time.sleep(POLL_S)  # a node that just joined, or just left
            return None

        with ThreadPoolExecutor(len(nodes)) as pool:
            problems = [p for p in pool.map(on, nodes) if p is not None]
        if problems:
            raise TournamentError("a brain cannot be started on every node of the cluster:\n"
                                  + "\n".join(problems))

    def play(self, black: BrainSpec, white: BrainSpec, names: tuple[str, str], *,
             game_id: int, opening: Opening, settings: GameSettings, tags: dict[str, str],
             out: RunDir, transcripts: bool, observer: Observer,
             stop: threading.Event) -> GameRecord:
        """Play one game on the cluster (see :class:`arena.tournament.GameVenue`).

        :raises GameAborted: ``stop`` was set (the task is cancelled).
        :raises TournamentError: the game lost its worker :data:`MAX_ATTEMPTS` times.
        """
        order = _GameOrder(self._node_brain(black, names[0]), self._node_brain(white, names[1]),
                           game_id, opening, settings, tags, transcripts,
                           self._shipment.blobs)
        for attempt in range(1, MAX_ATTEMPTS + 1):
            ref = self._task.options(num_cpus=game_cpus(settings), max_retries=0).remote(order)
            try:
                played: _PlayedGame = self._wait(ref, stop)
            except self._lost as exc:
                error = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                observer("game_replayed", {"attempt": attempt, "error": error})
                continue
            observer("game_node", {"node": played.node, "attempt": attempt})
            for kind, data in played.events:
                observer(kind, data)
            for name, kind, content in played.logs:
                out.log_path(game_id, name, kind).write_bytes(content)
            return played.record
        raise TournamentError(
            f"game {game_id} lost its worker {MAX_ATTEMPTS} times (see game_replayed in "
            f"{out.events_path}); check the cluster's nodes, then run the same command again "
            "to continue")

    def _wait(self, ref: Any, stop: threading.Event) -> Any:
        while True:
            done, _ = self._ray.wait([ref], timeout=POLL_S)
            if done:
                return self._ray.get(ref)
            if stop.is_set():
                self._ray.cancel(ref, force=True)
                raise GameAborted("the tournament is shutting down")
