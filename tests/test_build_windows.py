"""The Windows build made on Linux (``python -m brain.build --target windows``), run under
wine the way users meet it: the arena's compliance check, also with stdout and stderr
merged as Piskvork reads them, and a match against the Linux brain.

The session builds once with the user's command and the user's cache
(``~/.cache/pbrain-zero/windows``): about 100 s on a fresh machine (downloads, the
Windows runtime, the wine prefix, the compiled core), 30 s when cached; installing wine
and mingw-w64 takes about a minute more.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.rundir import RunDir
from brain.build import windows as build_windows
from brain.build.bundle import NAME
from brain.native import COMPILED_MODULES
from tests.brainproc import ABOUT_RE, MOVE_RE
from tests.system_packages import require_commands

ROOT = Path(__file__).resolve().parents[1]
TURN_MS = 500


@pytest.fixture(scope="session")
def wine_env() -> Iterator[dict[str, str]]:
    """wine and mingw-w64 installed, and the environment to run Windows programs in: the
    build's wine prefix, with a wine server started for the whole session (so that no
    brain's pipes are inherited by it), and without wine's own notices on stderr."""
    require_commands(build_windows.TOOLS)
    env = build_windows.wine_env(build_windows.prepare_prefix(
        build_windows.default_cache(), log=lambda line: None))
    # exits with status 2 when a server already runs for the prefix: just as good
    subprocess.run(["wineserver", "-p"], env=env, check=False, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield env
    subprocess.run(["wineserver", "-k"], env=env, check=False)


@pytest.fixture(scope="session")
def windows_build(wine_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``dist`` folder of a one-folder Windows build, made with the user's command."""
    out = tmp_path_factory.mktemp("windows")
    done = subprocess.run(
        [sys.executable, "-m", "brain.build", "--target", "windows", "--mode", "onedir",
         "--dist", str(out / "dist"), "--work", str(out / "work"),
         "--author", "Test Builder", "--country", "Iceland"],
        cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    return out / "dist"


def _run_arena(args: list[str], env: dict[str, str], timeout: float) -> str:
    done = subprocess.run([sys.executable, "-m", "arena", *args], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


def test_missing_wine_is_named_with_the_command_that_installs_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(build_windows.WindowsBuildError,
                       match="apt-get install -y gcc-mingw-w64-x86-64-win32 wine wine64"):
        build_windows.require_tools()


def test_zip_has_the_exe_at_its_root_and_leaves_out_what_the_brain_never_uses(
        windows_build: Path) -> None:
    with zipfile.ZipFile(windows_build / "gomocup" / f"{NAME}.zip") as zf:
        names = set(zf.namelist())
    assert f"{NAME}.exe" in names
    assert "_internal/weights/patterns.npz" in names
    for module in COMPILED_MODULES:  # the search core as Windows extensions
        stem = "_internal/" + module.replace(".", "/")
        assert stem + build_windows.PYD_SUFFIX in names, module
    assert "_internal/python311.dll" in names
    shipped = {Path(name).name for name in names}
    for left_out in ("_ssl.pyd", "libcrypto-3.dll", "_hashlib.pyd", "unicodedata.pyd",
                     "_decimal.pyd", "_lzma.pyd"):
        assert left_out not in shipped, left_out
    assert not any("torch" in name for name in names)


@pytest.mark.parametrize("merged", [False, True], ids=["pipes", "merged-stderr"])
def test_exe_passes_the_arena_check_under_wine(windows_build: Path, wine_env: dict[str, str],
                                               merged: bool) -> None:
    exe = windows_build / "onedir" / NAME / f"{NAME}.exe"
    report = _run_arena(["check", str(exe), *(["--merge-stderr"] if merged else [])],
                        wine_env, timeout=180)
    assert " 0 failed" in report, report
    assert 'author="Test Builder"' in report and 'country="I' in report


def test_exe_answers_a_batch_written_at_once(windows_build: Path,
                                            wine_env: dict[str, str]) -> None:
    # ``ABOUT``, a game's start and a move request with END, in one write, stdin closed
    # after it: every reply before END comes out, then the exe exits. stderr is a pipe:
    # under wine 8, CPython dies at start-up when its stderr is a regular file.
    exe = windows_build / "onedir" / NAME / f"{NAME}.exe"
    done = subprocess.run(["wine", str(exe)], input=b"ABOUT\r\nSTART 15\r\nBEGIN\r\nEND\r\n",
                          capture_output=True, env=wine_env, timeout=60)
    assert done.returncode == 0, done
    assert done.stderr == b"", done.stderr
    replies = [line for line in done.stdout.decode("ascii").splitlines()
               if not line.startswith(("MESSAGE ", "DEBUG "))]
    assert len(replies) == 3, replies
    assert ABOUT_RE.fullmatch(replies[0]) and 'author="Test Builder"' in replies[0], replies
    assert replies[1] == "OK", replies
    assert MOVE_RE.fullmatch(replies[2]), replies


def test_exe_plays_the_linux_brain_inside_the_turn_time(windows_build: Path,
                                                        wine_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    exe = windows_build / "onedir" / NAME / f"{NAME}.exe"
    _run_arena(["run", str(exe), "builtin:linenet", "--name", "1=windows", "--name", "2=linux",
                "--games", "2", "--random-openings", "1", "--tc", str(TURN_MS),
                "--move-limit", "40", "--no-progress", "--out", str(tmp_path / "run")],
               wine_env, timeout=300)
    games = RunDir(tmp_path / "run").load_games()
    assert len(games) == 2
    assert {game.black for game in games} == {"windows", "linux"}
    windows_moves = []
    for game in games:
        assert not any(word in game.reason for word in ("timeout", "crash", "illegal")), game
        for number, move in enumerate(game.moves[game.opening_length:],
                                      start=game.opening_length):
            if (game.black if number % 2 == 0 else game.white) == "windows":
                windows_moves.append(move.time_ms)
    assert len(windows_moves) >= 20
    assert all(ms is not None and ms <= TURN_MS for ms in windows_moves), windows_moves
