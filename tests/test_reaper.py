"""The reaper ties a process to its parent: a worker whose parent dies (a Ray worker whose
raylet died) is killed at once, and so are the brains it started, though the worker itself
never noticed, even one it had started but not yet told the reaper about."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Started by the parent: starts a brain (a long sleep in a session of its own) watched by
#: the reaper, tied to its parent before or after the reaper starts (or tied, and the brain
#: never told: the worker dies before it could say), then waits for ever.
WORKER = textwrap.dedent("""
    import subprocess, sys, time
    from arena.reaper import REAPER
    if sys.argv[1] in ("before", "untold"):
        REAPER.tie_to_parent()
    REAPER.start()
    brain = subprocess.Popen(["sleep", "120"], start_new_session=True)
    if sys.argv[1] != "untold":
        REAPER.watch(brain.pid)
    if sys.argv[1] == "after":
        REAPER.tie_to_parent()
    print(brain.pid, flush=True)
    time.sleep(120)
""")

#: Starts the worker, tells both pids, then waits for ever.
PARENT = textwrap.dedent("""
    import subprocess, sys, time
    worker = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]],
                              stdout=subprocess.PIPE, text=True)
    print(worker.pid, worker.stdout.readline().strip(), flush=True)
    time.sleep(120)
""")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no init process reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if _alive(pid)]


@pytest.mark.parametrize("when", ["before", "after", "untold"])
def test_a_worker_tied_to_its_parent_dies_with_its_brains_when_the_parent_dies(
        when: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, WORKER, when], env=env,
                              stdout=subprocess.PIPE, text=True)
    worker = brain = 0
    try:
        assert parent.stdout is not None
        worker, brain = map(int, parent.stdout.readline().split())
        time.sleep(1.0)  # several looks at the parent: the tie holds while it lives
        assert _alive(worker) and _alive(brain)
        parent.kill()
        parent.wait()
        assert _wait_gone([worker, brain], 10) == []
    finally:
        parent.kill()
        for pid in (worker, brain):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_an_untied_worker_outlives_its_parent_and_its_brains_end_with_it() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, WORKER, "never"], env=env,
                              stdout=subprocess.PIPE, text=True)
    worker = brain = 0
    try:
        assert parent.stdout is not None
        worker, brain = map(int, parent.stdout.readline().split())
        parent.kill()
        parent.wait()
        time.sleep(1.0)
        assert _alive(worker) and _alive(brain)  # an arena driver's parent is a shell
        os.kill(worker, signal.SIGKILL)
        assert _wait_gone([brain], 10) == []  # end of the reaper's input
    finally:
        parent.kill()
        for pid in (worker, brain):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)
