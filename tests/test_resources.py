"""Where the shared data is found: beside the checkout, by environment variable, and
from a temporary local clone (as CI makes one)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain import resources
from brain.resources import SHARED_DATA_ENV, shared_data_dir


def test_the_environment_variable_names_the_folder(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv(SHARED_DATA_ENV, str(tmp_path))
    shared_data_dir.cache_clear()
    try:
        assert shared_data_dir() == tmp_path
    finally:
        monkeypatch.delenv(SHARED_DATA_ENV)
        shared_data_dir.cache_clear()


def test_a_local_clone_in_a_temporary_folder_finds_the_data_of_its_origin(
        tmp_path: Path, shared_data: Path) -> None:
    # A repository holding this module, no shared/ beside it, cloned from a checkout
    # that has the shared data beside it.
    clone = tmp_path / "clone"
    (clone / "brain").mkdir(parents=True)
    (clone / "brain" / "resources.py").write_text(Path(resources.__file__).read_text())
    origin = shared_data.resolve().parents[1] / "main"
    for command in (["init", "-q"], ["remote", "add", "origin", str(origin)]):
        subprocess.run(["git", "-C", str(clone), *command], check=True, timeout=60)
    assert not (tmp_path / "shared").exists()
    env = {k: v for k, v in os.environ.items() if k != SHARED_DATA_ENV}
    env["PYTHONPATH"] = str(clone)
    found = subprocess.run(
        [sys.executable, "-c", "import sys; sys.path.insert(0, '.'); "
         "import brain.resources as r; print(r.__file__); print(r.shared_data_dir())"],
        cwd=clone, env=env, capture_output=True, text=True, check=True, timeout=60,
    ).stdout.split()
    assert Path(found[0]).is_relative_to(clone)  # the clone's own code answered
    assert Path(found[1]) == shared_data.resolve()
