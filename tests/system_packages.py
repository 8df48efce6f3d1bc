"""Debian packages some tests need (a browser, wine, a cross-compiler), installed on demand.

A fresh machine has only Python, pip and gcc; the suite installs what it needs itself so
that ``pytest`` alone works there, and says plainly what failed when it cannot (never a
silent skip). Installs run once per test session, serialised by a lock file so that
parallel test processes do not run two ``apt-get``s at once.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

_LOCK = Path("/tmp/pbrain-zero-apt.lock")
_updated = False


class MissingSystemPackage(RuntimeError):
    """A Debian package a test needs is not installed and could not be installed."""


def require_commands(commands: dict[str, str], timeout: float = 900) -> dict[str, str]:
    """Make sure each command exists, installing its Debian package where it does not.

    ``commands`` maps a command name (``chromium``) to the package that provides it
    (``chromium``). Returns each command's full path.

    :raises MissingSystemPackage: naming the packages, the command that failed and its
        output, with what a person can do about it.
    """
    missing = {name: package for name, package in commands.items() if not shutil.which(name)}
    if missing:
        _install(sorted(set(missing.values())), timeout)
    paths: dict[str, str] = {}
    for name, package in commands.items():
        path = shutil.which(name)
        if path is None:
            raise MissingSystemPackage(
                f"{name} is still missing after installing the Debian package {package}")
        paths[name] = path
    return paths


def _install(packages: list[str], timeout: float) -> None:
    global _updated
    if os.geteuid() != 0 and shutil.which("sudo") is None:
        raise MissingSystemPackage(
            f"these tests need the Debian packages {' '.join(packages)}: install them "
            "(apt-get install -y ...) or run the suite as root so it can")
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with _LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        steps = [] if _updated else [[*prefix, "apt-get", "update", "-q"]]
        steps.append([*prefix, "apt-get", "install", "-y", "-q", "--no-install-recommends",
                      *packages])
        for step in steps:
            try:
                done = subprocess.run(step, capture_output=True, text=True, env=env,
                                      timeout=timeout)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise MissingSystemPackage(f"{' '.join(step)} failed: {exc}") from exc
            if done.returncode != 0:
                raise MissingSystemPackage(
                    f"{' '.join(step)} exited with {done.returncode}; these tests need the "
                    f"Debian packages {' '.join(packages)}. Its output ends:\n"
                    + (done.stdout + done.stderr)[-2000:])
        _updated = True
