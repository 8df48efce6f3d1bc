"""``python -m arena.reaper``: ends the brains of a process that died without ending them.

The arena (a run's driver, or a cluster node's Ray worker) starts every brain in a session
of its own (:class:`driver.client.BrainProcess`). If that process is killed (SIGKILL,
``ray.cancel``, a node shutting down, the out-of-memory killer, a test), nothing would end
those brains, and a brain frozen with SIGSTOP between its moves would never even see its
pipes close. So each such process starts one reaper (:data:`REAPER`) with a pipe on its
stdin and tells it each brain's session as it starts (``+SID``) and ends (``-SID``). End of
input means the process is gone: the reaper kills every session still listed, then exits.

The reaper detaches from the worker at once (it forks, and the process the worker started
exits): a worker that exits on its own (its node's raylet died) kills its direct children,
brains and a child reaper alike, which would leave the brains' own children alive.

A Ray worker whose node's raylet died is lost (Ray plays its task again elsewhere), but it
notices only when its own checks fail, which took over 30 s on a loaded 2-core machine, and
meanwhile its brains go on playing a game nobody will count. So a worker also ties itself
to its parent (:meth:`Reaper.tie_to_parent`, ``^PID START PARENT``): once that parent is
gone, the reaper kills the worker and its sessions at once. A brain the worker has started
but not yet told (the raylet may die in between, and a loaded machine once kept a fresh
worker there for 0.2 s) is still its child then: the reaper stops the worker, kills the
session of each of its children, and only then kills the worker. (A worker killed
outright in that moment, by something other than its parent's death, leaves that one
brain to its closed pipes: its children are nobody's by the time the reaper hears.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from typing import IO

from driver.client import child_pids, session_pids, stat_fields

__all__ = ["REAPER", "Reaper", "kill_session", "main"]


#: Seconds between two looks at a tied process's parent.
TIE_POLL = 0.2


def kill_session(session_id: int) -> None:
    """SIGKILL every process of session ``session_id`` (frozen ones included)."""
    with contextlib.suppress(OSError):
        os.killpg(session_id, signal.SIGKILL)
    with contextlib.suppress(OSError):
        for pid in session_pids(session_id):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


class Reaper:
    """The reaper process of this process; :meth:`watch` and :meth:`forget` sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pipe: IO[bytes] | None = None
        self._tie = ""  # the tie line, told again to a reaper started after the first

    def _start(self) -> IO[bytes]:
        starter = subprocess.Popen(
            [sys.executable, "-m", "arena.reaper"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # outlives a kill of this process's group
        starter.wait()  # it forked the reaper, which keeps the pipe, and exited
        assert starter.stdin is not None
        if self._tie:
            starter.stdin.write(self._tie.encode() + b"\n")
            starter.stdin.flush()
        return starter.stdin

    def _send(self, line: str) -> None:
        with self._lock:
            for _ in range(2):  # once more with a new reaper if the old one is gone
                if self._pipe is None:
                    self._pipe = self._start()
                try:
                    self._pipe.write(line.encode() + b"\n")
                    self._pipe.flush()
                    return
                except BrokenPipeError:
                    self._pipe = None

    def start(self) -> None:
        """Start the reaper process unless it runs. Call it before starting a brain:
        starting it takes a Python start-up (100 ms or more), and a brain started first
        would be nobody's to kill if this process died in that time."""
        with self._lock:
            if self._pipe is None:
                self._pipe = self._start()

    def watch(self, session_id: int) -> None:
        """Kill session ``session_id`` if this process dies before :meth:`forget`."""
        self._send(f"+{session_id}")

    def forget(self, session_id: int) -> None:
        """Session ``session_id`` was ended here."""
        self._send(f"-{session_id}")

    def tie_to_parent(self) -> None:
        """This process is lost with its parent (a Ray worker with its node's raylet): the
        moment the parent is gone, the reaper kills this process, then its sessions."""
        start, parent = _start_and_parent(os.getpid())
        with self._lock:
            if self._tie:
                return
            self._tie = f"^{os.getpid()} {start} {parent}"
            running = self._pipe is not None  # else the reaper hears it as it starts
        if running:
            self._send(self._tie)


def _start_and_parent(pid: int) -> tuple[int, int]:
    """Start time (clock ticks since boot) and parent pid of process ``pid``.

    :raises OSError: there is no such process.
    """
    fields = stat_fields(pid)
    return int(fields[19]), int(fields[1])


class _Sessions:
    """The sessions the reaper holds, ended once: at end of input or when a tie breaks."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids: set[int] = set()

    def add(self, session_id: int) -> None:
        with self._lock:
            self._ids.add(session_id)

    def discard(self, session_id: int) -> None:
        with self._lock:
            self._ids.discard(session_id)

    def kill_all(self) -> None:
        with self._lock:  # held to the end: nothing is added once the killing starts
            for session_id in self._ids:
                kill_session(session_id)
            self._ids.clear()


def _watch_tie(sessions: _Sessions, pid: int, start: int, parent: int) -> None:
    """Until process ``pid`` (started at ``start``) loses its parent ``parent``: then kill
    it (unless it has exited, or its pid now names another process) and every session."""
    while True:
        try:
            now = _start_and_parent(pid)
        except OSError:
            return  # it exited: end of input follows
        if now[0] != start:
            return
        if now[1] != parent:
            break
        time.sleep(TIE_POLL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)  # first, so it starts no brain and reports no game
    # Its children lead the sessions of its brains, told or not yet (orphans once it dies).
    for child in child_pids(pid):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)  # in case it has yet to call setsid
        sessions.add(child)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    sessions.kill_all()
    os._exit(0)


#: This process's reaper (started by the first brain it watches).
REAPER = Reaper()


def main() -> int:
    """Detach, read ``+SID``/``-SID``/``^PID START PARENT`` lines until end of input, then
    kill the sessions left."""
    if os.fork():
        os._exit(0)  # the worker's child ends here; the reaper goes on as an orphan
    sessions = _Sessions()
    tied = False  # a reaper started again may hear its tie twice
    for line in sys.stdin:
        text = line.strip()
        if text[:1] == "+":
            sessions.add(int(text[1:]))
        elif text[:1] == "-":
            sessions.discard(int(text[1:]))
        elif text[:1] == "^" and not tied:
            tied = True
            pid, start, parent = (int(field) for field in text[1:].split())
            threading.Thread(target=_watch_tie, args=(sessions, pid, start, parent),
                             daemon=True).start()
    sessions.kill_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
