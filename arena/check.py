"""``arena check``: a protocol compliance test of one brain, as a table of checks.

Each check drives the brain the way a real manager does (see
``shared/docs/gomocup-protocol.md``, section 5) and ends as ``pass``, ``warn`` (optional
feature missing, or a quirk some manager would trip on) or ``fail`` (a real manager would
score losses or hang). A check that kills the brain (a timeout) does not spoil the next
ones: a fresh process is started when needed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from tabulate import tabulate

from arena.brainspec import BrainSpec
from driver.client import BrainError, BrainProcess, BrainTimeout
from protocol.commands import InfoKey
from protocol.replies import ErrorReply, MoveReply, OkReply, Reply, UnknownReply

__all__ = ["Check", "Outcome", "render_checks", "run_checks"]


class Outcome(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Check:
    """One line of the compliance table."""

    name: str
    outcome: Outcome
    detail: str


class _Subject:
    """The brain under test, respawned (and started on 15x15) whenever it died."""

    def __init__(self, spec: BrainSpec, turn_ms: int, tolerance_ms: int,
                 merge_stderr: bool) -> None:
        self.spec = spec
        self.merge_stderr = merge_stderr
        self.turn_ms = turn_ms
        self.window = (turn_ms + tolerance_ms) / 1000.0
        self.brain: BrainProcess | None = None

    def fresh(self) -> BrainProcess:
        if self.brain is not None:
            self.brain.close()
        self.brain = BrainProcess.spawn(self.spec.argv(), cwd=self.spec.cwd,
                                        merge_stderr=self.merge_stderr)
        return self.brain

    def started(self, size: int = 15) -> BrainProcess:
        brain = self.brain if self.brain is not None and self.brain.alive else self.fresh()
        brain.start(size, timeout_turn_ms=self.turn_ms, timeout_match_ms=0,
                    info=dict(self.spec.info), timeout=10.0)
        return brain

    def close(self) -> None:
        if self.brain is not None:
            self.brain.close()


def _move_check(name: str, subject: _Subject, act: Callable[[BrainProcess], MoveReply | None]
                ) -> Check:
    try:
        brain = subject.started()
        result = act(brain)
    except BrainError as exc:
        return Check(name, Outcome.FAIL, str(exc))
    return Check(name, Outcome.PASS, "" if result is None else f"played {result.x},{result.y}")


def _timed(brain: BrainProcess, subject: _Subject, moves: Sequence[tuple[int, int]],
           command: str) -> MoveReply:
    if command == "BEGIN":
        result = brain.begin(timeout=subject.window)
    elif command == "TURN":
        result = brain.turn(moves, timeout=subject.window)
    else:
        result = brain.board(moves, timeout=subject.window)
    if result.elapsed_ms > subject.turn_ms:
        raise BrainTimeout(brain.name, f"thinking on {command} (over timeout_turn, inside the "
                           "tolerance)", result.elapsed_ms / 1000, subject.turn_ms / 1000)
    return MoveReply(*result.point)


def _classify_answer(reply: Reply, good: tuple[type, ...], name: str, good_text: str,
                     warn: tuple[type, ...] = ()) -> Check:
    if isinstance(reply, good):
        return Check(name, Outcome.PASS, good_text)
    if isinstance(reply, warn):
        return Check(name, Outcome.WARN, f"answered {type(reply).__name__}")
    return Check(name, Outcome.FAIL, f"answered {reply!r}")


def run_checks(spec: BrainSpec, *, turn_ms: int = 1000, tolerance_ms: int = 1000,
               merge_stderr: bool = False) -> list[Check]:
    """Run every check on the brain ``spec``; see the module docstring. With
    ``merge_stderr`` the brain's stderr is read as replies, as Piskvork reads it."""
    subject = _Subject(spec, turn_ms, tolerance_ms, merge_stderr)
    checks: list[Check] = []
    try:
        checks.extend(_handshake_checks(subject))
        checks.extend(_move_checks(subject))
        checks.extend(_size_checks(subject))
        checks.extend(_bad_input_checks(subject))
        checks.extend(_optional_checks(subject))
        checks.extend(_exit_checks(subject))
    finally:
        subject.close()
    return checks


def _handshake_checks(subject: _Subject) -> list[Check]:
    checks = []
    brain = subject.fresh()
    try:
        about = brain.about(timeout=5.0)
        if about.fields.get("name"):
            checks.append(Check("ABOUT", Outcome.PASS, about.raw[:70]))
        else:
            checks.append(Check("ABOUT", Outcome.WARN, f"no name field: {about.raw[:60]!r}"))
    except BrainError as exc:
        checks.append(Check("ABOUT", Outcome.WARN, str(exc)))
    try:
        brain = brain if brain.alive else subject.fresh()
        took = brain.start(15, timeout=10.0)
        checks.append(Check("START 15", Outcome.PASS, f"OK in {took * 1000:.0f} ms"))
    except BrainError as exc:
        checks.append(Check("START 15", Outcome.FAIL, str(exc)))
    return checks


def _move_checks(subject: _Subject) -> list[Check]:
    checks = []

    def info_silent(brain: BrainProcess) -> MoveReply | None:
        brain.info(InfoKey.EVALUATE, "7,7")
        brain.info(InfoKey.FOLDER, "/tmp/arena check folder")
        time.sleep(0.3)
        move = _timed(brain, subject, [], "BEGIN")
        if brain.stale_lines:
            raise BrainError(brain.name, f"answered INFO with {brain.stale_lines[0]!r}")
        return move

    checks.append(_move_check("INFO is never answered", subject, info_silent))
    checks.append(_move_check("BEGIN", subject, lambda b: _timed(b, subject, [], "BEGIN")))

    def turn(brain: BrainProcess) -> MoveReply:
        first = _timed(brain, subject, [], "BEGIN")
        opponent = (0, 0) if first.point != (0, 0) else (14, 14)
        return _timed(brain, subject, [first.point, opponent], "TURN")

    checks.append(_move_check("TURN after BEGIN", subject, turn))
    checks.append(_move_check("TURN as first command", subject,
                              lambda b: _timed(b, subject, [(7, 7)], "TURN")))
    stones = [(7, 7), (8, 8), (7, 8)]
    checks.append(_move_check("BOARD with stones", subject,
                              lambda b: _timed(b, subject, stones, "BOARD")))
    checks.append(_move_check("BOARD empty", subject, lambda b: _timed(b, subject, [], "BOARD")))
    winning = [(3, 3), (3, 10), (4, 3), (4, 10), (5, 3), (5, 10), (6, 3), (6, 10)]

    def takes_five(brain: BrainProcess) -> MoveReply:
        move = _timed(brain, subject, winning, "BOARD")
        if move.point not in ((2, 3), (7, 3)):
            raise BrainError(brain.name, f"played {move.x},{move.y} instead of the five "
                                         "at 2,3 or 7,3")
        return move

    checks.append(_move_check("completes an open four", subject, takes_five))
    return checks


def _size_checks(subject: _Subject) -> list[Check]:
    checks = []
    try:
        brain = subject.started(20)
        move = brain.play([(10, 10)], timeout=subject.window)
        checks.append(Check("START 20 (mandatory size)", Outcome.PASS, f"played {move.point}"))
    except BrainError as exc:
        checks.append(Check("START 20 (mandatory size)", Outcome.FAIL, str(exc)))
    for lines, name in ((["RECTSTART 20,15"], "RECTSTART 20,15 (optional)"),
                        (["START 999"], "START 999 (unsupported)")):
        try:
            brain = subject.brain if subject.brain and subject.brain.alive else subject.fresh()
            reply, _ = brain.exchange(lines, 10.0)
        except BrainError as exc:
            checks.append(Check(name, Outcome.FAIL, str(exc)))
            continue
        if lines[0].startswith("RECTSTART"):
            checks.append(_classify_answer(reply, (OkReply, ErrorReply, UnknownReply), name,
                                           "OK" if isinstance(reply, OkReply) else
                                           "refused (fine: optional)"))
        else:
            checks.append(_classify_answer(reply, (ErrorReply,), name, "ERROR", (OkReply,)))
    return checks


def _bad_input_checks(subject: _Subject) -> list[Check]:
    checks = []
    cases = [
        (["FOOBAR 1 2"], "unknown command", (UnknownReply, ErrorReply), ()),
        (["TURN 99,99"], "TURN off the board", (ErrorReply,), (UnknownReply,)),
        (["TURN 7,7", "TURN 7,7"], "TURN on an occupied square", (ErrorReply,), ()),
    ]
    for lines, name, good, warn in cases:
        try:
            brain = subject.started()
            if len(lines) == 2:
                brain.exchange(lines[:1], subject.window)
                lines = lines[1:]
            reply, _ = brain.exchange(lines, subject.window)
        except BrainError as exc:
            checks.append(Check(name, Outcome.FAIL, str(exc)))
            continue
        checks.append(_classify_answer(reply, good, name, type(reply).__name__[:-5].upper(),
                                       warn))
    return checks


def _optional_checks(subject: _Subject) -> list[Check]:
    checks = []
    for name, act in (
        ("RESTART (optional)", lambda b: b.restart(timeout=5.0)),
        ("TAKEBACK (optional)", lambda b: b.takeback(*b.begin(timeout=subject.window).point,
                                                     timeout=5.0)),
    ):
        try:
            brain = subject.started()
            act(brain)
            checks.append(Check(name, Outcome.PASS, "OK"))
        except BrainError as exc:
            checks.append(Check(name, Outcome.WARN, str(exc)))
    return checks


def _exit_checks(subject: _Subject) -> list[Check]:
    checks = []
    try:
        exited_in = subject.started().close()
    except BrainError as exc:
        checks.append(Check("END", Outcome.FAIL, str(exc)))
    else:
        if exited_in is None:
            checks.append(Check("END", Outcome.FAIL, "still running 0.5 s after END (killed)"))
        else:
            checks.append(Check("END", Outcome.PASS, f"exited in {exited_in * 1000:.0f} ms"))
    if subject.fresh().close(2.0, end=False) is None:
        checks.append(Check("exits at end of input", Outcome.WARN, "still running 2 s after "
                            "stdin closed (a manager that dies would leave it behind)"))
    else:
        checks.append(Check("exits at end of input", Outcome.PASS, ""))
    return checks


def render_checks(checks: Sequence[Check]) -> str:
    """The table and a summary line."""
    table = tabulate([[c.name, c.outcome.value.upper(), c.detail] for c in checks],
                     headers=["Check", "Result", "Detail"], tablefmt="simple",
                     maxcolwidths=[None, None, 70])
    counts = {o: sum(c.outcome is o for c in checks) for o in Outcome}
    return (f"{table}\n\n{counts[Outcome.PASS]} passed, {counts[Outcome.WARN]} warnings, "
            f"{counts[Outcome.FAIL]} failed")
