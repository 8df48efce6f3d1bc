"""The brain's process loop: a reader thread on stdin and the session on the main thread.

The reader timestamps every line as it arrives (the move clock starts then) and handles at
once ``END`` (no more thinking; exit within :data:`END_GRACE_S`), ``YXSTOP``/``STOP`` and
``INFO timeout_turn 0`` (both stop the running search). Everything else, bad input's
``ERROR``/``UNKNOWN`` answers included, is queued for the session in order. Only ``END``
or end of input stops the loop, once every command before it is answered: a whole batch
written at once (``ABOUT``, ``END``) gets its replies, a move request that came with END
the one-ply choice. Nothing but protocol lines reaches the manager: logs go where
:mod:`brain.process.logs` routes them.
"""

from __future__ import annotations

import codecs
import logging
import os
import queue
import sys
import threading
import time
from typing import BinaryIO, TextIO

from brain.process.session import Session
from protocol import commands as cmd
from protocol import replies
from protocol.errors import ProtocolError, UnknownCommand
from protocol.syntax import LineSplitter

log = logging.getLogger("brain")

_EOF = object()
#: Longest time between reading END and the process exiting.
END_GRACE_S = 0.4


class Output:
    """Writes whole reply lines to stdout, flushed, one writer at a time.

    A manager that has closed its end of the pipe (it went away after END, or died)
    reads nothing more: the first failed write is logged, the stream is pointed at the
    null device, and later lines are dropped, so the brain still ends normally.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def __call__(self, line: str) -> None:
        # Replies are ASCII; anything else (bad input echoed in an ERROR) is escaped, because
        # stdout may use a code page that cannot encode it (a pipe on Windows: cp1252).
        text = line.encode("ascii", "backslashreplace").decode("ascii")
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(text + "\n")
                self._stream.flush()
                return
            except (ValueError, OSError) as exc:  # BrokenPipeError, or EINVAL on Windows
                self.closed = True
                self._detach()
                failure = exc
        # Logged outside the lock: a handler that writes MESSAGE lines comes back here.
        log.info("the manager closed stdout (%s): %r and later lines are dropped",
                 failure, text)

    def _detach(self) -> None:
        """Point the stream's descriptor at the null device, so that the unwritten data
        left in its buffer does not fail again at exit."""
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass  # no descriptor (a test's stream): nothing is flushed at exit


class BrainLoop:
    """Runs a :class:`Session` on a byte stream of commands until END or end of input."""

    def __init__(self, session: Session, source: BinaryIO) -> None:
        self.session = session
        self._source = source
        self._queue: queue.Queue[object] = queue.Queue()
        self._reader = cmd.CommandReader()

    def run(self) -> None:
        threading.Thread(target=self._read, name="stdin-reader", daemon=True).start()
        while True:
            item = self._queue.get()
            if item is _EOF:
                return
            command, received_at = item  # type: ignore[misc]
            if isinstance(command, cmd.End):
                self.session.close()
                return
            if isinstance(command, str):
                self.session.write(command)  # an ERROR/UNKNOWN for bad input, in order
                continue
            self.session.handle(command, received_at)

    def _read(self) -> None:
        splitter = LineSplitter()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        fd = self._source.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            if chunk:
                lines = splitter.feed(decoder.decode(chunk))
            else:
                lines = splitter.feed(decoder.decode(b"", final=True)) + splitter.flush()
            for line in lines:
                try:
                    self._on_line(line, time.monotonic())
                except Exception as exc:  # a bug here must not silence the brain
                    log.exception("internal error while reading %r", line)
                    self._queue.put((replies.error(f"internal error reading the command: "
                                                   f"{type(exc).__name__}: {exc}"),
                                     time.monotonic()))
            if not chunk:
                self._queue.put(_EOF)
                return

    def _on_line(self, line: str, received_at: float) -> None:
        try:
            command = self._reader.feed(line)
        except UnknownCommand as exc:
            self._queue.put((replies.unknown(exc.reason), received_at))
            return
        except ProtocolError as exc:
            self._queue.put((replies.error(exc.reason), received_at))
            return
        if command is None:
            return
        if isinstance(command, cmd.End):
            # Answer what came before END at once (no more thinking), then exit; if that
            # takes too long, exit anyway: managers kill the process 0.5 s after END.
            self.session.ending = True
            self.session.stop_search(received_at)
            timer = threading.Timer(END_GRACE_S, os._exit, args=(0,))
            timer.daemon = True
            timer.start()
        if isinstance(command, cmd.YxStop):
            self.session.stop_search(received_at)
            return
        if isinstance(command, cmd.Info) and command.key == cmd.InfoKey.TIMEOUT_TURN \
                and command.value.strip() == "0":
            self.session.stop_search(received_at)
        self._queue.put((command, received_at))


def main_loop(session: Session, source: BinaryIO | None = None) -> None:
    """Run the brain on stdin until END or end of input."""
    BrainLoop(session, source or sys.stdin.buffer).run()
