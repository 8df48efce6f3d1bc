"""Which brains play: a :class:`BrainSpec` per brain, how to launch it, and its name.

A brain is given on the command line as one of:

* a path to an executable (``./pbrain-rapfi``); its working directory is then the file's
  folder, as Piskvork and GomocupJudge run brains in the folder they were unpacked to;
* a path to a Windows ``.exe`` (run through ``wine`` when installed);
* a path to a ``.py`` file (run with this Python);
* a command line (``"python -m brain --engine heuristic"``), split like a POSIX shell does;
* ``builtin:ENGINE`` or ``builtin:ENGINE:LEVEL``: this repository's brain with that engine
  (``python -m brain --engine ENGINE [--level LEVEL]``).

Names come from an explicit ``name``, else from the brain's ABOUT answer, else from the
file name; :func:`unique_names` makes them distinct.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from brain.catalog import DEFAULT_ENGINE, ENGINE_NAMES

__all__ = [
    "BrainSpec",
    "BrainSpecError",
    "builtin_brain",
    "default_roster",
    "parse_brain",
    "unique_names",
]

#: Levels of the built-in engines that have them, used as the default baselines.
BASELINE_LEVELS: dict[str, tuple[int, ...]] = {"alphabeta": (1, 3)}

_PYTHONS = ("python", "python3", "pypy", "pypy3")


class BrainSpecError(ArenaError, ValueError):
    """A brain description that cannot be launched here (the message says what to do)."""


@dataclass(frozen=True)
class BrainSpec:
    """How to launch one brain.

    :ivar command: the argument list as given (paths made absolute); see :meth:`argv`.
    :ivar name: an explicit name, or ``None`` to take the ABOUT name.
    :ivar cwd: working directory, or ``None`` for the arena's.
    :ivar info: extra ``INFO key value`` options sent to this brain at every START.
    """

    command: tuple[str, ...]
    name: str | None = None
    cwd: str | None = None
    info: tuple[tuple[str, str], ...] = field(default=())

    def argv(self) -> list[str]:
        """The argument list to execute: ``.exe`` files go through ``wine``, ``.py`` files
        through this Python. Wine runs with ``WINEDEBUG=-all`` unless the environment sets
        it: its own notices go to the brain's stderr, which a manager reading stderr as
        replies (``--merge-stderr``, Piskvork) would take for the brain's.

        :raises BrainSpecError: a Windows program but no ``wine`` on the PATH.
        """
        program = self.command[0]
        suffix = Path(program).suffix.lower()
        if suffix == ".exe" and sys.platform != "win32":
            wine = shutil.which("wine") or shutil.which("wine64")
            if wine is None:
                raise BrainSpecError(
                    f"{program} is a Windows program and wine is not installed: install wine "
                    "(e.g. 'apt install wine') or use a native build of the brain"
                )
            if "WINEDEBUG" in os.environ:
                return [wine, *self.command]
            return ["env", "WINEDEBUG=-all", wine, *self.command]
        if suffix == ".py":
            return [sys.executable, *self.command]
        return list(self.command)

    def fallback_name(self) -> str:
        """A name from the command when ABOUT gives none: the module after ``python -m``,
        the script's or executable's file name without extension."""
        args = list(self.command)
        if args and Path(args[0]).name.lower().startswith(_PYTHONS):
            if len(args) > 2 and args[1] == "-m":
                return args[2]
            script = next((a for a in args[1:] if not a.startswith("-")), None)
            if script is not None:
                return Path(script).stem
        return Path(args[0]).stem if args else "brain"

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (for the run's ``config.json``)."""
        return {"command": list(self.command), "name": self.name, "cwd": self.cwd,
                "info": [list(kv) for kv in self.info]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BrainSpec:
        """Inverse of :meth:`to_dict`."""
        return cls(
            command=tuple(str(a) for a in data["command"]),
            name=data.get("name"),
            cwd=data.get("cwd"),
            info=tuple((str(k), str(v)) for k, v in data.get("info", ())),
        )


def builtin_brain(engine: str | None = None, level: int | None = None,
                  name: str | None = None) -> BrainSpec:
    """This repository's brain (``python -m brain``) with an engine and level.

    ``engine=None`` runs the brain's default engine. The name defaults to ``pbrain-zero``
    for the default engine (named or not: ``builtin:mcts`` is pbrain-zero), else the engine
    name, with ``-L<level>`` for a level.
    """
    command = [sys.executable, "-m", "brain"]
    if engine is not None:
        command += ["--engine", engine]
    if level is not None:
        command += ["--level", str(level)]
    if name is None:
        name = "pbrain-zero" if engine in (None, DEFAULT_ENGINE) else engine
        if level is not None:
            name += f"-L{level}"
    root = Path(__file__).resolve().parents[1]
    return BrainSpec(tuple(command), name=name, cwd=str(root))


def default_roster() -> list[BrainSpec]:
    """The brains of ``python -m arena run`` without brains: pbrain-zero with its default
    engine against every other built-in engine (engines with levels at the levels of
    :data:`BASELINE_LEVELS`)."""
    roster = [builtin_brain()]
    for engine in ENGINE_NAMES:
        if engine == DEFAULT_ENGINE:
            continue
        for level in BASELINE_LEVELS.get(engine, (None,)):
            roster.append(builtin_brain(engine, level))
    return roster


def parse_brain(
    text: str,
    *,
    extra_args: Sequence[str] = (),
    name: str | None = None,
    info: Iterable[tuple[str, str]] = (),
) -> BrainSpec:
    """Turn a command-line brain description (see the module docstring) into a spec.

    :param extra_args: appended to the brain's command line.
    :raises BrainSpecError: empty text, a ``builtin:`` with an unknown engine or a bad
        level, or an unparsable command line.
    """
    text = text.strip()
    if not text:
        raise BrainSpecError("empty brain description: give a path or a command line")
    info = tuple(info)
    if text.startswith("builtin:"):
        spec = _builtin(text)
        return BrainSpec(spec.command + tuple(extra_args), name or spec.name, spec.cwd, info)
    path = Path(text).expanduser()
    if path.is_file():
        command = [str(path.resolve())]
        cwd: str | None = str(path.resolve().parent)
    else:
        try:
            command = shlex.split(text)
        except ValueError as exc:
            raise BrainSpecError(f"cannot split the command line {text!r}: {exc}") from None
        first = Path(command[0]).expanduser()
        if first.is_file() and ("/" in command[0] or first.suffix.lower() in (".exe", ".py")):
            # Absolute but not resolved: a virtual environment's python is a symlink to
            # the base interpreter, which would run without the environment's packages.
            command[0] = os.path.abspath(first)
        cwd = None
    return BrainSpec((*command, *extra_args), name, cwd, info)


def _builtin(text: str) -> BrainSpec:
    parts = text.split(":")
    engine = parts[1] if len(parts) > 1 else ""
    if engine not in ENGINE_NAMES or len(parts) > 3:
        raise BrainSpecError(
            f"{text!r}: use builtin:ENGINE or builtin:ENGINE:LEVEL with ENGINE one of "
            f"{', '.join(ENGINE_NAMES)}"
        )
    level = None
    if len(parts) == 3:
        try:
            level = int(parts[2])
        except ValueError:
            raise BrainSpecError(f"{text!r}: the level must be an integer") from None
    return builtin_brain(engine, level)


def unique_names(names: Sequence[str]) -> list[str]:
    """``names`` with later duplicates suffixed ``-2``, ``-3``... (never clashing)."""
    taken = set(names)
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        unique = name
        number = 2
        while unique in seen or (unique != name and unique in taken):
            unique = f"{name}-{number}"
            number += 1
        seen.add(unique)
        out.append(unique)
    return out
