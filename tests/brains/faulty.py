"""A small Gomocup brain for arena tests that misbehaves on request.

It plays legally and quickly (the empty square that makes its longest line, first in
scan order), so two of them finish a 15x15 game in well under a second, and it does one
thing wrong when asked::

    python tests/brains/faulty.py --fault crash --at 3     # exit(3) on its 3rd move

``--think S`` makes every move take S seconds. Faults (``--at N`` is the brain's own move
number in the game, from 1):

=============  ===============================================================
none           behave
crash          exit with code 3 instead of answering move N
hang           never answer move N (keeps reading stdin)
late           answer move N after ``--delay`` seconds
junk           answer move N with a line of junk
illegal        answer move N with an occupied square
offboard       answer move N with a square off the board
error          answer move N with ``ERROR``
extra          answer every move twice (the second line is stale)
stderr         write ``--mb`` MiB to stderr before every answer
log            write one log line to stderr before answering move N
log-after      write one log line to stderr after answering move N
memory         allocate and touch ``--mb`` MiB before answering move N
no-about       ignore ABOUT (print nothing)
slow-start     sleep ``--delay`` seconds before answering START
start-error    answer START with ``ERROR``
chatty         print MESSAGE/DEBUG lines at start-up and before every answer
child          start a child process that sleeps (to test process-tree kills)
quirky         write an ERROR line and a junk line before answering move N
=============  ===============================================================
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Game:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells: dict[tuple[int, int], int] = {}

    def run(self, x: int, y: int, color: int) -> int:
        best = 1
        for dx, dy in DIRECTIONS:
            n = 1
            for sign in (1, -1):
                k = 1
                while self.cells.get((x + sign * k * dx, y + sign * k * dy)) == color:
                    n += 1
                    k += 1
            best = max(best, n)
        return best

    def choose(self, color: int) -> tuple[int, int]:
        best, choice = -1, (0, 0)
        order = sorted(
            ((x, y) for y in range(self.height) for x in range(self.width)),
            key=lambda p: abs(p[0] - self.width // 2) + abs(p[1] - self.height // 2),
        )
        for x, y in order:
            if (x, y) in self.cells:
                continue
            score = self.run(x, y, color) * 2 + (self.run(x, y, 3 - color) >= 4)
            if score > best:
                best, choice = score, (x, y)
        return choice


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fault", default="none")
    parser.add_argument("--at", type=int, default=1)
    parser.add_argument("--delay", type=float, default=5.0)
    parser.add_argument("--mb", type=int, default=4)
    parser.add_argument("--name", default="faulty")
    parser.add_argument("--think", type=float, default=0.0, help="seconds per move")
    args = parser.parse_args()
    fault = args.fault
    game = Game(15, 15)
    me = 1
    own_moves = 0
    hoard: list[bytes] = []
    if fault == "chatty":
        out("MESSAGE hello from a chatty brain")
        out("DEBUG starting up")
    if fault == "child":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])

    def answer() -> None:
        nonlocal own_moves
        own_moves += 1
        hit = own_moves == args.at
        x, y = game.choose(me)
        time.sleep(args.think)
        if fault == "stderr":
            block = b"e" * 65536 + b"\n"
            for _ in range(args.mb * 16):
                os.write(2, block)
        if fault == "chatty":
            out(f"MESSAGE thinking about move {own_moves}")
        if hit and fault == "log":
            os.write(2, b"brain WARNING engine overran its budget; playing the fallback\n")
        if hit and fault == "crash":
            sys.exit(3)
        if hit and fault == "hang":
            return
        if hit and fault == "late":
            time.sleep(args.delay)
        if hit and fault == "memory":
            hoard.append(b"\x01" * (args.mb << 20))
        if hit and fault == "junk":
            out("I think 7 7 is nice")
            return
        if hit and fault == "error":
            out("ERROR cannot think today")
            return
        if hit and fault == "quirky":
            # What real engines do before a good move: Rapfi's ERROR for a half-read INFO,
            # the tail of a MESSAGE line that PentaZen broke with a raw depth byte.
            out("ERROR Unknown command: TIME_LEFT")
            out("-\x16 ev +v11 nd 255 tm 2 sp 127")
        if hit and fault == "illegal" and game.cells:
            x, y = next(iter(game.cells))
        if hit and fault == "offboard":
            x, y = game.width + 3, 0
        game.cells[(x, y)] = me
        out(f"{x},{y}")
        if fault == "extra":
            out(f"{x},{y}")
        if hit and fault == "log-after":
            os.write(2, b"brain INFO move played\n")

    board_lines: list[tuple[int, int, int]] | None = None
    for raw in sys.stdin:
        line = raw.strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if board_lines is not None:
            if word == "DONE":
                game.cells.clear()
                mine = sum(1 for _, _, f in board_lines if f == 1)
                theirs = len(board_lines) - mine
                me = 1 if mine == theirs else 2
                for x, y, f in board_lines:
                    game.cells[(x, y)] = me if f == 1 else 3 - me
                board_lines = None
                answer()
            else:
                x, y, f = (int(v) for v in line.split(","))
                board_lines.append((x, y, f))
            continue
        if word == "ABOUT":
            if fault != "no-about":
                out(f'name="{args.name}", version="1.0", author="tests"')
        elif word in ("START", "RECTSTART"):
            if fault == "slow-start":
                time.sleep(args.delay)
            if fault == "start-error":
                out("ERROR this brain refuses to start")
                continue
            if word == "START":
                size = int(rest)
                game = Game(size, size)
            else:
                w, h = (int(v) for v in rest.split(","))
                game = Game(w, h)
            own_moves = 0
            out("OK")
        elif word == "RESTART":
            game = Game(game.width, game.height)
            own_moves = 0
            out("OK")
        elif word == "INFO":
            continue
        elif word == "BEGIN":
            me = 1
            answer()
        elif word == "TURN":
            x, y = (int(v) for v in rest.split(","))
            if not (0 <= x < game.width and 0 <= y < game.height) or (x, y) in game.cells:
                out(f"ERROR bad TURN {rest}")
                continue
            me = 2 if len(game.cells) % 2 == 0 else 1
            game.cells[(x, y)] = 3 - me
            answer()
        elif word == "BOARD":
            board_lines = []
        elif word == "TAKEBACK":
            x, y = (int(v) for v in rest.split(","))
            game.cells.pop((x, y), None)
            out("OK")
        elif word == "END":
            return 0
        else:
            out(f"UNKNOWN {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
