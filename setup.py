"""Build step of ``pip install``: compile the search core (see ``brain/native.py``).

Everything else about the package is declared in ``pyproject.toml``.
"""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from brain.native import extensions

setup(ext_modules=extensions(Path("build") / "cython"))
