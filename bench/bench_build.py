"""Measure the built brains: archive size, spawn-to-OK, peak memory of the process tree
in a game, and each move's latency against timeout_turn.

Build first (``python -m brain.build``), then run
``.venv/bin/python bench/bench_build.py --turn-ms 1000``. ``--windows`` measures the
Windows build (``python -m brain.build --target windows``) under wine; ``--brain-args
"--playouts 2000"`` fixes the search's size, so that both builds play the same game and
their playouts per second (the median over the brain's MESSAGE lines) compare on the
same positions.
"""

from __future__ import annotations

import argparse
import re
import shlex
import statistics
import subprocess
import threading
import time
from pathlib import Path

from brain.eval.heuristic import choose_move
from brain.game.board import Board
from brain.game.referee import judge_move

ROOT = Path(__file__).resolve().parents[1]
PAGE = 4096
#: The search rate in the brain's MESSAGE line after each move.
RATE = re.compile(r"playouts \d+ \((\d+)/s\)")


def tree_pids(pid: int) -> list[int]:
    """``pid`` and all its descendants, from /proc."""
    pids, stack = [], [pid]
    while stack:
        current = stack.pop()
        pids.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            stack.extend(int(c) for c in children)
    return pids


def tree_rss_mb(pid: int) -> float:
    total = 0
    for p in tree_pids(pid):
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError):
            continue
    return total / 2**20


class Brain:
    def __init__(self, command: list[str]) -> None:
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.peak_mb = 0.0
        self.rates: list[int] = []  # playouts per second of each searched move
        self._sampling = True
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while self._sampling and self.proc.poll() is None:
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.proc.pid))
            time.sleep(0.02)

    def ask(self, line: str) -> tuple[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        start = time.perf_counter()
        self.proc.stdin.write(line + "\r\n")
        self.proc.stdin.flush()
        while True:
            reply = self.proc.stdout.readline().strip()
            if not reply.startswith(("MESSAGE", "DEBUG")):
                return reply, (time.perf_counter() - start) * 1000
            rate = RATE.search(reply)
            if rate:
                self.rates.append(int(rate.group(1)))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\r\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.send("END")
        self.proc.wait(timeout=5)
        self._sampling = False


def play_game(command: list[str], turn_ms: int) -> tuple[float, float, list[float], list[int]]:
    """One freestyle 15x15 game against the heuristic; returns spawn-to-OK ms, peak MB,
    move latencies (ms) and the playouts per second of each searched move."""
    brain = Brain(command)
    reply, _ = brain.ask("START 15")
    spawn_ms = (time.perf_counter() - brain.started) * 1000
    if reply != "OK":
        raise RuntimeError(f"START answered {reply!r}")
    for info in (f"timeout_turn {turn_ms}", "timeout_match 0", "max_memory 367001600",
                 "rule 0", "game_type 1"):
        brain.send(f"INFO {info}")
    board = Board(15)
    latencies: list[float] = []
    command_line = "BEGIN"
    while True:
        reply, ms = brain.ask(command_line)
        latencies.append(ms)
        x, y = map(int, reply.split(","))
        if judge_move(board, board.index(x, y)) is not None:
            break
        answer = choose_move(board)
        if judge_move(board, answer) is not None:
            break
        command_line = "TURN {},{}".format(*board.xy(answer))
    brain.close()
    return spawn_ms, brain.peak_mb, latencies, brain.rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turn-ms", type=int, default=1000)
    parser.add_argument("--dist", type=Path, default=None,
                        help="the build's folder (default: dist, or dist/windows)")
    parser.add_argument("--windows", action="store_true",
                        help="measure the Windows build, run under wine")
    parser.add_argument("--brain-args", default="",
                        help="extra arguments for the brain, e.g. '--playouts 2000'")
    args = parser.parse_args()
    dist = args.dist or ROOT / "dist" / ("windows" if args.windows else "")
    archive = dist / "gomocup" / "pbrain-zero.zip"
    if archive.exists():
        print(f"archive {archive.name}: {archive.stat().st_size / 1e6:.1f} MB")
    exe = "pbrain-zero.exe" if args.windows else "pbrain-zero"
    builds = {"onedir": dist / "onedir" / "pbrain-zero" / exe, "onefile": dist / "onefile" / exe}
    for name, path in builds.items():
        if not path.exists():
            print(f"{name}: not built")
            continue
        command = [*(["wine"] if args.windows else []), str(path), *shlex.split(args.brain_args)]
        spawn, peak, latencies, rates = play_game(command, args.turn_ms)
        speed = f", {statistics.median(rates)} playouts/s (median)" if rates else ""
        print(f"{name}: spawn->OK {spawn:.0f} ms, peak tree RSS {peak:.0f} MB, "
              f"{len(latencies)} moves, latency median {statistics.median(latencies):.0f} ms "
              f"max {max(latencies):.0f} ms (timeout_turn {args.turn_ms} ms){speed}")


if __name__ == "__main__":
    main()
