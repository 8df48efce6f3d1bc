"""One refereed game between two brain processes.

:func:`play_game` starts both brains (``START``/``RECTSTART`` and the INFO settings),
places the opening, asks the side to move for each move with
:meth:`driver.client.BrainProcess.play` and adjudicates with
:func:`brain.game.referee.judge_move` (five by the rule, renju foul by black, full board, move
limit) plus the brain faults below. The result is a :class:`~brain.game.records.GameRecord`.

Time (GomocupJudge's bookkeeping): a brain may use ``min(timeout_turn, time_left)`` per
move, ``time_left = timeout_match - used``, plus the tolerance; ``used`` grows by each
move's measured wall time (from writing the move request to reading the reply). ``INFO
time_left`` is sent before every move when the game is timed (2147483647 otherwise).
The start-up and the ``START`` answer are not charged (they have their own handshake
timeout, as in Piskvork); a move that ends inside the tolerance is accepted, so
``time_left`` may go negative, and the next move then has only what remains of the
tolerance.

Faults, each a loss for the brain at fault, recorded with a :class:`Termination` and a
one-line detail: no move within the window (``timeout``), process exit (``crash``), a move
off the board or on a stone (``illegal move``), a line that is not a move (``bad reply``),
``ERROR``/``UNKNOWN`` instead of a move (``error reply``, a loss as in Piskvork), a start
failure (``start failed``) and, when enforced, a process tree over the memory limit after
its move (``memory limit``, checked after every move as Piskvork and GomocupJudge do).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from brain.game.board import Board, Color
from brain.game.openings import Opening
from brain.game.records import GameRecord, GameResult, Move
from brain.game.referee import Ending, judge_move
from brain.game.rules import Rule
from driver.client import (
    UNLIMITED_TIME_MS,
    BrainError,
    BrainProcess,
    BrainProtocolError,
    BrainRefused,
    BrainTimeout,
    IllegalMove,
)

__all__ = [
    "GameAborted",
    "GameSettings",
    "Player",
    "Termination",
    "TimeControl",
    "opening_board",
    "play_game",
]


class Termination(StrEnum):
    """How a game ended; the value starts the record's ``reason``."""

    FIVE = "five"
    FORBIDDEN = "forbidden"
    BOARD_FULL = "draw: board full"
    MOVE_LIMIT = "draw: move limit"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL = "illegal move"
    BAD_REPLY = "bad reply"
    REFUSED = "error reply"
    MEMORY = "memory limit"
    START_FAILED = "start failed"

    @property
    def is_fault(self) -> bool:
        """Whether a brain lost by failing rather than on the board."""
        return self not in (Termination.FIVE, Termination.FORBIDDEN, Termination.BOARD_FULL,
                            Termination.MOVE_LIMIT)


_ENDINGS = {
    Ending.FIVE: Termination.FIVE,
    Ending.FORBIDDEN: Termination.FORBIDDEN,
    Ending.BOARD_FULL: Termination.BOARD_FULL,
    Ending.MOVE_LIMIT: Termination.MOVE_LIMIT,
}


class GameAborted(Exception):
    """The game was stopped from outside (shutdown); it has no result and is not recorded."""


@dataclass(frozen=True)
class TimeControl:
    """Gomocup time limits in milliseconds.

    :ivar turn_ms: ``timeout_turn``, per move; 0 means "as fast as possible" (the window is
        then the tolerance alone).
    :ivar match_ms: ``timeout_match``, per game and brain; 0 means no game clock.
    :ivar tolerance_ms: added to every window (Piskvork and GomocupJudge: 1000).
    """

    turn_ms: int = 5000
    match_ms: int = 0
    tolerance_ms: int = 1000

    def __post_init__(self) -> None:
        for name in ("turn_ms", "match_ms", "tolerance_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"time control {name} must be >= 0, got {getattr(self, name)}")

    def time_left(self, used_ms: float) -> int:
        """The ``INFO time_left`` value after ``used_ms`` (may be negative)."""
        if self.match_ms == 0:
            return UNLIMITED_TIME_MS
        return int(self.match_ms - used_ms)

    def window_s(self, used_ms: float) -> float:
        """Seconds the next move may take: ``min(turn, left) + tolerance``, at least 0."""
        limit = float(self.turn_ms)
        if self.match_ms:
            limit = min(limit, self.match_ms - used_ms)
        return max(0.0, limit + self.tolerance_ms) / 1000.0

    def describe(self) -> str:
        """E.g. ``1000 ms/move, 20000 ms/game, tolerance 1000 ms``."""
        game = f"{self.match_ms} ms/game" if self.match_ms else "no game clock"
        return f"{self.turn_ms} ms/move, {game}, tolerance {self.tolerance_ms} ms"


@dataclass(frozen=True)
class GameSettings:
    """Everything about a game except the brains and the opening.

    :ivar max_memory: bytes sent as ``INFO max_memory`` (0: no limit).
    :ivar enforce_memory: check the brain's process-tree RSS against ``max_memory`` after
        each of its moves (Linux ``/proc``).
    :ivar move_limit: stones on the board after which the game is drawn; ``None`` takes the
        rule's Gomocup default (200 for renju, none otherwise).
    :ivar game_type: ``INFO game_type`` (2: tournament, as Piskvork sends locally).
    :ivar start_timeout_s: seconds a brain gets to answer ``START`` with ``OK``.
    :ivar suspend: freeze each brain (SIGSTOP) from its move until its next request, as
        GomocupJudge does, so that no brain thinks on its opponent's time (POSIX).
    :ivar merge_stderr: read each brain's stderr and stdout as one pipe, as Piskvork does:
        any line that is not a reply, MESSAGE or DEBUG (a log line, a traceback) is a bad
        reply (see :mod:`driver.client`).
    :ivar skip_non_moves: while waiting for a move, skip lines that are not one (ERROR,
        UNKNOWN, junk) as c-gomoku-cli does, instead of counting them as a loss as Piskvork
        does; each skipped line is kept in the move's event.
    """

    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    time: TimeControl = field(default_factory=TimeControl)
    max_memory: int = 0
    enforce_memory: bool = False
    move_limit: int | None = None
    game_type: int = 2
    start_timeout_s: float = 10.0
    suspend: bool = True
    merge_stderr: bool = False
    skip_non_moves: bool = False

    @property
    def draw_after(self) -> int | None:
        """The move limit in force (explicit, else the rule's)."""
        return self.move_limit if self.move_limit is not None else self.rule.move_limit


class Player(Protocol):
    """Where a game gets a brain process from, and gives it back to."""

    name: str
    info: tuple[tuple[str, str], ...]

    def acquire(self) -> BrainProcess:
        """A spawned brain (fresh, or reused from an earlier game)."""
        ...

    def release(self, brain: BrainProcess, healthy: bool) -> None:
        """The game is over; ``healthy`` is false after any fault of this brain."""
        ...


Observer = Callable[[str, dict[str, Any]], None]
"""Receives events: ``("move", {...})`` after every brain move."""


@dataclass
class _Seat:
    player: Player
    color: Color
    brain: BrainProcess | None = None
    used_ms: float = 0.0
    healthy: bool = True


class _Fault(Exception):
    def __init__(self, color: Color, termination: Termination, detail: str) -> None:
        super().__init__(detail)
        self.color = color
        self.termination = termination
        self.detail = detail


def _classify(error: BrainError) -> Termination:
    if isinstance(error, BrainTimeout):
        return Termination.TIMEOUT
    if isinstance(error, IllegalMove):
        return Termination.ILLEGAL
    if isinstance(error, BrainRefused):
        return Termination.REFUSED
    if isinstance(error, BrainProtocolError):
        return Termination.BAD_REPLY
    return Termination.CRASH  # BrainCrashed, and BrainClosed after an earlier kill


def play_game(
    black: Player,
    white: Player,
    opening: Opening,
    settings: GameSettings,
    *,
    tags: dict[str, str] | None = None,
    observer: Observer | None = None,
    stop: threading.Event | None = None,
) -> GameRecord:
    """Play one game; ``black`` moves first (the opening's first stone is black's).

    :param tags: copied into the record (the ``termination`` tag is added).
    :param observer: called after every brain move (from this thread).
    :param stop: when set, the game is abandoned at the next move or brain failure.
    :raises GameAborted: ``stop`` was set; the brains were released.
    :raises ValueError: the opening does not fit the board or already contains a five.
    """
    board = opening_board(opening, settings)
    seats = {Color.BLACK: _Seat(black, Color.BLACK), Color.WHITE: _Seat(white, Color.WHITE)}
    started_at = datetime.now(UTC)
    moves: list[Move] = [Move(x, y) for x, y in opening.moves]
    try:
        try:
            _start(seats, settings, stop)
            winner, termination, detail = _play(board, seats, moves, settings, observer, stop)
        except _Fault as fault:
            seats[fault.color].healthy = False
            winner, termination, detail = fault.color.opponent, fault.termination, fault.detail
    finally:
        _release(seats.values())
    result = {Color.BLACK: GameResult.BLACK_WIN, Color.WHITE: GameResult.WHITE_WIN,
              None: GameResult.DRAW}[winner]
    return GameRecord(
        width=settings.width,
        height=settings.height,
        rule=int(settings.rule),
        black=black.name,
        white=white.name,
        moves=tuple(moves),
        result=result,
        reason=f"{termination.value}: {detail}" if detail else termination.value,
        opening_length=len(opening.moves),
        started_at=started_at,
        ended_at=datetime.now(UTC),
        tags={**(tags or {}), "termination": termination.value},
    )


def opening_board(opening: Opening, settings: GameSettings) -> Board:
    """The board after ``opening``, checked to fit and not to end the game already.

    :raises ValueError: saying which opening is wrong and why.
    """
    if (opening.width, opening.height) != (settings.width, settings.height):
        raise ValueError(
            f"opening {opening.to_offsets()} is for a {opening.width}x{opening.height} board, "
            f"not {settings.width}x{settings.height}"
        )
    board = Board(settings.width, settings.height, settings.rule)
    for x, y in opening.moves:
        if judge_move(board, board.index(x, y), settings.draw_after) is not None:
            raise ValueError(f"opening {opening.to_offsets()} already ends the game under "
                             f"rule {int(settings.rule)}: remove it")
    return board


def _release(seats: Iterable[_Seat]) -> None:
    """Give both brains back at once (ending a process waits up to 0.5 s for its exit)."""
    helpers = []
    for seat in seats:
        if seat.brain is None:
            continue
        helper = threading.Thread(target=seat.player.release, args=(seat.brain, seat.healthy))
        helper.start()
        helpers.append(helper)
    for helper in helpers:
        helper.join()


def _check_stop(stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise GameAborted("the tournament is shutting down")


def _start(seats: dict[Color, _Seat], settings: GameSettings,
           stop: threading.Event | None) -> None:
    """Spawn both brains (they load in parallel), then START each; faults are losses."""
    for seat in seats.values():
        try:
            seat.brain = seat.player.acquire()
        except BrainError as error:
            raise _Fault(seat.color, Termination.START_FAILED, str(error)) from None
    for seat in seats.values():
        assert seat.brain is not None
        _check_stop(stop)
        try:
            seat.brain.start(
                settings.width,
                settings.height,
                rule=int(settings.rule),
                timeout_turn_ms=settings.time.turn_ms,
                timeout_match_ms=settings.time.match_ms,
                max_memory=settings.max_memory,
                game_type=settings.game_type,
                info=dict(seat.player.info),
                timeout=settings.start_timeout_s,
            )
        except BrainError as error:
            _check_stop(stop)
            raise _Fault(seat.color, Termination.START_FAILED, str(error)) from None
        if settings.suspend:
            seat.brain.suspend()


def _play(
    board: Board,
    seats: dict[Color, _Seat],
    moves: list[Move],
    settings: GameSettings,
    observer: Observer | None,
    stop: threading.Event | None,
) -> tuple[Color | None, Termination, str]:
    """The move loop; returns (winner or None, termination, detail)."""
    clock = settings.time
    while True:
        _check_stop(stop)
        seat = seats[board.to_move]
        brain = seat.brain
        assert brain is not None
        try:
            reply = brain.play(
                [m.point for m in moves],
                time_left_ms=clock.time_left(seat.used_ms),
                timeout=clock.window_s(seat.used_ms),
            )
        except BrainError as error:
            _check_stop(stop)
            raise _Fault(seat.color, _classify(error), str(error)) from None
        if settings.suspend:
            brain.suspend()
        seat.used_ms += reply.elapsed_ms
        x, y = reply.point
        moves.append(Move(x, y, round(reply.elapsed_ms)))
        verdict = judge_move(board, board.index(x, y), settings.draw_after)
        if observer is not None:
            observer("move", {"ply": len(moves), "color": seat.color.name.lower(),
                              "brain": seat.player.name, "x": x, "y": y,
                              "ms": round(reply.elapsed_ms, 1), "command": reply.command,
                              "messages": list(reply.messages),
                              **({"skipped": list(reply.skipped)} if reply.skipped else {})})
        if settings.enforce_memory and settings.max_memory:
            _check_memory(seat, brain, settings.max_memory)
        if verdict is not None:
            foul = verdict.foul.value if verdict.foul is not None else ""
            return verdict.winner, _ENDINGS[verdict.ending], foul


def _check_memory(seat: _Seat, brain: BrainProcess, limit: int) -> None:
    try:
        used = brain.memory_usage()
    except OSError as error:
        raise OSError(f"cannot measure memory ({error}); run without the memory limit") from None
    if used > limit:
        raise _Fault(seat.color, Termination.MEMORY,
                     f"{brain.name}: {used / 2**20:.0f} MiB in its process tree, limit "
                     f"{limit / 2**20:.0f} MiB")
