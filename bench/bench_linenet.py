"""Speed of the line-pattern network and its playout loop on 15x15 middle games.

Positions: the Rapfi freestyle games of the shared data, after 20 to 40 moves (``--games``
of them). Figures, in CPU time (``time.process_time``, so that other processes on the
machine do not count), one thread:

* evaluations from scratch: a new state from the stones, then the value and the policy
  of the empty cells within two of a stone;
* incremental evaluations: a stone played, the value and the policy read, the stone taken
  back (what a playout's leaf costs);
* playouts per second of the compiled loop alone (no root threat searches), and the mean
  depth of its playouts.

Run: ``.venv/bin/python bench/bench_linenet.py [--games 20] [--seconds 1]
[--weights weights/linenet.npz]``
"""

from __future__ import annotations

import argparse
import lzma
import time

import numpy as np
from tabulate import tabulate

from brain.eval.linenet import LineNet, LineNetState
from brain.game.board import Board
from brain.resources import shared_data_dir, weights_dir
from brain.search.linesearch import LineSearchConfig
from brain.search.playout import Playouts, Tree
from brain.train.data import parse_rapfi_line

GAMES = shared_data_dir() / "games" / "rapfi_selfplay" / "freestyle15.txt.xz"


def middle_games(count: int) -> list[Board]:
    boards = []
    rng = np.random.default_rng(7)
    with lzma.open(GAMES, "rt") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            record = parse_rapfi_line(line, 15)
            if len(record.moves) < 45:
                continue
            board = Board(15)
            for move in record.moves[:int(rng.integers(20, 41))]:
                board.play(move)
            boards.append(board)
            if len(boards) == count:
                break
    return boards


def near_cells(board: Board) -> np.ndarray:
    cells = np.frombuffer(bytes(board.cells), np.uint8).reshape(board.height, board.width)
    stones = np.argwhere(cells != 0)
    near = np.zeros_like(cells, dtype=bool)
    for y, x in stones:
        near[max(0, y - 2):y + 3, max(0, x - 2):x + 3] = True
    return np.flatnonzero(near & (cells == 0)).astype(np.int32)


def per_second(function, seconds: float) -> float:
    """Calls of ``function`` per CPU second over about ``seconds``."""
    count = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        function()
        count += 1
    return count / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per figure")
    parser.add_argument("--weights", default=str(weights_dir() / "linenet.npz"))
    args = parser.parse_args()
    net = LineNet.from_file(args.weights)
    rows = []
    scratch, incremental, playout_rate, depths = [], [], [], []
    tree = Tree.for_memory(190 << 20, LineSearchConfig().max_children)
    for board in middle_games(args.games):
        cells = near_cells(board)
        out = np.zeros(len(cells), np.float32)
        me = int(board.to_move)

        def from_scratch(board: Board = board, cells: np.ndarray = cells,
                         out: np.ndarray = out, me: int = me) -> None:
            state = LineNetState(net, 15, 15)
            state.set_stones(board.cells)
            state.value(me, False)
            state.policy(me, cells, out)

        state = LineNetState(net, 15, 15)
        state.set_stones(board.cells)
        move = int(cells[0])

        def one_leaf(state: LineNetState = state, move: int = move,
                     cells: np.ndarray = cells, out: np.ndarray = out, me: int = me) -> None:
            state.play(move, me)
            state.value(3 - me, False)
            state.policy(3 - me, cells[1:], out[1:])
            state.undo(move, me)

        scratch.append(per_second(from_scratch, args.seconds / 4))
        incremental.append(per_second(one_leaf, args.seconds / 4))
        playouts = Playouts(board.copy(), net, tree)
        playouts.start()
        started = time.process_time()
        done = 0
        while time.process_time() - started < args.seconds:
            done += playouts.run(256)
        playout_rate.append(done / (time.process_time() - started))
        depths.append(playouts.depth_sum / max(done, 1))
    rows.append(["evaluations from scratch / s", f"{np.median(scratch):,.0f}"])
    rows.append(["incremental evaluations / s (play, value, policy, undo)",
                 f"{np.median(incremental):,.0f}"])
    rows.append(["playouts / s (compiled loop)", f"{np.median(playout_rate):,.0f}"])
    rows.append(["mean playout depth", f"{np.mean(depths):.1f}"])
    print(f"{args.games} middle-game positions (15x15, 20-40 stones), medians of CPU-time rates")
    print(tabulate(rows, tablefmt="github"))


if __name__ == "__main__":
    main()
