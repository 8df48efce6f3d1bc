"""The PyInstaller build: its arguments, the submission archive's layout, and a real
one-folder build driven through a game over pipes (about 30 s)."""

from __future__ import annotations

import subprocess
import time
import zipfile
from pathlib import Path

import pytest

from brain.build import bundle as build
from brain.native import COMPILED_MODULES


def test_arguments_exclude_torch_and_ship_the_weights() -> None:
    args = build.pyinstaller_args("onedir", Path("/tmp/d"), Path("/tmp/w"))
    excluded = {args[i + 1] for i, arg in enumerate(args) if arg == "--exclude-module"}
    assert {"torch", "brain.train"} <= excluded
    assert "--onedir" in args and "--console" in args and "--windowed" not in args
    data = [args[i + 1] for i, arg in enumerate(args) if arg == "--add-data"]
    assert len(data) == len(build.weight_files())
    assert all(entry.endswith("weights") for entry in data)
    assert any("patterns.npz" in entry for entry in data), "the pattern model must ship"
    with pytest.raises(ValueError, match="onedir"):
        build.pyinstaller_args("twofiles", Path("/tmp/d"), Path("/tmp/w"))


def test_archive_puts_the_executable_at_the_root(tmp_path: Path) -> None:
    folder = tmp_path / "pbrain-zero"
    (folder / "_internal" / "weights").mkdir(parents=True)
    (folder / build.executable_name()).write_bytes(b"\x7fELF")
    (folder / "_internal" / "weights" / "net.npz").write_bytes(b"npz")
    archive = build.pack_submission(folder, tmp_path / "out" / "pbrain-zero.zip")
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
    assert build.executable_name() in names
    assert "_internal/weights/net.npz" in names


@pytest.fixture(scope="module")
def built_brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("build")
    about = build.write_about(out / "about", "Test Builder", "Iceland")
    return build.build("onedir", out / "dist", out / "work", about)


def test_built_brain_plays_a_game_without_torch(built_brain: Path) -> None:
    internal = built_brain.parent / "_internal"
    assert not list(internal.glob("torch*")), "torch must not be frozen into the brain"
    assert (internal / "weights" / "patterns.npz").is_file()
    for module in COMPILED_MODULES:  # the compiled search core, not its Python source
        folder = internal.joinpath(*module.split(".")[:-1])
        assert list(folder.glob(module.rpartition(".")[2] + ".*.so")), module
    messages: list[str] = []
    proc = subprocess.Popen([str(built_brain)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=built_brain.parent.parent)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(line: str) -> str:
        proc.stdin.write(line + "\r\n")
        proc.stdin.flush()
        while True:
            reply = proc.stdout.readline().strip()
            if not reply.startswith(("MESSAGE", "DEBUG")):
                return reply
            messages.append(reply)

    try:
        about = ask("ABOUT")  # with the author and country the build was made with
        assert 'name="pbrain-zero"' in about and 'author="Test Builder"' in about
        assert 'country="Iceland"' in about
        assert ask("START 15") == "OK"
        for info in ("timeout_turn 500", "timeout_match 100000", "rule 0"):
            proc.stdin.write(f"INFO {info}\r\n")
        occupied = set()
        reply = ask("BEGIN")
        for x in range(1, 8):
            x0, y0 = map(int, reply.split(","))
            occupied.add((x0, y0))
            move = next((x, y) for y in range(15) for x in range(15)
                        if (x, y) not in occupied)
            occupied.add(move)
            start = time.monotonic()
            reply = ask(f"TURN {move[0]},{move[1]}")
            assert time.monotonic() - start < 0.5 + 0.3
            assert tuple(map(int, reply.split(","))) not in occupied
        proc.stdin.write("END\r\n")
        proc.stdin.flush()
        assert proc.wait(timeout=2) == 0
        # The tree search (not the one-ply fallback) answered, with its pattern model.
        assert any("playouts" in message for message in messages), messages
    finally:
        proc.kill()
