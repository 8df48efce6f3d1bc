"""Connecting to a Ray cluster, for the arena (games as tasks) and the trainer (self-play).

Ray is an optional dependency: ``pip install -e ".[cluster]"`` installs the version
:data:`RAY_REQUIREMENT` pins, on the driver and on every node. :func:`connect` takes an
ADDRESS as the ``--cluster`` options do:

``local``
    a Ray runtime started in this process, on this machine's CPUs, ended on
    :meth:`RayConnection.close` (no ``ray start`` needed);
``auto``
    the cluster this machine joined with ``ray start``;
``ray://HOST:PORT``
    Ray Client to the head of a remote cluster (its client server, port 10001 by default);
``HOST:PORT``
    the head's GCS address, as ``ray start --head`` prints it (the driver must be on a
    node of the cluster's network).

The job ships the project: when this module runs from a checkout (``pyproject.toml`` beside
the ``brain`` package), the checkout is the job's Ray ``working_dir``, less
:data:`SHIP_EXCLUDES` and Ray's own (``.git``, ``.venv``), so every node runs the driver's
code and weights, not whatever version it has installed. The extension modules compiled
in place are shipped too (``.gitignore`` is not followed: it leaves them out), so that the
nodes run the code the driver runs; the unpacked copy loses the files' times, so the
callers pass :func:`brain.native.fresh_env` in ``env`` (a node of another platform
ignores the extensions and imports the Python modules). Numpy (the project's own
dependencies) and Ray must be installed on the nodes.

This module imports nothing of the project: the arena and the trainer both use it.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from driver.errors import DriverError

__all__ = ["RAY_REQUIREMENT", "ClusterUnavailable", "RayConnection", "connect", "import_ray"]

#: What the ``cluster`` extra installs (Ray with its client, for ``ray://`` addresses).
RAY_REQUIREMENT = "ray[client]==2.60.0"
#: Object store of a ``local`` runtime: games and weights are small objects.
LOCAL_OBJECT_STORE_BYTES = 256 * 2**20
#: Seconds to wait for a head's port before giving up.
CONNECT_TIMEOUT_S = 5.0
#: Left out of the shipped checkout (Ray leaves out ``.git``, ``.venv`` and ``venv``).
SHIP_EXCLUDES = ("arena-runs", "runs", "build", "dist", "*.egg-info", "**/__pycache__",
                 ".pytest_cache", ".ruff_cache", "brain/**/*.c")
#: Set while connecting: Ray then ships what ``.gitignore`` names (the compiled modules).
_FOLLOW_GITIGNORE = "RAY_RUNTIME_ENV_IGNORE_GITIGNORE"

_CHECKOUT = Path(__file__).resolve().parent.parent


class ClusterUnavailable(DriverError, RuntimeError):
    """Ray is missing, or the cluster cannot be reached (the message says what to do)."""


def import_ray() -> ModuleType:
    """The ``ray`` module.

    :raises ClusterUnavailable: Ray is not installed, saying how to install it.
    """
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable(
            "--cluster needs Ray, an optional extra: run 'pip install -e \".[cluster]\"' in "
            f"the checkout (it installs {RAY_REQUIREMENT}), on this machine and on every "
            "node") from None
    return ray


def project_dir() -> Path | None:
    """The checkout to ship with a job, or ``None`` when the project runs installed (its
    nodes then need the same version installed)."""
    return _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() else None


@dataclass
class RayConnection:
    """This process's connection to a cluster.

    :ivar address: what another driver on this machine passes to :func:`connect` to use
        the same cluster (for ``local``, the runtime's GCS address).
    :ivar owned: whether :meth:`close` ends the connection (false when Ray was already
        initialised in this process by someone else).
    """

    address: str
    owned: bool

    def close(self) -> None:
        """Disconnect (and stop a ``local`` runtime)."""
        if self.owned:
            import_ray().shutdown()
            self.owned = False

    def __enter__(self) -> RayConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_reachable(address: str) -> None:
    """Fail fast on a ``[ray://]HOST:PORT`` where nothing listens (Ray would retry for
    minutes)."""
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return  # "auto", or something for Ray itself to judge
    try:
        socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ClusterUnavailable(
            f"nothing answers at {address} ({exc}): start the head there with "
            "'ray start --head' (see docs/cluster.md), or check the address and "
            "port") from None


def connect(address: str, env: Mapping[str, str] | None = None) -> RayConnection:
    """Connect this process to the cluster at ``address`` (see the module docstring);
    ``env``: environment variables of the job's workers (and of the brains they start).

    :raises ClusterUnavailable: Ray is not installed, or the cluster does not answer.
    """
    ray = import_ray()
    if ray.is_initialized():
        return RayConnection(ray.get_runtime_context().gcs_address, owned=False)
    runtime_env: dict[str, object] = {}
    checkout = project_dir()
    if checkout is not None:
        runtime_env = {"working_dir": str(checkout), "excludes": list(SHIP_EXCLUDES)}
    if env:
        runtime_env["env_vars"] = dict(env)
    options: dict[str, object] = {"runtime_env": runtime_env, "logging_level": logging.WARNING}
    if address == "local":
        options.update(include_dashboard=False, object_store_memory=LOCAL_OBJECT_STORE_BYTES)
        target = None
    else:
        target = address
        _check_reachable(address)
    before = os.environ.get(_FOLLOW_GITIGNORE)
    os.environ[_FOLLOW_GITIGNORE] = "1"
    try:
        ray.init(address=target, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ClusterUnavailable(
            f"cannot connect to the Ray cluster at {address!r}: {exc}\nStart one with "
            "'ray start --head' (see docs/cluster.md), or use --cluster local") from None
    finally:
        if before is None:
            del os.environ[_FOLLOW_GITIGNORE]
        else:
            os.environ[_FOLLOW_GITIGNORE] = before
    if address.startswith("ray://"):
        return RayConnection(address, owned=True)
    return RayConnection(ray.get_runtime_context().gcs_address, owned=True)
