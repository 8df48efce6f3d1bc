"""The line-pattern network on the play path: tables of line features kept up to date
move by move, and two small heads read at every leaf.

How it sees a board. Every cell looks along each of the four directions at the nine
cells centred on it (:data:`REACH` on each side), cut short by the board's edges. Such a
*window* has few states (43,923 over every left and right reach), so the trained line
network, whatever its depth, is run once over every window when the weights are exported
and becomes a table from window code to a feature row of :attr:`LineNet.dim` small
integers (:data:`FEATURE_SCALE` units of one). A cell's feature is the sum of its four
rows. A stone changes the windows of at most 36 cells (nine on each of its lines), so
:class:`LineNetState` keeps the codes, the cells' features and their board-wide sum of
ReLUs, and updates them by "subtract the old row, add the new" on :meth:`LineNetState.play`
and :meth:`LineNetState.undo`; all of it in integers, so a million moves and takebacks
leave it exactly where a fresh evaluation would be.

Colours are seen from the side to move (the window digits are 0 empty, 1 own, 2 the
opponent's): the state keeps two frames, one for each side to move, updated together.

The heads:

* value: the mean over the board of ReLU(feature), with two flags for renju (black or
  white to move), through a 3-layer perceptron to win/draw/loss logits;
* policy: on the first :attr:`LineNet.policy_dim` channels of ReLU(feature), a 3x3
  depthwise convolution, a ReLU and a dot product give each empty cell its logit.

The torch model that learns these weights is :mod:`brain.train.linenet`; it follows the
same conventions to the bit (window codes, direction order, quantisation), and the tests
compare the two on real positions.

The module is written in Cython's pure-Python mode and compiled with the search core
(:mod:`brain.game.compiled`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cython
import numpy as np
from cython.cimports.libc.math import exp

from brain.errors import PbrainError
from brain.game.board import DIRECTIONS

#: Cells a window sees on each side of its centre.
REACH = 4
#: Cells of a whole window.
WINDOW = 2 * REACH + 1
#: Feature units per 1.0: rows are integers, so the incremental sums are exact.
FEATURE_SCALE = 32
# Its inverse as a C constant for the typed loops (a module global is a dictionary look-up
# and Python arithmetic).
_UNIT = cython.declare(cython.float, 1.0 / FEATURE_SCALE)
#: The largest magnitude of one direction's feature (in units of 1.0).
FEATURE_BOUND = 8.0
#: The most feature channels the play path takes.
MAX_DIM = 64
#: The widest hidden layer of the value head the play path takes.
MAX_HIDDEN = 128
#: Version of the weight file layout.
FORMAT_VERSION = 1


def _window_bases() -> tuple[list[int], int]:
    # Windows cut to ``left`` and ``right`` cells on each side are numbered in one block
    # each, left-major: the block holds 3 ** (left + right + 1) codes.
    bases = []
    total = 0
    for left in range(REACH + 1):
        for right in range(REACH + 1):
            bases.append(total)
            total += 3 ** (left + right + 1)
    return bases, total


#: First code of the windows with ``left`` cells before the centre and ``right`` after:
#: ``WINDOW_BASES[left * (REACH + 1) + right]``.
WINDOW_BASES, ROW_COUNT = _window_bases()


def window_code(digits: list[int] | tuple[int, ...], left: int) -> int:
    """The table row of a window whose cells, from the far left one to the far right
    one, hold ``digits`` (0 empty, 1 own, 2 opponent), the centre being ``digits[left]``.

    Raises ValueError for a reach beyond :data:`REACH` or a digit outside 0..2.
    """
    right = len(digits) - 1 - left
    if not (0 <= left <= REACH and 0 <= right <= REACH):
        raise ValueError(f"a window reaches {REACH} cells each side, not {left} and {right}")
    code = WINDOW_BASES[left * (REACH + 1) + right]
    for i, digit in enumerate(digits):
        if digit not in (0, 1, 2):
            raise ValueError(f"window digit {digit}: use 0 empty, 1 own, 2 opponent")
        code += digit * 3 ** i
    return code


class LineNetError(PbrainError, ValueError):
    """A weight file that cannot be used (missing, another layout, inconsistent)."""


@dataclass(frozen=True)
class LineNetWeights:
    """The exported weights, as arrays (the layout of a ``.npz`` file, see :func:`load`)."""

    table: np.ndarray          # int16 [ROW_COUNT, dim]
    value_w1: np.ndarray       # [hidden, dim + 2]
    value_b1: np.ndarray
    value_w2: np.ndarray       # [hidden, hidden]
    value_b2: np.ndarray
    value_w3: np.ndarray       # [3, hidden]
    value_b3: np.ndarray
    policy_dw: np.ndarray      # [policy_dim, 9]: 3x3 taps, row by row
    policy_db: np.ndarray
    policy_w: np.ndarray       # [policy_dim]
    policy_b: float
    meta: dict

    def save(self, path: str | Path) -> None:
        """Write the weights as a compressed ``.npz``."""
        arrays = {name: getattr(self, name) for name in _ARRAYS}
        np.savez_compressed(path, **arrays, policy_b=np.float32(self.policy_b),
                            meta=np.frombuffer(json.dumps(self.meta).encode(), np.uint8))


_ARRAYS = ("table", "value_w1", "value_b1", "value_w2", "value_b2", "value_w3", "value_b3",
           "policy_dw", "policy_db", "policy_w")


def load(path: str | Path) -> LineNetWeights:
    """Read a weight file written by :meth:`LineNetWeights.save`.

    Raises :class:`LineNetError` when it is missing or not a line-pattern network of
    this layout.
    """
    try:
        with np.load(path) as data:
            arrays = {name: data[name] for name in _ARRAYS}
            policy_b = float(data["policy_b"])
            meta = json.loads(bytes(data["meta"]).decode())
    except FileNotFoundError:
        raise LineNetError(f"line-pattern network {path} not found") from None
    except (KeyError, ValueError, OSError) as exc:
        raise LineNetError(f"{path} is no line-pattern network file: {exc}") from None
    if meta.get("format") != FORMAT_VERSION or meta.get("reach") != REACH:
        raise LineNetError(f"{path}: layout {meta.get('format')} with reach "
                           f"{meta.get('reach')}, expected {FORMAT_VERSION} and {REACH}")
    weights = LineNetWeights(**arrays, policy_b=policy_b, meta=meta)
    dim = weights.table.shape[1]
    if (weights.table.shape[0] != ROW_COUNT or weights.value_w1.shape[1] != dim + 2
            or dim > MAX_DIM or weights.value_w1.shape[0] > MAX_HIDDEN
            or weights.policy_dw.shape[0] > dim):
        raise LineNetError(f"{path}: inconsistent shapes (table {weights.table.shape}, "
                           f"value input {weights.value_w1.shape})")
    return weights


@cython.cclass
class LineNet:
    """The weights as typed arrays, shared read-only by every :class:`LineNetState`."""

    def __init__(self, weights: LineNetWeights) -> None:
        self.weights = weights
        self.dim = weights.table.shape[1]
        self.hidden = weights.value_w1.shape[0]
        self.policy_dim = weights.policy_dw.shape[0]
        self._table = np.ascontiguousarray(weights.table, dtype=np.int16)
        # Input-major copies: the heads' loops add a whole row of independent outputs
        # at a time, instead of one long chain of dependent additions per output.
        self._w1 = np.ascontiguousarray(weights.value_w1.T, dtype=np.float32)
        self._b1 = np.ascontiguousarray(weights.value_b1, dtype=np.float32)
        self._w2 = np.ascontiguousarray(weights.value_w2.T, dtype=np.float32)
        self._b2 = np.ascontiguousarray(weights.value_b2, dtype=np.float32)
        self._w3 = np.ascontiguousarray(weights.value_w3.T, dtype=np.float32)
        self._b3 = np.ascontiguousarray(weights.value_b3, dtype=np.float32)
        self._pdw = np.ascontiguousarray(weights.policy_dw.T, dtype=np.float32)
        self._pdb = np.ascontiguousarray(weights.policy_db, dtype=np.float32)
        self._pw = np.ascontiguousarray(weights.policy_w, dtype=np.float32)
        self.policy_b = weights.policy_b
        self.table_v = self._table
        self.w1_v = self._w1
        self.b1_v = self._b1
        self.w2_v = self._w2
        self.b2_v = self._b2
        self.w3_v = self._w3
        self.b3_v = self._b3
        self.pdw_v = self._pdw
        self.pdb_v = self._pdb
        self.pw_v = self._pw

    @classmethod
    def from_file(cls, path: str | Path) -> LineNet:
        """The network of a weight file (:func:`load`)."""
        return cls(load(path))


@dataclass(frozen=True)
class _Geometry:
    """Per board shape: the window cells each stone touches and its digit's place value
    there (flat, for the typed loops), and the first code of every cell's window."""

    touch_start: np.ndarray   # int32 [size + 1]
    touch_line: np.ndarray    # int32: d * size + cell
    touch_unit: np.ndarray    # int32: 3 ** (the stone's place in that cell's window)
    touch_cell: np.ndarray    # int32: the cell of touch_line
    base: np.ndarray          # int32 [4 * size]: the empty window's code
    line_cell: np.ndarray     # int32 [4 * size]: the cell of each line
    cell_pad: np.ndarray      # int32 [size]: each cell's place on the grid with a border


def _geometry(width: int, height: int) -> _Geometry:
    size = width * height
    base = np.zeros(4 * size, dtype=np.int32)
    lefts = np.zeros(4 * size, dtype=np.int32)
    for c in range(size):
        cx, cy = c % width, c // width
        for d, (dx, dy) in enumerate(DIRECTIONS):
            reach = []
            for sign in (-1, 1):
                k = 0
                while k < REACH and 0 <= cx + sign * (k + 1) * dx < width \
                        and 0 <= cy + sign * (k + 1) * dy < height:
                    k += 1
                reach.append(k)
            lefts[d * size + c] = reach[0]
            base[d * size + c] = WINDOW_BASES[reach[0] * (REACH + 1) + reach[1]]
    start, lines, units = [0], [], []
    for p in range(size):
        px, py = p % width, p // width
        for d, (dx, dy) in enumerate(DIRECTIONS):
            for offset in range(-REACH, REACH + 1):
                # The cell c sees p at ``offset`` along d.
                cx, cy = px - offset * dx, py - offset * dy
                if 0 <= cx < width and 0 <= cy < height:
                    line = d * size + cy * width + cx
                    lines.append(line)
                    units.append(3 ** (lefts[line] + offset))
        start.append(len(lines))
    lines_array = np.array(lines, np.int32)
    cells = np.arange(size, dtype=np.int32)
    return _Geometry(np.array(start, np.int32), lines_array, np.array(units, np.int32),
                     lines_array % size, base, np.tile(cells, 4),
                     (cells // width + 1) * (width + 2) + cells % width + 1)


_GEOMETRIES: dict[tuple[int, int], _Geometry] = {}


def geometry(width: int, height: int) -> _Geometry:
    """The (cached) geometry of a ``width`` x ``height`` board."""
    found = _GEOMETRIES.get((width, height))
    if found is None:
        found = _GEOMETRIES[(width, height)] = _geometry(width, height)
    return found


@cython.cclass
class LineNetState:
    """A board's view through one :class:`LineNet`, updated move by move.

    Play and take back stones with :meth:`play` and :meth:`undo` in step with the board
    (colours 1 black, 2 white); read :meth:`value` and :meth:`policy` for the side to
    move. ``frame`` 0 sees black's stones as its own (black to move), 1 white's.
    """

    def __init__(self, net: LineNet, width: int, height: int) -> None:
        self.net = net
        self.width = width
        self.height = height
        self.size = width * height
        geo = geometry(width, height)
        self._geo = geo
        self.touch_start = geo.touch_start
        self.touch_line = geo.touch_line
        self.touch_unit = geo.touch_unit
        self.touch_cell = geo.touch_cell
        self.line_cell = geo.line_cell
        self.cell_pad = geo.cell_pad
        self._codes = np.zeros((2, 4 * self.size), dtype=np.int32)
        # Compiled, the features follow the codes lazily: a move only lists the lines it
        # changed, and a frame's features catch up when that frame is read, so that moves
        # taken back before then (a playout's path that the next one leaves) cost
        # nothing there. ``_shown`` holds the codes the features reflect.
        self._shown = np.zeros((2, 4 * self.size), dtype=np.int32)
        self._pending = np.zeros((2, 4 * self.size), dtype=np.int32)
        self._is_pending = np.zeros((2, 4 * self.size), dtype=np.uint8)
        self.pending_count = [0, 0]
        self._features = np.zeros((2, self.size, net.dim), dtype=np.int16)
        self._pooled = np.zeros((2, net.dim), dtype=np.int32)
        self._scratch = np.zeros(2 * max(net.hidden, net.dim + 2, net.policy_dim),
                                 dtype=np.float32)
        self.win = self.draw = self.loss = 0.0
        # ReLU of each cell's first policy_dim channels, as floats, on a grid with a
        # border of zeros (so that the policy's 3x3 taps need no edge tests); compiled,
        # kept up to date cell by cell as the features change.
        self.padded_width = width + 2
        self._relu = np.zeros((2, (height + 2) * (width + 2) * net.policy_dim),
                              dtype=np.float32)
        self.relu_v = self._relu
        self.codes_v = self._codes
        self.shown_v = self._shown
        self.pending_v = self._pending
        self.is_pending_v = self._is_pending
        self.features_v = self._features
        self.pooled_v = self._pooled
        self.scratch_v = self._scratch
        self.reset()

    def reset(self) -> None:
        """The empty board."""
        geo = self._geo
        self._codes[0] = geo.base
        self._codes[1] = geo.base
        self._shown[:] = self._codes
        self._is_pending[:] = 0
        self.pending_count[0] = self.pending_count[1] = 0
        rows = self.net._table[geo.base].astype(np.int32).reshape(4, self.size, -1)
        self._features[0] = rows.sum(axis=0)
        self._features[1] = self._features[0]
        self._pooled[:] = np.maximum(self._features, 0).sum(axis=1)
        pdim = self.net.policy_dim
        relu = self._relu.reshape(2, self.height + 2, self.width + 2, pdim)
        inner = np.maximum(self._features[:, :, :pdim], 0).astype(np.float32) / FEATURE_SCALE
        relu[:, 1:-1, 1:-1] = inner.reshape(2, self.height, self.width, pdim)

    def set_stones(self, cells: bytes | bytearray) -> None:
        """The position with ``cells[q]`` (0 empty, 1 black, 2 white) on every cell."""
        self.reset()
        for q, color in enumerate(cells):
            if color:
                self.play(q, color)

    @cython.ccall
    def play(self, index: cython.int, color: cython.int):
        """A ``color`` stone lands on ``index``."""
        self._update(index, color, 1)

    @cython.ccall
    def undo(self, index: cython.int, color: cython.int):
        """The ``color`` stone on ``index`` is taken back."""
        self._update(index, color, -1)

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(i=cython.int, line=cython.int, frame=cython.int, size4=cython.int,
                   unit=cython.int, codes=cython.p_int, pending=cython.p_int,
                   flags=cython.p_uchar)
    def _update(self, index: cython.int, color: cython.int, sign: cython.int) -> cython.void:
        if not cython.compiled:
            self._update_python(index, color, sign)
            return
        size4 = 4 * self.size
        codes = cython.address(self.codes_v[0, 0])
        pending = cython.address(self.pending_v[0, 0])
        flags = cython.address(self.is_pending_v[0, 0])
        for i in range(self.touch_start[index], self.touch_start[index + 1]):
            line = self.touch_line[i]
            for frame in range(2):
                # Own stones are digit 1: black's in frame 0, white's in frame 1.
                unit = self.touch_unit[i] * (1 if color == frame + 1 else 2) * sign
                codes[frame * size4 + line] += unit
                if not flags[frame * size4 + line]:
                    flags[frame * size4 + line] = 1
                    pending[frame * size4 + self.pending_count[frame]] = line
                    self.pending_count[frame] += 1

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.cdivision(True)
    @cython.locals(i=cython.int, line=cython.int, cell=cython.int, k=cython.int,
                   dim=cython.int, old=cython.int, new=cython.int, before=cython.short,
                   after=cython.short, features=cython.p_short,
                   pooled=cython.p_int, table=cython.p_short, old_row=cython.p_short,
                   new_row=cython.p_short, feature=cython.p_short, relu=cython.p_float,
                   cell_relu=cython.p_float, pdim=cython.int, scale=cython.float)
    def _refresh(self, frame: cython.int) -> cython.void:
        # Bring ``frame``'s features up to its codes (compiled only; see __init__).
        if self.pending_count[frame] == 0:
            return
        dim = self.net.dim
        pdim = self.net.policy_dim
        scale = _UNIT
        features = cython.address(self.features_v[frame, 0, 0])
        pooled = cython.address(self.pooled_v[frame, 0])
        relu = cython.address(self.relu_v[frame, 0])
        table = cython.address(self.net.table_v[0, 0])
        # The rows' differences and the pooled sums' changes gather in local arrays,
        # which no store through a pointer can alias: the compiler then vectorises the
        # channel loops, eight 16-bit channels at a time (a feature is at most four
        # rows of FEATURE_BOUND units: 1,024 fits in a short).
        gain = cython.declare(cython.int[64])  # MAX_DIM (a C array needs a literal)
        delta = cython.declare(cython.short[64])
        change = cython.declare(cython.short[64])
        for k in range(dim):
            gain[k] = 0
        for i in range(self.pending_count[frame]):
            line = self.pending_v[frame, i]
            self.is_pending_v[frame, line] = 0
            old = self.shown_v[frame, line]
            new = self.codes_v[frame, line]
            if old == new:
                continue  # a move and its takeback
            self.shown_v[frame, line] = new
            cell = self.line_cell[line]
            old_row = table + old * dim
            new_row = table + new * dim
            for k in range(dim):
                delta[k] = new_row[k] - old_row[k]
            feature = features + cell * dim
            for k in range(dim):
                before = feature[k]
                after = before + delta[k]
                feature[k] = after
                change[k] = max(after, 0) - max(before, 0)
            for k in range(dim):
                gain[k] += change[k]
            cell_relu = relu + self.cell_pad[cell] * pdim
            for k in range(pdim):
                cell_relu[k] = max(feature[k], 0) * scale
        self.pending_count[frame] = 0
        for k in range(dim):
            pooled[k] += gain[k]

    def _update_python(self, index: int, color: int, sign: int) -> None:
        """:meth:`_update` as numpy calls (the uncompiled module's)."""
        start, stop = self.touch_start[index], self.touch_start[index + 1]
        lines = self._geo.touch_line[start:stop]
        units = self._geo.touch_unit[start:stop]
        cells = lines % self.size
        touched = np.unique(cells)  # the stone's own cell is on all four lines
        table = self.net._table
        for frame in range(2):
            unit = units * (1 if color == frame + 1 else 2) * sign
            old = self._codes[frame, lines]
            new = old + unit
            self._codes[frame, lines] = new
            before = self._features[frame, touched]
            np.add.at(self._features[frame], cells,
                      table[new].astype(np.int32) - table[old].astype(np.int32))
            after = self._features[frame, touched]
            self._pooled[frame] += (np.maximum(after, 0) - np.maximum(before, 0)).sum(axis=0)

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(frame=cython.int, i=cython.int, j=cython.int, dim=cython.int,
                   hidden=cython.int, inputs=cython.int, acc=cython.float,
                   top=cython.float, total=cython.double, l0=cython.float,
                   l1=cython.float, l2=cython.float, net=LineNet, w=cython.p_float,
                   norm=cython.float)
    def _head(self, to_move: cython.int, renju: cython.bint) -> cython.void:
        # The value head: win, draw and loss probabilities into self.win/draw/loss.
        if not cython.compiled:
            self._head_numpy(to_move, renju)
            return
        net = self.net
        dim = net.dim
        hidden = net.hidden
        inputs = dim + 2
        frame = to_move - 1
        self._refresh(frame)
        # Local arrays and raw weight rows: each layer adds whole rows of independent
        # outputs, which the compiler vectorises.
        x = cython.declare(cython.float[66])  # MAX_DIM + 2 (a C array needs a literal)
        h1 = cython.declare(cython.float[128])  # MAX_HIDDEN
        h2 = cython.declare(cython.float[128])
        norm = _UNIT / self.size
        for i in range(dim):
            x[i] = self.pooled_v[frame, i] * norm
        x[dim] = 1.0 if renju and to_move == 1 else 0.0
        x[dim + 1] = 1.0 if renju and to_move == 2 else 0.0
        for j in range(hidden):
            h1[j] = net.b1_v[j]
            h2[j] = net.b2_v[j]
        for i in range(inputs):
            acc = x[i]
            if acc != 0.0:
                w = cython.address(net.w1_v[i, 0])
                for j in range(hidden):
                    h1[j] += w[j] * acc
        for i in range(hidden):
            acc = h1[i]
            if acc > 0.0:
                w = cython.address(net.w2_v[i, 0])
                for j in range(hidden):
                    h2[j] += w[j] * acc
        l0, l1, l2 = net.b3_v[0], net.b3_v[1], net.b3_v[2]
        for i in range(hidden):
            acc = h2[i]
            if acc > 0.0:
                l0 += net.w3_v[i, 0] * acc
                l1 += net.w3_v[i, 1] * acc
                l2 += net.w3_v[i, 2] * acc
        self._softmax(l0, l1, l2)

    @cython.cfunc
    @cython.locals(top=cython.double, total=cython.double)
    def _softmax(self, l0: cython.double, l1: cython.double, l2: cython.double
                 ) -> cython.void:
        top = max(l0, l1, l2)
        self.win = exp(l0 - top)
        self.draw = exp(l1 - top)
        self.loss = exp(l2 - top)
        total = self.win + self.draw + self.loss
        self.win /= total
        self.draw /= total
        self.loss /= total

    def _head_numpy(self, to_move: int, renju: bool) -> None:
        """:meth:`_head` as numpy calls (the uncompiled module's)."""
        net = self.net
        x = np.zeros(net.dim + 2, np.float32)
        x[:net.dim] = self._pooled[to_move - 1] / FEATURE_SCALE / self.size
        x[net.dim] = float(renju and to_move == 1)
        x[net.dim + 1] = float(renju and to_move == 2)
        h = np.maximum(x @ net._w1 + net._b1, 0)
        h = np.maximum(h @ net._w2 + net._b2, 0)
        logits = (h @ net._w3 + net._b3).astype(np.float64)
        self._softmax(logits[0], logits[1], logits[2])

    def wdl(self, to_move: int, renju: bool) -> tuple[float, float, float]:
        """Win, draw and loss probabilities of the side to move (``to_move`` 1 black,
        2 white; ``renju`` for the renju rule)."""
        self._head(to_move, renju)
        return self.win, self.draw, self.loss

    @cython.ccall
    def value(self, to_move: cython.int, renju: cython.bint) -> cython.double:
        """The expected result for the side to move, in [-1, 1] (win minus loss)."""
        self._head(to_move, renju)
        return self.win - self.loss

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.cdivision(True)
    @cython.locals(frame=cython.int, n=cython.Py_ssize_t, q=cython.int, k=cython.int,
                   dx=cython.int, dy=cython.int, pdim=cython.int, row=cython.int,
                   net=LineNet, w=cython.p_float, relu=cython.p_float, r=cython.p_float,
                   tap=cython.p_float, pw=cython.p_float, part0=cython.float,
                   part1=cython.float, part2=cython.float, part3=cython.float)
    def policy(self, to_move: cython.int, cells: cython.int[::1], out: cython.float[::1]):
        """Write the policy logit of each of ``cells`` (empty cells) for the side to move
        into ``out`` (as long as ``cells``)."""
        if not cython.compiled:
            self._policy_numpy(to_move, np.asarray(cells), np.asarray(out))
            return
        net = self.net
        pdim = net.policy_dim
        frame = to_move - 1
        self._refresh(frame)
        acc = cython.declare(cython.float[64])  # one sum per channel (MAX_DIM)
        relu = cython.address(self.relu_v[frame, 0])
        pw = cython.address(net.pw_v[0])
        row = self.padded_width * pdim
        for n in range(cells.shape[0]):
            q = cells[n]
            # The tap above and to the left of the cell, on the grid with a border.
            r = relu + (self.cell_pad[q] - self.padded_width - 1) * pdim
            for k in range(pdim):
                acc[k] = net.pdb_v[k]
            w = cython.address(net.pdw_v[0, 0])
            for dy in range(3):
                for dx in range(3):
                    tap = r + dy * row + dx * pdim
                    for k in range(pdim):
                        acc[k] += w[k] * tap[k]
                    w += pdim
            # ReLU and the dot product without branches, into four running sums
            # (a single one would chain every addition on the last).
            for k in range(pdim):
                acc[k] = max(acc[k], cython.cast(cython.float, 0.0)) * pw[k]
            for k in range(pdim, (pdim + 3) // 4 * 4):
                acc[k] = 0.0
            part0 = part1 = part2 = part3 = 0.0
            for k in range(0, pdim, 4):
                part0 += acc[k]
                part1 += acc[k + 1]
                part2 += acc[k + 2]
                part3 += acc[k + 3]
            out[n] = net.policy_b + ((part0 + part1) + (part2 + part3))

    def _policy_numpy(self, to_move: int, cells: np.ndarray, out: np.ndarray) -> None:
        """:meth:`policy` as numpy calls (the uncompiled module's)."""
        net = self.net
        relu = np.maximum(self._features[to_move - 1, :, :net.policy_dim], 0) / FEATURE_SCALE
        grid = np.zeros((self.height + 2, self.width + 2, net.policy_dim), np.float32)
        grid[1:-1, 1:-1] = relu.reshape(self.height, self.width, -1)
        xs, ys = cells % self.width, cells // self.width
        acc = np.tile(net._pdb, (len(cells), 1))
        for tap in range(9):
            dy, dx = divmod(tap, 3)
            acc += grid[ys + dy, xs + dx] * net._pdw[tap]
        out[:] = net.policy_b + np.maximum(acc, 0) @ net._pw

    def features(self, frame: int) -> np.ndarray:
        """A copy of every cell's feature in ``frame`` (float, units of 1.0), [size, dim]."""
        self._refresh(frame)
        return self._features[frame].astype(np.float32) / FEATURE_SCALE
