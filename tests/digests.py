"""Run a digest script under the pure-Python and the compiled modules at once.

A digest script (``core_digest.py``, ``linenet_digest.py``) prints, as one JSON document,
what the modules compute on real positions; the two forms must print the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brain import native

TESTS = Path(__file__).resolve().parent


def _start(script: str, pure: bool) -> subprocess.Popen[str]:
    env = dict(os.environ)
    env.pop(native.PURE_ENV, None)
    if pure:
        env[native.PURE_ENV] = "1"
    return subprocess.Popen([sys.executable, str(TESTS / script)], env=env, cwd=TESTS.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _document(process: subprocess.Popen[str]) -> list:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    return json.loads(out)


def pure_and_compiled(script: str) -> tuple[list, list]:
    """The documents ``script`` prints in the pure and in the compiled form, run side by
    side (the pure form takes the longer; the compiled one finishes beside it)."""
    pure, compiled = _start(script, pure=True), _start(script, pure=False)
    try:
        return _document(pure), _document(compiled)
    finally:  # neither outlives a failure or a timeout of the other
        pure.kill()
        compiled.kill()
