"""Line patterns: what one stone makes in one direction, looked up from precomputed tables.

For every empty cell and each of the four directions the board keeps a *line key*: the
contents of the ten cells within distance five on that line (two bits each: empty, black,
white, off the board). A table maps the key to the :class:`Pattern` the colour would make
by playing the cell, so the board answers "what does this move make here?" with one
lookup after each move. Five cells each side are needed, not four: the cell just past a
five decides whether it is an overline (exact-five rules) or blocked (caro).

The tables are built once per line rule with numpy over all 2**20 keys and cached in
memory; building one takes a fraction of a second.

The pattern ladder is defined recursively, as in Rapfi: a stone makes a *four* when one
more stone makes a five through it; a *flex four* (open four) when two cells do; a
*flex three* when one more stone makes a flex four; a *block three* when one more stone
makes a four; and so on down to ones.
"""

from __future__ import annotations

import enum
import functools
import itertools

import numpy as np

from brain.game.rules import LineRule

#: Cells on each side of the centre that a line key covers.
HALF = 5
#: Number of distinct line keys (ten neighbours, two bits each).
KEY_COUNT = 1 << (4 * HALF)

EMPTY_CODE, BLACK_CODE, WHITE_CODE, WALL_CODE = 0, 1, 2, 3


class Pattern(enum.IntEnum):
    """What a stone played on a cell makes in one line, strongest last."""

    NONE = 0
    #: Six or more in a row that does not win (exact-five rules).
    OVERLINE = 1
    BLOCK1 = 2
    FLEX1 = 3
    BLOCK2 = 4
    FLEX2 = 5
    BLOCK3 = 6
    FLEX3 = 7
    BLOCK4 = 8
    FLEX4 = 9
    FIVE = 10


PATTERN_COUNT = len(Pattern)


class Threat(enum.IntEnum):
    """What a stone makes over all four lines through its cell, strongest last."""

    NONE = 0
    FLEX2 = 1
    FLEX2_2X = 2
    BLOCK3 = 3
    BLOCK3_PLUS = 4
    FLEX3 = 5
    FLEX3_PLUS = 6
    FLEX3_2X = 7
    BLOCK4 = 8
    BLOCK4_PLUS = 9
    BLOCK4_FLEX3 = 10
    FLEX4 = 11
    FIVE = 12


def key_slot(offset: int) -> int:
    """Slot (0..9) of the neighbour at ``offset`` (-5..-1, 1..5) in a line key."""
    if not (1 <= abs(offset) <= HALF):
        raise ValueError(f"offset {offset} is outside the line key (1..{HALF} each side)")
    return offset + HALF if offset < 0 else offset + HALF - 1


# The 11-cell line with the centre at index HALF; line index j <-> key slot.
_LINE_SLOTS = [key_slot(j - HALF) if j != HALF else -1 for j in range(2 * HALF + 1)]
# Cells that can share a five with the centre (distance <= 4).
_NEAR = [j for j in range(1, 2 * HALF) if j != HALF]


def _decode(keys: np.ndarray) -> np.ndarray:
    """Line keys decoded into an (len(keys), 11) array of cell codes, centre empty."""
    lines = np.zeros((len(keys), 2 * HALF + 1), dtype=np.uint8)
    for j, slot in enumerate(_LINE_SLOTS):
        if slot >= 0:
            lines[:, j] = (keys >> np.uint32(2 * slot)) & np.uint32(3)
    return lines


@functools.cache
def _reachable_keys() -> np.ndarray:
    """Keys a board can produce, ascending: on each side of the centre, off-board cells
    only beyond on-board ones (364 codings a side, so 132,496 of the 4^10 keys)."""
    sides = []
    for offsets in ([-k for k in range(1, HALF + 1)], list(range(1, HALF + 1))):
        slots = [key_slot(offset) for offset in offsets]  # nearest the centre first
        codes: list[int] = []
        for walls in range(HALF + 1):
            near = slots[: HALF - walls]
            wall_bits = sum(WALL_CODE << (2 * slot) for slot in slots[HALF - walls:])
            for cells in itertools.product((EMPTY_CODE, BLACK_CODE, WHITE_CODE),
                                           repeat=len(near)):
                codes.append(wall_bits + sum(code << (2 * slot)
                                             for code, slot in zip(cells, near, strict=True)))
        sides.append(np.array(codes, dtype=np.uint32))
    return np.sort((sides[0][:, None] | sides[1][None, :]).ravel())


def _five_through_centre(lines: np.ndarray, own: int, rule: LineRule) -> np.ndarray:
    """Which lines hold a winning five through the centre (the centre is ``own``)."""
    opp = BLACK_CODE + WHITE_CODE - own
    mine = lines == own
    win = np.zeros(len(lines), dtype=bool)
    for s in range(1, HALF + 1):
        full = mine[:, s : s + 5].all(axis=1)
        left, right = lines[:, s - 1], lines[:, s + 5]
        longer = (left == own) | (right == own)
        if rule.caro:
            blocked = (left == opp) & (right == opp)
            ok = ~longer & ~blocked if rule.exact else longer | ~blocked
        else:
            ok = ~longer if rule.exact else np.ones(len(lines), dtype=bool)
        win |= full & ok
    return win


def _run_through_centre(lines: np.ndarray, own: int) -> np.ndarray:
    """Length of the unbroken run of ``own`` stones through the centre (centre counted)."""
    mine = lines == own
    run = np.ones(len(lines), dtype=np.int8)
    for step in (-1, 1):
        alive = np.ones(len(lines), dtype=bool)
        for k in range(1, HALF + 1):
            alive &= mine[:, HALF + step * k]
            run += alive
    return run


@functools.cache
def _black_tables(rule: LineRule) -> tuple[np.ndarray, np.ndarray | None]:
    """Pattern table for black under ``rule``, and the double-four-in-one-line table for
    renju black (None for the other rules, which have no use for it)."""
    own = BLACK_CODE
    keys = _reachable_keys()
    # int32 (132,496 reachable keys): the widest temporary array, half the peak of int64.
    position = np.full(KEY_COUNT, -1, dtype=np.int32)
    position[keys] = np.arange(len(keys))
    lines = _decode(keys)
    lines[:, HALF] = own
    five = _five_through_centre(lines, own, rule)
    overline = np.zeros(len(lines), dtype=bool)
    if rule.exact:
        overline = ~five & (_run_through_centre(lines, own) >= 6)

    # Five points: empty cells that would complete a five through the centre.
    points = np.zeros((len(lines), len(_NEAR)), dtype=bool)
    for n, j in enumerate(_NEAR):
        empty = lines[:, j] == EMPTY_CODE
        sub = lines[empty]
        sub[:, j] = own
        points[empty, n] = _five_through_centre(sub, own, rule)
    points[five | overline] = False
    n_points = points.sum(axis=1)

    double4 = np.zeros(len(lines), dtype=bool)
    flex4 = n_points >= 2
    if rule is LineRule.RENJU_BLACK:
        # A straight four: exactly two five points five apart, four stones in between.
        near = np.array(_NEAR)
        first = near[np.argmax(points, axis=1)]
        last = near[len(_NEAR) - 1 - np.argmax(points[:, ::-1], axis=1)]
        straight = (n_points == 2) & (last - first == 5)
        double4 = flex4 & ~straight
        flex4 = flex4 & straight

    base = np.full(len(lines), Pattern.NONE, dtype=np.uint8)
    base[n_points == 1] = Pattern.BLOCK4
    base[flex4] = Pattern.FLEX4
    # A double four in one line is no straight four, so it cannot make a renju three
    # real; while the lower levels are derived it counts as a plain four.
    base[double4] = Pattern.BLOCK4
    base[overline] = Pattern.OVERLINE
    base[five] = Pattern.FIVE

    # One level down per round: a cell's pattern is the best pattern one more own stone
    # on the line could make, lowered by one step (flex four -> flex three, ...).
    down = np.zeros(PATTERN_COUNT, dtype=np.uint8)
    for high, low in ((Pattern.FLEX4, Pattern.FLEX3), (Pattern.BLOCK4, Pattern.BLOCK3),
                      (Pattern.FLEX3, Pattern.FLEX2), (Pattern.BLOCK3, Pattern.BLOCK2),
                      (Pattern.FLEX2, Pattern.FLEX1), (Pattern.BLOCK2, Pattern.BLOCK1)):
        down[high] = low
    undecided = base == Pattern.NONE
    table = base
    for _ in range(3):
        best = np.zeros(len(lines), dtype=np.uint8)
        for j in _NEAR:
            empty = np.flatnonzero(lines[:, j] == EMPTY_CODE)
            neighbour = position[keys[empty] + np.uint32(own << (2 * _LINE_SLOTS[j]))]
            np.maximum.at(best, empty, down[table[neighbour]])
        table = np.where(undecided, best, base).astype(np.uint8)
    table[double4] = Pattern.FLEX4

    full = np.zeros(KEY_COUNT, dtype=np.uint8)
    full[keys] = table
    if rule is not LineRule.RENJU_BLACK:
        return full, None
    full_double4 = np.zeros(KEY_COUNT, dtype=bool)
    full_double4[keys] = double4
    return full, full_double4


@functools.cache
def _colour_swap() -> tuple[np.ndarray, np.ndarray]:
    """The reachable keys, and for each the key with black and white stones exchanged
    (also reachable: walls stay where they are)."""
    keys = _reachable_keys()
    swapped = keys.copy()
    for slot in range(2 * HALF):
        code = (keys >> np.uint32(2 * slot)) & np.uint32(3)
        is_stone = (code == BLACK_CODE) | (code == WHITE_CODE)
        swapped ^= np.where(is_stone, np.uint32(3 << (2 * slot)), np.uint32(0)).astype(
            np.uint32
        )
    return keys, swapped


def line_table(rule: LineRule, own: int) -> np.ndarray:
    """The (KEY_COUNT,) uint8 table of :class:`Pattern` values for ``own`` under ``rule``.

    White's is made from black's each call (a millisecond), not kept: the board keeps
    both colours' tables in one array of its own (:mod:`brain.game.board`).
    """
    table = _black_tables(rule)[0]
    if own == BLACK_CODE:
        return table
    keys, swapped = _colour_swap()
    white = np.zeros_like(table)  # unreachable keys stay NONE, as in the black table
    white[keys] = table[swapped]
    return white


def double_four_table() -> np.ndarray:
    """For renju black: whether a key holds two separate fours in one line (a 4-4)."""
    table = _black_tables(LineRule.RENJU_BLACK)[1]
    assert table is not None  # built for renju black
    return table


@functools.cache
def threat_table() -> np.ndarray:
    """Threat of a cell from its four line patterns, indexed by ``threat_index``.

    Computed for all 11^4 pattern combinations at once (numpy, a few ms): it is built
    at a game's first move, inside the move's time.
    """
    index = np.arange(PATTERN_COUNT**4)
    digits = [(index // PATTERN_COUNT**d) % PATTERN_COUNT for d in range(4)]
    count = {pattern: sum((digit == pattern).astype(np.int32) for digit in digits)
             for pattern in Pattern}
    fours = count[Pattern.BLOCK4] + count[Pattern.FLEX4]
    threes = count[Pattern.FLEX3]
    block3, flex2 = count[Pattern.BLOCK3], count[Pattern.FLEX2]
    side = (block3 > 0) | (flex2 > 0)  # a lesser shape beside the main one
    # The first rule that holds decides, strongest first.
    rules = [
        (count[Pattern.FIVE] > 0, Threat.FIVE),
        ((count[Pattern.FLEX4] > 0) | (fours >= 2), Threat.FLEX4),
        ((fours > 0) & (threes > 0), Threat.BLOCK4_FLEX3),
        ((fours > 0) & side, Threat.BLOCK4_PLUS),
        (fours > 0, Threat.BLOCK4),
        (threes >= 2, Threat.FLEX3_2X),
        ((threes > 0) & side, Threat.FLEX3_PLUS),
        (threes > 0, Threat.FLEX3),
        ((block3 > 0) & ((block3 >= 2) | (flex2 > 0)), Threat.BLOCK3_PLUS),
        (block3 > 0, Threat.BLOCK3),
        (flex2 >= 2, Threat.FLEX2_2X),
        (flex2 > 0, Threat.FLEX2),
    ]
    return np.select([condition for condition, _ in rules],
                     [int(threat) for _, threat in rules], int(Threat.NONE)).astype(np.uint8)


#: Weights that turn four line patterns into an index of :func:`threat_table`.
THREAT_WEIGHTS = np.array([PATTERN_COUNT**d for d in range(4)], dtype=np.int32)
