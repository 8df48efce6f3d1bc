"""A test brain that talks the way Rapfi does, for the web board's tests.

Rapfi (dhbloo/rapfi) reads its input word by word. After ``INFO`` it reads a key and,
for a key it knows, the key's value; an unknown key is answered ``MESSAGE Unknown Info
Parameter: KEY``, and its value is then read as the next command and answered ``ERROR
Unknown command: VALUE`` (``INFO show_analysis 250`` gives ``ERROR Unknown command:
250``). While it thinks it writes its own search lines (its ``message_mode = "normal"``)
and, after ``INFO show_detail 1``, Yixin-Board's ``REALTIME`` lines::

    MESSAGE OptiTime 450ms | MaxTime 1000ms
    MESSAGE REALTIME REFRESH
    MESSAGE REALTIME BEST 7,7
    MESSAGE Depth 3-3 | Eval 120 | Time 310ms | H8 I9 G7
    MESSAGE Speed 2140 | Depth 3-3 | Eval 120 | Node 980 | Time 458ms

This brain writes the same words with the same coordinates (``H8`` is x = 7, y = 7) about
a real search: this project's alpha-beta baseline, deepened one ply at a time with a
report after each depth, paced over about half the time per move (at most
:data:`PACE_LIMIT_S`) so that a watcher sees the reports arrive while it thinks. Its
evaluation is the baseline's score for the side to move, in tenths (``+M3``: a win in 3
plies). Its ABOUT answer lists no extension::

    python tests/brains/rapfi_like.py
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from brain.game.board import Board, Color, IllegalMoveError
from brain.game.rules import Rule, UnsupportedRuleError
from brain.search.alphabeta import LEVELS, WIN, WIN_BOUND, AlphaBetaEngine

#: INFO keys read with their value (upper case, as Rapfi compares them).
KNOWN_INFO = frozenset({"TIMEOUT_TURN", "TIMEOUT_MATCH", "TIME_LEFT", "MAX_MEMORY",
                        "GAME_TYPE", "RULE", "FOLDER", "THREAD_NUM", "SHOW_DETAIL"})
#: The deepest alpha-beta iteration, and the most seconds a move's reports are spread over.
MAX_DEPTH = 4
PACE_LIMIT_S = 3.0


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def words() -> Iterator[str]:
    """stdin word by word (Rapfi's ``std::cin >> token``)."""
    pending: deque[str] = deque()
    while True:
        while not pending:
            line = sys.stdin.readline()
            if not line:
                return
            pending.extend(line.split())
        yield pending.popleft()


def coord(x: int, y: int) -> str:
    """Rapfi's move label: the column letter from A, the row from 1."""
    return f"{chr(ord('A') + x)}{y + 1}"


def evaluation(score: int) -> str:
    if score >= WIN_BOUND:
        return f"+M{WIN - score}"
    if score <= -WIN_BOUND:
        return f"-M{WIN + score}"
    return str(score // 10)


class RapfiLike:
    """One game's state and the commands, as the module docstring says."""

    def __init__(self) -> None:
        self.board: Board | None = None
        self.rule = Rule.FREESTYLE
        self.turn_ms = 1000
        self.detail = 0

    def info(self, stream: Iterator[str]) -> None:
        key = next(stream, "").upper()
        if key not in KNOWN_INFO:
            out(f"MESSAGE Unknown Info Parameter: {key}")
            return  # the value is read as the next command
        value = next(stream, "")
        try:
            number = int(value)
        except ValueError:
            return
        if key == "TIMEOUT_TURN":
            self.turn_ms = number if number > 0 else 1000
        elif key == "RULE":
            try:
                self.rule = Rule.from_gomocup(number)
            except UnsupportedRuleError:
                out(f"MESSAGE Unsupported rule {number}, playing freestyle")
                self.rule = Rule.FREESTYLE
        elif key == "SHOW_DETAIL":
            self.detail = number

    def start(self, width: int, height: int) -> None:
        try:
            self.board = Board(width, height, self.rule)
        except ValueError:
            out(f"ERROR Unsupported board size {width}x{height}")
            return
        out("OK")

    def position(self, stream: Iterator[str]) -> None:
        """BOARD: ``x,y,field`` words until DONE; field 1 is the side to move's."""
        board = self.fresh()
        stones: list[tuple[int, int, int]] = []
        for word in stream:
            if word.upper() == "DONE":
                break
            x, y, field = (int(v) for v in word.split(","))
            stones.append((x, y, field))
        own = Color.BLACK if len(stones) % 2 == 0 else Color.WHITE
        for x, y, field in stones:
            board.place(board.index(x, y), own if field == 1 else own.opponent)
        self.think()

    def fresh(self) -> Board:
        assert self.board is not None
        self.board = Board(self.board.width, self.board.height, self.rule)
        return self.board

    def think(self) -> None:
        """Deepen the baseline's search one ply at a time, reporting each depth, and
        play the last one's move."""
        board = self.board
        assert board is not None
        started = time.monotonic()
        turn_s = self.turn_ms / 1000
        pace_s = min(PACE_LIMIT_S, 0.45 * turn_s)
        out(f"MESSAGE OptiTime {round(pace_s * 1000)}ms | MaxTime {self.turn_ms}ms")
        nodes, move, depth, score = 0, -1, 0, 0
        for depth in range(1, MAX_DEPTH + 1):
            engine = AlphaBetaEngine(config=replace(LEVELS[2], max_depth=depth,
                                                    time_managed=False))
            move = engine.choose_move(board, started + 0.8 * turn_s, threading.Event())
            info = engine.info
            nodes += info.nodes
            score = info.score
            elapsed_ms = round((time.monotonic() - started) * 1000)
            if self.detail & 1:
                out("MESSAGE REALTIME REFRESH")
                x, y = board.xy(move)
                out(f"MESSAGE REALTIME BEST {x},{y}")
            line = " ".join(coord(x, y) for x, y in info.pv)
            out(f"MESSAGE Depth {depth}-{max(depth, len(info.pv))} | Eval "
                f"{evaluation(score)} | Time {elapsed_ms}ms | {line}")
            if info.source != "search":
                break  # a forced or proven move: nothing deeper to look at
            time.sleep(max(0.0, started + pace_s * depth / MAX_DEPTH - time.monotonic()))
        elapsed = time.monotonic() - started
        out(f"MESSAGE Speed {round(nodes / max(elapsed, 1e-3))} | Depth {depth}-{depth} | "
            f"Eval {evaluation(score)} | Node {nodes} | Time {round(elapsed * 1000)}ms")
        board.play(move)
        x, y = board.xy(move)
        out(f"{x},{y}")

    def turn(self, word: str) -> None:
        assert self.board is not None
        x, y = (int(v) for v in word.split(","))
        self.board.play(self.board.index(x, y))
        self.think()

    def takeback(self, word: str) -> None:
        assert self.board is not None
        x, y = (int(v) for v in word.split(","))
        if self.board.history and self.board.history[-1][0] == self.board.index(x, y):
            self.board.undo()
            out("OK")
        else:
            out(f"ERROR {x},{y} is not the last move")


def main() -> int:
    brain = RapfiLike()
    out("MESSAGE rapfi-like test brain: reads its input word by word, as Rapfi does")
    stream = words()
    for word in stream:
        command = word.upper()
        try:
            if command == "ABOUT":
                out('name="rapfi-like", version="1.0", author="pbrain-zero tests", '
                    'country="-"')
            elif command == "START":
                size = int(next(stream, "0"))
                brain.start(size, size)
            elif command == "RECTSTART":
                width, height = (int(v) for v in next(stream, "0,0").split(","))
                brain.start(width, height)
            elif command == "INFO":
                brain.info(stream)
            elif command == "RESTART":
                brain.fresh()
                out("OK")
            elif command == "BEGIN":
                brain.fresh()
                brain.think()
            elif command == "TURN":
                brain.turn(next(stream, ""))
            elif command == "BOARD":
                brain.position(stream)
            elif command == "TAKEBACK":
                brain.takeback(next(stream, ""))
            elif command == "END":
                return 0
            else:
                out(f"ERROR Unknown command: {word}")
        except (AssertionError, IllegalMoveError, ValueError) as exc:
            out(f"ERROR {command}: {exc or 'no game started'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
