"""Input planes of the policy/value network, from the side to move's point of view.

:func:`encode` turns a :class:`~brain.game.board.Board` into a float32 array of shape
``(PLANE_COUNT, height, width)`` holding only zeros and ones. Every plane is
equivariant under the board's symmetries, so a rotated or mirrored board encodes to the
rotated or mirrored planes (training augments data that way).

=====  =====================================================================
plane  content
=====  =====================================================================
0      stones of the side to move
1      stones of the opponent
2      on-board mask (all ones: tells a fully convolutional net where the edge is)
3      all ones when black is to move
4-7    rule attributes, each plane all ones or all zeros: freestyle, exact five,
       renju, caro (:data:`RULE_ATTRIBUTES`; caro with exact five sets two)
8      the last stone placed
9      the stone placed before it
10     renju: cells forbidden to black, when black is to move
11-16  side to move's threat on empty cells, at least FIVE, FLEX4, BLOCK4, FLEX3,
       BLOCK3, FLEX2 (cumulative levels of :class:`~brain.game.patterns.Threat`)
17-22  the same for the opponent
=====  =====================================================================

Threat planes are read from the board's incremental threat table in one vectorised
comparison; the forbidden plane runs the recursive renju check only on cells whose
threat or overline could hide a foul (the prefilter of :func:`brain.game.tactics.legal_mask`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from brain.game.board import Board, Color
from brain.game.forbidden import forbidden_kind
from brain.game.patterns import Pattern, Threat
from brain.game.rules import Rule
from brain.game.tactics import FOUL_PRONE

#: Bumped whenever the meaning or order of the planes changes; weights record it.
FEATURE_VERSION = 1

OWN, OPPONENT, ON_BOARD, BLACK_TO_MOVE = 0, 1, 2, 3
RULE_PLANES = 4
LAST_MOVE, PREVIOUS_MOVE = 8, 9
FORBIDDEN = 10
OWN_THREATS = 11

#: Threat levels of the threat planes, strongest first; plane k holds threat >= level k.
THREAT_LEVELS = (Threat.FIVE, Threat.FLEX4, Threat.BLOCK4, Threat.FLEX3, Threat.BLOCK3,
                 Threat.FLEX2)
OPPONENT_THREATS = OWN_THREATS + len(THREAT_LEVELS)
PLANE_COUNT = OPPONENT_THREATS + len(THREAT_LEVELS)

#: Rule attribute planes set for each rule, as offsets from :data:`RULE_PLANES`:
#: 0 freestyle, 1 exact five, 2 renju, 3 caro.
RULE_ATTRIBUTES: dict[Rule, tuple[int, ...]] = {
    Rule.FREESTYLE: (0,),
    Rule.STANDARD: (1,),
    Rule.RENJU: (2,),
    Rule.CARO: (3,),
    Rule.CARO_STANDARD: (1, 3),
}

_LEVELS = np.array(THREAT_LEVELS, dtype=np.uint8)[:, None]
#: Indexed by a black threat: whether it may hide a renju foul (the solver's list).
_MAY_BE_FOUL = np.isin(np.arange(len(Threat)), FOUL_PRONE)


def encode(board: Board) -> np.ndarray:
    """The (PLANE_COUNT, height, width) float32 planes of ``board`` for the side to move."""
    planes = np.zeros((PLANE_COUNT, board.size), dtype=np.float32)
    _fill(board, planes)
    return planes.reshape(PLANE_COUNT, board.height, board.width)


def encode_batch(boards: Sequence[Board]) -> np.ndarray:
    """The (B, PLANE_COUNT, height, width) planes of boards that all have one shape.

    Raises ValueError for an empty sequence or boards of different shapes.
    """
    if not boards:
        raise ValueError("encode_batch needs at least one board")
    width, height = boards[0].width, boards[0].height
    planes = np.zeros((len(boards), PLANE_COUNT, width * height), dtype=np.float32)
    for n, board in enumerate(boards):
        if (board.width, board.height) != (width, height):
            raise ValueError(
                f"boards of one batch must share a shape: {board.width}x{board.height} "
                f"after {width}x{height}"
            )
        _fill(board, planes[n])
    return planes.reshape(len(boards), PLANE_COUNT, height, width)


def _fill(board: Board, out: np.ndarray) -> None:
    """Write the planes of ``board`` into the zeroed (PLANE_COUNT, size) array ``out``."""
    me = board.to_move
    cells = np.frombuffer(board.cells, dtype=np.uint8)
    empty = cells == 0
    out[OWN] = cells == me
    out[OPPONENT] = cells == me.opponent
    out[ON_BOARD] = 1.0
    if me is Color.BLACK:
        out[BLACK_TO_MOVE] = 1.0
    for offset in RULE_ATTRIBUTES[board.rule]:
        out[RULE_PLANES + offset] = 1.0
    history = board.history
    if history:
        out[LAST_MOVE, history[-1][0]] = 1.0
        if len(history) > 1:
            out[PREVIOUS_MOVE, history[-2][0]] = 1.0
    if me is Color.BLACK and board.rule.has_forbidden_moves:
        _fill_forbidden(board, empty, out[FORBIDDEN])
    out[OWN_THREATS:OPPONENT_THREATS] = (board.threats[me] >= _LEVELS) & empty
    out[OPPONENT_THREATS:] = (board.threats[me.opponent] >= _LEVELS) & empty


def _fill_forbidden(board: Board, empty: np.ndarray, out: np.ndarray) -> None:
    """Mark black's renju fouls among the ``empty`` cells in the zeroed plane ``out``.

    The recursive check runs only on cells whose threat may hide a foul or that make an
    overline in some line (a fraction of a cell per position in real games).
    """
    black = Color.BLACK
    suspect = _MAY_BE_FOUL[board.threats[black]]
    suspect |= (board.patterns[black] == Pattern.OVERLINE).reshape(4, board.size).any(axis=0)
    for cell in np.flatnonzero(suspect & empty).tolist():
        if forbidden_kind(board, cell) is not None:
            out[cell] = 1.0


def legal_from_planes(planes: np.ndarray) -> np.ndarray:
    """Boolean (B, H*W) mask of the cells the side to move may play, from (B, C, H, W)
    planes: empty cells that are not renju fouls.

    Only arithmetic and comparison are used, so a torch tensor works as well.
    """
    free = (1 - planes[:, OWN] - planes[:, OPPONENT]) * (1 - planes[:, FORBIDDEN])
    return (free > 0.5).reshape(planes.shape[0], -1)
