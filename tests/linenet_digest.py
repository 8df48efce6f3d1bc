"""What the line-pattern network and its playout loop compute on real positions, as one
JSON document: run as a script under the compiled and the pure-Python modules
(``PBRAIN_PURE_PYTHON=1``), the two must agree (``tests/test_linenet.py``): the integer
features exactly, the heads to float tolerance, and the playouts' proofs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from puzzle_data import freestyle_vcf_puzzles

from brain.eval.linenet import LineNet, LineNetState
from brain.game.board import Board
from brain.resources import weights_dir
from brain.search.playout import Playouts, Tree


def evaluate(net: LineNet, board: Board) -> dict[str, object]:
    state = LineNetState(net, board.width, board.height)
    for cell, color in board.history:
        state.play(cell, int(color))
    empty = np.flatnonzero(np.frombuffer(bytes(board.cells), np.uint8) == 0).astype(np.int32)
    out = {}
    for to_move in (1, 2):
        logits = np.zeros(len(empty), np.float32)
        state.policy(to_move, empty, logits)
        out[str(to_move)] = {
            "features": int(np.abs(state.features(to_move - 1) * 32).sum()),
            "wdl": list(state.wdl(to_move, board.black_fouls)),
            "policy": logits.tolist(),
        }
    return out


def proofs(net: LineNet, board: Board) -> list[int]:
    """The root's proof after 300 playouts (no root solver: the loop's own tactics)."""
    playouts = Playouts(board.copy(), net, Tree(4000, 4000 * 24))
    playouts.start()
    playouts.run(300)
    playouts.rewind()
    return [int(playouts.tree.proven[0])]


def main() -> None:
    net = LineNet.from_file(weights_dir() / "linenet.npz")
    document = []
    for puzzle in freestyle_vcf_puzzles(60):
        document.append({"eval": evaluate(net, puzzle.board),
                         "proof": proofs(net, puzzle.board)})
    print(json.dumps(document))


if __name__ == "__main__":
    main()
