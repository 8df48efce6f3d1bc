"""Build pbrain-zero with PyInstaller and pack a Gomocup submission archive.

``python -m brain.build`` makes, under ``dist/``:

* ``onedir/pbrain-zero/``: the one-folder build (``pbrain-zero`` or ``pbrain-zero.exe``
  next to an ``_internal`` folder with Python, numpy and the weights). One process, no
  unpacking at start-up: this is what the archive ships.
* ``onefile/pbrain-zero``: the one-file build. It unpacks itself into a temporary folder
  at every start and runs Python in a child process, which costs start-up time and
  counts twice against Gomocup's memory limit; it is built for users who want one file.
* ``gomocup/pbrain-zero.zip``: the one-folder build with the executable at the root of
  the zip, as Gomocup requires.

The build excludes torch and the training package: the play path runs the network with
numpy. On Windows it makes ``pbrain-zero.exe``; on Linux, ``--target windows`` makes the
same Windows build under ``dist/windows/`` by running this module in a Windows Python
under wine (:mod:`brain.build.windows`; needs wine and mingw-w64).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from brain import __version__
from brain.build.extensions import source_path
from brain.eval.network import DEFAULT_WEIGHTS_NAME
from brain.eval.patternmodel import DEFAULT_PATTERN_MODEL_NAME
from brain.native import COMPILED_MODULES, core_status
from brain.resources import ABOUT_FILE

ROOT = Path(__file__).resolve().parents[2]
NAME = "pbrain-zero"
#: Modules the brain never needs at play time; excluding them keeps the archive small.
EXCLUDED_MODULES = (
    "torch", "brain.train", "brain.build", "PyInstaller", "tkinter", "unittest", "pydoc",
    "doctest", "pytest", "pexpect", "tabulate", "arena", "setuptools", "pip",
    "ssl", "_ssl", "_hashlib", "asyncio", "multiprocessing", "email", "http", "xml",
    "xmlrpc", "sqlite3", "lzma", "_lzma", "bz2", "_bz2", "decimal", "_decimal", "curses",
    "numpy.f2py", "numpy.testing", "numpy.distutils", "Cython", "cython",
)

#: Modules imported from compiled code, which PyInstaller's analysis cannot see (besides
#: the imports of the compiled search core, :func:`hidden_imports`).
HIDDEN_IMPORTS = ("secrets",)


def hidden_imports() -> list[str]:
    """:data:`HIDDEN_IMPORTS` and every module the compiled search core imports: the
    build ships the C extensions, whose imports PyInstaller's analysis cannot read."""
    names = set(HIDDEN_IMPORTS)
    for module in COMPILED_MODULES:
        tree = ast.parse(source_path(module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    names.discard("cython")  # compiled away
    names.discard("__future__")
    return sorted(names)


def require_compiled_core() -> None:
    """Raise RuntimeError unless every module of the search core is compiled here (a
    build with the Python modules would play several times slower)."""
    status = core_status()
    if "pure Python" in status:
        raise RuntimeError(f"{status}: run pip install -e . with gcc before building")


def executable_name() -> str:
    """``pbrain-zero.exe`` on Windows, ``pbrain-zero`` elsewhere."""
    return NAME + (".exe" if sys.platform == "win32" else "")


def weight_files() -> list[Path]:
    """The weights shipped inside the build: the pattern model and the network, if any."""
    return sorted((ROOT / "weights").glob("*.npz"))


def pyinstaller_args(mode: str, dist: Path, work: Path, about: Path | None = None,
                     excludes: Sequence[str] = ()) -> list[str]:
    """PyInstaller command-line arguments for a ``onedir`` or ``onefile`` build;
    ``about`` is a :data:`~brain.resources.ABOUT_FILE` to put at the bundle's root,
    ``excludes`` modules to leave out besides :data:`EXCLUDED_MODULES`."""
    if mode not in ("onedir", "onefile"):
        raise ValueError(f"build mode must be 'onedir' or 'onefile', not {mode!r}")
    args = [
        str(ROOT / "brain" / "__main__.py"),
        "--name", NAME,
        f"--{mode}",
        "--console",  # Gomocup managers talk to a console program over pipes
        "--noconfirm",
        "--clean",
        "--distpath", str(dist / mode),
        "--workpath", str(work / mode),
        "--specpath", str(work / mode),
        "--paths", str(ROOT),
    ]
    for module in (*EXCLUDED_MODULES, *excludes):
        args += ["--exclude-module", module]
    for module in hidden_imports():
        args += ["--hidden-import", module]
    for path in weight_files():
        args += ["--add-data", f"{path}{os.pathsep}weights"]
    if about is not None:
        args += ["--add-data", f"{about}{os.pathsep}."]
    return args


def write_about(work: Path, author: str | None, country: str | None) -> Path | None:
    """The ABOUT author and country a build answers with, as a file for the bundle, or
    None when neither is given (the brain's own defaults then apply)."""
    fields = {key: value for key, value in (("author", author), ("country", country))
              if value}
    if not fields:
        return None
    work.mkdir(parents=True, exist_ok=True)
    path = work / ABOUT_FILE
    path.write_text(json.dumps(fields, ensure_ascii=False), encoding="utf-8")
    return path


def build(mode: str, dist: Path, work: Path, about: Path | None = None,
          excludes: Sequence[str] = ()) -> Path:
    """Run PyInstaller; returns the built executable's path."""
    import PyInstaller.__main__

    require_compiled_core()
    PyInstaller.__main__.run(pyinstaller_args(mode, dist, work, about, excludes))
    exe = dist / mode / (NAME if mode == "onedir" else "") / executable_name()
    if not exe.is_file():
        raise RuntimeError(f"PyInstaller finished but {exe} is missing: see its log above")
    if mode == "onedir":
        strip_interpreter(exe.parent)
    return exe


def strip_interpreter(folder: Path) -> None:
    """Drop debugging symbols from the bundled libpython, where a ``strip`` tool exists.

    Only libpython: numpy's bundled OpenBLAS was rewritten by auditwheel and no longer
    loads once stripped (PyInstaller's ``--strip`` breaks it for that reason).
    """
    strip = shutil.which("strip")
    if strip is None or sys.platform == "win32":
        return
    for library in folder.rglob("libpython*.so*"):
        subprocess.run([strip, "--strip-debug", str(library)], check=True)


def pack_submission(onedir: Path, archive: Path) -> Path:
    """Zip the one-folder build with the executable at the archive's root."""
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=9) as zf:
        for path in sorted(onedir.rglob("*")):
            if path.is_file():
                info = zipfile.ZipInfo.from_file(path, path.relative_to(onedir).as_posix())
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes(), compresslevel=9)
    return archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m brain.build", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("onedir", "onefile", "both"), default="both",
                        help="which build to make (default: both)")
    parser.add_argument("--target", choices=("native", "windows"), default="native",
                        help="native: for this system (default); windows: "
                        "pbrain-zero.exe, made on Linux under wine")
    parser.add_argument("--dist", type=Path, default=None,
                        help="output folder (default: dist, or dist/windows)")
    parser.add_argument("--work", type=Path, default=None,
                        help="PyInstaller's work folder (default: build, or build/windows)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="--target windows: where downloads, the Windows Python and "
                        "the wine prefix are kept (default: ~/.cache/pbrain-zero/windows)")
    parser.add_argument("--exclude", action="append", default=[], metavar="MODULE",
                        help="leave this module out of the build too (repeatable)")
    parser.add_argument("--author", default=None,
                        help="the author the build names in its ABOUT reply")
    parser.add_argument("--country", default=None,
                        help="the country the build names in its ABOUT reply")
    args = parser.parse_args(argv)
    if args.target == "windows" and sys.platform != "win32":
        return _cross_build(args)
    dist = args.dist or ROOT / "dist"
    work = args.work or ROOT / "build"
    shipped = {path.name for path in weight_files()}
    if DEFAULT_PATTERN_MODEL_NAME not in shipped:
        print(f"error: weights/{DEFAULT_PATTERN_MODEL_NAME} is missing: the tree search "
              "cannot run without it (git checkout weights/, or refit it with "
              "python -m brain.train patterns)", file=sys.stderr)
        return 1
    if DEFAULT_WEIGHTS_NAME not in shipped:
        print(f"note: no weights/{DEFAULT_WEIGHTS_NAME}: the build plays with the pattern "
              "model, without a network", file=sys.stderr)
    modes = ("onedir", "onefile") if args.mode == "both" else (args.mode,)
    about = write_about(work, args.author, args.country)
    for mode in modes:
        exe = build(mode, dist, work, about, args.exclude)
        print(f"{mode}: {exe}")
        if mode == "onedir":
            archive = pack_submission(exe.parent, dist / "gomocup" / f"{NAME}.zip")
            size = archive.stat().st_size / 1e6
            print(f"submission archive: {archive} ({size:.1f} MB), version {__version__}")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def _cross_build(args: argparse.Namespace) -> int:
    """``--target windows`` on another system: :func:`brain.build.windows.build_windows`
    runs this module's :func:`main` again in a Windows Python under wine."""
    from brain.build import windows

    options = ["--mode", args.mode]
    for flag, value in (("--author", args.author), ("--country", args.country)):
        if value:
            options += [flag, value]
    for module in (*windows.WINDOWS_EXCLUDES, *args.exclude):
        options += ["--exclude", module]
    try:
        dist = windows.build_windows(
            options, args.dist or ROOT / "dist" / "windows",
            args.work or ROOT / "build" / "windows",
            args.cache or windows.default_cache(),
            log=lambda line: print(line, file=sys.stderr, flush=True))
    except windows.WindowsBuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in (dist / "onedir" / NAME / f"{NAME}.exe", dist / "onefile" / f"{NAME}.exe",
                 dist / "gomocup" / f"{NAME}.zip"):
        if path.is_file():
            print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0

