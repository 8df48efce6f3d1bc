"""The playout loop: a PUCT tree search whose playouts run in compiled code, with the
line-pattern network (:mod:`brain.eval.linenet`) valuing every leaf and ranking the
moves of every new node.

A playout selects down the tree, plays each move on the board and on the network's
state, expands the leaf, backs its value up and takes the moves back: all of it C calls
on flat arrays (the tree is :class:`Tree`: nodes and edges in typed arrays, allocated
once), with no Python object made per playout or per node.

New nodes are settled by the board's threat tables where that is certain: a side that can
make five has won; facing two fives it has lost; facing one it must block it; a side
that can make an open four has won; facing an open three, only its own fours and the
cells where the opponent would make a four (every defence is among them) are searched.
Proven results go up the tree (a move to a lost position is a won move; a position whose
moves all lead to won positions is lost).

A position is one node however its stones were reached (a quarter of a middle game's
nodes are such transpositions): the tree finds nodes by their stones' Zobrist key, an edge
to a position already searched points at its node, and a move's value is its node's mean.
Where a node knows more than the edge that reaches it (more visits), a playout takes its
mean as the leaf's value instead of going on down, as Rapfi's tree does.

The root's tactics (a threat-space win, the defence against the opponent's VCF, the last
look at the chosen move) are the tree search's own (:mod:`brain.search.rootplay`): this
module only replaces the playouts.

Written in Cython's pure-Python mode and compiled with the search core
(:mod:`brain.game.compiled`); it runs unchanged, and slower, as Python.
"""

from __future__ import annotations

import math

import cython
import numpy as np
from cython.cimports.libc.math import exp, sqrt

from brain.eval.linenet import LineNet, LineNetState
from brain.game.board import Board
from brain.game.patterns import Threat
from brain.game.tactics import is_legal, may_be_foul

_FIVE = cython.declare(cython.int, int(Threat.FIVE))
_FLEX4 = cython.declare(cython.int, int(Threat.FLEX4))
_BLOCK4 = cython.declare(cython.int, int(Threat.BLOCK4))
#: Proof states of a node, for its side to move.
WIN, LOSS, UNKNOWN = 1, -1, 0
#: How far from a stone (king moves) a cell is a candidate.
NEAR = 2
# C copies of the constants the loops use (a module global is a dictionary look-up).
_NEAR = cython.declare(cython.int, NEAR)
_WIN = cython.declare(cython.int, WIN)
_LOSS = cython.declare(cython.int, LOSS)
_UNKNOWN = cython.declare(cython.int, UNKNOWN)
#: The longest path a playout can take (every cell of the largest board).
MAX_DEPTH = 22 * 22
#: Bytes of tree a node and an edge take (the arrays of :class:`Tree`; a node's key and
#: its share of the key table, at most four slots of four bytes).
NODE_BYTES = 4 + 4 + 4 + 8 + 1 + 8 + 4 * 4
EDGE_BYTES = 4 + 4 + 4 + 8 + 4
#: Edges a node keeps on average, at most, for sizing the tree: measured in 5 s searches
#: of middle games, 13 with 24 kept a node and 20 with 40 (the rest of the board's
#: candidates are fewer, or cut to the defences of a threat).
MEAN_EDGES = 24


#: Visits a transposition's node needs before a playout reaching it by an edge that has
#: fewer takes its mean instead of going on down (fewer: its mean is too rough).
SKIP_VISITS = 11
_SKIP_VISITS = cython.declare(cython.int, SKIP_VISITS)
#: Cells of the largest board.
MAX_CELLS = 22 * 22
_MAX_CELLS = cython.declare(cython.int, MAX_CELLS)
_MASK64 = (1 << 64) - 1


def _splitmix64(seed: int, count: int) -> np.ndarray:
    """``count`` 64-bit keys of the SplitMix64 sequence from ``seed`` (numpy.random would
    do, but importing it costs the idle brain 7 MB of its memory limit)."""
    keys = []
    for _ in range(count):
        seed = (seed + 0x9E3779B97F4A7C15) & _MASK64
        z = ((seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        keys.append(z ^ (z >> 31))
    return np.array(keys, np.uint64)


#: One Zobrist key for each cell and colour, fixed, so that any search of a board size
#: gives a position the same key.
KEYS = _splitmix64(20261206, 2 * MAX_CELLS)


def position_key(cells: bytes | bytearray) -> int:
    """The Zobrist key of the stones ``cells`` (0 empty, 1 black, 2 white, by cell)."""
    key = np.uint64(0)
    for q, color in enumerate(cells):
        if color:
            key ^= KEYS[(color - 1) * MAX_CELLS + q]
    return int(key)


#: Nodes whose edges :meth:`Tree.keep_subtree` moves at a time (its temporary arrays
#: hold their edges).
_NODE_CHUNK = 1 << 14


def _edge_blocks(firsts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The edges ``firsts[i]`` to ``firsts[i] + counts[i] - 1`` of every ``i``, in order."""
    counts = counts.astype(np.int64)
    places = np.cumsum(counts) - counts  # where each block starts in the result
    return np.repeat(firsts.astype(np.int64) - places, counts) + np.arange(int(counts.sum()))


@cython.cclass
class Tree:
    """Nodes and edges in flat arrays. A node's edges are ``first[n]`` to
    ``first[n] + count[n] - 1``; an edge's ``child`` is -1 until its move is expanded.
    Visits and value sums are the mover's: an edge's from the side choosing it, a
    node's from its side to move. A node's ``key`` is its position's
    (:func:`position_key`), and :meth:`find` the node of a key: open addressing in a
    table of at least twice the nodes' slots, each a node's index plus one (0: empty, so
    that the table takes no memory before a search fills it)."""

    def __init__(self, max_nodes: int, max_edges: int) -> None:
        self.max_nodes = max_nodes
        self.max_edges = max_edges
        self.first = np.zeros(max_nodes, np.int32)
        self.count = np.zeros(max_nodes, np.int32)
        self.visits = np.zeros(max_nodes, np.int32)
        self.total = np.zeros(max_nodes, np.float64)
        self.proven = np.zeros(max_nodes, np.int8)
        self.move = np.zeros(max_edges, np.int32)
        self.prior = np.zeros(max_edges, np.float32)
        self.edge_visits = np.zeros(max_edges, np.int32)
        self.edge_total = np.zeros(max_edges, np.float64)
        self.child = np.zeros(max_edges, np.int32)
        self.key = np.zeros(max_nodes, np.uint64)
        self.slots = np.zeros(1 << (2 * max_nodes - 1).bit_length(), np.int32)
        self.slot_mask = len(self.slots) - 1
        self.first_v = self.first
        self.count_v = self.count
        self.visits_v = self.visits
        self.total_v = self.total
        self.proven_v = self.proven
        self.move_v = self.move
        self.prior_v = self.prior
        self.edge_visits_v = self.edge_visits
        self.edge_total_v = self.edge_total
        self.child_v = self.child
        self.key_v = self.key
        self.slots_v = self.slots
        self.nodes = 0
        self.edges = 0

    @classmethod
    def for_memory(cls, max_bytes: int, max_children: int) -> Tree:
        """The largest tree within ``max_bytes`` for nodes of at most ``max_children``
        edges, its bytes split between nodes and edges as a search fills them: a node
        keeps :data:`MEAN_EDGES` edges at most on average (fewer moves are open, or
        left once a threat restricts them), whatever more it may keep."""
        mean = min(max_children, MEAN_EDGES)
        nodes = max(1000, max_bytes // (NODE_BYTES + mean * EDGE_BYTES))
        return cls(nodes, nodes * mean)

    def clear(self) -> None:
        self.nodes = 0
        self.edges = 0
        self.slots.fill(0)

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(i=cython.ulonglong, node=cython.int)
    def find(self, key: cython.ulonglong) -> cython.int:
        """The node whose position has ``key`` (-1: none)."""
        i = key & self.slot_mask
        while True:
            node = self.slots_v[i] - 1
            if node < 0:
                return -1
            if self.key_v[node] == key:
                return node
            i = (i + 1) & self.slot_mask

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(i=cython.ulonglong, key=cython.ulonglong)
    def insert(self, node: cython.int) -> cython.void:
        """Make ``node`` (its ``key`` set, not in the table yet) found by its key."""
        key = self.key_v[node]
        i = key & self.slot_mask
        while self.slots_v[i] != 0:
            i = (i + 1) & self.slot_mask
        self.slots_v[i] = node + 1

    def root_edges(self) -> range:
        return range(self.first[0], self.first[0] + self.count[0])

    def child_by_move(self, node: int, move: int) -> int:
        """The child of ``node`` that ``move`` leads to (-1: not in the tree)."""
        start = int(self.first[node])
        moves = self.move[start:start + int(self.count[node])]
        found = np.flatnonzero(moves == move)
        return int(self.child[start + found[0]]) if len(found) else -1

    def keep_subtree(self, node: int) -> None:
        """Make ``node`` the root (node 0) of a tree of what is reached from it alone, its
        visits and proofs kept: the nodes and edges of the rest are dropped, the kept ones
        moved down in place.

        Kept in the order they were made, every node and edge block moves to a place no
        later than its own (a node is made before the edges that lead to it, but for
        transpositions, and its edges with it), so the moves run front to back in place,
        a chunk of nodes at a time: the extra memory is a few arrays of one entry per node,
        never a second tree. An edge to a transposition's node made before ``node`` is cut
        (its child -1, its visits kept): that node would have to move up."""
        nodes = self.nodes
        first, count = self.first[:nodes], self.count[:nodes]
        kept = np.zeros(nodes, bool)
        frontier = np.array([node], np.int64)
        while len(frontier):
            kept[frontier] = True
            found = []
            for start in range(0, len(frontier), _NODE_CHUNK):
                part = frontier[start:start + _NODE_CHUNK]
                edges = _edge_blocks(first[part], count[part])
                children = self.child[edges]
                self.child[edges[(children >= 0) & (children < node)]] = -1
                found.append(children[children > node])
            reached = np.unique(np.concatenate(found))
            frontier = reached[~kept[reached]]
        order = np.flatnonzero(kept)
        renumber = np.full(nodes, -1, np.int32)
        renumber[order] = np.arange(len(order), dtype=np.int32)
        edges = 0
        for start in range(0, len(order), _NODE_CHUNK):
            part = order[start:start + _NODE_CHUNK]
            counts = count[part]
            source = _edge_blocks(first[part], counts)
            stop = edges + len(source)
            for array in (self.move, self.prior, self.edge_visits, self.edge_total):
                array[edges:stop] = array[source]
            children = self.child[source]
            self.child[edges:stop] = np.where(children >= 0, renumber[children], -1)
            # ``first`` of the nodes before ``part`` is written: theirs are read no more.
            first[start:start + len(part)] = edges + np.cumsum(counts) - counts
            edges = stop
        for array in (self.count, self.visits, self.total, self.proven, self.key):
            array[:len(order)] = array[order]
        self.nodes = len(order)
        self.edges = edges
        self.index_all()

    @cython.ccall
    @cython.locals(node=cython.int)
    def index_all(self) -> cython.void:
        """The key table anew, of every node."""
        self.slots.fill(0)
        for node in range(self.nodes):
            self.insert(node)


@cython.cclass
class Playouts:
    """The compiled playouts of one search: a board and a network state kept in step,
    and the tree. Call :meth:`start` with the root position, then :meth:`run`."""

    def __init__(self, board: Board, net: LineNet, tree: Tree, c_puct: float = 1.8,
                 fpu_reduction: float = 0.1, max_children: int = 40) -> None:
        self.board = board
        self.state = LineNetState(net, board.width, board.height)
        self.tree = tree
        self.c_puct = c_puct
        self.fpu_reduction = fpu_reduction
        self.max_children = max_children
        self.renju = board.black_fouls
        size = board.size
        self._near = np.zeros(size, np.int32)
        self._cells = np.zeros(size, np.int32)
        self._logits = np.zeros(size, np.float32)
        self._path = np.zeros(MAX_DEPTH + 1, np.int32)
        self._nodes_path = np.zeros(MAX_DEPTH + 1, np.int32)
        self.near_v = self._near
        self.cells_v = self._cells
        self.logits_v = self._logits
        self.path_v = self._path
        self.nodes_path_v = self._nodes_path
        self._applied = np.zeros(MAX_DEPTH + 1, np.int32)
        self.applied_v = self._applied
        self.keys_v = KEYS
        self.applied = 0
        self.to_move = 1
        self.stones = 0
        self.depth_sum = 0
        self.max_depth = 0
        self.full = False

    def start(self) -> float:
        """Take the board's position as the root (a new tree) and return the network's
        value of it for the side to move."""
        self.resume()
        self.tree.clear()
        value = self._expand()
        self.tree.key[0] = position_key(self.board.cells)
        self.tree.insert(0)
        return value

    def resume(self) -> None:
        """Take the board's position as the root of the tree as it is: one whose root is
        this position already (:meth:`Tree.keep_subtree`), whose playouts go on."""
        board = self.board
        self.rewind()
        self.state.set_stones(board.cells)
        self._near[:] = 0
        self.stones = 0
        for q in range(board.size):
            if board.cells[q]:
                self._mark(q, 1)
                self.stones += 1
        self.to_move = int(board.to_move)
        self.depth_sum = 0
        self.max_depth = 0
        self.full = False

    @cython.cfunc
    @cython.locals(x=cython.int, y=cython.int, xx=cython.int, yy=cython.int,
                   width=cython.int, height=cython.int)
    def _mark(self, q: cython.int, step: cython.int) -> cython.void:
        width = self.board.width
        height = self.board.height
        x = q % width
        y = q // width
        for yy in range(max(0, y - _NEAR), min(height, y + _NEAR + 1)):
            for xx in range(max(0, x - _NEAR), min(width, x + _NEAR + 1)):
                self.near_v[yy * width + xx] += step

    @cython.cfunc
    def _make(self, q: cython.int) -> cython.void:
        color: cython.int = self.to_move
        board: Board = self.board
        board._cells_v[q] = color
        board._update(q, color, True)
        self.state.play(q, color)
        self._mark(q, 1)
        self.stones += 1
        self.to_move = 3 - color

    @cython.cfunc
    def _unmake(self, q: cython.int) -> cython.void:
        color: cython.int = 3 - self.to_move
        board: Board = self.board
        board._cells_v[q] = 0
        board._update(q, color, False)
        self.state.undo(q, color)
        self._mark(q, -1)
        self.stones -= 1
        self.to_move = color

    @cython.cfunc
    @cython.locals(q=cython.int, level=cython.int)
    def _find(self, color: cython.int, low: cython.int, high: cython.int,
              skip: cython.int) -> cython.int:
        # The first empty cell (other than ``skip``) where ``color`` makes low..high.
        board: Board = self.board
        for q in range(board.size):
            if q != skip and board._cells_v[q] == 0:
                level = board._threats_v[color * board.size + q]
                if low <= level <= high:
                    return q
        return -1

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(me=cython.int, them=cython.int, q=cython.int, n=cython.int,
                   size=cython.int, five=cython.int, defend=cython.bint, k=cython.int,
                   i=cython.int, node=cython.int, first=cython.int,
                   top=cython.float, total=cython.double, mine=cython.int,
                   theirs=cython.int, value=cython.double)
    def _expand(self) -> cython.double:
        # A node for the board's position: settle it, or rank its moves. Returns its
        # value for the side to move (a proven result is +1 or -1).
        board: Board = self.board
        tree: Tree = self.tree
        me = self.to_move
        them = 3 - me
        size = board.size
        node = tree.nodes
        tree.nodes += 1
        tree.first_v[node] = tree.edges
        tree.count_v[node] = 0
        tree.visits_v[node] = 0
        tree.total_v[node] = 0.0
        tree.proven_v[node] = _UNKNOWN
        if board.has_threat(me, _FIVE, _FIVE):
            tree.proven_v[node] = _WIN
            return 1.0
        n = 0
        # The board's level counts answer "is there any?" at once; only then a scan.
        five = self._find(them, _FIVE, _FIVE, -1) if board.has_threat(them, _FIVE, _FIVE) else -1
        if five >= 0:
            if self._find(them, _FIVE, _FIVE, five) >= 0 or not self._legal(me, five):
                tree.proven_v[node] = _LOSS
                return -1.0
            self.cells_v[0] = five
            n = 1
        else:
            if board.has_threat(me, _FLEX4, _FLEX4):
                for q in range(size):
                    if (board._cells_v[q] == 0 and board._threats_v[me * size + q] == _FLEX4
                            and self._legal(me, q)):
                        tree.proven_v[node] = _WIN
                        return 1.0
            defend = board.has_threat(them, _FLEX4, _FLEX4)
            for q in range(size):
                if board._cells_v[q] != 0:
                    continue
                if defend:
                    mine = board._threats_v[me * size + q]
                    theirs = board._threats_v[them * size + q]
                    if mine < _BLOCK4 and (theirs < _BLOCK4 or theirs == _FIVE):
                        continue
                elif self.near_v[q] == 0 and self.stones > 0:
                    continue
                if not self._legal(me, q):
                    continue
                self.cells_v[n] = q
                n += 1
            if n == 0:
                if defend:
                    tree.proven_v[node] = _LOSS
                    return -1.0
                return 0.0  # a full board: a draw
        if tree.edges + min(n, self.max_children) > tree.max_edges:
            self.full = True
            return self.state.value(me, self.renju)
        # Priors: a softmax over the network's logits, the best max_children kept.
        self.state.policy(me, self.cells_v[:n], self.logits_v[:n])
        k = min(n, self.max_children)
        self._keep_best(n, k)
        first = tree.edges
        total = 0.0
        top = self.logits_v[0]
        for i in range(k):
            tree.move_v[first + i] = self.cells_v[i]
            tree.prior_v[first + i] = exp(self.logits_v[i] - top)
            total += tree.prior_v[first + i]
            tree.edge_visits_v[first + i] = 0
            tree.edge_total_v[first + i] = 0.0
            tree.child_v[first + i] = -1
        for i in range(k):
            tree.prior_v[first + i] /= total
        tree.count_v[node] = k
        tree.edges += k
        value = self.state.value(me, self.renju)
        return value

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(i=cython.int, j=cython.int, kept=cython.int, logit=cython.float,
                   cell=cython.int)
    def _keep_best(self, n: cython.int, k: cython.int) -> cython.void:
        # The ``k`` highest of the ``n`` logits and their cells, best first, into the
        # first ``k`` places: one pass that inserts into a sorted prefix, which most cells
        # do not enter (ties keep the cells' order).
        kept = 0
        for i in range(n):
            logit = self.logits_v[i]
            if kept == k and logit <= self.logits_v[k - 1]:
                continue
            cell = self.cells_v[i]
            j = kept if kept < k else k - 1
            while j > 0 and self.logits_v[j - 1] < logit:
                self.logits_v[j] = self.logits_v[j - 1]
                self.cells_v[j] = self.cells_v[j - 1]
                j -= 1
            self.logits_v[j] = logit
            self.cells_v[j] = cell
            if kept < k:
                kept += 1

    @cython.cfunc
    def _legal(self, color: cython.int, q: cython.int) -> cython.bint:
        # Renju fouls only: most cells are cleared by the quick pattern test.
        if color != 1 or not self.renju:
            return True
        board: Board = self.board
        if not may_be_foul(board, q):
            return True
        return is_legal(board, color, q)

    @cython.cfunc
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(e=cython.int, best=cython.int, first=cython.int, count=cython.int,
                   child=cython.int, score=cython.double, top=cython.double,
                   q=cython.double, fpu=cython.double, scale=cython.double,
                   visits=cython.int)
    def _select(self, node: cython.int) -> cython.int:
        tree: Tree = self.tree
        first = tree.first_v[node]
        count = tree.count_v[node]
        visits = tree.visits_v[node]
        fpu = (tree.total_v[node] / visits if visits > 0 else 0.0) - self.fpu_reduction
        scale = self.c_puct * sqrt(visits + 1.0)
        best = first
        top = -1e300
        for e in range(first, first + count):
            child = tree.child_v[e]
            if child >= 0 and tree.proven_v[child] == _LOSS:
                return e  # a won move
            if child >= 0 and tree.proven_v[child] == _WIN:
                q = -2.0  # a lost move: only when nothing else is left
            elif child >= 0 and tree.visits_v[child] > 0:
                # the position's mean, whichever way its playouts reached it
                q = -tree.total_v[child] / tree.visits_v[child]
            elif tree.edge_visits_v[e] > 0:  # an edge cut by keep_subtree
                q = tree.edge_total_v[e] / tree.edge_visits_v[e]
            else:
                q = fpu
            score = q + scale * tree.prior_v[e] / (1 + tree.edge_visits_v[e])
            if score > top:
                top = score
                best = e
        return best

    @cython.cfunc
    @cython.locals(e=cython.int, first=cython.int, count=cython.int, child=cython.int)
    def _prove(self, node: cython.int) -> cython.void:
        # After a child of ``node`` was proven: a lost child makes the node won; all
        # children won makes it lost.
        tree: Tree = self.tree
        first = tree.first_v[node]
        count = tree.count_v[node]
        for e in range(first, first + count):
            child = tree.child_v[e]
            if child >= 0 and tree.proven_v[child] == _LOSS:
                tree.proven_v[node] = _WIN
                return
        for e in range(first, first + count):
            child = tree.child_v[e]
            if child < 0 or tree.proven_v[child] != _WIN:
                return
        if count > 0:
            tree.proven_v[node] = _LOSS

    @cython.ccall
    @cython.boundscheck(False)
    @cython.wraparound(False)
    @cython.initializedcheck(False)
    @cython.locals(node=cython.int, depth=cython.int, e=cython.int,
                   child=cython.int, value=cython.double, i=cython.int, done=cython.int,
                   proven=cython.int, common=cython.int, expand=cython.bint,
                   visit_leaf=cython.bint, color=cython.int, key=cython.ulonglong)
    def run(self, playouts: cython.int) -> cython.int:
        """Run up to ``playouts`` playouts from the root; returns how many ran (fewer
        once the root is proven or the tree is full). The board may be left in a
        position of the tree: :meth:`rewind` puts it back at the root.

        A playout first walks the tree alone, then brings the board to the end of the
        walk from where the last one left it, taking back and playing only the moves
        where the two paths part (consecutive playouts share much of their way)."""
        tree: Tree = self.tree
        done = 0
        for _ in range(playouts):
            if tree.proven_v[0] != _UNKNOWN or self.full or tree.count_v[0] == 0:
                break
            node = 0
            depth = 0
            color = self.to_move if self.applied % 2 == 0 else 3 - self.to_move
            expand = False
            visit_leaf = True
            while True:
                proven = tree.proven_v[node]
                if proven != _UNKNOWN or tree.count_v[node] == 0:
                    value = proven  # settled, or a full board (a draw)
                    break
                e = self._select(node)
                self.path_v[depth] = e
                self.nodes_path_v[depth] = node
                depth += 1
                child = tree.child_v[e]
                if child < 0:
                    key = tree.key_v[node] ^ self.keys_v[(color - 1) * _MAX_CELLS
                                                          + tree.move_v[e]]
                    child = tree.find(key)
                    if child < 0:
                        expand = True
                        break
                    tree.child_v[e] = child  # a transposition
                if (tree.proven_v[child] == _UNKNOWN and tree.visits_v[child] >= _SKIP_VISITS
                        and tree.edge_visits_v[e] < tree.visits_v[child]):
                    # The node knows more than this edge: its mean is the leaf's value.
                    node = child
                    value = tree.total_v[child] / tree.visits_v[child]
                    visit_leaf = False
                    break
                node = child
                color = 3 - color
            if expand:
                common = 0
                while (common < self.applied and common < depth
                       and self.applied_v[common] == tree.move_v[self.path_v[common]]):
                    common += 1
                while self.applied > common:
                    self.applied -= 1
                    self._unmake(self.applied_v[self.applied])
                while self.applied < depth:
                    self.applied_v[self.applied] = tree.move_v[self.path_v[self.applied]]
                    self._make(self.applied_v[self.applied])
                    self.applied += 1
                if tree.nodes >= tree.max_nodes:
                    self.full = True
                    value = self.state.value(self.to_move, self.renju)
                else:
                    node = tree.nodes
                    value = self._expand()
                    if self.full:  # no room for its edges: the node is dropped
                        tree.nodes -= 1
                    else:
                        tree.child_v[e] = node
                        tree.key_v[node] = key
                        tree.insert(node)
            if not self.full and visit_leaf:
                # ``value`` is for the side to move at the end of the path.
                tree.visits_v[node] += 1
                tree.total_v[node] += value
            for i in range(depth - 1, -1, -1):
                value = -value
                e = self.path_v[i]
                node = self.nodes_path_v[i]
                tree.edge_visits_v[e] += 1
                tree.edge_total_v[e] += value
                tree.visits_v[node] += 1
                tree.total_v[node] += value
                child = tree.child_v[e]
                if child >= 0 and tree.proven_v[child] != _UNKNOWN:
                    self._prove(node)
            self.depth_sum += depth
            if depth > self.max_depth:
                self.max_depth = depth
            done += 1
        return done

    @cython.ccall
    def rewind(self):
        """Take back the moves :meth:`run` left on the board: the root position again."""
        while self.applied > 0:
            self.applied -= 1
            self._unmake(self.applied_v[self.applied])

    def principal_variation(self) -> list[int]:
        """The most visited line from the root (cells)."""
        tree = self.tree
        line: list[int] = []
        node = 0
        while node >= 0 and tree.count[node] and tree.visits[node]:
            edges = range(tree.first[node], tree.first[node] + tree.count[node])
            best = max(edges, key=lambda e: tree.edge_visits[e])
            if tree.edge_visits[best] == 0:
                break
            line.append(int(tree.move[best]))
            node = int(tree.child[best])
        return line


def dirichlet_noise(tree: Tree, rng: np.random.Generator, alpha: float,
                    fraction: float) -> None:
    """Mix Dirichlet noise into the root's priors (self-play exploration)."""
    edges = tree.root_edges()
    if len(edges) > 1:
        noise = rng.dirichlet([alpha] * len(edges))
        priors = tree.prior[edges.start:edges.stop]
        tree.prior[edges.start:edges.stop] = (1 - fraction) * priors + fraction * noise


def restrict_root(tree: Tree, keep: set[int]) -> None:
    """Keep only the root moves in ``keep`` (if any of them is there), priors
    renormalised; call before any playout."""
    edges = tree.root_edges()
    moves = tree.move[edges.start:edges.stop]
    mask = np.isin(moves, np.fromiter(keep, dtype=np.int64, count=len(keep)))
    if not mask.any() or mask.all():
        return
    kept = np.flatnonzero(mask) + edges.start
    n = len(kept)
    tree.move[edges.start:edges.start + n] = tree.move[kept]
    priors = tree.prior[kept].astype(np.float64)
    tree.prior[edges.start:edges.start + n] = priors / priors.sum()
    tree.child[edges.start:edges.start + n] = -1
    tree.count[0] = n
    tree.edges = edges.start + n


def winrate(value: float) -> float:
    """A value in [-1, 1] as a winning chance in [0, 1]."""
    return min(1.0, max(0.0, (value + 1) / 2)) if not math.isnan(value) else 0.5
