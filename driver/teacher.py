"""A teacher: any Gomocup brain, run as a subprocess and asked for its move in positions,
with its judgement of them (:mod:`driver.judgement`). The teacher pipeline
(:mod:`brain.train.teach`) labels training positions with it, ``arena openings``
(:mod:`arena.balance`) judges openings.

:class:`Teacher` keeps one brain process for many positions: ``START`` once per board
shape and rule, then one ``BOARD`` request per position (:meth:`Teacher.ask`). With
``multipv`` above 1 it asks Yixin-Board's ``YXBOARD`` ... ``YXNBEST n`` instead, which
Rapfi answers with a search of the ``n`` best moves and one scored line per move.

Every game starts with the INFO lines of :data:`REPORT_INFO`, Yixin-Board keys that
Rapfi knows and other brains ignore: one search thread (the teacher runs beside training
on a shared machine) and the ``REALTIME`` reports. More keys come from the config; send
only keys the teacher knows: Rapfi reads the value of an unknown key as the next command
and answers it ``ERROR``. pbrain-zero gives its winrate and scored moves with
``show_analysis`` (:data:`ANALYSIS_INFO`).

**Pause between requests.** Rapfi writes its move before it marks its search finished,
and drops any command that arrives in between (``BOARD`` is then lost and its stone lines
are answered ``ERROR Unknown command``). A short pause after every reply
(``pause_ms``, 20 ms by default) avoids that; a request that still fails (an error reply,
a timeout, a crash) is retried once on a fresh process before :class:`TeacherError`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from driver.client import BrainError, BrainProcess, BrainProtocolError
from driver.errors import DriverError
from driver.judgement import RAPFI_SCALE, Judgement, read_judgement
from protocol.commands import Board, Field, InfoKey, Stone, command_lines
from protocol.replies import MoveReply
from protocol.syntax import Point

__all__ = ["ANALYSIS_INFO", "REPORT_INFO", "Label", "Teacher", "TeacherConfig", "TeacherError"]

#: INFO keys sent at every START: one thread, Yixin-Board REALTIME lines.
REPORT_INFO: tuple[tuple[str, str], ...] = (("thread_num", "1"), ("show_detail", "1"))
#: pbrain-zero's report of a search: one ANALYSIS line per search (the period is longer
#: than any search, so only the final report comes).
ANALYSIS_INFO = ("show_analysis", "3600000")


class TeacherError(DriverError, RuntimeError):
    """The teacher failed on a position twice in a row (the message says how)."""


@dataclass(frozen=True)
class TeacherConfig:
    """How the teacher is run.

    :ivar command: the brain's command line (argument list).
    :ivar move_ms: ``INFO timeout_turn`` of a labelling search.
    :ivar multipv: moves to score per position; above 1 needs Yixin-Board's ``YXNBEST``.
    :ivar info: extra ``INFO key value`` pairs sent at every START (after
        :data:`REPORT_INFO`, so they may override it).
    :ivar pause_ms: least time between a reply and the next request.
    :ivar eval_scale: Rapfi's ``scaling_factor`` (value to winrate).
    :ivar cwd: the brain's working directory (default: ours).
    """

    command: tuple[str, ...]
    move_ms: int = 200
    multipv: int = 1
    info: tuple[tuple[str, str], ...] = ()
    pause_ms: int = 20
    eval_scale: float = RAPFI_SCALE
    cwd: str | None = None


@dataclass(frozen=True)
class Label:
    """The teacher's answer in one position: its move, its judgement and the time it
    took (ms, from the request to the reply)."""

    move: Point
    judgement: Judgement
    ms: float


class Teacher:
    """One teacher process, started on first use and restarted after a failure."""

    def __init__(self, config: TeacherConfig, stderr_path: Path | None = None) -> None:
        if not config.command:
            raise ValueError("the teacher needs a command line")
        if config.multipv < 1:
            raise ValueError(f"multipv must be at least 1, not {config.multipv}")
        self.config = config
        self._stderr_path = stderr_path
        self._brain: BrainProcess | None = None
        self._game: tuple[int, int, int] | None = None
        self._turn_ms = 0
        self._replied = 0.0
        #: The brain's ABOUT answer (raw text), once it started.
        self.about = ""
        #: Processes started (the first, then one per failure).
        self.starts = 0

    def __enter__(self) -> Teacher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running brain's process id, ``None`` when none runs."""
        return None if self._brain is None else self._brain.pid

    def close(self) -> None:
        """End the brain (``END``, then its process tree is killed)."""
        if self._brain is not None:
            self._brain.close()
        self._brain = None
        self._game = None

    def ask(self, moves: Sequence[Point], width: int, height: int, rule: int,
            move_ms: int | None = None) -> Label:
        """The teacher's move and judgement after ``moves`` (black first) on a ``width``
        x ``height`` board under Gomocup rule ``rule``, searched for ``move_ms`` (default:
        the config's).

        :raises TeacherError: the request failed twice (each time on a fresh process
            after the first failure).
        """
        failure: BrainError | None = None
        for _ in range(2):
            try:
                return self._ask(moves, width, height, rule, move_ms or self.config.move_ms)
            except BrainError as exc:
                failure = exc
                self.close()
        raise TeacherError(f"the teacher {' '.join(self.config.command)!r} failed twice on "
                           f"a position of {len(moves)} stones: {failure}")

    def _start(self, width: int, height: int, rule: int) -> BrainProcess:
        brain = self._brain
        if brain is None:
            brain = self._brain = BrainProcess.spawn(
                self.config.command, cwd=self.config.cwd, stderr_path=self._stderr_path)
            self.starts += 1
            self.about = brain.about(timeout=10.0).raw
            self._game = None
        if self._game != (width, height, rule):
            self._pause()
            brain.start(width, height, rule=rule, timeout_turn_ms=self.config.move_ms,
                        timeout_match_ms=0,
                        info=dict(REPORT_INFO + self.config.info))
            self._game = (width, height, rule)
            self._turn_ms = self.config.move_ms
        return brain

    def _pause(self) -> None:
        wait = self._replied + self.config.pause_ms / 1000 - time.monotonic()
        if wait > 0:
            time.sleep(wait)

    def _ask(self, moves: Sequence[Point], width: int, height: int, rule: int,
             move_ms: int) -> Label:
        brain = self._start(width, height, rule)
        if move_ms != self._turn_ms:
            brain.info(InfoKey.TIMEOUT_TURN, move_ms)
            self._turn_ms = move_ms
        self._pause()
        timeout = 2 * move_ms / 1000 + 10.0
        try:
            if self.config.multipv > 1:
                point, ms, messages = self._nbest(brain, moves, width, height, timeout)
            else:
                result = brain.play(moves, timeout=timeout)
                point, ms, messages = result.point, result.elapsed_ms, result.messages
        finally:
            self._replied = time.monotonic()
        return Label(point, read_judgement(messages, width, height, self.config.eval_scale),
                     ms)

    def _nbest(self, brain: BrainProcess, moves: Sequence[Point], width: int, height: int,
               timeout: float) -> tuple[Point, float, tuple[str, ...]]:
        """``YXBOARD`` with the stones (field 1: the side to move), ``YXNBEST n``."""
        own = len(moves) % 2
        stones = tuple(Stone(x, y, Field.OWN if i % 2 == own else Field.OPPONENT)
                       for i, (x, y) in enumerate(moves))
        lines = command_lines(Board(stones))
        lines = ["YX" + lines[0], *lines[1:], f"YXNBEST {self.config.multipv}"]
        heard: list[str] = []
        brain.listener = heard.append
        try:
            reply, seconds = brain.exchange(lines, timeout)
        finally:
            brain.listener = None
        if not isinstance(reply, MoveReply):
            raise BrainProtocolError(brain.name, str(reply), "expected a move after YXNBEST "
                                     "(a brain without Yixin-Board's multi-PV needs "
                                     "multipv 1)")
        point = reply.point
        if not (0 <= point.x < width and 0 <= point.y < height) or point in moves:
            raise BrainProtocolError(brain.name, str(point),
                                     "the YXNBEST move is off the board or on a stone")
        return point, seconds * 1000.0, tuple(line for line in heard
                                              if line.startswith("MESSAGE"))
