"""Rule-aware threat queries shared by the threat-space solver and the alpha-beta search.

Every function reads the board's incremental threat tables (:attr:`Board.threats`,
:attr:`Board.patterns`) and applies renju's restriction on black: a cell black may not
play (:func:`brain.game.forbidden.forbidden_kind`) is never offered as a black attack or
defence. A five is never forbidden, so five cells need no check. Cell lists come back
as Python ``int`` lists, strongest threat first, ties by cell index, so that callers
iterate them cheaply and deterministically.

Compiled with the board (:mod:`brain.native`): the scans over the cells are the
board's typed loops (:meth:`Board.threat_cells`, :meth:`Board.has_threat`), and the rest
works on short lists of ints. Colours are taken as ints (a :class:`Color` is one), and
``tactics.pxd`` makes the functions C calls for the compiled searches: the threat solver
calls them at every node, where a Python call and a look-up of ``Color.WHITE`` or of the
rule's ``has_forbidden_moves`` (an enum attribute and a property, 0.1-0.2 µs each) cost
more than the query itself.
"""

from __future__ import annotations

import cython
import numpy as np

from brain.game.board import DIRECTIONS, Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.patterns import HALF, Pattern, Threat

# Plain ints: comparing a numpy array with an IntEnum member is several times slower
# (and these three are imported by the searches).
FIVE, FLEX4, BLOCK4 = int(Threat.FIVE), int(Threat.FLEX4), int(Threat.BLOCK4)
# C ints of the compiled module (not importable from it).
_BLACK = cython.declare(cython.int, int(Color.BLACK))
_WHITE = cython.declare(cython.int, int(Color.WHITE))
#: The Color of an int colour, for the board's place (its history keeps Colors).
_COLOR = (None, Color.BLACK, Color.WHITE)
_FLEX3 = cython.declare(cython.int, int(Threat.FLEX3))
#: Threats that may hide a renju foul for black (4-4, 3-3, or a four beside two threes).
_FLEX3_2X = cython.declare(cython.int, int(Threat.FLEX3_2X))
_BLOCK4_FLEX3 = cython.declare(cython.int, int(Threat.BLOCK4_FLEX3))
_FLEX4 = cython.declare(cython.int, int(Threat.FLEX4))
#: The same threats as a tuple, for Python readers.
FOUL_PRONE = (_FLEX3_2X, _BLOCK4_FLEX3, _FLEX4)
_OVERLINE = cython.declare(cython.int, int(Pattern.OVERLINE))
_LINE_FLEX4 = cython.declare(cython.int, int(Pattern.FLEX4))
_LINE_BLOCK4 = cython.declare(cython.int, int(Pattern.BLOCK4))


def empty_mask(board: Board) -> np.ndarray:
    """Boolean (size,) mask of the empty cells."""
    return np.frombuffer(board.cells, dtype=np.uint8) == 0


def is_legal(board: Board, color: int, index: int) -> bool:
    """Whether ``color`` may play the empty cell ``index`` without a renju foul."""
    return color == _WHITE or not board.black_fouls or forbidden_kind(board, index) is None


@cython.locals(board=Board)
def legal_mask(board: Board, color: Color, cells: np.ndarray) -> np.ndarray:
    """Which of the empty ``cells`` ``color`` may play (all, unless renju black).

    Only cells that :func:`may_be_foul` are handed to the recursive foul check.
    """
    ok = np.ones(len(cells), dtype=bool)
    if color == _WHITE or not board.black_fouls:
        return ok
    for k, cell in enumerate(cells.tolist()):
        if may_be_foul(board, cell):
            ok[k] = forbidden_kind(board, cell) is None
    return ok


def cells_with(board: Board, color: int, low: int, high: int) -> list[int]:
    """Legal empty cells where ``color`` makes a threat in ``low..high``, strongest first
    (renju fouls of black are left out)."""
    cells = board.threat_cells(color, low, high)
    if color == _WHITE or not board.black_fouls:
        return cells
    return [cell for cell in cells if not may_be_foul(board, cell)
            or forbidden_kind(board, cell) is None]


@cython.locals(threat=cython.int, d=cython.int)
def may_be_foul(board: Board, cell: int) -> cython.bint:
    """Whether black's threat on ``cell`` could hide a foul (a 4-4, 3-3 or four beside
    two threes) or it makes an overline in some line: only then is the (slower)
    recursive foul check needed."""
    threat = board.threat_at(_BLACK, cell)
    if threat in (_FLEX3_2X, _BLOCK4_FLEX3, _FLEX4):
        return True
    # A loop, not any(...): Cython cannot read a typed argument inside a generator.
    for d in range(4):  # noqa: SIM110
        if board.line_pattern(_BLACK, cell, d) == _OVERLINE:
            return True
    return False


def five_cells(board: Board, color: int) -> list[int]:
    """Empty cells where ``color`` makes a winning five (never a foul)."""
    return board.threat_cells(color, FIVE, FIVE)


def four_cells(board: Board, color: int) -> list[int]:
    """Legal cells where ``color`` makes a four (but no five), strongest first."""
    return cells_with(board, color, BLOCK4, FLEX4)


def three_cells(board: Board, color: int) -> list[int]:
    """Legal cells where ``color`` makes an open three (and no four), strongest first."""
    return cells_with(board, color, _FLEX3, _FLEX3_2X)


def open_four_points(board: Board, color: int) -> list[int]:
    """Legal cells where ``color`` would make two five-threats at once (a straight four
    or a double four): while any exist, ``color`` has a live three (or better)."""
    return cells_with(board, color, FLEX4, FLEX4)


@cython.locals(d=cython.int)
def makes_straight_four(board: Board, color: int, index: int) -> bool:
    """Whether ``color`` on the empty ``index`` makes an open four in one line."""
    for d in range(4):  # noqa: SIM110 (as in may_be_foul)
        if board.line_pattern(color, index, d) == _LINE_FLEX4:
            return True
    return False


@cython.locals(dx=cython.int, dy=cython.int, x=cython.int, y=cython.int, width=cython.int,
               height=cython.int, step=cython.int, k=cython.int, cx=cython.int,
               cy=cython.int, cell=cython.int)
def line_cells(board: Board, index: int, direction: int, reach: int = HALF) -> list[int]:
    """Empty cells within ``reach`` of ``index`` along ``direction`` (both ways)."""
    dx, dy = DIRECTIONS[direction]
    width, height = board.width, board.height
    x, y = index % width, index // width
    out: list[int] = []
    for step in (-1, 1):
        for k in range(1, reach + 1):
            cx, cy = x + step * k * dx, y + step * k * dy
            if not (0 <= cx < width and 0 <= cy < height):
                break
            cell = cy * width + cx
            if board.cells[cell] == 0:
                out.append(cell)
    return out


#: Defence sets already computed, by (hash, attacker, width, height, rule); searches
#: meet the same positions again and again (iterations, transpositions).
_DEFENCES: dict[tuple[int, int, int, int, int], tuple[int, ...]] = {}
_DEFENCES_LIMIT = 100_000


@cython.locals(defender=cython.int, renju_black=cython.bint, still=cython.bint,
               cell=cython.int, point=cython.int, d=cython.int)
def three_defences(board: Board, attacker: int, points: list[int]) -> list[int]:
    """The real defences against ``attacker``'s open-four ``points``.

    ``points`` are the attacker's current :func:`open_four_points` (its live threes).
    A defence is an empty cell, legal for the defender, after which the attacker has no
    open-four point left. Candidates are the points themselves and the empty cells on
    their threat lines within five (an overline or caro end point may lie five away);
    each is verified by playing it, and the answer is remembered for the position. The
    defender's own fours, which also answer a three by forcing, are not included:
    callers add :func:`four_cells` of the defender.
    """
    key = (board.hash, attacker, board.width, board.height, int(board.rule))
    known = _DEFENCES.get(key)
    if known is not None:
        return list(known)
    defender = 3 - attacker
    candidates: set[int] = set(points)
    for point in points:
        for d in range(4):
            if board.line_pattern(attacker, point, d) >= _LINE_BLOCK4:
                candidates.update(line_cells(board, point, d))
    to_move = board.to_move
    # A defender stone only blocks: the attacker's open-four points after it are among
    # those before, and their threats can be read without playing. Not so for renju
    # black, whose fouls may turn legal when a stone breaks one of their lines.
    renju_black = attacker == _BLACK and board.black_fouls
    defences: list[int] = []
    for cell in sorted(candidates):
        if not is_legal(board, defender, cell):
            continue
        if renju_black:
            board.place(cell, _COLOR[defender])
            still = bool(open_four_points(board, attacker))
            board.undo()
        else:
            rest = [p for p in points if p != cell]
            still = len(rest) > 0 and board.any_threat_after(attacker, rest, cell, defender,
                                                             FLEX4)
        if not still:
            defences.append(cell)
    board.to_move = to_move
    if len(_DEFENCES) >= _DEFENCES_LIMIT:
        _DEFENCES.clear()
    _DEFENCES[key] = tuple(defences)
    return defences
