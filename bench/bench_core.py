"""Game-core speed: make/unmake, threat queries, renju foul checks, table building and
the brain's spawn-to-OK time. Run: ``.venv/bin/python bench/bench_core.py``."""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from brain.game.board import Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.rules import Rule

ROOT = Path(__file__).resolve().parents[1]


def game_moves(size: int, count: int, seed: int) -> list[int]:
    return random.Random(seed).sample(range(size * size), count)


def make_unmake_rate(rule: Rule, size: int, seconds: float) -> float:
    board = Board(size, rule=rule)
    moves = game_moves(size, 60, 1)
    pairs = 0
    end = time.perf_counter() + seconds
    start = time.perf_counter()
    while time.perf_counter() < end:
        for move in moves:
            board.play(move)
        for _ in moves:
            board.undo()
        pairs += len(moves)
    return pairs / (time.perf_counter() - start)


def threat_query_rate(size: int, seconds: float) -> float:
    board = Board(size)
    for move in game_moves(size, 40, 2):
        board.play(move)
    cells = [int(c) for c in board.empty_cells()]
    threats = board.threats
    queries = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for cell in cells:
            threats[1, cell]
            threats[2, cell]
        queries += 2 * len(cells)
    return queries / (time.perf_counter() - start)


def foul_check_rate(seconds: float) -> float:
    board = Board(15, rule=Rule.RENJU)
    rng = random.Random(3)
    for n, cell in enumerate(rng.sample(range(225), 50)):
        board.place(cell, Color.BLACK if n % 2 == 0 else Color.WHITE)
    cells = [int(c) for c in board.empty_cells()]
    checks = 0
    start = time.perf_counter()
    end = start + seconds
    while time.perf_counter() < end:
        for cell in cells:
            forbidden_kind(board, cell)
        checks += len(cells)
    return checks / (time.perf_counter() - start)


def table_build_seconds(rule: Rule) -> float:
    code = (
        "import time; t = time.perf_counter(); from brain.game.board import Board; "
        f"from brain.game.rules import Rule; Board(15, rule=Rule({int(rule)})); "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    return float(out.stdout)


def spawn_to_ok_ms(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "brain"], cwd=ROOT,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("START 15\r\n")
        proc.stdin.flush()
        line = proc.stdout.readline().strip()
        times.append((time.perf_counter() - start) * 1000)
        if line != "OK":
            raise RuntimeError(f"brain answered {line!r} to START")
        proc.stdin.write("END\r\n")
        proc.stdin.flush()
        proc.wait(timeout=5)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--spawns", type=int, default=10, help="brain start-ups to time")
    args = parser.parse_args()
    for rule in (Rule.FREESTYLE, Rule.RENJU):
        for size in (15, 20):
            rate = make_unmake_rate(rule, size, args.seconds)
            print(f"make+unmake pairs/s  {rule.name:<9} {size}x{size}: {rate:10.0f}")
    print(f"threat queries/s     15x15:           {threat_query_rate(15, args.seconds):10.0f}")
    print(f"renju foul checks/s  15x15:           {foul_check_rate(args.seconds):10.0f}")
    for rule in (Rule.FREESTYLE, Rule.RENJU):
        print(f"first board (tables) {rule.name:<9}:       {table_build_seconds(rule):10.3f} s")
    times = spawn_to_ok_ms(args.spawns)
    print(f"spawn -> OK (START 15): median {statistics.median(times):.0f} ms, "
          f"max {max(times):.0f} ms over {len(times)} runs")


if __name__ == "__main__":
    main()
