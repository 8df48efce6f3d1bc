"""What the search core computes on real positions, as one JSON document.

Run as a script (``python tests/core_digest.py``) under the compiled and the pure-Python
modules (``PBRAIN_PURE_PYTHON=1``), the two documents must be equal: see
``tests/test_compiled.py``. Covered: the board's keys, patterns, threats and hash after
every move of Rapfi's benchmark positions and of the lfz084 puzzles (freestyle, renju),
the threat queries and renju fouls on those positions, the solver's results under node
budgets, and fixed-playout tree searches.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_search import positions
from puzzle_data import freestyle_vcf_puzzles, lfz_puzzles, quintet_mates

from brain.eval.evaluator import PatternEvaluator
from brain.game import tactics
from brain.game.board import Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.rules import Rule
from brain.search.mcts import Mcts, MctsConfig
from brain.search.solver import ThreatSolver


def board_state(board: Board) -> str:
    """A digest of everything the board keeps incrementally."""
    digest = hashlib.sha256()
    for array in (board.keys, board.patterns, board.threats):
        digest.update(array.tobytes())
    digest.update(bytes(board.cells))
    digest.update(str(board.hash).encode())
    return digest.hexdigest()[:16]


def replay(board: Board) -> list[str]:
    """The board's state after each of its moves, replayed on a fresh board, then after
    taking them all back."""
    fresh = Board(board.width, board.height, board.rule)
    states = []
    for cell, color in board.history:
        fresh.place(cell, color)
        states.append(board_state(fresh))
    while fresh.history:
        fresh.undo()
    states.append(board_state(fresh))
    return states


def queries(board: Board) -> dict[str, object]:
    """The threat queries and fouls of both colours on ``board``."""
    out: dict[str, object] = {}
    empty = board.empty_cells()
    for color in Color:
        points = tactics.open_four_points(board, color)
        out[color.name] = {
            "five": tactics.five_cells(board, color),
            "four": tactics.four_cells(board, color),
            "three": tactics.three_cells(board, color),
            "open four points": points,
            "defences": tactics.three_defences(board, color, points) if points else [],
            "legal": tactics.legal_mask(board, color, empty).tolist(),
            "winning": board.winning_cells(color).tolist(),
            "after": board.threats_after(color, empty, int(empty[0]),
                                         color.opponent).tolist(),
        }
    out["fouls"] = [str(forbidden_kind(board, int(cell))) for cell in empty]
    return out


def solve(board: Board) -> list[object]:
    """VCF and VCT of the side to move under node budgets."""
    vcf = ThreatSolver().vcf(board, max_nodes=2000)
    vct = ThreatSolver().vct(board, max_attacks=8, max_nodes=2000)
    return [[r.status.value, list(r.line), r.depth, r.nodes] for r in (vcf, vct)]


def search(board: Board) -> list[object]:
    """A fixed-playout tree search: its move, playouts and principal variation."""
    mcts = Mcts(PatternEvaluator(), MctsConfig(playouts=150))
    move = mcts.search(board, time.monotonic() + 60, threading.Event())
    return [move, mcts.info.playouts, mcts.info.pv]


def main() -> None:
    boards = [board for _, board in positions()]
    boards += [p.board for p in freestyle_vcf_puzzles(50)]
    boards += [board for _, board in lfz_puzzles(32, Rule.RENJU, 60)]
    boards += [mate.board for mate in quintet_mates()[::4]]
    document = []
    for n, board in enumerate(boards):
        entry: dict[str, object] = {"replay": replay(board), "queries": queries(board),
                                    "solve": solve(board)}
        if n % 3 == 0:
            entry["search"] = search(board.copy())
        document.append(entry)
    print(json.dumps(document))


if __name__ == "__main__":
    main()
