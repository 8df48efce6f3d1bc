"""Manager side of the Gomocup protocol: one brain process driven over pipes.

:class:`BrainProcess` starts a brain (``subprocess.Popen`` with pipes, no pty, in a new
session so that the whole process tree can be killed), speaks the protocol to it and turns
every failure into a typed :class:`BrainError`. It is synchronous and, like python-chess's
``SimpleEngine``, meant to be used as a context manager::

    from driver.client import BrainProcess

    with BrainProcess.spawn(["./pbrain-foo"], cwd="brains/foo") as brain:
        about = brain.about()                        # optional; never hangs
        brain.start(15, rule=0, timeout_turn_ms=1000, timeout_match_ms=60000)
        reply = brain.play([(7, 7)], time_left_ms=60000, timeout=2.0)   # BOARD
        reply = brain.play([(7, 7), reply.point, (8, 8)], timeout=2.0)   # TURN 8,8
    # END was sent, then the process tree was killed after 0.5 s

**Threads.** One reader thread per output stream. stdout lines are timestamped
(``time.monotonic()``) as they arrive and queued; stderr is always drained (to a file
capped at :attr:`BrainProcess.stderr_limit` bytes, or discarded), so a brain flooding
stderr never blocks. ``MESSAGE``/``DEBUG``/blank lines are collected (returned with the
reply they preceded) and never taken as replies.

**Merged stderr** (``spawn(merge_stderr=True)``) referees as Piskvork does, which reads a
brain's stdout and stderr through one pipe: stderr goes into the same pipe as stdout, so a
log line or a traceback is read like any other line, and any line that is not a reply,
``MESSAGE`` or ``DEBUG`` is a bad reply, including one that arrives outside a request
(Piskvork would take it as the answer to the next one).

**Timing.** The manager measures every reply itself: from the moment the request is written
(and flushed, in one system call) to the moment the reply line was read from the pipe, in
wall-clock (monotonic) time.

**Late replies** (the pygomo-lib defect). A request that times out *kills the brain's
process tree*: the move is lost anyway (a time loss in every Gomocup manager), and without
request ids in the protocol a late reply could otherwise be read as the answer to the next
request. Besides, right before writing a request the client reads whatever the brain has
written so far and discards it (kept in :attr:`BrainProcess.stale_lines`); the pipe is read
under one lock by the reader thread and by this step, so an extra line written before the
request (a second move, a stray ``OK``) is never read as its answer. Only output a brain
writes *while* the request is being written is indistinguishable from an answer, as with
every manager. The one exception to killing is ABOUT: a brain that does not answer it in
time keeps running, and one late line of ``key="value"`` pairs is then skipped.

**Position tracking.** The client remembers the stones the brain knows (from ``BOARD``,
``TURN`` and its own replies), so :meth:`BrainProcess.play` sends ``BEGIN`` on an empty
board, ``TURN x,y`` when the brain knows everything but the opponent's last move, and
``BOARD`` otherwise (its first move in a game, or after any disagreement). It also rejects
replies off the board or on an occupied square with :class:`IllegalMove`; rule-specific
judgement (fives, renju fouls) is the referee's business, not the client's.

**ERROR/UNKNOWN** where a reply is expected raise :class:`BrainRefused` (Piskvork counts it
as a loss; GomocupJudge would ignore it and let the clock run out). The exception is a
brain's complaint about an ``INFO`` key outside the protocol's standard ones
(:class:`~protocol.commands.InfoKey`), such as Yixin-Board's ``show_detail``: INFO is never
answered, but a brain that reads commands word by word (Rapfi) takes an unknown key's value
for a command and answers ``ERROR Unknown command: 250``. Each such INFO line forgives as
many ERROR/UNKNOWN lines as its value has words, until the brain's next real reply; they
are kept in :attr:`BrainProcess.refused_infos`. With
:attr:`BrainProcess.skip_non_moves` a move request is read as c-gomoku-cli reads it: lines
that are not a move (ERROR, UNKNOWN, junk) are skipped until a move comes or the time is
up, which measures the play of engines with protocol quirks rather than the quirks.

Process-tree helpers (:func:`session_pids`, :func:`tree_rss`, :func:`kill_tree`) read
``/proc`` and therefore work on Linux only; elsewhere memory measurement raises
:class:`OSError` and killing falls back to the direct child.
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import os
import queue
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Final

from driver.errors import DriverError
from protocol.commands import (
    UNLIMITED_TIME_MS,
    About,
    Begin,
    Board,
    Command,
    End,
    Field,
    Info,
    InfoKey,
    Play,
    RectStart,
    Restart,
    Start,
    Stone,
    Takeback,
    Turn,
    command_lines,
)
from protocol.replies import (
    AboutReply,
    DebugReply,
    EmptyReply,
    ErrorReply,
    MessageReply,
    MoveReply,
    OkReply,
    Reply,
    SuggestReply,
    UnknownReply,
    parse_reply,
)
from protocol.syntax import LineSplitter, Point

__all__ = [
    "END_GRACE_S",
    "UNLIMITED_TIME_MS",
    "BrainClosed",
    "BrainCrashed",
    "BrainError",
    "BrainProcess",
    "BrainProtocolError",
    "BrainRefused",
    "BrainStartError",
    "BrainTimeout",
    "IllegalMove",
    "MoveResult",
    "child_pids",
    "kill_tree",
    "session_pids",
    "stat_fields",
    "tree_rss",
]

END_GRACE_S: Final = 0.5
"""Seconds a brain gets to exit after ``END`` before its process tree is killed
(GomocupJudge waits 0.5 s, Piskvork about 0.7 s)."""

STDERR_LIMIT: Final = 1 << 20
"""Default cap, in bytes, of a brain's stderr log file; the rest is drained and counted."""

_STANDARD_INFO_KEYS: Final = frozenset(key.value for key in InfoKey)

MAX_PENDING_LINES: Final = 10_000
"""stdout lines kept unread at most; a brain writing more between requests loses the excess
(counted in :attr:`BrainProcess.dropped_lines`)."""

# --------------------------------------------------------------------------------------------
# Errors


class BrainError(DriverError):
    """Base class of every failure of a brain. ``str()`` is one line naming the brain."""

    def __init__(self, brain: str, reason: str) -> None:
        super().__init__(f"{brain}: {reason}")
        self.brain = brain
        self.reason = reason


class BrainStartError(BrainError):
    """The brain could not be started: missing executable, not executable, bad directory."""


class BrainCrashed(BrainError):
    """The brain exited (or closed its stdout) while a reply was expected.

    :ivar exit_code: the process's return code (negative: killed by that signal), or
        ``None`` if it closed stdout but was still running (it was then killed).
    """

    def __init__(self, brain: str, exit_code: int | None, during: str) -> None:
        if exit_code is None:
            how = "closed its output"
        elif exit_code < 0:
            how = f"was killed by signal {-exit_code}"
        else:
            how = f"exited with code {exit_code}"
        super().__init__(brain, f"{how} while {during}")
        self.exit_code = exit_code


class BrainTimeout(BrainError):
    """No reply in time; the brain's process tree has been killed.

    :ivar elapsed_s: seconds waited since the request was sent.
    :ivar limit_s: the allowed time (tolerance included).
    """

    def __init__(self, brain: str, during: str, elapsed_s: float, limit_s: float) -> None:
        super().__init__(
            brain, f"no reply after {elapsed_s * 1000:.0f} ms while {during} "
                   f"(limit {limit_s * 1000:.0f} ms)"
        )
        self.elapsed_s = elapsed_s
        self.limit_s = limit_s


class BrainProtocolError(BrainError):
    """The brain wrote a line that is not an acceptable answer to the request.

    :ivar line: the offending line (without its terminator).
    """

    def __init__(self, brain: str, line: str, reason: str) -> None:
        shown = line if len(line) <= 80 else line[:80] + "..."
        super().__init__(brain, f"{reason}: {shown!r}")
        self.line = line


class BrainRefused(BrainError):
    """The brain answered ``ERROR`` or ``UNKNOWN`` instead of the expected reply.

    :ivar kind: ``"ERROR"`` or ``"UNKNOWN"``.
    :ivar text: the brain's message (may be empty).
    """

    def __init__(self, brain: str, kind: str, text: str, during: str) -> None:
        answer = f"{kind} {text!r}" if text else kind
        super().__init__(brain, f"answered {answer} while {during}")
        self.kind = kind
        self.text = text


class IllegalMove(BrainError):
    """The brain's move is off the board or on an occupied square.

    :ivar point: the move as received.
    """

    def __init__(self, brain: str, point: Point, reason: str) -> None:
        super().__init__(brain, f"illegal move {point}: {reason}")
        self.point = point


class BrainClosed(BrainError):
    """A request was made to a brain that was already ended or killed."""


# --------------------------------------------------------------------------------------------
# Process trees (Linux /proc)


def stat_fields(pid: int) -> list[bytes]:
    """The fields of ``/proc/PID/stat`` after the command name: state, parent, group,
    session, ... (``proc(5)``'s field 3 onwards; its field 22, the start time, is [19]).

    :raises OSError: there is no such process (or no ``/proc``).
    """
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    # Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    return stat[stat.rfind(b")") + 2 :].split()


def _live_processes() -> Iterator[tuple[int, list[bytes]]]:
    """Each live process's pid and its :func:`stat_fields`; zombies and processes that exit
    meanwhile are left out.

    :raises OSError: ``/proc`` is not available.
    """
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = stat_fields(int(entry.name))
        except OSError:
            continue  # the process exited meanwhile
        if len(fields) > 3 and fields[0] != b"Z":
            yield int(entry.name), fields


def session_pids(session_id: int) -> list[int]:
    """Process ids of every live process in session ``session_id`` (Linux ``/proc``).

    A brain spawned by :class:`BrainProcess` leads its own session, so this is the brain and
    everything it started (unless a child called ``setsid`` itself).

    :raises OSError: ``/proc`` is not available.
    """
    return [pid for pid, fields in _live_processes() if int(fields[3]) == session_id]


def child_pids(parent: int) -> list[int]:
    """Process ids of the live children of process ``parent`` (Linux ``/proc``).

    :raises OSError: ``/proc`` is not available.
    """
    return [pid for pid, fields in _live_processes() if int(fields[1]) == parent]


def tree_rss(session_id: int) -> int:
    """Resident memory, in bytes, of all processes of session ``session_id`` summed.

    Shared pages count once per process (like Piskvork's working set, unlike
    GomocupJudge's USS); processes that exit during the scan are skipped.

    :raises OSError: ``/proc`` is not available.
    """
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in session_pids(session_id):
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
    return total


def kill_tree(process: subprocess.Popen[bytes], wait: float = 1.0) -> None:
    """SIGKILL ``process``, its process group and its session (the whole brain tree), and
    wait up to ``wait`` seconds for the session to be empty.

    The group is signalled only while it can still be ours: the process has not been
    reaped, or members of its session are still alive (then its id cannot be reused).
    """
    pid = process.pid
    try:
        members = session_pids(pid)
    except OSError:
        members = []
    if process.returncode is None or members:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    for other in members:
        with contextlib.suppress(OSError):
            os.kill(other, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(OSError):
            process.kill()
    deadline = time.monotonic() + wait
    with contextlib.suppress(OSError):
        while members and time.monotonic() < deadline:
            time.sleep(0.01)
            process.poll()  # reap the brain itself; orphans are reaped by init
            members = session_pids(pid)


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True, slots=True)
class MoveResult:
    """A move the brain played.

    :ivar point: the square, checked to be on the board and empty.
    :ivar elapsed_ms: wall time from writing the request to reading the reply.
    :ivar command: the request word sent: ``"BEGIN"``, ``"TURN"`` or ``"BOARD"``.
    :ivar messages: ``MESSAGE``/``DEBUG`` lines (raw text) received since the previous
        request, in order.
    :ivar skipped: lines that were not a move, skipped before it (only with
        :attr:`BrainProcess.skip_non_moves`).
    """

    point: Point
    elapsed_ms: float
    command: str
    messages: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Line:
    """One stdout line and when it was read."""

    at: float
    text: str


# --------------------------------------------------------------------------------------------
# The client


class BrainProcess:
    """One running brain. Create it with :meth:`spawn`; see the module docstring.

    Not thread-safe: one thread drives one brain (the reader threads are internal).

    :ivar name: the name used in error messages (the ABOUT name once :meth:`about` ran,
        unless one was given to :meth:`spawn`).
    :ivar pid: the brain's process id (also its session and process-group id).
    :ivar width: board width after :meth:`start` (``None`` before).
    :ivar height: board height after :meth:`start`.
    :ivar stale_lines: lines discarded because they arrived outside any request.
    :ivar refused_infos: ERROR/UNKNOWN lines taken as the brain's answer to an INFO key it
        does not know (see the module docstring), not as a refusal.
    :ivar dropped_lines: stdout lines lost because too many were pending.
    :ivar stderr_bytes: bytes the brain wrote to stderr (all of them, logged or not).
    :ivar stderr_limit: most bytes of stderr written to the log file.
    """

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        name: str,
        *,
        stderr_path: Path | None = None,
        stderr_limit: int = STDERR_LIMIT,
        transcript: IO[str] | None = None,
        fixed_name: bool = False,
    ) -> None:
        """Wrap an already started process; use :meth:`spawn` instead. A process whose
        stderr is not a pipe of its own had it merged into stdout."""
        self._process = process
        self.name = name
        self._fixed_name = fixed_name
        self.pid = process.pid
        self.stderr_limit = stderr_limit
        self._stderr_path = stderr_path
        self._transcript = transcript
        self._transcript_lock = threading.Lock()
        self._t0 = time.monotonic()
        self._buffer: collections.deque[_Line] = collections.deque()
        self._arrived = threading.Condition()
        self._output_ended = False
        self._splitter = LineSplitter()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._messages: list[str] = []
        self._about_late = False
        self._closed = False
        self._suspended = False
        self.width: int | None = None
        self.height: int | None = None
        self._known: list[Point] | None = None
        self.stale_lines: list[str] = []
        self.refused_infos: list[str] = []
        #: ERROR/UNKNOWN lines still forgiven as answers to unknown INFO keys.
        self._forgiven = 0
        self.dropped_lines = 0
        self.stderr_bytes = 0
        #: Called with every stdout line as it arrives, from the reader thread and with
        #: the pipe's lock held (keep it short: hand the line on): a live view of a
        #: brain's MESSAGE lines while it thinks, such as the board's heat map.
        self.listener: Callable[[str], None] | None = None
        #: Whether stderr shares the stdout pipe (every stray line then loses).
        self.merged_stderr = process.stderr is None
        #: Read move replies as c-gomoku-cli does: while waiting for a move, skip any line
        #: that is not one (ERROR, UNKNOWN, junk) instead of failing; the window still
        #: runs, and the skipped lines come back in :attr:`MoveResult.skipped`.
        self.skip_non_moves = False
        #: Called once with :attr:`pid` when the process tree has been killed (by
        #: :meth:`close` or :meth:`kill`): whoever watches the session can forget it.
        self.on_shutdown: Callable[[int], None] | None = None
        self._readers = [
            threading.Thread(target=self._read_stdout, name=f"{name}-stdout", daemon=True)]
        if not self.merged_stderr:
            self._readers.append(threading.Thread(target=self._read_stderr,
                                                  name=f"{name}-stderr", daemon=True))
        for reader in self._readers:
            reader.start()

    # -- life cycle ------------------------------------------------------------------------

    @classmethod
    def spawn(
        cls,
        command: Sequence[str],
        *,
        cwd: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        name: str | None = None,
        stderr_path: str | Path | None = None,
        stderr_limit: int = STDERR_LIMIT,
        transcript: str | Path | None = None,
        merge_stderr: bool = False,
    ) -> BrainProcess:
        """Start ``command`` (an argument list) with pipes on stdin, stdout and stderr.

        :param cwd: working directory of the brain (default: ours).
        :param env: the brain's environment (default: ours).
        :param name: name for messages; default: the executable's file name, replaced by
            the ABOUT name when :meth:`about` succeeds.
        :param stderr_path: file receiving the brain's stderr (created on the first byte,
            capped at ``stderr_limit`` bytes); ``None`` discards it.
        :param transcript: file receiving the full I/O transcript (``>`` sent, ``<``
            received, times in seconds since spawn).
        :param merge_stderr: one pipe for stdout and stderr, as Piskvork reads a brain (see
            the module docstring); ``stderr_path`` is then unused.
        :raises BrainStartError: the program cannot be run (missing, not executable, bad
            working directory); the message says which.
        """
        if not command:
            raise BrainStartError(name or "brain", "empty command line")
        label = name or Path(command[0]).name
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                cwd=None if cwd is None else str(cwd),
                env=None if env is None else dict(env),
                start_new_session=True,
                bufsize=0,
            )
        except FileNotFoundError as exc:
            missing = exc.filename or command[0]
            where = f" (working directory {cwd})" if cwd is not None else ""
            raise BrainStartError(
                label, f"cannot run {command[0]!r}: {missing!r} does not exist{where}; "
                       "give a path to an executable or a command line"
            ) from None
        except PermissionError:
            raise BrainStartError(
                label, f"cannot run {command[0]!r}: permission denied (chmod +x it?)"
            ) from None
        except OSError as exc:
            raise BrainStartError(label, f"cannot run {command[0]!r}: {exc}") from None
        log = None
        if transcript is not None:
            log = open(transcript, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        return cls(
            process,
            label,
            stderr_path=None if stderr_path is None else Path(stderr_path),
            stderr_limit=stderr_limit,
            transcript=log,
            fixed_name=name is not None,
        )

    def __enter__(self) -> BrainProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Whether the process is running and has not been ended by us."""
        return not self._closed and self._process.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has ended (negative: killed by that signal)."""
        return self._process.poll()

    def close(self, grace: float = END_GRACE_S, *, end: bool = True) -> float | None:
        """Send ``END``, wait up to ``grace`` seconds for the exit, then kill the tree.

        With ``end=False`` stdin is closed instead (what a brain sees when its manager
        dies). The whole process tree is killed in every case (children a brain leaves
        behind included). Safe to call more than once.

        :returns: seconds the brain took to exit, or ``None`` if it had to be killed (or
            was already gone or closed).
        """
        if self._closed:
            return None
        exited_in: float | None = None
        if self._process.poll() is None:
            try:
                if end:
                    sent: float | None = self._write([End()])
                else:
                    assert self._process.stdin is not None
                    self._process.stdin.close()
                    self._resume()
                    sent = time.monotonic()
            except (BrainError, OSError):
                sent = None
            if sent is not None:
                try:
                    self._process.wait(timeout=grace)
                    exited_in = time.monotonic() - sent
                except subprocess.TimeoutExpired:
                    exited_in = None
        self._shutdown()
        return exited_in

    def suspend(self) -> None:
        """Freeze the brain's whole process tree (SIGSTOP), as GomocupJudge does while the
        opponent thinks, so that no brain can think on its opponent's time. The next
        request (or :meth:`close`) resumes it right after writing its command, where the
        move's clock starts. POSIX only; elsewhere a no-op."""
        if self._closed or self._suspended or not hasattr(signal, "SIGSTOP"):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._process.pid, signal.SIGSTOP)
            self._suspended = True

    def _resume(self) -> None:
        if self._suspended:
            self._suspended = False
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGCONT)

    def kill(self) -> None:
        """Kill the process tree at once (no ``END``)."""
        if not self._closed:
            self._shutdown()

    def _shutdown(self) -> None:
        """Kill the tree, reap it and let the reader threads finish (idempotent; the
        tournament may call it from another thread while a request is waiting)."""
        self._closed = True
        kill_tree(self._process)
        ended, self.on_shutdown = self.on_shutdown, None
        if ended is not None:
            ended(self.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5.0)
        if self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        for reader in self._readers:
            reader.join(timeout=1.0)
        with self._transcript_lock:
            if self._transcript is not None:
                self._transcript.close()
                self._transcript = None

    def memory_usage(self) -> int:
        """Resident memory of the brain's process tree in bytes (see :func:`tree_rss`).

        :raises OSError: ``/proc`` is not available (not Linux).
        """
        return tree_rss(self.pid)

    # -- reader threads --------------------------------------------------------------------

    def _log(self, direction: str, text: str) -> None:
        if self._transcript is None:
            return
        with self._transcript_lock:
            if self._transcript is not None:
                self._transcript.write(f"{time.monotonic() - self._t0:10.3f} {direction} {text}\n")
                self._transcript.flush()

    def _read_stdout(self) -> None:
        """Wait for output and pump it into the buffer (see :meth:`_pump`)."""
        stdout = self._process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        os.set_blocking(fd, False)
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while not self._output_ended:
            poller.poll()
            with self._arrived:
                self._pump(fd)
        with contextlib.suppress(OSError):
            stdout.close()

    def _pump(self, fd: int) -> None:
        """Read everything the pipe holds now, split it into stamped lines and queue them.

        Called with ``_arrived`` held, by the reader thread and by :meth:`_discard_pending`:
        whoever holds the lock has consumed every byte it saw, so when a request is about
        to be written nothing written before it can still be in transit.
        """
        while not self._output_ended:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            now = time.monotonic()
            if chunk:
                lines = self._splitter.feed(self._decoder.decode(chunk))
            else:
                lines = (self._splitter.feed(self._decoder.decode(b"", final=True))
                         + self._splitter.flush())
                self._output_ended = True
            for text in lines:
                self._log("<", text)
                if self.listener is not None:
                    self.listener(text)
                if len(self._buffer) >= MAX_PENDING_LINES:
                    self.dropped_lines += 1
                else:
                    self._buffer.append(_Line(now, text))
            self._arrived.notify_all()

    def _read_stderr(self) -> None:
        stderr = self._process.stderr
        assert stderr is not None
        fd = stderr.fileno()
        sink: IO[bytes] | None = None
        written = 0
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.stderr_bytes += len(chunk)
                if self._stderr_path is None or written >= self.stderr_limit:
                    continue
                if sink is None:
                    sink = open(self._stderr_path, "ab")  # noqa: SIM115
                piece = chunk[: self.stderr_limit - written]
                sink.write(piece)
                written += len(piece)
                if written >= self.stderr_limit:
                    sink.write(b"\n[stderr capped here; the rest was discarded]\n")
                sink.flush()
        finally:
            if sink is not None:
                sink.close()
            with contextlib.suppress(OSError):
                stderr.close()

    # -- sending and receiving -------------------------------------------------------------

    def _write(self, commands: Iterable[Command]) -> float:
        """Write ``commands`` (CRLF, one flush); returns the time as :meth:`_write_lines`.

        INFO lines with a key outside the standard ones make room for the ERROR/UNKNOWN
        lines a brain may answer them with (see the module docstring)."""
        commands = list(commands)
        sent = self._write_lines([line for c in commands for line in command_lines(c)])
        self._forgiven += sum(max(1, len(c.value.split())) for c in commands
                              if isinstance(c, Info) and c.key not in _STANDARD_INFO_KEYS)
        return sent

    def _write_lines(self, lines: Sequence[str]) -> float:
        """Write raw ``lines`` (CRLF, one flush) and return the monotonic time just before
        the write (every reply is stamped later, even one read before this thread runs
        again after the flush)."""
        if self._closed:
            raise BrainClosed(self.name, "the brain was already ended or killed")
        data = ("\r\n".join(lines) + "\r\n").encode("utf-8")
        stdin = self._process.stdin
        assert stdin is not None
        for line in lines:
            self._log(">", line)
        sent = time.monotonic()
        try:
            stdin.write(data)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self._crashed(f"reading {lines[-1].split()[0]!r}") from None
        self._resume()
        return sent

    def _crashed(self, during: str) -> BrainCrashed:
        """The error for a brain whose output ended; the tree is killed and reaped."""
        code: int | None
        try:
            code = self._process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._shutdown()
        return BrainCrashed(self.name, code, during)

    def _next_line(self, deadline: float) -> _Line | None:
        """The next stdout line; ``None`` once output has ended and everything was read.

        :raises queue.Empty: nothing arrived before ``deadline`` (monotonic seconds).
        """
        with self._arrived:
            while not self._buffer:
                if self._output_ended:
                    return None
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise queue.Empty
                self._arrived.wait(remaining)
            return self._buffer.popleft()

    def _discard_pending(self) -> None:
        """Before a request: take in whatever the brain has written so far and drop it.

        MESSAGE/DEBUG lines are kept for the next :class:`MoveResult`; a late ABOUT answer
        is skipped; anything else is remembered in :attr:`stale_lines`.

        :raises BrainProtocolError: with merged stderr, for such a stray line (Piskvork
            would read it as the reply to the request about to be sent).
        """
        stdout = self._process.stdout
        with self._arrived:
            if stdout is not None and not self._output_ended:
                self._pump(stdout.fileno())
            while self._buffer:
                text = self._buffer.popleft().text
                reply = parse_reply(text)
                if isinstance(reply, (MessageReply, DebugReply)):
                    self._messages.append(text)
                elif self._forgive(reply, text):
                    continue
                elif not isinstance(reply, EmptyReply) and not self._is_late_about(reply):
                    self.stale_lines.append(text)
                    if self.merged_stderr:
                        raise BrainProtocolError(
                            self.name, text, "wrote a line outside any request (stdout and "
                            "stderr merged, as Piskvork reads them: it would be taken as "
                            "the next reply)")

    def _forgive(self, reply: Reply, text: str) -> bool:
        """Whether ``reply`` is an ERROR/UNKNOWN still forgiven as the answer to an INFO
        key the brain does not know (then it is kept in :attr:`refused_infos`)."""
        if self._forgiven and isinstance(reply, (ErrorReply, UnknownReply)):
            self._forgiven -= 1
            self.refused_infos.append(text)
            return True
        return False

    def _is_late_about(self, reply: Reply) -> bool:
        """Whether ``reply`` is the answer to an ABOUT that timed out (consumed once)."""
        if self._about_late and isinstance(reply, AboutReply) and reply.fields:
            self._about_late = False
            return True
        return False

    def _await(self, sent: float, timeout: float, during: str, *, about: bool = False
               ) -> tuple[Reply, _Line]:
        """Wait for the first real reply line after ``sent``.

        MESSAGE/DEBUG/blank lines are collected, a late ABOUT answer is skipped once.

        :raises queue.Empty: nothing came in ``timeout`` seconds (the caller decides).
        :raises BrainCrashed: the output ended.
        """
        deadline = sent + timeout
        while True:
            item = self._next_line(deadline)
            if item is None:
                raise self._crashed(during)
            reply = parse_reply(item.text, about=about)
            if isinstance(reply, (MessageReply, DebugReply)):
                self._messages.append(item.text)
            elif self._forgive(reply, item.text):
                continue
            elif not isinstance(reply, EmptyReply) and (about or not self._is_late_about(reply)):
                if item.at > deadline:
                    # Queued in time but read late by the reader thread: the stamp counts.
                    raise queue.Empty
                self._forgiven = 0  # the brain has read every INFO sent before
                return reply, item

    def _await_or_kill(self, sent: float, timeout: float, during: str) -> tuple[Reply, _Line]:
        """:meth:`_await`, killing the tree on timeout (so no late reply can be misread).

        :raises BrainTimeout: nothing came in time.
        """
        try:
            return self._await(sent, timeout, during)
        except queue.Empty:
            elapsed = time.monotonic() - sent
            self._shutdown()
            raise BrainTimeout(self.name, during, elapsed, timeout) from None

    def _request(self, commands: Sequence[Command], timeout: float, during: str, *,
                 about: bool = False, refuse: bool = True) -> tuple[Reply, _Line, float]:
        """Send ``commands`` and return the reply, its line and the time it was sent.

        A timeout kills the tree (except for ABOUT, see :meth:`about`).

        :raises BrainRefused: for ``ERROR``/``UNKNOWN`` (unless ``refuse`` is false: they
            are returned).
        """
        self._discard_pending()
        sent = self._write(commands)
        if about:
            try:
                reply, line = self._await(sent, timeout, during, about=True)
            except queue.Empty:
                self._about_late = True
                raise BrainTimeout(self.name, during, time.monotonic() - sent,
                                   timeout) from None
        else:
            reply, line = self._await_or_kill(sent, timeout, during)
        if refuse and isinstance(reply, (ErrorReply, UnknownReply)):
            kind = "ERROR" if isinstance(reply, ErrorReply) else "UNKNOWN"
            raise BrainRefused(self.name, kind, reply.text, during)
        return reply, line, sent

    def _take_messages(self) -> tuple[str, ...]:
        messages, self._messages = tuple(self._messages), []
        return messages

    def _expect_ok(self, commands: Sequence[Command], timeout: float, during: str) -> float:
        reply, line, sent = self._request(commands, timeout, during)
        if not isinstance(reply, OkReply):
            raise BrainProtocolError(self.name, line.text, f"expected OK while {during}")
        return line.at - sent

    # -- handshake ---------------------------------------------------------------------------

    def about(self, timeout: float = 2.0) -> AboutReply:
        """Send ``ABOUT`` and return the answer (free text gives empty ``fields``).

        The brain's :attr:`name` becomes the ABOUT ``name`` unless :meth:`spawn` got one.
        On timeout the brain is *not* killed (ABOUT is informational): one late line of
        ``key="value"`` pairs is skipped when it arrives.

        :raises BrainTimeout: no answer within ``timeout`` seconds.
        :raises BrainRefused: the brain answered ``UNKNOWN``/``ERROR``.
        :raises BrainProtocolError: a move, ``OK`` or similar instead of the answer.
        :raises BrainCrashed: the brain exited.
        """
        reply, line, _ = self._request([About()], timeout, "answering ABOUT", about=True)
        if not isinstance(reply, AboutReply):
            raise BrainProtocolError(self.name, line.text, "expected the ABOUT answer")
        if reply.name and not self._fixed_name:
            self.name = reply.name
        return reply

    def start(
        self,
        width: int,
        height: int | None = None,
        *,
        rule: int = 0,
        timeout_turn_ms: int = 5000,
        timeout_match_ms: int = 0,
        max_memory: int = 0,
        game_type: int = 1,
        folder: str | None = None,
        info: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> float:
        """Start a game: ``START`` (or ``RECTSTART``), wait for ``OK``, then send the INFOs.

        Sends, in GomocupJudge's order, ``INFO timeout_turn``, ``timeout_match``,
        ``max_memory``, ``game_type``, ``rule``, then ``folder`` if given and every
        ``info`` item (``INFO key value``, keys lower-cased). Calling it again on the same
        process starts a new game (c-gomoku-cli does this); the tracked position is reset.

        :returns: seconds until ``OK``.
        :raises BrainRefused: ``ERROR`` (e.g. unsupported size) or ``UNKNOWN``
            (``RECTSTART`` not implemented).
        :raises BrainProtocolError: another line instead of ``OK``.
        :raises BrainTimeout: no ``OK`` within ``timeout`` s (the tree is killed).
        :raises BrainCrashed: the brain exited.
        """
        height = width if height is None else height
        command: Command = Start(width) if width == height else RectStart(width, height)
        took = self._expect_ok([command], timeout, f"answering {command_lines(command)[0]}")
        self.width, self.height = width, height
        self._known = None
        infos = [
            Info(InfoKey.TIMEOUT_TURN, str(timeout_turn_ms)),
            Info(InfoKey.TIMEOUT_MATCH, str(timeout_match_ms)),
            Info(InfoKey.MAX_MEMORY, str(max_memory)),
            Info(InfoKey.GAME_TYPE, str(game_type)),
            Info(InfoKey.RULE, str(rule)),
        ]
        if folder is not None:
            infos.append(Info(InfoKey.FOLDER, folder))
        infos += [Info(key, value) for key, value in (info or {}).items()]
        self._write(infos)
        return took

    def info(self, key: str, value: str | int) -> None:
        """Send one ``INFO key value`` (never answered)."""
        self._write([Info(key, str(value))])

    def restart(self, timeout: float = 10.0) -> float:
        """``RESTART`` (same board size, empty board); returns seconds until ``OK``.

        :raises BrainRefused: ``UNKNOWN`` (RESTART is optional: start a fresh process or
            send :meth:`start` instead) or ``ERROR``.
        """
        self._require_started("RESTART")
        took = self._expect_ok([Restart()], timeout, "answering RESTART")
        self._known = None
        return took

    def takeback(self, x: int, y: int, timeout: float = 10.0) -> float:
        """``TAKEBACK x,y`` (optional command); returns seconds until ``OK``.

        The tracked position forgets the square, so the next :meth:`play` sends ``BOARD``
        unless it was the last stone.
        """
        self._require_started("TAKEBACK")
        took = self._expect_ok([Takeback(x, y)], timeout, f"answering TAKEBACK {x},{y}")
        if self._known:
            if self._known[-1] == (x, y):
                self._known.pop()
            else:
                self._known = None
        return took

    def exchange(self, lines: Sequence[str], timeout: float) -> tuple[Reply, float]:
        """Send raw ``lines`` and return the first reply line (parsed) and its delay in s.

        For testing brains with input no typed command can express (unknown words, bad
        coordinates). ``ERROR``/``UNKNOWN`` are returned, not raised; MESSAGE/DEBUG are
        skipped. The tracked position is forgotten (the next :meth:`play` sends BOARD).

        :raises BrainTimeout: no reply in ``timeout`` s (the tree is killed).
        :raises BrainCrashed: the brain exited.
        """
        self._known = None
        self._discard_pending()
        sent = self._write_lines(lines)
        reply, line = self._await_or_kill(sent, timeout, f"answering {lines[0]!r}")
        return reply, line.at - sent

    def _require_started(self, what: str) -> tuple[int, int]:
        if self.width is None or self.height is None:
            raise BrainClosed(self.name, f"{what} before START: call start() first")
        return self.width, self.height

    # -- moves -------------------------------------------------------------------------------

    def play(
        self,
        moves: Sequence[tuple[int, int]],
        *,
        time_left_ms: int | None = None,
        timeout: float,
    ) -> MoveResult:
        """Ask for the next move of the game whose stones so far are ``moves``.

        ``moves`` are in play order, black first; the brain plays the side to move. Sends
        ``INFO time_left`` (if given), then ``BEGIN`` on an empty board the brain has not
        seen stones on, ``TURN x,y`` if the brain knows all of ``moves`` but the last,
        else ``BOARD``. ``timeout`` (seconds, tolerance included) runs from the flush of the
        move request.

        :raises BrainTimeout: no move in time (the tree is killed).
        :raises BrainCrashed: the brain exited.
        :raises BrainRefused: ``ERROR``/``UNKNOWN`` instead of a move (unless
            :attr:`skip_non_moves`).
        :raises BrainProtocolError: a line that is not a move (unless
            :attr:`skip_non_moves`).
        :raises IllegalMove: a move off the board or on an occupied square.
        """
        position = [Point(*m) for m in moves]
        known = self._known
        if not position and not known:
            return self._move(position, Begin(), time_left_ms, timeout)
        if known is not None and known == position[:-1]:
            return self._move(position, Turn(*position[-1]), time_left_ms, timeout)
        return self.board(position, time_left_ms=time_left_ms, timeout=timeout)

    def begin(self, *, time_left_ms: int | None = None, timeout: float) -> MoveResult:
        """``BEGIN``: the brain plays the first move on an empty board."""
        return self._move([], Begin(), time_left_ms, timeout)

    def turn(self, moves: Sequence[tuple[int, int]], *, time_left_ms: int | None = None,
             timeout: float) -> MoveResult:
        """``TURN x,y`` with the last of ``moves``; the brain is assumed to know the others.

        Use it in a game the brain has followed; :meth:`play` picks the command itself.

        :raises ValueError: ``moves`` is empty.
        """
        if not moves:
            raise ValueError("turn() needs at least the opponent's move")
        position = [Point(*m) for m in moves]
        return self._move(position, Turn(*position[-1]), time_left_ms, timeout)

    def board(self, moves: Sequence[tuple[int, int]], *, time_left_ms: int | None = None,
              timeout: float) -> MoveResult:
        """``BOARD`` with all of ``moves`` (possibly none); field 1 is the side to move."""
        position = [Point(*m) for m in moves]
        me = len(position) % 2
        stones = tuple(Stone(x, y, Field.OWN if i % 2 == me else Field.OPPONENT)
                       for i, (x, y) in enumerate(position))
        return self._move(position, Board(stones), time_left_ms, timeout)

    def _move(self, position: list[Point], command: Command, time_left_ms: int | None,
              timeout: float) -> MoveResult:
        width, height = self._require_started("a move request")
        word = command_lines(command)[0].split()[0]
        prefix = [] if time_left_ms is None else [Info(InfoKey.TIME_LEFT, str(time_left_ms))]
        self._known = None  # unknown until the brain has answered
        during = f"thinking on {word} (move {len(position) + 1})"
        reply, line, sent = self._request([*prefix, command], timeout, during,
                                          refuse=not self.skip_non_moves)
        skipped: list[str] = []
        while self.skip_non_moves and not isinstance(reply, (MoveReply, SuggestReply)):
            skipped.append(line.text)
            reply, line = self._await_or_kill(sent, timeout, during)
        if isinstance(reply, SuggestReply):
            # Piskvork answers SUGGEST with PLAY of the same move; the window keeps running.
            self._write([Play(reply.x, reply.y)])
            reply, line = self._await_or_kill(sent, timeout, during)
        if not isinstance(reply, MoveReply):
            raise BrainProtocolError(self.name, line.text, f"expected a move 'x,y' while {during}")
        point = reply.point
        if not (0 <= point.x < width and 0 <= point.y < height):
            raise IllegalMove(self.name, point, f"off the {width}x{height} board")
        if point in position:
            raise IllegalMove(self.name, point, "the square is occupied")
        self._known = [*position, point]
        return MoveResult(point, (line.at - sent) * 1000.0, word, self._take_messages(),
                          tuple(skipped))
