"""The compiled search core: built by the install, chosen at import, and computing
exactly what its pure-Python source computes on real positions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from digests import pure_and_compiled

from brain import native as compiled

ROOT = Path(__file__).resolve().parents[1]


def test_the_install_compiled_every_module() -> None:
    # pip install -e . (the README's install) builds them with the machine's C compiler.
    for name in compiled.COMPILED_MODULES:
        folder = ROOT.joinpath(*name.split(".")[:-1])
        _, how = compiled.choose(name, folder)
        assert how in ("compiled", f"pure ({compiled.PURE_ENV}=1)"), (name, how)
    assert "compiled" in compiled.core_status() or compiled.pure_requested()


def test_compiled_and_pure_modules_compute_the_same() -> None:
    pure, native = pure_and_compiled("core_digest.py")
    assert len(pure) == len(native) > 30
    for n, (a, b) in enumerate(zip(pure, native, strict=True)):
        assert a == b, f"position {n} differs"


def test_the_pure_form_is_chosen_when_asked_or_stale(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    name = "brain.game.board"
    source = ROOT / "brain" / "game" / "board.py"
    shutil.copy(source, tmp_path / "board.py")
    assert compiled.choose(name, tmp_path) == (tmp_path / "board.py", "pure (not compiled)")
    extension = tmp_path / ("board" + compiled.importlib.machinery.EXTENSION_SUFFIXES[0])
    extension.write_bytes(b"")
    os.utime(tmp_path / "board.py", (1_000_000, 1_000_000))
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    assert compiled.choose(name, tmp_path) == (extension, "compiled")
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    assert compiled.choose(name, tmp_path)[1] == f"pure ({compiled.PURE_ENV}=1)"
    monkeypatch.delenv(compiled.PURE_ENV)
    os.utime(tmp_path / "board.py", None)  # edited after the build
    assert compiled.choose(name, tmp_path)[0] == tmp_path / "board.py"


def test_one_stale_extension_makes_the_whole_core_pure(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # The compiled search calls the compiled board's C methods: a fresh mcts extension
    # beside a board that must run as Python (edited since the build) cannot be used.
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    monkeypatch.delenv(compiled.FRESH_ENV, raising=False)
    suffix = compiled.importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in ("brain.game.board", "brain.search.mcts"):
        folder = tmp_path.joinpath(*name.split(".")[:-1])
        folder.mkdir(parents=True, exist_ok=True)
        leaf = name.rpartition(".")[2]
        (folder / (leaf + ".py")).write_text("")
        (folder / (leaf + suffix)).write_bytes(b"")
        os.utime(folder / (leaf + ".py"), (1_000_000, 1_000_000))
    mcts_folder = tmp_path / "brain" / "search"
    assert compiled.choose("brain.search.mcts", mcts_folder)[1] == "compiled"
    os.utime(tmp_path / "brain" / "game" / "board.py", None)  # edited after the build
    found, why = compiled.choose("brain.search.mcts", mcts_folder)
    assert found == mcts_folder / "mcts.py"
    assert why == ("pure (as brain.game.board, which is pure (the compiled module is "
                   "older than its source))")


def test_pure_python_modules_are_imported_when_asked() -> None:
    code = ("import brain.search.mcts, brain.game.board; "
            "print(brain.search.mcts.__file__, brain.game.board.__file__)")
    env = dict(os.environ, **{compiled.PURE_ENV: "1"})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert all(path.endswith(".py") for path in out.stdout.split())
