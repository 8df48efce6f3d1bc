"""The brain's own memory: what the process holds before its tree search grows.

Two measurements, each in a fresh process, read from ``/proc`` (Linux):

* ``python -m brain`` as a manager runs it: resident set (VmRSS) and its peak (VmHWM)
  once ``START`` has built the board's tables, then after one move of ``--turn-ms``;
* where that memory comes from: the resident set after each step of the brain's start-up
  (the interpreter, numpy, the brain's modules, the weights, the engine, the line tables
  of ``--size`` under ``--rule``).

Run: ``.venv/bin/python bench/bench_footprint.py [--size 15] [--rule 0] [--turn-ms 1000]``.
Figures: docs/brain.md, "Memory".
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The start-up of ``python -m brain``, step by step, in a child process.
STEPS = r'''
import re, sys
def mib(field):
    status = open("/proc/self/status").read()
    return int(re.search(field + r":\s+(\d+)", status).group(1)) / 1024
def step(name):
    print(f"{name}\t{mib('VmRSS'):.1f}\t{mib('VmHWM'):.1f}", flush=True)
step("interpreter")
import numpy
step("numpy")
import brain.engine, brain.process.session, brain.process.loop
step("the brain's modules")
from brain.engine import load_network
network = load_network()
step("network weights")
from brain.engine import make_engine
engine = make_engine("mcts")
step("engine (pattern model, search)")
from brain.game.board import Board, prepare_tables
from brain.game.rules import Rule
size, rule = int(sys.argv[1]), Rule.from_gomocup(int(sys.argv[2]))
prepare_tables(size, size, rule)
Board(size, size, rule)
step(f"line tables {size}x{size} rule {int(rule)}")
'''


def status_mib(pid: int) -> tuple[float, float]:
    text = Path(f"/proc/{pid}/status").read_text()
    rss, hwm = (int(re.search(rf"^{name}:\s+(\d+) kB", text, re.M).group(1)) / 1024
                for name in ("VmRSS", "VmHWM"))
    return rss, hwm


def brain_process(size: int, rule: int, turn_ms: int) -> list[tuple[str, float, float]]:
    """(moment, VmRSS, VmHWM) of a real brain process."""
    proc = subprocess.Popen([sys.executable, "-m", "brain"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(*lines: str) -> None:
        proc.stdin.write("".join(line + "\r\n" for line in lines).encode())
        proc.stdin.flush()

    def reply() -> str:
        while True:
            line = proc.stdout.readline().decode().strip()
            if not line.startswith("MESSAGE"):
                return line

    rows = []
    try:
        send(f"START {size}", f"INFO rule {rule}", f"INFO timeout_turn {turn_ms}")
        assert reply() == "OK"
        time.sleep(1.0)  # the tables are built after OK
        rows.append(("after START", *status_mib(proc.pid)))
        centre = size // 2
        send("BOARD", f"{centre},{centre},2", f"{centre + 1},{centre + 1},1",
             f"{centre - 1},{centre + 2},2", "DONE")
        reply()
        rows.append((f"after one {turn_ms} ms move", *status_mib(proc.pid)))
        send("END")
        proc.wait(timeout=5)
    finally:
        proc.kill()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", type=int, default=0)
    parser.add_argument("--turn-ms", type=int, default=1000)
    args = parser.parse_args()
    print("python -m brain (MiB): moment, VmRSS, VmHWM")
    for moment, rss, hwm in brain_process(args.size, args.rule, args.turn_ms):
        print(f"  {moment:<28} {rss:6.1f} {hwm:6.1f}")
    steps = subprocess.run([sys.executable, "-c", STEPS, str(args.size), str(args.rule)],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout
    print("start-up step by step (MiB): step, VmRSS (added), VmHWM")
    before = 0.0
    for line in steps.splitlines():
        name, rss, hwm = line.split("\t")
        print(f"  {name:<32} {float(rss):6.1f} (+{float(rss) - before:4.1f}) {float(hwm):6.1f}")
        before = float(rss)


if __name__ == "__main__":
    main()
