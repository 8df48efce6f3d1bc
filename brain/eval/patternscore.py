"""The pattern model's arithmetic on one position: the cells near the stones, the threat
counts, the value perceptron and the softmax of the cell logits.

The tree search evaluates thousands of leaves a second with the pattern model. Written as
numpy calls on arrays of a few hundred cells, each step cost more in call overhead than
in arithmetic (about 150 µs a leaf, most of a playout's time); here they are plain loops
over typed memoryviews, compiled with the search core (:mod:`brain.native`), and
they run unchanged, only slower, as Python. Both forms do the same floating-point
operations in the same order (C's ``exp``, ``log1p`` and ``tanh`` are what Python's
``math`` calls), so the compiled and the pure search agree to the last bit.
"""

from __future__ import annotations

import cython
import numpy as np
from cython.cimports.libc.math import exp, log1p, tanh

from brain.game.board import MAX_SIZE, Board
from brain.game.patterns import Threat

#: Number of threat levels (:class:`brain.game.patterns.Threat`, NONE included).
LEVELS = len(Threat)
#: Inputs of the value perceptron: both sides, every threat level but NONE.
VALUE_INPUTS = 2 * (LEVELS - 1)
#: How far from a stone a cell may be (king moves) to be a candidate.
NEAR_REACH = 2
#: Cells of the largest board.
MAX_CELLS = MAX_SIZE * MAX_SIZE


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def mark_near(cells: cython.uchar[::1], width: cython.int, height: cython.int,
              reach: cython.int, near: cython.uchar[::1]) -> cython.int:
    """Set ``near[q]`` to 1 for every empty cell within ``reach`` king moves of a stone
    (the centre on an empty board); ``near`` starts zeroed. Returns how many were set."""
    x: cython.int
    y: cython.int
    xx: cython.int
    yy: cython.int
    q: cython.int
    count: cython.int = 0
    stones: cython.int = 0
    for y in range(height):
        for x in range(width):
            if cells[y * width + x] == 0:
                continue
            stones += 1
            for yy in range(max(0, y - reach), min(height, y + reach + 1)):
                for xx in range(max(0, x - reach), min(width, x + reach + 1)):
                    q = yy * width + xx
                    if cells[q] == 0 and near[q] == 0:
                        near[q] = 1
                        count += 1
    if stones == 0:
        near[(height // 2) * width + width // 2] = 1
        count = 1
    return count


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def count_threats(board: Board, counts: cython.double[::1]) -> None:
    """Add to ``counts`` how many empty cells give the side to move each threat level
    1..12, then the same for the opponent (``counts`` is ``2 * (LEVELS - 1)`` long,
    zeroed)."""
    threats: cython.uchar[::1] = board._threats_v
    cells: cython.uchar[::1] = board._cells_v
    size: cython.Py_ssize_t = board.size
    me: cython.int = int(board.to_move)
    them: cython.int = 3 - me
    opponent_offset: cython.int = LEVELS - 2
    q: cython.Py_ssize_t
    level: cython.int
    for q in range(size):
        if cells[q] != 0:
            continue
        level = threats[me * size + q]
        if level > 0:
            counts[level - 1] += 1.0
        level = threats[them * size + q]
        if level > 0:
            counts[opponent_offset + level] += 1.0


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def value_logit(w1: cython.double[:, ::1], b1: cython.double[::1], w2: cython.double[::1],
                b2: cython.double, counts: cython.double[::1]) -> cython.double:
    """``w2 . relu(w1 @ log1p(counts) + b1) + b2``: the perceptron's winning logit."""
    j: cython.Py_ssize_t
    i: cython.Py_ssize_t
    hidden: cython.double
    out: cython.double = 0.0
    inputs = cython.declare(cython.double[24])  # VALUE_INPUTS (a C array needs a literal)
    if w1.shape[1] != VALUE_INPUTS or len(counts) != VALUE_INPUTS:
        raise ValueError(f"value inputs: {len(counts)} counts for a layer of "
                         f"{w1.shape[1]}, expected {VALUE_INPUTS}")
    for i in range(w1.shape[1]):
        inputs[i] = log1p(counts[i])
    for j in range(w1.shape[0]):
        hidden = 0.0
        for i in range(w1.shape[1]):
            hidden += w1[j, i] * inputs[i]
        hidden += b1[j]
        if hidden > 0.0:
            out += w2[j] * hidden
    return out + b2


@cython.ccall
@cython.boundscheck(False)
@cython.wraparound(False)
def fill_policy(board: Board, pair_logits: cython.double[:, ::1],
                last_logits: cython.double[::1], own_last_logits: cython.double[::1],
                relation: cython.const[cython.Py_ssize_t][:, ::1],
                near: cython.uchar[::1], policy: cython.double[::1]) -> None:
    """Write the priors of the side to move into ``policy`` (zeroed, one entry per cell;
    the board has a stone): a softmax over the empty cells near the stones (all empty
    cells when none is near) of the cell logits ``pair_logits[own threat, opponent
    threat] + last_logits[relation to the last stone] + own_last_logits[relation to the
    mover's previous stone]`` (no such term while the mover has none). ``near`` is a
    zeroed scratch array."""
    threats: cython.uchar[::1] = board._threats_v
    cells: cython.uchar[::1] = board._cells_v
    history: list = board.history
    size: cython.Py_ssize_t = board.size
    me: cython.int = int(board.to_move)
    them: cython.int = 3 - me
    last: cython.int = history[len(history) - 1][0]
    own_last: cython.int = history[len(history) - 2][0] if len(history) >= 2 else -1
    q: cython.Py_ssize_t
    logit: cython.double
    best: cython.double = -1e300
    total: cython.double = 0.0
    if mark_near(cells, board.width, board.height, NEAR_REACH, near) == 0:
        for q in range(size):
            near[q] = cells[q] == 0
    for q in range(size):
        if near[q]:
            logit = (pair_logits[threats[me * size + q], threats[them * size + q]]
                     + last_logits[relation[last, q]])
            if own_last >= 0:
                logit += own_last_logits[relation[own_last, q]]
            policy[q] = logit
            if logit > best:
                best = logit
    for q in range(size):
        if near[q]:
            policy[q] = exp(policy[q] - best)
            total += policy[q]
    for q in range(size):
        if near[q]:
            policy[q] /= total


@cython.cclass
class Scorer:
    """A pattern model's arrays held as typed views, with the scratch its evaluations
    need: the search scores thousands of leaves a second, and each call of the module
    functions from Python acquires every array's buffer again (a quarter of a leaf's
    evaluation), where these calls pass the views on in C."""

    pair_logits = cython.declare(cython.double[:, ::1])
    last_logits = cython.declare(cython.double[::1])
    own_last_logits = cython.declare(cython.double[::1])
    value_w1 = cython.declare(cython.double[:, ::1])
    value_b1 = cython.declare(cython.double[::1])
    value_w2 = cython.declare(cython.double[::1])
    value_b2 = cython.declare(cython.double)
    #: Scratch: the near cells of the largest board, the threat counts.
    near = cython.declare(cython.uchar[::1])
    counts = cython.declare(cython.double[::1])

    def __init__(self, pair_logits: np.ndarray, last_logits: np.ndarray,
                 own_last_logits: np.ndarray, value_w1: np.ndarray, value_b1: np.ndarray,
                 value_w2: np.ndarray, value_b2: float) -> None:
        self.pair_logits = np.ascontiguousarray(pair_logits, dtype=np.float64)
        self.last_logits = np.ascontiguousarray(last_logits, dtype=np.float64)
        self.own_last_logits = np.ascontiguousarray(own_last_logits, dtype=np.float64)
        self.value_w1 = np.ascontiguousarray(value_w1, dtype=np.float64)
        self.value_b1 = np.ascontiguousarray(value_b1, dtype=np.float64)
        self.value_w2 = np.ascontiguousarray(value_w2, dtype=np.float64)
        self.value_b2 = value_b2
        self.near = np.zeros(MAX_CELLS, dtype=np.uint8)
        self.counts = np.zeros(VALUE_INPUTS)

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def value(self, board: Board) -> cython.double:
        """The side to move's expected result in [-1, 1] (2 P(win) - 1)."""
        i: cython.Py_ssize_t
        for i in range(VALUE_INPUTS):
            self.counts[i] = 0.0
        count_threats(board, self.counts)
        return tanh(value_logit(self.value_w1, self.value_b1, self.value_w2,
                                self.value_b2, self.counts) / 2.0)

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    def policy_into(self, board: Board, relation: cython.const[cython.Py_ssize_t][:, ::1],
                    policy: cython.double[::1]) -> None:
        """:func:`fill_policy` with the model's tables; ``relation`` is
        :func:`brain.eval.patternmodel.relation_table` of the board's size."""
        q: cython.Py_ssize_t
        for q in range(board.size):
            self.near[q] = 0
        fill_policy(board, self.pair_logits, self.last_logits, self.own_last_logits,
                    relation, self.near, policy)

    @cython.boundscheck(False)
    @cython.wraparound(False)
    def evaluate(self, boards: list, relation: cython.const[cython.Py_ssize_t][:, ::1],
                 policy: cython.double[:, ::1], values: cython.double[::1]) -> None:
        """Each board's value into ``values`` and priors into the zeroed row of
        ``policy`` (the centre on an empty board); the boards share one size."""
        n: cython.Py_ssize_t
        board: Board
        for n in range(len(boards)):
            board = boards[n]
            values[n] = self.value(board)
            if not board.history:
                policy[n, (board.height // 2) * board.width + board.width // 2] = 1.0
            else:
                self.policy_into(board, relation, policy[n, :])
