"""The compiled search core: which modules are compiled, and which form of them is imported.

The hot modules (:data:`COMPILED_MODULES`, the one list of them) are ordinary Python
files written in Cython's pure-Python mode: they run as they are, and ``pip install``
also compiles each to a C extension placed next to it
(``board.cpython-311-x86_64-linux-gnu.so``), which Python prefers. This module decides
between the two forms at import time:

* the extension when it exists and is not older than its ``.py`` (a stale one, left
  behind by an edit of the source, would run old code: rerun ``pip install -e .``);
* the ``.py`` when there is no extension (no C compiler at install time), when the
  extension is stale, or when the environment variable ``PBRAIN_PURE_PYTHON`` is ``1``
  (to compare the two, or to debug the Python).

A copy of the checkout that did not keep the files' times (a Ray job's working directory,
:mod:`driver.cluster`) cannot tell a stale extension by them: the process that made the
copy sets ``PBRAIN_COMPILED_FRESH=1`` (:func:`fresh_env`) when its own extensions were
fresh, and the copy then takes them.

A frozen build ships only the extensions, and they are used. The ``brain`` package
installs the choice (:func:`install`) before any of its modules is imported;
:func:`core_status` says what was chosen, for the brain's log. How the extensions are
built: :mod:`brain.build.extensions`.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

#: The modules compiled to C extensions, bottom-up.
COMPILED_MODULES = (
    "brain.game.board",
    "brain.game.forbidden",
    "brain.game.tactics",
    "brain.eval.linenet",
    "brain.search.solver",
    "brain.search.mcts",
    "brain.search.playout",
    "brain.eval.patternscore",
)
#: Compiled modules whose Python annotations must not become C types (Cython reads
#: ``float`` as a C double, and ``float | None`` then rejects None): their typed code
#: declares its C types with ``cython.locals`` / ``cython.declare`` instead.
PYTHON_ANNOTATIONS = ("brain.game.forbidden", "brain.game.tactics", "brain.search.solver",
                      "brain.search.mcts")
#: Set to ``1`` to import the Python form of every compiled module.
PURE_ENV = "PBRAIN_PURE_PYTHON"
#: Set to ``1`` where file times say nothing: every extension present is taken as fresh.
FRESH_ENV = "PBRAIN_COMPILED_FRESH"


def pure_requested() -> bool:
    """Whether :data:`PURE_ENV` asks for the Python modules."""
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def _extension(folder: Path, leaf: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / (leaf + suffix)
        if path.is_file():
            return path
    return None


#: The folder holding the ``brain`` package.
_ROOT = Path(__file__).resolve().parents[1]


def choose(name: str, folder: Path) -> tuple[Path | None, str]:
    """The file to import for the compiled module ``name`` found in ``folder`` (None:
    neither form is there) and why: "compiled", or "pure (reason)".

    The extensions call each other's C methods (``brain/game/board.pxd``), so one runs
    only beside the others: when another module of the same tree must run as Python,
    so does this one."""
    found, why = _choose_alone(name, folder)
    if why != "compiled":
        return found, why
    root = folder.parents[name.count(".") - 1]
    for other in COMPILED_MODULES:
        other_found, other_why = _choose_alone(other, root.joinpath(*other.split(".")[:-1]))
        if other_found is not None and other_why != "compiled":
            source = folder / (name.rpartition(".")[2] + ".py")
            return source, f"pure (as {other}, which is {other_why})"
    return found, why


def _choose_alone(name: str, folder: Path) -> tuple[Path | None, str]:
    """:func:`choose` for ``name`` by its own files only."""
    leaf = name.rpartition(".")[2]
    source = folder / (leaf + ".py")
    extension = _extension(folder, leaf)
    if extension is None:
        return (source if source.is_file() else None), "pure (not compiled)"
    if pure_requested():
        return source, f"pure ({PURE_ENV}=1)"
    if (os.environ.get(FRESH_ENV) != "1" and source.is_file()
            and source.stat().st_mtime > extension.stat().st_mtime):
        return source, "pure (the compiled module is older than its source)"
    return extension, "compiled"


class _CompiledOrPure(importlib.abc.MetaPathFinder):
    """Finds each of :data:`COMPILED_MODULES` as its extension or its source file."""

    def find_spec(self, name: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name not in COMPILED_MODULES or not path:
            return None
        for entry in path:
            found, _ = choose(name, Path(entry))
            if found is not None:
                return importlib.util.spec_from_file_location(name, found)
        return None


def install() -> None:
    """Put the chooser first on the import path (once)."""
    if not any(isinstance(finder, _CompiledOrPure) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CompiledOrPure())


def _reasons() -> list[str]:
    return [choose(name, _ROOT.joinpath(*name.split(".")[:-1]))[1]
            for name in COMPILED_MODULES]


def fresh_env() -> dict[str, str]:
    """Environment for processes that run a copy of this checkout made without its file
    times: :data:`FRESH_ENV` when every extension is fresh here, else nothing (the copy
    then judges by its own times, and runs the Python it cannot trust)."""
    return {FRESH_ENV: "1"} if all(r == "compiled" for r in _reasons()) else {}


def core_status() -> str:
    """One line for the log: whether the search core runs compiled or as Python, and why."""
    reasons = _reasons()
    pure = [reason for reason in reasons if reason != "compiled"]
    if not pure:
        return f"search core compiled ({len(reasons)} modules)"
    return (f"search core running as pure Python, {len(pure)} of {len(reasons)} modules: "
            f"{', '.join(sorted(set(pure)))} (several times slower; reinstall with a C "
            "compiler such as gcc to compile it)")
