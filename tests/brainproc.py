"""Drive a real ``python -m brain`` subprocess the way a Gomocup manager does.

:class:`BrainProcess` spawns the brain with plain pipes (no pty), writes command lines with
CR LF or LF endings, and reads its stdout on a background thread that timestamps every line
the moment it arrives, so reply times are measured as a manager measures them. Every line the
brain writes is checked against the protocol's reply shapes; anything else (a traceback, a
bare ``MESSAGE``, a move with spaces, non-ASCII text, an unterminated line) is recorded as a
violation and fails :meth:`BrainProcess.assert_clean`.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

MOVE_RE = re.compile(r"(\d+),(\d+)")
MOVES_RE = re.compile(r"\d+,\d+(?: \d+,\d+)+")
_PAIR = r'[A-Za-z_][A-Za-z0-9_]*="[^"]*"'
ABOUT_RE = re.compile(rf"{_PAIR}(?:, ?{_PAIR})*")
#: Every shape a brain may write on stdout.
REPLY_SHAPES = (
    re.compile(r"OK"),
    MOVE_RE,
    MOVES_RE,
    re.compile(r"SWAP"),
    re.compile(r"ERROR .+"),
    re.compile(r"UNKNOWN .+"),
    re.compile(r"MESSAGE .+"),
    re.compile(r"DEBUG .+"),
    ABOUT_RE,
)


@dataclass(frozen=True)
class Line:
    """One stdout line: its text without terminator and when it arrived (monotonic s)."""

    text: str
    at: float


class BrainDied(AssertionError):
    """The brain closed stdout (exited) while a reply was expected."""


class BrainProcess:
    """One brain process on pipes. Use as a context manager, or call :meth:`kill`."""

    def __init__(self, *, crlf: bool = True, env: dict[str, str | None] | None = None,
                 command: list[str] | None = None) -> None:
        """``env`` adds to (or, with a ``None`` value, removes from) this process's
        environment for the brain; ``command`` replaces ``python -m brain``."""
        environment = dict(os.environ)
        for name, value in (env or {}).items():
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value
        self.newline = b"\r\n" if crlf else b"\n"
        self.violations: list[str] = []
        self.transcript: list[Line] = []
        self.side_lines: list[str] = []  # MESSAGE/DEBUG lines skipped by read_reply
        self.latencies: list[float] = []
        self._lines: queue.Queue[Line | None] = queue.Queue()
        self._stderr: list[bytes] = []
        self.spawned_at = time.monotonic()
        self.sent_at = self.spawned_at
        self.proc = subprocess.Popen(
            command or [sys.executable, "-m", "brain"],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
            start_new_session=True,  # its own process group: kill the whole tree at the end
        )
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # -- background readers ---------------------------------------------------------------

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in iter(self.proc.stdout.readline, b""):
            at = time.monotonic()
            self._check(raw)
            line = Line(raw.rstrip(b"\r\n").decode("utf-8", "replace"), at)
            self.transcript.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):  # type: ignore[union-attr]
            self._stderr.append(chunk)

    def _check(self, raw: bytes) -> None:
        if not raw.endswith(b"\n"):
            self.violations.append(f"unterminated line at exit: {raw!r}")
        body = raw[:-2] if raw.endswith(b"\r\n") else raw.rstrip(b"\n")
        try:
            text = body.decode("ascii")
        except UnicodeDecodeError:
            self.violations.append(f"non-ASCII output line: {raw!r}")
            return
        if not any(shape.fullmatch(text) for shape in REPLY_SHAPES):
            self.violations.append(f"line of no protocol shape: {raw!r}")

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    # -- writing ----------------------------------------------------------------------------

    def send(self, *lines: str, crlf: bool | None = None) -> float:
        """Write ``lines`` in one write, each with the line ending; return the send time."""
        newline = self.newline if crlf is None else (b"\r\n" if crlf else b"\n")
        return self.send_raw(b"".join(line.encode() + newline for line in lines))

    def send_raw(self, data: bytes) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        self.sent_at = time.monotonic()
        return self.sent_at

    def close_stdin(self) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.sent_at = time.monotonic()
        return self.sent_at

    # -- reading ----------------------------------------------------------------------------

    def read_line(self, timeout: float) -> Line:
        """The next stdout line of any kind (nothing skipped)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no line from the brain within {timeout:.2f} s; stderr:\n{self.stderr[-2000:]}"
            ) from None
        if line is None:
            self._lines.put(None)  # keep reporting EOF
            raise BrainDied(f"brain closed stdout; stderr:\n{self.stderr[-2000:]}")
        return line

    def read_reply(self, timeout: float, since: float | None = None) -> str:
        """The next reply line, skipping (and keeping) MESSAGE/DEBUG lines.

        ``timeout`` counts from ``since`` (default: the last send). The time from ``since``
        to the reply's arrival is appended to :attr:`latencies`.
        """
        start = self.sent_at if since is None else since
        deadline = start + timeout
        while True:
            line = self.read_line(max(0.0, deadline - time.monotonic()))
            if line.text.startswith(("MESSAGE ", "DEBUG ")):
                self.side_lines.append(line.text)
                continue
            self.latencies.append(line.at - start)
            return line.text

    def read_move(self, timeout: float, since: float | None = None) -> tuple[int, int]:
        """The next reply, which must be one bare ``x,y``."""
        text = self.read_reply(timeout, since)
        match = MOVE_RE.fullmatch(text)
        assert match is not None, f"expected a move 'x,y', got {text!r}"
        return int(match.group(1)), int(match.group(2))

    @property
    def last_latency(self) -> float:
        return self.latencies[-1]

    def expect_silence(self, seconds: float) -> None:
        """Fail if the brain writes any line within ``seconds``."""
        try:
            line = self._lines.get(timeout=seconds)
        except queue.Empty:
            return
        if line is None:
            self._lines.put(None)
            raise BrainDied(f"brain exited while it should be idle; stderr:\n{self.stderr}")
        raise AssertionError(f"unexpected output {line.text!r}")

    # -- process control --------------------------------------------------------------------

    def suspend(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> float:
        os.kill(self.proc.pid, signal.SIGCONT)
        return time.monotonic()

    def wait_exit(self, timeout: float) -> float:
        """Wait for the process to exit; return the time from the last send to the exit.
        Once it has exited, :attr:`transcript` holds every line it wrote."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"brain still running {timeout:.2f} s after the last command"
            ) from None
        elapsed = time.monotonic() - self.sent_at
        for thread in self._threads:
            thread.join(timeout=1.0)
        return elapsed

    def end(self, limit: float = 0.5) -> float:
        """Send END (as every manager does) and require a silent exit within ``limit``."""
        sent = self.send("END")
        elapsed = self.wait_exit(limit)
        late = [line.text for line in self.transcript if line.at >= sent]
        assert not late, f"output after END: {late}"
        return elapsed

    def peak_memory_mb(self) -> float:
        """VmHWM (peak resident set) of the running brain, in MB."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
        assert match is not None, "VmHWM missing from /proc status"
        return int(match.group(1)) / 1024.0

    def thread_count(self) -> int:
        """Threads of the running brain process (``Threads:`` in /proc status)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        match = re.search(r"^Threads:\s+(\d+)", status, re.MULTILINE)
        assert match is not None, "Threads missing from /proc status"
        return int(match.group(1))

    def kill(self) -> None:
        """Kill the process group (the brain and anything it started); safe to repeat."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGCONT)
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def assert_clean(self) -> None:
        """No malformed stdout line and not one byte on stderr: Piskvork reads stderr and
        stdout as one pipe, so anything there would be taken as a reply."""
        assert not self.violations, f"protocol violations: {self.violations}"
        assert not self._stderr, f"output on stderr:\n{self.stderr}"

    def __enter__(self) -> BrainProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


class Referee:
    """A minimal board for the test side: legality and freestyle five detection."""

    def __init__(self, width: int, height: int | None = None) -> None:
        self.width = width
        self.height = width if height is None else height
        self.cells: dict[tuple[int, int], int] = {}

    def is_legal(self, point: tuple[int, int]) -> bool:
        x, y = point
        return 0 <= x < self.width and 0 <= y < self.height and point not in self.cells

    def play(self, point: tuple[int, int], color: int) -> bool:
        """Place a stone (asserting legality); return whether it makes five or more."""
        assert self.is_legal(point), f"illegal move {point} (occupied or off the board)"
        self.cells[point] = color
        return self._makes_five(point, color)

    def _makes_five(self, point: tuple[int, int], color: int) -> bool:
        x, y = point
        for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for sign in (1, -1):
                cx, cy = x + sign * dx, y + sign * dy
                while self.cells.get((cx, cy)) == color:
                    run += 1
                    cx, cy = cx + sign * dx, cy + sign * dy
            if run >= 5:
                return True
        return False

    def five_point(self, color: int) -> tuple[int, int] | None:
        """An empty cell where ``color`` would make five or more, if any."""
        for y in range(self.height):
            for x in range(self.width):
                if (x, y) not in self.cells:
                    self.cells[(x, y)] = color
                    wins = self._makes_five((x, y), color)
                    del self.cells[(x, y)]
                    if wins:
                        return x, y
        return None

    def reply(self, last: tuple[int, int], color: int) -> tuple[int, int]:
        """A scripted opponent for ``color``: win, else block a five, else play near ``last``."""
        return self.five_point(color) or self.five_point(3 - color) or self.near(last)

    def near(self, point: tuple[int, int]) -> tuple[int, int]:
        """The first empty cell around ``point``, scanning rings of growing radius."""
        x, y = point
        for radius in range(1, max(self.width, self.height)):
            for dy in range(-radius, radius + 1):
                for dx in range(-radius, radius + 1):
                    if max(abs(dx), abs(dy)) == radius and self.is_legal((x + dx, y + dy)):
                        return x + dx, y + dy
        raise AssertionError("board full")
