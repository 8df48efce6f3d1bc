"""The threat searches a tree search runs at its root, shared by both tree searches
(:mod:`brain.search.mcts` and the compiled playouts of :mod:`brain.search.linesearch`):

* :func:`settled_win`: a five, or a threat-space win (VCF, then VCT) found within a
  share of the move's time, played without searching the tree;
* :func:`vcf_defences`: when the opponent, were it to move, would win by continuous
  fours, the root moves that may stop it;
* :func:`first_without_quick_vcf`: the last look at the chosen move, dropping one after
  which the opponent wins by a short VCF;

and the two rules both apply to the root's visit counts: :func:`leader_settled` (may the
search stop early) and :func:`choose_root_move` (which move it plays).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from brain.game.board import Board
from brain.game.tactics import four_cells, line_cells, three_cells
from brain.search.solver import Status, ThreatSolver

#: Node budget of the root's VCF and VCT when a fixed playout budget asks for a
#: reproducible search (the default; a search may set its own).
FIXED_SOLVER_NODES = 20_000
#: Node budget of the last look for an opponent VCF after each of the leading moves.
QUICK_VCF_NODES = 400
#: How many of the leading moves the last look may try.
QUICK_VCF_MOVES = 3


@dataclass(frozen=True)
class SettledWin:
    """A move that wins without tree search: ``source`` is ``five`` or ``solver``."""

    move: int
    source: str
    line: list[int]


def settled_win(board: Board, solver: ThreatSolver, started: float, deadline: float,
                share: float, vct_attacks: int, max_nodes: int | None) -> SettledWin | None:
    """A five of the side to move, or a VCF (then a VCT of ``vct_attacks`` attacks) found
    within ``share`` of the time from ``started`` to ``deadline`` each; None otherwise
    (and at once when the opponent has a five to block). ``max_nodes``: a node budget of
    the VCF and of the VCT each, for a reproducible search (None: the clock alone)."""
    me = board.to_move
    fives = board.winning_cells(me)
    if len(fives):
        return SettledWin(int(fives[0]), "five", [int(fives[0])])
    if len(board.winning_cells(me.opponent)):
        return None  # must block: the tree's forced-move rule handles it
    budget = max(0.0, deadline - started) * share
    if budget < 0.005:
        return None
    result = solver.vcf(board, deadline=started + budget, max_nodes=max_nodes)
    if result.status is not Status.WIN:
        result = solver.vct(board, max_attacks=vct_attacks, deadline=started + 2 * budget,
                            max_nodes=max_nodes)
    if result.status is Status.WIN:
        return SettledWin(result.move, "solver", list(result.line))
    return None


def vcf_defences(board: Board, solver: ThreatSolver, until: float,
                 max_nodes: int | None) -> set[int] | None:
    """If the opponent, were it to move, would win by continuous fours (a VCF), the
    cells that may stop it: those on the lines of its attacking moves, its defender
    replies, and our own fours and threes (counter-threats); None when no VCF is found
    by ``until`` within ``max_nodes``.

    Only a VCF: given a free move, the opponent has a VCT in most middle games, and
    keeping just the moves near it would leave out our best attacks."""
    me = board.to_move
    board.to_move = me.opponent
    try:
        threat = solver.vcf(board, deadline=until, max_nodes=max_nodes)
    finally:
        board.to_move = me
    if threat.status is not Status.WIN:
        return None
    relevant = set(threat.line[1::2])
    for move in threat.line[::2]:
        relevant.add(move)
        for direction in range(4):
            relevant.update(line_cells(board, move, direction))
    relevant.update(four_cells(board, me))
    relevant.update(three_cells(board, me))
    return relevant


def first_without_quick_vcf(board: Board, solver: ThreatSolver, moves: Iterable[int],
                            deadline: float, cleared: set[int] = frozenset()) -> int | None:
    """The first of (up to :data:`QUICK_VCF_MOVES` of) ``moves`` after which the opponent
    has no VCF within :data:`QUICK_VCF_NODES` nodes; ``cleared`` moves are known safe.
    None when each has one, or the deadline passed first."""
    for n, move in enumerate(moves):
        if n >= QUICK_VCF_MOVES or time.monotonic() >= deadline:
            break
        if move in cleared:
            return move
        board.play(move)
        result = solver.vcf(board, max_nodes=QUICK_VCF_NODES, deadline=deadline)
        board.undo()
        if result.status is not Status.WIN:
            return move
    return None


def leader_settled(visits: np.ndarray, playouts: int, seconds: float, deadline: float) -> bool:
    """Whether the most visited root move can no longer be overtaken before ``deadline``
    at the rate of ``playouts`` in ``seconds`` (or is the only move)."""
    if len(visits) < 2:
        return True
    remaining = playouts / max(seconds, 1e-3) * max(0.0, deadline - time.monotonic())
    top = np.sort(visits)[-2:]
    return bool(top[1] - top[0] > remaining)


def choose_root_move(board: Board, solver: ThreatSolver, moves: Sequence[int],
                     outcomes: Sequence[int], deadline: float,
                     cleared: Iterable[int] = ()) -> tuple[int, int]:
    """The move to play among the root ``moves`` (most visited first) and its proven
    outcome for the side to move (1 won, -1 lost, 0 open; ``outcomes`` likewise per move):
    a proven win first; else the most visited open move, unless the opponent then has a
    quick VCF (:func:`first_without_quick_vcf`; ``cleared``: moves already proven free
    of any opponent VCT) and another open move has none; a proven loss only when every
    move is lost."""
    ranked: list[int] = []
    losing: list[int] = []
    for move, outcome in zip(moves, outcomes, strict=True):
        if outcome > 0:
            return move, 1
        (losing if outcome < 0 else ranked).append(move)
    if not ranked:
        return losing[0], -1
    safe = first_without_quick_vcf(board, solver, ranked, deadline, set(cleared))
    return (ranked[0] if safe is None else safe), 0
