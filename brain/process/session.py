"""One brain's game state and its answers to manager commands.

:class:`Session` turns parsed commands into reply lines. It owns the board, the rule, the
time settings and the engine, and runs each search in a worker thread watched by a hard
deadline, so a reply is written in time even if the engine overruns. Threads that read
stdin live in :mod:`brain.process.loop`; this module only needs an output function.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from brain import __version__
from brain.errors import PbrainError
from brain.eval.heuristic import choose_move as quick_move
from brain.game.board import (
    MAX_SIZE,
    MIN_SIZE,
    Board,
    Color,
    IllegalMoveError,
    prepare_tables,
)
from brain.game.forbidden import is_forbidden
from brain.game.rules import Rule, UnsupportedRuleError
from brain.process.analysis import SearchReporter, announced_keys
from brain.process.memory import resident_bytes
from brain.search.searcher import Searcher
from brain.search.timecontrol import MoveBudget, TimeSettings, plan_move
from protocol import commands as cmd
from protocol import replies
from protocol.analysis import EXTENSIONS_KEY
from protocol.commands import UNLIMITED_TIME_MS, InfoKey

log = logging.getLogger("brain")

#: Extra seconds counted against the first move for interpreter start-up before our clock.
INTERPRETER_STARTUP_S = 0.15


class CommandRefused(PbrainError):
    """A known command that cannot be carried out; the reason goes into ``ERROR``."""


@dataclass
class SearchState:
    """What the reader thread may touch while a search runs."""

    stop: threading.Event = field(default_factory=threading.Event)


#: Who ABOUT names as the author unless told otherwise (``--author``).
DEFAULT_AUTHOR = "pbrain-zero team"


class Session:
    """Answers manager commands for one brain process.

    ``write`` receives each reply line without a terminator. ``process_started`` is the
    ``time.monotonic()`` of process start: the first move's budget is charged for the
    time since then, because managers count start-up inside the first move's window.
    ``author`` and ``country`` go into the ABOUT reply; without a country the key is left
    out rather than guessed.
    """

    def __init__(self, engine: Searcher, write: Callable[[str], None],
                 process_started: float | None = None, author: str = DEFAULT_AUTHOR,
                 country: str | None = None) -> None:
        self.engine = engine
        self._write = write
        self.rule = Rule.FREESTYLE
        self.settings = TimeSettings()
        self.board: Board | None = None
        self._size: tuple[int, int] | None = None
        self.search = SearchState()
        #: Set by the reader when END arrives: what came before it is still answered,
        #: in order, but without new thinking (a move request gets the one-ply choice,
        #: a running search stops and gives its move).
        self.ending = False
        #: Set when the session reaches END itself: from then on nothing is written.
        self._closed = False
        self._started = time.monotonic() if process_started is None else process_started
        self._first_move = True
        self._stop_requested_at = float("-inf")
        self._pending_error: str | None = None
        #: What the last ``INFO max_memory`` costs the search (:meth:`Searcher.limit_memory`),
        #: to state at the next move request; None: nothing to state.
        self._memory_cost: str | None = None
        #: The limit last stated: a manager that sends the same limit for every game
        #: (c-gomoku-cli) hears about it once.
        self._memory_stated: int | None = None
        self._worker: threading.Thread | None = None
        #: Whether the last move came from the engine (not the fallback), so its summary
        #: describes that move.
        self._searched = False
        self._about = {"name": engine.name, "version": __version__, "author": author}
        #: The search reports a manager asked for (INFO show_detail / show_analysis).
        self.reports = SearchReporter(self.write)
        if country:
            self._about["country"] = country
        if announced_keys(engine):  # managers send our INFO extensions only when listed
            self._about[EXTENSIONS_KEY] = announced_keys(engine)

    def write(self, line: str) -> None:
        """Send one reply line, unless the session has reached END (:meth:`close`)."""
        if not self._closed:
            self._write(line)

    def close(self) -> None:
        """END reached: every command before it has been answered; write nothing more
        (a worker thread's late log line included)."""
        self._closed = True

    def stop_search(self, requested_at: float) -> None:
        """Stop thinking now (YXSTOP, END, ``INFO timeout_turn 0``), called from the reader.

        The request also applies to a search that has not started yet for a command read
        before ``requested_at``: the reader may see YXSTOP before the TURN it follows is
        handled, and that TURN is then answered at once.
        """
        self._stop_requested_at = requested_at
        self.search.stop.set()

    # -- dispatch ----------------------------------------------------------------------

    def handle(self, command: cmd.Command, received_at: float) -> None:
        """Carry out one command; anything it cannot do is answered with ``ERROR``."""
        try:
            self._dispatch(command, received_at)
        except CommandRefused as refused:
            self.write(replies.error(str(refused)))
        except Exception as exc:  # the loop must survive any bug
            log.exception("internal error while handling %r", command)
            self.write(replies.error(f"internal error: {type(exc).__name__}: {exc}"))

    def _dispatch(self, command: cmd.Command, received_at: float) -> None:
        match command:
            case cmd.About():
                self.write(replies.format_about(self._about))
            case cmd.Start(size):
                self._start(size, size)
            case cmd.RectStart(width, height):
                self._start(width, height)
            case cmd.Restart():
                self._require_board().clear()
                self.engine.new_game()
                self.write(replies.OK)
            case cmd.Info(key, value):
                self._info(key, value, command)
            case cmd.Begin():
                board = self._ready_to_move()
                if board.history:
                    raise CommandRefused("BEGIN needs an empty board; send RESTART first")
                self._reply_move(received_at)
            case cmd.Turn(x, y):
                board = self._ready_to_move()
                board.place(self._cell(x, y), board.to_move)
                self._reply_move(received_at)
            case cmd.Board(stones):
                self._ready_to_move()
                self._set_position(stones)
                self._reply_move(received_at)
            case cmd.Takeback(x, y):
                self._takeback(x, y)
                self.write(replies.OK)
            case cmd.Play(x, y):
                board = self._require_board()
                board.place(self._cell(x, y), board.to_move)
                self.write(replies.format_move(x, y))
            case cmd.Swap2Board(stones):
                self._swap2(stones, received_at)
            case cmd.YxStop():
                pass  # nothing is running: the move was already written
            case cmd.End():
                raise SystemExit(0)

    # -- set-up ------------------------------------------------------------------------

    def _start(self, width: int, height: int) -> None:
        for value in (width, height):
            if not MIN_SIZE <= value <= MAX_SIZE:
                shape = f"{width}x{height}" if width != height else str(width)
                raise CommandRefused(
                    f"unsupported board size {shape}: this brain plays {MIN_SIZE} to {MAX_SIZE}"
                )
        self.write(replies.OK)
        # The board is built at the first command that needs it, when INFO rule has
        # arrived (managers send it after START). Its tables are built now, for the rule
        # in force, while the manager sends the INFO lines: a rule that changes then
        # costs its own colour tables only.
        self.board = None
        self._size = (width, height)
        self.engine.new_game()
        if not self.ending:  # with END read, only a move request still to answer needs them
            prepare_tables(width, height, self.rule)

    def _require_board(self) -> Board:
        if self.board is None:
            if self._size is None:
                raise CommandRefused("no board yet: send START first")
            self.board = Board(*self._size, self.rule)
        return self.board

    def _cell(self, x: int, y: int) -> int:
        board = self._require_board()
        try:
            cell = board.index(x, y)
        except IllegalMoveError as exc:
            raise CommandRefused(str(exc)) from None
        if not board.is_empty(cell):
            raise CommandRefused(f"{x},{y} is already occupied")
        return cell

    def _info(self, key: str, value: str, command: cmd.Info) -> None:
        # INFO is never answered: a problem is reported at the next move request.
        try:
            if self.reports.configure(key, value):
                return
            match key:
                case InfoKey.TIMEOUT_TURN:
                    self.settings.timeout_turn = command.as_int()
                case InfoKey.TIMEOUT_MATCH:
                    self.settings.timeout_match = command.as_int()
                case InfoKey.TIME_LEFT:
                    left = command.as_int()
                    self.settings.time_left = None if left == UNLIMITED_TIME_MS else left
                case InfoKey.MAX_MEMORY:
                    self.settings.max_memory = command.as_int()
                    cost = self.engine.limit_memory(self.settings.max_memory)
                    if self.settings.max_memory != self._memory_stated:
                        self._memory_cost = cost
                case InfoKey.RULE:
                    self._set_rule(command.as_int())
                # Any other key is not needed (``folder``: this brain keeps no files).
        except Exception as exc:
            self._pending_error = str(exc)
            log.warning("INFO %s %s: %s", key, value, exc)

    def _set_rule(self, value: int) -> None:
        try:
            rule = Rule.from_gomocup(value)
        except UnsupportedRuleError as exc:
            self._pending_error = str(exc)
            return
        self._pending_error = None
        if rule is self.rule:
            return
        self.rule = rule
        if self.board is not None:
            old = self.board
            self.board = Board(old.width, old.height, rule)
            for cell, color in old.history:
                self.board.place(cell, color)
            self.board.to_move = old.to_move

    def _set_position(self, stones: tuple[cmd.Stone, ...]) -> None:
        board = self._require_board()
        own = [s for s in stones if s.field == cmd.Field.OWN]
        theirs = [s for s in stones if s.field == cmd.Field.OPPONENT]
        # Whoever is to move owns field 1. Equal counts: we are black; one fewer: white.
        # Any other count (stones not alternating) falls back to the list order: the
        # first stone is black, as real managers send stones in move order.
        if len(own) == len(theirs):
            me = Color.BLACK
        elif len(theirs) == len(own) + 1:
            me = Color.WHITE
        else:
            first = next((s for s in stones if s.field != cmd.Field.CONTINUOUS), None)
            me = Color.BLACK if first is None or first.field == cmd.Field.OWN else Color.WHITE
        fresh = Board(board.width, board.height, self.rule)
        for stone in stones:
            if stone.field == cmd.Field.CONTINUOUS:
                continue  # continuous-game marker: not a stone of either side
            try:
                cell = fresh.index(stone.x, stone.y)
                fresh.place(cell, me if stone.field == cmd.Field.OWN else me.opponent)
            except IllegalMoveError as exc:
                raise CommandRefused(f"bad BOARD: {exc}") from None
        fresh.to_move = me
        self.board = fresh

    def _takeback(self, x: int, y: int) -> None:
        board = self._require_board()
        try:
            cell = board.index(x, y)
        except IllegalMoveError as exc:
            raise CommandRefused(str(exc)) from None
        if board.is_empty(cell):
            raise CommandRefused(f"cannot take back {x},{y}: the square is empty")
        if board.last_move == cell:
            board.undo()
            return
        # Not the last stone: rebuild the position without it.
        remaining = [(c, col) for c, col in board.history if c != cell]
        removed_color = next(col for c, col in board.history if c == cell)
        board.clear()
        for c, col in remaining:
            board.place(c, col)
        board.to_move = removed_color

    # -- thinking ----------------------------------------------------------------------

    def budget(self, received_at: float) -> MoveBudget:
        board = self._require_board()
        debt = 0.0
        if self._first_move:
            # Managers count start-up inside the first move's window. GomocupJudge may
            # suspend the process after START, and wall time keeps running while it is
            # suspended, so charge the CPU time the process has used (start-up work is
            # CPU-bound), never more than the wall time since it started.
            wall = max(0.0, received_at - self._started)
            debt = min(wall, time.process_time()) + INTERPRETER_STARTUP_S
        return plan_move(self.settings, received_at, board.move_count, debt)

    def think(self, received_at: float) -> int:
        """Choose a move for the side to move within the budget; never raises. The search
        reports a manager asked for end here, before the move is written."""
        if self._memory_cost is not None:
            self._state_memory_limit(self._memory_cost)
            self._memory_cost = None
            self._memory_stated = self.settings.max_memory
        move = self._search(received_at)
        self.reports.end(self.engine, self._searched)
        return move

    def _state_memory_limit(self, cost: str) -> None:
        """One MESSAGE on a memory limit that cuts the search: the limit, what the process
        holds before searching (measured now, with the board's tables built), the cost."""
        limit = self.settings.max_memory
        held = resident_bytes()
        if held is None:
            footprint = "this process's own memory cannot be measured here"
        else:
            below = (" (the process alone, before any search, takes most of it)"
                     if held > limit / 2 else "")
            footprint = f"this process holds {held / 2**20:.0f} MiB before searching{below}"
        text = (f"memory: INFO max_memory is {limit / 2**20:.0f} MiB and {footprint}: "
                f"{cost} (docs/brain.md, Memory)")
        log.info(text)
        self.write(replies.message(text))

    def _search(self, received_at: float) -> int:
        board = self._require_board()
        budget = self.budget(received_at)
        self._first_move = False
        self._searched = False
        fallback = quick_move(board)
        if budget.instant or self.ending or self._stop_requested_at >= received_at:
            return fallback  # no time, or told to stop before the search began
        result: list[int] = []
        stop = threading.Event()
        self.search = SearchState(stop=stop)
        if self._stop_requested_at >= received_at:
            stop.set()  # the request came while this search was being set up

        def run() -> None:
            try:
                result.append(self.engine.choose_move(board.copy(), budget.soft, stop,
                                                      use_all=budget.use_all))
            except Exception:
                log.exception("engine %s failed; playing the fallback move", self.engine.name)

        if self._worker is not None and self._worker.is_alive():
            self._worker.join(timeout=0.2)
        self.reports.begin(self.engine)
        worker = threading.Thread(target=run, name="search", daemon=True)
        self._worker = worker
        worker.start()
        worker.join(timeout=max(0.0, budget.hard - time.monotonic()))
        stop.set()
        if worker.is_alive() or not result:
            if not worker.is_alive():
                return fallback  # the engine failed (logged above)
            late = self.engine.best_so_far(board)
            if late is None or not self._playable(board, late, fallback):
                log.warning("engine %s overran its budget; playing the one-ply fallback",
                            self.engine.name)
                return fallback
            log.warning("engine %s overran its budget; playing its best move so far",
                        self.engine.name)
            return late
        move = result[0]
        if not self._playable(board, move, fallback):
            log.error("engine %s chose an illegal move %r; playing the fallback move",
                      self.engine.name, move)
            return fallback
        self._searched = True
        return move

    @staticmethod
    def _playable(board: Board, move: int, fallback: int) -> bool:
        """Whether ``move`` is on an empty cell and, for black, no renju foul unless the
        fallback is one too."""
        return 0 <= move < board.size and board.is_empty(move) and not (
            board.to_move is Color.BLACK and is_forbidden(board, move)
            and not is_forbidden(board, fallback))

    def _ready_to_move(self) -> Board:
        """The board, once any problem INFO left for the next move request is reported."""
        if self._pending_error is not None:
            error, self._pending_error = self._pending_error, None
            raise CommandRefused(error)
        return self._require_board()

    def _reply_move(self, received_at: float) -> None:
        board = self._require_board()
        if board.is_full():
            raise CommandRefused("the board is full: there is no move to play")
        move = self.think(received_at)
        board.play(move)
        summary = self.engine.info.summary() if self._searched else ""
        if summary:
            self.write(replies.message(summary))
        self.write(replies.format_move(*board.xy(move)))

    def _swap2(self, stones: tuple[cmd.Point, ...], received_at: float) -> None:
        """Swap2 opening: place three stones, or choose a colour, or add stones."""
        board = self._require_board()
        if board.width < 7 or board.height < 7:
            raise CommandRefused("SWAP2BOARD needs a board of at least 7x7")
        fresh = Board(board.width, board.height, self.rule)
        try:
            for stone in stones:
                fresh.play(fresh.index(stone.x, stone.y))
        except IllegalMoveError as exc:
            raise CommandRefused(f"bad SWAP2BOARD: {exc}") from None
        self.board = fresh
        cx, cy = fresh.width // 2, fresh.height // 2
        if not stones:
            # A quiet three-stone opening close to balance: centre, diagonal, knight's move.
            opening = [(cx, cy), (cx + 1, cy + 1), (cx + 2, cy - 1)]
            for x, y in opening:
                fresh.play(fresh.index(x, y))
            self.write(replies.format_moves(opening))
            return
        # With 3 stones we stay white and play move 4; with 5 (the opponent added two
        # stones) we take black when black's threats outweigh white's.
        if len(stones) == 5 and _black_is_ahead(fresh):
            self.write(replies.SWAP)
            return
        move = self.think(received_at)
        fresh.play(move)
        self.write(replies.format_move(*fresh.xy(move)))


def _black_is_ahead(board: Board) -> bool:
    """A static Swap2 judgement: does black hold the stronger threats?"""
    from brain.eval.heuristic import ATTACK_VALUE

    empty = board.empty_cells()
    black = ATTACK_VALUE[board.threats[Color.BLACK][empty]].sum()
    white = ATTACK_VALUE[board.threats[Color.WHITE][empty]].sum()
    return bool(black >= white)

