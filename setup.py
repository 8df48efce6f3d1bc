"""Build step of ``pip install``: compile the search core (see ``brain/build/extensions.py``).

Everything else about the package is declared in ``pyproject.toml``.
"""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from brain.build.extensions import extensions

setup(ext_modules=extensions(Path("build") / "cython"))
