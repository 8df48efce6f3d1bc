"""A game on the web board: a person and brains (or two brains) on one position.

:class:`LiveGame` keeps the position (a :class:`brain.game.board.Board` under the game's
rule), the seats (``human`` or a brain of the roster), the winrate history, the newest
search and the brains' processes. Brains are driven over the protocol only
(:class:`driver.client.BrainProcess`), each in its own process, all from one worker
thread so that requests never overlap; every line a brain writes while it thinks is
read at once (:attr:`BrainProcess.listener`) into the search's report
(:class:`arena.board.reports.SearchWatch`: our ``ANALYSIS`` lines, Yixin-Board's
``REALTIME`` lines, Rapfi's search lines), and its other messages are passed on.

Brains are asked for reports as a Yixin-Board manager asks: ``INFO show_detail 1`` to
every brain (a brain that does not know it ignores it, or answers ``ERROR``, which the
client forgives), and our ``INFO show_analysis`` only to a brain whose ABOUT answer lists
it (:func:`protocol.analysis.about_extensions`): Rapfi would read its value as a command.

Every change is published as an event (a JSON-compatible dict) through ``publish``,
which is called from any thread: ``state`` (the whole game), ``analysis`` (a search's
report), ``realtime`` (the analyst's move), ``message`` and ``error``. Methods are
thread-safe and never block on a brain; they raise :class:`BoardRequestError` for a
request the game cannot carry out (the message says why, and is shown to the person).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from arena.board.reports import Heard, SearchWatch
from arena.brainspec import BrainSpec
from arena.errors import ArenaError
from brain.game.board import MAX_SIZE, MIN_SIZE, Board, Color, IllegalMoveError
from brain.game.forbidden import forbidden_kind
from brain.game.referee import Ending, judge_move
from brain.game.rules import Rule, UnsupportedRuleError
from driver.client import (
    BrainError,
    BrainProcess,
    BrainProtocolError,
    BrainRefused,
    BrainTimeout,
)
from protocol.analysis import SHOW_ANALYSIS_KEY, SHOW_DETAIL_KEY, about_extensions

__all__ = ["HUMAN", "BoardRequestError", "LiveGame", "Setup"]

#: The seat value of a person.
HUMAN = "human"
#: Milliseconds between a brain's ANALYSIS reports on the board.
REPORT_PERIOD_MS = 250
#: Extra seconds a brain's move may take beyond the time per move before it loses.
TOLERANCE_S = 3.0
#: Seconds a brain gets to answer ABOUT and START (it may be loading a network).
START_TIMEOUT_S = 15.0
#: Least seconds between a brain's reply and the next request to it: Rapfi writes its
#: move before its search has finished and drops a command that arrives in between.
REPLY_PAUSE_S = 0.03

Publish = Callable[[dict[str, Any]], None]


class BoardRequestError(ArenaError, ValueError):
    """A request the game cannot carry out now (not your turn, an occupied square...)."""


@dataclass(frozen=True)
class Setup:
    """A new game's settings.

    :ivar black: ``"human"`` or the index of a brain in the roster (as a string).
    :ivar moves: stones already on the board, in play order (black first).
    """

    width: int = 15
    height: int = 15
    rule: int = 0
    turn_ms: int = 2000
    black: str = HUMAN
    white: str = "0"
    moves: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_json(cls, data: dict[str, Any], brains: int) -> Setup:
        """The setup the page sent; raises :class:`BoardRequestError` for bad values."""
        try:
            setup = cls(
                width=int(data.get("width", 15)), height=int(data.get("height", 15)),
                rule=int(data.get("rule", 0)), turn_ms=int(data.get("turn_ms", 2000)),
                black=str(data.get("black", HUMAN)), white=str(data.get("white", "0")),
                moves=tuple((int(m[0]), int(m[1])) for m in data.get("moves", ())),
            )
            Rule.from_gomocup(setup.rule)
        except (TypeError, ValueError, IndexError, UnsupportedRuleError) as exc:
            raise BoardRequestError(f"bad game settings: {exc}") from None
        for side in (setup.black, setup.white):
            if side != HUMAN and not (side.isdigit() and int(side) < brains):
                raise BoardRequestError(f"no brain {side!r}: choose human or a brain listed")
        for value in (setup.width, setup.height):
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise BoardRequestError(f"board size {value}: choose {MIN_SIZE} to {MAX_SIZE}")
        if not 100 <= setup.turn_ms <= 600_000:
            raise BoardRequestError("time per move: choose 100 ms to 600 s")
        return setup


@dataclass
class _Seat:
    """Who plays a colour (or analyses: the ``analyst`` seat), and its process.

    :ivar extensions: the INFO extension keys its ABOUT answer lists.
    :ivar replied_at: when its process last answered (``time.monotonic()``).
    :ivar silent: whether none of its searches so far reported anything the board reads
        (``None``: it has not searched yet); ``said``: its last search's newest other
        message.
    """

    role: str
    brain: int | None = None
    process: BrainProcess | None = None
    started: tuple[int, int, int, int] | None = None  # width, height, rule, turn_ms
    extensions: frozenset[str] = frozenset()
    replied_at: float = 0.0
    silent: bool | None = None
    said: str = ""


@dataclass
class _Result:
    winner: Color | None
    text: str
    #: How it ended: an :class:`~brain.game.referee.Ending` value (``five``...) or
    #: ``fault`` (a brain's illegal move, crash or timeout).
    ending: str = "fault"


@dataclass
class _Game:
    setup: Setup
    board: Board
    #: Games started on this board so far, this one included (the page's game id).
    number: int = 0
    moves: list[tuple[int, int]] = field(default_factory=list)
    result: _Result | None = None
    #: Black's winrate by ply (the number of stones when the brain thought).
    winrates: dict[int, float] = field(default_factory=dict)
    #: The newest search of a colour's brain in this game, as the page shows it:
    #: ``seat``, ``brain``, ``ply``, ``report`` (or None), and once it has played ``ms``,
    #: ``move`` and ``reported`` (whether this search reported anything the board reads);
    #: ``silent`` and ``said``: the seat's (see :class:`_Seat`).
    search: dict[str, Any] | None = None


class LiveGame:
    """The board's one game (see the module docstring)."""

    def __init__(self, roster: Sequence[BrainSpec], names: Sequence[str],
                 publish: Publish) -> None:
        self.roster = list(roster)
        self.names = list(names)
        self._publish = publish
        self._lock = threading.RLock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="board-brains")
        self._seats = {"black": _Seat("black"), "white": _Seat("white"),
                       "analyst": _Seat("analyst")}
        #: Which seat is thinking (None: none), and the game generation it thinks for.
        self._thinking: str | None = None
        self._epoch = 0
        #: The search each seat's brain is on now; its lines go there (None: dropped).
        self._watches: dict[str, SearchWatch | None] = {}
        self._games = 1
        self._game = self._fresh(Setup(black=HUMAN, white="0" if self.roster else HUMAN))
        self._apply_seats(self._game.setup)

    # -- requests ----------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The whole game as the page draws it."""
        with self._lock:
            game = self._game
            setup = game.setup
            board = game.board
            forbidden: list[list[int]] = []
            if game.result is None and board.rule.has_forbidden_moves \
                    and board.to_move is Color.BLACK:
                forbidden = [list(board.xy(int(c))) for c in board.empty_cells()
                             if forbidden_kind(board, int(c)) is not None]
            result = None if game.result is None else {
                "winner": None if game.result.winner is None else game.result.winner.name.lower(),
                "text": game.result.text, "ending": game.result.ending}
            return {
                "type": "state", "game": game.number, "width": setup.width,
                "height": setup.height, "rule": setup.rule, "turn_ms": setup.turn_ms,
                "moves": [list(m) for m in game.moves],
                "to_move": board.to_move.name.lower(),
                "seats": {"black": setup.black, "white": setup.white},
                "brains": self.names, "thinking": self._thinking, "result": result,
                "forbidden": forbidden,
                "winrates": sorted([ply, rate] for ply, rate in game.winrates.items()),
                "search": game.search,
            }

    def new_game(self, setup: Setup) -> None:
        """Start ``setup``'s game (a thinking brain is stopped first)."""
        game = self._fresh(setup)
        with self._lock:
            self._games += 1
            game.number = self._games
            self._epoch += 1
            self._interrupt()
            self._game = game
            self._apply_seats(setup)
            for seat in self._seats.values():
                seat.started = None  # START again: a new game for the brains too
        self._changed()

    def play(self, x: int, y: int) -> None:
        """The person's move on ``(x, y)``.

        :raises BoardRequestError: the game is over, a brain is to move or thinking, the
            square is off the board or taken, or it is a renju foul for black.
        """
        with self._lock:
            game = self._game
            colour = game.board.to_move.name.lower()
            if game.result is not None:
                raise BoardRequestError("the game is over: start a new game or undo")
            if self._thinking is not None or self._seat_of(colour) != HUMAN:
                brain = self.names[int(self._seat_of(colour))] \
                    if self._seat_of(colour) != HUMAN else "the analysing brain"
                raise BoardRequestError(f"not your turn: {brain} is to move")
            self._place(x, y, refuse_foul=True)
        self._changed()

    def undo(self) -> None:
        """Take back the last move, and the brain's answer before it when a person plays
        against a brain, so that it is the person's turn again (TAKEBACK to the brains)."""
        with self._lock:
            game = self._game
            if self._thinking is not None:
                self._epoch += 1
                self._interrupt()
            if not game.moves:
                raise BoardRequestError("nothing to undo")
            humans = {c for c in ("black", "white") if self._seat_of(c) == HUMAN}
            taken = [self._take_last()]
            while game.moves and humans and game.board.to_move.name.lower() not in humans:
                taken.append(self._take_last())
            if game.search is not None and game.search["ply"] >= len(game.moves):
                game.search = None  # a search of a position no longer on the board
            self._epoch += 1
            epoch = self._epoch
        self._worker.submit(self._takeback, taken, epoch)
        self._changed()

    def swap(self) -> None:
        """Exchange the seats (a person playing black now plays white, and so on)."""
        with self._lock:
            setup = self._game.setup
            self._game.setup = Setup(setup.width, setup.height, setup.rule, setup.turn_ms,
                                     black=setup.white, white=setup.black, moves=setup.moves)
            self._epoch += 1
            self._interrupt()
            self._apply_seats(self._game.setup)
        self._changed()

    def analyse(self, brain: int, moves: Sequence[tuple[int, int]], width: int, height: int,
                rule: int, turn_ms: int) -> None:
        """Let ``brain`` think ``turn_ms`` on a position (the viewer's analysis); its
        reports come as ``analysis`` events of the ``analyst`` seat, its move as a
        ``realtime`` ``MOVE`` event. Nothing is played."""
        if not 0 <= brain < len(self.roster):
            raise BoardRequestError(f"no brain {brain}")
        position = list(moves)
        probe = Board(width, height, Rule.from_gomocup(rule))
        try:
            for x, y in position:
                probe.play(probe.index(x, y))
        except IllegalMoveError as exc:
            raise BoardRequestError(f"bad position: {exc}") from None
        with self._lock:
            if self._thinking is not None:
                raise BoardRequestError("a brain is thinking: wait for its move")
            seat = self._seats["analyst"]
            if seat.brain != brain:
                self._close(seat)
                seat.brain = brain
            self._thinking = "analyst"
            self._watches["analyst"] = SearchWatch(width, height)
            epoch = self._epoch
        self._changed()
        self._worker.submit(self._think, "analyst", position, (width, height, rule, turn_ms),
                            epoch)

    def close(self) -> None:
        """End every brain process."""
        with self._lock:
            self._epoch += 1
            self._watches.clear()
            for seat in self._seats.values():
                self._close(seat)
        self._worker.shutdown(wait=False, cancel_futures=True)

    # -- the game ----------------------------------------------------------------------

    def _fresh(self, setup: Setup) -> _Game:
        board = Board(setup.width, setup.height, Rule.from_gomocup(setup.rule))
        game = _Game(setup, board)
        for x, y in setup.moves:
            try:
                verdict = judge_move(board, board.index(x, y), board.rule.move_limit)
            except IllegalMoveError as exc:
                raise BoardRequestError(f"bad starting position: {exc}") from None
            game.moves.append((x, y))
            if verdict is not None:
                game.result = _Result(verdict.winner, verdict.describe(),
                                      verdict.ending.value)
        return game

    def _seat_of(self, colour: str) -> str:
        setup = self._game.setup
        return setup.black if colour == "black" else setup.white

    def _apply_seats(self, setup: Setup) -> None:
        """Point the colour seats at their brains (a process of another brain is ended)."""
        for colour, side in (("black", setup.black), ("white", setup.white)):
            seat = self._seats[colour]
            wanted = None if side == HUMAN else int(side)
            if seat.brain != wanted:
                self._close(seat)
                seat.brain, seat.silent, seat.said = wanted, None, ""

    def _place(self, x: int, y: int, *, refuse_foul: bool) -> None:
        """Play the side to move's stone (lock held) and judge it."""
        game = self._game
        board = game.board
        try:
            cell = board.index(x, y)
        except IllegalMoveError as exc:
            raise BoardRequestError(str(exc)) from None
        if not board.is_empty(cell):
            raise BoardRequestError(f"{x},{y} is taken")
        if refuse_foul and board.to_move is Color.BLACK:
            foul = forbidden_kind(board, cell)
            if foul is not None:
                raise BoardRequestError(f"{x},{y} is forbidden for black ({foul.value})")
        verdict = judge_move(board, cell, board.rule.move_limit)
        game.moves.append((x, y))
        if verdict is not None:
            text = verdict.describe()
            if verdict.ending is Ending.FORBIDDEN:
                text += f" at {x},{y}"
            game.result = _Result(verdict.winner, text, verdict.ending.value)

    def _take_last(self) -> tuple[int, int]:
        game = self._game
        game.board.undo()
        point = game.moves.pop()
        game.result = None
        game.winrates.pop(len(game.moves), None)
        return point

    def _changed(self) -> None:
        """Let a brain to move think, and publish the state."""
        with self._lock:
            game = self._game
            colour = game.board.to_move.name.lower()
            think = (game.result is None and self._thinking is None
                     and self._seat_of(colour) != HUMAN and not game.board.is_full())
            if think:
                self._thinking = colour
                epoch = self._epoch
                setup = game.setup
                seat = self._seats[colour]
                self._watches[colour] = SearchWatch(setup.width, setup.height)
                game.search = {"seat": colour, "brain": self.names[seat.brain or 0],
                               "ply": len(game.moves), "report": None,
                               "silent": seat.silent, "said": seat.said}
                self._worker.submit(self._think, colour, list(game.moves),
                                    (setup.width, setup.height, setup.rule, setup.turn_ms),
                                    epoch)
            self._publish(self.state())  # under the lock: states go out in order

    def _interrupt(self) -> None:
        """Stop a thinking brain (lock held): its process is ended (from another thread:
        its reader may be waiting for this lock), a new one starts at its next move (the
        protocol has no portable way to cancel a move); its lines are dropped from now."""
        if self._thinking is not None:
            seat = self._seats[self._thinking]
            self._watches[self._thinking] = None
            if seat.process is not None:
                process, seat.process, seat.started = seat.process, None, None
                threading.Thread(target=process.kill, daemon=True).start()
            self._thinking = None

    # -- brains (worker thread) ----------------------------------------------------------

    def _process(self, seat: _Seat, settings: tuple[int, int, int, int]) -> BrainProcess:
        """The seat's brain, spawned and started for ``settings`` if not yet (a process
        taken from the seat meanwhile, by a new game, fails its next request)."""
        process = seat.process
        if process is not None and not process.alive:
            process = seat.process = seat.started = None
        if process is None:
            assert seat.brain is not None
            spec = self.roster[seat.brain]
            process = BrainProcess.spawn(spec.argv(), cwd=spec.cwd, name=self.names[seat.brain])
            seat.process = process
            process.listener = self._listener(seat.role, process)
            seat.extensions = self._extensions(process)
            seat.replied_at = time.monotonic()
        if seat.started != settings:
            width, height, rule, turn_ms = settings
            info = {SHOW_DETAIL_KEY: "1"}
            if SHOW_ANALYSIS_KEY in seat.extensions:
                info[SHOW_ANALYSIS_KEY] = str(REPORT_PERIOD_MS)
            assert seat.brain is not None
            info.update(dict(self.roster[seat.brain].info))
            self._pause(seat)
            process.start(width, height, rule=rule, timeout_turn_ms=turn_ms,
                          timeout_match_ms=0, info=info, timeout=START_TIMEOUT_S)
            seat.replied_at = time.monotonic()
            seat.started = settings
        return process

    @staticmethod
    def _extensions(process: BrainProcess) -> frozenset[str]:
        """The INFO extension keys a brain lists in its ABOUT answer (none when it gives
        no such answer in time: it keeps running, the late answer is skipped)."""
        try:
            return about_extensions(process.about(timeout=START_TIMEOUT_S).fields)
        except (BrainTimeout, BrainRefused, BrainProtocolError):
            return frozenset()

    @staticmethod
    def _pause(seat: _Seat) -> None:
        time.sleep(max(0.0, seat.replied_at + REPLY_PAUSE_S - time.monotonic()))

    def _think(self, role: str, moves: list[tuple[int, int]],
               settings: tuple[int, int, int, int], epoch: int) -> None:
        seat = self._seats[role]
        try:
            process = self._process(seat, settings)
            refused = len(process.refused_infos)
            self._pause(seat)
            with self._lock:
                watch = self._watches.get(role)
                if watch is not None:
                    watch.started = time.monotonic()  # the move's time starts now
            reply = process.play(moves, timeout=settings[3] / 1000 + TOLERANCE_S)
            seat.replied_at = time.monotonic()
        except BrainError as exc:
            self._brain_failed(role, epoch, exc)
            return
        except Exception as exc:  # a bug must not leave the board waiting forever
            self._brain_failed(role, epoch, exc)
            return
        with self._lock:
            if epoch != self._epoch:
                return  # the game changed while it thought
            self._thinking = None
            for line in process.refused_infos[refused:]:
                self._publish({"type": "message", "seat": role,
                               "text": f"{line} (its answer to an INFO key it does not "
                                       "know; ignored)"})
            watch = self._watches.pop(role, None)
            report = None if watch is None else watch.report(done=True)
            ply = len(self._game.moves)
            if report is not None:
                self._publish({"type": "analysis", "seat": role, "ply": ply,
                               "game": self._game.number, "report": report})
            if role == "analyst":
                self._publish({"type": "realtime", "seat": role, "kind": "MOVE",
                               "x": reply.point.x, "y": reply.point.y,
                               "said": "" if watch is None else watch.said})
                self._publish(self.state())
                return
            seat.silent = report is None and seat.silent is not False
            seat.said = "" if watch is None else watch.said
            self._game.search = {
                "seat": role, "brain": self.names[seat.brain or 0], "ply": ply,
                "report": report, "ms": round(reply.elapsed_ms), "move": [*reply.point],
                "reported": report is not None, "silent": seat.silent, "said": seat.said}
            if report is not None and report["winrate"] is not None:
                rate = report["winrate"]
                self._game.winrates[ply] = rate if role == "black" else 1.0 - rate
            try:
                self._place(reply.point.x, reply.point.y, refuse_foul=False)
            except BoardRequestError as exc:
                self._game.result = _Result(Color.WHITE if role == "black" else Color.BLACK,
                                            f"{self.names[seat.brain or 0]} played an "
                                            f"illegal move: {exc}")
        self._changed()

    def _brain_failed(self, role: str, epoch: int, error: Exception) -> None:
        with self._lock:
            if epoch != self._epoch:
                return  # killed on purpose (new game, undo, swap)
            self._thinking = None
            self._watches.pop(role, None)
            seat = self._seats[role]
            self._close(seat)
            if role != "analyst":
                loser = Color.BLACK if role == "black" else Color.WHITE
                self._game.result = _Result(loser.opponent, f"{role} lost: {error}")
            self._publish({"type": "error", "text": str(error)})
            self._publish(self.state())

    def _takeback(self, taken: list[tuple[int, int]], epoch: int) -> None:
        """Tell the colour seats' brains about an undo (TAKEBACK; a brain that does not
        know it gets the whole BOARD at its next move anyway)."""
        for role in ("black", "white"):
            process = self._seats[role].process
            if process is None or not process.alive:
                continue
            for x, y in taken:
                if epoch != self._epoch:
                    return
                with contextlib.suppress(BrainError):
                    process.takeback(x, y)

    def _listener(self, role: str, process: BrainProcess) -> Callable[[str], None]:
        """Reads a brain's lines into its search's report and passes its messages on, as
        they arrive (lines of a process no longer in its seat are dropped)."""

        def hear(line: str) -> None:
            with self._lock:
                seat = self._seats[role]
                watch = self._watches.get(role)
                if seat.process is not process:
                    return
                if watch is None:  # between two searches: only messages
                    watch = SearchWatch(self._game.setup.width, self._game.setup.height)
                try:
                    heard, text = watch.hear(line)
                except ValueError as exc:
                    heard, text = Heard.MESSAGE, str(exc)
                if heard is Heard.MESSAGE:
                    self._publish({"type": "message", "seat": role, "text": text})
                elif heard is Heard.REPORT and watch is self._watches.get(role):
                    self._reported(role, watch)

        return hear

    def _reported(self, role: str, watch: SearchWatch) -> None:
        """Publish a search's report after a line changed it (lock held)."""
        game = self._game
        report = watch.report()
        ply = len(game.moves)
        if role != "analyst" and game.search is not None and game.search["ply"] == ply:
            game.search["report"] = report
        self._publish({"type": "analysis", "seat": role, "ply": ply, "game": game.number,
                       "report": report})

    @staticmethod
    def _close(seat: _Seat) -> None:
        if seat.process is not None:
            process = seat.process
            seat.process, seat.started = None, None
            threading.Thread(target=process.close, daemon=True).start()
