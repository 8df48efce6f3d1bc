"""Compiling the search core: the C that Cython generates from the pure-Python-mode
modules of :data:`brain.native.COMPILED_MODULES`, and their extensions.

``setup.py`` builds the extensions with :func:`extensions` at every ``pip install``
(editable installs place them next to their ``.py`` files). A cross build (the Windows
``.pyd`` files, compiled with mingw-w64) calls :func:`generate_c` and compiles the files
it returns with its own compiler; :data:`COMPILE_FLAGS` are the flags that ship (no
``-march=native``: the code must run on any x86-64). Cython is needed only here, at build
time.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from brain.native import COMPILED_MODULES, PYTHON_ANNOTATIONS

ROOT = Path(__file__).resolve().parents[2]
#: C compiler flags of the shipped extensions (gcc and mingw-w64 alike): -O3 vectorises
#: the line-pattern network's channel loops (baseline SSE2: no -march, any x86-64 runs them).
COMPILE_FLAGS = ("-O3",)
#: Cython compiler directives of every compiled module. Bounds checks and negative
#: indices stay on (they also govern lists indexed by C integers); the typed loops turn
#: them off where they are proven in bounds.
DIRECTIVES = {"language_level": 3}


def source_path(module: str) -> Path:
    """The ``.py`` file of ``module`` in this checkout."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def generate_c(build_dir: Path | None = None) -> list[tuple[str, Path]]:
    """Cythonize every compiled module; (module name, generated ``.c`` file) each.

    The ``.c`` files go under ``build_dir`` (default: next to the sources), mirroring the
    package folders. Raises Cython's ``CompileError`` when a module does not compile.
    """
    from Cython.Build import cythonize

    build_dir = (build_dir or ROOT).resolve()
    out = []
    with contextlib.chdir(ROOT):  # cythonize names the .c files by the relative path
        for module in COMPILED_MODULES:
            relative = source_path(module).relative_to(ROOT)
            directives = dict(DIRECTIVES, annotation_typing=module not in PYTHON_ANNOTATIONS)
            cythonize([str(relative)], compiler_directives=directives, quiet=True, force=True,
                      build_dir=None if build_dir == ROOT else str(build_dir))
            out.append((module, build_dir / relative.with_suffix(".c")))
    return out


def extensions(build_dir: Path) -> list:
    """setuptools ``Extension`` objects for the generated C of every compiled module,
    each optional: without a working C compiler the install goes on, pure Python."""
    from setuptools import Extension

    return [Extension(module, [str(c_file)], extra_compile_args=list(COMPILE_FLAGS),
                      optional=True)
            for module, c_file in generate_c(build_dir)]
