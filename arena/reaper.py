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
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import IO

from driver.client import session_pids

__all__ = ["REAPER", "Reaper", "kill_session", "main"]


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

    def _start(self) -> IO[bytes]:
        starter = subprocess.Popen(
            [sys.executable, "-m", "arena.reaper"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # outlives a kill of this process's group
        starter.wait()  # it forked the reaper, which keeps the pipe, and exited
        assert starter.stdin is not None
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


#: This process's reaper (started by the first brain it watches).
REAPER = Reaper()


def main() -> int:
    """Detach, read ``+SID``/``-SID`` lines until end of input, then kill the sessions
    left."""
    if os.fork():
        os._exit(0)  # the worker's child ends here; the reaper goes on as an orphan
    sessions: set[int] = set()
    for line in sys.stdin:
        text = line.strip()
        if text[:1] == "+":
            sessions.add(int(text[1:]))
        elif text[:1] == "-":
            sessions.discard(int(text[1:]))
    for session_id in sessions:
        kill_session(session_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
